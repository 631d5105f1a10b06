/* opts.h: meter-sim's options, one table (sim_opt_rows) over one struct (struct sim_opts):
 * a new option is a field and a row, and its row bounds it. The simulated board's truth
 * (the chips' time constants, the sensor's dead time, the register's step, slow reads,
 * poll jitter, a wandering kernel, a two-state card) is set here and hidden from the meter,
 * which sees only what a board shows it (nights.h: the sysfs claim, the night's readings).
 * Header-only: included once by nights.h. Not here: the board (nights.h, sensor_sim.h). */
#ifndef TB_SIM_OPTS_H
#define TB_SIM_OPTS_H

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sensor_sim.h"

struct sim_opts {
    int sensor;              /* enum sim_sensor */
    double tau_ms;           /* the (first) chip's true time constant */
    double tau2_ms;          /* a second chip's (AGX boards; 0: one chip) */
    double claim_tau_ms;     /* what the first chip's update_interval says (0: the truth) */
    double claim_tau2_ms;    /* the second chip's (0: the truth) */
    double delay_ms;         /* the sensor's dead time: a conversion samples the power then */
    double lsb_pct;          /* the register's step, % of the copy's load (0: none) */
    double read_latency_ms;  /* each rail read blocks this long (JetPack 5's driver) */
    double jitter_ms;        /* each poll late by up to this, uniformly */
    double wander_pct;       /* the kernel's power wanders this much (sd, %) on a 2 s scale */
    double switch_pct;       /* the card in one of two states a night, this far apart (%) */
    double drift_pct_s;      /* the board's power rises this much (%) a second, every load
                              * alike (a warming board), from the night's start */
    int avg;                 /* conversions averaged: the cycle is tau / avg */
    double ratio;            /* the kernel's true J per byte over the copy's */
    double noise_pct;        /* one conversion's relative sd, % */
    int nights;
    double seed;             /* a double in the table; taken as an integer */
    int probe;               /* also the step-response probe's fit (stepfit.h) */
    double read_ms;          /* tegrastats' interval */
    double poll_ms;          /* the sampler's (power.interval_ms) */
    int claim_boxcar;        /* the source says what the tool assumed until #48: a mean over
                              * update_interval that changes at its end (today's meter) */
    int verbose;             /* one line per night on stderr */
    double between_pct;      /* the true ratio's night-to-night relative sd, % (rerun_sim.h) */
    int cycles;              /* cycles a night runs (0: until power.target_rel_ci, as a run) */
    int cards;               /* cards the nights are split into, each learning alone */
    int rerun_from;          /* a card's nights judged from this one on (-1: once 5 runs) */
};

static const struct sim_opts sim_defaults = {
    .sensor = SIM_EMA, .tau_ms = 430, .tau2_ms = 0, .avg = 512, .ratio = 1.1,
    .noise_pct = 5, .nights = 200, .seed = 1, .probe = 0, .read_ms = 1000, .poll_ms = 50,
    .cards = 1, .rerun_from = -1,
};

enum sim_opt_type { SIM_OPT_DBL, SIM_OPT_INT, SIM_OPT_FLAG, SIM_OPT_SENSOR };
/* A row: its name, its argument's word, its type and field, its range [lo, hi] (zero: 0
 * also taken, as "none" or "the default"), its help. */
struct sim_opt_row {
    const char *name, *arg;
    enum sim_opt_type type;
    size_t off;
    double lo, hi;
    int zero;
    const char *help;
};

/* The bounds: a night's time stays finite (--tau-ms 1e300 made blocks without end,
 * --read-ms 0 a loop that never moved the clock), and what the meter cannot hold is refused,
 * not capped (--cycles past TB_METER_MAX_CYCLES, 64, ran 64). */
#define SIM_MAX_TAU_MS 60000.0
#define SIM_OPT(n, a, t, f, lo, hi, z, h) \
    { n, a, t, offsetof(struct sim_opts, f), lo, hi, z, h }
