/* alarm_sim.c: build/alarm-sim (make alarm-sim): a fleet's worth of nights made from a
 * template log's first point (or a built-in one), each series steady with a chosen noise,
 * or with a planted step or ramp, or switching between two states, with bad nights planted
 * among all of them, judged by the alarm history itself runs over a series
 * (tb_history_alarm: report/history_alarm.h, the rule in report/alarm.c); printed as
 * key=value lines: how many nights after a step it was caught, how many steps were missed,
 * and how often a series without a change alarmed. Only GB/s is simulated (the energy figures
 * go through the same rule). Not the tool: no log is written, nothing is read but the
 * template. doc/usage.md ("The regression alarm") and doc/results/alarm-2026-12-07.md. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log/logread.h"
#include "report/history_alarm.h"
#include "lib/util.h"

struct aopts {
    double step_pct, noise_pct, outlier_pct, two_state_pct, gap_pct, ramp_pct, step_share;
    double series, nights, seed;
    const char *tmpl;
};

/* An option: its name, where it goes, its range (lo excluded when lo_open), its help. */
static const struct aopt {
    const char *name;
    size_t off;
    double lo, hi;
    bool lo_open, whole;
    const char *help;
} opts[] = {
#define O(f) offsetof(struct aopts, f)
    { "--step-pct", O(step_pct), 0, 100, true, false, "planted step, % of the level (3)" },
    { "--noise-pct", O(noise_pct), 0, 50, true, false, "night-to-night noise: each night's sd, % (1)" },
    { "--series", O(series), 1, 1e6, false, true, "series (1000)" },
    { "--nights", O(nights), 20, 3650, false, true, "nights per series (60)" },
    { "--seed", O(seed), 0, 4294967295.0, false, true, "random seed (1)" },
    { "--outlier-pct", O(outlier_pct), 0, 50, false, false, "share of bad nights, 5-30% slow (2)" },
    { "--two-state-pct", O(two_state_pct), 0, 100, false, false, "share of two-state series (10)" },
    { "--two-state-gap-pct", O(gap_pct), 0, 100, true, false, "their states' gap, % (4)" },
    { "--ramp-pct", O(ramp_pct), 0, 100, false, false, "share of series with a ramp (10)" },
    { "--step-series-pct", O(step_share), 0, 100, false, false, "share of series with a step (40)" },
#undef O
};

static void usage(FILE *f)
{
    fprintf(f, "usage: alarm-sim [--template LOG] [OPTION VALUE]...\n");
    for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
        fprintf(f, "  %-22s %s\n", opts[i].name, opts[i].help);
    fprintf(f, "  %-22s %s\n", "--template", "a log whose first point the series copy");
}

static int parse(int argc, char **argv, struct aopts *o)
{
    *o = (struct aopts){ 3, 1, 2, 10, 4, 10, 40, 1000, 60, 1, NULL };
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return error("alarm-sim: %s: a value is missing", argv[i]);
        if (!strcmp(argv[i], "--template")) {
            o->tmpl = argv[i + 1];
            continue;
        }
        size_t k = 0;
        while (k < ARRAY_SIZE(opts) && strcmp(argv[i], opts[k].name))
            k++;
        if (k == ARRAY_SIZE(opts))
            return error("alarm-sim: unknown option '%s'", argv[i]);
        double v, *to = (double *)(void *)((char *)o + opts[k].off);
        if (tb_parse_number(argv[i + 1], opts[k].lo, opts[k].lo_open, opts[k].hi, &v) < 0 ||
            (opts[k].whole && v != floor(v)))
            return error("alarm-sim: %s '%s': expected a %snumber %s %.10g to %.10g", argv[i],
                         argv[i + 1], opts[k].whole ? "whole " : "",
                         opts[k].lo_open ? "above" : "from", opts[k].lo, opts[k].hi);
        *to = v;
    }
    if (o->series * o->nights > 1e7)   /* some minutes already: never a run of hours */
        return error("alarm-sim: --series %.0f x --nights %.0f: more than 10,000,000 nights",
                     o->series, o->nights);
    if (o->two_state_pct + o->ramp_pct + o->step_share > 100)
        return error("alarm-sim: --two-state-pct, --ramp-pct and --step-series-pct add up to "
                     "more than 100");
    return 0;
}

