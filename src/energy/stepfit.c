/* stepfit.c: a power sensor's step response fitted from polled readings: exponential
 * (first-order) against boxcar, the delay, the refresh period. The search is a coarse grid
 * over (length, delay) then a pattern search; idle and load levels are solved exactly at
 * each trial (linear least squares), so only two parameters are searched.
 * Why both models: TI's INA3221 (SBOS576, "Averaging function") adds (sample - register)/N
 * to its register after every conversion (an exponential average of time constant about
 * N x conversion cycle), while the old assumption here was a mean over update_interval that
 * changes once per interval (a boxcar with a staircase). Only a board can say which. */
#include "energy/stepfit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

#define LEN_MIN_MS TB_STEPFIT_LEN_MIN_MS
#define LEN_MAX_MS TB_STEPFIT_LEN_MAX_MS
#define DELAY_MAX_MS TB_STEPFIT_DELAY_MAX_MS
/* How near an upper edge of the search range a best fit is taken as at it (the search's
 * grid steps are 24% in length and 20 ms in delay; the pattern search then clamps there) */
#define EDGE_REL 0.01

struct fitctx {
    const double *t, *w;
    size_t n;
    const double *e;
    size_t ne;
    int boxcar;
    double refresh, phase; /* refresh 0: the reading follows the response at every poll */
};

struct fitres {
    double rms, a, b, var_y;
};

/* The responses to the ideal input (0 before the first edge, alternating at each edge) at
 * every poll, in one pass: the polls' times and the edges both increase (checks()), so each
 * walk only moves forward. Each edge adds its own response; a fresh sum over every edge at
 * every poll cost one expm1 per edge per poll, the whole of the fit's time (eval: 90% of a
 * probe's CPU, 48 s of test_stepfit's under valgrind, #59). */

/* The first-order response at x: sum_k s_k (1 - exp(-(x - e_k) / tau)) over the edges
 * before x, kept as p - a with a = sum_k s_k exp(-(x - e_k) / tau), which decays by
 * exp(-dx / tau) from one poll to the next: one exp a poll and one an edge. The same sum to
 * within rounding (1e-16 of the step: over 72 synthetic fits, 0.5-900 ms, the same model
 * and length, the rms within 2e-10 relative, commit bd4facb). */
struct ema_walk {
    size_t k;      /* edges passed */
    double x;      /* where a was last taken */
    double a, p;   /* the decaying sum, and the level the edges passed lead to */
};

static double resp_ema(const struct fitctx *c, struct ema_walk *s, double x, double tau)
{
    if (s->a != 0)
        s->a *= exp(-(x - s->x) / tau);
    s->x = x;
    for (; s->k < c->ne && c->e[s->k] < x; s->k++) {
        double sg = (s->k % 2 == 0) ? 1.0 : -1.0;
        s->a += sg * exp(-(x - c->e[s->k]) / tau);
        s->p += sg;
    }
    return s->p - s->a;
}

/* The boxcar's: the fraction of [x - w, x] the load was on, as the load's on-time up to x
 * less its on-time up to x - w, each walked forward by a walk of its own. */
struct on_walk {
    size_t k;      /* edges at or before the point passed */
    double done;   /* the on-time of the on-spans closed by them */
};

static double on_upto(const struct fitctx *c, struct on_walk *s, double x)
{
    for (; s->k < c->ne && c->e[s->k] <= x; s->k++)
        if (s->k % 2 == 1)
            s->done += c->e[s->k] - c->e[s->k - 1];
    return s->k % 2 == 1 ? s->done + (x - c->e[s->k - 1]) : s->done;
}

/* When the reading seen at poll time t was made: the last refresh at or before t. */
static double held_at(const struct fitctx *c, double t)
{
    if (c->refresh <= 0)
        return t;
    return c->phase + floor((t - c->phase) / c->refresh) * c->refresh;
}

