/* runner_energy.h: the runner's energy half, called by runner.c (one way: runner_energy.c
 * calls nothing of runner.c), over energy's door (energy/door.h: begin, size, end): before
 * a sweep the step's plan and the warming's load; a size's timed points given as a load
 * and their figures copied into their rows; after it, the door's end (the idle after, the
 * power lines of the log). Both halves read the sweep's context (runner_ctx.h) and share
 * the device buffers (point_buffers.h). */
#ifndef TB_RUNNER_ENERGY_H
#define TB_RUNNER_ENERGY_H

#include <stddef.h>

#include "jetson/throttle.h"
#include "log/csvlog.h"
#include "measure/point_buffers.h"
#include "measure/runner_ctx.h"
#include "measure/sweep.h"

/* A point's row as it is made, with the texts its pointers name. */
struct tb_rn_out {
    struct tb_row row;
    char note[512];
    char power_note[320];
    char block_figures[256];
    double emc_mhz;               /* the EMC clock read in the energy blocks; NAN: none */
    struct tb_throttle_snap start;   /* boards' throttle counters at the point's start */
    char cause[128];
};

/* A point of the size being measured: its row waits for the size's energy. */
struct tb_rn_pending {
    const struct tb_point *p;
    size_t index;
    struct tb_rn_out o;
    double median_ms, moved;      /* its timing: a launch's time, its bytes */
    char utc[32];
};

/* The run's power before the sweep, through tb_energy_begin (energy made once, kept in ctx
 * across mode steps): the idle, the cadence said with the night's plan (this step's timing
 * and energy points), the warming under the first point (its buffers filled here). */
void tb_rn_power_begin(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                       struct tb_point_buffers *buf, struct tb_runner_result *res);
/* The energy of a size's timed points (power.points picks them), into their rows. Returns
 * the load's backend error when it ended the blocks (the caller judges it), else 0. */
int tb_rn_power_size(struct tb_runner_ctx *ctx, struct tb_rn_pending *grp, size_t g,
                     struct tb_point_buffers *buf, struct tb_runner_result *res);
/* After the sweep: tb_energy_end (the idle after it, the power lines of the log). */
void tb_rn_power_end(struct tb_runner_ctx *ctx, struct tb_runner_result *res);

#endif
