/* meter_figures.c: a point's energy figures from its blocks, and THE one judgement of what
 * is withheld. The primary figure is the ratio of its J per byte to the copy's in the
 * neighbouring blocks, with its 95% interval over cycles; the absolute ones (J/GB, GB/s per
 * W, dynamic pJ/B) follow from it and the copy's own J per byte in those blocks, whose
 * interval holds both their spread and the drift between them. Withheld only what
 * cannot be measured: no block with a figure (too few clean updates, a source lost, a
 * jump). A wide interval is printed with the figure, and said. */
#include "energy/meter.h"
#include "energy/meter_internal.h"
#include "energy/rerun.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/stats.h"

double tb_meter_rel_ci(const double *v, int n, double *mean)
{
    double x[TB_METER_MAX_CYCLES], hw;
    size_t k = 0;
    for (int i = 0; i < n && i < TB_METER_MAX_CYCLES; i++)
        if (isfinite(v[i]))
            x[k++] = v[i];
    *mean = k ? tb_mean_ci95(x, k, &hw) : NAN;
    if (k < 2 || !(*mean > 0))
        return NAN;
    return hw / *mean;
}

/* A rerun of n' cycles lands, 95% of the time, within Student t x s x sqrt(1/n + 1/n') of
 * this run's mean of n (the difference of two means: a prediction interval, not the mean's
 * confidence interval t x s / sqrt(n)); an absolute series says where a rerun of as many
 * cycles lands: n' = n, sqrt(2) times the mean's. */
static double rerun_factor(void)
{
    return sqrt(2.0);   /* sqrt(1 + n/n'), n' = n */
}

double tb_meter_rerun_rel(const double *v, int n, double *mean)
{
    return tb_meter_rel_ci(v, n, mean) * rerun_factor();
}

/* ---- the variance of a night's mean ratio (#49, #57) ------------------------------------
 * Each cycle's ratio is its block's J per byte over the mean of the copy's blocks on either
 * side (meter.c, kernel_pair): in logs, r_i = y_i - sum_j A_ij c_j, y the kernel's blocks and
 * c the copy's, each a level of its own (mu_k, mu_c) plus an independent error, A_ij 1/2
 * each side (1 where one side alone had a figure). The mean ratio is a'x over the blocks x =
 * (y, c), a = (1/n each kernel block, -A'1/n on the copy's), and a'x - (mu_k - mu_c) its
 * error. At equal spreads s^2 of every block (blocks of one length and like power, the
 * design's assumption since #49) the blocks are a linear model with two levels and, from
 * six cycles, a drift both share (each block's level moving linearly with its time: a
 * warming board, which the ratios cancel), and the residual mean square over the contrasts
 * orthogonal to the model's columns and to a is independent of the mean's error
 * (Cochran's theorem: W. G. Cochran, Proc. Camb. Phil. Soc. 30 (1934) 178-191; S. R.
 * Searle, Linear Models (1971), ch. 2): |a|^2 s^2 is then the mean's variance and the
 * interval's t exact, of n + m less the columns kept degrees of freedom for n kernel blocks
 * and m copy blocks: one kernel (C K C ... C, m = n + 1), 2n - 2 below six cycles and
 * 2n - 3 from six; where a's copy weights are all equal (a within the levels: one copy
 * block, or kernels interleaved, C0 K1 C1 K2 C2 ..., m = 2n) one degree more, 3n - 2 and
 * 3n - 3 (tb_meter_blocks_ss). Below six cycles a drift still enters the residual (wider, not
 * narrower): there the trend cost coverage in meter-sim, whose neighbouring blocks share
 * readings (one chip read fast, 5% noise, 200 nights: 94.2% -> 91.9% at three cycles,
 * 91.1% -> 89.9% at four, 91.1% -> 91.0% at six; doc/results/meter-sim-2026-12-07f.md),
 * and at two it would leave one degree, t(1) 12.7; from six the ratios' lag-1 floor
 * (lag_var) holds that sharing. Until #57 the variance was s_r^2 / n + D s_c^2
 * (the ratios' sample variance and the copy's successive differences, von Neumann et al.,
 * Ann. Math. Statist. 12 (1941)), unbiased, but its parts share the copy's blocks and the
 * copy's differences move with the mean's error, and their Welch-Satterthwaite degrees (1.8
 * at two cycles, t by interpolation in 1 / df 5.33 where t(1.78) is 4.86) covered 97.8% of
 * ideal normal nights at two cycles (doc/results/meter-sim-2026-12-07f.md); this one covers
 * 95% at two, three and five cycles without a drift (below six a drift enters the residual:
 * wider), and at twelve with a drift or none (at six the ratios' lag
 * floor, lag_var, 97.6%: tests/test_meter_truth.c), less where
 * the kernel's blocks spread unlike the copy's (the model's equal spreads: 94.5% at half,
 * 93.6% at twice, the two-level model at two to five cycles). */

