/* backend_cuda.c: the CUDA backend, plain C on the driver API. libcuda.so.1 is opened with
 * dlopen when a GPU is first asked for (so one binary starts where there is no driver,
 * and --version costs nothing), the kernels come from the fatbin embedded in the
 * executable (fatbin.c) through cuModuleLoadData, and cuBLAS, the reference, is opened
 * the same way when its row runs. Grids and entry-point names are chosen by the C
 * launchers in kernels/cuda_launch.c; this file owns the context, the stream, memory,
 * events, the L2 flush, the SM clock probe and recovery. Not here: any CUDA header. */
#include "backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_drv.h"
#include "util.h"

/* What the build embedded (Makefile): cubin architectures, the PTX one, nvcc's version. */
#ifndef TB_CUDA_SMS
#define TB_CUDA_SMS ""
#endif
#ifndef TB_CUDA_PTX
#define TB_CUDA_PTX ""
#endif
#ifndef TB_NVCC_VERSION
#define TB_NVCC_VERSION ""
#endif
extern const unsigned char tb_fatbin[], tb_fatbin_end[];

static bool have_images(void) { return (uintptr_t)tb_fatbin_end > (uintptr_t)tb_fatbin; }

/* cuBLAS statuses are returned as TB_CUBLAS_ERR_BASE + status, apart from CUresult. */
#define TB_CUBLAS_ERR_BASE 100000

#define DECLARE_PTR(fn, sym, ret, params) static ret(*p_##fn) params;
TB_CUDA_DRIVER_API(DECLARE_PTR)
TB_CUBLAS_API(DECLARE_PTR)
#undef DECLARE_PTR

static void *libcuda;
static char lib_why[512];      /* why libcuda could not be used; "" when it can */
static int driver_version;     /* e.g. 12020 */

static CUdevice dev;
static CUcontext ctx;
static CUmodule mod;
static CUstream stream;
static CUevent ev_start, ev_stop;
static CUdeviceptr clock_dev, flush_buf;
static size_t flush_bytes;
static int cur_index = -1;
static const char *fault_kernel;   /* TB_CUDA_FAULT, read once at open */

/* ---- what the binary carries ------------------------------------------------------ */

const char *tb_cuda_images(void)
{
    static char buf[256];
    if (!have_images())
        return "none (built without nvcc, or CUDA=0)";
    size_t len = 0;
    char sms[128];
    tb_strlcpy(sms, TB_CUDA_SMS, sizeof(sms));
    for (char *save = NULL, *t = strtok_r(sms, " ", &save); t; t = strtok_r(NULL, " ", &save))
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%ssm_%s", len ? " " : "", t);
    if (TB_CUDA_PTX[0])
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, " + PTX compute_%s", TB_CUDA_PTX);
    snprintf(buf + len, sizeof(buf) - len, ", built by nvcc %s", TB_NVCC_VERSION);
    return buf;
}

/* Whether an embedded image should run on sm_<major><minor>: a cubin of the same
 * architecture (discrete GPUs also run one of the same major and a lower minor; Tegra
 * drivers only their own), or PTX no newer than the GPU, which the driver compiles. */
