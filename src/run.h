/* run.h: a run's lifecycle (`run` and `tune`), start to end: backend, board and
 * configuration (checked before the device opens), device, lock, log, run conditions,
 * power, sweep, finish. main.c parses the options into tb_run_opts and maps the outcome
 * to an exit code; nothing else. */
#ifndef TB_RUN_H
#define TB_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "config.h"

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
    TB_RUN_FAILED,    /* a point failed, the GPU could not be used, interrupted: log written */
    TB_RUN_USAGE,     /* bad options or configuration: nothing run, no log (and the device
                       * not opened, unless the problem needs it: run.c's settle) */
    TB_RUN_LOCKED,    /* another run holds the lock */
};

enum tb_run_outcome tb_run(struct tb_run_opts *o);

#endif
