/* kernel_table.c: THE table of kernels. A CPU kernel is one row here plus its function
 * (cpu_kernels.c); a CUDA kernel is one row plus its name in kernels.h's TB_CUDA_KERNELS,
 * its geometry (cuda_launch.c) and its device code (cuda_transpose.cu). `list`, the
 * sweep's checks and the log all follow from the row. Order is `list` order (a test
 * build's test-only rows first). CUDA rows stay in the table when CUDA is compiled out,
 * with the reason. */
#include "kernels.h"
#include "strip_geo.h"

#include <stdio.h>
#include <string.h>

#define ELEM_ALL ((1u << 1) | (1u << 2) | (1u << 4) | (1u << 8))
#define ELEM_F32 (1u << 4)
#define ELEM_U8_F16 ((1u << 1) | (1u << 2))
#define ELEM_U8 (1u << 1)
#define ELEM_F32_F64 ((1u << 4) | (1u << 8))

static int rule_square(int bx, int by, char *why, size_t n)
{
    if (bx == by)
        return 1;
    snprintf(why, n, "square tile: needs block.x == block.y, got %dx%d", bx, by);
    return 0;
}

static int rule_tile_rows(int bx, int by, char *why, size_t n)
{
    if ((bx == 16 || bx == 32 || bx == 64) && by > 0 && bx % by == 0)
        return 1;
    snprintf(why, n, "tile rows: needs block.x = tile (16, 32 or 64) and block.y dividing it, "
             "got %dx%d", bx, by);
    return 0;
}

static int rule_aligned64(int bx, int by, char *why, size_t n)
{
    if (bx == 64 && (by == 4 || by == 8 || by == 16))
        return 1;
    snprintf(why, n, "aligned64: needs block 64x4, 64x8 or 64x16, got %dx%d", bx, by);
    return 0;
}

static int rule_tile2x2(int bx, int by, char *why, size_t n)
{
    if (bx == 32 && (by == 4 || by == 8 || by == 16))
        return 1;
    snprintf(why, n, "tile2x2: needs block 32x4, 32x8 or 32x16, got %dx%d", bx, by);
    return 0;
}

static int rule_vec16(int bx, int by, char *why, size_t n)
{
    if ((bx == 128 || bx == 256 || bx == 512) && by == 1)
        return 1;
    snprintf(why, n, "vec16: needs block 128x1, 256x1 or 512x1, got %dx%d", bx, by);
    return 0;
}

static int rule_bperm16(int bx, int by, char *why, size_t n)
{
    if ((bx == 64 || bx == 128 || bx == 256) && (by == 1 || by == 2))
        return 1;
    snprintf(why, n, "bperm16: needs block 64, 128 or 256 x 1 or 2 (threads x 128-byte slabs), "
             "got %dx%d", bx, by);
    return 0;
}

static int rule_bperm16w(int bx, int by, char *why, size_t n)
{
    if ((bx == 256 || bx == 512) && by == 1)
        return 1;
    snprintf(why, n, "bperm16w: needs block 256x1 or 512x1, got %dx%d", bx, by);
    return 0;
}

static int rule_vec16d(int bx, int by, char *why, size_t n)
{
    if ((bx == 64 || bx == 128 || bx == 256) && (by == 2 || by == 4))
        return 1;
    snprintf(why, n, "vec16d: needs block 64, 128 or 256 x 2 or 4 (threads x 128-byte slabs of "
             "rows), got %dx%d", bx, by);
    return 0;
}

static int rule_vec16w(int bx, int by, char *why, size_t n)
{
    if ((bx == 128 || bx == 256 || bx == 512) && (by == 1 || by == 2))
        return 1;
    snprintf(why, n, "vec16w: needs block 128, 256 or 512 x 1 or 2 (threads x 128-byte slabs of "
             "rows), got %dx%d", bx, by);
    return 0;
}

