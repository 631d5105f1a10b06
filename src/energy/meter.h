/* meter.h: how energy is measured, in one place. The runner times and verifies; the meter
 * takes the points of a size and a way to keep the device busy with any of them (a load
 * callback), runs blocks of them interleaved with the reference copy's, and returns one
 * result per point with every figure and its interval, or why a figure cannot be given.
 * It also owns the run's idle baseline and its warming; the runner reaches it through
 * energy's door (door.h), which writes what the log says of them. Not here: reading a sensor (the sources, sampler.c), a window's readings (window.c). */
#ifndef TB_METER_H
#define TB_METER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "power/power.h"
#include "energy/rerun.h"
#include "log/energy_figures.h"

/* Keeps the device busy with point i until end_ns (tb_now_ns's clock) or a stop, a chunk
 * at least; *bytes gets the bytes it moved. 0, or the backend's error (the meter stops). */
typedef int (*tb_meter_load_fn)(void *arg, size_t i, int64_t end_ns, double *bytes);

struct tb_meter_load {
    tb_meter_load_fn fn;
    void *arg;
    int (*errstr)(void *arg, int rc, char *buf, size_t n);   /* optional: the error's words */
};

/* The parts of a ratio's interval, in tb_meter_result.ratio_ci_part (doc/power.md). */
enum tb_meter_ci_part {
    TB_METER_CI_CYCLES,   /* the cycles' spread: t x the mean's sd */
    TB_METER_CI_TAU,      /* the time constants' uncertainty through the inversion */
    TB_METER_CI_LSB,      /* the register's step */
    TB_METER_CI_FLOOR,    /* what the sensor's model leaves */
    TB_METER_CI_PARTS
};

/* One point's energy, all from its blocks. Its figures are log/energy_figures.h's list, each
 * named as its log column and in its unit (the row takes them by name: runner_energy.c).
 * NAN: not measured or withheld (power_note says why). */
struct tb_meter_result {
#define TB_METER_FIGURE(name, keep, max) double name;
    TB_ENERGY_FIGURES(TB_METER_FIGURE)
#undef TB_METER_FIGURE
    /* no column: */
    double jpb, jpb_ci;              /* J per byte (j_per_gb / 1e9) and its interval */
    double gbps;                     /* bytes over time in its blocks (the row's gbps is the
                                      * timing's) */
    bool measured;                   /* blocks ran for it */
    /* energy_ratio_ci95's parts, each a relative 95% half-width (meter_figures.c): the
     * cycles' spread, then what they do not average (meter_cal.c: the constants'
     * uncertainty, the register's step, the model's floor); NAN where none */
    double ratio_ci_part[TB_METER_CI_PARTS];
    /* the texts, named as their columns: */
    char block_figures[256];         /* each cycle's ratio (or pJ/B) and temperature */
    char power_note[320];            /* what is missing or wide, and why; "" when whole */
};

struct tb_meter;

/* A meter over a started sampler; pc is kept by pointer (the run's board config). The
 * sampler's feed is taken once, into the meter's plan (plan.h), and its timing read from it;
 * the meter asks the sampler nothing after. */
struct tb_meter *tb_meter_new(struct tb_sampler *s, const struct tb_power_cfg *pc,
                              volatile sig_atomic_t *stop);
void tb_meter_free(struct tb_meter *m);
/* The sensor's timing the meter planned when it was made (plan.h), settled by its first
 * idle: what the power_cadence line prints. */
struct tb_energy_plan;
const struct tb_energy_plan *tb_meter_plan(const struct tb_meter *m);
/* A mode step begins: the device's enforced limit, set per mode, read again into the plan. */
void tb_meter_step(struct tb_meter *m);
/* The load runs on the GPU the source reads the clock of: a block whose clock fell below
 * 0.85 of the size's highest marks a throttle or a mode change and is dropped. Off (a CPU
 * backend, whose load leaves the GPU's clock to wander) by default. */
void tb_meter_judge_clock(struct tb_meter *m, bool on);

