/* power.h: the power-source interface, the sample type, the ordered table of sources
 * (sources.c: one row per source, the only place that lists them) and the sampler thread.
 * One .c file per source, exporting one struct tb_power_ops that says all the rest knows of
 * it. The table's order is the auto-probe order. Not here: the sampler's readings and what
 * it says of them, which readers read apart from the thread (feed.h); energy arithmetic
 * (energy.h), a span's power and the sensor's timing as a night plans it (energy/window.h,
 * energy/plan.h). */
#ifndef TB_POWER_H
#define TB_POWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "power/sensor_model.h"

#define TB_POWER_MAX_RAILS 16
_Static_assert(TB_POWER_MAX_RAILS == TB_SENSOR_MAX_RAILS, "a model per rail");
#define TB_POWER_STR 256

/* The power settings of a board file (its power group, and board.max_power_w), as every
 * source and the sampler read them: the sources know nothing of the rest of the config. */
struct tb_power_cfg {
    char source[TB_POWER_STR];        /* auto, none, or a source name */
    int interval_ms, window_ms, idle_ms;
    int min_readings;                 /* independent updates a window must hold */
    int batches;                      /* equal spans of a window whose means bound a drift */
    int rounds;                       /* fewest cycles of interleaved blocks (meter.c) */
    int settle_s;                     /* most seconds of load before the sweep (0: none) */
    double settle_rel;                /* steady: block means this close (or within their CIs) */
    double max_rel_ci;                /* a figure wider than this says so in power_note */
    double target_rel_ci;             /* cycles are added until each figure is this narrow */
    double budget_s;                  /* most seconds of energy blocks per measured point */
    int block_updates;                /* clean sensor updates a block must hold */
    double rerun_ratio_sd;            /* run-to-run relative sd of a ratio until learned */
    double rerun_abs_sd;              /* and of J per byte (rerun.h) */
    char points[TB_POWER_STR];        /* "fastest" (block of each kernel and size) or "all" */
    char sysfs_root[TB_POWER_STR];
    char tegrastats_command[TB_POWER_STR];
    char total_rail[TB_POWER_STR];    /* a rail name, or "sum" of all rails */
    char gpu_rail[TB_POWER_STR];
    double max_power_w;               /* readings above it are dropped; 0: no ceiling */
    char pci_bus_id[32];              /* the GPU the run uses, for NVML (set by the run) */
};
#define TB_RAIL_NAME 32

/* One reading. Values a source does not have are NAN. */
struct tb_power_sample {
    int64_t t_ns;                          /* CLOCK_MONOTONIC when read: the poll's stamp */
    float rail_mw[TB_POWER_MAX_RAILS];     /* in the order of tb_power_rails */
    /* when each rail's value was read (issue #57): where reads block (JetPack 5's 5.10
     * INA3221 driver, 100-430 ms a file), one rail's value is that much older or newer
     * than the poll's stamp. A source that reads rails one by one stamps each (ina3221.c
     * says when); one with one time for all leaves them 0: a rail's stamp is then its poll's,
     * t_ns (tb_power_rail_t_ns, the one reader of this field, says so). */
    int64_t rail_t_ns[TB_POWER_MAX_RAILS];
    float gpu_load_pct, gpu_clock_mhz;
    float emc_load_pct, emc_clock_mhz;
    float gpu_temp_c;
    float mem_temp_c;                      /* the GPU memory's own (HBM: NVML's field) */
    double energy_mj;                      /* cumulative energy counter (NVML), else NAN */
    unsigned long long reasons;            /* the clock-event reasons (NVML's bits), where */
    bool has_reasons;                      /* the source read them with this reading */
};

struct tb_power_rails {
    int n;
    char name[TB_POWER_MAX_RAILS][TB_RAIL_NAME];
};

/* How often a source's reading really changes: sampling faster only repeats a reading, so
 * a window's independent readings are its sensor updates, not its samples. */
struct tb_power_cadence {
    double period_ms;          /* NAN: not known (yet) */
    char how[24];              /* "sysfs", "energy counter", "documented", "inferred", "" */
    char detail[384];          /* what it rests on, e.g. "update_interval 430 ms, samples 512" */
    char scope[64];            /* what the total is: "module input", "whole card", ... */
    bool triggered;            /* each reading one conversion, no averaging (a Nano's IIO
                                * ina3221x): blocks hold more of them (meter.c) */
    struct tb_sensor_model model;   /* what a reading is (sensor_model.h): the meter's
                                     * blocks and arithmetic follow it; UNKNOWN where the
                                     * source has no cadence op */
};

/* What a source knows of the device itself: its identity (two GPUs of one model in one host
 * are two devices) and the power limit enforced on it (a block at it is power-capped). */
struct tb_power_device {
    char id[96];               /* "GPU-8c5b..." (NVML's UUID); "" not known */
    double limit_w;            /* the enforced power limit; NAN not known */
    char limit_how[192];       /* where the limit came from: "NVML enforced power limit",
                                * "INA3221 VDD_IN curr1_crit 7784 mA x ..."; where the limit
                                * is NAN, why it is not known ("" where nothing was read) */
};