static bool image_for(int major, int minor, bool integrated, char *what, size_t n)
{
    int want = major * 10 + minor, best = -1;
    char sms[128];
    tb_strlcpy(sms, TB_CUDA_SMS, sizeof(sms));
    for (char *save = NULL, *t = strtok_r(sms, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        int sm = atoi(t);
        bool ok = integrated ? sm == want : (sm / 10 == major && sm % 10 <= minor);
        if (ok && sm > best)
            best = sm;
    }
    if (best >= 0) {
        snprintf(what, n, "cubin sm_%d", best);
        return true;
    }
    if (TB_CUDA_PTX[0] && atoi(TB_CUDA_PTX) <= want) {
        snprintf(what, n, "PTX compute_%s, compiled by the driver", TB_CUDA_PTX);
        return true;
    }
    snprintf(what, n, "none");
    return false;
}

/* ---- libcuda ---------------------------------------------------------------------- */

static const char *cu_err(CUresult e)
{
    static char buf[160];
    const char *name = NULL, *str = NULL;
    if (p_cuGetErrorName)
        p_cuGetErrorName(e, &name);
    if (p_cuGetErrorString)
        p_cuGetErrorString(e, &str);
    snprintf(buf, sizeof(buf), "%s (%s)", name ? name : "CUDA error", str ? str : "no description");
    if (!name && !str)
        snprintf(buf, sizeof(buf), "CUDA error %d", e);
    return buf;
}

static void version_string(int v, char *buf, size_t n)
{
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* Opens libcuda and cuInit's it, once; afterwards lib_why says why not, or is empty. */
static int load_driver(void)
{
    static bool tried;
    if (tried)
        return lib_why[0] ? -1 : 0;
    tried = true;
    const char *name = getenv("TB_CUDA_LIB");
    if (!name || !*name)
        name = "libcuda.so.1";
    libcuda = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        snprintf(lib_why, sizeof(lib_why), "cannot load the CUDA driver library '%s' (%s): the "
                 "NVIDIA driver provides it on a desktop, the board support package (L4T) on a "
                 "Jetson", name, dlerror());
        return -1;
    }
#define RESOLVE(fn, sym, ret, params)                                                      \
    if (!(*(void **)&p_##fn = dlsym(libcuda, sym))) {                                      \
        snprintf(lib_why, sizeof(lib_why), "'%s' has no %s: the driver is older than CUDA " \
                 "10.2, which this tool needs", name, sym);                                \
        return -1;                                                                         \
    }
    TB_CUDA_DRIVER_API(RESOLVE)
#undef RESOLVE
    p_cuDriverGetVersion(&driver_version);
    CUresult e = p_cuInit(0);
    if (e != CUDA_SUCCESS) {
        char v[16];
        version_string(driver_version, v, sizeof(v));
        snprintf(lib_why, sizeof(lib_why), "cuInit: %s; driver's CUDA %s%s", cu_err(e), v,
                 e == CUDA_ERROR_NO_DEVICE || e == 999
                     ? " (on a Jetson: is this user in the 'video' group?)"
                 : e == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
                     ? " (the kernel module and libcuda differ: reboot after a driver update)"
                     : "");
        return -1;
    }
    return 0;
}

/* Fills the device's identity and whether an image suits it; 0, or -1 with why. */
static int device_facts(int index, CUdevice *d, int *major, int *minor, bool *integrated,
                        char *why, size_t n)
{
    char v[16];
    version_string(driver_version, v, sizeof(v));
    int count = 0;
    CUresult e = p_cuDeviceGetCount(&count);
    if (e != CUDA_SUCCESS || count == 0) {
        snprintf(why, n, "no CUDA device: %s; driver's CUDA %s",
                 e != CUDA_SUCCESS ? cu_err(e) : "the driver sees none", v);
        return -1;
    }
    if (index >= count) {
        snprintf(why, n, "CUDA device %d does not exist (%d device%s)", index, count,
                 count == 1 ? "" : "s");
        return -1;
    }
    int integ = 0;
    if ((e = p_cuDeviceGet(d, index)) != CUDA_SUCCESS ||
        (e = p_cuDeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, *d)) ||
        (e = p_cuDeviceGetAttribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, *d)) ||
        (e = p_cuDeviceGetAttribute(&integ, CU_DEVICE_ATTRIBUTE_INTEGRATED, *d))) {
        snprintf(why, n, "CUDA device %d: %s", index, cu_err(e));
        return -1;
    }
    *integrated = integ != 0;
    char what[64];
    if (!image_for(*major, *minor, *integrated, what, sizeof(what))) {
        snprintf(why, n, "no kernel image for this GPU (sm_%d%d): the binary carries %s; "
                 "driver's CUDA %s; rebuild with SMS=%d%d (or make BOARD=boards/<board>.cfg)",
                 *major, *minor, tb_cuda_images(), v, *major, *minor);
        return -1;
    }
    return 0;
}

