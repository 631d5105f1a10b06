/* door.h: energy's door, the calls a sweep makes (measure/runner_energy.c) and all it needs
 * to know of energy: tb_energy_begin before a sweep's points (the meter made once a night,
 * what earlier nights teach, the idle, the cadence, the night's plan said once, the warming
 * once), tb_energy_size for the points of one size (their load given, their figures back),
 * tb_energy_end after the sweep (the closing idle and the power_* lines of the log, written
 * here, by the room that knows what they mean); tb_energy_free once a night. A night of
 * several mode steps calls begin and end once a step. The one other entrance is the probe
 * command's (cmd/probe*.c): stepfit.h, the step fit and its kept result, arithmetic on the
 * probe's own readings that reaches nothing of the meter or the sampler. Not here: what a
 * point is, how it is launched or which points are measured (the runner's load and its
 * choice). */
#ifndef TB_ENERGY_DOOR_H
#define TB_ENERGY_DOOR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "energy/meter.h"
#include "log/csvlog.h"
#include "log/logread.h"

struct tb_energy;

/* What a sweep's start gives the door. */
struct tb_energy_start {
    struct tb_sampler *sampler;        /* started */
    const struct tb_power_cfg *pc;     /* kept by pointer */
    volatile sig_atomic_t *stop;
    bool judge_clock;                  /* the load runs on the GPU whose clock the source reads */
    bool quiet;                        /* nothing said on stderr */
    /* what earlier nights teach (rerun.h): the log folder and whose logs count */
    const char *log_dir, *host, *host_id, *board, *device_id;
    /* the step's plan: its timing's seconds and, per size, the points whose energy is
     * measured (size_points[i]) and whether the copy is among them (size_ref[i]) */
    double timing_s;
    const size_t *size_points;
    const bool *size_ref;
    size_t sizes;
    size_t steps;                      /* the night's mode steps (0: 1) */
    /* the warming: point 0 of this load (NULL: none), named warm_what */
    const struct tb_meter_load *warm;
    const char *warm_what;
};

/* What the door found and said, for the run's summary and its rows. */
struct tb_energy_said {
    double idle_w, idle_ci;            /* the idle before the sweep, its 95% half-width */
    double idle_after_w, idle_after_ci;   /* after it (tb_energy_end); NAN before */
    char idle_why[160];                /* why the idle has no interval; "" */
    char cadence[TB_METER_CADENCE_LINE];   /* the sensor's model and cadence, as said, logged */
    char settle[320];                  /* the warming, as logged; "" none */
    char rerun[768];                   /* what the run-to-run spread was learned from; "" */
    double settle_secs, plan_s;        /* the warming's seconds; the night's, as announced */
};

/* Before a sweep's points: *e made on a night's first call (NULL: no memory; no figures).
 * Fills said. */
void tb_energy_begin(struct tb_energy **e, const struct tb_energy_start *st,
                     struct tb_energy_said *said);
/* The figures of the n points of one size (ref: the copy's index, SIZE_MAX none) under
 * load ld: keys[k] is point k's row as a reader reads it (whose earlier runs teach its
 * spread); deadline_ns as tb_meter_size. Fills out[0..n). */
void tb_energy_size(struct tb_energy *e, const struct tb_meter_load *ld, size_t n, size_t ref,
                    const struct tb_log_rec *keys, int64_t deadline_ns,
                    struct tb_meter_result *out);
/* After the sweep: the idle after it (unless stopped) into said, and the log's power_*
 * lines (cadence, idle, warming, rerun, plan) into log. */
void tb_energy_end(struct tb_energy *e, struct tb_csvlog *log, struct tb_energy_said *said);
void tb_energy_free(struct tb_energy *e);

#endif