/* The residual of the model of length len and delay d, idle and load solved exactly. */
static struct fitres eval(const struct fitctx *c, double len, double d)
{
    double sy = 0, sw = 0, syy = 0, syw = 0, sww = 0;
    struct ema_walk ew = { 0, 0, 0, 0 };
    struct on_walk hi = { 0, 0 }, lo = { 0, 0 };
    for (size_t i = 0; i < c->n; i++) {
        double x = held_at(c, c->t[i]) - d;
        double y = c->boxcar ? (on_upto(c, &hi, x) - on_upto(c, &lo, x - len)) / len
                             : resp_ema(c, &ew, x, len);
        sy += y, sw += c->w[i], syy += y * y, syw += y * c->w[i], sww += c->w[i] * c->w[i];
    }
    double n = (double)c->n, my = sy / n, mw = sw / n;
    double vy = syy / n - my * my, vw = sww / n - mw * mw, cyw = syw / n - my * mw;
    struct fitres r = { 0, mw, 0, vy };
    if (vy <= 1e-12) {
        r.rms = sqrt(vw > 0 ? vw : 0);
        return r;
    }
    r.b = cyw / vy;
    r.a = mw - r.b * my;
    double ss = vw - cyw * cyw / vy;
    r.rms = sqrt(ss > 0 ? ss : 0);
    return r;
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The coarse grid, then a pattern search in (ln len, delay) from its best point. */
static struct fitres search(const struct fitctx *c, double *len_ms, double *delay_ms)
{
    double bu = 0, bd = 0, best = INFINITY;
    double u0 = log(LEN_MIN_MS), u1 = log(LEN_MAX_MS);
    for (int i = 0; i <= 32; i++) {   /* lengths 24% apart, delays 20 ms apart */
        double u = u0 + (u1 - u0) * i / 32.0;
        for (int j = 0; j <= 25; j++) {
            double d = DELAY_MAX_MS * j / 25.0, r = eval(c, exp(u), d).rms;
            if (r < best)
                best = r, bu = u, bd = d;
        }
    }
    double su = (u1 - u0) / 64.0, sd = DELAY_MAX_MS / 50.0;
    for (int it = 0; it < 2000 && (su > 1e-6 || sd > 1e-4); it++) {
        double cand[4][2] = { { bu + su, bd }, { bu - su, bd }, { bu, bd + sd }, { bu, bd - sd } };
        int moved = 0;
        for (int k = 0; k < 4; k++) {
            double u = clampd(cand[k][0], u0, u1), d = clampd(cand[k][1], 0, DELAY_MAX_MS);
            double r = eval(c, exp(u), d).rms;
            if (r < best)
                best = r, bu = u, bd = d, moved = 1;
        }
        if (!moved)
            su /= 2, sd /= 2;
    }
    *len_ms = exp(bu);
    *delay_ms = bd;
    return eval(c, *len_ms, bd);
}

/* The median poll interval. */
static double poll_ms(const double *t, size_t n)
{
    double *d = malloc((n - 1) * sizeof *d);
    if (!d)
        return t[1] - t[0];
    for (size_t i = 1; i < n; i++)
        d[i - 1] = t[i] - t[i - 1];
    double m = tb_median(d, n - 1);
    free(d);
    return m;
}

/* The polls whose reading differs from the one before: their indices into idx, the count
 * returned. */
static size_t changes(const double *w, size_t n, size_t *idx)
{
    size_t m = 0;
    for (size_t i = 1; i < n; i++)
        if (w[i] != w[i - 1])
            idx[m++] = i;
    return m;
}

/* The interval between changes: the shortest ones' median as the first guess, then the
 * whole span between the first and last change over the refreshes it holds (each change
 * is seen up to one poll late, so the span's error is one poll over many refreshes). */
static double refresh_of(const double *t, const size_t *idx, size_t m, double dt)
{
    double *iv = malloc(m * sizeof *iv);
    if (!iv)
        return 0;
    double lo = INFINITY;
    for (size_t j = 1; j < m; j++)
        iv[j - 1] = t[idx[j]] - t[idx[j - 1]], lo = fmin(lo, iv[j - 1]);
    size_t k = 0;
    for (size_t j = 0; j + 1 < m; j++)
        if (iv[j] <= 1.5 * lo)
            iv[k++] = iv[j];
    double r0 = tb_median(iv, k);
    free(iv);
    if (!(r0 > 1.5 * dt))
        return 0;
    double steps = 0;
    for (size_t j = 1; j < m; j++)
        steps += fmax(1, round((t[idx[j]] - t[idx[j - 1]]) / r0));
    return (t[idx[m - 1]] - t[idx[0]]) / steps;
}

/* The refreshes' times: each change happened after the poll before it and by its own poll;
 * a line through the windows' middles (refresh k at phase + k x period) refines the period
 * (the span's estimate drifts by up to a poll over a run, enough to misplace the polls next
 * to a change), then the phase that fits every window (the middle of their intersection),
 * else the line's (jitter wider than the windows). */
static void phase_of(const double *t, const double *w, size_t n, double *r, double *ph)
{
    size_t *idx = malloc(n * sizeof *idx);
    double *k = malloc(n * sizeof *k), *mid = malloc(n * sizeof *mid);
    *ph = t[0];
    size_t m = idx && k && mid ? changes(w, n, idx) : 0;
    double sk = 0, sm = 0, skk = 0, skm = 0;
    for (size_t j = 0; j < m; j++) {
        k[j] = round((t[idx[j]] - t[idx[0]]) / *r);
        mid[j] = (t[idx[j] - 1] + t[idx[j]]) / 2;
        sk += k[j], sm += mid[j], skk += k[j] * k[j], skm += k[j] * mid[j];
    }
    if (m >= 2) {
        double vk = skk / m - (sk / m) * (sk / m);
        if (vk > 0)
            *r = (skm / m - sk / m * sm / m) / vk;
        *ph = sm / m - *r * sk / m;
        double lo = -INFINITY, hi = INFINITY;
        for (size_t j = 0; j < m; j++)
            lo = fmax(lo, t[idx[j] - 1] - k[j] * *r), hi = fmin(hi, t[idx[j]] - k[j] * *r);
        if (lo <= hi)
            *ph = (lo + hi) / 2;
    }
    free(idx);
    free(k);
    free(mid);
}

double tb_stepfit_refresh(const double *t_ms, const double *watts, size_t n)
{
    if (n < 3)
        return 0;
    size_t *idx = malloc(n * sizeof *idx);
    if (!idx)
        return 0;
    size_t m = changes(watts, n, idx);
    double r = 0;
    if (m >= 3 && (double)m < 0.9 * (double)(n - 1))
        r = refresh_of(t_ms, idx, m, poll_ms(t_ms, n));
    /* a refresh period shows as a change at most of its ticks (noise alone moves a mean of
     * many conversions); a reading that moved only at the load's edges (a quiet point
     * sensor, or a coarse one) has none */
    if (r > 0 && (m < 6 || (double)m < 0.5 * (t_ms[idx[m - 1]] - t_ms[idx[0]]) / r))
        r = 0;
    free(idx);
    double ph;
    if (r > 0)
        phase_of(t_ms, watts, n, &r, &ph);
    return r;
}

static int checks(const double *t, const double *w, size_t n, const double *e, size_t ne,
                  char *why, size_t whylen)
{
    if (!t || !w || n < 20)
        return snprintf(why, whylen, "%zu readings: the fit needs at least 20", n), -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(t[i]) || !isfinite(w[i]))
            return snprintf(why, whylen, "reading %zu is not a finite number", i), -EINVAL;
        if (i > 0 && !(t[i] > t[i - 1]))
            return snprintf(why, whylen, "reading %zu's time %.3f ms is not after the one "
                            "before (%.3f ms)", i, t[i], t[i - 1]), -EINVAL;
    }
    if (!e || ne < 2)
        return snprintf(why, whylen, "%zu edges: the fit needs at least one on and one off",
                        ne), -EINVAL;
    for (size_t k = 0; k < ne; k++)
        if (!isfinite(e[k]) || (k > 0 && !(e[k] > e[k - 1])))
            return snprintf(why, whylen, "edge %zu (%.3f ms) is not after the one before", k,
                            e[k]), -EINVAL;
    if (!(e[0] < t[n - 1]))
        return snprintf(why, whylen, "the load started (%.3f ms) after the last reading "
                        "(%.3f ms)", e[0], t[n - 1]), -EINVAL;
    return 0;
}