/* A track's blocks as the mean sees them (struct tb_meter_blocks: meter_internal.h). */

/* The slot of copy block j (stamp st, 0: none) in b, added at value v and index time at
 * where not yet there: one of the copy's track by its index, one past it (-2) by its stamp
 * where it has one. -1 where b is full or v no figure. */
static int copy_slot(struct tb_meter_blocks *b, int j, int64_t st, double v, double at)
{
    for (int s = 0; s < b->m; s++)
        if (j >= 0 ? b->slot[s] == j : st > 0 && b->slot[s] == j && b->cs[s] == st)
            return s;
    if (b->m >= TB_METER_COPY_SLOTS || !(v > 0))
        return -1;
    b->slot[b->m] = j;
    b->cy[b->m] = log(v);
    b->w[b->m] = 0;
    b->tc[b->m] = at;
    b->cs[b->m] = st;
    b->stamped &= st > 0;
    return b->m++;
}

/* Whether side k of t's ratio i had a figure (the ratio was taken against it): a copy block
 * of ref's with a finite J per byte, or one past the copy's track (-2: in t->around). */
static bool side_known(const struct tb_meter_track *t, const struct tb_meter_track *ref, int i,
                       int k)
{
    int j = t->cb[i][k];
    return j == -2 || (j >= 0 && ref && j < ref->n && j < TB_METER_MAX_CYCLES &&
                       isfinite(ref->jpb[j]));
}

/* A block's stamp: the midpoint of its span's first and last poll, ta and tb (0: never set). */
static int64_t mid_ns(int64_t ta, int64_t tb)
{
    return tb > 0 ? ta + (tb - ta) / 2 : 0;
}

/* Side k of t's ratio i, a copy block past the copy's track (-2), into b at index time at: its
 * own J per byte and stamp where the track kept them, else from the copy's mean beside the
 * ratio (t->around) less the other side's (known, NAN: none; e 1/2 where both sides). */
static int past_slot(struct tb_meter_blocks *b, const struct tb_meter_track *t, int i, int k,
                     double e, double known, double at)
{
    int64_t st = mid_ns(t->cta[i][k], t->ctb[i][k]);
    if (st > 0 && t->cj[i][k] > 0)
        return copy_slot(b, -2, st, t->cj[i][k], at);
    return copy_slot(b, -2, 0, e < 1 && isfinite(known) ? 2 * t->around[i] - known
                                                         : t->around[i], at);
}

void tb_meter_track_blocks(const struct tb_meter_track *t, const struct tb_meter_track *ref,
                           struct tb_meter_blocks *b)
{
    b->n = b->m = 0;
    b->stamped = true;
    for (int i = 0; i < t->n && i < TB_METER_MAX_CYCLES; i++) {
        if (!(t->ratio[i] > 0))
            continue;
        int side[2] = { t->cb[i][0], t->cb[i][1] }, s[2] = { -1, -1 };
        bool has[2] = { side_known(t, ref, i, 0), side_known(t, ref, i, 1) };
        double e = has[0] && has[1] ? 0.5 : 1.0, known = NAN, at = i;
        if (side[0] >= 0 || side[1] >= 0)   /* midway: half a copy block from either side */
            at = side[0] >= 0 ? side[0] + 0.5 : side[1] - 0.5;
        for (int k = 0; k < 2; k++)
            if (side[k] >= 0 && has[k]) {
                int j = side[k];
                s[k] = copy_slot(b, j, mid_ns(ref->ta[j], ref->tb[j]), ref->jpb[j], j);
                known = ref->jpb[j];
            }
        for (int k = 0; k < 2; k++)
            if (side[k] == -2)
                s[k] = past_slot(b, t, i, k, e, known, at + (k ? 0.5 : -0.5));
        double y = log(t->ratio[i]);
        for (int k = 0; k < 2; k++)
            if (s[k] >= 0) {
                y += e * b->cy[s[k]];
                b->w[s[k]] += e;
            }
        b->ks[b->n] = mid_ns(t->ta[i], t->tb[i]);
        b->stamped &= b->ks[b->n] > 0;
        b->ty[b->n] = at;
        b->y[b->n++] = y;
    }
    for (int s = 0; s < b->m; s++)
        b->w[s] /= b->n;
}

