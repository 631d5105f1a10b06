/* strip_geo.h: the tile of `strip` (#53), shared by the kernel (cuda_transpose.cu) and its
 * launcher (cuda_launch.c), which sizes the grid and the shared memory by it: one rule, so
 * the two cannot drift. A strip kernel takes matrices with one side of ST_MAX elements or
 * fewer (61x100003, 100003x61): its tile spans that short side whole, and L elements of the
 * long side. The short side's S segments of L elements (input rows of a short-and-wide
 * matrix, output rows of a tall-and-narrow one) are staged in shared memory as the 16-byte
 * chunks that cover them: ST_CPR chunks a segment at most (a segment starts anywhere in its
 * first chunk). ST_PITCH: the bytes between two staged segments, 4 (8 for 8-byte elements)
 * over a multiple of 16, so a warp reading one element of 32 segments meets 32 banks. */
#ifndef TB_STRIP_GEO_H
#define TB_STRIP_GEO_H

#define ST_MAX 64
#define ST_CPR(L, E) (((L) * (E) + 15) / 16 + 1)
#define ST_PITCH(L, E) (16 * ST_CPR(L, E) + ((E) == 8 ? 8 : 4))
/* Tall and narrow: rows staged past the block's L, so that each output chunk that starts in
 * the block's segment is written whole by it (16 bytes of each output row) */
#define ST_HALO(E) (16 / (E))

#endif
