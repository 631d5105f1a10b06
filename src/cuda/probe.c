/* probe.c: what the CUDA backend tells without an instance or a context (backend.h's
 * class-level queries): whether the driver and a GPU can be used (probe), what the GPU is
 * and which kernel image the rules give it (identify: nvtop's way of naming a GPU, used by
 * board choice, `list` and the run's probe), the images the binary carries, where the driver
 * keeps what it JIT-compiles. The instance (backend.c) opens the device from the same facts.
 * Nothing here makes a context or loads an image. No CUDA header here. */
#include "cuda/probe.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda/driver.h"
#include "lib/util.h"

static bool have_images(void) { return tb_image_count() > 0; }

/* why the binary has nothing to run: the build's own reason (the Makefile writes it into the
 * image table: CUDA=0, no GPU on the build machine, ...) */
static void no_images(char *why, size_t n)
{
    snprintf(why, n, "this binary carries no kernel images: %s",
             tb_images_none_why[0] ? tb_images_none_why
                                   : "built with CUDA=0, or with neither clang nor nvcc");
}

const char *tb_cuda_images(char *buf, size_t n) { return tb_images_summary(buf, n); }

int tb_cuda_image(size_t i, char *desc, size_t dn, char *file, size_t fn,
                  unsigned char **bytes, size_t *len)
{
    if (i >= tb_image_count())
        return -ENOENT;
    const struct tb_image *im = &tb_images[i];
    tb_image_describe(im, desc, dn);
    snprintf(file, fn, "sm_%d.%s", im->sm, im->kind == TB_IMAGE_CUBIN ? "cubin" : "ptx");
    return bytes ? tb_image_unpack(im, bytes, len) : 0;
}

const char *tb_cuda_jit_cache(char *buf, size_t n)
{
    const char *off = getenv("CUDA_CACHE_DISABLE"), *path = getenv("CUDA_CACHE_PATH");
    const char *home = getenv("HOME"), *max = getenv("CUDA_CACHE_MAXSIZE");
    if (off && atoi(off) == 1) {
        snprintf(buf, n, "off (CUDA_CACHE_DISABLE=1): every run JIT-compiles its PTX entries");
        return buf;
    }
    char dir[PATH_MAX];
    if (path && *path)
        snprintf(dir, sizeof(dir), "%s", path);
    else if (home && *home)
        snprintf(dir, sizeof(dir), "%s/.nv/ComputeCache", home);
    else {
        snprintf(buf, n, "unknown: neither CUDA_CACHE_PATH nor HOME is set (cron sets HOME; "
                 "set CUDA_CACHE_PATH to keep JIT-compiled kernels between runs)");
        return buf;
    }
    /* a relative path is the driver's working directory's: cron's is $HOME, a shell's not */
    if (dir[0] != '/') {
        snprintf(buf, n, "%s (CUDA_CACHE_PATH), a relative path: taken from the working "
                 "directory, which differs between cron and a shell; give an absolute one",
                 dir);
        return buf;
    }
    /* the cache itself, when there, must be a directory (not a file, not a dangling link) */
    struct stat st;
    const char *bad = NULL;
    if (lstat(dir, &st) == 0) {
        bool dangling = S_ISLNK(st.st_mode) && stat(dir, &st) < 0;
        bad = dangling ? "a dangling symbolic link" : !S_ISDIR(st.st_mode) ?
              "not a directory" : NULL;
    }
    if (bad) {
        snprintf(buf, n, "%s%s is %s: the driver cannot keep JIT-compiled kernels there; every "
                 "run JIT-compiles again", dir, path && *path ? " (CUDA_CACHE_PATH)" : "", bad);
        return buf;
    }
    /* the cache or, before the first JIT, the nearest existing parent must be writable */
    char probe[PATH_MAX];
    snprintf(probe, sizeof(probe), "%s", dir);
    while (access(probe, F_OK) != 0 && strrchr(probe, '/') && strrchr(probe, '/') != probe)
        *strrchr(probe, '/') = '\0';
    bool writable = access(probe, W_OK) == 0 && stat(probe, &st) == 0 && S_ISDIR(st.st_mode);
    snprintf(buf, n, "%s%s, size limit %s%s", dir, path && *path ? " (CUDA_CACHE_PATH)" : "",
             max && *max ? max : "the driver's default",
             writable ? "" : "; NOT writable by this user: every run JIT-compiles again");
    return buf;
}