double tb_meter_block_time(const struct tb_meter_blocks *b, int i, bool stamped, int64_t origin)
{
    if (stamped)
        return (double)((i < b->n ? b->ks[i] : b->cs[i - b->n]) - origin) * 1e-9;
    return i < b->n ? b->ty[i] : b->tc[i - b->n];
}

/* The model's columns and the mean's direction over the blocks (kernel's first, then the
 * copy's), in u[0..cols): the two levels, the mean's weights a (1/n on the kernel's, -w on
 * the copy's) and, from TB_RERUN_TREND_CYCLES kernel blocks on, the blocks' time: a drift
 * both share (a warming board) that the ratios cancel. */
#define TB_METER_BLOCKS (TB_METER_MAX_CYCLES + TB_METER_COPY_SLOTS)
static int model_columns(const struct tb_meter_blocks *b, double u[4][TB_METER_BLOCKS])
{
    int cols = b->n >= TB_RERUN_TREND_CYCLES ? 4 : 3;
    int64_t origin = b->n ? b->ks[0] : 0;
    for (int i = 0; i < b->n; i++) {
        u[0][i] = 1;
        u[1][i] = 0;
        u[2][i] = 1.0 / b->n;
    }
    for (int s = 0; s < b->m; s++) {
        u[0][b->n + s] = 0;
        u[1][b->n + s] = 1;
        u[2][b->n + s] = -b->w[s];
    }
    for (int i = 0; i < b->n + b->m; i++)
        u[3][i] = tb_meter_block_time(b, i, b->stamped, origin);
    return cols;
}

int tb_meter_residual(double *u, size_t stride, int cols, int len, double *x)
{
    int rank = 0;
    for (int c = 0; c < cols; c++) {
        double *uc = u + (size_t)c * stride, n0 = 0, nn = 0, px = 0;
        for (int i = 0; i < len; i++)
            n0 += uc[i] * uc[i];
        for (int p = 0; p < rank; p++) {   /* off the columns kept before it */
            const double *up = u + (size_t)p * stride;
            double d = 0;
            for (int i = 0; i < len; i++)
                d += up[i] * uc[i];
            for (int i = 0; i < len; i++)
                uc[i] -= d * up[i];
        }
        for (int i = 0; i < len; i++)
            nn += uc[i] * uc[i];
        if (!(nn > 1e-12 * n0))   /* within the span kept */
            continue;
        double *ur = u + (size_t)rank * stride;
        for (int i = 0; i < len; i++) {
            ur[i] = uc[i] / sqrt(nn);
            px += ur[i] * x[i];
        }
        for (int i = 0; i < len; i++)   /* x's residual itself: no cancellation in ss */
            x[i] -= px * ur[i];
        rank++;
    }
    return rank;
}

/* The blocks' residual sum of squares orthogonal to the model's columns and to the mean's
 * weights (model_columns: Gram-Schmidt, a column within the others' span dropped), into
 * *ss, its degrees of freedom (the blocks less the columns kept; 0: none) and |a|^2, the
 * mean's variance over a block's. One kernel (C K C K ... C, n cycles): n + (n + 1) blocks
 * less the two levels, the mean's direction among the copy's and, from six cycles, the
 * trend: 2n - 2 below six cycles, 2n - 3 from six. Where a's copy weights are all equal
 * (kernels interleaved, C0 K1 C1 K2 C2 ...: each of a kernel's 2n copy blocks once) a is
 * within the levels' span: 3n - 2 below six cycles, 3n - 3 from six. Where the copy's weights
 * are symmetric about the middle (both designs above) a is orthogonal to the trend, so a
 * linear drift leaves the mean and the residual alike. */
