/* cuda_launch.c: the GPU kernels' geometry, plain C. Each picks the grid and the name of the
 * entry point in the embedded images (cuda_transpose.cu: tb_<kernel>[_<variant>]_<bytes>)
 * for one launch; the CUDA backend loads and launches it (nothing here calls up into a
 * backend). The rules here mirror the table's: a shape the table forbids never gets here,
 * and is refused with -EINVAL if it does. Grids: gridDim.y is capped at 65535 and the
 * kernels loop over the tile rows beyond. */
#include <errno.h>
#include <stdio.h>

#include "kernels.h"
#include "bperm_geo.h"
#include "vec16_geo.h"
#include "strip_geo.h"

#define MAX_GRID_Y 65535u

static unsigned div_up(long a, long b) { return (unsigned)((a + b - 1) / b); }

/* Grid with x over xs elements (xper per block) and y over ys (yper per block). */
static struct tb_grid grid_for(unsigned bx, unsigned by, long xs, long xper, long ys, long yper)
{
    struct tb_grid g = { .bx = bx, .by = by };
    g.tiles_y = div_up(ys, yper);
    g.gx = div_up(xs, xper);
    g.gy = g.tiles_y < MAX_GRID_Y ? g.tiles_y : MAX_GRID_Y;
    return g;
}

/* Names the entry "tb_<base>_<element bytes>" and hands g back. */
static int entry(const char *base, const struct tb_grid *g, const struct tb_launch *l,
                 struct tb_grid *out)
{
    *out = *g;
    snprintf(out->entry, sizeof(out->entry), "tb_%s_%d", base, l->elem_size);
    return 0;
}

/* One thread per element; x over `xs`, y over `ys` (rows or cols, by kernel). */
static int simple(const char *base, const struct tb_launch *l, long xs, long ys, struct tb_grid *out)
{
    struct tb_grid g = grid_for(l->block_x, l->block_y, xs, l->block_x, ys, l->block_y);
    return entry(base, &g, l, out);
}

int tb_cuda_copy_row(const struct tb_launch *l, struct tb_grid *g)
{
    return simple("copy_row", l, l->cols, l->rows, g);
}
int tb_cuda_copy_col(const struct tb_launch *l, struct tb_grid *g)
{
    return simple("copy_col", l, l->cols, l->rows, g);
}
int tb_cuda_naive_row(const struct tb_launch *l, struct tb_grid *g)
{
    return simple("naive_row", l, l->cols, l->rows, g);
}
int tb_cuda_naive_col(const struct tb_launch *l, struct tb_grid *g)
{
    return simple("naive_col", l, l->rows, l->cols, g);
}
int tb_cuda_diagonal_row(const struct tb_launch *l, struct tb_grid *g)
{
    return simple("diagonal_row", l, l->cols, l->rows, g);
}
int tb_cuda_diagonal_col(const struct tb_launch *l, struct tb_grid *g)
{
    return simple("diagonal_col", l, l->rows, l->cols, g);
}

int tb_cuda_copy_smem(const struct tb_launch *l, struct tb_grid *out)
{
    struct tb_grid g = grid_for(l->block_x, l->block_y, l->cols, l->block_x, l->rows,
                                l->block_y);
    g.smem = (unsigned)(l->block_x * l->block_y * l->elem_size);
    return entry("copy_smem", &g, l, out);
}

/* Four elements per thread along x. */
static int unroll4(const char *base, const struct tb_launch *l, long xs, long ys,
                   struct tb_grid *out)
{
    struct tb_grid g = grid_for(l->block_x, l->block_y, xs, 4L * l->block_x, ys, l->block_y);
    return entry(base, &g, l, out);
}

int tb_cuda_unroll4_row(const struct tb_launch *l, struct tb_grid *g)
{
    return unroll4("unroll4_row", l, l->cols, l->rows, g);
}
int tb_cuda_unroll4_col(const struct tb_launch *l, struct tb_grid *g)
{
    return unroll4("unroll4_col", l, l->rows, l->cols, g);
}

/* Square tile of side block.x, padded by pad columns in shared memory. */
static int smem(const struct tb_launch *l, int pad, struct tb_grid *out)
{
    struct tb_grid g = grid_for(l->block_x, l->block_y, l->cols, l->block_x, l->rows,
                                l->block_x);
    g.smem = (unsigned)(l->block_x * (l->block_x + pad) * l->elem_size);
    g.pad = pad;
    return entry("smem", &g, l, out);
}

