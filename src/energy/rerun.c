/* rerun.c: see rerun.h. The earlier runs come from the logs themselves, read as compare and
 * history read them (bounded, hostile files survived), so a board's nights teach its own
 * spread without a file of their own to keep or lose. */
#include "energy/rerun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "log/logread.h"
#include "log/retention.h"

struct tb_rerun {
    struct tb_logset set;
    size_t *start;                /* log k's rows: set.v[start[k] .. start[k + 1]) */
    bool *kept;                   /* log k ran these kernel images */
    bool *anon;                   /* log k had no device_id line (its rows may have been
                                   * given the one identified device's of their name) */
    char (*run_id)[128];          /* log k's run_id ("" none) */
    size_t nlogs;
};

struct tb_rerun *tb_rerun_learn(const char *dir, const char *host, const char *host_id,
                                const char *board, const char *images, char *line, size_t n)
{
    struct tb_rerun *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    tb_logset_init(&r->set, "rerun");
    /* read at every night's start, on a Nano too: a tune run's thousands of rows are not
     * what a point's nights are, and 100000 rows are about 75 MB */
    r->set.max_rows_per_log = TB_RERUN_MAX_ROWS_PER_LOG;
    r->set.max_rows = TB_RERUN_MAX_ROWS;
    r->set.max_bytes_per_log = TB_RERUN_MAX_BYTES_PER_LOG;   /* a gzip bomb: not 1 GB a log */
    r->set.bounds_quiet = true;   /* a tune log past them, every night: the line says so */
    struct tb_log_entry *v = NULL;
    long got = tb_logs_ours(dir, host, host_id, board, NULL, &v);
    if (got < 0) {
        snprintf(line, n, "cannot open '%s': %s: the board file's settings alone", dir,
                 strerror((int)-got));
        return r;
    }
    size_t take = (size_t)got < TB_RERUN_MAX_LOGS ? (size_t)got : TB_RERUN_MAX_LOGS;
    r->kept = calloc(take + 1, sizeof(*r->kept));
    r->start = calloc(take + 1, sizeof(*r->start));
    r->run_id = calloc(take + 1, sizeof(*r->run_id));
    r->anon = calloc(take + 1, sizeof(*r->anon));
    if (!r->kept || !r->start || !r->run_id || !r->anon) {
        free(v);
        tb_rerun_free(r);
        return NULL;
    }
    size_t kept = 0, k = 0;
    /* past the bounds, an older log could add nothing but a message of its own */
    for (; k < take && r->set.n < r->set.max_rows && r->set.bytes_read < TB_RERUN_MAX_BYTES;
         k++) {
        char path[8192];
        snprintf(path, sizeof(path), "%s/%s", dir, v[k].name);
        r->start[k] = r->set.n;
        size_t before = r->set.nlogs;
        tb_logread(&r->set, path);
        r->start[k + 1] = r->set.n;
        r->kept[k] = r->set.nlogs > before &&
                     !strcmp(r->set.logs[r->set.nlogs - 1].images, images);
        if (r->set.nlogs > before) {
            memcpy(r->run_id[k], r->set.logs[before].run_id, sizeof(r->run_id[k]));
            r->anon[k] = !r->set.logs[before].device_id[0];
        }
        kept += r->kept[k];
        r->nlogs = k + 1;
    }
    free(v);
    tb_logset_fill_device_ids(&r->set);   /* an older log of the one GPU of its name: its */
    int len = snprintf(line, n, "%zu earlier log(s) of this host and board read in '%s' (the "
                       "newest %d at most), %zu of them of these kernel images (sha256 "
                       "%.12s...)", r->nlogs, dir, TB_RERUN_MAX_LOGS, kept, images);
    if (k < take && len >= 0 && (size_t)len < n)
        snprintf(line + len, n - (size_t)len, "; %zu older one(s) not read, %zu rows or %llu MB "
                 "read already", take - k, (size_t)TB_RERUN_MAX_ROWS, TB_RERUN_MAX_BYTES >> 20);
    return r;
}