/* The idle baseline: nothing runs for power.idle_ms, longer until it holds min_readings
 * updates (capped from the sensor's cadence: a static sensor gives up and says so); the
 * first settles the cadence. The mean total power and its 95% half-width in *ci. */
double tb_meter_idle(struct tb_meter *m, double *ci, char *why, size_t n);
/* The sensor's cadence and the block it sizes, as said and logged; a block's ms. */
double tb_meter_block_ms(const struct tb_meter *m);
/* The cadence line's room: the model's own line (at most TB_METER_MODEL_LINE) and the
 * cadence's text around it (meter_run.c: the slow reads' 260 characters with their numbers,
 * the lengthened poll's note 110, the budget's cut 130, the source's detail after an
 * inverted model's line: power.h's 384 and its 14), with room to spare; a buffer this size
 * never cuts the line's later parts (door.h's said->cadence is this size). */
#define TB_METER_MODEL_LINE 900
#define TB_METER_CADENCE_LINE 1960
void tb_meter_cadence_line(const struct tb_meter *m, char *line, size_t n);
/* The seconds a size's energy of n points (with the copy among them when ref) is planned
 * to take: the cycles its figures need to reach power.target_rel_ci as the first idle's
 * reading spread predicts (power.rounds at least) in blocks of the sensor's cadence, at
 * most the budget (power.budget_s a point); the budget where the spread is not known. */
double tb_meter_plan_size_s(const struct tb_meter *m, size_t n, bool ref);
/* The night's seconds from now, after the first idle: steps mode steps (0 or 1: one), each
 * its own work of step_s (timing and energy, as planned) and its idle after, the idle
 * before each step but the first, and the warming (power.settle_s and its blocks' closing
 * reads) when it has not run. The mode switches themselves aside. */
double tb_meter_plan_s(const struct tb_meter *m, double step_s, size_t steps);
/* The night's time as said at its start, kept across mode steps; *since_s the seconds
 * since (0 and 0 before it is said). */
void tb_meter_announce(struct tb_meter *m, double secs);
double tb_meter_announced(const struct tb_meter *m, double *since_s);

/* What the inversion of the last size's blocks used for rail's chip: its time constant (ms),
 * and in *delay_ms (where not NULL) the sensor's dead time its blocks allowed for. NAN
 * where the sensor is not inverted or the rail does not exist. */
double tb_meter_tau_used(const struct tb_meter *m, int rail, double *delay_ms);

/* What the self-calibration found (meter_cal.c), for the log's power_cadence line: each
 * rail's time constant and dead time with their sds, from how many load steps, against
 * what the board said and where that came from; "" where no size was inverted. */
void tb_meter_selfcal_line(const struct tb_meter *m, char *line, size_t n);

/* Warming, once a night: point i's load for exactly power.settle_s in blocks of 5 s at
 * least; returns its seconds (0: none, or it ran already: a mode step does not warm
 * again). line says how, and whether its last two blocks' powers agreed (settle_rel, or
 * their intervals): said, not waited for. */
double tb_meter_warm(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                     const char *what, char *line, size_t n);

/* The energy of the n points of one size: blocks of each interleaved with blocks of the
 * reference ref (SIZE_MAX: none, then no ratio) in an order that rotates every cycle,
 * closing with a reference block, cycles added until every figure is within
 * power.target_rel_ci or the budget (power.budget_s per point, and deadline_ns when not 0)
 * is spent. idle_w/idle_ci: the run's idle, for the dynamic figure. between[0..n): each
 * point's run-to-run spread (rerun.h), in the intervals a rerun on another night lands in
 * (NULL: none, those intervals are the cycles' own). Fills out[0..n). */
void tb_meter_size(struct tb_meter *m, const struct tb_meter_load *ld, size_t n, size_t ref,
                   double idle_w, double idle_ci, int64_t deadline_ns,
                   const struct tb_rerun_sd *between, struct tb_meter_result *out);

#endif
