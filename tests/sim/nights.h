/* nights.h: meter-sim's nights. A night is the real meter (tb_meter_new, tb_meter_idle,
 * tb_meter_size: the functions a run calls) over the real sampler thread, reading a
 * simulated board through sensor_sim.h on the fake clock: the copy (10 W at 100 GB/s) and
 * one kernel at the same rate whose true energy per byte is --ratio times the copy's,
 * measured as one size.
 * The options are one table over one struct (opts.h), and each night's result one struct
 * (struct sim_night): a new option or statistic is a field and a row. Header-only: build/meter-sim (tests/sim/meter_sim.c) and the test programs include
 * it once. Not the tool: nothing here runs on a board. */
#ifndef TB_SIM_NIGHTS_H
#define TB_SIM_NIGHTS_H

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "energy/meter.h"
#include "energy/meter_internal.h"   /* each chip's fit (m->cal), as the cadence line says it */
#include "energy/stepfit.h"
#include "lib/clock.h"
#include "lib/stats.h"
#include "lib/util.h"
#include "power/power.h"
#include "sim/opts.h"
#include "sim/rerun_sim.h"
#include "sim/sensor_sim.h"

/* ---- the simulated board --------------------------------------------------------------- */

#define SIM_SEGS 8192
#define SIM_WANDER_KNOTS 1024
#define SIM_WANDER_MS 2000.0
#define SIM_PHASE_NS 123457LL
#define SIM_COPY_W 10.0
#define SIM_IDLE_W 3.0
/* the copy's rate and the kernel's: the same, so that the power ratio is the energy ratio
 * (the worked example: a kernel 1.10x the copy's energy reads about 1.04x) */
static const double sim_rate_bps[2] = { 100e9, 100e9 };

static struct sim_board {
    pthread_mutex_t mu;
    const struct sim_opts *o;
    int64_t seg_t[SIM_SEGS];   /* from seg_t[i], point seg_p[i] runs (-1: idle) */
    int seg_p[SIM_SEGS], nseg;
    double kernel_w;           /* the kernel's power: ratio x the copy's J/B x its rate */
    const struct tb_rerun_sd *between;   /* the spread the learner hands the night */
    struct sim_sensor_state z;
    unsigned long long rng;    /* the load's switches and the kernel's wander */
    double wander[SIM_WANDER_KNOTS];   /* the kernel's wander at 2 s knots, in sds */
    int64_t t0;                /* the night's start: the wander's first knot */
} sim_b = { .mu = PTHREAD_MUTEX_INITIALIZER };

