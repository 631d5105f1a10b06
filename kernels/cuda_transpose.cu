/* cuda_transpose.cu: the GPU kernels, device code only. nvcc compiles this file into one
 * fatbin (a cubin per architecture of SMS, PTX for the newest) that is embedded in the
 * executable and loaded through the driver API (src/cuda/backend.c); the launchers that
 * pick grids and entry points are plain C (kernels/cuda_launch.c). Every entry point is
 * extern "C" with a stable name, tb_<kernel>[_<variant>]_<element bytes>, and the same
 * parameters (in, out, rows, cols, tiles_y, pad). Input is row-major rows x cols, output cols x rows.
 * Every kernel checks bounds (any shape: 1x1, primes, tails of unrolled loops), indexes
 * memory with 64-bit arithmetic, and loops over tile rows when there are more than the
 * 65535 that gridDim.y allows (very tall matrices). Block shape = (block_x, block_y).
 * doc/kernels.md explains each one's memory access. CUDA 10.2, C++14. */
#include <stddef.h>

#include "pattern.h"
#include "vec16_geo.h"
#include "bperm_geo.h"
#include "strip_geo.h"
#include "strip8_ops.h"

typedef size_t idx_t;

/* Element types by size: the kernels move bits, so 1, 2, 4 and 8-byte elements are
 * unsigned integers (floats for 4 bytes, which cuBLAS and aligned64 need). */
template <int BYTES> struct elem_of;
template <> struct elem_of<1> { typedef unsigned char type; };
template <> struct elem_of<2> { typedef unsigned short type; };
template <> struct elem_of<4> { typedef float type; };
template <> struct elem_of<8> { typedef unsigned long long type; };

/* Dynamic shared memory, typed per instantiation (an `extern __shared__ T[]` cannot be). */
template <typename T> __device__ __forceinline__ T *dyn_smem()
{
    extern __shared__ __align__(16) unsigned char tb_smem_raw[];
    return reinterpret_cast<T *>(tb_smem_raw);
}

/* Loop over the y tiles of a grid that may have been capped at 65535 rows of blocks. */
#define FOR_TILE_Y(tiles_y) for (unsigned ty_ = blockIdx.y; ty_ < (tiles_y); ty_ += gridDim.y)

/* ---- bounds ----------------------------------------------------------------------- */

/* Coalesced copy: neighbouring threads read and write neighbouring elements. */
template <typename T>
__device__ __forceinline__ void k_copy_row(const T *__restrict__ in, T *__restrict__ out, long rows, long cols,
                           unsigned tiles_y)
{
    long c = (long)blockIdx.x * blockDim.x + threadIdx.x;
    FOR_TILE_Y(tiles_y) {
        long r = (long)ty_ * blockDim.y + threadIdx.y;
        if (r < rows && c < cols)
            out[(idx_t)r * cols + c] = in[(idx_t)r * cols + c];
    }
}

/* Strided copy: neighbouring threads are `rows` elements apart, on reads and writes. */
template <typename T>
__device__ __forceinline__ void k_copy_col(const T *__restrict__ in, T *__restrict__ out, long rows, long cols,
                           unsigned tiles_y)
{
    long c = (long)blockIdx.x * blockDim.x + threadIdx.x;
    FOR_TILE_Y(tiles_y) {
        long r = (long)ty_ * blockDim.y + threadIdx.y;
        if (r < rows && c < cols)
            out[(idx_t)c * rows + r] = in[(idx_t)c * rows + r];
    }
}

/* Copy through a square shared tile: the cost of the staging alone. */
template <typename T>
__device__ __forceinline__ void k_copy_smem(const T *__restrict__ in, T *__restrict__ out, long rows, long cols,
                            unsigned tiles_y)
{
    T *tile = dyn_smem<T>();
    long c = (long)blockIdx.x * blockDim.x + threadIdx.x;
    FOR_TILE_Y(tiles_y) {
        long r = (long)ty_ * blockDim.y + threadIdx.y;
        unsigned s = threadIdx.y * blockDim.x + threadIdx.x;
        if (r < rows && c < cols)
            tile[s] = in[(idx_t)r * cols + c];
        __syncthreads();
        if (r < rows && c < cols)
            out[(idx_t)r * cols + c] = tile[s];
        __syncthreads();
    }
}

/* ---- naive ------------------------------------------------------------------------ */

/* Threads along x walk input columns: reads coalesced, writes `rows` apart. */
template <typename T>
__device__ __forceinline__ void k_naive_row(const T *__restrict__ in, T *__restrict__ out, long rows, long cols,
                            unsigned tiles_y)
{
    long c = (long)blockIdx.x * blockDim.x + threadIdx.x;
    FOR_TILE_Y(tiles_y) {
        long r = (long)ty_ * blockDim.y + threadIdx.y;
        if (r < rows && c < cols)
            out[(idx_t)c * rows + r] = in[(idx_t)r * cols + c];
    }
}

/* Threads along x walk input rows (= output columns): writes coalesced, reads strided. */
template <typename T>
__device__ __forceinline__ void k_naive_col(const T *__restrict__ in, T *__restrict__ out, long rows, long cols,
                            unsigned tiles_y)
{
    long r = (long)blockIdx.x * blockDim.x + threadIdx.x;
    FOR_TILE_Y(tiles_y) {
        long c = (long)ty_ * blockDim.y + threadIdx.y;
        if (r < rows && c < cols)
            out[(idx_t)c * rows + r] = in[(idx_t)r * cols + c];
    }
}

/* ---- unrolled: four elements per thread along x, each bounds-checked ------------- */

template <typename T>
__device__ __forceinline__ void k_unroll4_row(const T *__restrict__ in, T *__restrict__ out, long rows,
                              long cols, unsigned tiles_y)
{
    long c0 = (long)blockIdx.x * blockDim.x * 4 + threadIdx.x;
    FOR_TILE_Y(tiles_y) {
        long r = (long)ty_ * blockDim.y + threadIdx.y;
        if (r >= rows)
            continue;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            long c = c0 + (long)k * blockDim.x;
            if (c < cols)
                out[(idx_t)c * rows + r] = in[(idx_t)r * cols + c];
        }
    }
}

template <typename T>
__device__ __forceinline__ void k_unroll4_col(const T *__restrict__ in, T *__restrict__ out, long rows,
                              long cols, unsigned tiles_y)
{
    long r0 = (long)blockIdx.x * blockDim.x * 4 + threadIdx.x;
    FOR_TILE_Y(tiles_y) {
        long c = (long)ty_ * blockDim.y + threadIdx.y;
        if (c >= cols)
            continue;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            long r = r0 + (long)k * blockDim.x;
            if (r < rows)
                out[(idx_t)c * rows + r] = in[(idx_t)r * cols + c];
        }
    }
}

/* ---- diagonal block order --------------------------------------------------------- */

/* Renumbers block (bx, by) of a gx x gy grid along diagonals; a bijection for any shape
 * (square or not), so concurrently running blocks hit different memory partitions. */
__device__ __forceinline__ void diagonal(unsigned bx, unsigned by, unsigned gx, unsigned gy,
                                         unsigned *dx, unsigned *dy)
{
    unsigned long long bid = bx + (unsigned long long)gx * by;
    *dy = (unsigned)(bid % gy);
    *dx = (unsigned)((bid / gy + *dy) % gx);
}

template <typename T>
__device__ __forceinline__ void k_diagonal_row(const T *__restrict__ in, T *__restrict__ out, long rows,
                               long cols, unsigned tiles_y)
{
    FOR_TILE_Y(tiles_y) {
        unsigned dx, dy;
        diagonal(blockIdx.x, ty_, gridDim.x, tiles_y, &dx, &dy);
        long c = (long)dx * blockDim.x + threadIdx.x;
        long r = (long)dy * blockDim.y + threadIdx.y;
        if (r < rows && c < cols)
            out[(idx_t)c * rows + r] = in[(idx_t)r * cols + c];
    }
}

template <typename T>
__device__ __forceinline__ void k_diagonal_col(const T *__restrict__ in, T *__restrict__ out, long rows,
                               long cols, unsigned tiles_y)
{
    FOR_TILE_Y(tiles_y) {
        unsigned dx, dy;
        diagonal(blockIdx.x, ty_, gridDim.x, tiles_y, &dx, &dy);
        long r = (long)dx * blockDim.x + threadIdx.x;
        long c = (long)dy * blockDim.y + threadIdx.y;
        if (r < rows && c < cols)
            out[(idx_t)c * rows + r] = in[(idx_t)r * cols + c];
    }
}

/* ---- shared-memory tiles ---------------------------------------------------------- */

/* Square tile of side blockDim.x (== blockDim.y), row pitch tile + pad. A block reads a
 * tile row by row (coalesced) and writes the transposed tile row by row (coalesced); the
 * column read from shared memory conflicts on banks unless pad = 1. */
template <typename T>
__device__ __forceinline__ void k_smem(const T *__restrict__ in, T *__restrict__ out, long rows, long cols,
                       unsigned tiles_y, int pad)
{
    T *tile = dyn_smem<T>();
    const unsigned n = blockDim.x, pitch = n + pad;
    long x0 = (long)blockIdx.x * n;
    FOR_TILE_Y(tiles_y) {
        long y0 = (long)ty_ * n;
        long r = y0 + threadIdx.y, c = x0 + threadIdx.x;
        if (r < rows && c < cols)
            tile[threadIdx.y * pitch + threadIdx.x] = in[(idx_t)r * cols + c];
        __syncthreads();
        long orow = x0 + threadIdx.y, ocol = y0 + threadIdx.x;   /* output row = input col */
        if (orow < cols && ocol < rows)
            out[(idx_t)orow * rows + ocol] = tile[threadIdx.x * pitch + threadIdx.y];
        __syncthreads();
    }
}

/* Rectangular tile of blockDim.y rows x (unroll x blockDim.x) columns. Threads are
 * renumbered for the write so that consecutive threads write consecutive output
 * elements: linear id i -> output row i / blockDim.y, output column i % blockDim.y. */
template <typename T, int UNROLL>
__device__ __forceinline__ void k_smem_rect(const T *__restrict__ in, T *__restrict__ out, long rows, long cols,
                            unsigned tiles_y, int pad)
{
    T *tile = dyn_smem<T>();
    const unsigned bx = blockDim.x, by = blockDim.y, w = UNROLL * bx, pitch = w + pad;
    long x0 = (long)blockIdx.x * w;
    unsigned i = threadIdx.y * bx + threadIdx.x;
    unsigned irow = i / by, icol = i % by;
    FOR_TILE_Y(tiles_y) {
        long y0 = (long)ty_ * by;
        long r = y0 + threadIdx.y;
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            long c = x0 + u * bx + threadIdx.x;
            if (r < rows && c < cols)
                tile[threadIdx.y * pitch + u * bx + threadIdx.x] = in[(idx_t)r * cols + c];
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            long orow = x0 + u * bx + irow, ocol = y0 + icol;
            if (orow < cols && ocol < rows)
                out[(idx_t)orow * rows + ocol] = tile[icol * pitch + u * bx + irow];
        }
        __syncthreads();
    }
}

