/* backend.c: the CUDA backend, plain C on the driver API (driver.c opens libcuda). It owns
 * the device state (one struct: context, stream, events, loaded modules, the L2 flush
 * buffer), loads the kernel image images.c picks for the GPU, and launches what the
 * kernels' geometry functions (kernels/cuda_launch.c) choose. A cubin is loaded whole at
 * open; PTX is JIT-compiled one entry at a time, when a sweep first runs it, so a Nano
 * compiles only what it measures. memcpy and cuBLAS are built-ins. No CUDA header here. */
#include "backend.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda/cublas.h"
#include "cuda/driver.h"
#include "cuda/images.h"
#include "util.h"
#include "watchdog.h"

/* Every driver call under the watchdog's deadline (watchdog.h): a GPU or driver that hangs
 * ends the run with its log's end line, never a night that never ends. Module loads (the
 * JIT) get the longer deadline. */
#define CU_WATCHED(kind, fn, ...) __extension__({                                         \
        tb_watch_begin(#fn, kind);                                                          \
        CUresult cu_rc_ = p_##fn(__VA_ARGS__);                                              \
        tb_watch_end();                                                                     \
        cu_rc_;                                                                             \
    })
#define CU(fn, ...) CU_WATCHED(TB_WATCH_CALL, fn, __VA_ARGS__)
#define CUL(fn, ...) CU_WATCHED(TB_WATCH_LOAD, fn, __VA_ARGS__)

/* Entry points found so far, by name: open addressing, so that a launch inside the timed
 * window costs a hash and a compare, not a module lookup. */
#define FN_SLOTS 256

struct cuda_fn {
    char name[48];
    CUfunction fn;
    CUmodule mod;        /* its own module when JIT-compiled from PTX, else NULL */
    int err;             /* the entry could not be had (the JIT refused it): its error,
                          * given again without a second JIT on every point */
    char log[256];       /* ... and the JIT's words */
};

/* Everything the backend holds about the open device; index -1 when closed. */
struct cuda_dev {
    int index;
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    CUevent ev_start, ev_stop;
    CUdeviceptr clock_dev, flush_buf;
    size_t flush_bytes;
    const char *fault_kernel;        /* TB_CUDA_FAULT, read once at open */
    int sm;
    bool integrated;
    struct tb_image_pick pick;
    CUmodule cubin;                  /* the whole cubin, when one is loaded */
    char *ptx;                       /* the PTX entries are JIT-compiled from, else NULL */
    char fallback[512];              /* why a cubin was refused, when it was */
    char jit_log[256];               /* the JIT's last error, first line */
    struct cuda_fn fns[FN_SLOTS];
    unsigned jit_entries;            /* entries JIT-compiled (from PTX) */
    double load_s;                   /* cubin load, or the sum of the entries' JIT */
    double jit_max_s;
    cublasHandle_t cublas;
};

static struct cuda_dev D = { .index = -1 };

/* A timing that cannot be (cuda_timed): an error code of its own, never a row's figure. */
#define TB_ERR_TIMER (-ERANGE)

/* ---- what the binary carries ------------------------------------------------------ */

const char *tb_cuda_images(void)
{
    static char buf[1024];
    return tb_images_summary(buf, sizeof(buf));
}

static bool have_images(void) { return tb_image_count() > 0; }

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

/* Fills the device's identity and the image it gets; 0, or -1 with why. */
static int device_facts(int index, CUdevice *d, int *sm, bool *integrated,
                        struct tb_image_pick *pick, char *why, size_t n)
{
    char v[16];
    tb_cu_version_string(tb_cu_driver_version(), v, sizeof(v));
    int count = 0;
    CUresult e = CU(cuDeviceGetCount, &count);
    if (e != CUDA_SUCCESS || count == 0) {
        snprintf(why, n, "no CUDA device: %s; driver's CUDA %s",
                 e != CUDA_SUCCESS ? tb_cu_err(e) : "the driver sees none", v);
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
        snprintf(why, n, "CUDA device %d: %s", index, tb_cu_err(e));
        return -1;
    }
    if (major < 1 || major > 99 || minor < 0 || minor > 9) {   /* garbage: never a number */
        snprintf(why, n, "CUDA device %d: the driver gave an impossible compute capability "
                 "(%d.%d)", index, major, minor);
        return -1;
    }
    *sm = major * 10 + minor;
    *integrated = integ != 0;
    if (!tb_image_pick(tb_images, tb_image_count(), *sm, *integrated, tb_cu_driver_version(),
                       pick)) {
        snprintf(why, n, "no kernel image for this GPU: %s; the binary carries %s; rebuild "
                 "with make BOARD=boards/<board>.cfg (clang PTX at the board's ISA) or SMS=%d",
                 pick->why, tb_cuda_images(), *sm);
        return -1;
    }
    return 0;
}

