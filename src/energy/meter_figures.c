/* meter_figures.c: a point's energy figures from its blocks, and THE one judgement of what
 * is withheld. The primary figure is the ratio of its J per byte to the copy's in the
 * neighbouring blocks, with its 95% interval over cycles; the absolute ones (J/GB, GB/s per
 * W, dynamic pJ/B) follow from it and the copy's own J per byte in those blocks, whose
 * interval holds both their spread and the drift between them. Withheld only what
 * cannot be measured: no block with a figure (too few clean updates, a source lost, a
 * jump). A wide interval is printed with the figure, and said. */
#include "energy/meter.h"
#include "energy/meter_internal.h"

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

/* ---- the variance of a night's mean ratio (#49) -----------------------------------------
 * Each cycle's ratio is its block's J per byte over the mean of the copy's blocks on either
 * side (meter.c, kernel_pair): log r_i = k_i - sum_j A_ij c_j, k the kernel's blocks' and c
 * the copy's relative errors, independent, of variances sk2 and sc2, A_ij 1/2 each side (1
 * where one side alone had a figure). With w = A'1 / n the mean's variance is
 *     Var(mean) = sk2 / n + sc2 |w|^2,    while    E[s_r^2] = sk2 + sc2 (tr AA' - n|w|^2)/(n-1)
 * for the ratios' sample variance s_r^2, whence Var(mean) = E[s_r^2] / n + sc2 D with
 * D = |w|^2 - (tr AA' - n|w|^2) / (n (n - 1)). Where a size runs one kernel its cycles share
 * their copy blocks (C K C K C ...) and D = 1/(2n): the ratios' s^2/n alone is 3/4 of the
 * truth at equal spreads (neighbours are positively correlated, the lag-1 covariance
 * sc2/4); where no copy block is shared D = 0 and s^2/n is the truth. sc2 comes from the
 * copy's blocks by their mean square successive difference (von Neumann, Kent, Bellinson
 * and Hart, Ann. Math. Statist. 12 (1941) 153-162: a drift between neighbours cancels),
 * which for m blocks has the variance of a chi-square of 2(m-1)^2 / (3m-4) degrees of
 * freedom. The two parts' degrees of freedom are combined by Welch-Satterthwaite at their
 * expected sizes with equal kernel and copy spreads (blocks of one length and like
 * power): the t a figure takes then follows from its design alone, and a reader of the
 * log inverts it (rerun.c, tb_rerun_own_var). The interval is the mean's: it holds the
 * night's own true ratio, 95% of the time (meter-sim's coverage_pct); where another night
 * lands is energy_ratio_rerun_ci95. */

/* The copy's blocks' relative variance by successive differences, and its degrees of
 * freedom; NAN with fewer than two blocks in a row. */
static double copy_var(const struct tb_meter_track *ref, double *df)
{
    double sum = 0, ss = 0, prev = NAN;
    int m = 0, d = 0;
    for (int i = 0; ref && i < ref->n && i < TB_METER_MAX_CYCLES; i++) {
        double x = ref->jpb[i];
        if (isfinite(x) && isfinite(prev)) {
            ss += (x - prev) * (x - prev);
            d++;
        }
        if (isfinite(x)) {
            sum += x;
            m++;
        }
        prev = x;
    }
    *df = d ? 2.0 * d * d / (3.0 * d - 1.0) : 0;
    double mean = m ? sum / m : NAN;
    return d && mean > 0 ? ss / (2.0 * d) / (mean * mean) : NAN;
}

/* The design's D and the copy's share of E[s_r^2], cs = (tr AA' - n|w|^2) / (n - 1), over t's
 * n finite ratios (an index -2: a copy block with a figure but past the copy's track, a
 * block of its own). */
static void design(const struct tb_meter_track *t, int n, double *D, double *cs)
{
    double w[TB_METER_MAX_CYCLES] = { 0 }, tr = 0, own = 0, w2 = 0;
    for (int i = 0; i < t->n && i < TB_METER_MAX_CYCLES; i++) {
        if (!isfinite(t->ratio[i]))
            continue;
        int a = t->cb[i][0], b = t->cb[i][1];
        double e = a != -1 && b != -1 ? 0.5 : 1.0;
        for (int s = 0; s < 2; s++) {
            int j = s ? b : a;
            if (j == -1)
                continue;
            tr += e * e;
            if (j >= 0 && j < TB_METER_MAX_CYCLES)
                w[j] += e;
            else
                own += e * e;
        }
    }
    for (int j = 0; j < TB_METER_MAX_CYCLES; j++)
        w2 += w[j] * w[j];
    w2 = (w2 + own) / ((double)n * n);
    *cs = n > 1 ? (tr - n * w2) / (n - 1) : 0;
    *D = n > 1 ? fmax(0.0, w2 - *cs / n) : 0;
}

/* The variance of t's mean ratio from its ratios' own lag-1 autocovariance, where there are
 * TB_METER_LAG_MIN of them or more (NAN where fewer): (S0 + 2 S1) / (n (n - 3)), S0 and S1
 * the sums of squares and of neighbours' products of the ratios' deviations from their
 * mean, over the mean squared; n - 3, not n: the deviations from the sample mean take about
 * three of the mean's variances from S0 + 2 S1 (unbiased where cycles are independent).
 * What a reading shared by two neighbouring blocks adds (an averaging sensor's inversion
 * and an energy counter read at each block's edges: the kernel block and the copy beside
 * it move in opposite ways, neighbouring ratios together) is in it; the design's
 * (ratio_var) is not, so the larger is taken. */
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

