/* harness.c: a stand-alone check and timer for the GPU kernels, for a machine without the
 * tool's libraries (libconfig, zlib): the same cubin (kernels/cuda_transpose.cu, nvcc -cubin),
 * the same launchers (kernels/cuda_launch.c) and the same fill pattern (kernels/pattern.h) as
 * transpose-bench, through the driver API. Not part of the build. Usage:
 *   harness CUBIN check|time|cold ELEM(1|2|4|8) ROWSxCOLS[,..] KERNEL:BXxBY[,..]
 * check: every point once, output compared bit for bit with the host's transpose.
 * time: memcpy (cuMemcpyDtoDAsync) then each point, warm, REPS launches timed together, three
 * rounds (best); cold: each launch timed alone after 256 MB written (L2 flushed), median of 9.
 * GB/s count each element read once and written once; frac = GB/s / memcpy GB/s at that size.
 * gcc -O2 -std=c11 -Ikernels -I/usr/local/cuda/include harness.c kernels/cuda_launch.c -lcuda
 * (Split into functions after the three runs of 2026-11-26, for the house rule of 80 lines per
 * function; the steps and numbers it prints are the same.) */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "pattern.h"

#define CK(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { const char *s_; cuGetErrorString(e_, &s_); \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); exit(1); } } while (0)

static CUmodule mod;
static CUstream st;

static int geometry(const char *k, struct tb_launch *l, struct tb_grid *g)
{
    if (!strcmp(k, "vec16")) return tb_cuda_vec16(l, g);
    if (!strcmp(k, "bperm16")) return tb_cuda_bperm16(l, g);
    if (!strcmp(k, "bperm16w")) return tb_cuda_bperm16w(l, g);
    if (!strcmp(k, "tiled")) return tb_cuda_tiled(l, g);
    if (!strcmp(k, "tile2x2")) return tb_cuda_tile2x2(l, g);
    return -1;
}

static void launch(const struct tb_grid *g, CUdeviceptr in, CUdeviceptr out, long rows, long cols)
{
    CUfunction f;
    CK(cuModuleGetFunction(&f, mod, g->entry));
    unsigned ty = g->tiles_y;
    int pad = g->pad;
    void *args[] = { &in, &out, &rows, &cols, &ty, &pad };
    CK(cuLaunchKernel(f, g->gx, g->gy, 1, g->bx, g->by, 1, g->smem, st, args, NULL));
}

static double run_ms(CUevent a, CUevent b)
{
    float ms;
    CK(cuEventSynchronize(b));
    CK(cuEventElapsedTime(&ms, a, b));
    return ms;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static CUevent ea, eb;
static CUdeviceptr flush;
static const size_t flush_bytes = 256u << 20;

/* One launch of g, or the copy when g is NULL. */
static void one(const struct tb_grid *g, CUdeviceptr in, CUdeviceptr out, size_t bytes, long rows,
                long cols)
{
    if (g)
        launch(g, in, out, rows, cols);
    else
        CK(cuMemcpyDtoDAsync(out, in, bytes, st));
}

/* Milliseconds per launch: warm, the best of three rounds of `reps` after 5 unmeasured; cold,
 * the median of 9 launches each after 256 MB written. */
static double timed(int cold, const struct tb_grid *g, CUdeviceptr in, CUdeviceptr out,
                    size_t bytes, long rows, long cols, int reps)
{
    double best = 1e30, t[9];
    for (int k = 0; k < 9; k++) {
        if (cold) {
            CK(cuMemsetD8Async(flush, (unsigned char)k, flush_bytes, st));
            CK(cuEventRecord(ea, st)); one(g, in, out, bytes, rows, cols); CK(cuEventRecord(eb, st));
            t[k] = run_ms(ea, eb);
        } else if (k < 3) {
            for (int w = 0; w < 5; w++) one(g, in, out, bytes, rows, cols);
            CK(cuEventRecord(ea, st));
            for (int i = 0; i < reps; i++) one(g, in, out, bytes, rows, cols);
            CK(cuEventRecord(eb, st));
            double ms = run_ms(ea, eb) / reps;
            if (ms < best) best = ms;
        }
    }
    if (cold) { qsort(t, 9, sizeof(double), cmpd); best = t[4]; }
    return best;
}

/* One launch, the output compared with ref byte for byte; 1 when it differs. */
static int check_point(const char *sz, int es, const char *name, int bx, int by,
                       const struct tb_grid *g, CUdeviceptr in, CUdeviceptr out, size_t bytes,
                       long rows, long cols, const unsigned char *ref, unsigned char *got)
{
    CK(cuMemsetD8Async(out, 0xA5, bytes, st));
    launch(g, in, out, rows, cols);
    CK(cuStreamSynchronize(st));
    CK(cuMemcpyDtoH(got, out, bytes));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < bytes; i++)
        if (got[i] != ref[i] && !bad++) first = i;
    printf("%-12s E%d %-8s %3dx%-2d %-22s %s", sz, es, name, bx, by, g->entry, bad ? "FAIL" : "ok");
    if (bad)
        printf(" (%zu bytes differ, first at output element %zu: row %zu col %zu)", bad, first / es,
               first / es / rows, first / es % rows);
    printf("\n");
    return bad != 0;
}

