/* test_kernels.c: the kernel table's consistency, the CPU kernels against the seeds'
 * naive loop on awkward shapes and every element size, and the block rules. */
#include "helpers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "pattern.h"
#include "strip_geo.h"
#include "strip8_ops.h"

static void test_table_consistent(void **state)
{
    int per_backend_ref[2] = { 0, 0 };
    for (const struct tb_kernel *k = tb_kernels; k->name; k++) {
        assert_true(strlen(k->name) > 0 && strlen(k->name) < 32);
        assert_non_null(k->description);
        assert_non_null(k->rule_text);
        assert_true(k->bytes_factor == 2.0);       /* a transpose reads and writes each element */
        /* float everywhere but in the kernels written for 1 and 2-byte elements (#41) */
        int small_only = !strncmp(k->name, "bperm16", 7) || !strcmp(k->name, "strip8");
        if (small_only)
            assert_int_equal(k->elem_sizes & ~((1u << 1) | (1u << 2)), 0);
        else
            assert_true(k->elem_sizes & (1u << 4));
        /* other sizes wherever the kernel does not count floats itself */
        if (strcmp(k->name, "aligned64") && strcmp(k->name, "tile2x2") &&
            strcmp(k->name, "cublas_geam") && strcmp(k->name, "vec16d") &&
            strcmp(k->name, "vec16w") && !small_only)
            assert_int_equal(k->elem_sizes, (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8));
        /* a row is in the build (CPU code; a GPU geometry or a built-in) or says why not */
        if (k->backend == TB_BACKEND_CPU)
            assert_true(k->launch != NULL && k->geometry == NULL && tb_kernel_built(k));
        else if (tb_kernel_built(k))
            assert_true(k->launch == NULL &&
                        (k->geometry != NULL) != ((k->flags & TB_KF_BUILTIN) != 0));
        else
            assert_non_null(strstr(k->unavailable, "kernel images"));
        if (k->flags & TB_KF_COPY_REF) {
            per_backend_ref[k->backend]++;
            assert_true(k->flags & TB_KF_COPY);
        }
        for (const struct tb_kernel *q = k + 1; q->name; q++)
            assert_false(q->backend == k->backend && !strcmp(q->name, k->name));
        assert_ptr_equal(tb_kernel_find(k->name, k->backend), k);
    }
    assert_int_equal(per_backend_ref[TB_BACKEND_CPU], 1);
    assert_int_equal(per_backend_ref[TB_BACKEND_CUDA], 1);
    assert_string_equal(tb_kernel_copy_ref(TB_BACKEND_CUDA)->name, "memcpy");
    assert_null(tb_kernel_find("nope", TB_BACKEND_CPU));
    /* every kernel the CUDA issue names is in the table */
    const char *want[] = { "copy_row", "copy_col", "copy_smem", "memcpy", "naive_row", "naive_col",
                           "unroll4_row", "unroll4_col", "diagonal_row", "diagonal_col", "smem",
                           "smem_pad", "smem_rect", "smem_rect_pad", "smem_unroll_pad", "tiled",
                           "vec16", "bperm16", "bperm16w", "vec16d", "vec16w",
                           "strip", "strip8", "cublas_geam" };
    for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
        assert_non_null(tb_kernel_find(want[i], TB_BACKEND_CUDA));
}