/* Loads the driver unless the binary has nothing to run on it; 0, or -1 with why. */
static int driver_for_images(char *why, size_t n)
{
    if (!have_images()) {
        tb_cu_load();   /* only to learn whether a driver (so a GPU) is here */
        snprintf(why, n, "this binary carries no kernel images (built with CUDA=0, or with "
                 "neither clang nor nvcc)");
        return -1;
    }
    if (tb_cu_load() < 0) {
        tb_strlcpy(why, tb_cu_why(), n);
        return -1;
    }
    return 0;
}

static int cuda_probe(int index, char *why, size_t n)
{
    if (driver_for_images(why, n) < 0)
        return tb_cu_present() ? -ENODEV : -ENOENT;   /* ENOENT: no NVIDIA driver at all */
    CUdevice d;
    int sm;
    bool integ;
    struct tb_image_pick pick;
    return device_facts(index, &d, &sm, &integ, &pick, why, n) < 0 ? -ENODEV : 0;
}

/* ---- modules: the cubin whole, PTX one entry at a time ------------------------------ */

/* cuModuleLoadDataEx with the JIT's error log; the log's first line joins the error. */
static CUresult load_module(CUmodule *m, const void *image, char *log, size_t n)
{
    log[0] = '\0';
    int opts[] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[] = { log, (void *)(uintptr_t)n };
    CUresult e = CUL(cuModuleLoadDataEx, m, image, 2, opts, vals);
    log[n - 1] = '\0';
    log[strcspn(log, "\n")] = '\0';
    if (e != CUDA_SUCCESS)
        *m = NULL;
    return e;
}

/* The refusal of an image, in words a user can act on. */
static void image_refused(CUresult e, const struct tb_image *im, const char *log, char *why,
                          size_t n)
{
    char v[16], desc[160];
    tb_cu_version_string(tb_cu_driver_version(), v, sizeof(v));
    tb_image_describe(im, desc, sizeof(desc));
    snprintf(why, n, "the driver (CUDA %s) refused %s: %s%s%s; rebuild with make "
             "BOARD=boards/<board>.cfg (PTX at the board's ISA, doc/cross-compile.md)", v, desc,
             tb_cu_err(e), log[0] ? ": " : "", log);
}

/* The image pick made at open: the cubin loaded, or the PTX unpacked and its first entry
 * (the clock probe) JIT-compiled, so that a refusal shows at open. 0, or a CUresult. */
/* The image unpacked into *out; 0, or CUDA_ERROR_INVALID_IMAGE with why (a damaged binary). */
static int unpack(const struct tb_image *im, unsigned char **out, char *why, size_t n)
{
    size_t len;
    int rc = tb_image_unpack(im, out, &len);
    if (rc < 0) {
        snprintf(why, n, "cannot unpack the embedded %s: %s",
                 im->kind == TB_IMAGE_CUBIN ? "cubin" : "PTX", strerror(-rc));
        return CUDA_ERROR_INVALID_IMAGE;
    }
    return 0;
}

static int load_images(char *why, size_t n)
{
    char log[256];
    if (D.pick.cubin >= 0) {
        const struct tb_image *im = &tb_images[D.pick.cubin];
        unsigned char *bin;
        if (unpack(im, &bin, why, n))
            return CUDA_ERROR_INVALID_IMAGE;
        double t0 = tb_now_s();
        CUresult e = load_module(&D.cubin, bin, log, sizeof(log));
        D.load_s = tb_now_s() - t0;
        free(bin);
        if (e == CUDA_SUCCESS)
            return 0;
        image_refused(e, im, log, D.fallback, sizeof(D.fallback));
        if (D.pick.ptx < 0) {
            tb_strlcpy(why, D.fallback, n);
            return e;
        }
        D.pick.cubin = -1;   /* NVIDIA's rules said yes, the driver no: run the PTX */
    }
    unsigned char *text;
    if (unpack(&tb_images[D.pick.ptx], &text, why, n))
        return CUDA_ERROR_INVALID_IMAGE;
    D.ptx = (char *)text;
    return 0;
}