double tb_meter_blocks_ss(const struct tb_meter_track *t, const struct tb_meter_track *ref,
                          double *df, double *a2)
{
    double u[4][TB_METER_BLOCKS];
    struct tb_meter_blocks b;
    tb_meter_track_blocks(t, ref, &b);
    int len = b.n + b.m, cols = model_columns(&b, u), rank = 0;
    double x[TB_METER_BLOCKS], ss = 0;
    for (int i = 0; i < b.n; i++)
        x[i] = b.y[i];
    for (int s = 0; s < b.m; s++)
        x[b.n + s] = b.cy[s];
    *a2 = 0;
    for (int i = 0; i < len; i++)
        *a2 += u[2][i] * u[2][i];
    rank = tb_meter_residual(&u[0][0], TB_METER_BLOCKS, cols, len, x);
    for (int i = 0; i < len; i++)
        ss += x[i] * x[i];
    *df = len - rank;
    if (!b.n)
        *a2 = NAN;
    if (b.n < 2 || *df < 1) {
        *df = 0;
        return NAN;
    }
    return fmax(ss, 0.0);
}

/* The variance of t's mean ratio from its ratios' own lag-1 autocovariance, where there are
 * TB_METER_LAG_MIN of them or more (NAN where fewer): (S0 + 2 S1) / (n (n - 3)), S0 and S1
 * the sums of squares and of neighbours' products of the ratios' deviations from their
 * mean, over the mean squared; n - 3, not n: the deviations from the sample mean take about
 * three of the mean's variances from S0 + 2 S1 (unbiased where cycles are independent).
 * What a reading shared by two neighbouring blocks adds (an averaging sensor's inversion
 * and an energy counter read at each block's edges: the kernel block and the copy beside
 * it move in opposite ways, neighbouring ratios together) is in it; the blocks'
 * (tb_meter_blocks_ss: independent blocks) is not, so the larger is taken.
 * Its own degrees are few: S0 + 2 S1 is x'Qx, x the n ratios, Q = C A C with C the
 * centring and A ones on and beside the diagonal, a scaled chi-square of (tr Q)^2 / tr Q^2
 * degrees where cycles are independent (Satterthwaite, Biometrics Bull. 2 (1946) 110-114;
 * Box, Ann. Math. Statist. 25 (1954) 290-302): 1.32 at six cycles, 3.27 at twelve. A row it
 * sets keeps the residual's t and says those degrees (energy_ratio_df): at its own t, a
 * floor taken as the larger of two noisy estimates made the interval 7.5 times the ideal
 * at the 90th percentile of ideal nights (18 at most; the second review of #57). The
 * rerun learner then weighs such a row's variance at more degrees than it has (doc/power.md). */
#define TB_METER_LAG_MIN 6
static double lag_var(const struct tb_meter_track *t)
{
    double x[TB_METER_MAX_CYCLES], mean = 0, s0 = 0, s1 = 0;
    int n = 0;
    for (int i = 0; i < t->n && i < TB_METER_MAX_CYCLES; i++)
        if (isfinite(t->ratio[i]))
            mean += x[n++] = t->ratio[i];
    if (n < TB_METER_LAG_MIN)
        return NAN;
    mean /= n;
    for (int i = 0; i < n; i++) {
        s0 += (x[i] - mean) * (x[i] - mean);
        if (i + 1 < n)
            s1 += (x[i] - mean) * (x[i + 1] - mean);
    }
    return (s0 + 2 * s1) / ((double)n * (n - 3)) / (mean * mean);
}

/* The relative variance of t's mean ratio and its estimate's degrees of freedom (*df): a
 * block's variance s2 of s2_df degrees (the track's own residual's where s2 is NAN) times
 * |a|^2, or what the ratios' lag-1 autocovariance gives (lag_var) where that is larger,
 * the degrees still s2's; NAN with fewer than two ratios. */