static void test_block_rules(void **state)
{
    char why[160];
    const struct tb_kernel *smem = tb_kernel_find("smem_pad", TB_BACKEND_CUDA);
    assert_int_equal(tb_kernel_block_ok(smem, 32, 32, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(smem, 32, 8, why, sizeof(why)), 0);
    assert_string_equal(why, "square tile: needs block.x == block.y, got 32x8");
    const struct tb_kernel *tiled = tb_kernel_find("tiled", TB_BACKEND_CUDA);
    assert_int_equal(tb_kernel_block_ok(tiled, 32, 8, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(tiled, 64, 16, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(tiled, 32, 6, why, sizeof(why)), 0);
    assert_int_equal(tb_kernel_block_ok(tiled, 256, 1, why, sizeof(why)), 0);
    const struct tb_kernel *memcpy_k = tb_kernel_find("memcpy", TB_BACKEND_CUDA);
    assert_int_equal(tb_kernel_block_ok(memcpy_k, 7, 3, why, sizeof(why)), 1); /* no block */
    const struct tb_kernel *vec16 = tb_kernel_find("vec16", TB_BACKEND_CUDA);
    assert_int_equal(vec16->elem_sizes, (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8));
    assert_int_equal(tb_kernel_block_ok(vec16, 256, 1, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(vec16, 32, 8, why, sizeof(why)), 0);
    assert_string_equal(why, "vec16: needs block 128x1, 256x1 or 512x1, got 32x8");
    /* bperm16: T threads x D slabs, bytes and halves only; bperm16w: bytes only */
    const struct tb_kernel *bp = tb_kernel_find("bperm16", TB_BACKEND_CUDA);
    assert_int_equal(bp->elem_sizes, (1u << 1) | (1u << 2));
    assert_int_equal(tb_kernel_block_ok(bp, 64, 2, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(bp, 256, 1, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(bp, 512, 1, why, sizeof(why)), 0);
    assert_int_equal(tb_kernel_block_ok(bp, 128, 4, why, sizeof(why)), 0);
    const struct tb_kernel *bw = tb_kernel_find("bperm16w", TB_BACKEND_CUDA);
    assert_int_equal(bw->elem_sizes, 1u << 1);
    assert_int_equal(tb_kernel_block_ok(bw, 512, 1, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(bw, 128, 1, why, sizeof(why)), 0);
    assert_string_equal(why, "bperm16w: needs block 256x1 or 512x1, got 128x1");
    /* vec16d: T threads x D slabs of rows (the tile's depth), floats and doubles only */
    const struct tb_kernel *vd = tb_kernel_find("vec16d", TB_BACKEND_CUDA);
    assert_non_null(vd);
    assert_int_equal(vd->elem_sizes, (1u << 4) | (1u << 8));
    assert_int_equal(tb_kernel_block_ok(vd, 64, 4, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(vd, 256, 2, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(vd, 256, 1, why, sizeof(why)), 0);
    assert_int_equal(tb_kernel_block_ok(vd, 512, 2, why, sizeof(why)), 0);
    assert_string_equal(why, "vec16d: needs block 64, 128 or 256 x 2 or 4 (threads x 128-byte "
                             "slabs of rows), got 512x2");
    const struct tb_kernel *vw = tb_kernel_find("vec16w", TB_BACKEND_CUDA);
    assert_non_null(vw);
    assert_int_equal(vw->elem_sizes, (1u << 4) | (1u << 8));
    assert_int_equal(tb_kernel_block_ok(vw, 512, 2, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(vw, 128, 1, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_block_ok(vw, 64, 2, why, sizeof(why)), 0);
    assert_int_equal(tb_kernel_block_ok(vw, 256, 4, why, sizeof(why)), 0);
}

/* The launchers pick the entry the images hold and a grid that covers the matrix: bperm16's
 * tile is 128 columns (112 where rows are off 16-byte chunks) and 128 x D bytes of rows, the
 * 32-byte halo included where output rows are off sectors. */
static void test_bperm16_geometry(void **state)
{
    struct tb_grid g;
    struct tb_launch l = { 0 };
    l.rows = 8192; l.cols = 8192; l.block_x = 256; l.block_y = 2; l.elem_size = 1;
    assert_int_equal(tb_cuda_bperm16(&l, &g), 0);
    assert_string_equal(g.entry, "tb_bperm16_256x2a_1");
    assert_int_equal(g.gx, 64);            /* 8192 / 128 columns */
    assert_int_equal(g.tiles_y, 32);       /* 8192 / 256 rows, no halo */
    assert_int_equal(g.bx, 256);
    assert_int_equal(g.by, 2);
    l.rows = 8191; l.cols = 12289;         /* rows off sectors, cols off chunks */
    assert_int_equal(tb_cuda_bperm16(&l, &g), 0);
    assert_string_equal(g.entry, "tb_bperm16_256x2u_1");
    assert_int_equal(g.gx, (12289 + 111) / 112);
    assert_int_equal(g.tiles_y, (8191 + 31 + 223) / 224);   /* 256 rows less the 32 of the halo */
    l.elem_size = 2; l.block_y = 1;        /* f16: 64 rows deep, a 16-row halo, 120 columns */
    assert_int_equal(tb_cuda_bperm16(&l, &g), 0);
    assert_string_equal(g.entry, "tb_bperm16_256x1u_2");
    assert_int_equal(g.gx, (12289 + 119) / 120);
    assert_int_equal(g.tiles_y, (8191 + 15 + 47) / 48);
    l.elem_size = 4;
    assert_int_equal(tb_cuda_bperm16(&l, &g), -EINVAL);
    l.elem_size = 1; l.block_x = 512;
    assert_int_equal(tb_cuda_bperm16(&l, &g), -EINVAL);
    assert_int_equal(tb_cuda_bperm16w(&l, &g), 0);
    assert_string_equal(g.entry, "tb_bperm16w_512x1u_1");
    assert_int_equal(g.gx, (12289 + 239) / 240);
}

/* vec16d launches T x D threads as one dimension over a tile 128 x D bytes of rows deep: at
 * float 8191x12289 (rows off sectors, cols off chunks) the "e" entry, 64 columns a tile and
 * 128 x 4 / 4 = 128 rows (the 7-row halo in the grid); doubles 8192x8192 the "a" entry. */
static void test_vec16d_geometry(void **state)
{
    struct tb_grid g;
    struct tb_launch l = { 0 };
    l.rows = 8191; l.cols = 12289; l.block_x = 128; l.block_y = 4; l.elem_size = 4;
    assert_int_equal(tb_cuda_vec16d(&l, &g), 0);
    assert_string_equal(g.entry, "tb_vec16d_128x4e_4");
    assert_int_equal(g.bx, 512);
    assert_int_equal(g.by, 1);
    assert_int_equal(g.gx, (12289 + 63) / 64);
    assert_int_equal(g.tiles_y, (8191 + 7 + 127) / 128);
    l.rows = 8192;                         /* output rows on sectors, input rows off chunks */
    assert_int_equal(tb_cuda_vec16d(&l, &g), 0);
    assert_string_equal(g.entry, "tb_vec16d_128x4u_4");
    assert_int_equal(g.tiles_y, 64);
    l.cols = 8192; l.elem_size = 8; l.block_x = 64; l.block_y = 2;
    assert_int_equal(tb_cuda_vec16d(&l, &g), 0);
    assert_string_equal(g.entry, "tb_vec16d_64x2a_8");
    assert_int_equal(g.bx, 128);
    assert_int_equal(g.gx, 8192 / 32);     /* 256 bytes of each row: 32 doubles */
    assert_int_equal(g.tiles_y, 8192 / 32);   /* 256 bytes of rows deep: 32 doubles */
    l.elem_size = 2;
    assert_int_equal(tb_cuda_vec16d(&l, &g), -EINVAL);
    l.elem_size = 4; l.block_y = 1;
    assert_int_equal(tb_cuda_vec16d(&l, &g), -EINVAL);
    /* vec16w: 512 bytes of each row (128 floats), T x D threads, 128 x D bytes deep */
    l.rows = 8191; l.cols = 12289; l.block_x = 512; l.block_y = 2;
    assert_int_equal(tb_cuda_vec16w(&l, &g), 0);
    assert_string_equal(g.entry, "tb_vec16w_512x2e_4");
    assert_int_equal(g.bx, 1024);
    assert_int_equal(g.gx, (12289 + 127) / 128);
    assert_int_equal(g.tiles_y, (8191 + 7 + 63) / 64);
    l.block_x = 64;
    assert_int_equal(tb_cuda_vec16w(&l, &g), -EINVAL);
}

/* Every CPU kernel, every element size, awkward shapes: same bytes as naive_row. */
/* strip (#53): its rules, and a launch whose tile spans the short side: L = 16 T K / (S E)
 * elements of the long side (down to whole 16-byte chunks), shared memory for S segments of
 * ST_PITCH bytes, one block per L; short and wide ("w") where rows <= cols. */
static void test_strip_geometry(void **state)
{
    const struct tb_kernel *k = tb_kernel_find("strip", TB_BACKEND_CUDA);
    char why[200];
    assert_true(tb_kernel_block_ok(k, 256, 4, why, sizeof(why)));
    assert_false(tb_kernel_block_ok(k, 512, 4, why, sizeof(why)));
    assert_string_equal(why, "strip: needs block 128, 256 or 512 x 1, 2 or 4 (threads x 16-byte "
                        "chunks each), at most 1024 in all, got 512x4");
    assert_true(tb_kernel_shape_ok(k, 61, 100003, why, sizeof(why)));
    assert_true(tb_kernel_shape_ok(k, 100003, 64, why, sizeof(why)));
    assert_true(tb_kernel_shape_ok(k, 257, 65537, why, sizeof(why)));
    assert_true(tb_kernel_shape_ok(k, 100003, 512, why, sizeof(why)));
    assert_false(tb_kernel_shape_ok(k, 513, 100003, why, sizeof(why)));
    assert_string_equal(why,
                        "strip: needs a side of 512 or fewer (the tile spans it), got 513x100003");
    assert_int_equal(k->elem_sizes, (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8));
#ifdef TB_HAVE_CUDA
    struct tb_launch l = { NULL, NULL, 61, 100003, 256, 2, 1, 0, 0, NULL };
    struct tb_grid g;
    assert_int_equal(tb_cuda_strip(&l, &g), 0);
    /* 8192 bytes / 61 rows = 134 columns, down to 128 (whole chunks): 782 blocks */
    assert_string_equal(g.entry, "tb_strip_w_256_1");
    assert_int_equal(g.pad, 128);
    assert_int_equal(g.gx, 782);
    assert_true(g.gy == 1 && g.tiles_y == 1 && g.bx == 256 && g.by == 1);
    assert_int_equal(g.smem, 61 * (16 * (128 / 16 + 1) + 4));
    l = (struct tb_launch){ NULL, NULL, 100003, 61, 128, 1, 8, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip(&l, &g), 0);
    /* 2048 / (61 x 8) = 4 rows a block, on whole chunks (2 doubles): 25001 blocks */
    assert_string_equal(g.entry, "tb_strip_n_128_8");
    assert_int_equal(g.pad, 4);
    assert_int_equal(g.gx, 25001);
    /* staged: 4 rows and the 2-row halo, 48 bytes of each output row in 4 chunks */
    assert_int_equal(g.smem, 61 * (16 * ((6 * 8 + 15) / 16 + 1) + 8));
    l = (struct tb_launch){ NULL, NULL, 3, 5, 512, 2, 4, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip(&l, &g), 0);
    assert_int_equal(g.pad, 5);   /* never more than the long side */
    assert_int_equal(g.gx, 1);
    l.rows = 513, l.cols = 513;
    assert_int_equal(tb_cuda_strip(&l, &g), -EINVAL);
    /* #61: 100 rows of bytes, 512 x 2: 16384 / 100 = 163 columns, down to 160 (10 chunks) */
    l = (struct tb_launch){ NULL, NULL, 100, 40009, 512, 2, 1, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip(&l, &g), 0);
    assert_string_equal(g.entry, "tb_strip_w_512_1");
    assert_int_equal(g.pad, 160);
    assert_int_equal(g.smem, 100 * (16 * (160 / 16 + 1) + 4));
    /* over ST_BIG (128) rows: 16384 / 300 = 54 columns, raised to 64 bytes (4 chunks), and
     * the skewed entry with its 4 bytes a group of 16 rows (strip_geo.h) */
    l.rows = 300;
    assert_int_equal(tb_cuda_strip(&l, &g), 0);
    assert_string_equal(g.entry, "tb_strip_ws_512_1");
    assert_int_equal(g.pad, 64);
    assert_int_equal(g.gx, 626);
    assert_int_equal(g.smem, 300 * (16 * (64 / 16 + 1) + 4) + 299 / 16 * 4);
    l.rows = 128;
    assert_int_equal(tb_cuda_strip(&l, &g), 0);
    assert_string_equal(g.entry, "tb_strip_w_512_1");
    l = (struct tb_launch){ NULL, NULL, 40009, 300, 512, 2, 1, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip(&l, &g), 0);
    assert_string_equal(g.entry, "tb_strip_n_512_1");
    assert_int_equal(g.pad, 64);
    /* 512 doubles a row and 128 threads: 2048 bytes hold no column of 4096; the floor of
     * 64 bytes gives 8 */
    l = (struct tb_launch){ NULL, NULL, 512, 1000, 128, 1, 8, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip(&l, &g), 0);
    assert_int_equal(g.pad, 8);
    assert_int_equal(g.gx, 125);
#endif
}

/* strip (#61): every tile fits the 48 KB a block gets without opting in, every block and
 * element size, both ways, every short side up to ST_MAX. */
static void test_strip_tiles_fit(void **state)
{
#ifdef TB_HAVE_CUDA
    struct tb_launch l;
    struct tb_grid g;
    static const int blocks[][2] = { { 128, 1 }, { 128, 2 }, { 128, 4 }, { 256, 1 }, { 256, 2 },
                                     { 256, 4 }, { 512, 1 }, { 512, 2 } };
    for (int e = 1; e <= 8; e *= 2)
        for (long s = 1; s <= ST_MAX; s++)
            for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
                for (int wide = 0; wide < 2; wide++) {
                    l = (struct tb_launch){ NULL, NULL, wide ? s : 1000000, wide ? 1000000 : s,
                                            blocks[b][0], blocks[b][1], e, 0, 0, NULL };
                    assert_int_equal(tb_cuda_strip(&l, &g), 0);
                    assert_true(g.smem <= ST_SMEM_MAX && g.pad >= 1);
                    long tile = 16L * blocks[b][0] * blocks[b][1];
                    if (s > ST_BIG && tile < s * ST_BIG_SEG)
                        tile = s * ST_BIG_SEG;
                    assert_true((long)g.pad * s * e <= tile || g.pad == 1);
                    assert_true((long)g.gx == (1000000L + g.pad - 1) / g.pad);
                }
#endif
}

/* strip8 (#61): its rules, and launches of the class it is for: L about 64 T NB / rows bytes,
 * a multiple of 16 x ST8_CCW0 (rows odd: 128), within 48 KB. */
static void test_strip8_geometry(void **state)
{
    (void)state;
    const struct tb_kernel *k = tb_kernel_find("strip8", TB_BACKEND_CUDA);
    char why[200];
    assert_non_null(k);
    assert_int_equal(k->elem_sizes, 1u << 1);
    assert_int_equal(tb_kernel_block_ok(k, 256, 4, why, sizeof(why)), 0);
    assert_string_equal(why, "strip8: needs block 128, 256 or 512 x 1 or 2 (threads x items in "
                             "flight), got 256x4");
    assert_int_equal(tb_kernel_shape_ok(k, 257, 65537, why, sizeof(why)), 1);
    assert_int_equal(tb_kernel_shape_ok(k, 65537, 257, why, sizeof(why)), 0);
    assert_string_equal(why, "strip8: needs rows <= cols and rows <= 512 (short and wide), got "
                             "65537x257");
    assert_int_equal(tb_kernel_shape_ok(k, 513, 100003, why, sizeof(why)), 0);
    struct tb_grid g;
    struct tb_launch l = { NULL, NULL, 257, 65537, 256, 1, 1, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip8(&l, &g), 0);
    /* 64 x 256 / 257 = 63 bytes, up to the lanes' 8 chunks: 128 */
    assert_int_equal(g.pad, 128);
    assert_int_equal(g.smem, 257 * 128 + 16);
    assert_int_equal(g.gx, (65537 + 127) / 128);
    assert_int_equal(g.bx, 256);
    assert_int_equal(g.by, 1);
    assert_string_equal(g.entry, "tb_strip8_256x1u_1");
    /* 100 rows: 2 chunks of lanes (100 = 4 x 25); 163 bytes down to 160 */
    l = (struct tb_launch){ NULL, NULL, 100, 100003, 256, 1, 1, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip8(&l, &g), 0);
    assert_int_equal(g.pad, 160);
    /* 500 rows at 512x2: 131 bytes, 128, then down by 16 until 500 L + 16 fits 48 KB */
    l = (struct tb_launch){ NULL, NULL, 500, 30011, 512, 2, 1, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip8(&l, &g), 0);
    assert_int_equal(g.pad, 96);
    assert_string_equal(g.entry, "tb_strip8_512x2u_1");
    /* 257 rows at 512x2: 255 bytes, down to the lanes' unit (16 x 8): 128, as every block
     * gets at 257 rows (64 T NB / 257 is 31 to 255); 511 rows: 128 do not fit, 64 (4 chunks) do */
    l = (struct tb_launch){ NULL, NULL, 257, 65537, 512, 2, 1, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip8(&l, &g), 0);
    assert_int_equal(g.pad, 128);
    l.rows = 511;
    assert_int_equal(tb_cuda_strip8(&l, &g), 0);
    assert_int_equal(g.pad, 64);
    /* rows on 16 bytes: the "a" entry; a narrow matrix, another element, a block: refused */
    l = (struct tb_launch){ NULL, NULL, 100, 4096, 128, 2, 1, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip8(&l, &g), 0);
    assert_string_equal(g.entry, "tb_strip8_128x2a_1");
    l.rows = 5000;
    assert_int_equal(tb_cuda_strip8(&l, &g), -EINVAL);
    l.rows = 100, l.elem_size = 2;
    assert_int_equal(tb_cuda_strip8(&l, &g), -EINVAL);
    l.elem_size = 1, l.block_y = 4;
    assert_int_equal(tb_cuda_strip8(&l, &g), -EINVAL);
}

/* strip8 (#61): for every short side, block and long side (100003, and small and odd ones
 * where L is capped at cols rounded up to 16: the cap's own case), the tile fits 48 KB, its
 * columns are whole chunks that the lanes' groups tile exactly, the grid covers the long side,
 * and a warp's 32 word stores of one column (the row groups' 4-byte words) fall on 32 banks
 * where a warp's lanes take ST8_CCW0 chunks of ST8_CCW0 x 32 row groups, on at most 2 a bank
 * elsewhere (over 64 rows, strip8's class; strip_geo.h). */
static void strip8_tile_check(long s, long cols, int t, int nb)
{
    const long cols16 = (cols + 15) / 16 * 16;
    struct tb_grid g;
    struct tb_launch l = { NULL, NULL, s, cols, t, nb, 1, 0, 0, NULL };
    assert_int_equal(tb_cuda_strip8(&l, &g), 0);
    int L = g.pad, ccw = ST8_CCW(s, L), ng = (int)(s + 3) / 4;
    assert_true(g.smem <= ST_SMEM_MAX && g.smem == ST8_SMEM(s, L));
    assert_true(L >= 16 && L % 16 == 0 && (L / 16) % ccw == 0 && L <= cols16);
    /* the lanes' full unit, or halved from it (see launcher), or capped at cols16 */
    assert_true(ccw == ST8_CCW0(s) || (L & (L - 1)) == 0 || L == cols16);
    assert_true((long)g.gx * L >= cols && (long)(g.gx - 1) * L < cols);
    if (s <= 64)
        return;   /* the banks: the class strip8 is for (strip's own below 65) */
    int per_bank[32] = { 0 }, worst = 0;
    for (int lane = 0; lane < 32; lane++) {
        int rg = (lane / ccw) % ng, cc = lane % ccw + lane / ccw / ng * ccw;
        int bank = (int)(((16L * cc * s + 4 * rg) / 4) % 32);
        if (++per_bank[bank] > worst)
            worst = per_bank[bank];
    }
    assert_true(worst <= (ccw == ST8_CCW0(s) && ng * ccw >= 32 ? 1 : 2));
}

static void test_strip8_tiles_fit(void **state)
{
    (void)state;
    static const int blocks[][2] = { { 128, 1 }, { 256, 1 }, { 512, 1 },
                                     { 128, 2 }, { 256, 2 }, { 512, 2 } };
    static const long colss[] = { 1,  2,   3,   15,  16,  17,   31,    33,
                                  63, 65,  100, 129, 257, 513, 4099, 100003 };
    for (size_t c = 0; c < sizeof(colss) / sizeof(colss[0]); c++)
        for (long s = 1; s <= ST_MAX && s <= colss[c]; s++)
            for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
                strip8_tile_check(s, colss[c], blocks[b][0], blocks[b][1]);
}

/* strip8's register operations (strip8_ops.h, the kernel's own code): the 4x4 byte
 * transpose and the realignment, bit for bit against the bytes they must give. */
static void test_strip8_ops(void **state)
{
    (void)state;
    /* prmt as PTX defines it: selector nibbles pick bytes of y:x, x's bytes 0-3 */
    assert_int_equal(S8_PERM(0x33221100u, 0x77665544u, 0x5140u), 0x55114400u);
    assert_int_equal(S8_FSHR(0x33221100u, 0x77665544u, 8), 0x44332211u);
    assert_int_equal(S8_FSHR(0x33221100u, 0x77665544u, 0), 0x33221100u);
    unsigned char b[32];
    for (unsigned seed = 1; seed < 200; seed++) {
        for (int i = 0; i < 32; i++)
            b[i] = (unsigned char)tb_pattern_hash(seed, (uint64_t)i);
        unsigned w[8];
        for (int i = 0; i < 8; i++)
            w[i] = b[4 * i] | (unsigned)b[4 * i + 1] << 8 | (unsigned)b[4 * i + 2] << 16 |
                   (unsigned)b[4 * i + 3] << 24;
        unsigned c[4];
        s8_t4(w[0], w[1], w[2], w[3], c);
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 4; i++)
                assert_int_equal((c[j] >> (8 * i)) & 0xffu, b[4 * i + j]);
        for (unsigned o = 0; o < 16; o++) {
            unsigned y[4];
            s8_realign(w, o, y);
            for (int k = 0; k < 16; k++)
                assert_int_equal((y[k / 4] >> (8 * (k % 4))) & 0xffu, b[o + (unsigned)k]);
        }
    }
}

/* One strip8 launch run on the host as the kernel's blocks divide it (its item map, its
 * staging offsets and the writer's run offsets, with the launcher's L and shared memory),
 * every shared byte written once and inside the block's allocation, every output byte from
 * a byte staged: out must be the transpose. A model, not the device code: it re-derives the
 * item map with / and % (the kernel: st_div and shifts by lg), copies bytes where the kernel
 * loads 16-byte chunks, so it does not cover the clamped row (r < S ? r : S - 1), the realign
 * offset o, the second chunk's v16_load bounds, s8_stage's al[] split of unaligned words, nor
 * the writer's full-chunk vs edge path; those ran only on the device (doc/kernels.md). */
static void strip8_model(long rows, long cols, int t, int nb)
{
    struct tb_launch l = { NULL, NULL, rows, cols, t, nb, 1, 0, 0, NULL };
    struct tb_grid g;
    assert_int_equal(tb_cuda_strip8(&l, &g), 0);
    const int S = (int)rows, L = g.pad, NG = (S + 3) / 4, ccw = ST8_CCW(S, L), ni = NG * (L / 16);
    unsigned char *in = malloc((size_t)(rows * cols)), *out = malloc((size_t)(rows * cols));
    unsigned char *sm = malloc(g.smem), *set = malloc(g.smem);
    for (long i = 0; i < rows * cols; i++)
        in[i] = (unsigned char)tb_pattern_hash(7, (uint64_t)i);
    memset(out, 0, (size_t)(rows * cols));
    for (unsigned blk = 0; blk < g.gx; blk++) {
        const long c0 = (long)blk * L, A = c0 * S;
        const int n = (int)(cols - c0 < L ? cols - c0 : L), sh = (int)(A & 15);
        memset(set, 0, g.smem);
        for (int it = 0; it < ni; it++) {
            int rest = it / ccw, hi = rest / NG, rg = rest - hi * NG;
            int cc = hi * ccw + it % ccw;
            for (int j = 0; j < 16 && 16 * cc + j < n; j++)
                for (int i = 0; i < 4 && 4 * rg + i < S; i++) {
                    long p = (16L * cc + j) * S + 4 * rg + i + sh;
                    assert_true(p >= 0 && p < (long)g.smem && !set[p]);
                    set[p] = 1;
                    sm[p] = in[(4L * rg + i) * cols + c0 + 16 * cc + j];
                }
        }
        for (long b = A; b < A + (long)n * S; b++) {
            assert_true(set[b - (A & ~15L)]);
            out[b] = sm[b - (A & ~15L)];
        }
    }
    for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++)
            assert_int_equal(out[c * rows + r], in[r * cols + c]);
    free(in), free(out), free(sm), free(set);
}

static void test_strip8_model(void **state)
{
    (void)state;
    static const long shapes[][2] = { { 65, 4099 }, { 100, 10003 }, { 129, 257 }, { 257, 6553 },
                                      { 500, 3011 }, { 511, 513 }, { 512, 1000 }, { 1, 1 },
                                      { 3, 5 }, { 31, 33 }, { 100, 4096 }, { 7, 3001 },
                                      { 65, 65 }, { 100, 100 }, { 17, 17 } };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        for (int t = 128; t <= 512; t *= 2)
            for (int nb = 1; nb <= 2; nb++)
                strip8_model(shapes[i][0], shapes[i][1], t, nb);
}

static void test_cpu_kernels_match_reference(void **state)
{
    const long shapes[][2] = { { 1, 1 }, { 1, 17 }, { 17, 1 }, { 31, 33 }, { 64, 64 },
                               { 127, 129 }, { 3, 1000 } };
    const int blocks[][2] = { { 16, 16 }, { 32, 8 }, { 256, 1 }, { 1, 1 }, { 7, 5 } };
    const int elems[] = { 1, 2, 4, 8 };
    for (size_t s = 0; s < sizeof(shapes) / sizeof(*shapes); s++)
        for (size_t e = 0; e < 4; e++) {
            long rows = shapes[s][0], cols = shapes[s][1];
            int es = elems[e];
            size_t bytes = (size_t)(rows * cols) * (size_t)es;
            unsigned char *in = malloc(bytes), *ref = malloc(bytes), *out = malloc(bytes);
            for (size_t i = 0; i < (size_t)(rows * cols); i++)
                tb_pattern_store(in, es, 42 + s, i);
            struct tb_launch l = { in, ref, rows, cols, 0, 0, es, 0, 0, NULL };
            assert_int_equal(tb_cpu_naive_row(&l), 0);
            /* the reference itself: out[c][r] == in[r][c] */
            for (long r = 0; r < rows; r++)
                for (long c = 0; c < cols; c++)
                    assert_memory_equal(ref + ((size_t)c * rows + r) * es,
                                        in + ((size_t)r * cols + c) * es, (size_t)es);
            for (size_t b = 0; b < sizeof(blocks) / sizeof(*blocks); b++) {
                memset(out, 0xFF, bytes);
                struct tb_launch lb = { in, out, rows, cols, blocks[b][0], blocks[b][1], es, 0, 0, NULL };
                assert_int_equal(tb_cpu_blocked(&lb), 0);
                assert_memory_equal(out, ref, bytes);
                assert_int_equal(lb.grid_x, (cols + blocks[b][0] - 1) / blocks[b][0]);
            }
            memset(out, 0xFF, bytes);
            struct tb_launch lc = { in, out, rows, cols, 0, 0, es, 0, 0, NULL };
            assert_int_equal(tb_cpu_copy_row(&lc), 0);
            assert_memory_equal(out, in, bytes);
            free(in);
            free(ref);
            free(out);
        }
}

static void test_pattern_values(void **state)
{
    /* floats are exact whole numbers in 1..2^24, never NaN or zero, and differ by seed */
    int differ = 0;
    for (uint64_t i = 0; i < 10000; i++) {
        float f, g;
        tb_pattern_value(&f, 4, 1, i);
        tb_pattern_value(&g, 4, 2, i);
        assert_true(f >= 1.0f && f <= 16777216.0f && f == (float)(long)f);
        differ += f != g;
    }
    assert_true(differ > 9900);
    unsigned char poison[4] = { 0xFF, 0xFF, 0xFF, 0xFF };
    float p;
    memcpy(&p, poison, 4);
    assert_true(p != p); /* the poison is NaN: never equal to a pattern value */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_consistent),
        cmocka_unit_test(test_block_rules),
        cmocka_unit_test(test_bperm16_geometry),
        cmocka_unit_test(test_vec16d_geometry),
        cmocka_unit_test(test_strip_geometry),
        cmocka_unit_test(test_strip_tiles_fit),
        cmocka_unit_test(test_strip8_geometry),
        cmocka_unit_test(test_strip8_tiles_fit),
        cmocka_unit_test(test_strip8_ops),
        cmocka_unit_test(test_strip8_model),
        cmocka_unit_test(test_cpu_kernels_match_reference),
        cmocka_unit_test(test_pattern_values),
    };
    return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