static int rule_strip(int bx, int by, char *why, size_t n)
{
    if ((bx == 128 || bx == 256 || bx == 512) && (by == 1 || by == 2 || by == 4) && bx * by <= 1024)
        return 1;
    snprintf(why, n, "strip: needs block 128, 256 or 512 x 1, 2 or 4 (threads x 16-byte chunks "
             "each), at most 1024 in all, got %dx%d", bx, by);
    return 0;
}

static int shape_strip(long rows, long cols, char *why, size_t n)
{
    if (rows <= ST_MAX || cols <= ST_MAX)
        return 1;
    snprintf(why, n, "strip: needs a side of %d or fewer (the tile spans it), got %ldx%ld", ST_MAX,
             rows, cols);
    return 0;
}

static int shape_strip8(long rows, long cols, char *why, size_t n)
{
    if (rows <= ST_MAX && rows <= cols)
        return 1;
    snprintf(why, n, "strip8: needs rows <= cols and rows <= %d (short and wide), got %ldx%ld",
             ST_MAX, rows, cols);
    return 0;
}

static int rule_strip8(int bx, int by, char *why, size_t n)
{
    if ((bx == 128 || bx == 256 || bx == 512) && (by == 1 || by == 2))
        return 1;
    snprintf(why, n, "strip8: needs block 128, 256 or 512 x 1 or 2 (threads x items in flight), "
             "got %dx%d", bx, by);
    return 0;
}

static int shape_even(long rows, long cols, char *why, size_t n)
{
    if (rows % 2 == 0 && cols % 2 == 0)
        return 1;
    snprintf(why, n, "2x2 blocks: needs even rows and cols, got %ldx%ld", rows, cols);
    return 0;
}

/* GPU rows: their geometry, or the reason they are not in this build. Built-ins are the
 * backend's own operations (no geometry); they too need the backend, so the images. */
#ifdef TB_HAVE_CUDA
#define CUDA_FN(n) NULL, tb_cuda_##n, NULL
#define BUILTIN NULL, NULL, NULL
#else
#define NO_IMAGES "built without kernel images (why: the kernel images line of `list`)"
#define CUDA_FN(n) NULL, NULL, NO_IMAGES
#define BUILTIN NULL, NULL, NO_IMAGES
#endif

#define ANY "any"
#define NOB "none (one point per size)"
#define SQ "block.x == block.y (the tile)"
#define TR "block.x = tile 16|32|64, block.y divides it"
#define CPU TB_BACKEND_CPU
#define GPU TB_BACKEND_CUDA
#define COPY_REF (TB_KF_COPY | TB_KF_COPY_REF | TB_KF_NO_BLOCK)

#ifdef TB_TEST_KERNELS
/* Test builds only (tests/wrong_kernel.c, linked into build/tests/transpose-bench-hooks):
 * never in the tool a user runs. */
int tb_test_wrong_row(struct tb_launch *l);
#endif

