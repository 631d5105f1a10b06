/* meter_internal.h: what the meter's files (meter.c: blocks and cycles; meter_figures.c:
 * the figures and the one judgement of what is withheld; meter_run.c: idle, warming, the
 * cadence and the plan) share. Not a public interface: meter.h is. */
#ifndef TB_METER_INTERNAL_H
#define TB_METER_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "energy/plan.h"
#include "energy/selfcal.h"
#include "energy/window.h"
#include "power/sensor_model.h"

/* meter.h's types and those it names, by name only: this header extends meter.h for the
 * meter's files (each includes both) and never includes it, so that meter.c, which
 * includes this, and this header are not a circle. */
struct tb_meter_load;
struct tb_meter_result;
struct tb_power_cfg;
struct tb_rerun_sd;

#define TB_METER_MAX_CYCLES 64

struct tb_meter {
    /* the sensor's timing, planned when the meter is made and settled by its first idle
     * (plan.h): every block reads it, never the sampler */
    struct tb_energy_plan plan;
    const struct tb_power_cfg *pc;
    volatile sig_atomic_t *stop;
    bool judge_clock;             /* the load runs on the GPU whose clock the source reads */
    bool warmed, steady;          /* a warming ran; it ended steady */
    char warm_why[160];            /* how the last warming ended when not steady */
    double idle_rel_sd;           /* a reading's relative sd in the first idle; NAN: unknown */
    double announced_s;           /* the night's time said at its start; 0: not said yet */
    int64_t announced_ns;         /* when it was said (tb_now_ns) */
    /* the size's kernels' block-to-block spread, pooled (tb_meter_pool): relative sd and
     * its degrees of freedom (0: none) */
    double pooled_rel_sd;
    size_t pooled_df;
    unsigned long long rng;       /* the jitter of blocks on a part-time counter */
    /* the size's load switches on an inverted sensor (meter_cal.c): when each block's load
     * began where the point changed, the point of the last, when the last block ended */
    int64_t *sw;
    size_t sw_n, sw_cap, sw_point;
    int64_t sw_end;
    /* the self-calibration per rail, pooled over the night's sizes (cal_steps 0: none yet) */
    struct tb_selfcal cal[TB_SENSOR_MAX_RAILS];
    struct tb_selfcal cal_size[TB_SENSOR_MAX_RAILS];   /* the size in hand's, so far */
    double cal_prior_ms[TB_SENSOR_MAX_RAILS];   /* the board's own word: the model's tau */
    int cal_steps, cal_sizes;
    double delay_used_ms;         /* the dead time the last size's blocks allowed for */
};

/* One block: the load of one point between two sensor updates, after a lead-in. */
struct tb_meter_block {
    double jpb;                   /* J per byte; NAN: no figure (why says) */
    double w, gpu_w, secs, bytes, temp_c, clock_mhz, emc_mhz, energy_j, counter_j;
    double mem_temp_c;            /* the GPU memory's own at its end (HBM); NAN: not said */
    size_t samples, updates;
    double took_s;                /* the block's whole time, lead-in included */
    unsigned long long dropped;   /* readings dropped as absurd meanwhile (sampler.c) */
    int reasons_seen;             /* readings of its span that carried clock-event reasons */
    bool capped;                  /* the power cap in half of those or more, at_limit or oc */
    bool at_limit;                /* its power within TB_METER_AT_LIMIT of the enforced limit */
    bool oc;                      /* a reading of its span saw the over-current throttle act
                                   * (TB_POWER_REASON_OC: a Jetson's INA3221 or soctherm_oc) */
    bool limit_known;             /* the source said the enforced limit */
    double limit_w;               /* that limit (NAN: not said) */
    /* inverted: when its load began, its span's polls, the load's rate (bytes/s) */
    int64_t t_switch, ta, tb;
    double rate;
};
/* A block drawing this share of the enforced power limit or more is capped, whatever the
 * reason bits say: an H200 ran 697-700 W of its 700 W with its clocks at 1890-1965 of 1980
 * MHz and no SwPowerCap bit in any reading (issue #49, calls J-M); the limiter holds the
 * card's average power at the limit, so readings within 2% of it are the limiter at work. */
#define TB_METER_AT_LIMIT 0.98