static double mean_var(const struct tb_meter_track *t, const struct tb_meter_track *ref,
                       double s2, double s2_df, double *df)
{
    double a2, ss = tb_meter_blocks_ss(t, ref, df, &a2);
    if (isnan(s2))
        s2 = *df > 0 ? ss / *df : NAN;
    else
        *df = s2_df;
    if (!isfinite(s2) || !isfinite(a2))
        return NAN;
    double v = a2 * s2, lag = lag_var(t);
    return isfinite(lag) && lag > v ? lag : v;
}

/* A run-to-run relative sd as the half-width it adds where a rerun on another night lands:
 * the two nights' states differ by sqrt(2) sds, 1.96 of them at 95% (the sd taken as known:
 * a setting, or learned over many runs: rerun.h). */
static double night_rel(double sd)
{
    return isfinite(sd) && sd > 0 ? 1.96 * sqrt(2.0) * sd : 0.0;
}

/* Where another night's ratio lands (rerun.h's tb_rerun_halfwidth): the night's per-cycle
 * spread (the size's pooled one, else the point's own) with the card's from its history,
 * and the between-night spread; rr and between (the cycles' interval and the night term
 * combined) where neither is known; where a rerun of as many cycles in the same state lands
 * where no spread is given (bw NULL): sqrt(2) times rr, the mean's. */
static double rerun_rel(const struct tb_meter *m, const struct tb_meter_track *t,
                        const struct tb_meter_track *ref, const struct tb_rerun_sd *bw,
                        double rr, double between)
{
    double sd = NAN, df = 0, s2 = NAN;
    if (!bw)
        return rr * rerun_factor();   /* no night's spread given: the cycles' own */
    /* the size's pool for a track of two ratios or more, as paired_rel takes it */
    bool pooled = m->pooled_df > 0 && isfinite(m->pooled_rel_sd) && t->n >= 2;
    if (pooled)
        s2 = m->pooled_rel_sd * m->pooled_rel_sd;
    /* the per-cycle spread whose s^2 / n is the mean's variance (shared copy blocks too) */
    double v = mean_var(t, ref, s2, (double)m->pooled_df, &df);
    if (isfinite(v) && t->n > 0)
        sd = sqrt(v * t->n);
    double hw = tb_rerun_halfwidth(bw, sd, df, t->n);
    return isfinite(hw) ? hw : hypot(rr * rerun_factor(), between);
}

/* The relative interval of an absolute series: a rerun's (Student t) and half the range
 * its blocks swept (the drift over the size's cycles), combined. */
static double drift_rel(const double *v, int n, double *mean)
{
    double rel = tb_meter_rerun_rel(v, n, mean), lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    if (isnan(rel))
        return NAN;
    return hypot(rel, 0.5 * (hi - lo) / *mean);
}

/* A paired track's relative 95% half-width of its mean ratio (mean_var): its own, never
 * narrower than the size's pooled spread gives for its cycles; *t_df the degrees of freedom
 * of the t it took (the log's energy_ratio_df; NAN: no interval). */
static double paired_rel(const struct tb_meter *m, const struct tb_meter_track *t,
                         const struct tb_meter_track *ref, double *mean, double *t_df)
{
    double df, dfp;
    tb_meter_rel_ci(t->ratio, t->n, mean);
    double v = mean_var(t, ref, NAN, 0, &df), own = isfinite(v) ? tb_t95_df(df) * sqrt(v) : NAN;
    bool pool = m->pooled_df > 0 && isfinite(m->pooled_rel_sd) && t->n >= 2;
    double vp = pool ? mean_var(t, ref, m->pooled_rel_sd * m->pooled_rel_sd,
                                (double)m->pooled_df, &dfp) : NAN;
    double pooled = isfinite(vp) ? tb_t95_df(dfp) * sqrt(vp) : NAN;
    bool take_own = !pool || (isfinite(own) && !(own <= pooled));
    *t_df = take_own ? (isfinite(own) ? df : NAN) : isfinite(pooled) ? dfp : NAN;
    return take_own ? own : pooled;
}

