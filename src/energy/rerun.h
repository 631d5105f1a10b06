/* rerun.h: what a rerun on another night adds to a point's energy intervals. A run's cycles
 * see the noise inside it; a rerun also lands wherever that night's state of the board puts
 * it: on the lent H100 and H200s runs of one card differed by 0.2-0.6% in the ratio and
 * 0.3-1% in J/GB, while each run's cycles agreed to 0.1-0.3% (doc/power.md). That
 * between-night spread, a relative standard deviation, is learned from this device's
 * earlier logs in the log folder (this host's, board's and device's, the same kernel images
 * and operating step), pooled across its kernels and sizes: the successive runs of each
 * series (a kernel, element and size; and block, unless power.points = fastest) give one
 * difference each, and the card's differences together give its spread beyond what their
 * own cycles explain. The board file's power.rerun_ratio_sd and power.rerun_abs_sd are a
 * prior, counted as TB_RERUN_PRIOR_RUNS differences, only while fewer than
 * TB_RERUN_POOL_MIN differences are pooled (none: the settings alone), and an estimate of
 * TB_RERUN_PRIOR_DF degrees of freedom, not a known value (a scaled inverse chi-square
 * prior of the variance: Gelman et al., Bayesian Data Analysis, 3rd ed., 2.6; #57). The
 * same runs give
 * the card's within-night (per-cycle) spread, which a night of few cycles pools with its
 * own (doc/power.md, "Another night").
 * Not here: the intervals of the cycles (meter_figures.c combines them). */
#ifndef TB_RERUN_H
#define TB_RERUN_H

#include <signal.h>
#include <stddef.h>

#include "power/power.h"

#define TB_RERUN_PRIOR_RUNS 1     /* the settings' weight, in differences (pairs of runs) */
#define TB_RERUN_PRIOR_DF 1.0     /* and their degrees of freedom (doc/power.md, "The prior") */
#define TB_RERUN_CLUSTER_SHARE 0.2   /* past the median's cut, more is a second state */
#define TB_RERUN_CONFORMAL_MIN 19    /* its differences' own 95% bound from this many on */
#define TB_RERUN_POOL_MIN 4       /* from this many differences on, the learned spread alone */
#define TB_RERUN_MAX_FACTOR 5.0   /* below it, at most this times the setting (0: no cap) */
#define TB_RERUN_EXCESS_FLOOR 0.5 /* a night's rerun variance never below this x its own */
#define TB_RERUN_WITHIN_DF_MAX 30 /* the history's weight in a night's within-night spread */
#define TB_RERUN_MAX_LOGS 60      /* the newest logs of the folder read */
#define TB_RERUN_MAX_RUNS 30      /* the newest earlier runs of a point used */
#define TB_RERUN_MAX_ROWS_PER_LOG 20000   /* rows read of one log, and of all */
#define TB_RERUN_MAX_ROWS 100000
#define TB_RERUN_MAX_BYTES_PER_LOG (32ULL << 20)   /* uncompressed: 20000 rows of 1.6 kB */
#define TB_RERUN_MAX_BYTES (128ULL << 20)          /* of all: no more logs read past it */

struct tb_log_rec;

/* A point's run-to-run spread: relative sds of its energy ratio and of its J per byte. */
struct tb_rerun_sd {
    double ratio, abs;
    int runs;                     /* earlier runs they were learned from (0: the settings) */
    int pairs;                    /* differences of successive runs pooled */
    double ratio_df;              /* degrees of freedom of ratio (the settings alone:
                                   * TB_RERUN_PRIOR_DF; INFINITY: none, p = 0) */
    double within_rel_sd;         /* the card's per-cycle relative sd of the ratio in those
                                   * runs; NAN: none */
    double within_df;             /* its weight (degrees of freedom, at most
                                   * TB_RERUN_WITHIN_DF_MAX); 0: none */
    double ratio_excess;          /* learned alone (pairs TB_RERUN_POOL_MIN or more): the
                                   * variance of successive runs beyond their own, not
                                   * clipped at 0 (ratio is its clipped root); NAN: not */
    double ratio_q95;             /* where the differences form a second cluster (a card in
                                   * one of two states) and TB_RERUN_CONFORMAL_MIN or more
                                   * are kept: the ceil(0.95 (D + 1))-th smallest |d|, a
                                   * distribution-free 95% bound on the next night's, which
                                   * the rerun interval takes; 0 or NAN: none */
    /* the same, learned from the card's power-capped runs alone (logread's power_capped:
     * half its blocks or more at the cap), for a row that turns out capped tonight
     * (tb_rerun_as_capped): a capped row's ratio follows the card's temperature (cap_note
     * in meter_figures.c), so it is compared with capped runs only, and an uncapped row
     * never with a capped one */
    struct tb_rerun_cap {
        double ratio, abs;
        int runs, pairs;
        double ratio_df, within_rel_sd, within_df, ratio_excess, ratio_q95;
    } cap;
};