/* What a source is, beyond its ops (tb_power_ops.flags): every caller that treats one
 * source unlike another asks these, never its name. */
#define TB_POWER_NOTHING  0x1u   /* measures nothing: the fallback "auto" ends on, never
                                  * probed for; a run starts no sampler on it, `power` and
                                  * `probe-power` refuse it */
#define TB_POWER_OWN_PACE 0x2u   /* its readings come at another program's pace (a child
                                  * printing at its own interval): `probe-power` cannot
                                  * poll it */
#define TB_POWER_PROBED   0x4u   /* a sensor read fresh at each poll, the kind `probe-power`
                                  * fits: a night probes it first where power.probe says */

/* One source: its row of the table (sources.c) points at this. */
struct tb_power_ops {
    const char *name;          /* what power.source names it by */
    const char *help;          /* one line for `list` */
    const char *unavailable;   /* non-NULL: compiled out, with the reason */
    unsigned flags;            /* TB_POWER_NOTHING, TB_POWER_OWN_PACE, TB_POWER_PROBED */
    const struct tb_sensor_doc *models;   /* the documented models of its reading, ended by
                                           * a NULL key (sensor_model.h); NULL: none */
    size_t state_size;         /* private state, allocated zeroed by the core */
    /* 0 when the source can work on this board, else -errno with why filled in. */
    int (*probe)(const struct tb_power_cfg *pc, char *why, size_t n);
    /* Opens the source and names its rails. -errno with why filled in on failure. */
    int (*open)(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                char *why, size_t n);
    /* Takes one reading: 0, -EAGAIN when no new reading has arrived, or -errno when the
     * source failed for good (why says how). Must not allocate (called in the sampler). */
    int (*sample)(void *st, struct tb_power_sample *s, char *why, size_t n);
    void (*close)(void *st);
    /* Optional, right after open: one line of the run conditions the source knows (NVML:
     * clocks, power limit, temperature), and the GPU clock the board can reach (NAN: not
     * known), which `throttled` is then judged against. */
    void (*describe)(void *st, char *line, size_t n, double *max_clock_mhz);
    /* Optional, right after open: how often the reading really changes, where the source
     * can say (INA3221 hwmon: update_interval; NVML: the energy counter). Sources that
     * cannot leave it out: the cadence is then inferred from the idle readings. */
    void (*cadence)(void *st, struct tb_power_cadence *c);
    /* Optional: why the GPU's clocks are held down now, in NVML's clock-event reason bits
     * (nvmlClocksEventReason*: TB_POWER_REASON_CAP and the rest, tb_throttle_nvml_cause
     * names them): 0 with *mask, or -ENOTSUP where the source cannot say. Called from the
     * run's thread while the sampler reads (the source serialises its own calls). */
    int (*reasons)(void *st, unsigned long long *mask);
    /* Optional, right after open: the device's own identity and the power limit enforced
     * on it, where the source knows them (NVML: nvmlDeviceGetUUID and
     * nvmlDeviceGetEnforcedPowerLimit). */
    void (*identify)(void *st, struct tb_power_device *d);
};
/* The power cap held the clocks (NVML's SwPowerCap clock-event reason): the board drew
 * its power limit, so a kernel's power stayed at the limit however warm the card was. */
#define TB_POWER_REASON_CAP 0x04ULL
/* Not an NVML bit: the over-current throttle acted since the source's previous reading (a
 * Jetson's INA3221: the measured rail's currK_crit_alarm read 1, or a soctherm_oc
 * ocK_event_cnt grew). Each event halves the clocks for about a millisecond, so one such
 * reading caps its block, where the cap's bit must be in half of them (window.c). */
#define TB_POWER_REASON_OC (1ULL << 48)

/* ---- the table of sources (sources.c) -------------------------------------------
 * NULL-terminated, in auto-probe order. Adding a source is its file and one row there. */
extern const struct tb_power_ops *const tb_power_sources[];
const struct tb_power_ops *tb_power_find(const char *name);
/* Resolves "auto" to the first usable source (else the table's TB_POWER_NOTHING row);
 * other names as they are. Returns NULL with why filled when a named source does not
 * exist. */
const struct tb_power_ops *tb_power_pick(const char *name, const struct tb_power_cfg *pc,
                                         char *why, size_t n);
/* "auto, NAME, NAME, ...": what power.source takes, in the table's order, into buf (its
 * help line and its error). */
void tb_power_source_names(char *buf, size_t n);
/* The documented model of key among every source's rows (tb_power_ops.models), as
 * tb_sensor_model_documented: 0, or -1 with m UNKNOWN. For what runs no source's cadence
 * op (the simulators of tests/). */
int tb_power_model_documented(const char *key, int rails, struct tb_sensor_model *m);