/* TILE x TILE padded tile moved by TILE x ROWS threads, each moving TILE / ROWS elements
 * (the classic 32x8). ROWS is a template parameter so that the loops unroll: each thread
 * then has TILE / ROWS independent loads in flight, which is what feeds HBM. */
template <typename T, int TILE, int ROWS>
__device__ __forceinline__ void k_tiled(const T *__restrict__ in, T *__restrict__ out, long rows, long cols,
                        unsigned tiles_y)
{
    __shared__ T tile[TILE][TILE + 1];
    long x0 = (long)blockIdx.x * TILE;
    FOR_TILE_Y(tiles_y) {
        long y0 = (long)ty_ * TILE;
        long c = x0 + threadIdx.x;
        /* all loads into registers first: a shared store right behind each bounds-checked
         * load makes the thread wait for every load in turn (one in flight, seen in SASS) */
        T v[TILE / ROWS];
#pragma unroll
        for (int k = 0; k < TILE / ROWS; k++) {
            long r = y0 + k * ROWS + threadIdx.y;
            v[k] = (r < rows && c < cols) ? in[(idx_t)r * cols + c] : T(0);
        }
#pragma unroll
        for (int k = 0; k < TILE / ROWS; k++)
            tile[k * ROWS + threadIdx.y][threadIdx.x] = v[k];
        __syncthreads();
        long ocol = y0 + threadIdx.x;
#pragma unroll
        for (int k = 0; k < TILE / ROWS; k++) {
            long orow = x0 + k * ROWS + threadIdx.y;
            if (orow < cols && ocol < rows)
                out[(idx_t)orow * rows + ocol] = tile[threadIdx.x][k * ROWS + threadIdx.y];
        }
        __syncthreads();
    }
}

/* ---- beyond the seeds: aligned output segments ------------------------------------ */

/* 64 x 64 tile, 64 x ROWS threads. When `rows` is not a multiple of 8, output row o starts
 * (o * rows) mod 8 floats into a 32-byte sector, and a tile-aligned write straddles one
 * sector more than it fills: on an H100 that alone costs a third of the bandwidth. So each
 * output row's 64-element segment is shifted left by e(o) = (o * rows) mod 8 elements to
 * start on a sector, and written with 16-byte stores. A block therefore needs input rows
 * y0 - 8 .. y0 + 63: it loads a 72 x 64 tile (the 8 extra rows come mostly from L2, where
 * the neighbouring block put them). Partial segments at the matrix edges are written
 * element by element. doc/kernels.md draws it. */
/* aligned64 is float-only: its shift and 16-byte stores count floats */
#define AL_TILE 64
#define AL_HALO 8
#define AL_PER_BLOCK 4

/* One 16-byte store, evict-first. Written in PTX because nvcc merged a plain float4 store
 * with the scalar tail path into four 4-byte stores (seen in SASS), which quadrupled the
 * write sectors. dst must be 16-byte aligned. */
__device__ __forceinline__ void store4_streaming(float *dst, float a, float b, float c, float d)
{
    asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "f"(a), "f"(b),
                 "f"(c), "f"(d)
                 : "memory");
}
/* Loads the 72 x 64 input strip of tile row ty into registers (no shared stores here, so
 * every load is in flight at once). */
template <int ROWS, int N>
__device__ __forceinline__ void al_load(float (&v)[N], const float *__restrict__ in, long rows, long cols,
                                        long c, long y0, int halo)
{
#pragma unroll
    for (int k = 0; k < N; k++) {
        int jj = k * ROWS + threadIdx.y;
        long r = y0 - AL_HALO + jj;
        bool ok = jj < AL_TILE + AL_HALO && jj >= AL_HALO - halo && r >= 0 && r < rows &&
                  c < cols;
        v[k] = ok ? in[(idx_t)r * cols + c] : 0.f;
    }
}

/* The grid covers each column of tiles with gridDim.y blocks that walk down it, so that a
 * block loads the next tile's strip into registers while it writes the current one from
 * shared memory: reads and writes overlap inside the block, not only across blocks. */
template <int ROWS>
__device__ __forceinline__ void k_aligned64(const float *__restrict__ in, float *__restrict__ out, long rows, long cols, unsigned tiles_y)
{
    __shared__ float tile[AL_TILE + AL_HALO][AL_TILE + 1];
    const int N = (AL_TILE + AL_HALO + ROWS - 1) / ROWS;
    const long x0 = (long)blockIdx.x * AL_TILE;
    const long c = x0 + threadIdx.x;
    const int halo = (rows % 8) ? AL_HALO : 0;   /* aligned rows: no shift, no extra rows */
    const unsigned t = threadIdx.y * AL_TILE + threadIdx.x;
    const int q = t & 15;                       /* 16 threads write one output row */
    unsigned ty = blockIdx.y;
    if (ty >= tiles_y)
        return;
    float v[N];
    al_load<ROWS>(v, in, rows, cols, c, (long)ty * AL_TILE, halo);
    for (;;) {
#pragma unroll
        for (int k = 0; k < N; k++) {
            int jj = k * ROWS + threadIdx.y;
            if (jj < AL_TILE + AL_HALO)
                tile[jj][threadIdx.x] = v[k];
        }
        __syncthreads();
        const long y0 = (long)ty * AL_TILE;
        const unsigned next = ty + gridDim.y;
        if (next < tiles_y)
            al_load<ROWS>(v, in, rows, cols, c, (long)next * AL_TILE, halo);
#pragma unroll
        for (int j = 0; j < AL_TILE; j += ROWS * 4) {
            const int jr = j + (int)(t >> 4);          /* tile column = output row - x0 */
            const long o = x0 + jr;
            if (o < cols) {
                const int e = (int)(((idx_t)o * rows) & 7);
                const long col = y0 - e + 4 * q;       /* first of 4 output columns */
                const int ti = AL_HALO - e + 4 * q;    /* its tile row */
                float *dst = out + (idx_t)o * rows + col;
                if (col >= 0 && col + 3 < rows) {
                    store4_streaming(dst, tile[ti][jr], tile[ti + 1][jr], tile[ti + 2][jr],
                                     tile[ti + 3][jr]);
                } else {
#pragma unroll
                    for (int i = 0; i < 4; i++)
                        if (col + i >= 0 && col + i < rows)
                            dst[i] = tile[ti + i][jr];
                }
            }
        }
        __syncthreads();
        if (next >= tiles_y)
            break;
        ty = next;
    }
}

/* ---- beyond the seeds: 2x2 blocks as 16-byte elements ------------------------------ */

/* With even rows and cols, a float matrix is a (rows/2) x (cols/2) matrix of 2x2 blocks,
 * 16 bytes each. A thread reads a block as two float2 from two adjacent rows, transposes it
 * in registers, and the tile moves whole blocks; the block is written as two float2 into two
 * adjacent output rows. Measured on the H100, the plain tile with 8-byte elements reached
 * 0.99 of memcpy where floats reached 0.87: bytes per access, not the pattern, were the
 * limit. TILE is in blocks (32 blocks = 64 floats), ROWS = blockDim.y. */
#define T2_TILE 32   /* tile2x2's tile side, in 2x2 blocks (64 floats) */

/* Reads tile row ty's blocks (a thread's T2_TILE / ROWS of them) into registers. */
template <int ROWS, int K>
__device__ __forceinline__ void t2_load(float2 (&top)[K], float2 (&bot)[K],
                                        const float2 *__restrict__ in2, long R2, long C2,
                                        long x0, unsigned ty)
{
    const long c2 = x0 + threadIdx.x;
#pragma unroll
    for (int k = 0; k < K; k++) {
        long r2 = (long)ty * T2_TILE + k * ROWS + threadIdx.y;
        bool ok = r2 < R2 && c2 < C2;
        top[k] = ok ? in2[(idx_t)(2 * r2) * C2 + c2] : make_float2(0.f, 0.f);
        bot[k] = ok ? in2[(idx_t)(2 * r2 + 1) * C2 + c2] : make_float2(0.f, 0.f);
    }
}

template <int ROWS>
__device__ __forceinline__ void k_tile2x2(const float *__restrict__ in, float *__restrict__ out, long rows, long cols,
          unsigned tiles_y)
{
    const int TILE = T2_TILE, K = TILE / ROWS;
    __shared__ float4 tile[TILE][TILE + 1];   /* pitch 33 x 16 bytes: no bank conflicts */
    const long R2 = rows / 2, C2 = cols / 2;
    const float2 *__restrict__ in2 = reinterpret_cast<const float2 *>(in);   /* rows x C2 */
    float2 *__restrict__ out2 = reinterpret_cast<float2 *>(out);            /* cols x R2 */
    const long x0 = (long)blockIdx.x * TILE;   /* block column */
    /* one tile row per block; past 65535 tile rows (gridDim.y's limit) a block takes `per`
     * consecutive ones, the next one's loads in flight while it writes the current one (more
     * per block everywhere, 2 or 4, measured slower on the H100: doc/results). Written this
     * way the kernel also measured 0.3-1.0% faster than the plain FOR_TILE_Y loop at one tile
     * per block (same machine, two rounds), which is why it stayed; not dissected (it takes 36
     * registers to the loop's 32: 3 blocks of 512 threads per SM instead of 4). */
    const unsigned per = (tiles_y + gridDim.y - 1) / gridDim.y;
    unsigned ty = blockIdx.y * per;
    const unsigned end = ty + per < tiles_y ? ty + per : tiles_y;
    if (ty >= end)
        return;
    float2 top[K], bot[K];
    t2_load<ROWS>(top, bot, in2, R2, C2, x0, ty);
    for (;;) {
        /* block (a b / c d) -> output rows (a c) and (b d) */
#pragma unroll
        for (int k = 0; k < K; k++)
            tile[k * ROWS + threadIdx.y][threadIdx.x] =
                make_float4(top[k].x, bot[k].x, top[k].y, bot[k].y);
        __syncthreads();
        const bool more = ty + 1 < end;
        if (more)
            t2_load<ROWS>(top, bot, in2, R2, C2, x0, ty + 1);
        const long r2 = (long)ty * TILE + threadIdx.x;
#pragma unroll
        for (int k = 0; k < K; k++) {
            long cc2 = x0 + k * ROWS + threadIdx.y;
            if (cc2 < C2 && r2 < R2) {
                float4 v = tile[threadIdx.x][k * ROWS + threadIdx.y];
                out2[(idx_t)(2 * cc2) * R2 + r2] = make_float2(v.x, v.y);
                out2[(idx_t)(2 * cc2 + 1) * R2 + r2] = make_float2(v.z, v.w);
            }
        }
        if (!more)
            break;
        __syncthreads();
        ty++;
    }
}

/* ---- beyond the seeds: 16-byte accesses for every element type, any shape ---------- */