static const struct sim_opt_row sim_opt_rows[] = {
    SIM_OPT("--sensor", "KIND", SIM_OPT_SENSOR, sensor, 0, 0, 0,
            "ema (INA3221, default), boxcar, point (IIO triggered), tegrastats, nvml, nvml-power"),
    SIM_OPT("--tau-ms", "T", SIM_OPT_DBL, tau_ms, 1, SIM_MAX_TAU_MS, 0,
            "the chip's true time constant, 1-60000 (430)"),
    SIM_OPT("--tau2-ms", "T2", SIM_OPT_DBL, tau2_ms, 1, SIM_MAX_TAU_MS, 1,
            "a second chip's, its rails apart (0: none)"),
    SIM_OPT("--claim-tau-ms", "C", SIM_OPT_DBL, claim_tau_ms, 1, SIM_MAX_TAU_MS, 1,
            "what the chip's update_interval says (0: the truth)"),
    SIM_OPT("--claim-tau2-ms", "C2", SIM_OPT_DBL, claim_tau2_ms, 1, SIM_MAX_TAU_MS, 1,
            "what the second chip's says (0: the truth)"),
    SIM_OPT("--delay-ms", "D", SIM_OPT_DBL, delay_ms, 0, 1000, 0,
            "the sensor's dead time, 0-1000 (0)"),
    SIM_OPT("--lsb-pct", "Q", SIM_OPT_DBL, lsb_pct, 0, 50, 0,
            "the register's step, % of the copy's load, 0-50 (0)"),
    SIM_OPT("--read-latency-ms", "L", SIM_OPT_DBL, read_latency_ms, 0, 5000, 0,
            "each rail read blocks L ms, as on JetPack 5, 0-5000 (0)"),
    SIM_OPT("--jitter-ms", "J", SIM_OPT_DBL, jitter_ms, 0, 5000, 0,
            "each poll late by up to J ms, 0-5000 (0)"),
    SIM_OPT("--wander-pct", "W", SIM_OPT_DBL, wander_pct, 0, 50, 0,
            "the kernel's power wanders W% (sd) on a 2 s scale, 0-50 (0)"),
    SIM_OPT("--switch-pct", "S", SIM_OPT_DBL, switch_pct, 0, 100, 0,
            "the card in one of two states a night, S% apart, 0-100 (0)"),
    SIM_OPT("--drift-pct-s", "DR", SIM_OPT_DBL, drift_pct_s, 0, 1, 0,
            "the board's power rises DR% a second, every load alike, 0-1 (0)"),
    SIM_OPT("--avg", "N", SIM_OPT_INT, avg, 1, 4096, 0,
            "conversions averaged: cycle = T / N, 1-4096 (512)"),
    SIM_OPT("--ratio", "R", SIM_OPT_DBL, ratio, 0.01, 100, 0,
            "the kernel's true energy ratio to the copy, 0.01-100 (1.1)"),
    SIM_OPT("--noise-pct", "X", SIM_OPT_DBL, noise_pct, 0, 100, 0,
            "one conversion's relative sd, %, 0-100 (5)"),
    SIM_OPT("--nights", "N", SIM_OPT_INT, nights, 1, 100000, 0, "nights simulated, 1-100000 (200)"),
    SIM_OPT("--seed", "S", SIM_OPT_DBL, seed, 0, 9007199254740992.0, 0, "the first night's seed (1)"),
    SIM_OPT("--probe", NULL, SIM_OPT_FLAG, probe, 0, 0, 0,
            "also fit the step response (tau_ms_fit, model_fit)"),
    SIM_OPT("--read-ms", "MS", SIM_OPT_DBL, read_ms, 1, 60000, 0,
            "tegrastats' interval, 1-60000 (1000)"),
    SIM_OPT("--poll-ms", "MS", SIM_OPT_DBL, poll_ms, 1, 10000, 0,
            "the sampler's interval, power.interval_ms, 1-10000 (50)"),
    SIM_OPT("--claim-boxcar", NULL, SIM_OPT_FLAG, claim_boxcar, 0, 0, 0,
            "the source claims a 430 ms boxcar, as before #48 (the old meter's design)"),
    SIM_OPT("--verbose", NULL, SIM_OPT_FLAG, verbose, 0, 0, 0, "each night's figures on stderr"),
    SIM_OPT("--between-pct", "B", SIM_OPT_DBL, between_pct, 0, 50, 0,
            "the true ratio's night-to-night spread, a relative sd in %, 0-50 (0)"),
    SIM_OPT("--cycles", "C", SIM_OPT_INT, cycles, 2, 64, 1,
            "cycles a night runs, 2-64 (0: as a run decides)"),
    SIM_OPT("--cards", "K", SIM_OPT_INT, cards, 1, 100000, 0,
            "the nights split into K cards, each learning from its first night, 1-100000 (1)"),
    SIM_OPT("--rerun-from", "F", SIM_OPT_INT, rerun_from, 0, 100000, 0,
            "a card's nights judged from its F-th, 0-100000 (0: the first; default: 5 runs learned)"),
    { NULL, NULL, 0, 0, 0, 0, 0, NULL },
};

