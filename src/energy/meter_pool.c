/* meter_pool.c: the size's pool of a block's spread over its kernels (tb_meter_pool), which
 * the cycles' interval takes as a floor and a size of few cycles borrows degrees from: every
 * paired track's blocks as one linear model, each copy block once. Not here: a track's own
 * blocks and their residual (meter_figures.c), the interval itself. */
#include "energy/meter.h"
#include "energy/meter_internal.h"
#include "energy/rerun.h"

#include <math.h>
#include <stdlib.h>

/* x's residual orthogonal to the columns u[0..cols) (each len long, stride apart), in place,
 * by Gram-Schmidt as tb_meter_blocks_ss (a column within the others' span dropped); the rank
 * kept. */
static int residual_of(double *u, size_t stride, int cols, int len, double *x)
{
    int rank = 0;
    for (int c = 0; c < cols; c++) {
        double *uc = u + (size_t)c * stride, n0 = 0, nn = 0, px = 0;
        for (int i = 0; i < len; i++)
            n0 += uc[i] * uc[i];
        for (int p = 0; p < rank; p++) {
            const double *up = u + (size_t)p * stride;
            double d = 0;
            for (int i = 0; i < len; i++)
                d += up[i] * uc[i];
            for (int i = 0; i < len; i++)
                uc[i] -= d * up[i];
        }
        for (int i = 0; i < len; i++)
            nn += uc[i] * uc[i];
        if (!(nn > 1e-12 * n0))
            continue;
        double *ur = u + (size_t)rank * stride;
        for (int i = 0; i < len; i++) {
            ur[i] = uc[i] / sqrt(nn);
            px += ur[i] * x[i];
        }
        for (int i = 0; i < len; i++)
            x[i] -= px * ur[i];
        rank++;
    }
    return rank;
}

/* The size's k paired tracks' blocks b[0..k) as one set, into x (their logs) and u (the
 * columns, stride apart): each kernel's blocks, then the copy's, each copy block once however
 * many kernels were taken against it (a block past the copy's track, -2, is its kernel's
 * own); the columns the copy's level, each kernel's level and mean's weights and, from
 * TB_RERUN_TREND_CYCLES blocks of a kernel, the blocks' time (meter_figures.c's model_columns,
 * per kernel).
 * The blocks' count into *len; the columns'. */
static int pool_columns(const struct tb_meter_blocks *b, int k, double *x, double *u,
                        size_t stride, int *len)
{
    int pos[TB_METER_MAX_CYCLES], at = 0, cols = 2 * k + 1, trend = 0;
    for (int j = 0; j < TB_METER_MAX_CYCLES; j++)
        pos[j] = -1;
    for (int q = 0; q < k; q++) {
        trend |= b[q].n >= TB_RERUN_TREND_CYCLES;
        for (int i = 0; i < b[q].n; i++, at++) {
            x[at] = b[q].y[i];
            u[(size_t)(1 + q) * stride + at] = 1;
            u[(size_t)(1 + k + q) * stride + at] = 1.0 / b[q].n;
            u[(size_t)cols * stride + at] = b[q].ty[i];
        }
    }
    for (int q = 0; q < k; q++)
        for (int sl = 0; sl < b[q].m; sl++) {
            int j = b[q].slot[sl], p = j >= 0 && j < TB_METER_MAX_CYCLES ? pos[j] : -1;
            if (p < 0) {   /* a copy block not yet in the set */
                p = at++;
                if (j >= 0 && j < TB_METER_MAX_CYCLES)
                    pos[j] = p;
                x[p] = b[q].cy[sl];
                u[p] = 1;
                u[(size_t)cols * stride + p] = b[q].tc[sl];
            }
            u[(size_t)(1 + k + q) * stride + p] -= b[q].w[sl];
        }
    *len = at;
    return cols + trend;
}

/* A block's relative variance pooled over the size's paired tracks: the residual sum of
 * squares of all their blocks together orthogonal to every kernel's model (pool_columns), over
 * the blocks less the columns kept. A copy block counts once: two kernels interleaved over n
 * cycles (C0 K1 C1 K2 C2 ...) have 2n kernel blocks and 2n + 1 copy blocks, less three levels
 * and two means' directions, 4n - 4 degrees below six cycles (4n - 5 from six), where summing
 * each kernel's own (3n - 2 each) counted the copy's blocks twice, 6n - 4. One kernel: its
 * own (tb_meter_blocks_ss). A track whose own residual has no degree is left out, as before. */
void tb_meter_pool(struct tb_meter *m, const struct tb_meter_track *tr, size_t n, size_t ref)
{
    const struct tb_meter_track *r = ref < n ? &tr[ref] : NULL;
    struct tb_meter_blocks *b = malloc((n ? n : 1) * sizeof(*b));
    int k = 0, len = 0, rank, cols;
    m->pooled_df = 0;
    m->pooled_rel_sd = NAN;
    for (size_t j = 0; b && j < n; j++) {
        double a2, dfj;
        if (j == ref || tr[j].n < 2 || !isfinite(tb_meter_blocks_ss(&tr[j], r, &dfj, &a2)) ||
            !(dfj > 0))
            continue;
        tb_meter_track_blocks(&tr[j], r, &b[k]);
        len += b[k].n + b[k].m;
        k++;
    }
    size_t stride = (size_t)len;
    double *x = k ? calloc(stride * (size_t)(2 * k + 3), sizeof(*x)) : NULL;
    if (!x) {   /* none, or no memory: no pool */
        free(b);
        return;
    }
    double *u = x + stride, ss = 0;
    cols = pool_columns(b, k, x, u, stride, &len);
    rank = residual_of(u, stride, cols, len, x);
    for (int i = 0; i < len; i++)
        ss += x[i] * x[i];
    if (len > rank) {
        m->pooled_df = (size_t)(len - rank);
        m->pooled_rel_sd = sqrt(ss / (double)(len - rank));
    }
    free(x);
    free(b);
}
