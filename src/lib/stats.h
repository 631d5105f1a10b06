/* stats.h: statistics of repetition times, the stopping rule and bandwidth arithmetic.
 * Pure functions, no I/O: the runner feeds them, tests check them. */
#ifndef TB_STATS_H
#define TB_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct tb_stats {
    size_t n;
    double median, min, max, mean, stddev;
    double rel_sem;   /* standard error of the mean / mean */
};

/* The median of x[0..n), sorting x in place; NAN when n == 0. */
double tb_median(double *x, size_t n);
/* The sd of a series' noise from its successive differences d[0..n) (reordered): their
 * median magnitude over 0.6745 sqrt 2 (a difference of two normal values of sd s has sd
 * s sqrt 2, median magnitude 0.6745 s sqrt 2). A slow drift adds little to the differences
 * and a step or an odd value moves one or two, not their median. NAN for n = 0. */
double tb_sd_of_steps(double *d, size_t n);
/* The same sd from the differences' mean square (von Neumann's), leaving out each |d| over
 * TB_STEPS_OUT times the median-based sd of a difference (a broken night moves two, a
 * level change one; for normal noise a difference 4 true sds out comes 6 times in 100000,
 * but the median of 3-20 differences is itself noisy: in 2-4% of such pools the cut takes
 * one real difference, and the mean square reads 1-3% low on average). Its efficiency is
 * about twice the median's (2m/3 of m degrees of freedom against 0.37 m), so an interval
 * built on it is narrower for the same coverage. Where half the differences or more are 0
 * (a median of 0: ratios logged to a few digits that repeat) the cut is TB_STEPS_OUT times
 * the difference's sd that zero_sd (the sd of one value) gives, sqrt 2 zero_sd; none where
 * zero_sd is not > 0.
 * d is not reordered; *kept (may be NULL): the differences used (at least half where the
 * median is not 0). NAN for n = 0 or no memory. */
#define TB_STEPS_OUT 4.0
double tb_sd_of_steps_rms(const double *d, size_t n, double zero_sd, size_t *kept);
/* Its degrees of freedom over m successive differences of one series of normal values:
 * the sum of their squares has mean 2 m s^2 and variance (12 m - 4) s^4 (neighbouring
 * differences share a value: covariance of their squares 2 s^4), so 2 m^2 / (3 m - 1)
 * (1 at m = 1). Series apart add theirs. */
double tb_steps_rms_df(size_t m);
/* Sorts x in place and fills st; n == 0 gives NANs. */
void tb_stats_compute(double *x, size_t n, struct tb_stats *st);

/* Running mean and variance (Welford), for the stopping rule without a sort per rep. */
struct tb_running { size_t n; double mean, m2, sum; };
void tb_running_add(struct tb_running *r, double x);
double tb_running_rel_sem(const struct tb_running *r);

struct tb_stop_rule {
    int min_reps, max_reps;
    double min_time_ms;   /* sum of measured times */
    double max_time_ms;   /* wall time spent on the point */
    double rel_spread;    /* target for rel_sem */
};

enum tb_stop { TB_GO_ON = 0, TB_STOP_SPREAD, TB_STOP_MAX_REPS, TB_STOP_MAX_TIME };
/* Decides after each repetition. Minimums come first; then the spread target, or a cap. */
enum tb_stop tb_stop_check(const struct tb_stop_rule *rule, const struct tb_running *r,
                           double wall_ms);
const char *tb_stop_name(enum tb_stop s);

/* Student's t quantile for a two-sided 95% interval with df degrees of freedom (df >= 1);
 * NAN for df < 1. */
double tb_t95(size_t df);
/* The same at a fractional df (Welch-Satterthwaite's): linear in 1 / df between the whole
 * degrees on either side (t(3.36) 3.008, exact 2.998, where t(3), the df cut to whole, is
 * 3.182 and made a 3-cycle interval about 6% wide); df <= 1 gives t(1). */
double tb_t95_df(double df);
/* Mean of x[0..n) and the half-width of its 95% interval (t x s / sqrt(n)); the half-width
 * is NAN for n < 2. */
double tb_mean_ci95(const double *x, size_t n, double *half_width);

/* GB/s (1e9 bytes per second) for bytes moved in ms milliseconds; NAN if ms <= 0. */
double tb_gbps(double bytes, double ms);
/* a / b, or NAN when either is unknown or b is zero. */
double tb_ratio(double a, double b);
/* Whether a point's energy counts as power-capped: the cap held in `capped` of its `blocks`
 * energy blocks, at least one and half of them or more (the meter's note and history's
 * judgement by J/GB both ask this). False where either is unknown (NAN), infinite or not
 * a whole number, or capped exceeds blocks. */
bool tb_power_capped_majority(double capped, double blocks);

#endif
