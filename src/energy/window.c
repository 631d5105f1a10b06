/* window.c: the power of one measurement window, from the readings of a span (plan.c
 * fetches them): the mean total and GPU-rail power (trapezoid over the readings a rail has,
 * edges interpolated), the energy counter's difference across the window where the source
 * has one (exact where a reading is an average: it then gives the mean power), and the
 * temperature and clocks at the window's end; the independent readings (sensor updates, not
 * samples) inside a window and the 95% interval they give, and the period an idle's updates
 * show. The timing is the plan's (plan.h); the meter (meter.c) decides when and how long
 * to measure; this file only reads what it is given. */
#include "energy/window.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy/energy.h"
#include "lib/stats.h"

/* The readings of sp with t in [lo, hi], copied (malloc; *n of them, NULL when none or out
 * of memory): what a read of [lo, hi] alone would have fetched. */
static struct tb_power_sample *part(const struct tb_power_span *sp, int64_t lo, int64_t hi,
                                    size_t *n)
{
    size_t k = 0;
    *n = 0;
    for (size_t i = 0; i < sp->n; i++)
        k += sp->w[i].t_ns >= lo && sp->w[i].t_ns <= hi;
    struct tb_power_sample *w = k ? malloc(k * sizeof(*w)) : NULL;
    for (size_t i = 0; w && i < sp->n; i++)
        if (sp->w[i].t_ns >= lo && sp->w[i].t_ns <= hi)
            w[(*n)++] = sp->w[i];
    return w;
}

/* A rail's index by name; -2 for "sum" (every rail), -1 when none is named or found. */
static int rail_index(const struct tb_power_rails *rails, const char *name)
{
    if (!name || !*name)
        return -1;
    if (!strcmp(name, "sum"))
        return -2;
    for (int i = 0; i < rails->n; i++)
        if (!strcmp(rails->name[i], name))
            return i;
    return -1;
}

static double rail_value(const struct tb_power_sample *s, const struct tb_power_rails *rails,
                         int idx)
{
    if (idx == -2) {
        double sum = 0;
        for (int i = 0; i < rails->n; i++)
            if (!isnan(s->rail_mw[i]))
                sum += s->rail_mw[i];
        return sum;
    }
    return idx >= 0 ? s->rail_mw[idx] : NAN;
}