static inline int sim_point_at(int64_t t)
{
    int lo = 0, hi = sim_b.nseg - 1, p = -1;
    while (lo <= hi) {   /* the last switch at or before t */
        int mid = (lo + hi) / 2;
        if (sim_b.seg_t[mid] <= t) {
            p = sim_b.seg_p[mid];
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return p;
}

/* The kernel's wander at t: --wander-pct's sd times the knots' values, linear between the
 * 2 s knots (a power that drifts with the data or the clocks on a scale of seconds). */
static double sim_wander(int64_t t)
{
    double x = (double)(t - sim_b.t0) * 1e-6 / SIM_WANDER_MS, f = x - floor(x);
    long k = (long)floor(x);
    double a = sim_b.wander[((k % SIM_WANDER_KNOTS) + SIM_WANDER_KNOTS) % SIM_WANDER_KNOTS],
           b = sim_b.wander[(((k + 1) % SIM_WANDER_KNOTS) + SIM_WANDER_KNOTS) % SIM_WANDER_KNOTS];
    return 1 + sim_b.o->wander_pct / 100 * (a + f * (b - a));
}

/* The board's power at t, chip c's share: with two chips the first carries half of the
 * idle, 60% of the copy and 70% of the kernel (the rails' split differs by load). */
static double sim_power(void *arg, int64_t t, int c)
{
    int p = sim_point_at(t);
    double w = p < 0 ? SIM_IDLE_W : p == 0 ? SIM_COPY_W : sim_b.kernel_w * sim_wander(t);
    w *= 1 + sim_b.o->drift_pct_s / 100 * (double)(t - sim_b.t0) * 1e-9;   /* warming */
    if (sim_b.z.chips < 2)
        return w;
    double share = p < 0 ? 0.5 : p == 0 ? 0.6 : 0.7;
    return w * (c == 0 ? share : 1 - share);
}

/* The load switched to point p now (true), or it was running already (false). */
static inline bool sim_switch(int p)
{
    bool moved = false;
    pthread_mutex_lock(&sim_b.mu);
    if (sim_b.nseg < SIM_SEGS && (sim_b.nseg == 0 || sim_b.seg_p[sim_b.nseg - 1] != p)) {
        sim_b.seg_t[sim_b.nseg] = tb_now_ns();
        sim_b.seg_p[sim_b.nseg++] = p;
        moved = true;
    }
    pthread_mutex_unlock(&sim_b.mu);
    return moved;
}

/* The meter's load: point i until end, the fake clock spending the time. The first slice
 * after a switch runs a random number of whole milliseconds of a poll longer, so that the
 * next switch falls at a random phase of the polls (a board's kernels and its sampler share
 * no clock); whole milliseconds keep the night's own offset from the sampler's grid. */
static int sim_night_load(void *arg, size_t i, int64_t end, double *bytes)
{
    int64_t now = tb_now_ns(), dt = end > now ? end - now : SIM_MS;
    if (sim_switch((int)i)) {
        pthread_mutex_lock(&sim_b.mu);
        dt += (int64_t)floor(sim_uniform(&sim_b.rng) * sim_b.o->poll_ms) * SIM_MS;
        pthread_mutex_unlock(&sim_b.mu);
    }
    tb_clock_spend_ns(dt);
    *bytes = sim_rate_bps[i] * (double)dt * 1e-9;
    return 0;
}

/* ---- the source the sampler reads ------------------------------------------------------ */

static int sim_src_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                        char *why, size_t n)
{
    static const char *const one[] = { "VDD_IN" }, *const two[] = { "VDD_GPU_SOC", "VDDQ_VDD2_1V8AO" };
    rails->n = sim_b.z.chips;
    for (int c = 0; c < rails->n; c++)
        tb_strlcpy(rails->name[c], rails->n > 1 ? two[c] : one[c], TB_RAIL_NAME);
    return 0;
}

/* A poll: late by up to --jitter-ms, then each rail's read blocking --read-latency-ms (the
 * 5.10 driver waits for the conversion-ready flag) and giving the register as it is when
 * the read returns, each rail stamped then, as ina3221.c stamps a read that blocks (the
 * poll's own stamp the sampler's: when its last rail returned, as ina3221.c's). The meter
 * is told nothing of the latency: it shows in the stamps alone. Simpler than a board: a
 * rail is one read of L ms (on a board its two files, volt then curr, each wait for a
 * conversion), its value the register at the return (0..1 interval older on a board: the
 * driver sleeps up to an interval between checks of the flag, doc/power.md). */
static int sim_src_sample(void *st, struct tb_power_sample *s, char *why, size_t n)
{
    const struct sim_opts *o = sim_b.o;
    double mj = NAN, late = 0;
    if (o->jitter_ms > 0) {
        pthread_mutex_lock(&sim_b.mu);
        late = sim_uniform(&sim_b.rng) * o->jitter_ms;
        pthread_mutex_unlock(&sim_b.mu);
        tb_sleep_ns((int64_t)(late * 1e6));
    }
    for (int c = 0; c < sim_b.z.chips; c++) {
        if (o->read_latency_ms > 0)
            tb_sleep_ns((int64_t)(o->read_latency_ms * 1e6));
        pthread_mutex_lock(&sim_b.mu);
        s->rail_t_ns[c] = tb_now_ns();
        s->rail_mw[c] = (float)(sim_read(&sim_b.z, s->rail_t_ns[c], c, c == 0 ? &mj : NULL) * 1e3);
        pthread_mutex_unlock(&sim_b.mu);
    }
    if (sim_b.z.kind == SIM_NVML)
        s->energy_mj = mj;
    s->gpu_temp_c = 50;
    s->gpu_clock_mhz = 1000;
    return 0;
}

static void sim_src_close(void *st) {}

/* What the source says of itself, as the tool's own sources do (src/power/): the hwmon
 * files (update_interval per chip, samples) and the model they give where the sensor is an
 * INA3221 on hwmon; tegrastats' documented model and its interval; NVML's counter; a
 * triggered IIO driver. The boxcar and --claim-boxcar say what the tool said before #48
 * (update_interval as a refresh period, no model). */
static void sim_src_cadence(void *st, struct tb_power_cadence *c)
{
    const struct sim_opts *o = sim_b.o;
    switch (o->sensor) {
    case SIM_NVML:
        c->period_ms = 100;
        tb_strlcpy(c->how, "energy counter", sizeof(c->how));
        tb_power_model_documented("nvml-energy", sim_b.z.chips, &c->model);
        break;
    case SIM_NVML_POWER:   /* as nvml.c says it without the counter */
        c->period_ms = 1000;
        tb_strlcpy(c->how, "documented", sizeof(c->how));
        tb_power_model_documented("nvml-power", sim_b.z.chips, &c->model);
        break;
    case SIM_POINT:
        c->triggered = true;
        tb_power_model_documented("ina3221x-triggered", sim_b.z.chips, &c->model);
        break;
    case SIM_TEGRASTATS:   /* the period is left to the idle readings, as tegrastats.c does */
        tb_power_model_documented("tegrastats", sim_b.z.chips, &c->model);
        c->model.read_ms = o->poll_ms;
        break;
    default:
        /* the claim, never the truth: what update_interval says of each chip */
        c->period_ms = fmax(sim_claim_ms(o, 0), sim_b.z.chips > 1 ? sim_claim_ms(o, 1) : 0);
        tb_strlcpy(c->how, "sysfs", sizeof(c->how));
        snprintf(c->detail, sizeof(c->detail), "hwmon update_interval %.0f ms, samples %d",
                 c->period_ms, o->avg);
        if (o->sensor == SIM_BOXCAR || o->claim_boxcar)
            break;
        tb_power_model_documented("ina3221-hwmon", sim_b.z.chips, &c->model);
        for (int k = 0; k < sim_b.z.chips; k++) {   /* as ina3221.c reads each chip */
            char said[64];
            snprintf(said, sizeof(said), "chip %d: update_interval %.0f ms, samples %d (sysfs)",
                     k + 1, sim_claim_ms(o, k), o->avg);
            tb_sensor_model_set_tau(&c->model, k, 1, tb_sensor_model_hwmon_tau_ms(
                                    sim_claim_ms(o, k), o->avg), said);
        }
    }
}

static const struct tb_power_ops sim_src_ops = {
    .name = "sim", .help = "meter-sim's board", .state_size = 1,
    .open = sim_src_open, .sample = sim_src_sample, .close = sim_src_close,
    .cadence = sim_src_cadence,
};

/* ---- a night ------------------------------------------------------------------------- */

struct sim_night {
    double truth;              /* the kernel's true ratio this night */
    double ratio, ci;          /* energy_ratio and energy_ratio_ci95 as a night logs them */
    double rerun_ci;           /* energy_ratio_rerun_ci95 */
    double part[TB_METER_CI_PARTS];   /* energy_ratio_ci95's parts, relative (meter.h) */
    double secs;               /* the night's seconds: idle, then the size's energy */
    double planned_s;          /* what the meter planned for them before they ran */
    int cycles;
    double tau_used[2], delay_used;   /* what the meter inverted with (tb_meter_tau_used) */
    double fit_delay[2];       /* each chip's dead time as the night fitted it (m->cal) */
    bool at_bound[2];          /* ... and whether its fit ended at the search's bound */
    double tau_sd[2];          /* each chip's constant's sd as the cadence line says it
                                * (selfcal.c: the jackknife's, widened to its t) */
    bool ok;                   /* a ratio came */
    char note[320];
    char cadence[TB_METER_CADENCE_LINE];   /* the night's cadence line (# power_cadence:) */
    char selfcal[1024];        /* what it self-calibrated (tb_meter_selfcal_line) */
};

/* The board for a night whose kernel's true ratio is truth, its sensor's noise and phases
 * from seed. */
static inline void sim_board_reset(const struct sim_opts *o, double truth,
                                   unsigned long long seed)
{
    struct sim_sensor_state *z = &sim_b.z;
    pthread_mutex_lock(&sim_b.mu);
    sim_b.o = o;
    sim_b.nseg = 0;
    sim_b.kernel_w = truth * SIM_COPY_W * sim_rate_bps[1] / sim_rate_bps[0];
    memset(z, 0, sizeof(*z));
    z->kind = (enum sim_sensor)o->sensor;
    z->chips = o->tau2_ms > 0 ? 2 : 1;
    z->noise = o->noise_pct / 100;
    z->delay_ms = o->delay_ms;
    z->lsb_w = o->lsb_pct / 100 * SIM_COPY_W;
    z->read_ms = o->read_ms;
    z->power = sim_power;
    z->rng = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
    int64_t now = tb_now_ns();
    for (int c = 0; c < z->chips; c++) {
        double p0 = SIM_IDLE_W * (z->chips > 1 ? 0.5 : 1);
        sim_chip_init(&z->chip[c], c ? o->tau2_ms : o->tau_ms, o->avg, now,
                      sim_uniform(&z->rng), p0);
        z->chip[c].next_read = now + (int64_t)(sim_uniform(&z->rng) * o->read_ms * 1e6);
    }
    z->nvml_period_ms = 100;
    z->nvml_window_ms = 25;
    z->nvml_phase_ms = sim_uniform(&z->rng) * 75;   /* Yang et al.: where in the 100 ms */
    z->counter_next = now + (int64_t)(sim_uniform(&z->rng) * 100e6) + 100 * SIM_MS;
    sim_b.rng = seed * 0xD1B54A32D192ED03ULL + 0x8CB92BA72F3D8DD7ULL;
    sim_b.t0 = now;
    for (int k = 0; k < SIM_WANDER_KNOTS; k++)
        sim_b.wander[k] = o->wander_pct > 0 ? sim_gauss(&sim_b.rng) : 0;
    pthread_mutex_unlock(&sim_b.mu);
}

/* One night whose kernel's true ratio is truth: the board reset, the sampler and meter
 * started, the idle, the size's energy (copy and kernel), everything stopped. 0, or -1 with
 * nt->note saying why. A rerun of a night is another call with the same truth and another
 * seed. */
static inline int sim_run_night(const struct sim_opts *o, const struct tb_power_cfg *pc_in,
                                double truth, unsigned long long seed, struct sim_night *nt)
{
    memset(nt, 0, sizeof(*nt));
    nt->ratio = nt->ci = nt->rerun_ci = NAN;
    nt->truth = truth;
    sim_board_reset(o, truth, seed);
    sim_switch(-1);
    struct tb_power_cfg pc = *pc_in;
    pc.interval_ms = (int)o->poll_ms;
    if (sim_b.z.chips > 1)
        tb_strlcpy(pc.total_rail, "sum", sizeof(pc.total_rail));
    if (o->cycles > 0) {   /* exactly that many: the fewest, and no target to stop sooner */
        pc.rounds = o->cycles;
        pc.target_rel_ci = 1;
        pc.budget_s = 1e6;
    }
    struct tb_sampler *s = NULL;
    char why[256];
    pthread_mutex_lock(&sim_b.mu);
    int64_t phase = SIM_PHASE_NS + (int64_t)floor(sim_uniform(&sim_b.rng) * o->poll_ms) * SIM_MS;
    pthread_mutex_unlock(&sim_b.mu);
    if (tb_sampler_start(&s, &sim_src_ops, &pc, pc.interval_ms, 1 << 20, why, sizeof(why))) {
        snprintf(nt->note, sizeof(nt->note), "sampler: %s", why);
        return -1;
    }
    /* off the sampler's grid of whole milliseconds: a poll and a load's switch or a look
     * at the readings never fall on the same virtual nanosecond, where which came first
     * would be a race (and the nights would differ from run to run) */
    tb_sleep_ns(phase);
    volatile sig_atomic_t stop = 0;
    struct tb_meter *m = tb_meter_new(s, &pc, &stop);
    int64_t t0 = tb_now_ns();
    double idle_ci, idle_w = tb_meter_idle(m, &idle_ci, why, sizeof(why));
    tb_meter_cadence_line(m, nt->cadence, sizeof(nt->cadence));
    nt->planned_s = (double)(tb_now_ns() - t0) * 1e-9 + tb_meter_plan_size_s(m, 2, true);
    struct tb_meter_load ld = { sim_night_load, NULL, NULL };
    struct tb_meter_result out[2];
    struct tb_rerun_sd bw[2] = { sim_b.between ? *sim_b.between : (struct tb_rerun_sd){ 0 } };
    bw[1] = bw[0];
    tb_meter_size(m, &ld, 2, 0, idle_w, idle_ci, 0, sim_b.between ? bw : NULL, out);
    sim_switch(-1);
    nt->secs = (double)(tb_now_ns() - t0) * 1e-9;
    nt->ratio = out[1].energy_ratio;
    nt->ci = out[1].energy_ratio_ci95;
    nt->rerun_ci = out[1].energy_ratio_rerun_ci95;
    memcpy(nt->part, out[1].ratio_ci_part, sizeof(nt->part));
    nt->cycles = (int)out[1].power_cycles;
    tb_meter_selfcal_line(m, nt->selfcal, sizeof(nt->selfcal));
    for (int c = 0; c < 2; c++)
        nt->tau_used[c] = c < sim_b.z.chips ? tb_meter_tau_used(m, c, &nt->delay_used) : NAN;
    for (int c = 0; c < 2; c++) {   /* what the cadence line says of each chip */
        bool fit = c < sim_b.z.chips && m->cal_sizes && m->cal[c].steps >= TB_SELFCAL_MIN_STEPS;
        nt->fit_delay[c] = fit ? m->cal[c].delay_ms : NAN;
        nt->tau_sd[c] = c < sim_b.z.chips && m->cal_sizes ? m->cal[c].tau_sd_ms : NAN;
        nt->at_bound[c] = fit && m->cal[c].at_bound;
    }
    nt->ok = isfinite(nt->ratio);
    snprintf(nt->note, sizeof(nt->note), "%s", out[1].power_note);
    tb_meter_free(m);
    tb_sampler_stop(s, NULL);
    return nt->ok ? 0 : -1;
}

/* ---- the step-response probe ---------------------------------------------------------
 * What `transpose-bench probe-power` does on a board, on the simulated one: idle 2 s, the
 * copy 1.5 s, idle 2 s, the copy 1.5 s, idle 2 s, the total polled every 5 ms, fitted by
 * the probe's own tb_stepfit (stepfit.h). The sensor is read directly at each poll's
 * virtual time (no sampler thread: the probe's readings are the sensor's). NVML's counter
 * has no reading of its own to fit: -ENOTSUP. */
#define SIM_PROBE_POLL_MS 5
static inline int sim_probe(const struct sim_opts *o, unsigned long long seed,
                            struct tb_stepfit *fit, char *why, size_t n)
{
    static const double edge[] = { 2000, 3500, 5500, 7000 }, end_ms = 9000;
    if (o->sensor == SIM_NVML)
        return snprintf(why, n, "nvml: an energy counter, no reading to fit"), -ENOTSUP;
    sim_board_reset(o, o->ratio, seed);
    int64_t t0 = tb_now_ns();
    pthread_mutex_lock(&sim_b.mu);
    sim_b.nseg = 0;
    for (int k = -1; k < 4; k++) {   /* idle from t0, then the copy and idle in turn */
        sim_b.seg_t[sim_b.nseg] = t0 + (k < 0 ? 0 : (int64_t)(edge[k] * 1e6));
        sim_b.seg_p[sim_b.nseg++] = k % 2 == 0 ? 0 : -1;
    }
    size_t np = (size_t)(end_ms / SIM_PROBE_POLL_MS);
    double *t = malloc(np * sizeof(*t)), *w = malloc(np * sizeof(*w));
    int rc = -ENOMEM;
    if (t && w) {
        for (size_t i = 0; i < np; i++) {
            t[i] = (double)(i + 1) * SIM_PROBE_POLL_MS;
            w[i] = 0;
            for (int c = 0; c < sim_b.z.chips; c++)   /* float, as a sysfs reading gives it */
                w[i] += (float)sim_read(&sim_b.z, t0 + (int64_t)(t[i] * 1e6), c, NULL);
        }
        rc = tb_stepfit(t, w, np, edge, 4, fit, why, n);
    }
    pthread_mutex_unlock(&sim_b.mu);
    free(t);
    free(w);
    return rc;
}

/* ---- the nights' statistics --------------------------------------------------------- */

struct sim_summary {
    int nights, failed;
    double bias_pct;               /* mean of measured / true - 1, % */
    double coverage_pct;           /* nights whose energy_ratio_ci95 covers the truth */
    double halfwidth_pct_median;   /* energy_ratio_ci95 over the ratio, %, median */
    double err_rms_pct;            /* the ratio's error against the truth, rms, % */
    double part_pct_median[TB_METER_CI_PARTS];   /* each part of the interval, %, median */
    double night_s, planned_s;     /* mean seconds of a night, and of its plan */
    double cycles;                 /* mean cycles */
    double tau_used[2], delay_used;   /* the meter's, mean over the nights with a ratio */
    double tau_err_rms[2];         /* tau_used against the chip's truth, rms, % */
    double fit_delay[2];           /* each chip's fitted dead time, mean where fitted */
    double at_bound_pct[2];        /* nights whose chip's fit ended at its search's bound */
    double rerun_coverage_pct;     /* rerun_sim.h: nights whose energy_ratio_rerun_ci95 holds
                                    * the next night's ratio */
    double rerun_halfwidth_pct_median, oracle_halfwidth_pct;
    double rerun_by_night[SIM_RERUN_BY_NIGHT];   /* a card's first nights' coverage */
    char tail[192];                /* more key=value fields for the line (the probe's) */
};

static inline void sim_summary_tail(struct sim_summary *sm, const char *text)
{
    size_t len = strlen(sm->tail);
    snprintf(sm->tail + len, sizeof(sm->tail) - len, "%s", text);
}

static int sim_cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorted in place); NAN where n is 0. */
static inline double sim_median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof(*v), sim_cmp_dbl);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The error's rms and each part's median over the nights with a ratio, %. */
static inline void sim_summarise_parts(const struct sim_night *nt, int n, struct sim_summary *sm)
{
    double *v = calloc((size_t)n + 1, sizeof(*v)), ss = 0;
    int ok = 0;
    for (int i = 0; i < n; i++)
        if (nt[i].ok) {
            ss += (nt[i].ratio / nt[i].truth - 1) * (nt[i].ratio / nt[i].truth - 1);
            ok++;
        }
    sm->err_rms_pct = ok ? 100 * sqrt(ss / ok) : NAN;
    for (int k = 0; k < TB_METER_CI_PARTS; k++) {
        int m = 0;
        for (int i = 0; v && i < n; i++)
            if (nt[i].ok && isfinite(nt[i].part[k]))
                v[m++] = nt[i].part[k];
        sm->part_pct_median[k] = v ? 100 * sim_median(v, m) : NAN;
    }
    free(v);
}

