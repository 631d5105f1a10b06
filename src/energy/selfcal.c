/* selfcal.c: see selfcal.h. The fit is separable: for a given tau and dead time D each
 * step's window is linear in its three levels, solved exactly; tau and D are searched (a
 * grid, then golden sections, coordinate by coordinate). The windows are fixed by the
 * largest D searched, so that every (tau, D) is judged on the same readings. */
#include "energy/selfcal.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

#define GROUPS 8          /* the jackknife's groups of steps, at most */
#define GOLDEN 0.6180339887498949

struct ctx {
    const double *tm, *r;        /* readings: ms from the first switch, mW */
    size_t n;
    const double *sm;            /* the switches, ms from the first */
    size_t k;                    /* switches; the steps fitted are 1..k-2 */
    const bool *use;             /* step j has readings on both sides */
    const int *group;            /* step j's jackknife group */
    int skip;                    /* the group left out (-1: none) */
};

static size_t lower_bound(const double *v, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Step j's window's basis at reading i: before the step (i < mid) the level before and the
 * swing left from the step before; after, the same swing decaying on and the level after. */
static void basis(const struct ctx *c, size_t i, size_t mid, double s0, double s1, double tau,
                  double g, double *b)
{
    if (i < mid) {
        b[0] = 1;
        b[1] = exp(-(c->tm[i] - s0) / tau);
        b[2] = 0;
    } else {
        double u = exp(-(c->tm[i] - s1) / tau);
        b[0] = u;
        b[1] = g * u;
        b[2] = 1 - u;
    }
}

/* Solves the 3x3 system a x = y (a symmetric, kept): 0, or -1 where singular. */
static int solve3(double a[3][3], double y[3], double x[3])
{
    double m[3][4];
    for (int i = 0; i < 3; i++) {
        memcpy(m[i], a[i], sizeof(a[i]));
        m[i][3] = y[i];
    }
    for (int c = 0; c < 3; c++) {
        int p = c;
        for (int i = c + 1; i < 3; i++)
            if (fabs(m[i][c]) > fabs(m[p][c]))
                p = i;
        if (!(fabs(m[p][c]) > 1e-12))
            return -1;
        for (int j = 0; j < 4; j++) {
            double t = m[c][j];
            m[c][j] = m[p][j];
            m[p][j] = t;
        }
        for (int i = c + 1; i < 3; i++) {
            double f = m[i][c] / m[c][c];
            for (int j = c; j < 4; j++)
                m[i][j] -= f * m[c][j];
        }
    }
    for (int c = 2; c >= 0; c--) {
        double s = m[c][3];
        for (int j = c + 1; j < 3; j++)
            s -= m[c][j] * x[j];
        x[c] = s / m[c][c];
    }
    return 0;
}

/* Step j's least squares at (tau, D): its residuals' sum of squares. */
static double sse_step(const struct ctx *c, size_t j, double tau, double d)
{
    double s0 = c->sm[j - 1] + d, s1 = c->sm[j] + d, s2 = c->sm[j + 1] + d;
    size_t lo = lower_bound(c->tm, c->n, s0), mid = lower_bound(c->tm, c->n, s1),
           hi = lower_bound(c->tm, c->n, s2);
    double mean = 0, g = exp(-(s1 - s0) / tau), a[3][3] = { { 0 } }, y[3] = { 0 }, x[3], b[3];
    for (size_t i = lo; i < hi; i++)
        mean += c->r[i];
    mean /= (double)(hi - lo);
    for (size_t i = lo; i < hi; i++) {
        basis(c, i, mid, s0, s1, tau, g, b);
        for (int p = 0; p < 3; p++) {
            y[p] += b[p] * (c->r[i] - mean);
            for (int q = 0; q < 3; q++)
                a[p][q] += b[p] * b[q];
        }
    }
    if (solve3(a, y, x))
        return NAN;
    double sse = 0;
    for (size_t i = lo; i < hi; i++) {
        basis(c, i, mid, s0, s1, tau, g, b);
        double e = c->r[i] - mean - (x[0] * b[0] + x[1] * b[1] + x[2] * b[2]);
        sse += e * e;
    }
    return sse;
}

static double sse(const struct ctx *c, double tau, double d)
{
    double sum = 0;
    for (size_t j = 1; j + 1 < c->k; j++)
        if (c->use[j] && c->group[j] != c->skip) {
            double e = sse_step(c, j, tau, d);
            if (isfinite(e))
                sum += e;
        }
    return sum;
}

/* The best D in [lo, hi] at tau, golden sections (its sse into *f). */
static double best_delay(const struct ctx *c, double tau, double lo, double hi, int its,
                         double *f)
{
    lo = fmax(0, lo);
    hi = fmin(TB_SELFCAL_MAX_DELAY_MS, hi);
    double a = lo, b = hi, x1 = b - GOLDEN * (b - a), x2 = a + GOLDEN * (b - a);
    double f1 = sse(c, tau, x1), f2 = sse(c, tau, x2);
    for (int it = 0; it < its; it++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - GOLDEN * (b - a);
            f1 = sse(c, tau, x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + GOLDEN * (b - a);
            f2 = sse(c, tau, x2);
        }
    }
    *f = fmin(f1, f2);
    return f1 <= f2 ? x1 : x2;
}

/* The profile of the sse over tau in [lo, hi] (golden sections, its), each tau with its
 * best D within dspan ms of *d: tau and D are nearly interchangeable along the valley (a
 * longer dead time reads like a slower average), so D is fitted inside every tau's look. */
static double best_tau(const struct ctx *c, double lo, double hi, int its, double *d,
                       double dspan, int dits)
{
    double a = lo, b = hi, x1 = b - GOLDEN * (b - a), x2 = a + GOLDEN * (b - a), f1, f2;
    double d0 = *d, d1 = best_delay(c, x1, d0 - dspan, d0 + dspan, dits, &f1),
           d2 = best_delay(c, x2, d0 - dspan, d0 + dspan, dits, &f2);
    for (int it = 0; it < its; it++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            d2 = d1;
            x1 = b - GOLDEN * (b - a);
            d1 = best_delay(c, x1, d0 - dspan, d0 + dspan, dits, &f1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            d1 = d2;
            x2 = a + GOLDEN * (b - a);
            d2 = best_delay(c, x2, d0 - dspan, d0 + dspan, dits, &f2);
        }
    }
    *d = f1 <= f2 ? d1 : d2;
    return f1 <= f2 ? x1 : x2;
}

/* The night's own fit and its jackknife sds into out (night_tau_*, delay_*, df): tau on a
 * coarse grid over the prior's factor 2.5 each way, each with its best D over the whole
 * range searched, then the profile around the best; each group left out in turn from
 * there. */
static void night_fit(struct ctx *c, double prior, int groups, struct tb_selfcal *out)
{
    c->skip = -1;
    double tau = prior, d = 0, fb = INFINITY;
    for (int i = 0; i < 25; i++) {
        double x = prior / 2.5 * pow(6.25, i / 24.0), dx, f;
        dx = best_delay(c, x, 0, TB_SELFCAL_MAX_DELAY_MS, 14, &f);
        if (f < fb) {
            fb = f;
            tau = x;
            d = dx;
        }
    }
    tau = best_tau(c, tau / 1.08, tau * 1.08, 18, &d, 15, 14);
    double jt[GROUPS], jd[GROUPS], mt = 0, md = 0;
    for (int g = 0; g < groups; g++) {
        c->skip = g;
        jd[g] = d;
        jt[g] = best_tau(c, tau / 1.02, tau * 1.02, 12, &jd[g], 8, 10);
        mt += jt[g] / groups;
        md += jd[g] / groups;
    }
    c->skip = -1;
    double vt = 0, vd = 0;
    for (int g = 0; g < groups; g++) {
        vt += (jt[g] - mt) * (jt[g] - mt);
        vd += (jd[g] - md) * (jd[g] - md);
    }
    double f = (double)(groups - 1) / groups;
    out->night_tau_ms = tau;
    out->night_tau_sd_ms = sqrt(f * vt);
    out->delay_ms = d;
    out->delay_sd_ms = sqrt(f * vd);
    out->df = groups - 1;
}

/* Which steps have readings on both sides whatever D: at least three before the step, from
 * the step before plus the largest D, and three after it plus that D. Their count. */
static int usable(const struct ctx *c, bool *use)
{
    int k = 0;
    for (size_t j = 1; j + 1 < c->k; j++) {
        size_t a = lower_bound(c->tm, c->n, c->sm[j - 1] + TB_SELFCAL_MAX_DELAY_MS),
               b = lower_bound(c->tm, c->n, c->sm[j]),
               e = lower_bound(c->tm, c->n, c->sm[j] + TB_SELFCAL_MAX_DELAY_MS),
               f = lower_bound(c->tm, c->n, c->sm[j + 1]);
        use[j] = b >= a + 3 && f >= e + 3;
        k += use[j];
    }
    return k;
}

/* The night's fit weighed with the prior into out->tau_ms. The jackknife's sd of few
 * groups is first widened to a normal one's 95%: what the interval (meter_cal.c)
 * multiplies by 1.96 then holds t's. */
static void weigh(struct tb_selfcal *out, double prior, double psd)
{
    double widen = tb_t95((size_t)out->df) / 1.96;
    out->night_tau_sd_ms *= widen;
    out->delay_sd_ms *= widen;
    /* the prior's own spread where the night disagrees with it: the board's word is a
     * claim (issue #57: update_interval 0.8 to 1.25 of what the chip runs), and held at
     * its +-10% against a fit 2.5 of those sds away it pulled every night the same way
     * (one chip 1.25 x its claim at 5% noise: -0.7% on tau, 85.5-88.5% covered). One
     * fit f ~ N(prior, sp^2 + sn^2) is likeliest where sp^2 = (f - prior)^2 - sn^2
     * (empirical Bayes, the prior's variance by maximum marginal likelihood: Casella,
     * Am. Statist. 39 (1985)): the prior's sd never below its own, widened to that */
    double sn2 = out->night_tau_sd_ms * out->night_tau_sd_ms,
           gap = out->night_tau_ms - prior, pv = fmax(psd * psd, gap * gap - sn2);
    double wn = 1 / fmax(sn2, 1e-12), wp = pv > 0 ? 1 / pv : 0;
    out->tau_ms = (wn * out->night_tau_ms + wp * prior) / (wn + wp);
    out->tau_sd_ms = 1 / sqrt(wn + wp);
}

int tb_selfcal_fit(const struct tb_selfcal_in *in, struct tb_selfcal *out)
{
    double prior = in->tau_prior_ms, psd = in->tau_prior_rel_sd * prior;
    *out = (struct tb_selfcal){ prior, psd, 0, NAN, NAN, NAN, 0, 0, 0 };
    if (in->steps < 3 || in->n < 8 || !(prior > 0))
        return 0;
    double *tm = malloc(in->n * sizeof(*tm)), *sm = malloc(in->steps * sizeof(*sm));
    bool *use = calloc(in->steps, sizeof(*use));
    int *group = calloc(in->steps, sizeof(*group));
    int rc = tm && sm && use && group ? 0 : -1;
    struct ctx c = { tm, in->r_mw, in->n, sm, in->steps, use, group, -1 };
    if (!rc) {
        for (size_t i = 0; i < in->n; i++)
            tm[i] = (double)(in->t_ns[i] - in->step_ns[0]) * 1e-6;
        for (size_t j = 0; j < in->steps; j++)
            sm[j] = (double)(in->step_ns[j] - in->step_ns[0]) * 1e-6;
        out->steps = usable(&c, use);
    }
    if (!rc && out->steps >= TB_SELFCAL_MIN_STEPS) {
        int groups = out->steps < GROUPS ? out->steps : GROUPS, seen = 0;
        for (size_t j = 1; j + 1 < in->steps; j++)
            if (use[j])
                group[j] = seen++ * groups / out->steps;
        night_fit(&c, prior, groups, out);
        /* a fit at the search's bound found the bound, not the chip (issue #57: two chips
         * read 430 ms each are stamped when the last rail returns, so the first rail's
         * reading is 430 ms older than its stamp: "dead time 200.0 +- 0.0 ms"). Said so;
         * the pair still inverts (it is what fits the readings as stamped: the board's
         * word in its place read -0.26 to -0.29% at 1.25 x the claim, ratio 1.5, against
         * 0.00 to -0.02%) */
        double nt = out->night_tau_ms;
        out->at_bound = out->delay_ms > TB_SELFCAL_MAX_DELAY_MS - 1 ||
                        nt < prior / 2.5 * 1.01 || nt > prior * 2.5 / 1.01;
        weigh(out, prior, psd);
    }
    free(tm);
    free(sm);
    free(use);
    free(group);
    return rc;
}