void tb_rerun_free(struct tb_rerun *r)
{
    if (!r)
        return;
    tb_logset_free(&r->set);
    free(r->start);
    free(r->kept);
    free(r->run_id);
    free(r->anon);
    free(r);
}

/* A row of me's card and step: its device (by identity where both logs have one), board and
 * operating step. A night whose device gave no identity (anon: the row's log had none
 * either) is not known to be an identified device of its name, so it learns from the
 * unidentified logs of its name alone, never from an identified GPU's (#58 item 10). */
static bool same_card(const struct tb_log_rec *a, bool anon, const struct tb_log_rec *me)
{
    if (!me->device_id[0] && !anon)
        return false;
    return !tb_log_device_cmp(a, me) && !strcmp(a->board, me->board) && !tb_log_step_cmp(a, me);
}

/* A row whose figures can teach the spread of rows capped as it is: a result, the ratio with
 * its cycles' interval, J per byte, two cycles or more. One held at the power limit (its
 * ratio follows the card's temperature: cap_note in meter_figures.c) teaches capped rows
 * alone, and an uncapped one uncapped rows alone. */
static bool teaches(const struct tb_log_rec *a, bool capped)
{
    return tb_log_usable(a) && !a->failed_night && !a->bad_time && a->energy_ratio > 0 &&
           isfinite(a->energy_ratio) && a->energy_ratio_ci95 > 0 &&
           isfinite(a->energy_ratio_ci95) &&
           a->j_per_gb > 0 && isfinite(a->j_per_gb) && a->power_cycles >= 2 &&
           a->power_capped == capped;
}

/* Log k is a copy of a newer one read (the same run_id: a log kept under a second name): one
 * run, not two, or its copy alone would count as the two runs a spread needs. */
static bool a_copy(const struct tb_rerun *r, size_t k)
{
    const char *id = r->run_id[k];
    for (size_t j = 0; id[0] && j < k; j++)
        if (!strcmp(r->run_id[j], id))
            return true;
    return false;
}

/* A candidate row: which log (newest first), and whether blocks part series. */
struct cand {
    const struct tb_log_rec *a;
    size_t k;
    bool by_block;
};

static int series_cmp(const struct cand *x, const struct cand *y)
{
    const struct tb_log_rec *a = x->a, *b = y->a;
    int c;
    if ((c = strcmp(a->kernel, b->kernel)) || (c = strcmp(a->elem, b->elem)))
        return c;
    if (a->rows != b->rows || a->cols != b->cols)
        return a->rows != b->rows ? (a->rows > b->rows) - (a->rows < b->rows)
                                  : (a->cols > b->cols) - (a->cols < b->cols);
    if (x->by_block && (a->bx != b->bx || a->by != b->by))
        return a->bx != b->bx ? (a->bx > b->bx) - (a->bx < b->bx) : (a->by > b->by) - (a->by < b->by);
    return 0;
}

/* Series, then runs newest first, then the fastest row of a run first. */
static int by_series_run(const void *p, const void *q)
{
    const struct cand *x = p, *y = q;
    int c = series_cmp(x, y);
    if (c)
        return c;
    if (x->k != y->k)
        return (x->k > y->k) - (x->k < y->k);
    return (x->a->gbps < y->a->gbps) - (x->a->gbps > y->a->gbps);
}

double tb_rerun_cycles_df(int cycles)
{
    return cycles < 2 ? 0 : cycles < TB_RERUN_TREND_CYCLES ? 2.0 * cycles - 2 : 2.0 * cycles - 3;
}