/* Each chip's constant against its truth (tau_true), its dead time and how often its fit
 * ended at a bound, over the nights with a ratio. */
static inline void sim_summarise_chips(const struct sim_night *nt, int n, const double *tau_true,
                                       struct sim_summary *sm)
{
    for (int c = 0; c < 2; c++) {
        double ss = 0, d = 0;
        int ok = 0, fit = 0, bound = 0;
        for (int i = 0; i < n; i++) {
            if (!nt[i].ok)
                continue;
            double e = nt[i].tau_used[c] / tau_true[c] - 1;
            ss += e * e;
            ok++;
            bound += nt[i].at_bound[c];
            if (isfinite(nt[i].fit_delay[c]))
                d += nt[i].fit_delay[c], fit++;
        }
        sm->tau_err_rms[c] = ok && tau_true[c] > 0 ? 100 * sqrt(ss / ok) : NAN;
        sm->fit_delay[c] = fit ? d / fit : NAN;
        sm->at_bound_pct[c] = ok ? 100.0 * bound / ok : NAN;
    }
}

static inline void sim_summarise(const struct sim_night *nt, int n, struct sim_summary *sm)
{
    memset(sm, 0, sizeof(*sm));
    double *hw = calloc((size_t)n + 1, sizeof(*hw)), bias = 0;
    int ok = 0, covered = 0;
    for (int i = 0; i < n; i++) {
        sm->night_s += nt[i].secs / n;
        sm->planned_s += nt[i].planned_s / n;
        if (!nt[i].ok)
            continue;
        bias += nt[i].ratio / nt[i].truth - 1;
        covered += fabs(nt[i].ratio - nt[i].truth) <= nt[i].ci;
        sm->cycles += nt[i].cycles;
        sm->tau_used[0] += nt[i].tau_used[0];
        sm->tau_used[1] += nt[i].tau_used[1];
        sm->delay_used += nt[i].delay_used;
        if (hw)
            hw[ok] = nt[i].ci / nt[i].ratio;
        ok++;
    }
    sm->nights = n;
    sm->failed = n - ok;
    sm->bias_pct = ok ? 100 * bias / ok : NAN;
    sm->coverage_pct = ok ? 100.0 * covered / ok : NAN;
    sm->cycles = ok ? sm->cycles / ok : NAN;
    sm->tau_used[0] = ok ? sm->tau_used[0] / ok : NAN;
    sm->tau_used[1] = ok ? sm->tau_used[1] / ok : NAN;
    sm->delay_used = ok ? sm->delay_used / ok : NAN;
    if (hw && ok) {
        qsort(hw, (size_t)ok, sizeof(*hw), sim_cmp_dbl);
        sm->halfwidth_pct_median = 100 * (ok % 2 ? hw[ok / 2] : 0.5 * (hw[ok / 2 - 1] + hw[ok / 2]));
    } else {
        sm->halfwidth_pct_median = NAN;
    }
    free(hw);
}