static double elapsed_max(double a, double b) { return a > b ? a : b; }

/* The module of one PTX entry, JIT-compiled now; 0 or a CUresult. */
static int jit_entry(const char *name, struct cuda_fn *slot)
{
    D.jit_log[0] = '\0';
    char *one = tb_ptx_only_entry(D.ptx, name);
    if (!one)
        return CUDA_ERROR_NOT_FOUND;
    char log[256];
    double t0 = tb_now_s();
    CUresult e = load_module(&slot->mod, one, log, sizeof(log));
    double dt = tb_now_s() - t0;
    free(one);
    if (e != CUDA_SUCCESS) {
        tb_strlcpy(D.jit_log, log, sizeof(D.jit_log));
        return e;
    }
    D.jit_entries++;
    D.load_s += dt;
    D.jit_max_s = elapsed_max(D.jit_max_s, dt);
    if ((e = CU(cuModuleGetFunction, &slot->fn, slot->mod, name)) != CUDA_SUCCESS) {
        CU(cuModuleUnload, slot->mod);
        slot->mod = NULL;
    }
    return e;
}

static int function(const char *name, CUfunction *out)
{
    uint64_t h = tb_hash_bytes(name, strlen(name));
    for (unsigned i = 0; i < FN_SLOTS; i++) {
        struct cuda_fn *s = &D.fns[(h + i) % FN_SLOTS];
        if (!s->name[0]) {
            CUresult e = D.cubin ? CU(cuModuleGetFunction, &s->fn, D.cubin, name)
                                 : (CUresult)jit_entry(name, s);
            if (e != CUDA_SUCCESS && D.cubin)
                return e;
            tb_strlcpy(s->name, name, sizeof(s->name));
            s->err = e;
            if (e)
                tb_strlcpy(s->log, D.jit_log, sizeof(s->log));
        }
        if (!strcmp(s->name, name)) {
            if (s->err)
                tb_strlcpy(D.jit_log, s->log, sizeof(D.jit_log));
            *out = s->fn;
            return s->err;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

static void forget_modules(void)
{
    for (unsigned i = 0; i < FN_SLOTS; i++)
        if (D.fns[i].mod)
            CU(cuModuleUnload, D.fns[i].mod);
    memset(D.fns, 0, sizeof(D.fns));
    if (D.cubin)
        CU(cuModuleUnload, D.cubin);
    D.cubin = NULL;
    free(D.ptx);
    D.ptx = NULL;
}

/* ---- context and stream ------------------------------------------------------------ */

static void release(void)
{
    tb_cublas_release(&D.cublas);
    if (D.flush_buf)
        CU(cuMemFree, D.flush_buf);
    if (D.clock_dev)
        CU(cuMemFree, D.clock_dev);
    D.flush_buf = D.clock_dev = 0;
    D.flush_bytes = 0;
    if (D.ev_start)
        CU(cuEventDestroy, D.ev_start);
    if (D.ev_stop)
        CU(cuEventDestroy, D.ev_stop);
    if (D.stream)
        CU(cuStreamDestroy, D.stream);
    forget_modules();
    D.ev_start = D.ev_stop = NULL;
    D.stream = NULL;
}

static int setup_context(char *why, size_t n)
{
    CUresult e;
    if ((e = CU(cuDevicePrimaryCtxRetain, &D.ctx, D.dev)) != CUDA_SUCCESS ||
        (e = CU(cuCtxSetCurrent, D.ctx)) != CUDA_SUCCESS) {
        snprintf(why, n, "cannot create a context on CUDA device %d: %s", D.index, tb_cu_err(e));
        return e;
    }
    int rc = load_images(why, n);
    if (rc)
        return rc;
    if ((e = CU(cuStreamCreate, &D.stream, CU_STREAM_NON_BLOCKING)) ||
        (e = CU(cuEventCreate, &D.ev_start, CU_EVENT_DEFAULT)) ||
        (e = CU(cuEventCreate, &D.ev_stop, CU_EVENT_DEFAULT)) ||
        (e = CU(cuMemAlloc, &D.clock_dev, 2 * sizeof(unsigned long long)))) {
        snprintf(why, n, "setting up CUDA device %d: %s", D.index, tb_cu_err(e));
        return e;
    }
    CUfunction probe;   /* PTX: the first JIT, so that a driver refusing it says so here */
    if ((e = function("tb_clock_probe", &probe)) != CUDA_SUCCESS) {
        image_refused(e, &tb_images[D.cubin ? D.pick.cubin : D.pick.ptx], D.jit_log, why, n);
        return e;
    }
    return 0;
}

/* Appends src to dst (size n), cut to fit. */
static void append(char *dst, const char *src, size_t n)
{
    size_t len = strlen(dst);
    if (len + 1 < n)
        tb_strlcpy(dst + len, src, n - len);
}

/* What info->image says: the image run, how it was chosen, and a refused cubin. */
static void describe_choice(struct tb_device_info *info)
{
    const struct tb_image *im = &tb_images[D.cubin ? D.pick.cubin : D.pick.ptx];
    tb_image_describe(im, info->image, sizeof(info->image));
    if (im->kind == TB_IMAGE_PTX)
        append(info->image, ", JIT-compiled by the driver entry by entry", sizeof(info->image));
    tb_strlcpy(info->image_why, D.pick.why, sizeof(info->image_why));
    if (D.fallback[0]) {
        append(info->image_why, "; ", sizeof(info->image_why));
        append(info->image_why, D.fallback, sizeof(info->image_why));
    }
}

/* What the driver says about device dev without a context (nvtop's way of naming a GPU). */
static void device_identity(struct tb_device_info *info, CUdevice dev, int index, int sm,
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

int tb_cuda_describe(int index, struct tb_device_info *info)
{
    memset(info, 0, sizeof(*info));
    char why[512];
    CUdevice d;
    int sm;
    bool integ;
    struct tb_image_pick pick;
    if (driver_for_images(why, sizeof(why)) < 0 ||
        device_facts(index, &d, &sm, &integ, &pick, why, sizeof(why)) < 0)
        return -1;
    device_identity(info, d, index, sm, integ);
    return 0;
}

static void cuda_close(void);

static int cuda_open(int index, struct tb_device_info *info, char *why, size_t n)
{
    memset(info, 0, sizeof(*info));
    if (D.index >= 0)
        cuda_close();
    memset(&D, 0, sizeof(D));
    D.index = -1;
    if (driver_for_images(why, n) < 0)
        return -ENODEV;
    if (device_facts(index, &D.dev, &D.sm, &D.integrated, &D.pick, why, n) < 0)
        return -ENODEV;
    D.index = index;
    const char *f = getenv("TB_CUDA_FAULT");
    D.fault_kernel = f && *f ? f : NULL;
    int rc = setup_context(why, n);
    if (rc) {
        release();
        CU(cuDevicePrimaryCtxRelease, D.dev);
        D.index = -1;
        return rc;
    }
    device_identity(info, D.dev, D.index, D.sm, D.integrated);
    describe_choice(info);
    return 0;
}

static void cuda_close(void)
{
    if (D.index < 0)
        return;
    release();
    CU(cuDevicePrimaryCtxRelease, D.dev);
    D.index = -1;
}

/* ---- memory and copies ------------------------------------------------------------ */

static int cuda_alloc(size_t bytes, void **p)
{
    CUdeviceptr d = 0;
    CUresult e = CU(cuMemAlloc, &d, bytes ? bytes : 1);
    *p = e == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
    return e;
}

static void cuda_free(void *p)
{
    if (p)
        CU(cuMemFree, (CUdeviceptr)(uintptr_t)p);
}

static int cuda_sync(void) { return CU(cuStreamSynchronize, D.stream); }

static int cuda_download(void *dst, const void *src, size_t n)
{
    CUresult e = CU(cuMemcpyDtoHAsync, dst, (CUdeviceptr)(uintptr_t)src, n, D.stream);
    return e ? e : cuda_sync();
}

static int cuda_fill_bytes(void *dst, int byte, size_t n)
{
    CUresult e = CU(cuMemsetD8Async, (CUdeviceptr)(uintptr_t)dst, (unsigned char)byte, n, D.stream);
    return e ? e : cuda_sync();
}

static int cuda_fill_pattern(void *dst, size_t count, int elem_size, uint64_t seed)
{
    CUfunction f;
    int rc = function("tb_fill_pattern", &f);
    if (rc)
        return rc;
    unsigned long long s = seed;
    void *args[] = { &dst, &count, &elem_size, &s };
    CUresult e = CU(cuLaunchKernel, f, 1024, 1, 1, 256, 1, 1, 0, D.stream, args, NULL);
    return e ? e : cuda_sync();
}

/* ---- launches: a kernel's geometry, its entry loaded first, or a built-in ------------- */

/* One launch made ready: the entry loaded (JIT-compiled the first time) and the grid
 * chosen, so that the timed window holds the launch alone. */
struct ready {
    const struct tb_kernel *k;
    struct tb_launch *l;
    struct tb_grid g;
    CUfunction fn;
};

static int prepare(const struct tb_kernel *k, struct tb_launch *l, struct ready *r)
{
    r->k = k;
    r->l = l;
    r->fn = NULL;
    if (k->flags & TB_KF_BUILTIN) {
        l->grid_x = l->grid_y = 0;
        return 0;
    }
    if (!k->geometry || k->geometry(l, &r->g) < 0)
        return CUDA_ERROR_INVALID_VALUE;   /* the table's rules forbid it: never in a sweep */
    l->grid_x = r->g.gx;
    l->grid_y = r->g.gy;
    return function(r->g.entry, &r->fn);
}

static int go(const struct ready *r)
{
    const struct tb_launch *l = r->l;
    if (r->k->flags & TB_KF_BUILTIN) {
        if (!strcmp(r->k->name, "cublas_geam")) {
            tb_watch_begin("cublasSgeam", TB_WATCH_CALL);
            int rc = tb_cublas_geam(&D.cublas, D.stream, l);
            tb_watch_end();
            return rc;
        }
        size_t bytes = (size_t)l->rows * (size_t)l->cols * (size_t)l->elem_size;
        return CU(cuMemcpyDtoDAsync, (CUdeviceptr)(uintptr_t)l->out, (CUdeviceptr)(uintptr_t)l->in,
                                   bytes, D.stream);
    }
    const void *in = l->in;
    void *out = l->out;
    long rows = l->rows, cols = l->cols;
    unsigned tiles = r->g.tiles_y;
    int pad = r->g.pad;
    void *args[] = { &in, &out, &rows, &cols, &tiles, &pad };
    return CU(cuLaunchKernel, r->fn, r->g.gx, r->g.gy, 1, r->g.bx, r->g.by, 1, r->g.smem, D.stream,
                            args, NULL);
}

/* Fault injection for tests on a GPU: TB_CUDA_FAULT=<kernel> makes that kernel's first
 * launch write through an invalid pointer, which breaks the context (illegal address), so
 * the recovery path (row recorded, device reset, sweep goes on) can be seen working. */
static int cuda_launch(const struct tb_kernel *k, struct tb_launch *l)
{
    struct tb_launch bad;
    if (D.fault_kernel && !strcmp(D.fault_kernel, k->name)) {
        D.fault_kernel = NULL;
        bad = *l;
        bad.out = (void *)(uintptr_t)0x10;
        l = &bad;
    }
    struct ready r;
    int rc = prepare(k, l, &r);
    return rc ? rc : go(&r);
}

static int cuda_timed(const struct tb_kernel *k, struct tb_launch *l, double *ms)
{
    struct ready r;
    int rc = prepare(k, l, &r);
    if (rc)
        return rc;
    CUresult e = CU(cuEventRecord, D.ev_start, D.stream);
    if (e)
        return e;
    if ((rc = go(&r)))
        return rc;
    if ((e = CU(cuEventRecord, D.ev_stop, D.stream)) || (e = CU(cuEventSynchronize, D.ev_stop)))
        return e;
    float f = 0;
    e = CU(cuEventElapsedTime, &f, D.ev_start, D.ev_stop);
    if (e)
        return e;
    /* a time is a positive, finite number of milliseconds below an hour: anything else is
     * the timer's garbage, never a row's figure */
    if (!(f > 0 && f < 3.6e6))
        return TB_ERR_TIMER;
    *ms = f;
    return 0;
}

/* Writes over a buffer twice the L2's size so that nothing of the matrices stays there. */
static int cuda_flush_cache(void)
{
    if (!D.flush_buf) {
        int l2 = 0;
        CU(cuDeviceGetAttribute, &l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, D.dev);
        size_t want = (size_t)(l2 > 0 && l2 <= (1 << 30) ? l2 : 4 << 20) * 2;
        CUresult e = CU(cuMemAlloc, &D.flush_buf, want);
        if (e) {
            D.flush_buf = 0;
            return e;
        }
        D.flush_bytes = want;
    }
    return CU(cuMemsetD8Async, D.flush_buf, 0, D.flush_bytes, D.stream);
}

static int cuda_sm_clock(double *mhz)
{
    *mhz = NAN;
    CUfunction f;
    int rc = function("tb_clock_probe", &f);
    if (rc)
        return rc;
    unsigned long long h[2];
    void *args[] = { &D.clock_dev };
    CUresult e = CU(cuLaunchKernel, f, 1, 1, 1, 1, 1, 1, 0, D.stream, args, NULL);
    if (!e)
        e = CU(cuMemcpyDtoHAsync, h, D.clock_dev, sizeof(h), D.stream);
    if (!e)
        e = CU(cuStreamSynchronize, D.stream);
    if (e)
        return e;
    if (h[1] > 0)
        *mhz = (double)h[0] / (double)h[1] * 1e3;
    if (!(*mhz >= 1 && *mhz <= 10000))   /* no GPU clocks below 1 MHz or above 10 GHz */
        *mhz = NAN;
    return 0;
}

/* A broken context: drop everything, reset the primary context, set up again. CUDA's
 * sticky errors usually need a new process (doc/reliability.md); then this fails. */
static int cuda_recover(void)
{
    release();
    CU(cuDevicePrimaryCtxReset, D.dev);
    char why[512];
    int rc = setup_context(why, sizeof(why));
    if (rc)
        return rc;
    CUdeviceptr p;
    CUresult e = CU(cuMemAlloc, &p, 1 << 20);
    if (e)
        return e;
    CU(cuMemFree, p);
    return 0;
}

static void cuda_load_stats(char *buf, size_t n)
{
    if (D.cubin || !D.ptx)
        snprintf(buf, n, "cubin loaded in %.3f s", D.load_s);
    else
        snprintf(buf, n, "%u PTX entr%s JIT-compiled in %.3f s (longest %.3f s)", D.jit_entries,
                 D.jit_entries == 1 ? "y" : "ies", D.load_s, D.jit_max_s);
}

static const char *cuda_errstr(int err)
{
    static char buf[64];
    if (err == TB_ERR_TIMER)
        return "the GPU's timer gave an impossible time (not within 0 to 1 hour)";
    if (err < 0)
        return strerror(-err);
    if (err >= TB_CUBLAS_ERR_BASE) {
        snprintf(buf, sizeof(buf), "cuBLAS status %d", err - TB_CUBLAS_ERR_BASE);
        return buf;
    }
    if ((err == CUDA_ERROR_INVALID_PTX || err == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         err == CUDA_ERROR_JIT_COMPILER_NOT_FOUND || err == CUDA_ERROR_INVALID_IMAGE) &&
        D.jit_log[0]) {   /* a PTX compile error keeps the JIT's own words */
        static char jbuf[512];
        snprintf(jbuf, sizeof(jbuf), "%s: %s", tb_cu_err(err), D.jit_log);
        for (char *p = jbuf; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = ' ';
        return jbuf;
    }
    return tb_cu_err(err);
}

static bool cuda_is_oom(int err)
{
    return err == CUDA_ERROR_OUT_OF_MEMORY || err == -ENOMEM ||
           err == TB_CUBLAS_ERR_BASE + CUBLAS_STATUS_ALLOC_FAILED;
}

/* Errors after which the context is unusable until it is reset. */
static bool cuda_is_fatal(int err)
{
    switch (err) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
        return true;
    default:
        return false;
    }
}

static const char *cuda_unusable(const struct tb_kernel *k)
{
    return (k->flags & TB_KF_BUILTIN) && !strcmp(k->name, "cublas_geam") ? tb_cublas_unusable()
                                                                          : NULL;
}

const struct tb_backend tb_backend_cuda = {
    .name = "cuda",
    .id = TB_BACKEND_CUDA,
    .probe = cuda_probe,
    .open = cuda_open,
    .close = cuda_close,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .download = cuda_download,
    .fill_bytes = cuda_fill_bytes,
    .fill_pattern = cuda_fill_pattern,
    .launch = cuda_launch,
    .timed = cuda_timed,
    .sync = cuda_sync,
    .flush_cache = cuda_flush_cache,
    .sm_clock_mhz = cuda_sm_clock,
    .recover = cuda_recover,
    .errstr = cuda_errstr,
    .is_oom = cuda_is_oom,
    .is_fatal = cuda_is_fatal,
    .unusable = cuda_unusable,
    .load_stats = cuda_load_stats,
};