/* Picks field(i) of the n samples where it is a number: times into t, values into v. */
#define SERIES(w, n, field, t, v, k)                                                       \
    do {                                                                                   \
        k = 0;                                                                             \
        for (size_t i_ = 0; i_ < (n); i_++) {                                              \
            double x_ = (field);                                                           \
            if (!isnan(x_)) {                                                              \
                t[k] = (w)[i_].t_ns;                                                       \
                v[k++] = x_;                                                               \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* Power over a window needs the source to have spoken at or after its end: when it has
 * not (gone silent: a stalled tegrastats) the trapezoid would hold the last reading flat
 * across the silence and log watts, and GB/s per W, from no reading at all. A reading
 * dropped as absurd still shows a live source; a first reading inside the window is held
 * back to its start (a slow source, not a silent one). */
static bool spoke_after(const struct tb_power_sample *w, size_t n, int64_t t1,
                        struct tb_power_figures *f)
{
    if (n && w[n - 1].t_ns >= t1)
        return true;
    snprintf(f->why, sizeof(f->why), "no reading after the window's end: no power figures");
    return false;
}

/* The total rail's series over the samples (the energy counter's where the source has one
 * and counter is set): times into t, values into v; returns how many. */
static size_t total_series(const struct tb_power_sample *w, size_t n,
                           const struct tb_power_rails *rails, int ti, bool counter, int64_t *t,
                           double *v)
{
    size_t k;
    if (counter)
        SERIES(w, n, w[i_].energy_mj, t, v, k);
    else
        SERIES(w, n, rail_value(&w[i_], rails, ti), t, v, k);
    return k;
}

/* The sensor's updates: samples whose value differs from the sample before, with t in
 * (t0, t1]; their times and values into tc, vc (either may be NULL). */
static size_t changes(const int64_t *t, const double *v, size_t k, int64_t t0, int64_t t1,
                      int64_t *tc, double *vc)
{
    size_t m = 0;
    for (size_t i = 1; i < k; i++)
        if (v[i] != v[i - 1] && t[i] > t0 && t[i] <= t1) {
            if (tc)
                tc[m] = t[i];
            if (vc)
                vc[m] = v[i];
            m++;
        }
    return m;
}

static int total_index(const struct tb_power_rails *rails, const struct tb_power_cfg *pc)
{
    int ti = rail_index(rails, pc->total_rail);
    if (ti == -1 && rails->n > 0 && !pc->total_rail[0])
        ti = 0; /* no rule given: the first rail the source reports */
    return ti;
}

int tb_power_total_rails(const struct tb_energy_plan *p, int *first)
{
    int ti = total_index(&p->rails, p->pc);
    *first = ti < 0 ? 0 : ti;
    return ti == -2 ? p->rails.n : ti >= 0 ? 1 : 0;
}

/* The independent readings of the window and their interval: for a reading source, the
 * value of each update; for an energy counter, the power of each increment over the whole
 * counter periods it spans (period_ms; NAN: the polled span).
 * Sets f->updates, f->total_w_ci (scaled to f->total_w) and withholds a wide one. */
/* The relative 95% interval of the window's mean from its batch means: the window cut into
 * nb equal spans of time, each reading (by its start) in one. Readings 100 ms apart are
 * nearly independent of each other but not of a drift over seconds: on an H100 three runs
 * of one kernel drew powers 1.5% apart while each window's readings said +-0.3%. NAN when
 * a batch is empty or nb < 2. */
static double batch_rel(const int64_t *tc, const double *vc, size_t nr, int64_t t0, int64_t t1,
                        int nb)
{
    if (nb < 2 || nr < (size_t)nb)
        return NAN;
    double sum[64] = { 0 }, means[64];
    size_t cnt[64] = { 0 };
    nb = nb > 64 ? 64 : nb;
    for (size_t i = 0; i < nr; i++) {
        int b = (int)((double)(tc[i] - t0) * nb / (double)(t1 - t0));
        b = b < 0 ? 0 : b >= nb ? nb - 1 : b;
        sum[b] += vc[i];
        cnt[b]++;
    }
    for (int b = 0; b < nb; b++) {
        if (!cnt[b])
            return NAN;
        means[b] = sum[b] / (double)cnt[b];
    }
    double hw, mean = tb_mean_ci95(means, (size_t)nb, &hw);
    return mean > 0 ? hw / mean : NAN;
}

/* One reading's relative sd from the differences of successive ones (tb_sd_of_steps): the
 * first idle after a run decays by watts over its second, which the batch means rightly
 * widen the idle's interval for, but which is no noise of a reading. NAN under 3 values. */
static double successive_rel_sd(const double *v, size_t n, double mean)
{
    if (n < 3 || !(mean > 0))
        return NAN;
    double *d = malloc((n - 1) * sizeof(*d));
    if (!d)
        return NAN;
    for (size_t i = 0; i + 1 < n; i++)
        d[i] = v[i + 1] - v[i];
    double sd = tb_sd_of_steps(d, n - 1);
    free(d);
    return sd / mean;
}

static void judge(const int64_t *t, const double *v, size_t k, int64_t t0, int64_t t1,
                  bool counter, double period_ms, const struct tb_power_cfg *pc,
                  struct tb_power_figures *f)
{
    int64_t *tc = malloc((k ? k : 1) * sizeof(*tc));
    double *vc = malloc((k ? k : 1) * sizeof(*vc));
    if (!tc || !vc) {
        free(tc);
        free(vc);
        return;
    }
    size_t m = changes(t, v, k, t0, t1, tc, vc), nr = m;
    f->updates = m;
    if (counter) {
        /* each increment is the energy of whole counter periods: divided by those periods,
         * not by the span between our polls, whose timing (a poll every interval_ms) is
         * not the counter's. On an H100 (NVML, updates every 100 ms, polls every 20 ms)
         * dividing by the polled span gave +-5-10% where this gives +-0.1-0.8% */
        nr = m ? m - 1 : 0;
        /* a counter that moves at (nearly) every poll is read over the polled span */
        double p_ns = period_ms >= 2.0 * pc->interval_ms ? period_ms * 1e6 : 0;
        for (size_t i = 0; i < nr; i++) {
            double span = (double)(tc[i + 1] - tc[i]);
            double periods = p_ns > 0 ? fmax(1.0, round(span / p_ns)) : 0;
            vc[i] = (vc[i + 1] - vc[i]) / (periods > 0 ? periods * p_ns : span) * 1e6;
        }
    }
    double hw, mean = tb_mean_ci95(vc, nr, &hw);
    double rel = mean > 0 ? hw / mean : NAN;
    f->reading_rel_sd = successive_rel_sd(vc, nr, mean);
    double rel_b = batch_rel(tc, vc, nr, t0, t1, pc->batches);
    if (!isnan(rel_b) && rel_b > rel)
        rel = rel_b;   /* the wider: the readings' noise, or a drift across the window */
    double secs = (double)(t1 - t0) * 1e-9;
    f->total_w_ci = rel * f->total_w;
    if (nr < 2 || isnan(rel))
        snprintf(f->why, sizeof(f->why), "%zu sensor update%s in %.1f s: no interval, no "
                 "power figures", m, m == 1 ? "" : "s", secs);
    else
        goto out;
    f->withheld = true;
    f->total_w = f->gpu_w = f->total_w_ci = f->energy_j = f->energy_counter_j = NAN;
out:
    free(tc);
    free(vc);
}

int64_t tb_power_over_margin_ns(const struct tb_power_cfg *pc)
{
    return (int64_t)pc->interval_ms * 4 * 1000000;
}

double tb_power_plan_poll_ms(const struct tb_energy_plan *p, const struct tb_power_cfg *pc)
{
    return p && p->poll_ms > pc->interval_ms ? p->poll_ms : pc->interval_ms;
}

int64_t tb_power_plan_margin_ns(const struct tb_energy_plan *p, const struct tb_power_cfg *pc)
{
    return (int64_t)(4e6 * tb_power_plan_poll_ms(p, pc));
}

void tb_power_over(const struct tb_energy_plan *p, const struct tb_power_cfg *pc,
                   const struct tb_power_span *sp, int64_t t0, int64_t t1,
                   struct tb_power_figures *f)
{
    memset(f, 0, sizeof(*f));
    f->total_w = f->gpu_w = f->energy_j = f->energy_counter_j = f->total_w_ci = NAN;
    f->gpu_temp_c = f->gpu_clock_mhz = f->emc_clock_mhz = f->reading_rel_sd = NAN;
    f->mem_temp_c = NAN;
    int64_t margin = tb_power_plan_margin_ns(p, pc);
    size_t n = 0;
    struct tb_power_sample *w = part(sp, t0 - margin, t1 + margin, &n);
    int64_t *t = malloc((n ? n : 1) * sizeof(*t));
    double *v = malloc((n ? n : 1) * sizeof(*v));
    if (!w || !t || !v || n == 0 || t1 <= t0)
        goto out;
    const struct tb_power_rails *rails = &p->rails;
    double secs = (double)(t1 - t0) * 1e-9;
    int ti = total_index(rails, pc), gi = rail_index(rails, pc->gpu_rail);
    size_t k;
    bool live = spoke_after(w, n, t1, f), counter = false;
    if (ti != -1) {
        k = live ? total_series(w, n, rails, ti, false, t, v) : 0;   /* dropped ones are NAN */
        size_t inside = 0;
        f->energy_j = k ? tb_energy_mj(t, v, k, t0, t1, &inside) * 1e-3 : NAN;
        f->total_w = f->energy_j / secs;
        f->samples = inside;
    }
    if (gi != -1) {
        SERIES(w, n, rail_value(&w[i_], rails, gi), t, v, k);
        if (!live)
            k = 0;
        f->gpu_w = k ? tb_energy_mj(t, v, k, t0, t1, NULL) * 1e-3 / secs : NAN;
    }
    /* the energy counter, read at both edges by the same interpolation */
    SERIES(w, n, w[i_].energy_mj, t, v, k);
    if (k >= 2 && t[0] <= t0 && t[k - 1] >= t1) {
        f->energy_counter_j = (tb_energy_interp(t, v, k, t1) - tb_energy_interp(t, v, k, t0)) * 1e-3;
        /* NVML on an H100: 317 J from the (averaged) readings against 491 J counted over 1 s
         * of memcpy: the counter gives the mean power; energy_j keeps the trapezoid */
        f->total_w = f->energy_counter_j / secs;
        if (!strcmp(pc->gpu_rail, pc->total_rail))
            f->gpu_w = f->total_w;
        counter = true;
    }
    for (size_t i = 0; i < n; i++)
        if (w[i].has_reasons && w[i].t_ns >= t0 && w[i].t_ns <= t1) {
            f->reason_samples++;
            f->capped_samples += (w[i].reasons & TB_POWER_REASON_CAP) != 0;
            /* an over-current event shows in the first reading after it: the reading at
             * t0 (a block starts at a poll) tells of the time before the span */
            f->oc_samples += (w[i].reasons & TB_POWER_REASON_OC) && w[i].t_ns > t0;
        }
    for (size_t i = n; i-- > 0;)
        if (w[i].t_ns <= t1 + margin / 4) {
            f->gpu_temp_c = w[i].gpu_temp_c;
            f->mem_temp_c = w[i].mem_temp_c;
            f->gpu_clock_mhz = w[i].gpu_clock_mhz;
            f->emc_clock_mhz = w[i].emc_clock_mhz;
            break;
        }
    if (!isnan(f->total_w) && (counter || ti != -1)) {
        k = total_series(w, n, rails, ti, counter, t, v);
        judge(t, v, k, t0, t1, counter, p->cadence.period_ms, pc, f);
    }
out:
    free(w);
    free(t);
    free(v);
}

double tb_power_inverted_w(const struct tb_energy_plan *p, const struct tb_power_span *sp,
                           int64_t t0, int64_t t1, size_t *polls)
{
    size_t n = 0;
    *polls = 0;
    struct tb_power_sample *w = part(sp, t0, t1, &n);
    int64_t *t = malloc((n ? n : 1) * sizeof(*t));
    double *v = malloc((n ? n : 1) * sizeof(*v)), mj = NAN;
    const struct tb_power_rails *rails = &p->rails;
    const struct tb_sensor_model *model = &p->cadence.model;
    int ti = total_index(rails, p->pc);
    if (w && t && v && n >= 2 && w[0].t_ns <= t0 && w[n - 1].t_ns >= t1 && ti != -1) {
        mj = 0;
        for (int r = ti == -2 ? 0 : ti; r < (ti == -2 ? rails->n : ti + 1); r++) {
            size_t k;
            SERIES(w, n, (double)w[i_].rail_mw[r], t, v, k);
            if (k < 2) {   /* a rail that said nothing here: no figure for the sum */
                mj = NAN;
                break;
            }
            /* each rail over its own stamps (issue #57: where reads block, a rail read
             * before the poll's end is that much older), from its reading of the span's
             * first poll to its reading of the last: the block's power is constant, so
             * that stretch's mean is the rail's; scaled to [t0, t1] (x 1 where the rail
             * was stamped with the poll) */
            for (size_t i = 0, j = 0; i < n; i++)
                if (!isnan(w[i].rail_mw[r]))
                    t[j++] = tb_power_rail_t_ns(&w[i], r);
            double span = (double)(t[k - 1] - t[0]);
            if (!(span > 0)) {
                mj = NAN;
                break;
            }
            mj += tb_energy_inverted_mj(t, v, k, t[0], t[k - 1],
                                        tb_sensor_model_tau_ms(model, r), polls) *
                  ((double)(t1 - t0) / span);
        }
    }
    free(w);
    free(t);
    free(v);
    return mj / ((double)(t1 - t0) * 1e-6);   /* mJ over ms: W */
}

size_t tb_power_updates(const struct tb_energy_plan *p, const struct tb_power_span *sp,
                        int64_t t0, int64_t t1, int64_t **tc, double **vc)
{
    size_t n = 0, m = 0;
    struct tb_power_sample *w = part(sp, t0, t1, &n);
    int64_t *t = malloc((n ? n : 1) * sizeof(*t)), *times = malloc((n ? n : 1) * sizeof(*t));
    double *v = malloc((n ? n : 1) * sizeof(*v)), *vals = malloc((n ? n : 1) * sizeof(*v));
    int ti = total_index(&p->rails, p->pc);
    if (w && t && times && v && vals && (p->counter || ti != -1)) {
        size_t k = total_series(w, n, &p->rails, ti, p->counter, t, v);
        m = changes(t, v, k, t0, t1, times, vals);
    }
    free(w);
    free(t);
    free(v);
    if (tc)
        *tc = times;
    else
        free(times);
    if (vc)
        *vc = vals;
    else
        free(vals);
    return m;
}

double tb_power_infer_period(const struct tb_energy_plan *p, const struct tb_power_span *sp,
                             int64_t t0, int64_t t1, size_t *intervals)
{
    int64_t *tc = NULL;
    double period = NAN;
    size_t m = tb_power_updates(p, sp, t0, t1, &tc, NULL);
    double *gap = tc && m >= 3 ? malloc((m - 1) * sizeof(*gap)) : NULL;
    *intervals = 0;
    if (gap) {
        for (size_t i = 1; i < m; i++)
            gap[i - 1] = (double)(tc[i] - tc[i - 1]) * 1e-6;
        /* the median, not the shortest: a poll that lands late shortens one gap and a
         * repeated value doubles one; neither moves the median */
        period = tb_median(gap, m - 1);
        *intervals = m - 1;
    }
    free(tc);
    free(gap);
    return period;
}