/* The nights of o (each its own seed from o->seed) into nt[0..o->nights) and sm. The
 * board's power settings: the config's defaults, without the warming (a night here is one
 * size; the warming is the run's, once). */
static inline void sim_nights(const struct sim_opts *o, struct sim_night *nt,
                              struct sim_summary *sm)
{
    struct tb_config cfg;
    tb_config_init(&cfg);
    struct tb_power_cfg pc = cfg.board.power;
    tb_config_free(&cfg);
    tb_strlcpy(pc.source, "sim", sizeof(pc.source));
    pc.settle_s = 0;
    sim_rerun_start(o->between_pct, o->switch_pct, o->cards, o->rerun_from,
                    (unsigned long long)o->seed, o->nights);
    for (int i = 0; i < o->nights; i++) {
        double truth = sim_rerun_truth(o->ratio);   /* rerun_sim.h: the night's state */
        sim_b.between = sim_rerun_between(&pc);
        sim_run_night(o, &pc, truth, (unsigned long long)o->seed + (unsigned long long)i,
                      &nt[i]);
        sim_rerun_record(nt[i].ratio, nt[i].ci, nt[i].rerun_ci, nt[i].truth, nt[i].cycles);
        if (o->verbose)
            fprintf(stderr, "night %d: ratio %.7f +- %.7f (truth %.6f; parts %% cycles %.4f "
                    "tau %.4f lsb %.4f floor %.4f), %d cycles, tau_used %.2f/%.2f +- "
                    "%.2f/%.2f, %.1f s (planned %.1f)%s%s\n", i, nt[i].ratio, nt[i].ci,
                    nt[i].truth, 100 * nt[i].part[0], 100 * nt[i].part[1],
                    100 * nt[i].part[2], 100 * nt[i].part[3], nt[i].cycles,
                    nt[i].tau_used[0], nt[i].tau_used[1], nt[i].tau_sd[0], nt[i].tau_sd[1],
                    nt[i].secs, nt[i].planned_s, nt[i].note[0] ? ": " : "", nt[i].note);
    }
    if (o->verbose && o->nights > 0)
        fprintf(stderr, "power_cadence: %s; %s\n", nt[0].cadence, nt[0].selfcal);
    sim_summarise(nt, o->nights, sm);
    sim_summarise_parts(nt, o->nights, sm);
    const double tau_true[2] = { o->tau_ms, o->tau2_ms };
    sim_summarise_chips(nt, o->nights, tau_true, sm);
    struct sim_rerun_said rs;
    sim_rerun_summary(&rs);
    sm->rerun_coverage_pct = rs.coverage;
    sm->rerun_halfwidth_pct_median = rs.hw_median;
    sm->oracle_halfwidth_pct = rs.oracle;
    memcpy(sm->rerun_by_night, rs.by_night, sizeof(rs.by_night));
    sim_b.between = NULL;
}

