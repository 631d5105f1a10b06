/* selfcal.h: a night that calibrates its own sensor. Every switch of an interleaved night's
 * load (copy to kernel, kernel to copy) is a step of the power; an exponential average
 * (sensor_model.h's ema: the INA3221) answers each with its time constant after its dead
 * time. From one rail's readings and the switches' times this fits both, with a prior
 * (update_interval's claim, or a kept probe result) for the time constant, and gives each
 * with its uncertainty. Pure arithmetic: no sampler, no clock. Not here: which readings and
 * switches a night has, and inverting with the result (meter_cal.c). */
#ifndef TB_SELFCAL_H
#define TB_SELFCAL_H

#include <stddef.h>
#include <stdint.h>

/* The steps a fit needs: fewer, and the prior alone is the answer. */
#define TB_SELFCAL_MIN_STEPS 4
/* The dead times searched, ms: the probe's fixture measured 24.5 ms. */
#define TB_SELFCAL_MAX_DELAY_MS 200.0

struct tb_selfcal_in {
    const int64_t *t_ns;         /* one rail's readings, ascending */
    const double *r_mw;
    size_t n;
    const int64_t *step_ns;      /* the load's switches, ascending */
    size_t steps;
    double tau_prior_ms;         /* what the board says (> 0) */
    double tau_prior_rel_sd;     /* how far that may be off, relative (a claim: 0.10) */
};

struct tb_selfcal {
    double tau_ms, tau_sd_ms;    /* the estimate, the prior weighed in, and its sd */
    double delay_ms, delay_sd_ms;   /* the dead time and its sd (0 and NAN: not fitted) */
    double night_tau_ms, night_tau_sd_ms;   /* the night's steps alone (NAN: too few) */
    int steps;                   /* steps with readings on both sides */
    int df;                      /* the degrees of freedom of the sds (0: the prior's) */
    int at_bound;                /* the night's fit ended at its search's bound (tau at the
                                  * grid's end, D at TB_SELFCAL_MAX_DELAY_MS): the pair
                                  * fits the readings, but does not identify the chip */
};

/* The fit: the time constant tau and dead time D whose average of a load that is constant
 * between the switches (each at its switch plus D) fits the readings best in least squares,
 * each step in a window from the step before to the step after (three linear terms: the
 * level before, the swing left from the step before, the level after); the sds by the
 * jackknife over groups of steps (their readings' noise is correlated, so the fit's own
 * curvature would claim too little); the prior weighed in by inverse variance. 0, or -1
 * (out of memory: out holds the prior). A fit that ends at a bound of its search is no
 * estimate of the chip: at_bound says so. */
int tb_selfcal_fit(const struct tb_selfcal_in *in, struct tb_selfcal *out);

#endif
