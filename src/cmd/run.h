/* run.h: a run's lifecycle (`run` and `tune`), start to end: signal handlers, board and
 * configuration files, lock, the driver's probe (no context), what it settles (a board by
 * the GPU's name, kernel names, points, device limits), log, device, run conditions, power,
 * sweep (once per power-mode step of a mode sweep, the board restored at its end), finish.
 * Every driver call is under the watchdog (watchdog.h). runcmd.c parses the options
 * into tb_run_opts and maps the outcome to an exit code. */
#ifndef TB_RUN_H
#define TB_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "config/config.h"

struct tb_run_opts {
    struct tb_config *cfg;     /* initialised, with the options' overrides added */
    struct tb_diag *diag;      /* problems found while parsing; more are added here */
    const char *sweep_file;    /* NULL: conf/default.cfg */
    const char *board_file;    /* NULL: detected */
    const char *device;        /* auto, cpu, cuda, cuda:N */
    bool quiet;
    bool tune;                 /* `tune`: write the best block per kernel and size */
    const char *tune_out;      /* tuned sweep file; NULL: tb_tune_default_path's */
};

enum tb_run_outcome {
    TB_RUN_OK,        /* every point ok */
    TB_RUN_FAILED,    /* a point failed, nothing measured, the GPU could not be used, a
                       * driver call past its deadline (the watchdog exits 1 itself),
                       * interrupted: log written */
    TB_RUN_USAGE,     /* bad options or configuration: nothing run, no log, no context (the
                       * driver probed only for what needs it: device limits, a board by
                       * the GPU's name) */
    TB_RUN_LOCKED,    /* another run holds the lock */
};

enum tb_run_outcome tb_run(struct tb_run_opts *o);

#endif