static int fit_one(const double *t, const double *w, size_t n, const double *e, size_t ne,
                   int boxcar, double refresh, double *len, double *delay, struct fitres *r)
{
    struct fitctx c = { t, w, n, e, ne, boxcar, refresh, 0 };
    if (refresh > 0)
        phase_of(t, w, n, &c.refresh, &c.phase);
    *r = search(&c, len, delay);
    return 0;
}

int tb_stepfit_model(const double *t_ms, const double *watts, size_t n, const double *edge_ms,
                     size_t n_edges, const char *model, double refresh_ms, double *len_ms,
                     double *delay_ms, double *rms_w, char *why, size_t whylen)
{
    int rc = checks(t_ms, watts, n, edge_ms, n_edges, why, whylen);
    if (rc < 0)
        return rc;
    if (!model || (strcmp(model, "ema") && strcmp(model, "boxcar")))
        return snprintf(why, whylen, "model '%s': it is 'ema' or 'boxcar'",
                        model ? model : "(null)"), -EINVAL;
    struct fitres r;
    fit_one(t_ms, watts, n, edge_ms, n_edges, !strcmp(model, "boxcar"), refresh_ms, len_ms,
            delay_ms, &r);
    *rms_w = r.rms;
    return 0;
}

int tb_stepfit(const double *t_ms, const double *watts, size_t n, const double *edge_ms,
               size_t n_edges, struct tb_stepfit *out, char *why, size_t whylen)
{
    int rc = checks(t_ms, watts, n, edge_ms, n_edges, why, whylen);
    if (rc < 0)
        return rc;
    double refresh = tb_stepfit_refresh(t_ms, watts, n);
    double le, de, lb, db;
    struct fitres re, rb;
    fit_one(t_ms, watts, n, edge_ms, n_edges, 0, refresh, &le, &de, &re);
    fit_one(t_ms, watts, n, edge_ms, n_edges, 1, refresh, &lb, &db, &rb);
    int box = rb.rms < re.rms;
    struct fitres *r = box ? &rb : &re;
    /* a step within the readings' noise fits anything (and an averaged sensor's noise is
     * correlated from reading to reading: no standard error of many readings helps) */
    double floor_w = fmax(r->rms, 1e-9 * (fabs(r->a) + 1));   /* rounding of a flat reading */
    if (!(r->var_y > 1e-12) || !(fabs(r->b) > 3 * floor_w))
        return snprintf(why, whylen, "the load moved the readings by %.4g W, within their "
                        "noise (rms %.4g W): no step to fit", r->b, r->rms), -ERANGE;
    double len = box ? lb : le, delay = box ? db : de;
    /* a best fit at the range's edge is no fit: the search stopped there, the truth lies
     * beyond it (a delay longer than any sensor's, or a load that reached the sensor late,
     * as a test's clock once made it), or nothing in range explains the readings */
    if (delay >= DELAY_MAX_MS * (1 - EDGE_REL) || len >= LEN_MAX_MS * (1 - EDGE_REL))
        return snprintf(why, whylen, "the best %s fit (length %.1f ms, delay %.1f ms) lies at "
                        "the edge of the search range (length up to %.0f ms, delay up to "
                        "%.0f ms): not a fit", box ? "boxcar" : "ema", len, delay, LEN_MAX_MS,
                        DELAY_MAX_MS), -ERANGE;
    *out = (struct tb_stepfit){ .model = box ? "boxcar" : "ema", .tau_ms = len,
                                .delay_ms = delay, .refresh_ms = refresh, .rms_ema_w = re.rms,
                                .rms_boxcar_w = rb.rms };
    if (len < poll_ms(t_ms, n))
        out->model = "point", out->tau_ms = 0;
    return 0;
}