/* Loads the driver unless the binary has nothing to run on it; 0, or -1 with why. */
static int driver_for_images(char *why, size_t n)
{
    if (!have_images()) {
        load_driver();   /* only to learn whether a driver (so a GPU) is here */
        snprintf(why, n, "this binary carries no kernel images (built without nvcc, or CUDA=0)");
        return -1;
    }
    if (load_driver() < 0) {
        tb_strlcpy(why, lib_why, n);
        return -1;
    }
    return 0;
}

static int cuda_probe(int index, char *why, size_t n)
{
    if (driver_for_images(why, n) < 0)
        return libcuda ? -ENODEV : -ENOENT;   /* ENOENT: no NVIDIA driver on this machine */
    CUdevice d;
    int major, minor;
    bool integ;
    return device_facts(index, &d, &major, &minor, &integ, why, n) < 0 ? -ENODEV : 0;
}

/* ---- context, module, stream ------------------------------------------------------ */

static void release(void)
{
    if (flush_buf)
        p_cuMemFree(flush_buf);
    if (clock_dev)
        p_cuMemFree(clock_dev);
    flush_buf = clock_dev = 0;
    flush_bytes = 0;
    if (ev_start)
        p_cuEventDestroy(ev_start);
    if (ev_stop)
        p_cuEventDestroy(ev_stop);
    if (stream)
        p_cuStreamDestroy(stream);
    if (mod)
        p_cuModuleUnload(mod);
    ev_start = ev_stop = NULL;
    stream = NULL;
    mod = NULL;
}

/* The module load's refusal, in words a user can act on. */
static void module_why(CUresult e, int major, int minor, char *why, size_t n)
{
    char v[16];
    version_string(driver_version, v, sizeof(v));
    int nvcc_major = atoi(TB_NVCC_VERSION);
    char fix[160];
    if (nvcc_major > driver_version / 1000)
        snprintf(fix, sizeof(fix), "the kernel images come from a newer CUDA than the driver's: "
                 "build them with CUDA %s or older (e.g. NVCC=/usr/local/cuda-%s/bin/nvcc)", v, v);
    else
        snprintf(fix, sizeof(fix), "rebuild for this GPU: make SMS=%d%d (or make "
                 "BOARD=boards/<board>.cfg)", major, minor);
    snprintf(why, n, "the driver refused the kernel images: %s; GPU sm_%d%d, driver's CUDA %s, "
             "images %s; %s", cu_err(e), major, minor, v, tb_cuda_images(), fix);
}

