/* probe.h: the CUDA backend's class-level queries (device/backend.h: no instance, no
 * context), which backend.c's ops table points at, and the device facts its instance opens
 * a GPU with. Every driver call is under the watchdog (driver.h's CU). */
#ifndef TB_CUDA_PROBE_H
#define TB_CUDA_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "cuda/driver.h"
#include "cuda/images.h"
#include "device/backend.h"

/* The ops of the same names (backend.h): probe, identify, the images carried, one image,
 * the JIT cache. */
int tb_cuda_probe(int index, char *why, size_t n);
int tb_cuda_identify(int index, struct tb_device_info *info, char *why, size_t n);
const char *tb_cuda_images(char *buf, size_t n);
int tb_cuda_image(size_t i, char *desc, size_t dn, char *file, size_t fn,
                  unsigned char **bytes, size_t *len);
const char *tb_cuda_jit_cache(char *buf, size_t n);

/* Loads the driver unless the binary has nothing to run on it; 0, or -1 with why. */
int tb_cuda_driver_for_images(char *why, size_t n);

/* GPU index's handle, compute capability (sm: 87 for 8.7), kind and the image the rules
 * give it; 0, or -1 with why. Needs the driver (tb_cuda_driver_for_images). */
int tb_cuda_device_facts(int index, CUdevice *d, int *sm, bool *integrated,
                         struct tb_image_pick *pick, char *why, size_t n);

/* What the driver says of dev without a context: name, SMs, L2, memory, threads per block,
 * PCI bus id, driver's version (a driver's garbage left unknown, 0). */
void tb_cuda_device_identity(struct tb_device_info *info, CUdevice dev, int index, int sm,
                             bool integrated);

/* info->image: im described (a PTX: JIT-compiled entry by entry); info->image_why: why. */
void tb_cuda_describe_image(const struct tb_image *im, const char *why,
                            struct tb_device_info *info);

#endif
