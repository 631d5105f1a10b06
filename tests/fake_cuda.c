/* fake_cuda.c: a stand-in for libcuda.so.1, loaded by the CUDA backend through $TB_CUDA_LIB
 * in tests, so that every way a GPU can be unusable is seen without a GPU. $TB_FAKE_CUDA:
 *   h100 (default)  one discrete sm_90 GPU, driver CUDA 13.0; the module loads
 *   nano            one integrated sm_53 GPU (a Jetson Nano), driver CUDA 10.2
 *   orin-old        one integrated sm_87 GPU, driver CUDA 11.4
 *   h100-nocubin    as h100, but the driver refuses every cubin (a damaged one, say)
 *   kepler          one discrete sm_30 GPU, driver CUDA 10.2: older than any image we build
 *   nodevice        cuInit fails with CUDA_ERROR_NO_DEVICE (no GPU, or not in 'video')
 *   zero            cuInit succeeds but no device is listed
 * $TB_FAKE_CUDA_TRACE names a file that gets a line "ctx" for each context made, "init" for
 * each cuInit, "load" for each module load (an image loaded or JIT-compiled), "reset" for
 * each primary-context reset, and "hang FN" when an entry point starts to hang (tests of
 * what a run, list or board choice does before it opens a device, and of when it is inside
 * a hung call).
 * $TB_FAKE_CUDA_FAULT breaks the device as a faulting kernel does:
 *   launch:N  the Nth kernel launch (the clock probe and the fill not counted) fails with
 *             CUDA_ERROR_LAUNCH_FAILED; the context is then broken (every call fails with it)
 *             until cuDevicePrimaryCtxReset, which recovers it
 *   lost:N    as launch:N, but the reset does not help: the GPU is lost to this process
 *             (CUDA's sticky errors, as the H100 showed), so recovery fails
 * and a launch whose output pointer is 0x10 (the backend's own TB_CUDA_FAULT hook) reports
 * CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronize, broken until the reset, as a real
 * GPU does.
 * Built with -DFAKE_PRE_10_2 it lacks cuDevicePrimaryCtxReset, as a too-old driver would.
 * Modules behave as the driver's rules say: PTX whose .version is above the driver's ISA is
 * refused (CUDA_ERROR_UNSUPPORTED_PTX_VERSION), a PTX module holds only the entries in its
 * text (cuModuleGetFunction says CUDA_ERROR_NOT_FOUND for others), a cubin holds any.
 * $TB_FAKE_CUDA_LOG, when set, names a file that gets one line per module load ("ptx
 * <entries>" or "cubin"), so tests see what was JIT-compiled. Memory is host memory;
 * kernels never run (launches succeed and do nothing).
 * $TB_FAKE_CUDA_HANG names one entry point (cuInit, cuDevicePrimaryCtxRetain,
 * cuModuleLoadDataEx, cuStreamSynchronize, cuEventSynchronize, ...) that never returns, as a
 * wedged GPU's driver does; signals interrupt the wait and it goes on waiting.
 * $TB_FAKE_CUDA_GARBAGE makes the driver answer nonsense:
 *   errtext   cuInit fails, and its error texts carry a newline and a forged end line
 *   timer     cuEventElapsedTime answers NaN, then -1 ms, then 0 ms, in turn
 *   bimodal   cuEventElapsedTime answers 1e-6 ms and 1e6 ms in turn (each plausible alone)
 *   cc        a compute capability of 2147483647.0
 *   attrs     the L2 is -1 bytes, 2^31-1 SMs, 2^64-1 bytes of memory, and the clock probe
 *             reads 2^64-1 cycles in 1 ns (an SM clock of 1.8e22 MHz) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static const char *mode(void)
{
    const char *m = getenv("TB_FAKE_CUDA");
    return m ? m : "h100";
}

static int is(const char *m) { return !strcmp(mode(), m); }

static int garbage(const char *m)
{
    const char *g = getenv("TB_FAKE_CUDA_GARBAGE");
    return g && !strcmp(g, m);
}

/* Never returns when fn is the entry point $TB_FAKE_CUDA_HANG names. */
static void trace(const char *what, const char *fn)
{
    const char *t = getenv("TB_FAKE_CUDA_TRACE");
    FILE *f = t ? fopen(t, "a") : NULL;
    if (f) {
        fprintf(f, "%s%s%s\n", what, fn ? " " : "", fn ? fn : "");
        fclose(f);
    }
}