/* vec16: one kernel for 1, 2, 4 and 8-byte elements, any shape. Every global load and
 * store moves 16 bytes (V = 16 / E elements of E bytes), which 1 or 2-byte accesses cannot:
 * a warp's 1-byte access fills a quarter of a 128-byte line. doc/kernels.md draws it.
 * Tile: SEG = 128 bytes of input columns (TC = SEG / E) by 128 bytes of input rows
 * (TR = SEG / E). Measured on the H100 (doc/results/h100-2026-11-22-elements.md): 256-byte
 * segments were slower for 2 and 4-byte elements (16 threads per row put two threads on
 * each bank group in the shared stores); 128 rows for every type helped even shapes a
 * little and odd ones a lot less than this; a walk down the tile column with the next
 * tile's loads in flight and evict-first stores lost 4 to 12% of memcpy on bytes.
 * Loads: each input row's segment is read as the 16-byte chunks, aligned in memory, that
 * cover it, SEG / 16 threads per row. When cols * E is not a multiple of 16 the segment
 * starts d = (r * cols + x0) * E mod 16 bytes into its first chunk: one chunk more is read,
 * and each thread shifts its chunk into place with its neighbour's (a shuffle and funnel
 * shifts), so shared memory always holds the segment from its first byte; or, in clang's
 * build, the chunks go to shared memory as read and the writer adds d (TB_V16_RAW, below).
 * Stores: output row o is written in 16-byte vectors that start on 32-byte sectors: its
 * segment is shifted left by e_o = (o * rows) mod (32 / E) elements (0 when rows * E is a
 * multiple of 32), so the tile holds H = 32 / E rows above it too (mostly L2 hits: the tile
 * above read them). A warp writes NC output rows x NQ vectors (u8 16 x 2, f16 8 x 4, float
 * and double 4 x 8: whole sectors); a thread gathers its vector's V elements down one shared column and
 * stores them at once; vectors crossing the matrix edge are written element by element.
 * Banks: the shared row pitch is 33 words, so rows V apart are V banks apart, and a warp's
 * gathers touch 32 different banks (8-byte elements: pitch 34, a half-warp's 16 distinct).
 * The 8 threads storing a row's chunks and the 4 rows of a warp's stores also fall on 32
 * different banks. (Raw staging: pitch 37 or 69 words, the d offsets spread the gathers.) */

/* The 16 bytes at byte d (0..15) of the 32 in a ++ b (a first). d is the same for all the
 * threads of one row. */
__device__ __forceinline__ uint4 v16_realign(uint4 a, uint4 b, unsigned d)
{
    unsigned w[8] = { a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w };
    if (d & 8) {
#pragma unroll
        for (int i = 0; i < 6; i++)
            w[i] = w[i + 2];
    }
    if (d & 4) {
#pragma unroll
        for (int i = 0; i < 5; i++)
            w[i] = w[i + 1];
    }
    const unsigned s = (d & 3) * 8;
    return make_uint4(__funnelshift_r(w[0], w[1], s), __funnelshift_r(w[1], w[2], s),
                      __funnelshift_r(w[2], w[3], s), __funnelshift_r(w[3], w[4], s));
}

__device__ __forceinline__ uint4 v16_shfl_down(uint4 v, int width)
{
    const unsigned all = 0xffffffffu;
    return make_uint4(__shfl_down_sync(all, v.x, 1, width), __shfl_down_sync(all, v.y, 1, width),
                      __shfl_down_sync(all, v.z, 1, width), __shfl_down_sync(all, v.w, 1, width));
}

/* Reads the 16 bytes at byte `at` of the input: one load, or byte by byte for the last
 * chunk of the input when it runs past the end. */
__device__ __forceinline__ uint4 v16_load(const unsigned char *__restrict__ in, idx_t at, idx_t total)
{
    if (at + 16 <= total)
        return *reinterpret_cast<const uint4 *>(in + at);
    union { unsigned char b[16]; uint4 u; } t;
    for (int i = 0; i < 16; i++)
        t.b[i] = at + i < total ? in[at + i] : 0;
    return t.u;
}

/* The tile geometry of vec16 for element size E and THREADS threads. */
/* An element's bits as an unsigned integer of its size. */
template <int E> struct v16_bits;
template <> struct v16_bits<1> { typedef unsigned char t; };
template <> struct v16_bits<2> { typedef unsigned short t; };
template <> struct v16_bits<4> { typedef unsigned t; };
template <> struct v16_bits<8> { typedef unsigned long long t; };

/* Where input rows do not start on 16-byte chunks ("u" entries), nvcc's code realigns each
 * chunk in registers (a shuffle and funnel shifts, above); clang's stages the chunks as they
 * were read, one more per row, and the writer reads each shared row from its segment's offset
 * (a0 + l * cb) & 15 bytes in (TB_V16_RAW). Measured on the H100 (2026-11-23, each build 3
 * rounds, medians in GB/s): clang's realigning code took 69 registers at 256 threads (nvcc's
 * 61) and ran at 0.963-0.986 of nvcc's on u8 and f16 8191x12289 and 8192x12289; raw, it takes
 * 51 and runs at 0.992-1.000 (the Nano's sm_53 PTX 0.993-0.998). nvcc's own code raw lost 0 to
 * 1.8% (u8 8191x12289 2307 -> 2266), so nvcc keeps the realignment. -DTB_V16_RAW=0|1 in
 * KERNEL_FLAGS overrides the choice for an A/B. */
#ifndef TB_V16_RAW
#ifdef __clang__
#define TB_V16_RAW 1
#else
#define TB_V16_RAW 0
#endif
#endif
template <int E, int THREADS, bool ALIGNED, int SEGR = V16_SEGR(E, ALIGNED),
          int SEGC_ = V16_SEGC(E)> struct v16_geo {
    enum {
        V = 16 / E, SEG = SEGR, TR = SEG / E, H = 32 / E, NR = TR + H,
        SEGC = SEGC_,                            /* bytes of an input row a tile reads */
        TC = SEGC / E,
        LPR = SEGC / 16,                         /* threads (chunks) per input row */
        CPR = LPR + (TB_V16_RAW && !ALIGNED),    /* chunks per shared row: raw, one more */
        PW = CPR * 4 + (E == 8 ? 2 : 1),         /* shared pitch in words (8-byte aligned for E 8) */
        LOADS = (NR * CPR + THREADS - 1) / THREADS,
        NQ = (TR < 32 ? TR : 32) / V,            /* a warp: NC output rows x NQ vectors */
        NC = 32 / NQ, QW = TR / V / NQ,          /* QW warp tiles along a segment */
        WTILES = (TC / NC) * QW, WARPS = THREADS / 32
    };
};

/* One tile's input chunks, in registers: a thread's chunk, the row's extra chunk (read by
 * the row's last thread when the segment is not chunk-aligned), the segment's offset d. */
template <int LOADS> struct v16_strip {
    uint4 v[LOADS], x[LOADS];
    unsigned d[LOADS];
};

/* Issues every load of the tile whose first input row is rbase (shared row 0). */
template <int E, int THREADS, bool IN_ALIGNED, int LOADS, int SEGR = V16_SEGR(E, IN_ALIGNED),
          int SEGC = V16_SEGC(E)>
__device__ __forceinline__ void v16_fetch(v16_strip<LOADS> &s, const unsigned char *__restrict__ inb,
                                          long rows, long cols, long x0, long ncols, long rbase,
                                          int nrows, idx_t total)
{
    typedef v16_geo<E, THREADS, IN_ALIGNED, SEGR, SEGC> G;
#pragma unroll
    for (int k = 0; k < LOADS; k++) {
        const int idx = k * THREADS + (int)threadIdx.x;
        const int l = idx / G::CPR, ch = idx % G::CPR;
        const long r = rbase + l;
        s.v[k] = s.x[k] = make_uint4(0, 0, 0, 0);
        s.d[k] = 0;
        if (idx >= G::NR * G::CPR || l >= nrows || r < 0 || r >= rows)
            continue;
        const idx_t first = ((idx_t)r * cols + x0) * E;   /* the segment's first byte */
        const idx_t end = first + (idx_t)ncols * E;
        const idx_t at = (first & ~(idx_t)15) + 16 * (idx_t)ch;
        s.d[k] = (unsigned)(first & 15);
        if (at < end)
            s.v[k] = v16_load(inb, at, total);
        if (!TB_V16_RAW && !IN_ALIGNED && ch == G::LPR - 1 && at + 16 < end)
            s.x[k] = v16_load(inb, at + 16, total);
    }
}

/* Puts the fetched chunks into shared rows, each segment from its first byte. */
template <int E, int THREADS, bool IN_ALIGNED, int LOADS, int SEGR = V16_SEGR(E, IN_ALIGNED),
          int SEGC = V16_SEGC(E)>
__device__ __forceinline__ void v16_stage(const v16_strip<LOADS> &s, unsigned *sm)
{
    typedef v16_geo<E, THREADS, IN_ALIGNED, SEGR, SEGC> G;
#pragma unroll
    for (int k = 0; k < LOADS; k++) {
        const int idx = k * THREADS + (int)threadIdx.x;
        const int l = idx / G::CPR, ch = idx % G::CPR;
        uint4 c = s.v[k];
        if (!TB_V16_RAW && !IN_ALIGNED) {        /* every thread shuffles, in or out */
            uint4 n = v16_shfl_down(s.v[k], G::LPR);
            c = v16_realign(s.v[k], ch == G::LPR - 1 ? s.x[k] : n, s.d[k]);
        }
        if (idx < G::NR * G::CPR) {
            unsigned *p = sm + l * G::PW + 4 * ch;
            p[0] = c.x; p[1] = c.y; p[2] = c.z; p[3] = c.w;
        }
    }
}

/* The "e" entries: floats and doubles whose input rows do not start on 16-byte chunks, read
 * element by element (a warp still reads 128 or 256 contiguous bytes of a row) into the
 * shared row where the realigned chunks would have put them: no extra chunk, shuffle or
 * shift. Measured on the H100 where output rows are shifted too (odd row counts): float
 * 8191x12289 0.876 -> 0.923 of memcpy; where they are not (8192x12289) the realigning "u"
 * entries stay ahead (0.93 against 0.92), so the launcher takes "e" only with a halo. */
template <int E, int THREADS, typename T, int SEGR = V16_SEGR(E, false),
          int SEGC = V16_SEGC(E)>
__device__ __forceinline__ void v16_fetch_el(unsigned *sm, const T *__restrict__ in, long rows,
                                             long cols, long x0, long ncols, long rbase, int nrows)
{
    typedef v16_geo<E, THREADS, false, SEGR, SEGC> G;
    typedef typename v16_bits<E>::t B;
    const B *__restrict__ inw = reinterpret_cast<const B *>(in);
    B *smw = reinterpret_cast<B *>(sm);
    /* THREADS is a multiple of TC: a thread keeps its column and takes every RPK-th row */
    enum { RPK = THREADS / G::TC, N = (G::NR + RPK - 1) / RPK, PE = G::PW * 4 / E };
    const int c = (int)threadIdx.x % G::TC, l0 = (int)threadIdx.x / G::TC;
    const bool col_ok = c < ncols;
    const B *__restrict__ p = inw + (idx_t)(rbase + l0) * cols + x0 + c;
    const idx_t step = (idx_t)RPK * cols;
    B v[N];
#pragma unroll
    for (int k = 0; k < N; k++) {
        const int l = l0 + k * RPK;
        const long r = rbase + l;
        v[k] = col_ok && l < G::NR && l < nrows && r >= 0 && r < rows ? p[k * step] : (B)0;
    }
#pragma unroll
    for (int k = 0; k < N; k++) {
        const int l = l0 + k * RPK;
        if (l < G::NR)
            smw[l * PE + c] = v[k];
    }
}

