/* backend.c: the CUDA backend, plain C on the driver API (driver.c opens libcuda). An
 * instance owns one device's state (struct cuda_dev, held by the caller: context, stream,
 * events, loaded modules, the L2 flush buffer); the driver and the image table are the
 * process's. What needs no instance (probe, identify: a GPU named without a context, the
 * images carried, the JIT cache) is probe.c's. open loads the kernel image images.c picks
 * for the GPU; launches are what the kernels' geometry functions (kernels/cuda_launch.c)
 * choose. A cubin is loaded whole at open; PTX is JIT-compiled one entry at a time, when a
 * sweep first runs it, so a Nano compiles only what it measures. memcpy and cuBLAS are
 * built-ins. No CUDA header here. */
#include "device/backend.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cublas.h"
#include "cuda/driver.h"
#include "cuda/images.h"
#include "cuda/probe.h"
#include "lib/util.h"
#include "lib/watchdog.h"

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

/* Everything an instance holds about its open device (zeroed: closed). */
struct cuda_dev {
    bool open;
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
    char err[768];                   /* errstr's words */
};

/* A timing that cannot be (cuda_timed): an error code of its own, never a row's figure. */
#define TB_ERR_TIMER (-ERANGE)

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
    char v[16], desc[160], eb[160];
    tb_cu_version_string(tb_cu_driver_version(), v, sizeof(v));
    tb_image_describe(im, desc, sizeof(desc));
    snprintf(why, n, "the driver (CUDA %s) refused %s: %s%s%s; rebuild with make "
             "BOARD=boards/<board>.cfg (PTX at the board's ISA, doc/cross-compile.md)", v, desc,
             tb_cu_err(e, eb, sizeof(eb)), log[0] ? ": " : "", log);
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

static int load_images(struct cuda_dev *d, char *why, size_t n)
{
    char log[256];
    if (d->pick.cubin >= 0) {
        const struct tb_image *im = &tb_images[d->pick.cubin];
        unsigned char *bin;
        if (unpack(im, &bin, why, n))
            return CUDA_ERROR_INVALID_IMAGE;
        double t0 = tb_real_now_ns() * 1e-9;
        CUresult e = load_module(&d->cubin, bin, log, sizeof(log));
        d->load_s = tb_real_now_ns() * 1e-9 - t0;
        free(bin);
        if (e == CUDA_SUCCESS)
            return 0;
        image_refused(e, im, log, d->fallback, sizeof(d->fallback));
        if (d->pick.ptx < 0) {
            tb_strlcpy(why, d->fallback, n);
            return e;
        }
        d->pick.cubin = -1;   /* NVIDIA's rules said yes, the driver no: run the PTX */
    }
    unsigned char *text;
    if (unpack(&tb_images[d->pick.ptx], &text, why, n))
        return CUDA_ERROR_INVALID_IMAGE;
    d->ptx = (char *)text;
    return 0;
}

static double elapsed_max(double a, double b) { return a > b ? a : b; }

/* The module of one PTX entry, JIT-compiled now; 0 or a CUresult. */
static int jit_entry(struct cuda_dev *d, const char *name, struct cuda_fn *slot)
{
    d->jit_log[0] = '\0';
    char *one = tb_ptx_only_entry(d->ptx, name);
    if (!one)
        return CUDA_ERROR_NOT_FOUND;
    char log[256];
    double t0 = tb_real_now_ns() * 1e-9;
    CUresult e = load_module(&slot->mod, one, log, sizeof(log));
    double dt = tb_real_now_ns() * 1e-9 - t0;
    free(one);
    if (e != CUDA_SUCCESS) {
        tb_strlcpy(d->jit_log, log, sizeof(d->jit_log));
        return e;
    }
    d->jit_entries++;
    d->load_s += dt;
    d->jit_max_s = elapsed_max(d->jit_max_s, dt);
    if ((e = CU(cuModuleGetFunction, &slot->fn, slot->mod, name)) != CUDA_SUCCESS) {
        CU(cuModuleUnload, slot->mod);
        slot->mod = NULL;
    }
    return e;
}