/* Every kernel:block of list at one size; returns the number of points that failed a check. */
static int one_size(const char *mode, int es, char *sz, const char *list, CUfunction fill)
{
    long rows = 0, cols = 0;
    sscanf(sz, "%ldx%ld", &rows, &cols);
    size_t n = (size_t)rows * cols, bytes = n * es;
    CUdeviceptr in, out;
    CK(cuMemAlloc(&in, bytes)); CK(cuMemAlloc(&out, bytes));
    unsigned long long seed = 7;
    void *fa[] = { &in, &n, &es, &seed };
    CK(cuLaunchKernel(fill, 1024, 1, 1, 256, 1, 1, 0, st, fa, NULL));
    int check = !strcmp(mode, "check"), cold = !strcmp(mode, "cold"), bad = 0;
    unsigned char *ref = NULL, *got = NULL;
    if (check) {
        ref = malloc(bytes); got = malloc(bytes);
        for (long r = 0; r < rows; r++)
            for (long c = 0; c < cols; c++)
                tb_pattern_value(ref + ((size_t)c * rows + r) * es, es, seed, (uint64_t)r * cols + c);
    }
    int reps = (int)((4ull << 30) / bytes);   /* about 4 GB moved per round */
    reps = reps < 20 ? 20 : reps > 400 ? 400 : reps;
    double mc = 0;
    if (!check) {   /* memcpy first, same size, same process */
        mc = 2.0 * bytes / (timed(cold, NULL, in, out, bytes, rows, cols, reps) * 1e-3) / 1e9;
        printf("%-12s E%d %-8s %-7s %8.1f GB/s  frac 1.000\n", sz, es, "memcpy", "-", mc);
    }
    char ks[4096]; snprintf(ks, sizeof(ks), "%s", list);
    for (char *kp, *kb = strtok_r(ks, ",", &kp); kb; kb = strtok_r(NULL, ",", &kp)) {
        char name[64]; int bx = 0, by = 0;
        if (sscanf(kb, "%63[^:]:%dx%d", name, &bx, &by) != 3) { fprintf(stderr, "bad %s\n", kb); exit(2); }
        struct tb_launch l = { 0 };
        l.rows = rows; l.cols = cols; l.block_x = bx; l.block_y = by; l.elem_size = es;
        struct tb_grid g;
        if (geometry(name, &l, &g)) { printf("%-12s E%d %-8s %dx%d refused\n", sz, es, name, bx, by); continue; }
        if (check) {
            bad += check_point(sz, es, name, bx, by, &g, in, out, bytes, rows, cols, ref, got);
            continue;
        }
        double gb = 2.0 * bytes / (timed(cold, &g, in, out, bytes, rows, cols, reps) * 1e-3) / 1e9;
        printf("%-12s E%d %-8s %3dx%-2d %8.1f GB/s  frac %.3f  %s\n", sz, es, name, bx, by, gb, gb / mc, g.entry);
    }
    CK(cuMemFree(in)); CK(cuMemFree(out));
    free(ref); free(got);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 6) { fprintf(stderr, "usage: see harness.c\n"); return 2; }
    int es = atoi(argv[3]);
    CUdevice dev; CUcontext ctx;
    CK(cuInit(0)); CK(cuDeviceGet(&dev, 0)); CK(cuCtxCreate(&ctx, NULL, 0, dev));
    CK(cuModuleLoad(&mod, argv[1]));
    CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    CUfunction fill;
    CK(cuModuleGetFunction(&fill, mod, "tb_fill_pattern"));
    CK(cuEventCreate(&ea, 0)); CK(cuEventCreate(&eb, 0));
    if (!strcmp(argv[2], "cold")) CK(cuMemAlloc(&flush, flush_bytes));
    int bad = 0;
    char sizes[4096]; snprintf(sizes, sizeof(sizes), "%s", argv[4]);
    for (char *sp, *sz = strtok_r(sizes, ",", &sp); sz; sz = strtok_r(NULL, ",", &sp))
        bad += one_size(argv[2], es, sz, argv[5], fill);
    return bad ? 1 : 0;
}