/* xorshift64* and Box-Muller: the same fleet for the same seed on every machine. */
static uint64_t rng;
static double uniform(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}
static double normal(void)
{
    double u = uniform(), v = uniform();
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

enum kind { STEADY, STEP, RAMP, TWO_STATE };

/* One series' nights: their level times noise, the planted change, the bad nights. */
static enum kind make_series(const struct aopts *o, double *x, size_t n, size_t *t0, int *sign)
{
    double u = uniform() * 100;
    enum kind k = u < o->two_state_pct ? TWO_STATE : u < o->two_state_pct + o->step_share ? STEP
                  : u < o->two_state_pct + o->step_share + o->ramp_pct ? RAMP : STEADY;
    *sign = uniform() < 0.5 ? -1 : 1;
    *t0 = n / 3 + (size_t)(uniform() * (double)(n - 10 - n / 3));   /* 10 nights left at least */
    for (size_t i = 0; i < n; i++) {
        double lv = 1;
        if (k == STEP && i >= *t0)
            lv += *sign * o->step_pct / 100;
        if (k == RAMP && i >= *t0)   /* to the step's size over 10 nights, then held */
            lv += *sign * o->step_pct / 100 * fmin(1.0, (double)(i - *t0 + 1) / 10);
        if (k == TWO_STATE)   /* each night in the other state with a chance of 30% */
            lv += (uniform() < 0.3) * o->gap_pct / 100;
        x[i] = lv * (1 + o->noise_pct / 100 * normal());
        if (uniform() * 100 < o->outlier_pct)
            x[i] *= 1 - (0.05 + 0.25 * uniform());
        if (x[i] <= 0)
            x[i] = 1e-3;
    }
    return k;
}

struct tally {
    size_t steps, caught, ramps, ramps_caught, false_alarms, fa_two_state;
    double exposure;   /* judged nights where a change is false */
    double *delay, *ramp_delay;
};

/* Judges one series through the nights history's alarm sees. */
static int judge(const struct aopts *o, const struct tb_log_rec *tmpl, struct tb_log_rec *rec,
                 const struct tb_log_rec **p, double *x, size_t n, struct tally *t)
{
    size_t t0;
    int sign;
    enum kind k = make_series(o, x, n, &t0, &sign);
    for (size_t i = 0; i < n; i++) {
        rec[i] = *tmpl;
        rec[i].gbps = tmpl->gbps * x[i];
        time_t day = (time_t)1767225600 + (time_t)i * 86400;   /* 2026-01-01 UTC on */
        struct tm tm;
        strftime(rec[i].night, sizeof(rec[i].night), "%Y-%m-%d", gmtime_r(&day, &tm));
        p[i] = &rec[i];
    }
    struct tb_series_alarm sa;
    if (tb_history_alarm(p, n, &sa, NULL, NULL) < 0)
        return -1;
    const struct tb_alarm *a = &sa.a[TB_HFIG_GBPS];
    size_t warm = tb_alarm_rule_default.first_nights;
    bool planted = k == STEP || k == RAMP;
    size_t end = planted ? t0 : n;   /* nights where any change is false */
    t->exposure += end > warm ? (double)(end - warm) : 0;
    bool caught = false;
    for (size_t c = 0; c < a->nch; c++) {
        const struct tb_alarm_change *ch = &a->ch[c];
        if (ch->found < end) {
            t->false_alarms++;
            t->fa_two_state += k == TWO_STATE;
        } else if (planted && !caught && ch->dir == sign) {
            caught = true;
            double d = (double)(ch->found - t0 + 1);   /* 1: flagged on the step's first night */
            if (k == STEP)
                t->delay[t->caught++] = d;
            else
                t->ramp_delay[t->ramps_caught++] = d;
        }
    }
    t->steps += k == STEP;
    t->ramps += k == RAMP;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q quantile of v[0..n) (the smallest value with a share q at or below it); NAN none. */
static double quantile(double *v, size_t n, double q)
{
    if (!n)
        return NAN;
    tb_sort(v, n, sizeof(*v), by_value);
    size_t k = (size_t)ceil(q * (double)n);
    return v[k ? k - 1 : 0];
}

/* The template: the log's first usable row, or a built-in Orin Nano point. */
static int template_row(const char *path, struct tb_log_rec *r)
{
    memset(r, 0, sizeof(*r));
    if (!path) {
        snprintf(r->board, sizeof(r->board), "jetson-orin-nano");
        snprintf(r->kernel, sizeof(r->kernel), "blocked");
        snprintf(r->elem, sizeof(r->elem), "float");
        r->rows = r->cols = 4096;
        r->gbps = 50;
    } else {
        struct tb_logset s;
        tb_logset_init(&s, "alarm-sim");
        tb_logread(&s, path);
        size_t i = 0;
        while (i < s.n && !tb_log_usable(&s.v[i]))
            i++;
        if (i == s.n) {
            tb_logset_free(&s);
            return error("alarm-sim: --template '%s': no measured row", path);
        }
        *r = s.v[i];
        tb_logset_free(&s);
    }
    r->energy_ratio = r->j_per_gb = NAN;   /* GB/s only */
    return 0;
}

static void print(const struct aopts *o, struct tally *t)
{
    double months = t->exposure / 30;
    printf("noise_pct=%g\nstep_pct=%g\nseries=%.0f\nnights=%.0f\nseed=%.0f\noutlier_pct=%g\n"
           "two_state_pct=%g\ntwo_state_gap_pct=%g\nramp_pct=%g\nstep_series_pct=%g\n",
           o->noise_pct, o->step_pct, o->series, o->nights, o->seed, o->outlier_pct,
           o->two_state_pct, o->gap_pct, o->ramp_pct, o->step_share);
    printf("steps=%zu\ndetect_nights_median=%g\ndetect_nights_p90=%g\nmissed_pct=%.2f\n",
           t->steps, quantile(t->delay, t->caught, 0.5), quantile(t->delay, t->caught, 0.9),
           t->steps ? 100.0 * (double)(t->steps - t->caught) / (double)t->steps : NAN);
    printf("ramps=%zu\nramp_detect_nights_median=%g\nramp_missed_pct=%.2f\n", t->ramps,
           quantile(t->ramp_delay, t->ramps_caught, 0.5),
           t->ramps ? 100.0 * (double)(t->ramps - t->ramps_caught) / (double)t->ramps : NAN);
    printf("false_alarms=%zu\nfalse_alarms_two_state=%zu\nseries_months=%.1f\n"
           "false_alarms_per_series_month=%.4f\n", t->false_alarms, t->fa_two_state, months,
           months > 0 ? (double)t->false_alarms / months : NAN);
}

int main(int argc, char **argv)
{
    struct aopts o;
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (parse(argc, argv, &o) < 0) {
        usage(stderr);
        return 2;
    }
    struct tb_log_rec tmpl;
    if (template_row(o.tmpl, &tmpl) < 0)
        return 2;
    size_t n = (size_t)o.nights, ns = (size_t)o.series;
    rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)o.seed * 0xbf58476d1ce4e5b9ULL);
    if (!rng)
        rng = 1;
    struct tally t = { 0 };
    struct tb_log_rec *rec = malloc(n * sizeof(*rec));
    const struct tb_log_rec **p = malloc(n * sizeof(*p));
    double *x = malloc(n * sizeof(*x));
    t.delay = malloc(ns * sizeof(double));
    t.ramp_delay = malloc(ns * sizeof(double));
    int rc = rec && p && x && t.delay && t.ramp_delay ? 0 : error("alarm-sim: out of memory");
    for (size_t s = 0; s < ns && rc == 0; s++)
        rc = judge(&o, &tmpl, rec, p, x, n, &t);
    if (rc == 0)
        print(&o, &t);
    free(rec);
    free(p);
    free(x);
    free(t.delay);
    free(t.ramp_delay);
    return rc ? 1 : 0;
}
