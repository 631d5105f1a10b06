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
    long rows, cols;                   /* the copy's matrix, 4-byte elements */
    char l4t[64];
    char result[PATH_MAX], tmp[PATH_MAX + 32];
    int tmp_fd;
    bool replaces;                     /* an earlier probe's result is at the name */
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
    int64_t t0_ns;
    double edge_ms[4];
    double *t_ms, *w;
    size_t n;
};

/* Set by SIGINT, SIGTERM or SIGHUP while the probe runs: the step that sees it stops, and
 * the result's temporary is removed (probecmd.c installs the handlers). */
extern volatile sig_atomic_t tb_probe_stop;

int tb_probe_source(struct probe *p);
int tb_probe_device(struct probe *p);
int tb_probe_measure(struct probe *p);
int tb_probe_fit(struct probe *p, struct tb_stepfit *fit);
/* What was measured (board, source, load, readings), printed before the fit so that a
 * failed fit still shows it; then the fit beside what sysfs claims. */
void tb_probe_say_head(const struct probe *p, FILE *out);
void tb_probe_say(const struct probe *p, const struct tb_stepfit *fit, FILE *out);
void tb_probe_release(struct probe *p);

#endif
