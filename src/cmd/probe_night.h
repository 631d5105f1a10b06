/* probe_night.h: what a night does with the board's probe result (`probe-power`'s kept
 * LOGDIR/probe-<board>-<l4t>.cfg): before the night's sampler starts, the probe run first
 * where power.probe says and the night has the time (the command's own steps, called as a
 * function on the night's open device, under the night's lock); once the sampler runs, the
 * result read and its model put in place of what sysfs or the documented table said (it
 * measured this board). The log's `# power_cadence:` line says it: "from probe FILE (DATE)".
 * Not here: the fit (energy/stepfit.c), the meter's use of the model (energy/meter*.c). */
#ifndef TB_PROBE_NIGHT_H
#define TB_PROBE_NIGHT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>

#include "config/config.h"
#include "measure/backend.h"
#include "measure/sweep.h"
#include "power/power.h"

/* The most seconds the probe takes (its spans at most 5.72 x 10 s, doc/power.md), and
 * the time a night must have for power.probe = auto to spend them: its energy budget
 * (power.budget_s x the points measured for energy x mode steps), and a tune's limit
 * (tune.seconds), each at least the probe's time and as much again. */
#define TB_PROBE_NIGHT_MAX_S 60.0
#define TB_PROBE_NIGHT_NEEDS_S (2 * TB_PROBE_NIGHT_MAX_S)

struct tb_probe_night {
    /* in: the night's */
    const struct tb_config *cfg;
    const struct tb_power_ops *ops;        /* the source the night picked */
    const char *l4t;                       /* "R35.4.1"; "" off a Jetson */
    const struct tb_backend *be;           /* open, with its device; be_st NULL: none */
    void *be_st;
    const struct tb_device_info *dev;
    const struct tb_point *pts;            /* the sweep's points, for its energy budget */
    size_t npts, steps;                    /* steps: mode steps (0: none, one night) */
    bool tune;                             /* a tune: tune.seconds is its limit */
    bool quiet;
    volatile sig_atomic_t *stop;           /* the night's signal flag */
    /* out */
    char path[PATH_MAX];                   /* the result's name ("": none can be made) */
    int ran;                               /* 1 probed and kept, -1 probed and failed, 0 not */
    double probe_s;                        /* how long the probe took */
};

/* Before the night's sampler starts: the result's name, and the probe run when
 * power.probe is always, or auto and there is no file at that name, the source is the
 * INA3221 rails, the board has an L4T release (the result is kept per release) and the
 * night has the time (TB_PROBE_NIGHT_NEEDS_S); never: not run. What it measures is said on stderr (not under quiet); a probe that fails
 * says why and the night goes on. */
void tb_probe_night_first(struct tb_probe_night *pn);
/* Once the night's sampler runs: the result at pn->path, opened without following a link
 * and without blocking, a regular file of this user's or root's that no other user may
 * write, of one link, bounded; its model and time constant put in the sampler's cadence
 * (sensor_model.h's tb_sensor_model_probed). Another's or a writable file: a warning, the
 * model stays sysfs's; a malformed one: an error naming its file, line and setting, the
 * model stays sysfs's; either said in the cadence's model too. Nothing there: unchanged. */
void tb_probe_night_use(struct tb_probe_night *pn, struct tb_sampler *s);

#endif
