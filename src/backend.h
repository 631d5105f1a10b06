/* backend.h: what the runner needs from a device (CPU or CUDA): memory, launches,
 * timing, cache flushing, clocks and recovery. One ops struct per backend, one file each:
 * backend_cpu.c and cuda/backend.c (the driver API, opened at run time). Errors are backend
 * codes, 0 meaning success. */
#ifndef TB_BACKEND_H
#define TB_BACKEND_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tb_device_info {
    char name[128];
    int index;
    int cc_major, cc_minor;          /* 0 on the CPU */
    int sm_count;                    /* CPU: online cores */
    size_t l2_bytes;                 /* last-level cache */
    size_t mem_bytes;                /* device (or host) memory */
    int max_threads_per_block;       /* CPU: no limit, INT_MAX */
    bool integrated;                 /* a Tegra GPU sharing the board's memory */
    char driver_version[32];         /* the driver's CUDA version, e.g. "12.2" */
    char image[192];                 /* the embedded kernel image this GPU runs */
    char image_why[768];             /* why that one (images.c's rules), a refused cubin */
    char pci_bus_id[32];             /* e.g. "00000000:19:00.0", for NVML; "" when none */
};

struct tb_backend {
    const char *name;
    enum tb_backend_id id;
    /* 0 when device index looks usable here, else an error code with why filled in. */
    int (*probe)(int index, char *why, size_t n);
    /* Opens the device (context, kernel images); 0, or an error code with why filled in. */
    int (*open)(int index, struct tb_device_info *info, char *why, size_t n);
    void (*close)(void);
    int (*alloc)(size_t bytes, void **p);
    void (*free)(void *p);
    int (*download)(void *host_dst, const void *dev_src, size_t n);
    int (*fill_bytes)(void *dst, int byte, size_t n);
    int (*fill_pattern)(void *dst, size_t count, int elem_size, uint64_t seed);
    int (*launch)(const struct tb_kernel *k, struct tb_launch *l);   /* async where possible */
    int (*timed)(const struct tb_kernel *k, struct tb_launch *l, double *ms);
    int (*sync)(void);
    int (*flush_cache)(void);        /* evict the last-level cache (cold measurements) */
    int (*sm_clock_mhz)(double *mhz);/* current SM clock, NAN where unknown */
    int (*recover)(void);            /* after a broken context: 0 when usable again */
    const char *(*errstr)(int err);
    bool (*is_oom)(int err);
    bool (*is_fatal)(int err);       /* the context is broken: recover before going on */
    /* Long host-side work (fills, CPU kernels) checks *stop and returns -EINTR when set;
     * NULL where every step is short (the GPU's). */
    void (*watch)(const volatile sig_atomic_t *stop);
    /* NULL when kernel k can run here, else why not (a built-in's library missing); the
     * op itself may be NULL: every kernel of the backend can run. */
    const char *(*unusable)(const struct tb_kernel *k);
    /* How the kernel images were loaded so far (cubin load, PTX entries JIT-compiled and
     * their time), for the log; NULL where nothing is loaded (the CPU). */
    void (*load_stats)(char *buf, size_t n);
};

extern const struct tb_backend tb_backend_cpu;
extern const struct tb_backend tb_backend_cuda;

/* The kernel images this executable carries, each with its compiler, e.g. "PTX sm_53 ISA
 * 6.5 (clang 19.1.7)", or why there are none (src/cuda/images.c). */
const char *tb_cuda_images(void);

/* Where the driver keeps PTX it JIT-compiled (CUDA_CACHE_PATH, else ~/.nv/ComputeCache),
 * whether it is on (CUDA_CACHE_DISABLE) and writable, and its size limit: into buf. */
const char *tb_cuda_jit_cache(char *buf, size_t n);

/* What the driver says about CUDA device index without making a context: name, compute
 * capability, SMs, L2, memory, threads per block, PCI bus id, driver's CUDA (a value no GPU
 * can have is 0, unknown). Every call under the watchdog's deadline. 0, or -1 when the
 * device cannot be used (the probe says why). */
int tb_cuda_describe(int index, struct tb_device_info *info);

/* "auto", "cpu", "cuda", "cuda:N": picks the backend; auto prefers a usable GPU.
 * When auto takes the CPU, why says why and *probe_rc is the GPU probe's code (-ENOENT:
 * no NVIDIA driver here at all). Returns 0, or -1 on a bad spec. */
int tb_backend_select(const char *spec, const struct tb_backend **out, int *index,
                      char *why, size_t n, int *probe_rc);

#ifdef __cplusplus
}
#endif
#endif