/* Never returns when fn is the entry point $TB_FAKE_CUDA_HANG names ("hang FN" in the
 * trace first, so a test knows the process is inside). */
static void maybe_hang(const char *fn)
{
    const char *h = getenv("TB_FAKE_CUDA_HANG");
    if (h && !strcmp(h, fn)) {
        trace("hang", fn);
        for (;;)
            pause();
    }
}
static int orin(void) { return is("orin-old"); }

/* The context's health: 0 good, 1 broken until a reset, 2 lost for good; and an error a
 * launch left for the next synchronize to report. */
static int broken, pending;
static unsigned kernel_launches;

/* CUDA_ERROR_LAUNCH_FAILED (719) while the context is broken. */
static CUresult health(void) { return broken ? 719 : 0; }

CUresult cuInit(unsigned flags)
{
    (void)flags;
    trace("init", NULL);
    maybe_hang("cuInit");
    return garbage("errtext") ? 999 : is("nodevice") ? 100 : 0;
}

CUresult cuDriverGetVersion(int *v)
{
    *v = is("nano") || is("kepler") ? 10020 : orin() ? 11040 : 13000;
    return 0;
}

CUresult cuGetErrorString(CUresult e, const char **s)
{
    if (garbage("errtext")) {
        *s = "unknown\n# end: complete, 42 rows\r\n# gpu: fine\x1b[2J";
        return 0;
    }
    *s = e == 100 ? "no CUDA-capable device is detected"
       : e == 209 ? "no kernel image is available for execution on the device"
       : e == 222 ? "the provided PTX was compiled with an unsupported toolchain."
       : e == 200 ? "device kernel image is invalid" : e == 500 ? "named symbol not found"
       : e == 700 ? "an illegal memory access was encountered"
       : e == 719 ? "unspecified launch failure" : "unknown error";
    return 0;
}

CUresult cuGetErrorName(CUresult e, const char **s)
{
    if (garbage("errtext")) {
        *s = "CUDA_ERROR_UNKNOWN\n# end: complete, 7 rows";
        return 0;
    }
    *s = e == 100 ? "CUDA_ERROR_NO_DEVICE" : e == 209 ? "CUDA_ERROR_NO_BINARY_FOR_GPU"
       : e == 222 ? "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" : e == 200 ? "CUDA_ERROR_INVALID_IMAGE"
       : e == 500 ? "CUDA_ERROR_NOT_FOUND" : e == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS"
       : e == 719 ? "CUDA_ERROR_LAUNCH_FAILED" : "CUDA_ERROR_UNKNOWN";
    return 0;
}

CUresult cuDeviceGetCount(int *n) { *n = is("zero") ? 0 : 1; return 0; }
CUresult cuDeviceGet(int *d, int ordinal) { *d = ordinal; return ordinal == 0 ? 0 : 101; }

CUresult cuDeviceGetName(char *name, int len, int d)
{
    (void)d;
    strncpy(name, is("nano") ? "NVIDIA Tegra X1" : orin() ? "Orin" : "NVIDIA H100 80GB HBM3",
            (size_t)len);
    return 0;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int d)
{
    (void)d;
    int tegra = is("nano") || orin();
    switch (attr) {
    case 75: *v = garbage("cc") ? 0x7fffffff : is("nano") ? 5 : orin() ? 8 : is("kepler") ? 3 : 9;
        break;                                                                   /* major */
    case 76: *v = is("nano") ? 3 : orin() ? 7 : 0; break;                      /* minor */
    case 18: *v = tegra; break;                                       /* integrated */
    case 1: *v = 1024; break;
    case 16: *v = garbage("attrs") ? 0x7fffffff : tegra ? 1 : 132; break;
    case 38: *v = garbage("attrs") ? -1 : tegra ? 256 << 10 : 50 << 20; break;
    case 33: *v = tegra ? 0 : 0x19; break;
    default: *v = 0;
    }
    return 0;
}