const struct tb_kernel tb_kernels[] = {
#ifdef TB_TEST_KERNELS
    { "wrong_row", "TEST BUILD ONLY: naive_row with one element flipped (a kernel that is wrong)",
      CPU, tb_test_wrong_row, NULL, NULL, NOB, NULL, 2, TB_KF_NO_BLOCK, ELEM_ALL, NULL },
#endif
    /* CPU backend: always built */
    { "copy_row", "plain row-by-row copy (memcpy): the CPU's upper bound", CPU,
      tb_cpu_copy_row, NULL, NULL, NOB, NULL, 2, COPY_REF, ELEM_ALL, NULL },
    { "naive_row", "the seeds' host loop: row-wise reads, strided writes (verification reference)",
      CPU, tb_cpu_naive_row, NULL, NULL, NOB, NULL, 2, TB_KF_NO_BLOCK | TB_KF_BEST, ELEM_ALL, NULL },
    { "blocked", "cache-blocked transpose, tile = block.y rows x block.x cols", CPU,
      tb_cpu_blocked, NULL, NULL, ANY, NULL, 2, TB_KF_BEST, ELEM_ALL, NULL },

    /* CUDA backend: bounds */
    { "memcpy", "cudaMemcpy device to device: the physical limit", GPU, BUILTIN, NOB, NULL, 2,
      COPY_REF | TB_KF_BUILTIN, ELEM_ALL, NULL },
    { "copy_row", "coalesced copy by rows: upper bound for a kernel", GPU, CUDA_FN(copy_row), ANY,
      NULL, 2, TB_KF_COPY, ELEM_ALL, NULL },
    { "copy_col", "strided copy by columns: lower bound", GPU, CUDA_FN(copy_col), ANY, NULL, 2,
      TB_KF_COPY, ELEM_ALL, NULL },
    { "copy_smem", "copy through a square shared-memory tile", GPU, CUDA_FN(copy_smem), SQ,
      rule_square, 2, TB_KF_COPY, ELEM_ALL, NULL },
    /* naive */
    { "naive_row", "coalesced reads, strided writes", GPU, CUDA_FN(naive_row), ANY, NULL, 2, 0,
      ELEM_ALL, NULL },
    { "naive_col", "strided reads, coalesced writes", GPU, CUDA_FN(naive_col), ANY, NULL, 2, 0,
      ELEM_ALL, NULL },
    /* unrolled */
    { "unroll4_row", "4 elements per thread along x, coalesced reads (tail handled)", GPU,
      CUDA_FN(unroll4_row), ANY, NULL, 2, 0, ELEM_ALL, NULL },
    { "unroll4_col", "4 elements per thread along x, coalesced writes (tail handled)", GPU,
      CUDA_FN(unroll4_col), ANY, NULL, 2, 0, ELEM_ALL, NULL },
    /* diagonal block order */
    { "diagonal_row", "diagonal block order (against partition camping), coalesced reads", GPU,
      CUDA_FN(diagonal_row), ANY, NULL, 2, 0, ELEM_ALL, NULL },
    { "diagonal_col", "diagonal block order, coalesced writes", GPU, CUDA_FN(diagonal_col), ANY,
      NULL, 2, 0, ELEM_ALL, NULL },
    /* shared memory */
    { "smem", "square shared-memory tile, bank conflicts on the column read", GPU, CUDA_FN(smem),
      SQ, rule_square, 2, 0, ELEM_ALL, NULL },
    { "smem_pad", "square tile padded by one column: no bank conflicts", GPU, CUDA_FN(smem_pad),
      SQ, rule_square, 2, 0, ELEM_ALL, NULL },
    { "smem_rect", "rectangular tile block.y x block.x, bank conflicts", GPU, CUDA_FN(smem_rect),
      ANY, NULL, 2, 0, ELEM_ALL, NULL },
    { "smem_rect_pad", "rectangular tile, padded", GPU, CUDA_FN(smem_rect_pad), ANY, NULL, 2, 0,
      ELEM_ALL, NULL },
    { "smem_unroll_pad", "two padded rectangular tiles per block, dynamic shared memory", GPU,
      CUDA_FN(smem_unroll_pad), ANY, NULL, 2, 0, ELEM_ALL, NULL },
    /* multi-row tiles */
    { "tiled", "padded TILE x TILE tile moved by TILE x ROWS threads (block.y = ROWS)", GPU,
      CUDA_FN(tiled), TR, rule_tile_rows, 2, TB_KF_BEST, ELEM_ALL, NULL },
    /* beyond the seeds (doc/kernels.md, doc/results/) */
    { "aligned64", "64x64 tile, output rows shifted to 32-byte sectors, 16-byte stores", GPU,
      CUDA_FN(aligned64), "64x4, 64x8 or 64x16", rule_aligned64, 2, TB_KF_BEST, ELEM_F32, NULL },
    { "tile2x2", "64x64 floats as a 32x32 tile of 2x2 blocks (16-byte elements)", GPU,
      CUDA_FN(tile2x2), "32x4, 32x8 or 32x16; even rows and cols", rule_tile2x2, 2, TB_KF_BEST, ELEM_F32,
      shape_even },
    { "vec16", "every element type, any shape: 16-byte stores on sectors, 16-byte loads (element loads on odd float/double rows)",
      GPU, CUDA_FN(vec16), "128x1, 256x1 or 512x1", rule_vec16, 2, TB_KF_BEST, ELEM_ALL, NULL },
    { "bperm16", "1 and 2-byte elements, any shape: 4-row blocks transposed in registers (prmt), word-wide shared rows, 16-byte loads and sector-aligned 16-byte stores",
      GPU, CUDA_FN(bperm16), "64x1, 128x1, 256x1, 64x2, 128x2 or 256x2 (threads x 128-byte slabs)",
      rule_bperm16, 2, TB_KF_BEST, ELEM_U8_F16, NULL },
    { "bperm16w", "bytes, any shape: bperm16 with 256-byte input segments (fewer extra sectors on rows off 32 bytes)",
      GPU, CUDA_FN(bperm16w), "256x1 or 512x1", rule_bperm16w, 2, TB_KF_BEST, ELEM_U8, NULL },
    { "vec16d", "floats and doubles, any shape: vec16 with tiles 128 x D bytes of rows deep (block T x D), the halo 1/D of vec16's on odd shapes",
      GPU, CUDA_FN(vec16d), "64, 128 or 256 x 2 or 4 (threads x 128-byte slabs)", rule_vec16d, 2,
      TB_KF_BEST, ELEM_F32_F64, NULL },
    { "vec16w", "floats and doubles, any shape: vec16 with 512-byte input segments (one sector more per 16 read on odd cols) and tiles 128 x D bytes deep",
      GPU, CUDA_FN(vec16w), "128, 256 or 512 x 1 or 2 (threads x 128-byte slabs)", rule_vec16w,
      2, TB_KF_BEST, ELEM_F32_F64, NULL },
    { "strip", "every element type, a side of 512 or fewer (61x100003, 100003x61, 300x40009): the tile spans the short side, the contiguous side moves as 16-byte chunks through registers, the other side's segments through shared memory",
      GPU, CUDA_FN(strip), "128, 256 or 512 x 1, 2 or 4 (threads x 16-byte chunks), <= 1024",
      rule_strip, 2, TB_KF_BEST, ELEM_ALL, shape_strip },
    { "strip8", "bytes, short and wide with 512 rows or fewer (257x65537, 100x100003): 4 rows x 16 columns a thread transposed in registers (prmt), shared memory holding the output run, 16-byte stores",
      GPU, CUDA_FN(strip8), "128, 256 or 512 x 1 or 2 (threads x items in flight)", rule_strip8,
      2, TB_KF_BEST, ELEM_U8, shape_strip8 },
    /* vendor reference */
    { "cublas_geam", "cublasSgeam with op T: the vendor's transpose", GPU, BUILTIN,
      NOB, NULL, 2, TB_KF_VENDOR | TB_KF_NO_BLOCK | TB_KF_BUILTIN, ELEM_F32, NULL },
    { NULL, NULL, CPU, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, NULL },
};

const char *tb_backend_name(enum tb_backend_id b)
{
    return b == TB_BACKEND_CUDA ? "cuda" : "cpu";
}

const struct tb_kernel *tb_kernel_find(const char *name, enum tb_backend_id b)
{
    for (const struct tb_kernel *k = tb_kernels; k->name; k++)
        if (k->backend == b && !strcmp(k->name, name))
            return k;
    return NULL;
}

const struct tb_kernel *tb_kernel_copy_ref(enum tb_backend_id b)
{
    for (const struct tb_kernel *k = tb_kernels; k->name; k++)
        if (k->backend == b && (k->flags & TB_KF_COPY_REF))
            return k;
    return NULL;
}

int tb_kernel_shape_ok(const struct tb_kernel *k, long rows, long cols, char *why, size_t n)
{
    return k->shape_ok ? k->shape_ok(rows, cols, why, n) : 1;
}

int tb_kernel_built(const struct tb_kernel *k) { return k->unavailable == NULL; }

int tb_kernel_block_ok(const struct tb_kernel *k, int bx, int by, char *why, size_t n)
{
    if (k->flags & TB_KF_NO_BLOCK)
        return 1;
    return k->block_ok ? k->block_ok(bx, by, why, n) : 1;
}