/* Writes the staged tile: each warp NC output rows x NQ vectors at a time. */
template <typename T, int THREADS, bool IN_ALIGNED, int SEGR = V16_SEGR(sizeof(T), IN_ALIGNED),
          int SEGC = V16_SEGC(sizeof(T))>
__device__ __forceinline__ void v16_write(const unsigned *sm, T *__restrict__ out, long rows,
                                          long x0, long ncols, long y0, int halo, unsigned a0,
                                          unsigned cb)
{
    typedef v16_geo<sizeof(T), THREADS, IN_ALIGNED, SEGR, SEGC> G;
    const int E = sizeof(T), V = G::V;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned char *smb = reinterpret_cast<const unsigned char *>(sm);
#pragma unroll 1
    for (int w = warp; w < G::WTILES; w += G::WARPS) {
        const int oc = (w / G::QW) * G::NC + lane / G::NQ;     /* output row in tile */
        const int q = (w % G::QW) * G::NQ + lane % G::NQ;      /* vector in its segment */
        const long o = x0 + oc;
        if (oc >= ncols)
            continue;
        const int e = halo ? (int)(((idx_t)o * rows) & (32 / E - 1)) : 0;
        const long col = y0 - e + (long)q * V;                 /* first output column */
        /* the V elements packed into four words by shifts, then stored in one instruction:
         * with a union of T[V] and uint4 stored as C, nvcc emitted four 32-bit stores for
         * 2, 4 and 8-byte elements (PTX st.global.v2.u16 / .u32), four times the L2 write
         * sectors (Nsight Compute, 2026-11-22) */
        typedef typename v16_bits<E>::t B;   /* the element's bits, never its value */
        unsigned pk[4] = { 0, 0, 0, 0 };
        B el[V];
#pragma unroll
        for (int i = 0; i < V; i++) {
            const int l = halo - e + q * V + i;
            const unsigned d = TB_V16_RAW && !IN_ALIGNED ? (a0 + (unsigned)l * cb) & 15 : 0;
            el[i] = *reinterpret_cast<const B *>(smb + 4 * l * G::PW + oc * E + d);
            const unsigned long long x = el[i];
            if (E == 8) {
                pk[2 * i] = (unsigned)x;
                pk[2 * i + 1] = (unsigned)(x >> 32);
            } else {
                pk[(i * E) / 4] |= (unsigned)x << ((i * E * 8) % 32);
            }
        }
        B *dst = reinterpret_cast<B *>(out + (idx_t)o * rows + col);
        if (col >= 0 && col + V <= rows) {
            /* one 16-byte store, said in PTX: as C, nvcc split it into 32-bit stores next to
             * the element-wise edge path below */
            asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "r"(pk[0]),
                         "r"(pk[1]), "r"(pk[2]), "r"(pk[3]) : "memory");
        } else {
#pragma unroll
            for (int i = 0; i < V; i++)
                if (col + i >= 0 && col + i < rows)
                    dst[i] = el[i];
        }
    }
}

template <typename T, int THREADS, bool IN_ALIGNED, bool BY_ELEMENT,
          int SEGR = V16_SEGR(sizeof(T), IN_ALIGNED), int SEGC = V16_SEGC(sizeof(T))>
__device__ __forceinline__ void k_vec16(const T *__restrict__ in, T *__restrict__ out, long rows,
                                        long cols, unsigned tiles_y)
{
    typedef v16_geo<sizeof(T), THREADS, IN_ALIGNED, SEGR, SEGC> G;
    const int E = sizeof(T);
    __shared__ unsigned sm[G::NR * G::PW];
    const unsigned char *inb = reinterpret_cast<const unsigned char *>(in);
    const idx_t total = (idx_t)rows * cols * E;
    const long x0 = (long)blockIdx.x * G::TC;
    const int halo = (rows % (32 / E)) ? G::H : 0;
    const long ncols = cols - x0 < G::TC ? cols - x0 : G::TC;
    FOR_TILE_Y(tiles_y) {
        const long y0 = (long)ty_ * G::TR;
        if (BY_ELEMENT) {
            v16_fetch_el<E, THREADS, T, SEGR, SEGC>(sm, in, rows, cols, x0, ncols, y0 - halo,
                                              G::TR + halo);
        } else {
            v16_strip<G::LOADS> s;
            v16_fetch<E, THREADS, IN_ALIGNED, G::LOADS, SEGR, SEGC>(s, inb, rows, cols, x0, ncols,
                                                              y0 - halo, G::TR + halo, total);
            v16_stage<E, THREADS, IN_ALIGNED, G::LOADS, SEGR, SEGC>(s, sm);
        }
        __syncthreads();
        /* raw staging (TB_V16_RAW): shared row l starts with the chunk that holds its
         * segment's first byte, (a0 + l * cb) & 15 bytes into it; element reads have none */
        const unsigned a0 = BY_ELEMENT ? 0 : (unsigned)((y0 - halo) * cols + x0) * E;
        const unsigned cb = BY_ELEMENT ? 0 : (unsigned)cols * E;
        v16_write<T, THREADS, IN_ALIGNED, SEGR, SEGC>(sm, out, rows, x0, ncols, y0, halo, a0, cb);
        __syncthreads();
    }
}

/* ---- round 2: bperm16, byte and half-word blocks transposed in registers ----------- */

/* bperm16: 1 and 2-byte elements, any shape (doc/kernels.md, "bperm16"). vec16 gathers every
 * output vector element by element from shared memory (16 one-byte loads for u8) and holds a
 * tile of 128 bytes of rows. Here a thread reads four input rows of one 16-byte chunk (a 4 x 16
 * byte or 4 x 8 half block), transposes it in registers with byte permutes (prmt: 8 per 4 x 4
 * bytes, 2 per 2 x 2 halves) and stores one word (u8) or two (f16) per output row: shared
 * memory holds each output row's segment in the order it is written, and a 16-byte output
 * vector is 4 or 5 word loads and 4 funnel shifts (the output row's sector shift), not 16 byte
 * loads. Block (T, D): D slabs of 128 bytes of rows (the tile is 128 x D bytes of each column
 * deep, the halo included), T threads per slab, 256 / T blocks of 4 rows x 16 bytes per thread,
 * all loads in flight before the first permute. S: bytes of each input row a tile reads (128
 * for u8, 256 for f16; bperm16w: 256 for u8). Input rows off 16-byte chunks ("u"): each chunk
 * is realigned with its right neighbour's (a shuffle and funnel shifts, as vec16); the row's
 * last chunk is read only for that, so a tile covers one chunk fewer columns.
 * Stores: as vec16, each output row's segment shifted to start on a 32-byte sector (e(o) = (o x
 * rows) mod (32 / E), the halo rows above the tile), one st.global.v4 per 16 bytes, lanes in
 * pairs on a sector. Banks: shared rows are W + 1 (u8) or W + 2 (f16) words apart and the word
 * index is XOR-swizzled by the row (BP_SW), so that the staging stores of a warp (S / 16 chunks
 * x 512 / S row blocks) fall on 32 different banks (modelled; Nsight Compute counted 0.2M
 * shared conflicts per launch at u8 8191x12289 against vec16's 3.3M). */
#define BP_SW(E, S, c) ((E) == 2 ? (((c) >> 4) & 7) << 1 : (S) == 128 ? (((c) >> 5) & 3) << 2 \
                                                        : (((c) >> 5) & 7) << 1)

/* The 4 x 16-byte block r[0..3] (four input rows, one chunk) as output rows: u8, o[c] is column
 * c's 4 bytes (rows 0..3); f16, o[2c] and o[2c + 1] are column c's 4 halves. */
template <int E>
__device__ __forceinline__ void bp_transpose(const uint4 (&r)[4], unsigned (&o)[16])
{
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const unsigned a = j == 0 ? r[0].x : j == 1 ? r[0].y : j == 2 ? r[0].z : r[0].w;
        const unsigned b = j == 0 ? r[1].x : j == 1 ? r[1].y : j == 2 ? r[1].z : r[1].w;
        const unsigned c = j == 0 ? r[2].x : j == 1 ? r[2].y : j == 2 ? r[2].z : r[2].w;
        const unsigned d = j == 0 ? r[3].x : j == 1 ? r[3].y : j == 2 ? r[3].z : r[3].w;
        if (E == 1) {
            const unsigned t0 = __byte_perm(a, b, 0x5140), t1 = __byte_perm(a, b, 0x7362);
            const unsigned t2 = __byte_perm(c, d, 0x5140), t3 = __byte_perm(c, d, 0x7362);
            o[4 * j] = __byte_perm(t0, t2, 0x5410);       /* a0 b0 c0 d0 */
            o[4 * j + 1] = __byte_perm(t0, t2, 0x7632);   /* a1 b1 c1 d1 */
            o[4 * j + 2] = __byte_perm(t1, t3, 0x5410);
            o[4 * j + 3] = __byte_perm(t1, t3, 0x7632);
        } else {
            o[4 * j] = __byte_perm(a, b, 0x5410);         /* column 2j: rows 0, 1 */
            o[4 * j + 1] = __byte_perm(c, d, 0x5410);     /* rows 2, 3 */
            o[4 * j + 2] = __byte_perm(a, b, 0x7632);     /* column 2j + 1 */
            o[4 * j + 3] = __byte_perm(c, d, 0x7632);
        }
    }
}

/* The tile geometry of bperm16 for element size E, T x D threads, input rows on chunks or not,
 * S bytes of each input row. */
template <int E, int T, int D, bool AL, int S> struct bp_geo {
    enum {
        NR = BP_NR(E, D), H = BP_H(E), W = 32 * D, P = W + (E == 1 ? 1 : 2), V = 16 / E,
        LPR = S / 16,                             /* chunks (lanes) per input row */
        TC = BP_TC(E, S), TCX = AL ? TC : BP_TCU(E, S), NG = NR / 4, THREADS = T * D,
        ITEMS = NG * LPR / THREADS,               /* 4-row blocks per thread */
        NQ = 8, NC = 32 / NQ, QWN = W / 4 / NQ,   /* writer: a warp does NC rows x NQ vectors */
        WTILES = (TCX + NC - 1) / NC * QWN
    };
};

/* What every tile of a block shares: its columns, the matrix, the halo. */
struct bp_tile {
    long x0, ncols, rows, cols;
    int halo, trr;                                /* trr: output columns per tile */
    unsigned cb;                                  /* cols * E mod 16: each row's chunk offset */
};