/* in's spread learned from capped runs, as a whole struct (its cap copied in too). */
void tb_rerun_as_capped(const struct tb_rerun_sd *in, struct tb_rerun_sd *out);

/* One earlier run of one series as the pool takes it (rerun.c reads them from the logs;
 * tests/sim/rerun_sim.h makes them up): its ratio, J per byte, the relative variance of its
 * ratio's mean that its own cycles explain, and how many cycles. */
struct tb_rerun_run {
    int series;                   /* runs of one series are adjacent, newest first */
    double ratio, jpb, own;
    int cycles;
    double df;                    /* the degrees of freedom own was read with (the row's
                                   * energy_ratio_df, or its log's definition's: rerun.c) */
};

/* A run's mean's own relative variance from its logged cycles' interval ci of ratio, whose t
 * has df degrees of freedom (energy_ratio_ci95: t x the mean's sd; energy_ratio_df). */
double tb_rerun_own_var_df(double ratio, double ci, double df);
/* The same where the run is one kernel's of cycles cycles (t by tb_rerun_cycles_df). */
double tb_rerun_own_var(double ratio, double ci, int cycles);
/* The degrees of freedom of row a's energy_ratio_ci95's t, as the learner reads it: the row's
 * own (energy_ratio_df, since 2026-12-08); in a log without that column its definition's by
 * the log's start (logread.c, ci95_welch): tb_rerun_cycles_df_welch before #57's reached
 * main, tb_rerun_cycles_df from then (one kernel's: the log does not say how many kernels its
 * size had). */
double tb_rerun_row_df(const struct tb_log_rec *a);
/* The degrees of freedom of energy_ratio_ci95's t over n cycles of a size of one kernel (its
 * cycles share their copy blocks: meter_figures.c, tb_meter_blocks_ss): its n kernel blocks and the
 * copy's n + 1 less the two levels and the mean's own direction among the copy's, 2n - 2
 * below six cycles, and from six less the drift both share as well, 2n - 3. A size of
 * several kernels interleaved (C0 K1 C1 K2 C2 ...) gives each kernel 2n copy blocks at equal
 * weights, the mean's direction within the levels: 3n - 2 below six cycles, 3n - 3 from six;
 * and where the size's pool was the wider interval its t is the pool's. The meter writes the
 * degrees it took in the row (energy_ratio_df, since 2026-12-08); the reader takes these, one
 * kernel's, only for a log without that column written from #57's definition on
 * (2026-12-07T21:05:54Z; tb_rerun_row_df), where an interleaved kernel's own variance reads
 * (t(3n - 2) / t(2n - 2))^2 low: 0.42x at two cycles, 0.73x at three, 0.89x at six. */
double tb_rerun_cycles_df(int cycles);
/* The same as energy_ratio_ci95 was defined before #57 (2026-11-28 until 2026-12-07T21:05:54Z:
 * the ratios' s_r^2 / n and the copy's successive differences, one kernel's design, at
 * Welch-Satterthwaite's degrees at equal spreads): 1.78 at two cycles, 3.36 at three. */
double tb_rerun_cycles_df_welch(int cycles);
/* From this many of a kernel's blocks the meter's model of them takes the drift both sides
 * share (meter_figures.c, model_columns), one degree less: the meter and the reader's
 * tb_rerun_cycles_df go by this one number. */
#define TB_RERUN_TREND_CYCLES 6

/* THE pool: the spread of runs[0..n) (grouped by series, newest first in each) into out.
 * A difference is ln(x[i+1] / x[i]) of two successive runs of one series. With D of them:
 *   v = mean d^2 / 2 over the d within 4 median-based sds (tb_sd_of_steps_rms: a broken
 *   night or a step left out; the setting's sd where their median is 0; with fewer than
 *   TB_RERUN_CONFORMAL_MIN differences, no cut nearer than 4 sds of a difference at
 *   TB_RERUN_MAX_FACTOR x the setting: a two-state card's first switches kept), or, where
 *   more than two and more than TB_RERUN_CLUSTER_SHARE lie past that, within 4 sds from their
 *   80th percentile (a two-state card's switches, kept; the 25th percentile's cut finds
 *   them too from TB_RERUN_CONFORMAL_MIN on);  ratio: s2 = max(0, v - o), o the runs' own
 *   variance
 *   (their median, over its median's bias for their cycles); abs: s2 = v (its logged
 *   interval holds the rest);
 *   D (here: the differences kept) = 0: the setting p, of TB_RERUN_PRIOR_DF degrees;
 *   D < TB_RERUN_POOL_MIN: sqrt((k p^2 + D s2) / (k + D)), k = TB_RERUN_PRIOR_RUNS, at most
 *   TB_RERUN_MAX_FACTOR x p where p > 0, of TB_RERUN_PRIOR_DF degrees and the kept
 *   differences' (as below) together; else sqrt(s2), whose
 *   degrees of freedom are the mean square's, 2 m^2 / (3 m - 1) for a series' m
 *   differences (tb_steps_rms_df), summed, times the share of differences kept.
 * The within-night sd: the runs' per-cycle variances (own x cycles), their median over its
 * bias; its weight their cycles less one each, at most TB_RERUN_WITHIN_DF_MAX. */