/* At equal spreads s^2 of every block the old variance's two parts were a s^2 and b s^2: the
 * ratios' sample variance over n, a = (3n - 1) / (2n^2), of n - 1 degrees, and the copy's n
 * successive differences, b = 1 / (2n), of 2n^2 / (3n - 1) (von Neumann et al., Ann. Math.
 * Statist. 12 (1941) 153-162); Welch-Satterthwaite combined them (meter_figures.c as of
 * 7a838f5, and this function's body until 54ebd8f). */
double tb_rerun_cycles_df_welch(int cycles)
{
    double n = cycles, a = (3 * n - 1) / (2 * n * n), b = 1 / (2 * n);
    double dfc = 2 * n * n / (3 * n - 1);
    return cycles < 2 ? 0 : (a + b) * (a + b) / (a * a / (n - 1) + b * b / dfc);
}

/* Logs written before the cycles' interval was the mean's (2026-11-28) logged where a rerun of
 * as many cycles lands, sqrt(2) t(n - 1) times the mean's sd from the ratios alone: read as
 * the Welch-Satterthwaite ones after them (their date's definition: tb_rerun_row_df), their
 * own variance reads 2.2 (12 cycles) to 3.7 (3) times too high and the between-night term
 * low, until they age out of the newest TB_RERUN_MAX_RUNS. */
double tb_rerun_own_var_df(double ratio, double ci, double df)
{
    double se = ci / ratio / tb_t95_df(df);
    return se * se;
}

double tb_rerun_own_var(double ratio, double ci, int cycles)
{
    return tb_rerun_own_var_df(ratio, ci, tb_rerun_cycles_df(cycles));
}

double tb_rerun_row_df(const struct tb_log_rec *a)
{
    if (a->energy_ratio_df > 0)
        return a->energy_ratio_df;
    return a->ci95_welch ? tb_rerun_cycles_df_welch(a->power_cycles)
                         : tb_rerun_cycles_df(a->power_cycles);
}

/* The cycles' part of a row's energy_ratio_ci95, whose t its degrees are: the interval less
 * its systematic part (energy_ratio_sys_ci95: the sensor constants, the register's step, the
 * model's floor, which do not shrink as 1 / sqrt(cycles) and are no night's own variance),
 * sqrt(ci^2 - sys^2), 0 where rounding leaves less. A log without the column (before
 * 2026-12-08), or a row without that part: the whole interval, as it was read until then;
 * on an inverted Jetson sensor its own variance then reads (1 + (sys / cycles)^2) times
 * high, 1.35x at a cycles' part of 0.17% beside 0.10%, and the between-night term low. */
static double cycles_ci(const struct tb_log_rec *a)
{
    double ci = a->energy_ratio_ci95, sys = a->energy_ratio_sys_ci95;
    return isfinite(sys) && isfinite(ci) ? sqrt(fmax(ci * ci - sys * sys, 0.0)) : ci;
}

/* The card's runs as the pool takes them, into *out (malloc); how many (0: none). */
static size_t card_runs(const struct tb_rerun *r, const struct tb_log_rec *me, bool by_block,
                        bool capped, struct tb_rerun_run **out)
{
    *out = NULL;
    struct cand *c = malloc((r->set.n ? r->set.n : 1) * sizeof(*c));
    size_t nc = 0, n = 0;
    if (!c)
        return 0;   /* no memory: the settings */
    for (size_t k = 0; k < r->nlogs; k++) {
        if (!r->kept[k] || a_copy(r, k))
            continue;
        for (size_t i = r->start[k]; i < r->start[k + 1]; i++)
            if (same_card(&r->set.v[i], r->anon[k], me) && teaches(&r->set.v[i], capped))
                c[nc++] = (struct cand){ &r->set.v[i], k, by_block };
    }
    qsort(c, nc, sizeof(*c), by_series_run);
    struct tb_rerun_run *v = nc ? malloc(nc * sizeof(*v)) : NULL;
    int series = -1, kept = 0;
    for (size_t i = 0; v && i < nc; i++) {
        bool new_series = !i || series_cmp(&c[i], &c[i - 1]);
        if (!new_series && c[i].k == c[i - 1].k)
            continue;   /* one row a series a run: its fastest */
        series += new_series;
        kept = new_series ? 0 : kept;
        if (kept++ >= TB_RERUN_MAX_RUNS)
            continue;
        const struct tb_log_rec *a = c[i].a;
        double df = tb_rerun_row_df(a);
        v[n++] = (struct tb_rerun_run){ series, a->energy_ratio, a->j_per_gb,
                                        tb_rerun_own_var_df(a->energy_ratio, cycles_ci(a), df),
                                        a->power_cycles, df };
    }
    free(c);
    *out = v;
    return n;
}