static int setup_context(char *why, size_t n)
{
    CUresult e;
    int major = 0, minor = 0;
    p_cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    p_cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    if ((e = p_cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS ||
        (e = p_cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) {
        snprintf(why, n, "cannot create a context on CUDA device %d: %s", cur_index, cu_err(e));
        return e;
    }
    if ((e = p_cuModuleLoadData(&mod, tb_fatbin)) != CUDA_SUCCESS) {
        mod = NULL;
        module_why(e, major, minor, why, n);
        return e;
    }
    if ((e = p_cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) ||
        (e = p_cuEventCreate(&ev_start, CU_EVENT_DEFAULT)) ||
        (e = p_cuEventCreate(&ev_stop, CU_EVENT_DEFAULT)) ||
        (e = p_cuMemAlloc(&clock_dev, 2 * sizeof(unsigned long long)))) {
        snprintf(why, n, "setting up CUDA device %d: %s", cur_index, cu_err(e));
        return e;
    }
    return 0;
}

static void forget_functions(void);
static void cublas_forget(void);

static int cuda_open(int index, struct tb_device_info *info, char *why, size_t n)
{
    memset(info, 0, sizeof(*info));
    int major, minor;
    bool integ;
    if (driver_for_images(why, n) < 0)
        return -ENODEV;
    if (device_facts(index, &dev, &major, &minor, &integ, why, n) < 0)
        return -ENODEV;
    cur_index = index;
    const char *f = getenv("TB_CUDA_FAULT");
    fault_kernel = f && *f ? f : NULL;
    int rc = setup_context(why, n);
    if (rc)
        return rc;
    p_cuDeviceGetName(info->name, sizeof(info->name) - 1, dev);
    info->index = index;
    info->cc_major = major;
    info->cc_minor = minor;
    info->integrated = integ;
    int v = 0;
    p_cuDeviceGetAttribute(&info->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    p_cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
    info->l2_bytes = (size_t)v;
    p_cuDeviceTotalMem(&info->mem_bytes, dev);
    p_cuDeviceGetAttribute(&info->max_threads_per_block, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                           dev);
    int dom = 0, bus = 0, slot = 0;
    p_cuDeviceGetAttribute(&dom, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev);
    p_cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev);
    p_cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev);
    snprintf(info->pci_bus_id, sizeof(info->pci_bus_id), "%08x:%02x:%02x.0", dom, bus, slot);
    version_string(driver_version, info->driver_version, sizeof(info->driver_version));
    /* which image the driver picked: the loaded function's binary (sm) version */
    CUfunction fn;
    int bin = 0, ptx = 0;
    if (p_cuModuleGetFunction(&fn, mod, "tb_clock_probe") == CUDA_SUCCESS) {
        p_cuFuncGetAttribute(&bin, CU_FUNC_ATTRIBUTE_BINARY_VERSION, fn);
        p_cuFuncGetAttribute(&ptx, CU_FUNC_ATTRIBUTE_PTX_VERSION, fn);
    }
    char what[64];
    image_for(major, minor, integ, what, sizeof(what));
    char as[16];
    snprintf(as, sizeof(as), "sm_%d", bin);
    if (bin > 0 && !strstr(what, as))   /* PTX, compiled by the driver for this GPU */
        snprintf(info->image, sizeof(info->image), "%s, loaded as sm_%d", what, bin);
    else
        snprintf(info->image, sizeof(info->image), "%s", what);
    return 0;
}

static void cuda_close(void)
{
    if (cur_index < 0)
        return;
    cublas_forget();
    forget_functions();
    release();
    p_cuDevicePrimaryCtxRelease(dev);
    cur_index = -1;
}

/* ---- memory and copies ------------------------------------------------------------ */

static int cuda_alloc(size_t bytes, void **p)
{
    CUdeviceptr d = 0;
    CUresult e = p_cuMemAlloc(&d, bytes ? bytes : 1);
    *p = e == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
    return e;
}

static void cuda_free(void *p)
{
    if (p)
        p_cuMemFree((CUdeviceptr)(uintptr_t)p);
}

static int cuda_sync(void) { return p_cuStreamSynchronize(stream); }

static int cuda_download(void *dst, const void *src, size_t n)
{
    CUresult e = p_cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, n, stream);
    return e ? e : cuda_sync();
}

static int cuda_fill_bytes(void *dst, int byte, size_t n)
{
    CUresult e = p_cuMemsetD8Async((CUdeviceptr)(uintptr_t)dst, (unsigned char)byte, n, stream);
    return e ? e : cuda_sync();
}

/* ---- kernels: entry points by name ------------------------------------------------ */

/* Entry points found so far, by name: open addressing, so that a launch inside the timed
 * window costs a hash and a compare, not a module lookup. */
#define FN_SLOTS 512
static struct { char name[48]; CUfunction fn; } fns[FN_SLOTS];

static void forget_functions(void) { memset(fns, 0, sizeof(fns)); }

