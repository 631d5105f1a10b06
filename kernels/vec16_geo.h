/* vec16_geo.h: the tile of `vec16`, shared by the kernel (cuda_transpose.cu) and its
 * launcher (cuda_launch.c), which sizes the grid by it: one rule, so the two cannot drift.
 * V16_SEGC: bytes of each input row a tile reads: 256 for 2, 4 and 8-byte elements (a row
 * that is not on a sector costs one sector more per segment: 1 in 8 instead of 1 in 4), 128
 * for bytes (256 measured worse on odd shapes, 512 worse for f16).
 * V16_SEGR: the tile's depth in bytes of input rows where every input row starts on a
 * 16-byte chunk (the "a" entries): 256 for f16 (512 would not fit 48 KB of shared memory),
 * 512 for floats and doubles; 128 for u8 and for the "u" entries (deeper tiles measured
 * worse where rows are realigned). */
#ifndef TB_VEC16_GEO_H
#define TB_VEC16_GEO_H

#define V16_SEGC(E) ((E) == 1 ? 128 : 256)
#define V16_SEGR(E, ALIGNED) ((E) == 1 || !(ALIGNED) ? 128 : (E) == 2 ? 256 : 512)
/* vec16d (floats and doubles): the depth is the block's: 128 x D bytes for block T x D. */
#define V16D_SEGR(D) (128 * (D))
/* vec16w (floats and doubles): 512 bytes of each input row. */
#define V16W_SEGC 512

#endif