/* A point's blocks over the cycles, as figures are made from them. */
struct tb_meter_track {
    double ratio[TB_METER_MAX_CYCLES], jpb[TB_METER_MAX_CYCLES], w[TB_METER_MAX_CYCLES],
        around[TB_METER_MAX_CYCLES],   /* the copy's J per byte beside each block */
        gpu_w[TB_METER_MAX_CYCLES], temp[TB_METER_MAX_CYCLES],
        mem_temp[TB_METER_MAX_CYCLES];
    /* each ratio's copy blocks, before and after it, as indices into the copy's track (-1:
     * none, or past its TB_METER_MAX_CYCLES): neighbouring cycles that share a copy block
     * are correlated (meter_figures.c, tb_meter_blocks_ss) */
    short cb[TB_METER_MAX_CYCLES][2];
    /* each side's copy block as the ratio took it: its J per byte (NAN: none), its t_switch,
     * ta, tb and rate (0: not kept, as in a track built by hand; meter.c, kernel_pair). A
     * block past the copy's track (-2) is known by its stamp, the midpoint of ta and tb, as
     * one block in every kernel's track that took it, and placed in time by it
     * (meter_figures.c); it is refigured from these with the night's constants, as the
     * track's own blocks are, and cj, around and the ratio made again with it (meter_cal.c) */
    double cj[TB_METER_MAX_CYCLES][2];
    int64_t csw[TB_METER_MAX_CYCLES][2], cta[TB_METER_MAX_CYCLES][2],
        ctb[TB_METER_MAX_CYCLES][2];
    double crate[TB_METER_MAX_CYCLES][2];
    /* each block's t_switch, ta, tb and rate (struct tb_meter_block): refigured once the
     * night's own sensor constants are known (meter_cal.c) */
    int64_t sw[TB_METER_MAX_CYCLES], ta[TB_METER_MAX_CYCLES], tb[TB_METER_MAX_CYCLES];
    double rate[TB_METER_MAX_CYCLES];
    double sys_rel;               /* the relative 95% half-width of what cycles do not
                                   * average: the constants' uncertainty, the register's
                                   * step, the model's floor (meter_cal.c; 0: none) */
    double sys_part[TB_METER_CI_PARTS];   /* its parts (TB_METER_CI_TAU, _LSB, _FLOOR;
                                   * _CYCLES unused), each a relative 95% half-width:
                                   * sys_rel is their root sum of squares */
    int n;                        /* blocks with a figure */
    int dropped, failed;          /* blocks dropped for a jump, blocks without a figure */
    double secs, bytes, energy_j, counter_j, clock_mhz, emc_mhz;
    double top_clock;             /* the highest GPU clock its blocks saw (0: none yet) */
    size_t samples, updates;
    unsigned long long dropped_readings;   /* absurd readings dropped in its blocks */
    int capped, reasons_known;    /* blocks the power cap held; blocks whose reasons came */
    int at_limit;                 /* of the capped, blocks at the enforced limit's power */
    int oc;                       /* of the capped, blocks the over-current throttle acted in */
    double limit_w;               /* the enforced limit its blocks were judged by (NAN: none) */
    bool done;                    /* its figure reached power.target_rel_ci */
    char fail_why[128], drop_why[128];
};

/* What ended a size's cycles, for every row's note. */
struct tb_meter_end {
    int cycles;
    bool signal, lost, budget, deadline, error;
    char why[160];
};

/* The relative 95% half-width of the mean of v[0..n) (Student t); NAN when n < 2. */
double tb_meter_rel_ci(const double *v, int n, double *mean);
/* The relative 95% half-width within which a rerun of as many cycles lands: t x s x
 * sqrt(1/n + 1/n) over the mean, sqrt(2) times tb_meter_rel_ci; NAN when n < 2. An absolute
 * series' (a copy's own J per byte); a ratio's is its mean's (meter_figures.c, mean_var). */
double tb_meter_rerun_rel(const double *v, int n, double *mean);
/* Fills out from the track of a point: its figures and its note. ref: the reference's
 * track (NULL: none, or this is it). bw: the point's run-to-run spread (NULL: none). */
void tb_meter_figures(const struct tb_meter *m, const struct tb_meter_track *t,
                      const struct tb_meter_track *ref, bool is_ref, double idle_w,
                      double idle_ci, const struct tb_meter_end *end,
                      const struct tb_rerun_sd *bw, struct tb_meter_result *out);