/* ---- device facts and the image choice ------------------------------------------------ */

/* The device's handle, compute capability and kind (no context); 0, or -1 with why. */
static int device_kind(int index, CUdevice *d, int *sm, bool *integrated, char *why, size_t n)
{
    char v[16], eb[160];
    tb_cu_version_string(tb_cu_driver_version(), v, sizeof(v));
    int count = 0;
    CUresult e = CU(cuDeviceGetCount, &count);
    if (e != CUDA_SUCCESS || count == 0) {
        snprintf(why, n, "no CUDA device: %s; driver's CUDA %s",
                 e != CUDA_SUCCESS ? tb_cu_err(e, eb, sizeof(eb)) : "the driver sees none", v);
        return -1;
    }
    if (index >= count) {
        snprintf(why, n, "CUDA device %d does not exist (%d device%s)", index, count,
                 count == 1 ? "" : "s");
        return -1;
    }
    int major = 0, minor = 0, integ = 0;
    if ((e = CU(cuDeviceGet, d, index)) != CUDA_SUCCESS ||
        (e = CU(cuDeviceGetAttribute, &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, *d)) ||
        (e = CU(cuDeviceGetAttribute, &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, *d)) ||
        (e = CU(cuDeviceGetAttribute, &integ, CU_DEVICE_ATTRIBUTE_INTEGRATED, *d))) {
        snprintf(why, n, "CUDA device %d: %s", index, tb_cu_err(e, eb, sizeof(eb)));
        return -1;
    }
    if (major < 1 || major > 99 || minor < 0 || minor > 9) {   /* garbage: never a number */
        snprintf(why, n, "CUDA device %d: the driver gave an impossible compute capability "
                 "(%d.%d)", index, major, minor);
        return -1;
    }
    *sm = major * 10 + minor;
    *integrated = integ != 0;
    return 0;
}

/* The image a GPU sm_<sm> gets by the compatibility rules; 0, or -1 with why. */
static int image_for(int sm, bool integrated, struct tb_image_pick *pick, char *why, size_t n)
{
    char carried[1024];
    if (!tb_image_pick(tb_images, tb_image_count(), sm, integrated, tb_cu_driver_version(),
                       pick)) {
        snprintf(why, n, "no kernel image for this GPU: %s; the binary carries %s; rebuild "
                 "with make BOARD=boards/<board>.cfg (clang PTX at the board's ISA) or SMS=%d",
                 pick->why, tb_cuda_images(carried, sizeof(carried)), sm);
        return -1;
    }
    return 0;
}

/* Fills the device's identity and the image it gets; 0, or -1 with why. */
int tb_cuda_device_facts(int index, CUdevice *d, int *sm, bool *integrated,
                         struct tb_image_pick *pick, char *why, size_t n)
{
    return device_kind(index, d, sm, integrated, why, n) < 0 ||
           image_for(*sm, *integrated, pick, why, n) < 0 ? -1 : 0;
}

/* Loads the driver unless the binary has nothing to run on it; 0, or -1 with why. */
int tb_cuda_driver_for_images(char *why, size_t n)
{
    if (!have_images()) {
        tb_cu_load();   /* only to learn whether a driver (so a GPU) is here */
        no_images(why, n);
        return -1;
    }
    if (tb_cu_load() < 0) {
        tb_strlcpy(why, tb_cu_why(), n);
        return -1;
    }
    return 0;
}