int tb_cuda_smem(const struct tb_launch *l, struct tb_grid *g) { return smem(l, 0, g); }
int tb_cuda_smem_pad(const struct tb_launch *l, struct tb_grid *g) { return smem(l, 1, g); }

/* Rectangular tile of block.y rows x unroll * block.x columns. */
static int rect(const struct tb_launch *l, int unroll, int pad, struct tb_grid *out)
{
    struct tb_grid g = grid_for(l->block_x, l->block_y, l->cols, (long)unroll * l->block_x,
                                l->rows, l->block_y);
    g.smem = (unsigned)(l->block_y * (unroll * l->block_x + pad) * l->elem_size);
    g.pad = pad;
    return entry(unroll == 2 ? "smem_rect2" : "smem_rect1", &g, l, out);
}

int tb_cuda_smem_rect(const struct tb_launch *l, struct tb_grid *g) { return rect(l, 1, 0, g); }
int tb_cuda_smem_rect_pad(const struct tb_launch *l, struct tb_grid *g)
{
    return rect(l, 1, 1, g);
}
int tb_cuda_smem_unroll_pad(const struct tb_launch *l, struct tb_grid *g)
{
    return rect(l, 2, 1, g);
}

/* TILE x TILE tile moved by TILE x ROWS threads: block.x = TILE, block.y = ROWS. */
int tb_cuda_tiled(const struct tb_launch *l, struct tb_grid *out)
{
    int t = l->block_x, r = l->block_y;
    if ((t != 16 && t != 32 && t != 64) || r < 1 || t % r || t * r > 1024)
        return -EINVAL;   /* the table's rule forbids it */
    struct tb_grid g = grid_for(t, r, l->cols, t, l->rows, t);
    char base[32];
    snprintf(base, sizeof(base), "tiled_%dx%d", t, r);
    return entry(base, &g, l, out);
}

/* 64 x 64 tiles of output columns; shifted segments reach up to 7 past the last tile, and
 * each block walks down up to 4 tiles. Floats only. */
int tb_cuda_aligned64(const struct tb_launch *l, struct tb_grid *out)
{
    int r = l->block_y;
    if (l->block_x != 64 || (r != 4 && r != 8 && r != 16) || l->elem_size != 4)
        return -EINVAL;
    struct tb_grid g = grid_for(64, r, l->cols, 64, l->rows + 8 - 1, 64);
    unsigned walk = div_up(g.tiles_y, 4);
    g.gy = walk < MAX_GRID_Y ? walk : MAX_GRID_Y;
    char base[32];
    snprintf(base, sizeof(base), "aligned64_%d", r);
    return entry(base, &g, l, out);
}

/* Even-shaped float matrices as 2x2 blocks: a 32 x 32 tile of blocks per thread block. */
int tb_cuda_tile2x2(const struct tb_launch *l, struct tb_grid *out)
{
    int r = l->block_y;
    if (l->block_x != 32 || (r != 4 && r != 8 && r != 16) || l->elem_size != 4 ||
        l->rows % 2 || l->cols % 2)
        return -EINVAL;
    struct tb_grid g = grid_for(32, r, l->cols / 2, 32, l->rows / 2, 32);
    char base[32];
    snprintf(base, sizeof(base), "tile2x2_%d", r);
    return entry(base, &g, l, out);
}

/* Any element size: a tile of V16_SEGC bytes of input columns by V16_SEGR bytes of input
 * rows (vec16_geo.h), with 32 bytes of rows more above it when output rows do not start on
 * 32-byte sectors (their segments are shifted up to that much: one more tile row covers the
 * last). Entry tb_vec16_<threads><a|u|e>_<bytes>: "a" when every input row starts on a 16-byte
 * chunk; else "e" for floats and doubles with shifted output rows (each element read as
 * itself), "u" otherwise (chunks realigned in registers). */
int tb_cuda_vec16(const struct tb_launch *l, struct tb_grid *out)
{
    int t = l->block_x, e = l->elem_size;
    if ((t != 128 && t != 256 && t != 512) || l->block_y != 1 ||
        (e != 1 && e != 2 && e != 4 && e != 8))
        return -EINVAL;
    long halo = (l->rows % (32 / e)) ? 32 / e - 1 : 0;
    int aligned = (l->cols * e) % 16 == 0;
    struct tb_grid g = grid_for((unsigned)t, 1, l->cols, V16_SEGC(e) / e, l->rows + halo,
                                V16_SEGR(e, aligned) / e);
    char base[32];
    snprintf(base, sizeof(base), "vec16_%d%c", t, aligned ? 'a' : e >= 4 && halo ? 'e' : 'u');
    return entry(base, &g, l, out);
}

