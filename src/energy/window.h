/* window.h: the power of a measurement window from the readings of a span (plan.h: the one
 * way they are fetched), and the sensor's updates inside it. Each call reads only the
 * readings of the span it is given that its window reaches, and the plan's timing: never
 * the sampler. Declared in power/power.h until #59; they are energy's. */
#ifndef TB_ENERGY_WINDOW_H
#define TB_ENERGY_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "energy/plan.h"

struct tb_power_figures {
    double total_w, gpu_w;        /* mean power of the total and GPU rails over the window */
    double total_w_ci;            /* half-width of total_w's 95% interval; NAN: none */
    double energy_j;              /* total rail, trapezoid of the readings */
    double energy_counter_j;      /* from the source's energy counter; NAN where none */
    double gpu_temp_c, gpu_clock_mhz, emc_clock_mhz;   /* at the window's end */
    double mem_temp_c;            /* the GPU memory's, at the window's end; NAN: not said */
    size_t samples;               /* total-rail readings (polls) inside the window */
    size_t updates;               /* distinct sensor updates inside it: the independent ones */
    double reading_rel_sd;        /* one update's relative sd from successive differences
                                   * (a drift across the window left out); NAN: under 3 */
    size_t reason_samples;        /* readings inside it that carried clock-event reasons */
    size_t capped_samples;        /* of those, the ones with the power cap's bit */
    size_t oc_samples;            /* of those, the ones with TB_POWER_REASON_OC */
    bool withheld;                /* too few updates for an interval: no figure */
    char why[128];                /* why total_w or gpu_w is NAN though readings came; "" */
};
/* How far past a window's edges tb_power_over reads: 4 polls of power.interval_ms. A span
 * read for it reaches [t0 - this, t1 + this]. */
int64_t tb_power_over_margin_ns(const struct tb_power_cfg *pc);
/* The poll the sampler keeps (ms): power.interval_ms, or longer where it lengthened it for
 * reads that block (plan.c's poll_ms); and tb_power_over's margin on it, four polls. */
double tb_power_plan_poll_ms(const struct tb_energy_plan *p, const struct tb_power_cfg *pc);
int64_t tb_power_plan_margin_ns(const struct tb_energy_plan *p, const struct tb_power_cfg *pc);
/* The power over [t0, t1] (CLOCK_MONOTONIC ns) from sp's readings within the margin, rails
 * chosen by pc (the plan's, or a copy with other batches), with its interval from the
 * independent readings, however wide (what a width means is the meter's judgement,
 * meter_figures.c); a window that holds fewer than 2 updates is withheld (figures NAN, why
 * says "1 sensor update in 0.3 s: no interval, no power figures"). */
void tb_power_over(const struct tb_energy_plan *p, const struct tb_power_cfg *pc,
                   const struct tb_power_span *sp, int64_t t0, int64_t t1,
                   struct tb_power_figures *f);
/* The rails the total is made of (power.total_rail: one, or every rail for "sum"): the
 * first into *first, their count returned (0: none named or found). */
int tb_power_total_rails(const struct tb_energy_plan *p, int *first);
/* The mean power (W) over [t0, t1] of what an averaging sensor was fed, from sp's readings
 * in [t0, t1]: each rail of the total inverted by its own time constant
 * (tb_energy_inverted_mj, the model's tau_ms per rail), its readings' trapezoid plus tau x
 * the reading's change. *polls: the total's readings inside. NAN without two readings
 * spanning it. */
double tb_power_inverted_w(const struct tb_energy_plan *p, const struct tb_power_span *sp,
                           int64_t t0, int64_t t1, size_t *polls);
/* The updates of the total (or of the energy counter, mJ) in (t0, t1], from sp's readings
 * in [t0, t1]: their times and values (malloc'ed into *tc and *vc where not NULL; NULL when
 * out of memory); how many. */
size_t tb_power_updates(const struct tb_energy_plan *p, const struct tb_power_span *sp,
                        int64_t t0, int64_t t1, int64_t **tc, double **vc);
/* The sensor's period the readings of an idle [t0, t1] show: the median interval between
 * changed values of the total (or the counter), their count in *intervals; NAN under 3
 * updates. */
double tb_power_infer_period(const struct tb_energy_plan *p, const struct tb_power_span *sp,
                             int64_t t0, int64_t t1, size_t *intervals);

#endif
