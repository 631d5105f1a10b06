/* strip_geo.h: the tile of `strip` (#53, #61), shared by the kernel (cuda_transpose.cu) and
 * its launcher (cuda_launch.c), which sizes the grid and the shared memory by it: one rule,
 * so the two cannot drift. A strip kernel takes matrices with one side of ST_MAX elements or
 * fewer (61x100003, 100003x61, 300x40009): its tile spans that short side whole, and L
 * elements of the long side. The short side's S segments of L elements (input rows of a
 * short-and-wide matrix, output rows of a tall-and-narrow one) are staged in shared memory
 * as the 16-byte chunks that cover them: ST_CPR chunks a segment at most (a segment starts
 * anywhere in its first chunk). ST_PITCH: the bytes between two staged segments, 4 (8 for
 * 8-byte elements) over a multiple of 16, so a warp reading one element of 32 segments meets
 * 32 banks. */
#ifndef TB_STRIP_GEO_H
#define TB_STRIP_GEO_H

#define ST_MAX 512
/* The shared memory a block may take without opting in (every board: the Nano's sm_53 has
 * 48 KB a block); the launcher shrinks L until the staged segments fit (#61). */
#define ST_SMEM_MAX (48 * 1024)
/* The short sides over ST_BIG (#61): each block takes at least ST_BIG_SEG bytes of the long
 * side (16 T K / S leaves 32 at S = 512), and a short and wide matrix goes to the entries
 * with the skewed staging (below). Measured on the H100 (doc/results/h100-2026-12-07-perf61.md):
 * both gain at S = 257 and 500 and lose at S = 61 and 100. */
#define ST_BIG 128
#define ST_BIG_SEG 64
#define ST_CPR(L, E) (((L) * (E) + 15) / 16 + 1)
#define ST_PITCH(L, E) (16 * ST_CPR(L, E) + ((E) == 8 ? 8 : 4))
/* Short and wide: a writer lane gathers 16 / E consecutive segments' elements for one output
 * chunk, so the 32 lanes of a warp read segments 16 / E apart, 16 / E x ST_PITCH bytes: with
 * the pitch's odd word count that is 2 (u8), 4 (f16) or 8 (floats) banks for 32 lanes. Each
 * group of 16 / E segments is therefore staged ST_SKEW_W(E) bytes further on than the one
 * before, so lane t's reads start t x ST_SKEW_W(E) bytes on: one bank each (Nsight Compute at
 * u8 257x65537 on the H100: 3.7M conflicts a launch before, #61). The skew only grows, so
 * segments never overlap; S segments need ST_SKEW(S - 1, E) bytes more. At S = 61 and 100
 * (where the lanes' rows wrap round the short side, which spreads them) the skewed writer
 * measured slower, so only the sides over ST_BIG take it. */
#define ST_SKEW_G(E) (16 / (E))
#define ST_SKEW_W(E) ((E) == 8 ? 8 : 4)
#define ST_SKEW(r, E) (((r) / ST_SKEW_G(E)) * ST_SKEW_W(E))
/* Tall and narrow: rows staged past the block's L, so that each output chunk that starts in
 * the block's segment is written whole by it (16 bytes of each output row) */
#define ST_HALO(E) (16 / (E))

/* strip8 (#61): bytes, short and wide, the short side's S rows whole and L bytes of each
 * (L a multiple of 16). A thread's item is 4 rows x 16 columns, turned into 16 words (a
 * column's 4 rows each) stored into shared memory laid out as the block's output run: column
 * j's S bytes at j x S. Lanes take ST8_CCW items along the columns, then the row groups:
 * ST8_CCW x 16 bytes of each row a warp's load (8: whole 128-byte lines), and no more than
 * keep a warp's word stores on 32 banks: word (16 cc S + 4 rg) / 4 = 4 S cc + rg, and
 * 4 S cc mod 32 takes 8 / gcd(S, 8) values as cc runs. Fewer where L / 16 has fewer (a power
 * of two dividing L / 16, so the items tile the block's columns exactly). */
#define ST8_CCW0(S) (((S) & 1) ? 8 : ((S) & 2) ? 4 : ((S) & 4) ? 2 : 1)
#define ST8_LOWBIT(x) ((x) & -(x))
#define ST8_CCW(S, L) (ST8_CCW0(S) < ST8_LOWBIT((L) / 16) ? ST8_CCW0(S) : ST8_LOWBIT((L) / 16))
/* Shared memory: the run (S x L bytes) and up to 15 bytes before it, so that its 16-byte
 * output chunks lie on 16 bytes of shared memory too. */
#define ST8_SMEM(S, L) ((S) * (L) + 16)

#endif
