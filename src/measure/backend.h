/* backend.h: choosing a backend from --device, an instance's state, and whether a kernel can
 * run here. What a backend is (the ops struct: memory, launches, timing, cache flushing,
 * clocks and recovery) and its rows are device/backend.h's, one file each: backend_cpu.c
 * and cuda/backend.c (the driver API, opened at run time). Errors are backend codes, 0
 * meaning success. */
#ifndef TB_BACKEND_H
#define TB_BACKEND_H

#include <stddef.h>

#include "device/backend.h"
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A new instance of be: its state_size bytes, zeroed (malloc); NULL when out of memory.
 * Freed with free() after be->close (when it was opened). */
void *tb_backend_new(const struct tb_backend *be);

/* "auto", "cpu", "cuda", "cuda:N": picks the backend; auto prefers a usable GPU.
 * When auto takes the CPU, why says why and *probe_rc is the GPU probe's code (-ENOENT:
 * no NVIDIA driver here at all). Returns 0, or -1 on a bad spec. */
int tb_backend_select(const char *spec, const struct tb_backend **out, int *index,
                      char *why, size_t n, int *probe_rc);

/* Checks that kernel k can run in this process: its backend's `unusable` op (a built-in's
 * library found: cuBLAS). 1 ok, 0 with why filled. */
int tb_kernel_usable(const struct tb_kernel *k, char *why, size_t n);

#ifdef __cplusplus
}
#endif
#endif