/* A track's blocks as the mean sees them, in logs: the kernel's (each ratio's log plus the
 * logs of the copy blocks it was taken against at its weights: its J per byte to second
 * order in the copy's spread, from the ratio itself), the copy blocks its ratios were taken
 * against, each once, and the mean's weights on them. An index -2 (a copy block past the
 * copy's track) is known by its stamp (t->cta, t->ctb) and valued by its own J per byte
 * (t->cj); in a track that kept neither (built by hand) it is a block of its own, its value
 * from the copy's mean beside the ratio (t->around) less the other side's. Each block's time
 * for the drift: by index (ty, tc: copy block j at j, a kernel's block midway between the copy
 * blocks beside it) and, where every block has one (stamped), its stamp (ks, cs, ns). */
#define TB_METER_COPY_SLOTS (3 * TB_METER_MAX_CYCLES)
struct tb_meter_blocks {
    double y[TB_METER_MAX_CYCLES], cy[TB_METER_COPY_SLOTS], w[TB_METER_COPY_SLOTS];
    double ty[TB_METER_MAX_CYCLES], tc[TB_METER_COPY_SLOTS];
    int64_t ks[TB_METER_MAX_CYCLES], cs[TB_METER_COPY_SLOTS];
    bool stamped;
    int n, m, slot[TB_METER_COPY_SLOTS];   /* each cy[]: the copy's index, -2 past its track */
};
/* Block i's time for the drift (b's n kernel blocks, then its copy slots): seconds from
 * origin (ns) by its stamp where stamped, else its index time (meter_figures.c). */
double tb_meter_block_time(const struct tb_meter_blocks *b, int i, bool stamped, int64_t origin);
/* x's residual orthogonal to the columns u[0..cols) (each len long, stride apart), in place,
 * by Gram-Schmidt (a column within the span of those kept before it dropped; the columns
 * kept become their orthonormal basis); the rank kept (meter_figures.c). */
int tb_meter_residual(double *u, size_t stride, int cols, int len, double *x);
/* t's blocks (taken against the copy's track ref) into b (meter_figures.c). */
void tb_meter_track_blocks(const struct tb_meter_track *t, const struct tb_meter_track *ref,
                           struct tb_meter_blocks *b);
/* t's blocks' residual sum of squares orthogonal to its model and to its mean's weights, its
 * degrees of freedom into *df (0: none) and |a|^2 into *a2 (meter_figures.c). */
double tb_meter_blocks_ss(const struct tb_meter_track *t, const struct tb_meter_track *ref,
                          double *df, double *a2);
/* A block's relative sd pooled over the size's kernels' tracks tr[0..n) but ref (the
 * residual sum of squares of all their blocks together, each copy block once, orthogonal to
 * the copy's level and each kernel's level and mean (and drift), over the blocks less those
 * columns: meter_pool.c), into m->pooled_rel_sd and m->pooled_df. The sensor's noise and
 * the card's drift hit every kernel of a size alike, so three cycles whose ratios happen to
 * agree never give one kernel an interval narrower than what the others show a cycle moves. */
void tb_meter_pool(struct tb_meter *m, const struct tb_meter_track *tr, size_t n, size_t ref);
/* The relative interval the stopping rule judges a track by, as printed: ref the copy's
 * track where t is paired with it (its ratio's interval), NULL where not (a rerun's). */
double tb_meter_track_rel(const struct tb_meter *m, const struct tb_meter_track *t,
                          const struct tb_meter_track *ref);

/* TB_METER_FEWEST_CYCLES, TB_METER_MIN_BLOCK_TAUS and TB_METER_LEAD_TAUS: plan.h, which
 * works out what follows from them once. */
/* The longest an inverted block may be: the fewest cycles' blocks (two a point a cycle: its
 * own and the copy's after it, with their lead-ins and closing polls) within
 * power.budget_s a point, never below TB_METER_MIN_BLOCK_TAUS time constants. Applied
 * where the average is polled often enough to invert (tb_meter_slow_reads false). */
double tb_meter_block_cap_ms(const struct tb_meter *m);
/* Clean updates a block must hold: power.block_updates, three times as many on a triggered
 * sensor (one conversion a reading, no averaging: each a moment, not a mean). */
int tb_meter_need_updates(const struct tb_meter *m);
/* A sensor period known (ms), else NAN. */
double tb_meter_period_ms(const struct tb_meter *m);
/* The source's model is an exponential average (sensor_model.h): blocks inverted. */
bool tb_meter_inverts(const struct tb_meter *m);
/* How often a new reading can come: another program's read period (tegrastats: its
 * interval, or the period seen while idle if slower), else our poll as the sampler keeps it
 * (power.interval_ms, lengthened where reads block: plan.c). */