static int function(const char *name, CUfunction *out)
{
    uint64_t h = tb_hash_bytes(name, strlen(name));
    for (unsigned i = 0; i < FN_SLOTS; i++) {
        unsigned s = (unsigned)((h + i) % FN_SLOTS);
        if (!fns[s].name[0]) {
            CUresult e = p_cuModuleGetFunction(&fns[s].fn, mod, name);
            if (e != CUDA_SUCCESS)
                return e;
            tb_strlcpy(fns[s].name, name, sizeof(fns[s].name));
        }
        if (!strcmp(fns[s].name, name)) {
            *out = fns[s].fn;
            return 0;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

int tb_cuda_launch_entry(const char *entry, const struct tb_grid *g, const struct tb_launch *l)
{
    CUfunction f;
    int rc = function(entry, &f);
    if (rc)
        return rc;
    const void *in = l->in;
    void *out = l->out;
    long rows = l->rows, cols = l->cols;
    unsigned tiles = g->tiles_y;
    int pad = g->pad;
    void *args[] = { &in, &out, &rows, &cols, &tiles, &pad };
    return p_cuLaunchKernel(f, g->gx, g->gy, 1, g->bx, g->by, 1, g->smem, stream, args, NULL);
}

static int cuda_fill_pattern(void *dst, size_t count, int elem_size, uint64_t seed)
{
    CUfunction f;
    int rc = function("tb_fill_pattern", &f);
    if (rc)
        return rc;
    unsigned long long s = seed;
    void *args[] = { &dst, &count, &elem_size, &s };
    CUresult e = p_cuLaunchKernel(f, 1024, 1, 1, 256, 1, 1, 0, stream, args, NULL);
    return e ? e : cuda_sync();
}

int tb_cuda_memcpy(struct tb_launch *l)
{
    l->grid_x = l->grid_y = 0;
    size_t bytes = (size_t)l->rows * (size_t)l->cols * (size_t)l->elem_size;
    return p_cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)l->out, (CUdeviceptr)(uintptr_t)l->in,
                               bytes, stream);
}

/* Fault injection for tests on a GPU: TB_CUDA_FAULT=<kernel> makes that kernel's first
 * launch write through an invalid pointer, which breaks the context (illegal address), so
 * the recovery path (row recorded, device reset, sweep goes on) can be seen working. */
static int cuda_launch(const struct tb_kernel *k, struct tb_launch *l)
{
    if (fault_kernel && !strcmp(fault_kernel, k->name)) {
        fault_kernel = NULL;
        struct tb_launch bad = *l;
        bad.out = (void *)(uintptr_t)0x10;
        return k->launch(&bad);
    }
    return k->launch(l);
}

static int cuda_timed(const struct tb_kernel *k, struct tb_launch *l, double *ms)
{
    CUresult e = p_cuEventRecord(ev_start, stream);
    if (e)
        return e;
    int rc = k->launch(l);
    if (rc)
        return rc;
    if ((e = p_cuEventRecord(ev_stop, stream)) || (e = p_cuEventSynchronize(ev_stop)))
        return e;
    float f = 0;
    e = p_cuEventElapsedTime(&f, ev_start, ev_stop);
    *ms = f;
    return e;
}

/* Writes over a buffer twice the L2's size so that nothing of the matrices stays there. */
static int cuda_flush_cache(void)
{
    if (!flush_buf) {
        int l2 = 0;
        p_cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
        size_t want = (size_t)(l2 > 0 ? l2 : 4 << 20) * 2;
        CUresult e = p_cuMemAlloc(&flush_buf, want);
        if (e) {
            flush_buf = 0;
            return e;
        }
        flush_bytes = want;
    }
    return p_cuMemsetD8Async(flush_buf, 0, flush_bytes, stream);
}

static int cuda_sm_clock(double *mhz)
{
    *mhz = NAN;
    CUfunction f;
    int rc = function("tb_clock_probe", &f);
    if (rc)
        return rc;
    unsigned long long h[2];
    void *args[] = { &clock_dev };
    CUresult e = p_cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, args, NULL);
    if (!e)
        e = p_cuMemcpyDtoHAsync(h, clock_dev, sizeof(h), stream);
    if (!e)
        e = p_cuStreamSynchronize(stream);
    if (e)
        return e;
    if (h[1] > 0)
        *mhz = (double)h[0] / (double)h[1] * 1e3;
    return 0;
}

/* A broken context: drop everything, reset the primary context, set up again. CUDA's
 * sticky errors usually need a new process (doc/reliability.md); then this fails. */