/* Issues the loads of tile row ty's 4-row blocks, all before any is used. */
template <int E, int T, int D, bool AL, int S, int N>
__device__ __forceinline__ void bp_load(uint4 (&v)[N][4],
                                        const unsigned char *__restrict__ inb, const bp_tile &t,
                                        unsigned ty, int tid, idx_t total)
{
    typedef bp_geo<E, T, D, AL, S> G;
    const long rbase = (long)ty * t.trr - t.halo;
    /* A tile whose rows all lie in the matrix and whose last row's S bytes from its first
     * chunk lie in the input (every tile but the edges: block-uniform) loads each chunk
     * without checks, the row's first byte carried from row to row by one add. The chunks
     * read here that the checked path leaves 0 are past the segment's ncols (the writer
     * skips those columns) or the neighbour of a chunk realigned by 0 bytes (unused). */
    if (rbase >= 0 && rbase + G::NR <= t.rows &&
        ((idx_t)(rbase + G::NR - 1) * t.cols + t.x0) * E + S <= total) {
        const idx_t step = (idx_t)t.cols * E;
#pragma unroll
        for (int k = 0; k < G::ITEMS; k++) {
            const int u = k * G::THREADS + tid, ch = u % G::LPR, g = u / G::LPR;
            idx_t first = ((idx_t)(rbase + 4 * g) * t.cols + t.x0) * E;
#pragma unroll
            for (int i = 0; i < 4; i++, first += step)
                v[k][i] = *reinterpret_cast<const uint4 *>(inb + (first & ~(idx_t)15) + 16 * ch);
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < G::ITEMS; k++) {
        const int u = k * G::THREADS + tid, ch = u % G::LPR, g = u / G::LPR;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const long r = rbase + 4 * g + i;
            v[k][i] = make_uint4(0, 0, 0, 0);
            if (r < 0 || r >= t.rows)
                continue;
            const idx_t first = ((idx_t)r * t.cols + t.x0) * E;
            const idx_t at = (first & ~(idx_t)15) + 16 * (idx_t)ch;
            if (at < first + (idx_t)t.ncols * E)
                v[k][i] = v16_load(inb, at, total);
        }
    }
}

/* Realigns (u entries), transposes and stores the loaded blocks into the shared rows. */
template <int E, int T, int D, bool AL, int S, int N>
__device__ __forceinline__ void bp_stage(uint4 (&v)[N][4], unsigned *sm,
                                         const bp_tile &t, unsigned ty, int tid)
{
    typedef bp_geo<E, T, D, AL, S> G;
    const long rbase = (long)ty * t.trr - t.halo;
#pragma unroll
    for (int k = 0; k < G::ITEMS; k++) {
        const int u = k * G::THREADS + tid, ch = u % G::LPR, g = u / G::LPR;
        if (!AL) {                                /* every lane shuffles, in or out */
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const uint4 n = v16_shfl_down(v[k][i], G::LPR);
                const long r = rbase + 4 * g + i;
                v[k][i] = v16_realign(v[k][i], n, ((unsigned)r * t.cb) & 15);
            }
        }
        if (AL || ch != G::LPR - 1) {             /* a u row's last chunk: read for its neighbour */
            unsigned o[16];
            bp_transpose<E>(v[k], o);
#pragma unroll
            for (int m = 0; m < G::V; m++) {      /* column m of the chunk */
                const int c = ch * G::V + m;
                if (E == 1)
                    sm[c * G::P + (g ^ BP_SW(E, S, c))] = o[m];
                else
                    *reinterpret_cast<uint2 *>(sm + c * G::P + ((2 * g) ^ BP_SW(E, S, c))) =
                        make_uint2(o[2 * m], o[2 * m + 1]);
            }
        }
    }
}

/* Writes tile row ty from the shared rows: 16-byte vectors on sectors, edges element-wise. */
template <int E, int T, int D, bool AL, int S>
__device__ __forceinline__ void bp_write(const unsigned *sm, unsigned char *__restrict__ outb,
                                         const bp_tile &t, unsigned ty, int tid)
{
    typedef bp_geo<E, T, D, AL, S> G;
    typedef typename v16_bits<E>::t B;
    const int lane = tid & 31, warp = tid >> 5;
    const long y0 = (long)ty * t.trr;
    /* A warp's steps of THREADS / 32 warp tiles keep its vector q (QWN = D divides them) and
     * move its output row by T / 8: q is fixed, and the row's first element o x rows is
     * carried by one add per step rather than a 64-bit multiply. */
    static_assert((G::THREADS / 32) % G::QWN == 0, "a warp's vector must not change");
    const int q = (warp % G::QWN) * G::NQ + lane % G::NQ;      /* vector in its segment */
    if (q * G::V >= t.trr)
        return;
    int c = (warp / G::QWN) * G::NC + lane / G::NQ;            /* output row in tile */
    idx_t orow = (idx_t)(t.x0 + c) * t.rows;
    const int cstep = G::THREADS / 32 / G::QWN * G::NC;
    const idx_t ostep = (idx_t)cstep * t.rows;
#pragma unroll 1
    for (int w = warp; w < G::WTILES && c < t.ncols; w += G::THREADS / 32, c += cstep,
             orow += ostep) {
        const int e = t.halo ? (int)((unsigned)orow & (G::H - 1)) : 0;
        const long col = y0 - e + (long)q * G::V;              /* first output column */
        const int b = (t.halo - e) * E + 16 * q;               /* its byte in the shared row */
        const int w0 = b >> 2, sw = BP_SW(E, S, c);
        const unsigned s = (unsigned)(b & 3) * 8;
        const unsigned *row = sm + c * G::P;
        unsigned x[5];
#pragma unroll
        for (int j = 0; j < 4; j++)
            x[j] = row[(w0 + j) ^ sw];
        x[4] = s ? row[(w0 + 4) ^ sw] : 0u;       /* word W - 1 at most (b + 16 <= 4W) */
        unsigned pk[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            pk[j] = __funnelshift_r(x[j], x[j + 1], s);
        B *dst = reinterpret_cast<B *>(outb) + orow + col;
        if (col >= 0 && col + G::V <= t.rows) {
            asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "r"(pk[0]),
                         "r"(pk[1]), "r"(pk[2]), "r"(pk[3]) : "memory");
        } else {
#pragma unroll
            for (int i = 0; i < G::V; i++)
                if (col + i >= 0 && col + i < t.rows)
                    dst[i] = (B)(pk[(i * E) / 4] >> ((i * E * 8) % 32));
        }
    }
}

template <int E, int T, int D, bool AL, int S>
__device__ __forceinline__ void k_bperm16(const unsigned char *__restrict__ inb,
                                          unsigned char *__restrict__ outb, long rows, long cols,
                                          unsigned tiles_y)
{
    typedef bp_geo<E, T, D, AL, S> G;
    __shared__ __align__(16) unsigned sm[G::TC * G::P];
    const int tid = (int)(threadIdx.y * T + threadIdx.x);
    const idx_t total = (idx_t)rows * cols * E;
    bp_tile t;
    t.rows = rows;
    t.cols = cols;
    t.x0 = (long)blockIdx.x * G::TCX;
    t.halo = (rows % G::H) ? G::H : 0;
    t.trr = G::NR - t.halo;
    t.ncols = cols - t.x0 < G::TCX ? cols - t.x0 : G::TCX;
    t.cb = (unsigned)((cols * E) & 15);
    uint4 v[G::ITEMS][4];
    FOR_TILE_Y(tiles_y) {
        bp_load<E, T, D, AL, S>(v, inb, t, ty_, tid, total);
        bp_stage<E, T, D, AL, S>(v, sm, t, ty_, tid);
        __syncthreads();
        bp_write<E, T, D, AL, S>(sm, outb, t, ty_, tid);
        __syncthreads();
    }
}

/* ---- strip: one side of 64 elements or fewer, spanned whole by the tile (#53) ------- */

/* A short-and-wide matrix (61 x 100003) has as many output rows as input columns, each
 * 61 elements long: output rows are too short for a square tile to fill a sector, and the
 * tail of a 61-row matrix is most of it under a 32- or 64-row tile. But the output of L
 * input columns is one contiguous run of L x 61 elements; a tall-and-narrow matrix's input
 * is the same run the other way round. A strip block takes the short side S whole and L
 * elements of the long side (L x S x E near the block's 16 x threads x K bytes, launcher):
 * the contiguous side moves as 16-byte chunks straight between global memory and registers,
 * the S segments of the other side as the 16-byte chunks that cover them, staged in shared
 * memory (strip_geo.h), so every global access is a 16-byte chunk but at the segments' two
 * ends, whose chunks are shared with the neighbouring blocks and written element by element.
 * Each thread loads up to ST_BATCH chunks before it stores any (bytes in flight). */
#define ST_BATCH 4

/* n / d for n < 2^16 and 0 < d < 2^16 by a multiply-high with m = st_magic(d) =
 * ceil(2^32 / d) (exact there: Granlund and Montgomery, PLDI 1994, section 4): the strip
 * loops divide once per 16-byte chunk, and a division costs some twenty instructions. */
__device__ __forceinline__ unsigned st_magic(unsigned d) { return 0xffffffffu / d + 1u; }
/* m is 0 for d = 1 (2^32 wraps) */
__device__ __forceinline__ int st_div(int n, unsigned m) { return m ? (int)__umulhi((unsigned)n, m) : n; }

/* Element j (of 16 / E) of a 16-byte chunk held as four words, and the reverse. */
template <int E>
__device__ __forceinline__ typename v16_bits<E>::t st_get(const unsigned *w, int j)
{
    typedef typename v16_bits<E>::t U;
    if (E == 8)
        return (U)(w[2 * j] | ((unsigned long long)w[2 * j + 1] << 32));
    unsigned mask = E >= 4 ? 0xffffffffu : (1u << (8 * (E & 3))) - 1u;
    return (U)((w[j * E / 4] >> (8 * ((j * E) & 3))) & mask);
}
template <int E>
__device__ __forceinline__ void st_put(unsigned *w, int j, typename v16_bits<E>::t x)
{
    if (E == 8) {
        w[2 * j] = (unsigned)(unsigned long long)x;
        w[2 * j + 1] = (unsigned)((unsigned long long)x >> 32);
        return;
    }
    w[j * E / 4] |= (unsigned)x << (8 * ((j * E) & 3));
}

/* A 16-byte chunk into or out of a staged segment: the pitch keeps segments on 4 (8) bytes,
 * not 16, so four (two) accesses. */
template <int E>
__device__ __forceinline__ void st_sts(unsigned char *s, uint4 v)
{
    if (E == 8) {
        reinterpret_cast<uint2 *>(s)[0] = make_uint2(v.x, v.y);
        reinterpret_cast<uint2 *>(s)[1] = make_uint2(v.z, v.w);
    } else {
        unsigned *p = reinterpret_cast<unsigned *>(s);
        p[0] = v.x, p[1] = v.y, p[2] = v.z, p[3] = v.w;
    }
}
template <int E>
__device__ __forceinline__ uint4 st_lds(const unsigned char *s)
{
    if (E == 8) {
        uint2 a = reinterpret_cast<const uint2 *>(s)[0], b = reinterpret_cast<const uint2 *>(s)[1];
        return make_uint4(a.x, a.y, b.x, b.y);
    }
    const unsigned *p = reinterpret_cast<const unsigned *>(s);
    return make_uint4(p[0], p[1], p[2], p[3]);
}

/* Short and wide: rows <= ST_MAX. Block b: input columns c0 = b x L ... c0 + n - 1, every
 * row; its output is the bytes [c0 x rows x E, (c0 + n) x rows x E), one run. SKEW: the
 * segments staged with ST_SKEW (strip_geo.h; the launcher's "ws" entries, rows > ST_BIG). */
