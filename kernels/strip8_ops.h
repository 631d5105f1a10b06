/* strip8_ops.h: the register operations of `strip8` (cuda_transpose.cu, #61) as plain
 * functions of words, compiled into the kernel images and into the host's tests, so that the
 * byte permutes and the realignment the kernel runs are the ones tests/test_kernels.c checks
 * bit for bit. On the host, prmt and shf.r.wrap are written out as the PTX manual defines
 * them; nothing here touches memory. */
#ifndef TB_STRIP8_OPS_H
#define TB_STRIP8_OPS_H

#ifdef __CUDACC__
#define S8_FN __device__ __forceinline__
#define S8_PERM(x, y, s) __byte_perm(x, y, s)
#define S8_FSHR(lo, hi, n) __funnelshift_r(lo, hi, n)
#else
#define S8_FN static inline
/* prmt.b32, default mode: byte k of the result is byte (s >> 4k) & 7 of the 8 bytes y:x */
static inline unsigned s8_host_perm(unsigned x, unsigned y, unsigned s)
{
    unsigned long long b = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int k = 0; k < 4; k++)
        r |= (unsigned)((b >> (8 * ((s >> (4 * k)) & 7))) & 0xffu) << (8 * k);
    return r;
}
/* shf.r.wrap.b32: the low word of (hi:lo) >> (n mod 32) */
static inline unsigned s8_host_fshr(unsigned lo, unsigned hi, unsigned n)
{
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (n & 31));
}
#define S8_PERM(x, y, s) s8_host_perm(x, y, s)
#define S8_FSHR(lo, hi, n) s8_host_fshr(lo, hi, n)
#endif

/* y = the 16 bytes at byte o (0 ... 15) of the 32 in w[0 ... 7] (little-endian words): two
 * selects by o's bits 3 and 2 bring word o / 4 to the front, four funnel shifts by o mod 4
 * bytes do the rest (no register indexed by a variable: that would go to local memory). */
S8_FN void s8_realign(const unsigned w[8], unsigned o, unsigned y[4])
{
    const int h8 = (o & 8) != 0, h4 = (o & 4) != 0;
    unsigned u[6], z[5];
    for (int i = 0; i < 6; i++)
        u[i] = h8 ? w[i + 2] : w[i];
    for (int i = 0; i < 5; i++)
        z[i] = h4 ? u[i + 1] : u[i];
    for (int k = 0; k < 4; k++)
        y[k] = S8_FSHR(z[k], z[k + 1], 8 * (o & 3));
}

/* The four columns of a 4x4 byte block whose rows are r0 ... r3 (column j of row i is byte j
 * of ri): c[j] holds column j's rows, row i in byte i. Eight permutes: rows paired byte by
 * byte (r0 r1 -> a0 b0 a1 b1 and a2 b2 a3 b3), then the pairs' halves. */
S8_FN void s8_t4(unsigned r0, unsigned r1, unsigned r2, unsigned r3, unsigned c[4])
{
    const unsigned l01 = S8_PERM(r0, r1, 0x5140), h01 = S8_PERM(r0, r1, 0x7362);
    const unsigned l23 = S8_PERM(r2, r3, 0x5140), h23 = S8_PERM(r2, r3, 0x7362);
    c[0] = S8_PERM(l01, l23, 0x5410), c[1] = S8_PERM(l01, l23, 0x7632);
    c[2] = S8_PERM(h01, h23, 0x5410), c[3] = S8_PERM(h01, h23, 0x7632);
}

#endif
