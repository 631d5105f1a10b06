/* bperm_geo.h: the tile of `bperm16`, shared by the kernel (cuda_transpose.cu) and its
 * launcher (cuda_launch.c), which sizes the grid by it: one rule, so the two cannot drift.
 * Elements of E = 1 or 2 bytes; block (T, D): D slabs of 128 bytes of input rows, T threads
 * each (T = 64, 128 or 256, D = 1 or 2).
 * BP_NR: input rows a tile holds (128 x D bytes of each column), the halo included.
 * BP_H: the halo, rows above the tile read where output rows do not start on 32-byte sectors.
 * BP_TC: input columns (output rows) of a tile whose input rows start on 16-byte chunks;
 * BP_TCU where they do not: the last chunk of each row is read only to realign the one before
 * it, so a tile covers one 16-byte chunk less (no extra chunk, no registers held for it). */
#ifndef TB_BPERM_GEO_H
#define TB_BPERM_GEO_H

#define BP_NR(E, D) (128 * (D) / (E))
#define BP_H(E) (32 / (E))
#define BP_TC(E, S) ((S) / (E))
#define BP_TCU(E, S) (((S) - 16) / (E))

#endif