static inline void sim_usage(FILE *f)
{
    fprintf(f, "usage: meter-sim [OPTION...]\n");
    for (const struct sim_opt_row *r = sim_opt_rows; r->name; r++) {
        char lhs[40];
        snprintf(lhs, sizeof(lhs), "%s%s%s", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
        fprintf(f, "  %-22s %s\n", lhs, r->help);
    }
}

/* One value for row r from text s into o: 0, or -EINVAL with why filled. */
static inline int sim_opt_value(const struct sim_opt_row *r, const char *s, struct sim_opts *o,
                                char *why, size_t n)
{
    char *field = (char *)o + r->off, *end = NULL;
    if (r->type == SIM_OPT_SENSOR) {
        int k = 0;
        while (sim_sensor_names[k] && strcmp(sim_sensor_names[k], s))
            k++;
        if (!sim_sensor_names[k])
            return snprintf(why, n, "--sensor '%s': ema, boxcar, point, tegrastats, nvml or "
                            "nvml-power", s), -EINVAL;
        *(int *)field = k;
        return 0;
    }
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v))
        return snprintf(why, n, "%s '%s': not a number", r->name, s), -EINVAL;
    if (!(r->zero && v == 0) && (v < r->lo || v > r->hi))
        return snprintf(why, n, "%s '%s': out of range (%g to %g%s)", r->name, s, r->lo, r->hi,
                        r->zero ? ", or 0" : ""), -EINVAL;
    if (r->type == SIM_OPT_INT && v != floor(v))
        return snprintf(why, n, "%s '%s': not a whole number", r->name, s), -EINVAL;
    if (r->type == SIM_OPT_INT)
        *(int *)field = (int)v;
    else
        *(double *)field = v;
    return 0;
}

/* argv[0..argc) into o (from sim_defaults): 0, or -EINVAL with why filled. */
static inline int sim_parse(int argc, char **argv, struct sim_opts *o, char *why, size_t n)
{
    *o = sim_defaults;
    for (int i = 0; i < argc; i++) {
        const struct sim_opt_row *r = sim_opt_rows;
        while (r->name && strcmp(r->name, argv[i]))
            r++;
        if (!r->name)
            return snprintf(why, n, "unknown option '%s'", argv[i]), -EINVAL;
        if (r->type == SIM_OPT_FLAG) {
            *(int *)((char *)o + r->off) = 1;
            continue;
        }
        if (++i >= argc)
            return snprintf(why, n, "'%s' needs a value", r->name), -EINVAL;
        int rc = sim_opt_value(r, argv[i], o, why, n);
        if (rc)
            return rc;
    }
    if (o->claim_tau2_ms > 0 && o->tau2_ms == 0)
        return snprintf(why, n, "--claim-tau2-ms without --tau2-ms: the board has one chip"),
               -EINVAL;
    if (o->cards > o->nights)
        return snprintf(why, n, "--cards %d: at most --nights (%d)", o->cards, o->nights),
               -EINVAL;
    return 0;
}

/* What the chip c's update_interval says: the claim, else the truth. */
static inline double sim_claim_ms(const struct sim_opts *o, int c)
{
    double claim = c ? o->claim_tau2_ms : o->claim_tau_ms;
    return claim > 0 ? claim : c ? o->tau2_ms : o->tau_ms;
}

#endif
