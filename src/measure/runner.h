/* runner.h: runs the points of a sweep on one backend: verification, warm-up, timed
 * repetitions under the stopping rule, statistics, and one log row per point; a size's
 * energy is the meter's (energy/meter.h), given the load of its points by the runner's
 * energy half (runner_energy.h). The sweep's context and result: runner_ctx.h. A failing
 * point is recorded and the sweep goes on; only a device that cannot be recovered, a stop
 * request or an unwritable log ends it early. */
#ifndef TB_RUNNER_H
#define TB_RUNNER_H

#include <stddef.h>

#include "measure/runner_ctx.h"
#include "measure/sweep.h"

/* Measures the points in order, one row each, until the end, a signal (*ctx->stop), the
 * deadline or a log that takes no more rows. Everything it found is in res (counts, why it
 * stopped: interrupted, aborted, log_failed, not_run), so there is nothing to return. */
void tb_runner_sweep(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                     struct tb_runner_result *res);
void tb_runner_result_free(struct tb_runner_result *res);
/* After the last sweep of a run (every mode step): frees what the sweeps kept in ctx. */
void tb_runner_ctx_end(struct tb_runner_ctx *ctx);

#endif