static inline void sim_print(FILE *f, const struct sim_opts *o, const struct sim_summary *sm)
{
    fprintf(f, "sensor=%s tau_ms=%g tau2_ms=%g ratio=%g noise_pct=%g nights=%d failed=%d "
            "bias_pct=%.3f coverage_pct=%.1f halfwidth_pct_median=%.3f cycles_mean=%.1f "
            "night_s=%.1f planned_s=%.1f%s", sim_sensor_names[o->sensor], o->tau_ms,
            o->tau2_ms, o->ratio, o->noise_pct, sm->nights, sm->failed, sm->bias_pct,
            sm->coverage_pct, sm->halfwidth_pct_median, sm->cycles, sm->night_s, sm->planned_s,
            sm->tail);
    fprintf(f, " claim_tau_ms=%g claim_tau2_ms=%g delay_ms=%g lsb_pct=%g read_latency_ms=%g "
            "jitter_ms=%g wander_pct=%g switch_pct=%g tau_ms_used=%.1f tau2_ms_used=%.1f "
            "delay_ms_used=%.1f", sim_claim_ms(o, 0), o->tau2_ms > 0 ? sim_claim_ms(o, 1) : 0,
            o->delay_ms, o->lsb_pct, o->read_latency_ms, o->jitter_ms, o->wander_pct,
            o->switch_pct, sm->tau_used[0], o->tau2_ms > 0 ? sm->tau_used[1] : 0,
            sm->delay_used);
    fprintf(f, " between_pct=%g rerun_coverage_pct=%.1f rerun_halfwidth_pct_median=%.3f "
            "oracle_halfwidth_pct=%.3f drift_pct_s=%g", o->between_pct, sm->rerun_coverage_pct,
            sm->rerun_halfwidth_pct_median, sm->oracle_halfwidth_pct, o->drift_pct_s);
    fprintf(f, " err_rms_pct=%.4f ci_parts_pct_median=%.4f/%.4f/%.4f/%.4f", sm->err_rms_pct,
            sm->part_pct_median[TB_METER_CI_CYCLES], sm->part_pct_median[TB_METER_CI_TAU],
            sm->part_pct_median[TB_METER_CI_LSB], sm->part_pct_median[TB_METER_CI_FLOOR]);
    fprintf(f, " tau_err_rms_pct=%.2f/%.2f fit_delay_ms=%.1f/%.1f at_bound_pct=%.1f/%.1f",
            sm->tau_err_rms[0], sm->tau_err_rms[1], sm->fit_delay[0], sm->fit_delay[1],
            sm->at_bound_pct[0], sm->at_bound_pct[1]);
    if (o->switch_pct > 0 || o->cards > 1 || o->rerun_from >= 0) {
        fprintf(f, " cards=%d rerun_coverage_by_night=", o->cards);
        for (int i = 0; i < SIM_RERUN_BY_NIGHT; i++)
            fprintf(f, "%s%.1f", i ? "/" : "", sm->rerun_by_night[i]);
    }
    fputc('\n', f);
}

#endif