template <int E, int T, bool SKEW>
__device__ __forceinline__ void k_strip_w(const unsigned char *__restrict__ in,
                                          unsigned char *__restrict__ out, long rows, long cols,
                                          int L)
{
    typedef typename v16_bits<E>::t U;
    unsigned char *sm = dyn_smem<unsigned char>();
    const int R = (int)rows, cpr = ST_CPR(L, E), P = ST_PITCH(L, E);
    const long c0 = (long)blockIdx.x * L;
    const int n = (int)(cols - c0 < L ? cols - c0 : L);
    const idx_t total = (idx_t)rows * (idx_t)cols * E;
    const unsigned m_cpr = st_magic(cpr), m_r = st_magic(R);
    /* the S input segments, chunk by chunk: row r's chunk q at r x P + 16 q */
    for (int base = threadIdx.x; base < R * cpr; base += ST_BATCH * T) {
        uint4 v[ST_BATCH];
        int at[ST_BATCH];
#pragma unroll
        for (int u = 0; u < ST_BATCH; u++) {
            int it = base + u * T;
            at[u] = -1;
            if (it >= R * cpr)
                continue;
            int r = st_div(it, m_cpr), q = it - r * cpr;
            idx_t a = ((idx_t)r * cols + c0) * E, g = (a >> 4) + q;
            if (g <= ((a + (idx_t)n * E - 1) >> 4)) {
                v[u] = v16_load(in, g * 16, total);
                at[u] = r * P + (SKEW ? ST_SKEW(r, E) : 0) + 16 * q;
            }
        }
#pragma unroll
        for (int u = 0; u < ST_BATCH; u++)
            if (at[u] >= 0)
                st_sts<E>(sm + at[u], v[u]);
    }
    __syncthreads();
    /* the output run, chunk by chunk: element k of the run is (row k mod R, column k / R);
     * row r's segment starts s_r = ((r x cols + c0) x E) mod 16 bytes into its first chunk */
    const idx_t A = (idx_t)c0 * R * E, B = A + (idx_t)n * R * E;
    const int s0 = (int)((c0 * E) & 15), d = (int)((cols * E) & 15), nr = n * R;
    for (idx_t g = (A >> 4) + threadIdx.x; g <= ((B - 1) >> 4); g += T) {
        int k = (int)((long)(g * 16 - A) / E), k0 = k < 0 ? 0 : k;
        int c = st_div(k0, m_r), r = k0 - c * R;
        bool full = g * 16 >= A && g * 16 + 16 <= B;
        unsigned w[4] = { 0, 0, 0, 0 };
        if (full) {
            /* every element of the chunk is the block's: no checks, and the staged offset
             * r x P + s_r + c x E and the skew carried from one element to the next */
            int sr = (s0 + r * d) & 15, off = r * P + sr + c * E, sk = SKEW ? ST_SKEW(r, E) : 0;
#pragma unroll
            for (int j = 0; j < 16 / E; j++) {
                st_put<E>(w, j, *reinterpret_cast<const U *>(sm + off + sk));
                if (++r == R) {
                    r = 0, c++, sr = s0, off = s0 + c * E, sk = 0;
                } else {
                    sr += d, off += P + d;
                    if (sr >= 16)
                        sr -= 16, off -= 16;
                    if (SKEW && (r & (ST_SKEW_G(E) - 1)) == 0)
                        sk += ST_SKEW_W(E);
                }
            }
            *reinterpret_cast<uint4 *>(out + g * 16) = make_uint4(w[0], w[1], w[2], w[3]);
            continue;
        }
#pragma unroll
        for (int j = 0; j < 16 / E; j++, k++) {
            if (k < 0)
                continue;
            if (k < nr)
                *reinterpret_cast<U *>(out + g * 16 + j * E) = *reinterpret_cast<const U *>(
                    sm + r * P + (SKEW ? ST_SKEW(r, E) : 0) + ((s0 + r * d) & 15) + c * E);
            if (++r == R)
                r = 0, c++;
        }
    }
}

/* Tall and narrow: cols <= ST_MAX. Block b: input rows r0 = b x L ... r0 + n - 1, one run
 * of bytes [r0 x cols x E, (r0 + n) x cols x E); output row c's segment is staged at c x P
 * from the start of its first chunk, t_c = ((c x rows + r0) x E) mod 16 bytes in. Each output
 * chunk is written whole by the block in whose segment it starts: the block stages ST_HALO(E)
 * rows more (16 bytes of each output row past its segment, read again by the next block), so
 * only the first block writes a column's head chunk in part, and the last block its tail. */
template <int E, int T>
__device__ __forceinline__ void k_strip_n(const unsigned char *__restrict__ in,
                                          unsigned char *__restrict__ out, long rows, long cols,
                                          int L)
{
    typedef typename v16_bits<E>::t U;
    unsigned char *sm = dyn_smem<unsigned char>();
    const int C = (int)cols, cpr = ST_CPR(L, E), P = ST_PITCH(L + ST_HALO(E), E);
    const long r0 = (long)blockIdx.x * L;
    const int n = (int)(rows - r0 < L ? rows - r0 : L);
    const int nh = (int)(rows - r0 < L + ST_HALO(E) ? rows - r0 : L + ST_HALO(E));
    const idx_t total = (idx_t)rows * (idx_t)cols * E;
    const idx_t A = (idx_t)r0 * C * E, B = A + (idx_t)nh * C * E;
    const idx_t g_end = (B - 1) >> 4;
    const int t0 = (int)((r0 * E) & 15), d = (int)((rows * E) & 15), nc = nh * C;
    const unsigned m_cpr = st_magic(cpr), m_c = st_magic(C);
    for (idx_t base = (A >> 4) + threadIdx.x; base <= g_end; base += ST_BATCH * T) {
        uint4 v[ST_BATCH];
#pragma unroll
        for (int u = 0; u < ST_BATCH; u++)
            if (base + u * T <= g_end)
                v[u] = v16_load(in, (base + u * T) * 16, total);
#pragma unroll
        for (int u = 0; u < ST_BATCH; u++) {
            idx_t g = base + u * T;
            if (g > g_end)
                break;
            const unsigned w[4] = { v[u].x, v[u].y, v[u].z, v[u].w };
            int k = (int)((long)(g * 16 - A) / E), k0 = k < 0 ? 0 : k;
            int r = st_div(k0, m_c), c = k0 - r * C;
            if (k >= 0 && k + 16 / E <= nc) {
                /* the whole chunk is the block's: the offset c x P + t_c + r x E carried */
                int tc = (t0 + c * d) & 15, off = c * P + tc + r * E;
#pragma unroll
                for (int j = 0; j < 16 / E; j++) {
                    *reinterpret_cast<U *>(sm + off) = st_get<E>(w, j);
                    if (++c == C) {
                        c = 0, r++, tc = t0, off = t0 + r * E;
                    } else {
                        tc += d, off += P + d;
                        if (tc >= 16)
                            tc -= 16, off -= 16;
                    }
                }
                continue;
            }
#pragma unroll
            for (int j = 0; j < 16 / E; j++, k++) {
                if (k < 0)
                    continue;
                if (k < nc)
                    *reinterpret_cast<U *>(sm + c * P + ((t0 + c * d) & 15) + r * E) =
                        st_get<E>(w, j);
                if (++c == C)
                    c = 0, r++;
            }
        }
    }
    __syncthreads();
    for (int it = threadIdx.x; it < C * cpr; it += T) {
        int c = st_div(it, m_cpr), q = it - c * cpr;
        idx_t a = ((idx_t)c * rows + r0) * E, e = a + (idx_t)n * E, gb = ((a >> 4) + q) * 16;
        idx_t eh = a + (idx_t)nh * E;   /* the staged end: e + 16, or the column's end */
        if (gb >= e || (gb < a && r0 > 0))
            continue;   /* the next block's chunk, or the previous block's */
        const unsigned char *s = sm + c * P + 16 * q;
        if (gb >= a && gb + 16 <= eh) {
            *reinterpret_cast<uint4 *>(out + gb) = st_lds<E>(s);
            continue;
        }
        for (idx_t b = gb > a ? gb : a; b < eh && b < gb + 16; b += E)
            *reinterpret_cast<U *>(out + b) = *reinterpret_cast<const U *>(s + (b - gb));
    }
}

/* ---- strip8: bytes, a short side of 512 or fewer, short and wide (#61) -------------- */

/* strip's writer gathers each output chunk byte by byte from 16 staged segments (Nsight
 * Compute at u8 257x65537: 0.9 warp instructions a byte, the SM busy, DRAM idle). strip8
 * moves the transpose into registers and shared memory holds the block's output run itself
 * (strip_geo.h): a thread reads 4 input rows x 16 columns (each row's 16 bytes realigned from
 * the two 16-byte chunks that cover them), transposes the four 4x4 byte blocks with byte
 * permutes (`prmt`, 8 a block) into 16 words, column j's rows 4 rg ... 4 rg + 3, and stores
 * each where the output run has it, j x S + 4 rg; the writer then copies the run out as
 * aligned 16-byte chunks. A word's place is on 4 bytes only when j x S + run offset is: the
 * others go as two halves or a byte, a half and a byte, the same split for the whole warp
 * (4 rg is a multiple of 4 and 16 cc S too, so it depends on j mod 4 alone). The realignment
 * and the permutes are strip8_ops.h's, which the host's tests run too. */

/* Word w (rows 0 ... 3 in bytes 0 ... 3) at byte p of shared memory, p mod 4 = a. */
__device__ __forceinline__ void s8_put(unsigned char *sm, int p, int a, unsigned w)
{
    if (a == 0) {
        *reinterpret_cast<unsigned *>(sm + p) = w;
    } else if (a == 2) {
        reinterpret_cast<unsigned short *>(sm + p)[0] = (unsigned short)w;
        reinterpret_cast<unsigned short *>(sm + p)[1] = (unsigned short)(w >> 16);
    } else {
        sm[p] = (unsigned char)w;
        *reinterpret_cast<unsigned short *>(sm + p + 1) = (unsigned short)(w >> 8);
        sm[p + 3] = (unsigned char)(w >> 24);
    }
}

/* Stages one item: rows' 16 bytes in y[0 ... 3], its 16 columns from column j0 of the block,
 * rows from 4 rg; nr rows of the 4 and nc columns of the 16 lie in the matrix. Column j's
 * rows go to j x S + 4 rg + sh, whose alignment is al[j mod 4]. */
__device__ __forceinline__ void s8_stage(unsigned char *sm, const uint4 y[4], int p0, int S,
                                         const int al[4], int nr, int nc)
{
    const unsigned w0[4] = { y[0].x, y[0].y, y[0].z, y[0].w };
    const unsigned w1[4] = { y[1].x, y[1].y, y[1].z, y[1].w };
    const unsigned w2[4] = { y[2].x, y[2].y, y[2].z, y[2].w };
    const unsigned w3[4] = { y[3].x, y[3].y, y[3].z, y[3].w };
    if (nr == 4 && nc == 16) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            unsigned c[4];
            s8_t4(w0[k], w1[k], w2[k], w3[k], c);
#pragma unroll
            for (int jj = 0; jj < 4; jj++)
                s8_put(sm, p0 + (4 * k + jj) * S, al[jj], c[jj]);
        }
        return;
    }
    /* an edge item: byte by byte, the rows and columns in the matrix only */
    for (int k = 0; k < 4; k++) {
        unsigned c[4];
        s8_t4(w0[k], w1[k], w2[k], w3[k], c);
        for (int jj = 0; jj < 4 && 4 * k + jj < nc; jj++)
            for (int i = 0; i < nr; i++)
                sm[p0 + (4 * k + jj) * S + i] = (unsigned char)(c[jj] >> (8 * i));
    }
}

