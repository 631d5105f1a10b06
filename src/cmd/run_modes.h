/* run_modes.h: a run's mode sweep (sweep.power_modes x gpu_max_mhz x emc_max_mhz, #31) as
 * run.c drives it: planned with the configuration (a desktop, or tune: exit 2, nothing
 * changed), a dead run's changes put back once the log is open, each step switched, verified
 * and measured, the board restored whatever ends the sweep, and what the end line says of it.
 * How a mode is switched, verified and restored is jetson/modes.h's; this is when, and what
 * the run's log says. No step: the sweep runs once, in the mode the board is in. */
#ifndef TB_RUN_MODES_H
#define TB_RUN_MODES_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "jetson/modes.h"
#include "lib/diag.h"
#include "log/csvlog.h"
#include "measure/runner.h"

struct tb_run_modes {
    bool quiet;                     /* notes of what was restored: none (set by the caller) */
    struct tb_mode_step *steps;     /* the plan (jetson/modes.h); none: 0 */
    size_t nsteps, skipped;
    struct tb_modes modes;          /* open from the state file's writing to the restore */
    bool open;
    bool not_run;                   /* no mode or clock could be changed (state file, table) */
    bool not_restored;              /* ... or not all put back (the state file is kept) */
};

/* The steps of the sweep's axes into m; each problem added to d with the setting's FILE:LINE
 * (tune, which never switches modes, refuses any axis). */
void tb_run_modes_plan(struct tb_run_modes *m, const struct tb_sweep_cfg *sw, bool tune,
                       struct tb_diag *d);

/* A state file left by a run that died mid-sweep: put back, like the .part recovery, and said
 * in log (modes_restored). Call with the lock held, so that no live run's is touched. */
void tb_run_modes_recover(const struct tb_run_modes *m, struct tb_csvlog *log);

/* The sweep: the board's settings to the state file before the first change, then each step
 * switched and verified and pts run in it through ctx (its power mode and clock set per
 * step, put back after); a step that does not take is skipped with its reason, in the log's
 * mode_step lines; the board is restored at the end, whatever ended it. *res: every step's
 * rows and counts (the first measured step's idle power and cadence). */
void tb_run_modes_sweep(struct tb_run_modes *m, struct tb_runner_ctx *ctx,
                        const struct tb_point *pts, size_t npts, struct tb_runner_result *res);

/* This run's changes put back (nothing when none is open): at the sweep's end, and from the
 * watchdog's ending. log (NULL: none yet) says what was restored. */
void tb_run_modes_restore(struct tb_run_modes *m, struct tb_csvlog *log);

/* Appends to the end line in how (size n) what the steps came to: none run, or skipped, or
 * not all restored; nothing when every step ran and the board is back. */
void tb_run_modes_how(const struct tb_run_modes *m, char *how, size_t n);

/* Why a run measured nothing when the steps are the reason (none run, every one skipped),
 * else NULL. */
const char *tb_run_modes_nothing(const struct tb_run_modes *m);

/* Whether the steps leave the run failed: none run, or the board not all put back. */
bool tb_run_modes_failed(const struct tb_run_modes *m);

void tb_run_modes_free(struct tb_run_modes *m);

#endif