void tb_rerun_sd(struct tb_rerun *r, const struct tb_log_rec *me,
                 const struct tb_power_cfg *pc, struct tb_rerun_sd *out)
{
    struct tb_rerun_run *v = NULL;
    bool by_block = strcmp(pc->points, "fastest") != 0;
    size_t n = r ? card_runs(r, me, by_block, true, &v) : 0;
    struct tb_rerun_sd cap;
    tb_rerun_pool(v, n, pc, &cap);
    free(v);
    n = r ? card_runs(r, me, by_block, false, &v) : 0;
    tb_rerun_pool(v, n, pc, out);
    free(v);
    out->cap = (struct tb_rerun_cap){ cap.ratio, cap.abs, cap.runs, cap.pairs, cap.ratio_df,
                                      cap.within_rel_sd, cap.within_df, cap.ratio_excess,
                                      cap.ratio_q95 };
}

void tb_rerun_as_capped(const struct tb_rerun_sd *in, struct tb_rerun_sd *out)
{
    const struct tb_rerun_cap *c = &in->cap;
    *out = (struct tb_rerun_sd){ c->ratio, c->abs, c->runs, c->pairs, c->ratio_df,
                                 c->within_rel_sd, c->within_df, c->ratio_excess, c->ratio_q95,
                                 *c };
}

/* ---- the pool: a card's runs to its spreads ---------------------------------------------- */

/* The median of n values of a variance each estimated with df degrees of freedom, over the
 * median's own bias: a chi-square's median is about df (1 - 2 / (9 df))^3 (Wilson and
 * Hilferty), so the median of a few runs' variances of 2 degrees each reads 30% low. */
static double median_var(double *x, size_t n, double df)
{
    double m = tb_median(x, n), b = 1.0 - 2.0 / (9.0 * fmax(df, 1.0));
    return m / (b * b * b);
}

/* The learned variance s2 over d differences (ddf degrees of freedom), pulled toward the
 * setting p (k differences' weight) while d is small, capped at TB_RERUN_MAX_FACTOR x p
 * where p > 0. The setting is an estimate too, of TB_RERUN_PRIOR_DF degrees of freedom (a
 * scaled inverse chi-square prior; rerun.h): the pulled spread has its and the
 * differences' together, so that its interval's t carries both. */