double tb_meter_track_rel(const struct tb_meter *m, const struct tb_meter_track *t,
                          const struct tb_meter_track *ref)
{
    double mean, df;
    return ref ? paired_rel(m, t, ref, &mean, &df) : tb_meter_rerun_rel(t->jpb, t->n, &mean);
}

static void mean_range(const double *v, int n, double *mean, double *lo, double *hi)
{
    double sum = 0;
    int k = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) {
            sum += v[i];
            k++;
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
        }
    *mean = k ? sum / k : NAN;
    if (!k)
        *lo = *hi = NAN;
}

/* Each cycle's ratio (or pJ/B without a reference) and temperature: the spread behind the
 * interval, and the temperature each block held. */
static void blocks_text(const struct tb_meter_track *t, bool paired, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "%s", paired ? "ratio" : "pJ/B");
    for (int k = 0; k < t->n && len < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, paired ? " %.4f" : " %.2f",
                                paired ? t->ratio[k] : t->jpb[k] * 1e12);
    if (len < cap)
        len += (size_t)snprintf(out + len, cap - len, "; C");
    for (int k = 0; k < t->n && len < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, isfinite(t->temp[k]) ? " %.0f" : " -",
                                t->temp[k]);
}

/* Every figure none (NAN), the texts empty; then what t says whether or not a block of it
 * had a figure (its cycles, spans, polls and clocks) and the spread given (bw, NULL none). */
static void clear(struct tb_meter_result *o, const struct tb_meter_track *t,
                  const struct tb_rerun_sd *bw)
{
    memset(o, 0, sizeof(*o));
#define TB_METER_NONE(name, keep, max) o->name = NAN;
    TB_ENERGY_FIGURES(TB_METER_NONE)
#undef TB_METER_NONE
    o->jpb = o->jpb_ci = o->gbps = NAN;
    for (int k = 0; k < TB_METER_CI_PARTS; k++)
        o->ratio_ci_part[k] = NAN;
    if (bw) {   /* as the row says it: rerun_runs NAN where none was given */
        o->rerun_ratio_sd = bw->ratio;
        o->rerun_abs_sd = bw->abs;
        o->rerun_runs = bw->runs >= 0 ? bw->runs : NAN;
    }
    o->measured = t->n + t->failed + t->dropped > 0;
    o->power_cycles = t->n;
    o->window_ms = t->secs * 1e3;   /* the column's unit */
    o->window_bytes = t->bytes;
    o->power_samples = (double)t->samples;
    o->power_updates = (double)t->updates;
    o->gpu_clock_mhz = t->clock_mhz;
    o->emc_clock_mhz = t->emc_mhz;
}

__attribute__((format(printf, 2, 3)))
static void add_note(struct tb_meter_result *o, const char *fmt, ...)
{
    size_t len = strlen(o->power_note);
    if (len)
        len += (size_t)snprintf(o->power_note + len, sizeof(o->power_note) - len, "; ");
    if (len >= sizeof(o->power_note))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->power_note + len, sizeof(o->power_note) - len, fmt, ap);
    va_end(ap);
}

/* The absolute figures from J per byte jpb (relative interval rel) and the blocks' rate. */
static void absolute(struct tb_meter_result *o, double jpb, double rel, double idle_w,
                     double idle_ci)
{
    o->jpb = jpb;
    o->jpb_ci = jpb * rel;
    o->gbps_per_w = 1e-9 / jpb;
    o->gbps_per_w_ci95 = o->gbps_per_w * rel;
    o->j_per_gb = jpb * 1e9;
    o->j_per_gb_ci95 = o->j_per_gb * rel;
    double rate = o->gbps * 1e9;   /* bytes per second */
    if (rate > 0 && isfinite(idle_w)) {
        o->dyn_pj_per_byte = (jpb - idle_w / rate) * 1e12;
        o->dyn_pj_per_byte_ci95 = hypot(o->jpb_ci, isfinite(idle_ci) ? idle_ci / rate : 0)
                                  * 1e12;
    }
}