int tb_cuda_probe(int index, char *why, size_t n)
{
    if (tb_cuda_driver_for_images(why, n) < 0)
        return tb_cu_present() ? -ENODEV : -ENOENT;   /* ENOENT: no NVIDIA driver at all */
    CUdevice d;
    int sm;
    bool integ;
    struct tb_image_pick pick;
    return tb_cuda_device_facts(index, &d, &sm, &integ, &pick, why, n) < 0 ? -ENODEV : 0;
}

/* What the driver says about device dev without a context (nvtop's way of naming a GPU). */
void tb_cuda_device_identity(struct tb_device_info *info, CUdevice dev, int index, int sm,
                             bool integrated)
{
    CU(cuDeviceGetName, info->name, sizeof(info->name) - 1, dev);
    info->name[sizeof(info->name) - 1] = '\0';
    for (char *p = info->name; *p; p++)   /* one line of text, whatever the driver wrote */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    info->index = index;
    info->cc_major = sm / 10;
    info->cc_minor = sm % 10;
    info->integrated = integrated;
    int v = 0;
    CU(cuDeviceGetAttribute, &info->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    CU(cuDeviceGetAttribute, &v, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
    /* a driver's garbage is unknown (0), never a fact in the log: no GPU has an L2 above
     * 1 GiB, more than 100000 SMs or more than 64 TiB of memory */
    info->l2_bytes = v > 0 && v <= (1 << 30) ? (size_t)v : 0;
    if (info->sm_count < 1 || info->sm_count > 100000)
        info->sm_count = 0;
    if (CU(cuDeviceTotalMem, &info->mem_bytes, dev) || info->mem_bytes > ((size_t)64 << 40))
        info->mem_bytes = 0;
    CU(cuDeviceGetAttribute, &info->max_threads_per_block,
                           CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
    int dom = 0, bus = 0, slot = 0;
    CU(cuDeviceGetAttribute, &dom, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev);
    CU(cuDeviceGetAttribute, &bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev);
    CU(cuDeviceGetAttribute, &slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev);
    snprintf(info->pci_bus_id, sizeof(info->pci_bus_id), "%08x:%02x:%02x.0", dom, bus, slot);
    tb_cu_version_string(tb_cu_driver_version(), info->driver_version,
                         sizeof(info->driver_version));
}

/* Names the GPU with no context (no image loaded, nothing JIT-compiled): what the driver
 * says of it, and the image the compatibility rules give it (whether the driver accepts
 * that image is seen only when a run loads it). */
int tb_cuda_identify(int index, struct tb_device_info *info, char *why, size_t n)
{
    memset(info, 0, sizeof(*info));
    if (tb_cu_load() < 0) {
        tb_strlcpy(why, tb_cu_why(), n);
        return tb_cu_present() ? -ENODEV : -ENOENT;
    }
    CUdevice dev;
    int sm;
    bool integ;
    if (device_kind(index, &dev, &sm, &integ, why, n) < 0)
        return -ENODEV;
    tb_cuda_device_identity(info, dev, index, sm, integ);
    struct tb_image_pick pick;
    char none[768];
    if (!have_images())
        no_images(info->image_why, sizeof(info->image_why));
    else if (image_for(sm, integ, &pick, none, sizeof(none)) < 0)
        tb_strlcpy(info->image_why, none, sizeof(info->image_why));
    else
        tb_cuda_describe_image(&tb_images[pick.cubin >= 0 ? pick.cubin : pick.ptx], pick.why,
                               info);
    return 0;
}

void tb_cuda_describe_image(const struct tb_image *im, const char *why,
                            struct tb_device_info *info)
{
    tb_image_describe(im, info->image, sizeof(info->image));
    size_t len = strlen(info->image);
    if (im->kind == TB_IMAGE_PTX)
        snprintf(info->image + len, sizeof(info->image) - len,
                 ", JIT-compiled by the driver entry by entry");
    tb_strlcpy(info->image_why, why, sizeof(info->image_why));
}
