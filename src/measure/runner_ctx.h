/* runner_ctx.h: what a sweep runs with (struct tb_runner_ctx: the configuration, the backend
 * and its instance, the log, the power source and energy's door kept across mode steps) and what
 * it found (struct tb_runner_result). Its own header so that both halves of the runner, the
 * timing (runner.c) and the energy (runner_energy.c), read one context without including
 * each other. */
#ifndef TB_RUNNER_CTX_H
#define TB_RUNNER_CTX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/backend.h"
#include "config/config.h"
#include "log/csvlog.h"
#include "log/logread.h"
#include "energy/door.h"

struct tb_sampler;

struct tb_runner_ctx {
    const struct tb_config *cfg;
    const struct tb_backend *be;
    void *be_st;                      /* its instance (tb_backend_new), opened */
    const struct tb_device_info *dev;
    struct tb_csvlog *log;            /* rows go here */
    struct tb_sampler *sampler;       /* NULL: no power figures */
    struct tb_energy *energy;         /* energy's door (energy/door.h): made by the first
                                       * sweep with a source, kept across mode steps (the
                                       * warming and the learning once a night);
                                       * tb_runner_ctx_end frees it */
    const char *run_id, *host;
    const char *host_id;              /* its machine-id ("" none): whose earlier logs teach */
    const char *device_id;            /* the device's own identity ("" none): which of them */
    volatile sig_atomic_t *stop;      /* set by a signal handler: abandon and close */
    bool progress;                    /* progress line on stderr (a terminal) */
    bool quiet;                       /* no notes (skipped points, the cadence) on stderr */
    int64_t deadline_ns;              /* tb_now_ns() past which no new point starts; 0: none */
    unsigned long long seed;
    const char *power_mode;           /* nvpmodel mode, "" when unknown: on every row */
    double max_clock_mhz;             /* the GPU clock this mode allows (devfreq max); NAN:
                                       * unknown, throttled is then judged against the clock
                                       * measured at the start */
    unsigned long long dropped_seen;  /* the sampler's dropped count at the last row */
    const struct tb_runner_step *step;  /* the mode sweep's step; NULL: none (empty columns) */
    size_t steps;                     /* the mode sweep's steps, for the time announced (0: 1) */
    size_t steps_done;                /* sweeps ended (the warming and the announcement once) */
};

/* A step of the mode sweep as its rows carry it (MHz; 0: no cap asked). */
struct tb_runner_step {
    double gpu_cap_asked_mhz, emc_cap_asked_mhz, emc_cap_mhz;
};

struct tb_runner_result {
    size_t ok, skipped, failed, verify_failed;
    bool interrupted, aborted, log_failed;
    size_t not_run;                   /* points left when the deadline passed */
    struct tb_energy_said energy;     /* the idle, cadence, warming, learning and plan, as
                                       * energy's door found and said them */
    int64_t t_start_ns;               /* when the night's first sweep began (tb_now_ns; 0
                                       * before it: the runner sets it once) */
    double t_begin_s;                 /* when its points began (tb_now_s), for the progress */
    struct tb_log_rec *rows;          /* every row written, as a reader sees it */
    size_t n_rows;
};

#endif