static int cuda_recover(void)
{
    cublas_forget();
    forget_functions();
    release();
    p_cuDevicePrimaryCtxReset(dev);
    char why[512];
    int rc = setup_context(why, sizeof(why));
    if (rc)
        return rc;
    CUdeviceptr p;
    CUresult e = p_cuMemAlloc(&p, 1 << 20);
    if (e)
        return e;
    p_cuMemFree(p);
    return 0;
}

static const char *cuda_errstr(int err)
{
    static char buf[64];
    if (err < 0)
        return strerror(-err);
    if (err >= TB_CUBLAS_ERR_BASE) {
        snprintf(buf, sizeof(buf), "cuBLAS status %d", err - TB_CUBLAS_ERR_BASE);
        return buf;
    }
    return cu_err(err);
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

/* ---- cuBLAS, opened when its row is first asked about ----------------------------- */

static void *libcublas;
static char cublas_why[512];
static cublasHandle_t cublas;

static void cublas_forget(void)
{
    if (cublas)
        p_cublasDestroy(cublas);
    cublas = NULL;
}

/* libcublas of any version from 10 (JetPack 4) on, where the loader finds it or in the
 * toolkit's usual directories (not always on the loader's path). */
const char *tb_cuda_cublas_unusable(void)
{
    static bool tried;
    if (tried)
        return cublas_why[0] ? cublas_why : NULL;
    tried = true;
    static const char *const names[] = {
        "libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so.10",
    };
    static const char *const dirs[] = {
        "", "/usr/local/cuda/lib64/", "/usr/local/cuda/targets/aarch64-linux/lib/",
        "/usr/lib/aarch64-linux-gnu/",
    };
    const char *env = getenv("TB_CUBLAS_LIB");
    char path[256];
    if (env && *env) {
        libcublas = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        tb_strlcpy(path, env, sizeof(path));
    }
    for (size_t d = 0; !env && !libcublas && d < ARRAY_SIZE(dirs); d++)
        for (size_t i = 0; !libcublas && i < ARRAY_SIZE(names); i++) {
            snprintf(path, sizeof(path), "%s%s", dirs[d], names[i]);
            libcublas = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    if (!libcublas) {
        snprintf(cublas_why, sizeof(cublas_why), "cuBLAS not found (libcublas.so.10 to .13%s%s)",
                 env ? ", TB_CUBLAS_LIB=" : "", env ? env : "");
        return cublas_why;
    }
#define RESOLVE_BLAS(fn, sym, ret, params)                                                 \
    if (!(*(void **)&p_##fn = dlsym(libcublas, sym))) {                                    \
        snprintf(cublas_why, sizeof(cublas_why), "'%s' has no %s", path, sym);             \
        return cublas_why;                                                                 \
    }
    TB_CUBLAS_API(RESOLVE_BLAS)
#undef RESOLVE_BLAS
    return NULL;
}

/* Row-major rows x cols is column-major cols x rows (lda = cols); C = op_T(A) is then
 * column-major rows x cols, i.e. row-major cols x rows: the transpose. beta = 0 with
 * B = C (allowed in place when ldb == ldc and B is not transposed). */
int tb_cuda_cublas_geam(struct tb_launch *l)
{
    l->grid_x = l->grid_y = 0;
    if (tb_cuda_cublas_unusable())
        return -ENOENT;
    int s;
    if (!cublas) {
        if ((s = p_cublasCreate(&cublas)) != 0)
            return TB_CUBLAS_ERR_BASE + s;
        p_cublasSetStream(cublas, stream);
    }
    const float alpha = 1.0f, beta = 0.0f;
    s = p_cublasSgeam(cublas, CUBLAS_OP_T, CUBLAS_OP_N, (int)l->rows, (int)l->cols, &alpha,
                      (const float *)l->in, (int)l->cols, &beta, (const float *)l->out,
                      (int)l->rows, (float *)l->out, (int)l->rows);
    return s ? TB_CUBLAS_ERR_BASE + s : 0;
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
};