/* What ended the size's cycles, in the note of every row measured in them. */
static void end_note(const struct tb_meter_end *e, const struct tb_meter_track *t,
                     double max_w, struct tb_meter_result *o)
{
    if (e->signal)
        add_note(o, "stopped by a signal in cycle %d: figures from the blocks measured "
                 "before it", e->cycles + 1);
    else if (e->lost || e->error)
        add_note(o, "%s (after %d cycles)", e->why, e->cycles);
    if (t->dropped)
        add_note(o, "%s: %d block(s) dropped", t->drop_why, t->dropped);
    if (t->dropped_readings)
        add_note(o, "%llu reading(s) outside 0..%.0f W dropped during the windows of its "
                 "blocks", t->dropped_readings, max_w);
    if (t->failed)
        add_note(o, "%s: %d block(s) without a figure", t->fail_why, t->failed);
}

/* A point whose blocks drew the board's power limit (the source said the power cap held in
 * half of them or more) while the copy's did not: the cap held its power where the copy's
 * climbed as the card warmed, so its ratio follows the card's temperature and its J per
 * byte does not. Cold against hot on one H200 (tile2x2 and vec16 at 699 of 700 W, the copy
 * at 651): ratios 0.4-0.9% apart, J/GB 0.1751-0.1755 in all four runs
 * (doc/results/h200-2026-11-26-energy2.md). history judges such a row by its J/GB. */
static void cap_note(const struct tb_meter_track *t, const struct tb_meter_track *ref,
                     bool is_ref, int runs, struct tb_meter_result *o)
{
    /* a count only where every block's readings said (a block without: not known) */
    bool known = t->n > 0 && t->reasons_known == t->n;
    o->power_capped_blocks = known ? t->capped : NAN;
    if (!known || !tb_power_capped_majority(t->capped, t->n))
        return;
    bool copy_free = !is_ref && ref && ref->n > 0 && ref->reasons_known == ref->n &&
                     !tb_power_capped_majority(ref->capped, ref->n);
    char why[128] = "";
    if (t->at_limit && t->oc)   /* said: a cap no reason bit showed, and the limit */
        snprintf(why, sizeof(why), " (%d at %.0f%% or more of the enforced power limit, %.1f "
                 "W; %d in an over-current event)", t->at_limit, 100 * TB_METER_AT_LIMIT,
                 t->limit_w, t->oc);
    else if (t->at_limit)
        snprintf(why, sizeof(why), " (%d at %.0f%% or more of the enforced power limit, %.1f "
                 "W)", t->at_limit, 100 * TB_METER_AT_LIMIT, t->limit_w);
    else if (t->oc)
        snprintf(why, sizeof(why), " (%d in an over-current event)", t->oc);
    if (!copy_free)
        add_note(o, "power-capped in %d of %d blocks%s: its rerun interval from capped runs "
                 "alone (%d earlier), and it teaches capped rows alone", t->capped, t->n, why,
                 runs);
    else
        add_note(o, "power-capped in %d of %d blocks%s, the copy in %d of %d: its j_per_gb, "
                 "not energy_ratio, is what a rerun hot or cold reproduces; its rerun interval "
                 "from capped runs alone (%d earlier), and it teaches capped rows alone",
                 t->capped, t->n, why, ref->capped, ref->n, runs);
}

/* Half t's blocks or more at the power cap, every block's reasons known: the row a reader
 * reads as power_capped (logread.c), learning from capped runs alone. */
static bool row_capped(const struct tb_meter_track *t)
{
    return t->n > 0 && t->reasons_known == t->n && tb_power_capped_majority(t->capped, t->n);
}