static int function(struct cuda_dev *d, const char *name, CUfunction *out)
{
    uint64_t h = tb_hash_bytes(name, strlen(name));
    for (unsigned i = 0; i < FN_SLOTS; i++) {
        struct cuda_fn *s = &d->fns[(h + i) % FN_SLOTS];
        if (!s->name[0]) {
            CUresult e = d->cubin ? CU(cuModuleGetFunction, &s->fn, d->cubin, name)
                                 : (CUresult)jit_entry(d, name, s);
            if (e != CUDA_SUCCESS && d->cubin)
                return e;
            tb_strlcpy(s->name, name, sizeof(s->name));
            s->err = e;
            if (e)
                tb_strlcpy(s->log, d->jit_log, sizeof(s->log));
        }
        if (!strcmp(s->name, name)) {
            if (s->err)
                tb_strlcpy(d->jit_log, s->log, sizeof(d->jit_log));
            *out = s->fn;
            return s->err;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

static void forget_modules(struct cuda_dev *d)
{
    for (unsigned i = 0; i < FN_SLOTS; i++)
        if (d->fns[i].mod)
            CU(cuModuleUnload, d->fns[i].mod);
    memset(d->fns, 0, sizeof(d->fns));
    if (d->cubin)
        CU(cuModuleUnload, d->cubin);
    d->cubin = NULL;
    free(d->ptx);
    d->ptx = NULL;
}

/* ---- context and stream ------------------------------------------------------------ */

static void release(struct cuda_dev *d)
{
    tb_cublas_release(&d->cublas);
    if (d->flush_buf)
        CU(cuMemFree, d->flush_buf);
    if (d->clock_dev)
        CU(cuMemFree, d->clock_dev);
    d->flush_buf = d->clock_dev = 0;
    d->flush_bytes = 0;
    if (d->ev_start)
        CU(cuEventDestroy, d->ev_start);
    if (d->ev_stop)
        CU(cuEventDestroy, d->ev_stop);
    if (d->stream)
        CU(cuStreamDestroy, d->stream);
    forget_modules(d);
    d->ev_start = d->ev_stop = NULL;
    d->stream = NULL;
}

static int setup_context(struct cuda_dev *d, char *why, size_t n)
{
    CUresult e;
    char eb[160];
    if ((e = CU(cuDevicePrimaryCtxRetain, &d->ctx, d->dev)) != CUDA_SUCCESS ||
        (e = CU(cuCtxSetCurrent, d->ctx)) != CUDA_SUCCESS) {
        snprintf(why, n, "cannot create a context on CUDA device %d: %s", d->index,
                 tb_cu_err(e, eb, sizeof(eb)));
        return e;
    }
    int rc = load_images(d, why, n);
    if (rc)
        return rc;
    if ((e = CU(cuStreamCreate, &d->stream, CU_STREAM_NON_BLOCKING)) ||
        (e = CU(cuEventCreate, &d->ev_start, CU_EVENT_DEFAULT)) ||
        (e = CU(cuEventCreate, &d->ev_stop, CU_EVENT_DEFAULT)) ||
        (e = CU(cuMemAlloc, &d->clock_dev, 2 * sizeof(unsigned long long)))) {
        snprintf(why, n, "setting up CUDA device %d: %s", d->index, tb_cu_err(e, eb, sizeof(eb)));
        return e;
    }
    CUfunction probe;   /* PTX: the first JIT, so that a driver refusing it says so here */
    if ((e = function(d, "tb_clock_probe", &probe)) != CUDA_SUCCESS) {
        image_refused(e, &tb_images[d->cubin ? d->pick.cubin : d->pick.ptx], d->jit_log, why, n);
        return e;
    }
    return 0;
}

/* What info->image says: the image run, how it was chosen, and a refused cubin. */
static void describe_choice(struct cuda_dev *d, struct tb_device_info *info)
{
    tb_cuda_describe_image(&tb_images[d->cubin ? d->pick.cubin : d->pick.ptx], d->pick.why,
                           info);
    size_t len = strlen(info->image_why);
    if (d->fallback[0])
        snprintf(info->image_why + len, sizeof(info->image_why) - len, "; %s", d->fallback);
}

static void cuda_close(void *st);

static int cuda_open(void *st, int index, struct tb_device_info *info, char *why, size_t n)
{
    struct cuda_dev *d = st;
    memset(info, 0, sizeof(*info));
    if (d->open)
        cuda_close(d);
    memset(d, 0, sizeof(*d));
    if (tb_cuda_driver_for_images(why, n) < 0)
        return -ENODEV;
    if (tb_cuda_device_facts(index, &d->dev, &d->sm, &d->integrated, &d->pick, why, n) < 0)
        return -ENODEV;
    d->index = index;
    const char *f = getenv("TB_CUDA_FAULT");
    d->fault_kernel = f && *f ? f : NULL;
    int rc = setup_context(d, why, n);
    if (rc) {
        release(d);
        CU(cuDevicePrimaryCtxRelease, d->dev);
        return rc;
    }
    d->open = true;
    tb_cuda_device_identity(info, d->dev, d->index, d->sm, d->integrated);
    describe_choice(d, info);
    return 0;
}

static void cuda_close(void *st)
{
    struct cuda_dev *d = st;
    if (!d->open)
        return;
    release(d);
    CU(cuDevicePrimaryCtxRelease, d->dev);
    d->open = false;
}

/* ---- memory and copies ------------------------------------------------------------ */

static int cuda_alloc(void *st, size_t bytes, void **p)
{
    (void)st;
    CUdeviceptr d = 0;
    CUresult e = CU(cuMemAlloc, &d, bytes ? bytes : 1);
    *p = e == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
    return e;
}

static void cuda_free(void *st, void *p)
{
    (void)st;
    if (p)
        CU(cuMemFree, (CUdeviceptr)(uintptr_t)p);
}

static int cuda_sync(void *st)
{
    return CU(cuStreamSynchronize, ((struct cuda_dev *)st)->stream);
}

static int cuda_download(void *st, void *dst, const void *src, size_t n)
{
    struct cuda_dev *d = st;
    CUresult e = CU(cuMemcpyDtoHAsync, dst, (CUdeviceptr)(uintptr_t)src, n, d->stream);
    return e ? e : cuda_sync(d);
}

static int cuda_fill_bytes(void *st, void *dst, int byte, size_t n)
{
    struct cuda_dev *d = st;
    CUresult e = CU(cuMemsetD8Async, (CUdeviceptr)(uintptr_t)dst, (unsigned char)byte, n,
                    d->stream);
    return e ? e : cuda_sync(d);
}

static int cuda_fill_pattern(void *st, void *dst, size_t count, int elem_size, uint64_t seed)
{
    struct cuda_dev *d = st;
    CUfunction f;
    int rc = function(d, "tb_fill_pattern", &f);
    if (rc)
        return rc;
    unsigned long long s = seed;
    void *args[] = { &dst, &count, &elem_size, &s };
    CUresult e = CU(cuLaunchKernel, f, 1024, 1, 1, 256, 1, 1, 0, d->stream, args, NULL);
    return e ? e : cuda_sync(d);
}

/* ---- launches: a kernel's geometry, its entry loaded first, or a built-in ------------- */

/* One launch made ready: the entry loaded (JIT-compiled the first time) and the grid
 * chosen, so that the timed window holds the launch alone. */
struct ready {
    struct cuda_dev *d;
    const struct tb_kernel *k;
    struct tb_launch *l;
    struct tb_grid g;
    CUfunction fn;
};

static int prepare(struct cuda_dev *d, const struct tb_kernel *k, struct tb_launch *l,
                   struct ready *r)
{
    r->d = d;
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
    return function(d, r->g.entry, &r->fn);
}

static int go(const struct ready *r)
{
    struct cuda_dev *d = r->d;
    const struct tb_launch *l = r->l;
    if (r->k->flags & TB_KF_BUILTIN) {
        if (!strcmp(r->k->name, "cublas_geam")) {
            tb_watch_begin("cublasSgeam", TB_WATCH_CALL);
            int rc = tb_cublas_geam(&d->cublas, d->stream, l);
            tb_watch_end();
            return rc;
        }
        size_t bytes = (size_t)l->rows * (size_t)l->cols * (size_t)l->elem_size;
        return CU(cuMemcpyDtoDAsync, (CUdeviceptr)(uintptr_t)l->out, (CUdeviceptr)(uintptr_t)l->in,
                                   bytes, d->stream);
    }
    const void *in = l->in;
    void *out = l->out;
    long rows = l->rows, cols = l->cols;
    unsigned tiles = r->g.tiles_y;
    int pad = r->g.pad;
    void *args[] = { &in, &out, &rows, &cols, &tiles, &pad };
    return CU(cuLaunchKernel, r->fn, r->g.gx, r->g.gy, 1, r->g.bx, r->g.by, 1, r->g.smem, d->stream,
                            args, NULL);
}

/* Fault injection for tests on a GPU: TB_CUDA_FAULT=<kernel> makes that kernel's first
 * launch write through an invalid pointer, which breaks the context (illegal address), so
 * the recovery path (row recorded, device reset, sweep goes on) can be seen working. */
static int cuda_launch(void *st, const struct tb_kernel *k, struct tb_launch *l)
{
    struct cuda_dev *d = st;
    struct tb_launch bad;
    if (d->fault_kernel && !strcmp(d->fault_kernel, k->name)) {
        d->fault_kernel = NULL;
        bad = *l;
        bad.out = (void *)(uintptr_t)0x10;
        l = &bad;
    }
    struct ready r;
    int rc = prepare(d, k, l, &r);
    return rc ? rc : go(&r);
}

static int cuda_timed(void *st, const struct tb_kernel *k, struct tb_launch *l, double *ms)
{
    struct cuda_dev *d = st;
    struct ready r;
    int rc = prepare(d, k, l, &r);
    if (rc)
        return rc;
    CUresult e = CU(cuEventRecord, d->ev_start, d->stream);
    if (e)
        return e;
    if ((rc = go(&r)))
        return rc;
    if ((e = CU(cuEventRecord, d->ev_stop, d->stream)) || (e = CU(cuEventSynchronize, d->ev_stop)))
        return e;
    float f = 0;
    e = CU(cuEventElapsedTime, &f, d->ev_start, d->ev_stop);
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
static int cuda_flush_cache(void *st)
{
    struct cuda_dev *d = st;
    if (!d->flush_buf) {
        int l2 = 0;
        CU(cuDeviceGetAttribute, &l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d->dev);
        size_t want = (size_t)(l2 > 0 && l2 <= (1 << 30) ? l2 : 4 << 20) * 2;
        CUresult e = CU(cuMemAlloc, &d->flush_buf, want);
        if (e) {
            d->flush_buf = 0;
            return e;
        }
        d->flush_bytes = want;
    }
    return CU(cuMemsetD8Async, d->flush_buf, 0, d->flush_bytes, d->stream);
}

static int cuda_sm_clock(void *st, double *mhz)
{
    struct cuda_dev *d = st;
    *mhz = NAN;
    CUfunction f;
    int rc = function(d, "tb_clock_probe", &f);
    if (rc)
        return rc;
    unsigned long long h[2];
    void *args[] = { &d->clock_dev };
    CUresult e = CU(cuLaunchKernel, f, 1, 1, 1, 1, 1, 1, 0, d->stream, args, NULL);
    if (!e)
        e = CU(cuMemcpyDtoHAsync, h, d->clock_dev, sizeof(h), d->stream);
    if (!e)
        e = CU(cuStreamSynchronize, d->stream);
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
static int cuda_recover(void *st)
{
    struct cuda_dev *d = st;
    release(d);
    CU(cuDevicePrimaryCtxReset, d->dev);
    char why[512];
    int rc = setup_context(d, why, sizeof(why));
    if (rc)
        return rc;
    CUdeviceptr p;
    CUresult e = CU(cuMemAlloc, &p, 1 << 20);
    if (e)
        return e;
    CU(cuMemFree, p);
    return 0;
}

static void cuda_load_stats(void *st, char *buf, size_t n)
{
    struct cuda_dev *d = st;
    if (d->cubin || !d->ptx)
        snprintf(buf, n, "cubin loaded in %.3f s", d->load_s);
    else
        snprintf(buf, n, "%u PTX entr%s JIT-compiled in %.3f s (longest %.3f s)", d->jit_entries,
                 d->jit_entries == 1 ? "y" : "ies", d->load_s, d->jit_max_s);
}

/* In the instance's own buffer (two instances, or two errors in one message, never
 * overwrite each other's words). */
static const char *cuda_errstr(void *st, int err)
{
    struct cuda_dev *d = st;
    char eb[160];
    if (err == TB_ERR_TIMER)
        tb_strlcpy(d->err, "the GPU's timer gave an impossible time (not within 0 to 1 hour)",
                   sizeof(d->err));
    else if (err < 0)
        tb_strlcpy(d->err, strerror(-err), sizeof(d->err));
    else if (err >= TB_CUBLAS_ERR_BASE)
        snprintf(d->err, sizeof(d->err), "cuBLAS status %d", err - TB_CUBLAS_ERR_BASE);
    else if ((err == CUDA_ERROR_INVALID_PTX || err == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
              err == CUDA_ERROR_JIT_COMPILER_NOT_FOUND || err == CUDA_ERROR_INVALID_IMAGE) &&
             d->jit_log[0]) {   /* a PTX compile error keeps the JIT's own words */
        snprintf(d->err, sizeof(d->err), "%s: %s", tb_cu_err(err, eb, sizeof(eb)), d->jit_log);
        for (char *p = d->err; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = ' ';
    } else
        tb_strlcpy(d->err, tb_cu_err(err, eb, sizeof(eb)), sizeof(d->err));
    return d->err;
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
    .state_size = sizeof(struct cuda_dev),
    .probe = tb_cuda_probe,
    .identify = tb_cuda_identify,
    .images = tb_cuda_images,
    .image = tb_cuda_image,
    .jit_cache = tb_cuda_jit_cache,
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