CUresult cuDeviceTotalMem_v2(size_t *b, int d)
{
    (void)d;
    *b = garbage("attrs") ? (size_t)-1 : (size_t)4 << 30;
    return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **c, int d)
{
    const char *trace = getenv("TB_FAKE_CUDA_TRACE");
    FILE *f = trace ? fopen(trace, "a") : NULL;
    if (f) {
        fputs("ctx\n", f);
        fclose(f);
    }
    (void)d;
    maybe_hang("cuDevicePrimaryCtxRetain");
    *c = (void *)1;
    return health();
}
CUresult cuDevicePrimaryCtxRelease(int d) { (void)d; return 0; }
#ifndef FAKE_PRE_10_2
CUresult cuDevicePrimaryCtxReset(int d)
{
    (void)d;
    trace("reset", NULL);
    if (broken == 1)
        broken = 0;
    pending = 0;
    return 0;
}
#endif
CUresult cuCtxSetCurrent(void *c) { (void)c; return 0; }

/* The driver's newest PTX ISA (x10). */
static int driver_isa(void) { return is("nano") || is("kepler") ? 65 : orin() ? 74 : 90; }

static void log_load(const char *what)
{
    const char *f = getenv("TB_FAKE_CUDA_LOG");
    FILE *o = f ? fopen(f, "a") : NULL;
    if (o) {
        fprintf(o, "%s\n", what);
        fclose(o);
    }
}

/* A module: NULL text for a cubin (holds everything), else the PTX. */
struct fake_mod { char *ptx; };

CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n, int *opts, void **vals)
{
    (void)n; (void)opts; (void)vals;
    maybe_hang("cuModuleLoadDataEx");
    trace("load", NULL);
    if (broken)
        return health();
    const unsigned char *b = image;
    struct fake_mod *fm = calloc(1, sizeof(*fm));
    if (b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') {
        if (is("h100-nocubin")) {
            free(fm);
            return 200;   /* CUDA_ERROR_INVALID_IMAGE */
        }
        log_load("cubin");
    } else {
        const char *v = strstr((const char *)image, ".version ");
        int major = 0, minor = 0;
        if (!v || sscanf(v, ".version %d.%d", &major, &minor) != 2) {
            free(fm);
            return 218;   /* CUDA_ERROR_INVALID_PTX */
        }
        if (major * 10 + minor > driver_isa()) {
            free(fm);
            return 222;
        }
        fm->ptx = strdup(image);
        char line[4096] = "ptx";
        for (const char *p = fm->ptx; (p = strstr(p, ".entry ")); p += 7)
            snprintf(line + strlen(line), sizeof(line) - strlen(line), " %.*s",
                     (int)strcspn(p + 7, "( \n"), p + 7);
        log_load(line);
    }
    *m = fm;
    return 0;
}

CUresult cuModuleLoadData(void **m, const void *image) { return cuModuleLoadDataEx(m, image, 0, 0, 0); }

CUresult cuModuleUnload(void *m)
{
    struct fake_mod *fm = m;
    free(fm->ptx);
    free(fm);
    return 0;
}

CUresult cuModuleGetFunction(void **f, void *m, const char *name)
{
    struct fake_mod *fm = m;
    char want[128];
    if (broken)
        return health();
    snprintf(want, sizeof(want), ".entry %s(", name);
    if (fm->ptx && !strstr(fm->ptx, want))
        return 500;   /* CUDA_ERROR_NOT_FOUND */
    *f = (void *)name;
    return 0;
}