/* The source that measures nothing (none.c): the fallback of auto. */
extern const struct tb_power_ops tb_power_none;

/* Every value NAN, no time, no reasons (power.c). */
void tb_power_sample_clear(struct tb_power_sample *s);
/* When rail r's value in s was read: its own stamp, else the poll's. */
static inline int64_t tb_power_rail_t_ns(const struct tb_power_sample *s, int r)
{
    return r >= 0 && r < TB_POWER_MAX_RAILS && s->rail_t_ns[r] ? s->rail_t_ns[r] : s->t_ns;
}

/* ---- the sampler thread ----------------------------------------------------------
 * It fills a feed (feed.h: the ring of readings, lost, health, the poll, the cadence, the
 * device), which it owns and frees at stop. Two names for one read, on purpose, one per
 * kind of reader:
 *  - the readers that hold the sampler itself, which start it, stop it and read it
 *    between: cmd/ (run, run_modes, powercmd, probe_run, probe_night) and measure/ (the
 *    runner's identity and clock reasons, its energy rows' rails and source). They call
 *    the tb_sampler_* reads below (window, rails, source, failed, why, health, cadence,
 *    set_cadence, device), each a one-line forward to the feed's, and never see the feed;
 *  - energy/, which holds no sampler after its plan is made: the plan's constructor takes
 *    the feed once (tb_sampler_feed) and plan.c alone reads it by the feed's names
 *    (scripts/call-seams.txt holds both: tb_sampler_* from tb_energy_plan_make only,
 *    tb_feed_* from plan.c only).
 * What asks the source itself (conditions, clock_reasons, reidentify) is the sampler's
 * alone: the feed holds readings, not the source. */
struct tb_sampler;
struct tb_feed;

/* Opens the source and starts sampling every interval_ms into a ring of capacity samples. */
int tb_sampler_start(struct tb_sampler **out, const struct tb_power_ops *ops,
                     const struct tb_power_cfg *pc, int interval_ms, size_t capacity,
                     char *why, size_t n);
/* The sampler's feed (feed.h), valid until tb_sampler_stop. */
struct tb_feed *tb_sampler_feed(struct tb_sampler *s);
/* The samples with t in [t0_ns - margin, t1_ns + margin], copied (malloc; *n of them, NULL
 * when none or out of memory): tb_feed_window. Never blocks the sampler for more than a
 * copy. */
struct tb_power_sample *tb_sampler_window(struct tb_sampler *s, int64_t t0_ns, int64_t t1_ns,
                                          int64_t margin_ns, size_t *n);
const struct tb_power_rails *tb_sampler_rails(const struct tb_sampler *s);
/* The source's describe() line taken at start ("" when it has none), and its max clock. */
const char *tb_sampler_conditions(const struct tb_sampler *s, double *max_clock_mhz);
const char *tb_sampler_source(const struct tb_sampler *s);
/* True once the source failed mid-run (reported once on stderr): tb_feed_lost. */
bool tb_sampler_failed(const struct tb_sampler *s);
/* Why it failed ("" while it has not): e.g. NVML abandoned at its deadline. */
const char *tb_sampler_why(const struct tb_sampler *s);
/* How trustworthy the readings have been: absurd readings dropped (never logged as
 * power), silences of twice the interval or more, how long since the last reading, and the
 * interval the thread polls at now (the feed's: tb_feed_health). */
struct tb_power_health {
    unsigned long long dropped, silences;
    double quiet_ms;
    int poll_ms;
};
void tb_sampler_health(struct tb_sampler *s, struct tb_power_health *h);
/* The source's cadence as open() gave it (period NAN: not known yet), and the one the
 * run settled on (a night's probe; energy/plan.c's tb_energy_plan_learn, in the feed):
 * tb_feed_cadence, tb_feed_set_cadence. */
const struct tb_power_cadence *tb_sampler_cadence(const struct tb_sampler *s);
void tb_sampler_set_cadence(struct tb_sampler *s, const struct tb_power_cadence *c);
/* True when the cadence is an energy counter's (NVML): the source's total is a counter
 * (power.c). */
bool tb_power_cadence_counter(const struct tb_power_cadence *c);
/* The device's identity and power limit as the source's identify op last gave them (id ""
 * and limit NAN where it has none): tb_feed_device. */
const struct tb_power_device *tb_sampler_device(const struct tb_sampler *s);
/* The source's identify op asked again (after a mode step: a limit set per mode is read
 * again), its answer into the feed in place of the one before. From the thread that reads
 * the device. */
void tb_sampler_reidentify(struct tb_sampler *s);
/* The source's own clock-event (throttle) reasons now, where it has them (its reasons op:
 * NVML): 0 with *mask, or -ENOTSUP. */
int tb_sampler_clock_reasons(struct tb_sampler *s, unsigned long long *mask);

/* Stops the thread, closes the source; returns the thread's own CPU time in ms. */
double tb_sampler_stop(struct tb_sampler *s, uint64_t *n_samples);

#endif
