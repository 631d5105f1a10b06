/* probe_internal.h: the probe-power command's state and steps, shared by probecmd.c (options,
 * files, the result) and probe_run.c (source, device, load, fit, what it says). Private to
 * these two files. */
#ifndef TB_PROBE_INTERNAL_H
#define TB_PROBE_INTERNAL_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "energy/stepfit.h"
#include "measure/backend.h"
#include "power/power.h"

struct probe {
    struct tb_config cfg;
    struct tb_diag diag;
    const char *board_file, *device;
    double span_s, poll_ms;            /* each idle and load span; the polling interval */
    bool span_given;
    bool report;                       /* --report: the board's part, then the probe, kept */
    long rows, cols;                   /* the copy's matrix, 4-byte elements */
    char l4t[64];
    char result[PATH_MAX], tmp[PATH_MAX + 32];
    int tmp_fd;
    bool replaces;                     /* an earlier probe's result is at the name */
    volatile sig_atomic_t *stop;       /* set by a signal: the step that sees it stops
                                        * (the command's tb_probe_stop, a night's own) */
    bool borrowed;                     /* be and be_st are a night's, open: not opened
                                        * or closed here */
    FILE *out;                         /* what it says (the command: stdout); NULL: nothing */
    /* the source */
    const struct tb_power_ops *ops;
    struct tb_sampler *s;
    struct tb_power_cadence claim;     /* what the source says of itself (sysfs) */
    int total;                         /* the total rail's index; -2: the sum of all */
    char rail[64];
    /* the device and its copy */
    const struct tb_backend *be;
    void *be_st;
    bool opened;
    struct tb_device_info dev;
    const struct tb_kernel *k;
    struct tb_launch l;
    double launch_ms;
    /* the readings */
    int64_t t0_ns, t1_ns;              /* the readings' span */
    double edge_ms[4];
    char rail_why[TB_STEPFIT_MAX_RAILS][256];   /* why a rail held no step to fit */
    double *t_ms, *w;
    size_t n;
};

/* Set by SIGINT, SIGTERM or SIGHUP while the probe runs: the step that sees it stops, and
 * the result's temporary is removed (probecmd.c installs the handlers). */
extern volatile sig_atomic_t tb_probe_stop;

/* The steps from the result's temporary to the result kept, the lock aside (the command
 * takes it; a night holds it): the result's place, source, device (a borrowed one as it
 * is), the spans, the fit, what was measured and fitted said to p->out, the result put in
 * place; everything opened here released again. 0 with *fit kept, or -1 (said on stderr). */
int tb_probe_take(struct probe *p, struct tb_stepfit *fit);
/* The total rail's index among r (power.total_rail want: a rail, "" for the first); -2 for
 * "sum", -1 when the source has no such rail. */
int tb_probe_total_index(const struct tb_power_rails *r, const char *want);
int tb_probe_source(struct probe *p);
int tb_probe_device(struct probe *p);
int tb_probe_measure(struct probe *p);
/* The total rail's fit (the result's headline), then each rail's by itself (fit->rail). */
int tb_probe_fit(struct probe *p, struct tb_stepfit *fit);
/* What was measured (board, source, load, readings), printed before the fit so that a
 * failed fit still shows it; then the fit beside what sysfs claims. */
void tb_probe_say_head(const struct probe *p, FILE *out);
void tb_probe_say(const struct probe *p, const struct tb_stepfit *fit, FILE *out);
void tb_probe_release(struct probe *p);

#endif