/* Floats and doubles: vec16's tile V16_SEGC bytes wide and 128 x D bytes of input rows deep,
 * T x D threads launched as one dimension (block 64, 128 or 256 x 2 or 4). Entry
 * tb_vec16d_<T>x<D><a|u|e>_<bytes>, a/u/e as vec16 chooses them. */
static int vec16_deep(const char *name, int segc, const struct tb_launch *l, struct tb_grid *out)
{
    int t = l->block_x, d = l->block_y, e = l->elem_size;
    long halo = (l->rows % (32 / e)) ? 32 / e - 1 : 0;
    int aligned = (l->cols * e) % 16 == 0;
    struct tb_grid g = grid_for((unsigned)(t * d), 1, l->cols, segc / e, l->rows + halo,
                                V16D_SEGR(d) / e);
    char base[32];
    snprintf(base, sizeof(base), "%s_%dx%d%c", name, t, d, aligned ? 'a' : halo ? 'e' : 'u');
    return entry(base, &g, l, out);
}

int tb_cuda_vec16d(const struct tb_launch *l, struct tb_grid *out)
{
    int t = l->block_x, d = l->block_y, e = l->elem_size;
    if ((t != 64 && t != 128 && t != 256) || (d != 2 && d != 4) || (e != 4 && e != 8))
        return -EINVAL;
    return vec16_deep("vec16d", V16_SEGC(e), l, out);
}

/* Floats and doubles, 512 bytes of each input row (V16W_SEGC), 128 x D bytes of rows deep,
 * T x D threads in one dimension (block 128, 256 or 512 x 1 or 2, at most 1024 threads). */
int tb_cuda_vec16w(const struct tb_launch *l, struct tb_grid *out)
{
    int t = l->block_x, d = l->block_y, e = l->elem_size;
    if ((t != 128 && t != 256 && t != 512) || (d != 1 && d != 2) || (e != 4 && e != 8))
        return -EINVAL;
    return vec16_deep("vec16w", V16W_SEGC, l, out);
}

/* 1 and 2-byte elements: block (T, D) = D slabs of 128 bytes of input rows, T threads each,
 * seg bytes of each input row (bperm_geo.h). A tile is BP_NR rows deep, the halo included:
 * where output rows are shifted to sectors (rows * E not a multiple of 32) it writes BP_NR -
 * BP_H of them, and one more tile row covers the last shifted segment (as vec16). Entry
 * tb_<name>_<T>x<D><a|u>_<bytes>: "a" when every input row starts on a 16-byte chunk, else "u"
 * (chunks realigned, one fewer per tile: BP_TCU columns). */
static int bperm(const char *name, int seg, const struct tb_launch *l, struct tb_grid *out)
{
    int t = l->block_x, d = l->block_y, e = l->elem_size;
    long h = BP_H(e), halo = l->rows % h ? h : 0;
    int aligned = (l->cols * e) % 16 == 0;
    struct tb_grid g = grid_for((unsigned)t, (unsigned)d, l->cols,
                                aligned ? BP_TC(e, seg) : BP_TCU(e, seg),
                                l->rows + (halo ? h - 1 : 0), BP_NR(e, d) - halo);
    char base[32];
    snprintf(base, sizeof(base), "%s_%dx%d%c", name, t, d, aligned ? 'a' : 'u');
    return entry(base, &g, l, out);
}

/* u8 with 128-byte input segments, f16 with 256: blocks 64, 128 or 256 x 1 or 2. */
int tb_cuda_bperm16(const struct tb_launch *l, struct tb_grid *out)
{
    int t = l->block_x, d = l->block_y, e = l->elem_size;
    if ((t != 64 && t != 128 && t != 256) || (d != 1 && d != 2) || (e != 1 && e != 2))
        return -EINVAL;
    return bperm("bperm16", e == 1 ? 128 : 256, l, out);
}

/* u8 with 256-byte input segments (one sector more per 8 read instead of per 4 where rows are
 * not on sectors): one slab, 256 or 512 threads. */
int tb_cuda_bperm16w(const struct tb_launch *l, struct tb_grid *out)
{
    if ((l->block_x != 256 && l->block_x != 512) || l->block_y != 1 || l->elem_size != 1)
        return -EINVAL;
    return bperm("bperm16w", 256, l, out);
}

/* Shared memory of a strip block: S segments of L elements (short and wide over ST_BIG: and
 * the skew; tall and narrow: and the halo). */