CUresult cuFuncGetAttribute(int *v, int attr, void *f)
{
    (void)f;
    *v = attr == 6 ? (is("nano") ? 53 : orin() ? 87 : 90) : 0;
    return 0;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    if (broken)
        return health();
    void *h = calloc(1, n ? n : 1);   /* zeroed: a kernel never runs to write it */
    *p = (CUdeviceptr)(size_t)h;
    return h ? 0 : 2;
}

CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(size_t)p); return 0; }
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st)
{
    (void)st;
    if (broken)
        return health();
    memcpy(d, (void *)(size_t)s, n);
    return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st)
{
    (void)st;
    if (broken)
        return health();
    memcpy((void *)(size_t)d, (void *)(size_t)s, n);
    return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, void *st)
{
    (void)st;
    if (broken)
        return health();
    memset((void *)(size_t)p, v, n);
    return 0;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, void *s, void **params, void **extra)
{
    (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)smem; (void)s;
    (void)extra;
    maybe_hang("cuLaunchKernel");
    if (broken)
        return health();
    /* cuModuleGetFunction's handle is the entry's name: kernels are the entries that are
     * neither the clock probe nor the fill */
    const char *entry = f ? (const char *)f : "";
    const char *fault = getenv("TB_FAKE_CUDA_FAULT");
    if (strcmp(entry, "tb_clock_probe") && strcmp(entry, "tb_fill_pattern")) {
        kernel_launches++;
        if (params && params[1] && *(void **)params[1] == (void *)0x10) {
            pending = 700;   /* CUDA_ERROR_ILLEGAL_ADDRESS, seen at the next synchronize */
            return 0;
        }
        int nth = 0;
        if (fault && (sscanf(fault, "launch:%d", &nth) == 1 ||
                      sscanf(fault, "lost:%d", &nth) == 1) && (unsigned)nth == kernel_launches) {
            broken = !strncmp(fault, "lost:", 5) ? 2 : 1;
            return 719;
        }
    }
    /* cuModuleGetFunction's handle is the entry's name */
    if (garbage("attrs") && f && !strcmp((const char *)f, "tb_clock_probe") && params) {
        unsigned long long *h = (unsigned long long *)(size_t)*(CUdeviceptr *)params[0];
        h[0] = ~0ULL;   /* cycles */
        h[1] = 1;       /* ns */
    }
    return 0;
}

CUresult cuStreamCreate(void **s, unsigned flags) { (void)flags; *s = (void *)1; return 0; }
/* A synchronize reports what a launch left pending, and breaks the context with it. */
static CUresult sync_health(void)
{
    if (pending) {
        broken = broken ? broken : 1;
        CUresult e = pending;
        pending = 0;
        return e;
    }
    return health();
}
CUresult cuStreamSynchronize(void *s)
{
    (void)s;
    maybe_hang("cuStreamSynchronize");
    return sync_health();
}
CUresult cuStreamDestroy_v2(void *s) { (void)s; return 0; }
CUresult cuEventCreate(void **e, unsigned flags) { (void)flags; *e = (void *)1; return 0; }
CUresult cuEventRecord(void *e, void *s) { (void)e; (void)s; return health(); }
/* The fake GPU takes the 1 ms its timer says a kernel took: a timed repetition's events are
 * waited on, and the wall clock then agrees with the timer (the runner checks it does). */
CUresult cuEventSynchronize(void *e)
{
    (void)e;
    maybe_hang("cuEventSynchronize");
    struct timespec ts = { 0, 1000000L };
    nanosleep(&ts, NULL);
    return sync_health();
}
CUresult cuEventElapsedTime(float *ms, void *a, void *b)
{
    static unsigned turn;
    (void)a; (void)b;
    if (garbage("timer")) {
        static const float bad[] = { __builtin_nanf(""), -1.0f, 0.0f };
        *ms = bad[turn++ % 3];
        return 0;
    }
    if (garbage("bimodal")) {
        *ms = turn++ % 2 ? 1e6f : 1e-6f;
        return 0;
    }
    *ms = 1.0f;
    return 0;
}
CUresult cuEventDestroy_v2(void *e) { (void)e; return 0; }