/* Short and wide: rows = S <= ST_MAX, a block's L columns (the launcher's, in `pad`, a
 * multiple of 16); NB items a thread in flight (loads all issued before the first permute).
 * AL: every input row starts on 16 bytes (cols a multiple of 16), so no realignment. */
template <int T, int NB, bool AL>
__device__ __forceinline__ void k_strip8(const unsigned char *__restrict__ in,
                                         unsigned char *__restrict__ out, long rows, long cols,
                                         int L)
{
    unsigned char *sm = dyn_smem<unsigned char>();
    const int S = (int)rows, NG = (S + 3) >> 2, ncc = L >> 4, ccw = ST8_CCW(S, L);
    const int lg = ccw == 8 ? 3 : ccw == 4 ? 2 : ccw == 2 ? 1 : 0;
    const long c0 = (long)blockIdx.x * L;
    const int n = (int)(cols - c0 < L ? cols - c0 : L), ni = NG * ncc;
    const idx_t total = (idx_t)rows * (idx_t)cols, A = (idx_t)c0 * S, B = A + (idx_t)n * S;
    const int sh = (int)(A & 15);
    const unsigned m_ng = st_magic(NG);
    int al[4];
#pragma unroll
    for (int jj = 0; jj < 4; jj++)
        al[jj] = (jj * S + sh) & 3;
    for (int base = threadIdx.x; base < ni; base += NB * T) {
        uint4 v[NB][4], x[NB][4];
        int rg[NB], cc[NB];
#pragma unroll
        for (int u = 0; u < NB; u++) {
            const int it = base + u * T, rest = it >> lg;
            rg[u] = -1;
            if (it >= ni)
                continue;
            const int hi = st_div(rest, m_ng);
            rg[u] = rest - hi * NG, cc[u] = (hi << lg) + (it & (ccw - 1));
            if (16 * cc[u] >= n)
                continue;
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int r = 4 * rg[u] + i;
                const idx_t a = (idx_t)(r < S ? r : S - 1) * cols + c0 + 16 * cc[u];
                if (AL) {
                    v[u][i] = v16_load(in, a, total);
                } else {
                    v[u][i] = v16_load(in, a & ~(idx_t)15, total);
                    x[u][i] = v16_load(in, (a & ~(idx_t)15) + 16, total);
                }
            }
        }
#pragma unroll
        for (int u = 0; u < NB; u++) {
            if (rg[u] < 0 || 16 * cc[u] >= n)
                continue;
            uint4 y[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int r = 4 * rg[u] + i;
                const unsigned o = (unsigned)((((idx_t)(r < S ? r : S - 1) * cols + c0) & 15));
                if (AL) {
                    y[i] = v[u][i];
                } else {
                    const unsigned w[8] = { v[u][i].x, v[u][i].y, v[u][i].z, v[u][i].w,
                                            x[u][i].x, x[u][i].y, x[u][i].z, x[u][i].w };
                    unsigned z[4];
                    s8_realign(w, o, z);
                    y[i] = make_uint4(z[0], z[1], z[2], z[3]);
                }
            }
            const int nr = S - 4 * rg[u] < 4 ? S - 4 * rg[u] : 4;
            const int nc = n - 16 * cc[u] < 16 ? n - 16 * cc[u] : 16;
            s8_stage(sm, y, 16 * cc[u] * S + 4 * rg[u] + sh, S, al, nr, nc);
        }
    }
    __syncthreads();
    /* the run out: shared byte sh + k is the run's byte k, global A + k */
    const idx_t a16 = A & ~(idx_t)15;
    for (idx_t g = (A >> 4) + threadIdx.x; g <= ((B - 1) >> 4); g += T) {
        const idx_t b0 = g * 16;
        if (b0 >= A && b0 + 16 <= B) {
            *reinterpret_cast<uint4 *>(out + b0) =
                *reinterpret_cast<const uint4 *>(sm + (b0 - a16));
            continue;
        }
        for (idx_t b = b0 > A ? b0 : A; b < B && b < b0 + 16; b++)
            out[b] = sm[b - a16];
    }
}

/* ---- entry points: extern "C", one per kernel, variant and element size ------------ */

/* Every entry takes the same parameters, so that one argument list launches any of them.
 * clang emits read-only loads (ld.global.nc) only when the entry's own pointers are
 * __restrict__ (the inner functions' qualifiers do not survive its inlining); nvcc does from
 * the inner functions, and would change code measured without it, so only clang sees them. */
#ifdef __clang__
#define TB_ENTRY_RESTRICT __restrict__
#else
#define TB_ENTRY_RESTRICT
#endif
#define TB_PARAMS const void *TB_ENTRY_RESTRICT in, void *TB_ENTRY_RESTRICT out, long rows, \
    long cols, unsigned tiles_y, int pad
#define TB_ENTRY(name, call, T, bytes)                                                     \
    extern "C" __global__ void tb_##name##_##bytes(TB_PARAMS)                              \
    {                                                                                      \
        typedef T E;                                                                       \
        const E *i_ = (const E *)in;                                                       \
        E *o_ = (E *)out;                                                                  \
        (void)pad;                                                                         \
        call;                                                                              \
    }
#define TB_ENTRY_ALL(name, call)                                                           \
    TB_ENTRY(name, call, unsigned char, 1)                                                 \
    TB_ENTRY(name, call, unsigned short, 2)                                                \
    TB_ENTRY(name, call, float, 4)                                                         \
    TB_ENTRY(name, call, unsigned long long, 8)

TB_ENTRY_ALL(copy_row, k_copy_row<E>(i_, o_, rows, cols, tiles_y))
TB_ENTRY_ALL(copy_col, k_copy_col<E>(i_, o_, rows, cols, tiles_y))
TB_ENTRY_ALL(copy_smem, k_copy_smem<E>(i_, o_, rows, cols, tiles_y))
TB_ENTRY_ALL(naive_row, k_naive_row<E>(i_, o_, rows, cols, tiles_y))
TB_ENTRY_ALL(naive_col, k_naive_col<E>(i_, o_, rows, cols, tiles_y))
TB_ENTRY_ALL(unroll4_row, k_unroll4_row<E>(i_, o_, rows, cols, tiles_y))
TB_ENTRY_ALL(unroll4_col, k_unroll4_col<E>(i_, o_, rows, cols, tiles_y))
TB_ENTRY_ALL(diagonal_row, k_diagonal_row<E>(i_, o_, rows, cols, tiles_y))
TB_ENTRY_ALL(diagonal_col, k_diagonal_col<E>(i_, o_, rows, cols, tiles_y))
TB_ENTRY_ALL(smem, k_smem<E>(i_, o_, rows, cols, tiles_y, pad))
TB_ENTRY_ALL(smem_rect1, (k_smem_rect<E, 1>(i_, o_, rows, cols, tiles_y, pad)))
TB_ENTRY_ALL(smem_rect2, (k_smem_rect<E, 2>(i_, o_, rows, cols, tiles_y, pad)))

/* tiled: TILE x ROWS threads for every shape the table's rule allows */
#define TB_TILED(t, r) TB_ENTRY_ALL(tiled_##t##x##r, (k_tiled<E, t, r>(i_, o_, rows, cols, tiles_y)))
TB_TILED(16, 1) TB_TILED(16, 2) TB_TILED(16, 4) TB_TILED(16, 8) TB_TILED(16, 16)
TB_TILED(32, 1) TB_TILED(32, 2) TB_TILED(32, 4) TB_TILED(32, 8) TB_TILED(32, 16) TB_TILED(32, 32)
TB_TILED(64, 1) TB_TILED(64, 2) TB_TILED(64, 4) TB_TILED(64, 8) TB_TILED(64, 16)

/* TB_OCC (an A/B knob in KERNEL_FLAGS, off by default: no entry changes without it): the
 * wide-load kernels' entries ask for TB_OCC / threads blocks per SM (-DTB_OCC=2048: every
 * thread slot, 32 registers), for measuring whether more warps in flight beat the registers
 * the compiler would rather use (#41: the H200 profiles show 50-75% occupancy, warps waiting
 * on memory). */
#ifdef TB_OCC
#define TB_MINB(n) , (TB_OCC / (n) > 32 ? 32 : TB_OCC / (n))
#else
#define TB_MINB(n)
#endif

/* float-only kernels, with launch bounds for their fixed block shapes */
#define TB_FLOAT_ENTRY(name, threads, call)                                                \
    extern "C" __global__ void __launch_bounds__(threads TB_MINB(threads)) tb_##name##_4(TB_PARAMS) \
    {                                                                                      \
        (void)pad;                                                                         \
        call;                                                                              \
    }
#define TB_ALIGNED64(r) TB_FLOAT_ENTRY(aligned64_##r, AL_TILE * r, \
    k_aligned64<r>((const float *)in, (float *)out, rows, cols, tiles_y))
#define TB_TILE2X2(r) TB_FLOAT_ENTRY(tile2x2_##r, 32 * r, \
    k_tile2x2<r>((const float *)in, (float *)out, rows, cols, tiles_y))
TB_ALIGNED64(4) TB_ALIGNED64(8) TB_ALIGNED64(16)
TB_TILE2X2(4) TB_TILE2X2(8) TB_TILE2X2(16)

/* vec16: every element size, 128, 256 or 512 threads; input rows on 16-byte chunks (a) or
 * not (u: chunks realigned; e: floats and doubles read element by element) */
#define TB_VEC16_ONE(t, bounds, al, el, sfx, T, bytes)                                    \
    extern "C" __global__ void bounds tb_vec16_##t##sfx##_##bytes(TB_PARAMS)               \
    {                                                                                      \
        (void)pad;                                                                         \
        k_vec16<T, t, al, el>((const T *)in, (T *)out, rows, cols, tiles_y);               \
    }
/* The "e" entries are held to 1536 threads' worth of registers per SM (at most 40) where an SM
 * holds 2048 threads (sm_53 to sm_72, sm_80, sm_90; no spills): float 8191x12289 0.916 ->
 * 0.929 of memcpy on the H100 (the only one measured). Where it holds fewer (sm_75, sm_86,
 * sm_87, sm_89) they keep the compiler's choice, as the a and u entries do everywhere: a
 * bound of one block per SM let those grow and lose occupancy. clang's code needs 55
 * registers there: held to 40 it spilled and fell to 0.879 (H100, 2026-11-23, A/B on one
 * machine); unbound it runs at nvcc's speed (0.926-0.927 against 0.928), so clang keeps its
 * own choice everywhere. */
#if defined(__clang__) || (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 750 || __CUDA_ARCH__ == 860 || \
                                                      __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890))
#define TB_VEC16_E_BOUNDS(t) __launch_bounds__(t)
#else
#define TB_VEC16_E_BOUNDS(t) __launch_bounds__(t, 1536 / (t))
#endif
/* The "u" entries of floats and doubles under clang read element by element, as the "e" ones:
 * clang's realigning code ran at 0.85 of nvcc's at float 8192x12289 (0.79 of memcpy against
 * 0.93; held to nvcc's occupancy, 0.76), while its element reads run at nvcc's speed (H100,
 * 2026-11-23, A/B on one machine). The launcher's choice of entry stays the same.
 * -DTB_V16_U_EL=0|1 in KERNEL_FLAGS overrides the choice for an A/B. */
