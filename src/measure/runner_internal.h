/* runner_internal.h: what runner.c (checking, timing, rows) and runner_energy.c (the
 * load the meter asks for, and the meter's results into rows) share. Not an interface. */
#ifndef TB_RUNNER_INTERNAL_H
#define TB_RUNNER_INTERNAL_H

#include "measure/runner.h"
#include "jetson/throttle.h"
#include "energy/meter.h"

struct tb_rn_buffers {
    long rows, cols;
    void *in, *out;
    void *host;           /* download target for verification */
    size_t bytes;
};

void tb_rn_buffers_free(const struct tb_backend *be, void *st, struct tb_rn_buffers *b);
/* Allocates input and output for a size, unless they are already there. */
int tb_rn_buffers_get(const struct tb_backend *be, void *st, struct tb_rn_buffers *b, long rows,
                      long cols, size_t bytes, bool verify);

struct tb_rn_out {
    struct tb_row row;
    char note[512];
    char power_note[320];
    char blocks[256];
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

/* The run's power before the sweep: the meter (made once, kept in ctx across mode steps),
 * the idle, the cadence said with the run's plan, the warming under the first point. */
void tb_rn_power_begin(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                       struct tb_rn_buffers *buf, struct tb_runner_result *res);
/* The energy of a size's timed points (power.points picks them), into their rows. Returns
 * the load's backend error when it ended the blocks (the caller judges it), else 0. */
int tb_rn_power_size(struct tb_runner_ctx *ctx, struct tb_rn_pending *grp, size_t g,
                     struct tb_rn_buffers *buf, struct tb_runner_result *res);
/* After the sweep: the idle after it, the power lines of the log. */
void tb_rn_power_end(struct tb_runner_ctx *ctx, struct tb_runner_result *res);

#endif