void tb_meter_figures(const struct tb_meter *m, const struct tb_meter_track *t,
                      const struct tb_meter_track *ref, bool is_ref, double idle_w,
                      double idle_ci, const struct tb_meter_end *end,
                      const struct tb_rerun_sd *bw, struct tb_meter_result *o)
{
    struct tb_rerun_sd capped;
    if (bw && row_capped(t)) {   /* compared with capped runs alone (rerun.h) */
        tb_rerun_as_capped(bw, &capped);
        bw = &capped;
    }
    clear(o, t, bw);
    double between_ratio = bw ? night_rel(bw->ratio) : 0, between_abs = bw ? night_rel(bw->abs) : 0;
    end_note(end, t, m->pc->max_power_w, o);
    if (t->n == 0) {   /* nothing measured: the one case a figure is withheld */
        if (!o->power_note[0])
            add_note(o, "no energy block ran");
        add_note(o, "no power figures");
        return;
    }
    bool paired = ref && !is_ref;
    o->energy_j = t->energy_j;
    o->energy_counter_j = t->counter_j;
    o->gbps = t->secs > 0 ? t->bytes / t->secs / 1e9 : NAN;
    double gmean = NAN, lo, hi;
    o->power_total_w_ci95 = tb_meter_rel_ci(t->w, t->n, &o->power_total_w)
                            * o->power_total_w;
    mean_range(t->gpu_w, t->n, &o->power_gpu_w, &lo, &hi);
    o->gbps_per_w_gpu = o->power_gpu_w > 0 ? o->gbps / o->power_gpu_w : NAN;
    mean_range(t->temp, t->n, &o->gpu_temp_c, &o->gpu_temp_min_c, &o->gpu_temp_max_c);
    double mem_mean;
    mean_range(t->mem_temp, t->n, &mem_mean, &o->mem_temp_min_c, &o->mem_temp_max_c);
    blocks_text(t, paired, o->block_figures, sizeof(o->block_figures));
    /* the copy's J per byte in the blocks beside this point's (the copy's own: all its
     * blocks): the absolute figures hold where this point's blocks ran */
    double copy_jpb, copy_rel = drift_rel(ref ? t->around : t->jpb, t->n, &copy_jpb);
    double rel;
    if (paired) {
        /* the cycles' spread, and what they do not average (meter_cal.c) */
        double cyc = paired_rel(m, t, ref, &o->energy_ratio, &o->energy_ratio_df);
        double rr = hypot(cyc, t->sys_rel);
        o->ratio_ci_part[TB_METER_CI_CYCLES] = cyc;
        for (int k = TB_METER_CI_TAU; k < TB_METER_CI_PARTS; k++)
            o->ratio_ci_part[k] = t->sys_rel > 0 ? t->sys_part[k] : 0;
        o->energy_ratio_ci95 = rr * o->energy_ratio;
        o->energy_ratio_sys_ci95 = t->sys_rel > 0 ? t->sys_rel * o->energy_ratio : NAN;
        o->energy_ratio_rerun_ci95 = rerun_rel(m, t, ref, bw, rr, between_ratio)
                                     * o->energy_ratio;
        rel = hypot(rr, copy_rel);
        absolute(o, o->energy_ratio * copy_jpb, hypot(rel, between_abs), idle_w, idle_ci);
    } else {
        if (ref) {
            o->energy_ratio = 1.0;
            o->energy_ratio_ci95 = o->energy_ratio_rerun_ci95 = 0.0;
        }
        o->rerun_ratio_sd = NAN;   /* the copy's ratio is 1 by definition: no spread of its own */
        rel = hypot(ref ? copy_rel : drift_rel(t->jpb, t->n, &gmean), t->sys_rel);
        absolute(o, ref ? copy_jpb : gmean, hypot(rel, between_abs), idle_w, idle_ci);
    }
    double judged = paired ? o->energy_ratio_ci95 / o->energy_ratio : rel;
    if (!isfinite(judged))
        add_note(o, "%d block(s) with a figure: no interval", t->n);
    else if (judged > m->pc->max_rel_ci)
        add_note(o, "+-%.1f%%, wider than power.max_rel_ci %.1f%% (printed all the same)",
                 100 * judged, 100 * m->pc->max_rel_ci);
    else if (judged > m->pc->target_rel_ci && (end->budget || end->deadline))
        add_note(o, "budget spent at +-%.2f%% (power.target_rel_ci %.2f%%)",
                 100 * judged, 100 * m->pc->target_rel_ci);
    else if (judged > m->pc->target_rel_ci)   /* the size's pooled spread grew after it was
                                               * done, or the copy's drift over its cycles */
        add_note(o, "+-%.2f%%, over power.target_rel_ci %.2f%%", 100 * judged,
                 100 * m->pc->target_rel_ci);
    if (!m->steady)
        add_note(o, "warming %s: absolute figures may still move (the ratio is paired)",
                 m->warm_why);
    /* last: the notes above say what is missing or wide */
    cap_note(t, ref, is_ref, bw ? bw->runs : -1, o);
}