double tb_meter_read_ms(const struct tb_meter *m);
/* Reads too coarse to integrate the average's swing (more than tau / 8 apart). */
bool tb_meter_slow_reads(const struct tb_meter *m);
/* An inverted block's lead-in before its span: 0 (the first poll after the switch) where
 * reads are fast, TB_METER_LEAD_TAUS time constants where slow (the swing then
 * e^-5 = 0.7% of itself); NAN where the sensor is not inverted. */
double tb_meter_lead_ms(const struct tb_meter *m);
/* A block of point i on an averaging sensor (meter_ema.c): its lead-in, then its span of
 * power.block_updates time constants, inverted. 0 (b filled), 1 (no figure: why), -EINTR
 * (a stop), or the load's error. */
int tb_meter_ema_block(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                       struct tb_meter_block *b, char *why, size_t n);
/* The self-calibration of a size's cycles on an inverted sensor (meter_cal.c): each rail's
 * time constant and dead time fitted to the size's switches (selfcal.h), pooled with the
 * night's earlier sizes, every block of the tracks tr[0..n) inverted again with them (its
 * span from the first poll past its switch plus the dead time), the ratios made again, and
 * each track's sys_rel set. Nothing where the sensor is not inverted or no switch came.
 * Called after each cycle the stopping rule may end (its judgement then sees the ratios the
 * rows will print) and once the cycles end (final: the size's fit becomes the night's, the
 * prior of its next size). */
void tb_meter_calibrate(struct tb_meter *m, struct tb_meter_track *tr, size_t n, size_t ref,
                        bool final);
/* Where a block of point i began on an inverted sensor at t0: a switch where the point
 * changed (meter_cal.c). */
void tb_meter_note_switch(struct tb_meter *m, size_t i, int64_t t0);
/* The model's floor: what the inversion of a first-order average leaves on a board it fits
 * and the cycles do not see, relative 95% half-width. What varies with the switches' phase
 * (the conversions' steps, a poll's trapezoid) is in the cycles' spread already; what stays
 * is a cell's bias at zero noise: over meter-sim's 135 zero-noise cells (#57's grid, 40
 * nights each) |bias| had a 95th percentile of 0.003% (the largest 0.007%). Until
 * 2026-12-07 0.01%, which with the cycles' spread covered 99.8% at zero noise
 * (doc/power.md, doc/results/meter-sim-2026-12-07b.md). Measured again at 0: three slow-read
 * zero-noise cells then cover 81.5-89.5% (residues of 0.1-1 ppm the cycles do not see, none
 * that a night's readings show), so it stays (doc/results/meter-sim-2026-12-07g.md). */
#define TB_METER_MODEL_FLOOR 0.00003
/* The register's step q left in a ratio, as a share of q over the copy's power: the 95th
 * percentile of the ratio's error at zero noise in meter-sim (steps of 0.5% and 2% of the
 * copy's load: 0.44 and 0.28 of q). */
#define TB_METER_LSB_SHARE 0.45
/* The share of a self-calibrated constant's sd carried through the inversion into the
 * interval: the fit's error moves with the levels it was fitted with, so the cycles' spread
 * holds part of it. Measured in meter-sim (150 nights a cell, 1% and 5% noise, one chip and
 * two, tau 0.8-1.25 of its claim): all of it covered 99.3% where the error's rms was 0.016%
 * against +-0.083%; none of it, 87-95%. */
#define TB_METER_TAU_SHARE 0.5
/* meter.c's pieces that meter_ema.c's blocks share: how long a block may wait for a
 * reading; whether the source said nothing for a while (why: the window's words); one
 * slice of point i's load (bytes added; 0, -EINTR or the load's error); what a span says
 * beside its power (GPU rail, temperatures, clocks, readings, the power cap). */
int64_t tb_meter_patience_ns(const struct tb_meter *m);
bool tb_meter_silent(struct tb_meter *m, char *why, size_t n);
int tb_meter_load_slice(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                        double *bytes);
void tb_meter_block_extras(struct tb_meter *m, const struct tb_power_span *sp, int64_t ta,
                           int64_t tb, struct tb_meter_block *b);
/* The updates of the total in (t0, t1] as tb_power_updates gives them, from a span read for
 * the asking (a block waiting for its next update asks again and again). */
size_t tb_meter_updates(struct tb_meter *m, int64_t t0, int64_t t1, int64_t **tc, double **vc);
/* The power over [t0, t1] by pc (the plan's, or a copy), from a span read for it. */
void tb_meter_over(struct tb_meter *m, const struct tb_power_cfg *pc, int64_t t0, int64_t t1,
                   struct tb_power_figures *f);

#endif
