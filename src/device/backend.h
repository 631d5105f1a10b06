/* device/backend.h: what a backend is, below every folder that names one: a device's facts
 * (struct tb_device_info), the ops struct each backend fills (the CPU's in
 * measure/backend_cpu.c, the CUDA driver's in cuda/backend.c) and the rows themselves. A
 * header of types and the rows' names only: choosing a backend and whether a kernel can run
 * are measure/backend.h's. It sits on a floor below measure/ and cuda/, so that measure/
 * (choosing, the board's GPU) and cmd/ reach the CUDA row down a floor (#59 item 2). */
#ifndef TB_DEVICE_BACKEND_H
#define TB_DEVICE_BACKEND_H

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

/* A backend is a class and its instances, as a power source is (power.h): the class-level
 * queries below take no instance (what the process and its driver can tell without a
 * device: probe, identify, the images carried, the JIT cache, whether a kernel can run);
 * every device op takes the instance `st`, state_size zeroed bytes the caller holds
 * (tb_backend_new), so two instances never share a context, a stream, a buffer or a flag. */
struct tb_backend {
    const char *name;
    enum tb_backend_id id;
    size_t state_size;               /* an instance's private state (tb_backend_new) */

    /* ---- class-level: no instance, no context ---- */
    /* 0 when device index looks usable here, else an error code with why filled in
     * (-ENOENT: no driver here at all). */
    int (*probe)(int index, char *why, size_t n);
    /* Names device index without making a context (nvtop's way): name, compute capability,
     * SMs, L2, memory, threads per block, PCI bus id, driver's version, and the image it
     * would run by the compatibility rules (image ""; image_why says why none). 0, or an
     * error code with why filled in when the driver cannot name it. */
    int (*identify)(int index, struct tb_device_info *info, char *why, size_t n);
    /* The kernel images the executable carries, one line (e.g. "PTX sm_53 ISA 6.5 (clang
     * 19.1.7)"), or why there are none: into buf. NULL op: the backend needs none. */
    const char *(*images)(char *buf, size_t n);
    /* Image i of them: 0 with desc ("sm_53 PTX ISA 6.5, clang 19.1.7, 2183459 bytes") and
     * file (a file name for it, "sm_53.ptx"), and, when bytes is not NULL, the image
     * unpacked (malloc'd, *len bytes); -ENOENT past the last, another -errno on failure. */
    int (*image)(size_t i, char *desc, size_t dn, char *file, size_t fn, unsigned char **bytes,
                 size_t *len);
    /* Where the driver keeps the code it JIT-compiles, whether it is on and writable, its
     * size limit: into buf. NULL op: nothing is JIT-compiled. */
    const char *(*jit_cache)(char *buf, size_t n);
    /* NULL when kernel k can run here, else why not (a built-in's library missing); the
     * op itself may be NULL: every kernel of the backend can run. */
    const char *(*unusable)(const struct tb_kernel *k);

    /* ---- instance ops: st is the instance's state ---- */
    /* Opens the device (context, kernel images); 0, or an error code with why filled in. */
    int (*open)(void *st, int index, struct tb_device_info *info, char *why, size_t n);
    void (*close)(void *st);         /* what open made; the state itself is the caller's */
    int (*alloc)(void *st, size_t bytes, void **p);
    void (*free)(void *st, void *p);
    int (*download)(void *st, void *host_dst, const void *dev_src, size_t n);
    int (*fill_bytes)(void *st, void *dst, int byte, size_t n);
    int (*fill_pattern)(void *st, void *dst, size_t count, int elem_size, uint64_t seed);
    int (*launch)(void *st, const struct tb_kernel *k, struct tb_launch *l);   /* async where possible */
    int (*timed)(void *st, const struct tb_kernel *k, struct tb_launch *l, double *ms);
    int (*sync)(void *st);
    int (*flush_cache)(void *st);    /* evict the last-level cache (cold measurements) */
    int (*sm_clock_mhz)(void *st, double *mhz);   /* current SM clock, NAN where unknown */
    int (*recover)(void *st);        /* after a broken context: 0 when usable again */
    /* err in words, in the instance's own buffer: valid until its next errstr. */
    const char *(*errstr)(void *st, int err);
    bool (*is_oom)(int err);
    bool (*is_fatal)(int err);       /* the context is broken: recover before going on */
    /* Long host-side work (fills, CPU kernels) checks *stop and returns -EINTR when set;
     * NULL where every step is short (the GPU's). */
    void (*watch)(void *st, const volatile sig_atomic_t *stop);
    /* How the kernel images were loaded so far (cubin load, PTX entries JIT-compiled and
     * their time), for the log; NULL where nothing is loaded (the CPU). */
    void (*load_stats)(void *st, char *buf, size_t n);
};

extern const struct tb_backend tb_backend_cpu;
extern const struct tb_backend tb_backend_cuda;

#ifdef __cplusplus
}
#endif
#endif
