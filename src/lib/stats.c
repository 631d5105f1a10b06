/* stats.c: see stats.h. The median is the reported figure: it shrugs off the odd slow
 * repetition (a context switch on a Jetson's small cores) that the mean does not. */
#include "lib/stats.h"

#include <math.h>
#include <stdlib.h>

#include "lib/util.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tb_median(double *x, size_t n)
{
    if (n == 0)
        return NAN;
    tb_sort(x, n, sizeof(*x), cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

double tb_sd_of_steps(double *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = fabs(d[i]);
    return tb_median(d, n) / (0.6745 * sqrt(2.0));
}

double tb_sd_of_steps_rms(const double *d, size_t n, double zero_sd, size_t *kept)
{
    double *a = n ? malloc(n * sizeof(double)) : NULL;
    if (kept)
        *kept = 0;
    if (!a)
        return NAN;
    for (size_t i = 0; i < n; i++)
        a[i] = d[i];
    double out = TB_STEPS_OUT * sqrt(2.0) * tb_sd_of_steps(a, n), ss = 0;
    /* half the differences 0 (ratios logged to a few digits repeat): the median says no
     * scale, so the cut takes the caller's (a broken night among repeats moves two
     * differences by a factor of thousands: kept, it alone was the spread), none without */
    if (!(out > 0))
        out = zero_sd > 0 ? TB_STEPS_OUT * sqrt(2.0) * zero_sd : INFINITY;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(d[i]) <= out) {
            ss += d[i] * d[i];
            k++;
        }
    free(a);
    if (kept)
        *kept = k;
    return k ? sqrt(ss / (2.0 * (double)k)) : NAN;
}

double tb_steps_rms_df(size_t m)
{
    return m ? 2.0 * (double)m * (double)m / (3.0 * (double)m - 1.0) : 0.0;
}

void tb_stats_compute(double *x, size_t n, struct tb_stats *st)
{
    st->n = n;
    if (n == 0) {
        st->median = st->min = st->max = st->mean = st->stddev = st->rel_sem = NAN;
        return;
    }
    st->median = tb_median(x, n);
    st->min = x[0];
    st->max = x[n - 1];
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    st->mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - st->mean) * (x[i] - st->mean);
    st->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    st->rel_sem = st->mean > 0 ? st->stddev / sqrt((double)n) / st->mean : NAN;
}

void tb_running_add(struct tb_running *r, double x)
{
    r->n++;
    r->sum += x;
    double d = x - r->mean;
    r->mean += d / (double)r->n;
    r->m2 += d * (x - r->mean);
}

double tb_running_rel_sem(const struct tb_running *r)
{
    if (r->n < 2 || r->mean <= 0)
        return INFINITY;
    double sd = sqrt(r->m2 / (double)(r->n - 1));
    return sd / sqrt((double)r->n) / r->mean;
}

enum tb_stop tb_stop_check(const struct tb_stop_rule *rule, const struct tb_running *r,
                           double wall_ms)
{
    if (r->n >= (size_t)rule->max_reps)
        return TB_STOP_MAX_REPS;
    if (wall_ms >= rule->max_time_ms && r->n >= 1)
        return TB_STOP_MAX_TIME;
    if (r->n < (size_t)rule->min_reps || r->sum < rule->min_time_ms)
        return TB_GO_ON;
    return tb_running_rel_sem(r) <= rule->rel_spread ? TB_STOP_SPREAD : TB_GO_ON;
}

const char *tb_stop_name(enum tb_stop s)
{
    switch (s) {
    case TB_STOP_SPREAD: return "spread";
    case TB_STOP_MAX_REPS: return "max_reps";
    case TB_STOP_MAX_TIME: return "max_time";
    default: return "";
    }
}

double tb_gbps(double bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : NAN;
}

double tb_ratio(double a, double b)
{
    return (isnan(a) || isnan(b) || b == 0) ? NAN : a / b;
}

double tb_t95(size_t df)
{
    static const double t[] = { NAN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
                                2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
                                2.052, 2.048, 2.045, 2.042 };
    if (df < sizeof(t) / sizeof(t[0]))
        return t[df];
    /* past 30: the normal quantile plus the first term of its expansion in 1/df (within
     * 0.002 of the exact value at 31, closer beyond) */
    return 1.95996 + 2.37 / (double)df;
}

double tb_t95_df(double df)
{
    if (!(df > 1))
        return tb_t95(1);
    if (df >= 1e6)
        return tb_t95(1000000);
    size_t k = (size_t)df;
    if ((double)k == df)
        return tb_t95(k);
    /* linear in 1 / df between the whole degrees on either side */
    double a = tb_t95(k), b = tb_t95(k + 1), u = (1.0 / (double)k - 1.0 / df) /
                                               (1.0 / (double)k - 1.0 / (double)(k + 1));
    return a + (b - a) * u;
}

double tb_mean_ci95(const double *x, size_t n, double *half_width)
{
    *half_width = NAN;
    if (n == 0)
        return NAN;
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) {   /* Welford: one pass, no cancellation */
        double d = x[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (x[i] - mean);
    }
    if (n >= 2)
        *half_width = tb_t95(n - 1) * sqrt(m2 / (double)(n - 1)) / sqrt((double)n);
    return mean;
}

bool tb_power_capped_majority(double capped, double blocks)
{
    /* a count past the blocks, or no number, is no count (a log edited by hand) */
    return isfinite(blocks) && capped >= 1 && capped <= blocks && 2 * capped >= blocks &&
           capped == floor(capped) && blocks == floor(blocks);   /* counts are whole */
}