void tb_rerun_pool(const struct tb_rerun_run *runs, size_t n, const struct tb_power_cfg *pc,
                   struct tb_rerun_sd *out);

/* Where another night's figure of as many cycles lands, relative half-width at 95%: the
 * night's per-cycle relative sd sd_night (df_night degrees of freedom) pooled with the
 * card's (bw's within-night sd and weight) over cycles, and twice bw's between-night
 * variance: t(df) x sqrt(2 s_w^2 / cycles + 2 s_b^2), df by Welch-Satterthwaite. Where bw
 * has a ratio_q95 (a two-state card), that bound instead, never below the night's own part
 * alone. bw NULL: the night's own alone. NAN where nothing is known. */
double tb_rerun_halfwidth(const struct tb_rerun_sd *bw, double sd_night, double df_night,
                          int cycles);

/* What the board file's settings are to the learner, for the log's power_rerun line (n
 * bytes into buf): their values, their weight, and that a row of rerun_runs 0 rests on them
 * alone, its rerun interval taking them as an estimate of TB_RERUN_PRIOR_DF degrees of
 * freedom (with the t that gives), not as known. */
void tb_rerun_settings_said(const struct tb_power_cfg *pc, char *buf, size_t n);

struct tb_rerun;

/* Reads the newest TB_RERUN_MAX_LOGS logs in dir whose metadata says they are host's
 * (host_id: its machine-id, "" none) and board's, and keeps those that ran the kernel
 * images of sha256 images (their images_sha256 line: a new build's kernels move their
 * ratios, which is no night's spread; a log from before the line is left out too), until
 * TB_RERUN_MAX_ROWS rows or TB_RERUN_MAX_BYTES bytes are read (the older ones are not opened;
 * line says how many; a bound cuts a log silently). A log whose metadata cannot be read is
 * not one of them (as for retention); a damaged one keeps the rows before the damage, said
 * on stderr; a folder that cannot be opened gives a table without runs. NULL only without
 * memory. line (n bytes)
 * says what was read and kept, for the log's power_rerun line. */
struct tb_rerun *tb_rerun_learn(const char *dir, const char *host, const char *host_id,
                                const char *board, const char *images, char *line, size_t n);
void tb_rerun_free(struct tb_rerun *r);

/* tb_rerun_learn on a thread of its own (rerun_bounded.c), waited for within limit_s by
 * the tool's clock (lib/bounded.h) and while *stop (NULL: none) is 0: a log folder's file whose open or read
 * never returns (a stuck FUSE or network mount) or a signal costs the night its learnt
 * spread, never its start. NULL (line says why: not read in time, stopped, no memory): the
 * settings alone. */
#define TB_RERUN_LEARN_S 30.0
struct tb_rerun *tb_rerun_learn_bounded(const char *dir, const char *host, const char *host_id,
                                        const char *board, const char *images, double limit_s,
                                        volatile sig_atomic_t *stop, char *line, size_t n);

/* Point me's spread (me: its row as tb_log_rec_from_row reads it, with its device_id; r
 * NULL: none learned), pooled over its card (tb_rerun_pool): of the earlier runs in the logs
 * kept (this host's and board's by their metadata) the rows of its device (tb_log_device_cmp),
 * board and operating step (tb_log_step_cmp), with a usable result, an energy ratio, J per
 * byte and the cycles' interval, not power-capped (into out->cap: the capped ones alone,
 * pooled the same way); a series is a kernel, element and size,
 * and block unless pc->points is "fastest" (a kernel is then one series whichever block was
 * fastest, the run's fastest row of it taken); one row a series a run (a log kept under a
 * second name, the same run_id, once), its newest TB_RERUN_MAX_RUNS. No difference: the
 * settings, runs 0. */
void tb_rerun_sd(struct tb_rerun *r, const struct tb_log_rec *me,
                 const struct tb_power_cfg *pc, struct tb_rerun_sd *out);

#endif
