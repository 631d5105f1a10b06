/* meter_pool.c: the size's pool of a block's spread over its kernels (tb_meter_pool), which
 * the cycles' interval takes as a floor and a size of few cycles borrows degrees from: every
 * paired track's blocks as one linear model, each copy block once. Not here: a track's own
 * blocks and their residual (meter_figures.c), the interval itself. */
#include "energy/meter.h"
#include "energy/meter_internal.h"
#include "energy/rerun.h"

#include <math.h>
#include <stdlib.h>

/* Where copy block j (stamp st) of a kernel's blocks already is in the set (pos: the copy's
 * track's by index; stamps[from..at): those past it), or -1: one past the copy's track is
 * known by its stamp in every kernel's track that took it (none: its kernel's own). */
static int copy_at(const int *pos, const int64_t *stamps, int from, int at, int j, int64_t st)
{
    if (j >= 0)
        return j < TB_METER_MAX_CYCLES ? pos[j] : -1;
    for (int p = from; st > 0 && p < at; p++)
        if (stamps[p] == st)
            return p;
    return -1;
}

/* The size's k paired tracks' blocks b[0..k) as one set, into x (their logs) and u (the
 * columns, stride apart): each kernel's blocks, then the copy's, each copy block once however
 * many kernels were taken against it (copy_at); the columns the copy's level, each kernel's
 * level and mean's weights and, from TB_RERUN_TREND_CYCLES blocks of a kernel, the blocks'
 * time (meter_figures.c's model_columns, per kernel): their stamps where every block of the
 * set has one (a drift in time, whatever each kernel's place in the cycle), else their index
 * times. stamps: len entries for the copy blocks' stamps. The blocks' count into *len; the
 * columns'. */
static int pool_columns(const struct tb_meter_blocks *b, int k, double *x, double *u,
                        int64_t *stamps, size_t stride, int *len)
{
    int pos[TB_METER_MAX_CYCLES], at = 0, cols = 2 * k + 1, trend = 0, from;
    bool stamped = true;
    for (int j = 0; j < TB_METER_MAX_CYCLES; j++)
        pos[j] = -1;
    for (int q = 0; q < k; q++)
        stamped &= b[q].stamped;
    int64_t origin = k && b[0].n ? b[0].ks[0] : 0;
    for (int q = 0; q < k; q++) {
        trend |= b[q].n >= TB_RERUN_TREND_CYCLES;
        for (int i = 0; i < b[q].n; i++, at++) {
            x[at] = b[q].y[i];
            u[(size_t)(1 + q) * stride + at] = 1;
            u[(size_t)(1 + k + q) * stride + at] = 1.0 / b[q].n;
            u[(size_t)cols * stride + at] = tb_meter_block_time(&b[q], i, stamped, origin);
        }
    }
    from = at;
    for (int q = 0; q < k; q++)
        for (int sl = 0; sl < b[q].m; sl++) {
            int j = b[q].slot[sl], p = copy_at(pos, stamps, from, at, j, b[q].cs[sl]);
            if (p < 0) {   /* a copy block not yet in the set */
                p = at++;
                if (j >= 0 && j < TB_METER_MAX_CYCLES)
                    pos[j] = p;
                stamps[p] = j >= 0 ? 0 : b[q].cs[sl];
                x[p] = b[q].cy[sl];
                u[p] = 1;
                u[(size_t)cols * stride + p] =
                    tb_meter_block_time(&b[q], b[q].n + sl, stamped, origin);
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
    int64_t *stamps = x ? malloc(stride * sizeof(*stamps)) : NULL;
    if (!stamps) {   /* none, or no memory: no pool */
        free(x);
        free(b);
        return;
    }
    double *u = x + stride, ss = 0;
    cols = pool_columns(b, k, x, u, stamps, stride, &len);
    rank = tb_meter_residual(u, stride, cols, len, x);
    for (int i = 0; i < len; i++)
        ss += x[i] * x[i];
    if (len > rank) {
        m->pooled_df = (size_t)(len - rank);
        m->pooled_rel_sd = sqrt(ss / (double)(len - rank));
    }
    free(stamps);
    free(x);
    free(b);
}