#ifdef TB_V16_U_EL
#define TB_V16_U_EL_SET 1
#else
#define TB_V16_U_EL_SET 0
#ifdef __clang__
#define TB_V16_U_EL 1
#else
#define TB_V16_U_EL 0
#endif
#endif
#define TB_VEC16_U_EL(T) (TB_V16_U_EL && sizeof(T) >= 4)
#define TB_VEC16_AU(t, T, bytes)                                                           \
    TB_VEC16_ONE(t, __launch_bounds__(t TB_MINB(t)), true, false, a, T, bytes)            \
    TB_VEC16_ONE(t, __launch_bounds__(t TB_MINB(t)), false, TB_VEC16_U_EL(T), u, T, bytes)
#define TB_VEC16_E(t, T, bytes) TB_VEC16_ONE(t, TB_VEC16_E_BOUNDS(t), false, true, e, T, bytes)
#define TB_VEC16(t)                                                                        \
    TB_VEC16_AU(t, unsigned char, 1) TB_VEC16_AU(t, unsigned short, 2)                     \
    TB_VEC16_AU(t, float, 4) TB_VEC16_E(t, float, 4)                                       \
    TB_VEC16_AU(t, unsigned long long, 8) TB_VEC16_E(t, unsigned long long, 8)
TB_VEC16(128) TB_VEC16(256) TB_VEC16(512)

/* vec16d: floats and doubles, vec16's code with the tile's depth in the block: block (T, D) is
 * T x D threads launched as one dimension and a tile 128 x D bytes of input rows deep (T = 64,
 * 128 or 256, D = 2 or 4). The rows above the tile (the halo, 32 bytes of rows where output
 * rows are off sectors) cost 1/D of what they cost vec16's 128-byte "u" and "e" tiles, and each
 * thread has D times the loads in flight (#41: the H200 needs about 45% more bytes in flight
 * per SM than the H100 for the same fraction of memcpy). Launch bounds: the thread count only
 * (the "e" entries' 40-register cap of vec16 would spill the deeper element reads; TB_MINB is
 * empty unless TB_OCC is set). TB_VEC16X_* write vec16d's and vec16w's entries. */
#define TB_VEC16X_ONE(name, t, d, segc, al, el, sfx, T, bytes)                            \
    extern "C" __global__ void __launch_bounds__(t * d TB_MINB(t * d)) tb_##name##_##t##x##d##sfx##_##bytes( \
        TB_PARAMS)                                                                         \
    {                                                                                      \
        (void)pad;                                                                         \
        k_vec16<T, t * d, al, el, V16D_SEGR(d), segc>((const T *)in, (T *)out, rows, cols, \
                                                      tiles_y);                            \
    }
/* Their float "u" entries read element by element under nvcc too from sm_90 on (nvcc's
 * realigning code against its element reads, float 8192x12289, 3 rounds each on one machine,
 * 2026-11-26: vec16d 0.845-0.848 -> 0.935-0.946 of memcpy on an H100 and 0.712 -> 0.904-0.912
 * on an H200, vec16w 0.925-0.936 -> 0.944-0.956 and 0.792-0.801 -> 0.915-0.921); doubles keep
 * the realignment (-1.3% to +0.4% on the H100, level on the H200), and so does vec16 (floats
 * -1.5% on the H100), and nvcc's code for the Jetsons' SMs (not measured there). */
#if !TB_V16_U_EL_SET && !defined(__clang__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TB_VEC16X_U_EL(T) (sizeof(T) == 4)
#else
#define TB_VEC16X_U_EL(T) TB_VEC16_U_EL(T)
#endif
#define TB_VEC16X_T(name, segc, t, d, T, bytes)                                           \
    TB_VEC16X_ONE(name, t, d, segc, true, false, a, T, bytes)                              \
    TB_VEC16X_ONE(name, t, d, segc, false, TB_VEC16X_U_EL(T), u, T, bytes)                 \
    TB_VEC16X_ONE(name, t, d, segc, false, true, e, T, bytes)
#define TB_VEC16D(t, d)                                                                    \
    TB_VEC16X_T(vec16d, V16_SEGC(4), t, d, float, 4)                                       \
    TB_VEC16X_T(vec16d, V16_SEGC(8), t, d, unsigned long long, 8)
TB_VEC16D(64, 2) TB_VEC16D(128, 2) TB_VEC16D(256, 2)
TB_VEC16D(64, 4) TB_VEC16D(128, 4) TB_VEC16D(256, 4)

/* vec16w: floats and doubles, vec16's code with 512-byte input segments (128 floats or 64
 * doubles of each row, V16W_SEGC) and 128 x D bytes of rows deep; block (T, D) is T x D
 * threads in one dimension (T = 128, 256 or 512, D = 1 or 2, at most 1024). Where input rows
 * are off 32-byte sectors (odd cols) a segment touches one sector more per 16 instead of per 8,
 * and two of its five 128-byte lines are shared with the neighbouring tiles instead of two of
 * three. */
#define TB_VEC16W(t, d)                                                                    \
    TB_VEC16X_T(vec16w, V16W_SEGC, t, d, float, 4)                                         \
    TB_VEC16X_T(vec16w, V16W_SEGC, t, d, unsigned long long, 8)
TB_VEC16W(128, 1) TB_VEC16W(256, 1) TB_VEC16W(512, 1)
TB_VEC16W(128, 2) TB_VEC16W(256, 2) TB_VEC16W(512, 2)

/* bperm16: 1 and 2-byte elements; T threads x D slabs (blocks 64x1 to 256x2), 128-byte (u8)
 * or 256-byte (f16) input segments; bperm16w: u8 with 256-byte segments, 256 or 512 threads,
 * one slab. Input rows on 16-byte chunks (a) or not (u). */
/* The Orin (sm_87; ptxas of nvcc 13, doc/results/logs/perf61-2026-12-07/ptxas-sm87-*.txt):
 * round 4 (#53) cost six u8 entries a block per SM to registers (bperm16 128x1u 9 -> 8, 256x1u
 * 6 -> 5, 128x2a and 128x2u 4 -> 3; bperm16w 256x1a and 256x1u 4 -> 3). Their bounds ask for
 * round 3's blocks again (#61): n, the last argument of an entry below (0: no bound). Only
 * those six: a bound of one block would not be neutral, ptxas gives an entry so bounded up
 * to 33 registers more than with none (tried: 18 of the 22 others moved). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 870 && !defined(TB_OCC)
#define TB_BP87(th, n) , n
#else
#define TB_BP87(th, n) TB_MINB(th)
#endif
#define TB_BPB_0(th) TB_MINB(th)
#define TB_BPB_4(th) TB_BP87(th, 4)
#define TB_BPB_6(th) TB_BP87(th, 6)
#define TB_BPB_9(th) TB_BP87(th, 9)
#define TB_BPERM_ONE(name, t, d, al, seg, sfx, bytes, n)                                   \
    extern "C" __global__ void __launch_bounds__(t * d TB_BPB_##n(t * d))                  \
        tb_##name##_##t##x##d##sfx##_##bytes(TB_PARAMS)                                    \
    {                                                                                      \
        (void)pad;                                                                         \
        k_bperm16<bytes, t, d, al, seg>((const unsigned char *)in, (unsigned char *)out,   \
                                        rows, cols, tiles_y);                              \
    }
/* na, nu: the sm_87 bounds of the "a" and "u" entries */
#define TB_BPERM_AU(name, t, d, bytes, seg, na, nu)                                        \
    TB_BPERM_ONE(name, t, d, true, seg, a, bytes, na)                                      \
    TB_BPERM_ONE(name, t, d, false, seg, u, bytes, nu)
#define TB_BPERM(t, d, na, nu)                                                             \
    TB_BPERM_AU(bperm16, t, d, 1, 128, na, nu) TB_BPERM_AU(bperm16, t, d, 2, 256, 0, 0)
TB_BPERM(64, 1, 0, 0) TB_BPERM(128, 1, 0, 9) TB_BPERM(256, 1, 0, 6)
TB_BPERM(64, 2, 0, 0) TB_BPERM(128, 2, 4, 4) TB_BPERM(256, 2, 0, 0)
TB_BPERM_AU(bperm16w, 256, 1, 1, 256, 4, 4) TB_BPERM_AU(bperm16w, 512, 1, 1, 256, 0, 0)

/* strip: short and wide (w; ws: with the skewed staging) or tall and narrow (n), 128, 256 or
 * 512 threads; the launcher passes L, the long side's elements per block, in `pad`
 * (strip_geo.h). */
#define TB_STRIP_ONE(v, call, t, bytes)                                                    \
    extern "C" __global__ void __launch_bounds__(t) tb_strip_##v##_##t##_##bytes(TB_PARAMS) \
    {                                                                                      \
        (void)tiles_y;                                                                     \
        call((const unsigned char *)in, (unsigned char *)out, rows, cols, pad);            \
    }
#define TB_STRIP_E(t, e)                                                                   \
    TB_STRIP_ONE(w, (k_strip_w<e, t, false>), t, e)                                        \
    TB_STRIP_ONE(ws, (k_strip_w<e, t, true>), t, e)                                        \
    TB_STRIP_ONE(n, (k_strip_n<e, t>), t, e)
#define TB_STRIP(t) TB_STRIP_E(t, 1) TB_STRIP_E(t, 2) TB_STRIP_E(t, 4) TB_STRIP_E(t, 8)
TB_STRIP(128) TB_STRIP(256) TB_STRIP(512)

/* strip8 (bytes, short and wide): rows on 16 bytes or not (a, u), T threads x NB items in
 * flight; the launcher passes L in `pad` (strip_geo.h). */
#define TB_STRIP8_ONE(t, nb, al, sfx)                                                      \
    extern "C" __global__ void __launch_bounds__(t) tb_strip8_##t##x##nb##sfx##_1(TB_PARAMS) \
    {                                                                                      \
        (void)tiles_y;                                                                     \
        k_strip8<t, nb, al>((const unsigned char *)in, (unsigned char *)out, rows, cols, pad); \
    }
#define TB_STRIP8(t, nb) TB_STRIP8_ONE(t, nb, true, a) TB_STRIP8_ONE(t, nb, false, u)
TB_STRIP8(128, 1) TB_STRIP8(256, 1) TB_STRIP8(512, 1)
TB_STRIP8(128, 2) TB_STRIP8(256, 2) TB_STRIP8(512, 2)

/* ---- support: input fill and the SM clock probe ------------------------------------ */

extern "C" __global__ void tb_fill_pattern(void *dst, size_t count, int elem,
                                           unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        tb_pattern_store(dst, elem, seed, i);
}

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread spins for about 200 us and counts SM cycles against the global timer
 * (clock64 against %globaltimer works on Jetson, where NVML does not report clocks). */
extern "C" __global__ void tb_clock_probe(unsigned long long *out)
{
    unsigned long long t0 = global_ns(), t1;
    long long c0 = clock64(), c1;
    do {
        t1 = global_ns();
        c1 = clock64();
    } while (t1 - t0 < 200000ull);
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = t1 - t0;
}