static long strip_smem(long s, long L, int e, int wide)
{
    if (!wide)
        return s * ST_PITCH(L + ST_HALO(e), e);
    return s * ST_PITCH(L, e) + (s > ST_BIG ? ST_SKEW(s - 1, e) : 0);
}

/* strip (#53, #61): one side of ST_MAX elements or fewer, the tile spans it. Block T x K: T
 * threads, a tile of about 16 x T x K bytes, so L = 16 T K / (S E) elements of the long side a
 * block (at least ST_BIG_SEG bytes where S > ST_BIG, 2 elements or more below: 16 x 128 /
 * (128 x 8); down to whole 16-byte chunks where that leaves any), passed to the entry in `pad`;
 * one row of blocks; shared memory holds the S staged segments (strip_geo.h; tall and narrow:
 * L and the halo), at most ST_SMEM_MAX. Short and wide ("w", over ST_BIG "ws") where rows <=
 * cols, else tall and narrow ("n"). */
int tb_cuda_strip(const struct tb_launch *l, struct tb_grid *out)
{
    int t = l->block_x, k = l->block_y, e = l->elem_size;
    int wide = l->rows <= l->cols;
    long s = wide ? l->rows : l->cols, len = wide ? l->cols : l->rows;
    if ((t != 128 && t != 256 && t != 512) || (k != 1 && k != 2 && k != 4) || t * k > 1024 ||
        s > ST_MAX || s < 1 || (e != 1 && e != 2 && e != 4 && e != 8))
        return -EINVAL;
    long L = 16L * t * k / (s * e), unit = 16 / e;
    if (s > ST_BIG && L * e < ST_BIG_SEG)
        L = ST_BIG_SEG / e;
    if (L >= 2 * unit)
        L -= L % unit;
    if (L > len)
        L = len;
    while (L > unit && strip_smem(s, L, e, wide) > ST_SMEM_MAX)
        L -= unit;
    struct tb_grid g = { .gx = div_up(len, L), .gy = 1, .bx = (unsigned)t, .by = 1, .tiles_y = 1 };
    g.smem = (unsigned)strip_smem(s, L, e, wide);
    g.pad = (int)L;
    snprintf(g.entry, sizeof(g.entry), "tb_strip_%s_%d_%d", !wide ? "n" : s > ST_BIG ? "ws" : "w",
             t, e);
    *out = g;
    return 0;
}

/* strip8 (#61): bytes, short and wide (rows <= cols, rows <= ST_MAX). Block T x NB: T threads,
 * NB items of 4 rows x 16 columns each in flight; L, the block's columns, about 64 x T x NB /
 * rows bytes (each thread about NB items), a multiple of 16 x ST8_CCW0(rows) (the lanes'
 * columns), shared memory ST8_SMEM at most ST_SMEM_MAX: L shrinks by that unit until it fits,
 * then (S 385 to 512, S odd) halves, so that the kernel's lanes keep a power of two of
 * chunks along a row (ST8_CCW); passed to the entry in `pad`. Entries "a" where input rows
 * start on 16 bytes (cols a multiple of 16), else "u" (strip_geo.h). */
int tb_cuda_strip8(const struct tb_launch *l, struct tb_grid *out)
{
    int t = l->block_x, nb = l->block_y;
    long s = l->rows;
    if ((t != 128 && t != 256 && t != 512) || (nb != 1 && nb != 2) || l->elem_size != 1 ||
        s < 1 || s > ST_MAX || s > l->cols)
        return -EINVAL;
    long unit = 16L * ST8_CCW0(s), L = 64L * t * nb / s, cols16 = (l->cols + 15) / 16 * 16;
    L = L < unit ? unit : L - L % unit;
    while (L > unit && ST8_SMEM(s, L) > ST_SMEM_MAX)
        L -= unit;
    while (L > 16 && ST8_SMEM(s, L) > ST_SMEM_MAX)
        L /= 2;   /* from unit, a power of two: the lanes' chunks halve with it */
    if (L > cols16)
        L = cols16;
    struct tb_grid g = { .gx = div_up(l->cols, L), .gy = 1, .bx = (unsigned)t, .by = 1,
                         .tiles_y = 1 };
    g.smem = (unsigned)ST8_SMEM(s, L);
    g.pad = (int)L;
    snprintf(g.entry, sizeof(g.entry), "tb_strip8_%dx%d%s_1", t, nb, l->cols % 16 ? "u" : "a");
    *out = g;
    return 0;
}