static double pulled(double p, double s2, size_t d, double ddf, double *df)
{
    if (d >= TB_RERUN_POOL_MIN || !(p > 0)) {
        *df = ddf;                /* the differences' mean square's (tb_steps_rms_df) */
        return sqrt(s2);
    }
    *df = TB_RERUN_PRIOR_DF + ddf;
    double sd = sqrt((TB_RERUN_PRIOR_RUNS * p * p + (double)d * s2) / (TB_RERUN_PRIOR_RUNS + (double)d));
    return fmin(sd, TB_RERUN_MAX_FACTOR * p);
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* How many of the n sorted |d| in a lie past TB_STEPS_OUT sds as their 25th percentile gives
 * them (0.3186 sds of a normal difference; where it is 0, repeats, the setting's as
 * tb_sd_of_steps_rms takes it). */
static size_t past_low(const double *a, size_t n, double zero_sd)
{
    double q = a[(size_t)ceil(0.25 * (double)n) - 1];
    double cut = q > 0 ? TB_STEPS_OUT * q / 0.3186
                 : zero_sd > 0 ? TB_STEPS_OUT * sqrt(2.0) * zero_sd : INFINITY;
    size_t k = 0;
    while (k < n && a[n - 1 - k] > cut)
        k++;
    return k;
}

/* sqrt(mean d^2 / 2) of the k sorted |d| in a, *kept = k. */
static double rms_of(const double *a, size_t k, size_t *kept)
{
    double ss = 0;
    for (size_t i = 0; i < k; i++)
        ss += a[i] * a[i];
    *kept = k;
    return sqrt(ss / (2.0 * (double)k));
}

/* The nearest cut of a card's first nights: TB_STEPS_OUT sds of a difference (sqrt 2 of a
 * night's) at TB_RERUN_MAX_FACTOR times the setting p: 11.3% at the Jetson files' 0.4%.
 * Below TB_RERUN_POOL_MIN differences that is the widest between-night spread the pool
 * takes (pulled's cap), so a difference the learner's own ceiling makes plausible is no
 * outlier; with so few their median says little of their scale (one of 3 is a switch of a
 * two-state card 3 times in 8). From TB_RERUN_POOL_MIN to TB_RERUN_CONFORMAL_MIN - 1
 * differences no cap holds: there the same cut is a chosen floor, not derived, kept until
 * the 25th percentile's cut (past_low) can find a cluster of switches itself; the rerun
 * calibration (doc/results/rerun-2026-12-07b.md) is what backs it there. 0 without a
 * setting. */
static double first_cut(double p)
{
    return p > 0 ? TB_STEPS_OUT * sqrt(2.0) * TB_RERUN_MAX_FACTOR * p : 0;
}

/* The differences' spread, sqrt(mean d^2 / 2) over those kept, *kept how many. A broken
 * night moves two differences and a step of the board one, so the median's cut
 * (tb_sd_of_steps_rms: TB_STEPS_OUT median-based sds) leaves such few out; on a card's
 * first nights (fewer than TB_RERUN_CONFORMAL_MIN differences) no nearer than first_cut,
 * where a first step and a two-state card's first switch look alike, and are kept. Where more than
 * two and more than TB_RERUN_CLUSTER_SHARE of them lie past it, they are no accident but a
 * second population: a card that is in one of two states from night to night, whose
 * switches are its spread (where they are more than half, the median lies among them and
 * its cut keeps them: from TB_RERUN_CONFORMAL_MIN differences on, the 25th percentile's cut
 * finds them). Then the cut is TB_STEPS_OUT sds as the differences' 80th percentile gives
 * them (1.2816 sds of a normal difference), which keeps such a cluster and still leaves out
 * up to a fifth of strays beyond it; and a normal interval of their variance would hold
 * such a two-point mixture's next difference more often than 95% (98-100% for a card
 * switching 2-4%: doc/results/rerun-2026-12-07.md), so *q95 (NULL: not asked) is the kept
 * |d|'s own ceil(0.95 (k + 1))-th smallest where k >= TB_RERUN_CONFORMAL_MIN: of k + 1
 * exchangeable differences the next is at or below it 95% of the time or more (split
 * conformal prediction: Lei et al., "Distribution-free predictive inference for
 * regression", JASA 113 (2018), 1094-1111); NAN otherwise. */
static double steps_spread(const double *d, size_t n, double zero_sd, size_t *kept,
                           double *q95)
{
    double s = tb_sd_of_steps_rms(d, n, zero_sd, kept);
    if (q95)
        *q95 = NAN;
    double *a = n ? malloc(n * sizeof(*a)) : NULL;
    if (!a)
        return s;
    for (size_t i = 0; i < n; i++)
        a[i] = fabs(d[i]);
    qsort(a, n, sizeof(*a), dbl_cmp);
    /* a card's first nights: a cut no nearer than the widest spread the learner takes from
     * them (TB_RERUN_MAX_FACTOR x the setting), so a first switch or two of a two-state card
     * is kept, not cut as a broken night would be */
    double least = n < TB_RERUN_CONFORMAL_MIN ? first_cut(zero_sd) : 0;
    size_t k = *kept, past;
    while (k < n && a[k] <= least)
        k++;
    if (k > *kept)
        s = rms_of(a, k, kept);
    past = n - *kept;
    if (n >= TB_RERUN_CONFORMAL_MIN)
        past = past > past_low(a, n, zero_sd) ? past : past_low(a, n, zero_sd);
    if (past <= 2 || (double)past <= TB_RERUN_CLUSTER_SHARE * (double)n) {
        free(a);
        return s;
    }
    double cut = fmax(TB_STEPS_OUT * a[(size_t)ceil(0.8 * (double)n) - 1] / 1.2816, least);
    for (k = 0; k < n && a[k] <= cut; k++)
        ;
    if (q95 && k >= TB_RERUN_CONFORMAL_MIN)   /* a[0..k) are the kept, ascending */
        *q95 = a[(size_t)ceil(0.95 * (double)(k + 1)) - 1];
    if (k > *kept)
        s = rms_of(a, k, kept);
    free(a);
    return s;
}

void tb_rerun_pool(const struct tb_rerun_run *v, size_t n, const struct tb_power_cfg *pc,
                   struct tb_rerun_sd *out)
{
    /* none learned: the settings, an estimate of TB_RERUN_PRIOR_DF degrees (none: 0) */
    double pdf = pc->rerun_ratio_sd > 0 ? TB_RERUN_PRIOR_DF : INFINITY;
    *out = (struct tb_rerun_sd){ pc->rerun_ratio_sd, pc->rerun_abs_sd, 0, 0, pdf, NAN, 0, NAN,
                                 NAN, { pc->rerun_ratio_sd, pc->rerun_abs_sd, 0, 0, pdf, NAN,
                                        0, NAN, NAN } };
    double *dr = malloc((n ? n : 1) * 5 * sizeof(double));
    if (!dr)
        return;
    double *dj = dr + n, *own = dj + n, *cyc = own + n, *wv = cyc + n, wdf = 0, ddf = 0;
    size_t d = 0, runs = 0, m = 0;   /* m: the differences of the series at hand */
    for (size_t i = 0; i < n; i++) {
        own[i] = v[i].own;
        cyc[i] = v[i].df;   /* its own variance's, as logged */
        wv[i] = v[i].own * v[i].cycles;   /* per cycle */
        wdf += cyc[i];
        if (i + 1 < n && v[i + 1].series == v[i].series) {
            dr[d] = log(v[i + 1].ratio / v[i].ratio);
            dj[d++] = log(v[i + 1].jpb / v[i].jpb);
            runs += !i || v[i - 1].series != v[i].series ? 2 : 1;
            m++;
        } else {
            ddf += tb_steps_rms_df(m);
            m = 0;
        }
    }
    if (n) {
        double nu = tb_median(cyc, n);
        out->within_rel_sd = sqrt(median_var(wv, n, nu));
        out->within_df = fmin(wdf, TB_RERUN_WITHIN_DF_MAX);
    }
    if (d) {
        /* the differences left out (broken nights, steps) take their share of ddf along,
         * and count for nothing: the settings' weight and the learned-alone rule go by the
         * ones kept (a broken night among six nights leaves three, not five); where half
         * are 0 (repeats) the settings' sd sets the cut (tb_sd_of_steps_rms) */
        size_t kr, kj;
        double nu = tb_median(cyc, n);
        double sr = steps_spread(dr, d, pc->rerun_ratio_sd, &kr, &out->ratio_q95);
        double sj = steps_spread(dj, d, pc->rerun_abs_sd, &kj, NULL);
        double ex = sr * sr - median_var(own, n, nu), s2 = fmax(0.0, ex), dfj;
        out->ratio = pulled(pc->rerun_ratio_sd, s2, kr, ddf * (double)kr / (double)d,
                            &out->ratio_df);
        out->ratio_excess = kr >= TB_RERUN_POOL_MIN ? ex : NAN;
        out->abs = pulled(pc->rerun_abs_sd, sj * sj, kj, ddf * (double)kj / (double)d, &dfj);
        out->pairs = (int)d;
        out->runs = (int)runs;
    }
    free(dr);
}

void tb_rerun_settings_said(const struct tb_power_cfg *pc, char *buf, size_t n)
{
    int len = snprintf(buf, n, "power.rerun_ratio_sd %.2f%%, power.rerun_abs_sd %.2f%% (each "
                       "counts as %d difference(s) while fewer than %d are pooled)",
                       100 * pc->rerun_ratio_sd, 100 * pc->rerun_abs_sd, TB_RERUN_PRIOR_RUNS,
                       TB_RERUN_POOL_MIN);
    if (pc->rerun_ratio_sd > 0 && len >= 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, "; rows of rerun_runs 0 rest on them alone (prior "
                 "only): their rerun interval takes power.rerun_ratio_sd as an estimate of %g "
                 "degree(s) of freedom, not as known (t %.1f)", TB_RERUN_PRIOR_DF,
                 tb_t95_df(TB_RERUN_PRIOR_DF));
}

double tb_rerun_halfwidth(const struct tb_rerun_sd *bw, double sd_night, double df_night,
                          int cycles)
{
    double s2 = NAN, df = 0;
    if (isfinite(sd_night) && df_night > 0) {
        s2 = sd_night * sd_night;
        df = df_night;
    }
    if (bw && isfinite(bw->within_rel_sd) && bw->within_df > 0) {
        double w = bw->within_rel_sd * bw->within_rel_sd;
        s2 = df > 0 ? (df * s2 + bw->within_df * w) / (df + bw->within_df) : w;
        df += bw->within_df;
    }
    if (!(df > 0) || cycles < 1)
        return NAN;
    double vw = 2.0 * s2 / cycles, b = bw && isfinite(bw->ratio) ? bw->ratio : 0.0;
    double vb = 2.0 * b * b;
    /* learned alone, the excess enters as it was estimated, below 0 too: clipped at 0, its
     * noise alone (then median-based, 0.37 d degrees of freedom) made the interval 14%
     * wider than an oracle's where nights do not differ (meter-sim --between-pct 0: 98% of
     * the next nights held); the sum never below half the night's own part */
    if (bw && bw->pairs >= TB_RERUN_POOL_MIN && isfinite(bw->ratio_excess))
        vb = 2.0 * bw->ratio_excess;
    double var = fmax(vw + vb, TB_RERUN_EXCESS_FLOOR * vw);
    /* Welch-Satterthwaite adds positive variance components; an excess estimated below 0
     * says the nights do not differ beyond their own noise, and its square is no variance
     * of anything: taken as one (a first GPU check, one H200 on 2026-11-28: 4 differences,
     * 1.5 degrees, t(1) = 12.7), it made the interval +-2.2% where five nights' ratios lay
     * within 0.05% sd. Below 0 it narrows the sum, the floor holds it, and the degrees are
     * the nights' own. */
    double den = vw * vw / df + (bw && vb > 0 && isfinite(bw->ratio_df) && bw->ratio_df > 0
                                 ? vb * vb / bw->ratio_df : 0.0);
    double dfe = den > 0 ? var * var / den : INFINITY;
    /* a two-state card: its differences' own bound (rerun.c, steps_spread), never below
     * where the night's own noise alone puts a rerun */
    if (bw && bw->ratio_q95 > 0 && isfinite(bw->ratio_q95))
        return fmax(bw->ratio_q95, tb_t95_df(df) * sqrt(vw));
    return tb_t95_df(dfe) * sqrt(var);
}