/* The relative variance of t's mean ratio from a per-cycle relative variance sr2 of df_r
 * degrees of freedom (the track's own or the size's pooled), and its degrees of freedom
 * into *df; NAN with fewer than two ratios. */
static double ratio_var(const struct tb_meter_track *t, const struct tb_meter_track *ref,
                        double sr2, double df_r, double *df)
{
    int n = 0;
    for (int i = 0; i < t->n && i < TB_METER_MAX_CYCLES; i++)
        n += isfinite(t->ratio[i]);
    *df = df_r;
    if (n < 2 || !isfinite(sr2))
        return NAN;
    double D, cs, dfc, sc2 = copy_var(ref, &dfc);
    design(t, n, &D, &cs);
    if (!(D > 0) || !isfinite(sc2) || !(dfc > 0))
        return sr2 / n;
    double a = (1.0 + cs) / n;   /* the two parts at equal spreads */
    *df = (a + D) * (a + D) / (a * a / df_r + D * D / dfc);
    double v = sr2 / n + D * sc2, lag = lag_var(t);
    return isfinite(lag) && lag > v ? lag : v;
}

/* The ratios' relative sample variance (over their mean) and its degrees of freedom. */
static double own_var(const struct tb_meter_track *t, double *mean, double *df)
{
    double rel = tb_meter_rel_ci(t->ratio, t->n, mean);
    int n = 0;
    for (int i = 0; i < t->n && i < TB_METER_MAX_CYCLES; i++)
        n += isfinite(t->ratio[i]);
    *df = n - 1;
    return isfinite(rel) ? pow(rel * sqrt((double)n) / tb_t95((size_t)n - 1), 2) : NAN;
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
    double sd = NAN, df = 0, mean, sr2, df_r;
    if (!bw)
        return rr * rerun_factor();   /* no night's spread given: the cycles' own */
    if (m->pooled_df > 0 && isfinite(m->pooled_rel_sd)) {
        sr2 = m->pooled_rel_sd * m->pooled_rel_sd;
        df_r = (double)m->pooled_df;
    } else {
        sr2 = own_var(t, &mean, &df_r);
    }
    /* the per-cycle spread whose s^2 / n is the mean's variance (shared copy blocks too) */
    double v = ratio_var(t, ref, sr2, df_r, &df);
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

void tb_meter_pool(struct tb_meter *m, const struct tb_meter_track *tr, size_t n, size_t ref)
{
    double ss = 0;
    size_t df = 0;
    for (size_t j = 0; j < n; j++) {
        double mean;
        if (j == ref || tr[j].n < 2 || isnan(tb_meter_rel_ci(tr[j].ratio, tr[j].n, &mean)))
            continue;
        for (int k = 0; k < tr[j].n && k < TB_METER_MAX_CYCLES; k++)
            if (isfinite(tr[j].ratio[k])) {
                double d = tr[j].ratio[k] / mean - 1.0;
                ss += d * d;
                df++;
            }
        df--;   /* its own mean */
    }
    m->pooled_df = df;
    m->pooled_rel_sd = df > 0 ? sqrt(ss / (double)df) : NAN;
}

/* A paired track's relative 95% half-width of its mean ratio (ratio_var): its own, never
 * narrower than the size's pooled spread gives for its cycles. */
static double paired_rel(const struct tb_meter *m, const struct tb_meter_track *t,
                         const struct tb_meter_track *ref, double *mean)
{
    double df, dfo, so2 = own_var(t, mean, &dfo), v = ratio_var(t, ref, so2, dfo, &df);
    double own = isfinite(v) ? tb_t95_df(df) * sqrt(v) : NAN;
    if (m->pooled_df == 0 || !isfinite(m->pooled_rel_sd) || t->n < 2)
        return own;
    double sp2 = m->pooled_rel_sd * m->pooled_rel_sd;
    double vp = ratio_var(t, ref, sp2, (double)m->pooled_df, &df);
    double pooled = isfinite(vp) ? tb_t95_df(df) * sqrt(vp) : NAN;
    return isfinite(own) && !(own <= pooled) ? own : pooled;
}

double tb_meter_track_rel(const struct tb_meter *m, const struct tb_meter_track *t,
                          const struct tb_meter_track *ref)
{
    double mean;
    return ref ? paired_rel(m, t, ref, &mean) : tb_meter_rerun_rel(t->jpb, t->n, &mean);
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
        double cyc = paired_rel(m, t, ref, &o->energy_ratio), rr = hypot(cyc, t->sys_rel);
        o->ratio_ci_part[TB_METER_CI_CYCLES] = cyc;
        for (int k = TB_METER_CI_TAU; k < TB_METER_CI_PARTS; k++)
            o->ratio_ci_part[k] = t->sys_rel > 0 ? t->sys_part[k] : 0;
        o->energy_ratio_ci95 = rr * o->energy_ratio;
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
