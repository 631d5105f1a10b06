/* window.c: the power of one measurement window, from the sampler's readings: the mean
 * total and GPU-rail power (trapezoid over the readings a rail has, edges interpolated), the
 * energy counter's difference across the window where the source has one (exact where a
 * reading is an average: it then gives the mean power), and the temperature and clocks at
 * the window's end. All the power arithmetic of a run; the runner only asks. */
#include "power.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy.h"

/* A rail's index by name; -2 for "sum" (every rail), -1 when none is named or found. */
static int rail_index(const struct tb_power_rails *rails, const char *name)
{
    if (!name || !*name)
        return -1;
    if (!strcmp(name, "sum"))
        return -2;
    for (int i = 0; i < rails->n; i++)
        if (!strcmp(rails->name[i], name))
            return i;
    return -1;
}

static double rail_value(const struct tb_power_sample *s, const struct tb_power_rails *rails,
                         int idx)
{
    if (idx == -2) {
        double sum = 0;
        for (int i = 0; i < rails->n; i++)
            if (!isnan(s->rail_mw[i]))
                sum += s->rail_mw[i];
        return sum;
    }
    return idx >= 0 ? s->rail_mw[idx] : NAN;
}

/* Picks field(i) of the n samples where it is a number: times into t, values into v. */
#define SERIES(w, n, field, t, v, k)                                                       \
    do {                                                                                   \
        k = 0;                                                                             \
        for (size_t i_ = 0; i_ < (n); i_++) {                                              \
            double x_ = (field);                                                           \
            if (!isnan(x_)) {                                                              \
                t[k] = (w)[i_].t_ns;                                                       \
                v[k++] = x_;                                                               \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* Power over a window needs the source to have spoken at or after its end: when it has
 * not (gone silent: a stalled tegrastats) the trapezoid would hold the last reading flat
 * across the silence and log watts, and GB/s per W, from no reading at all. A reading
 * dropped as absurd still shows a live source; a first reading inside the window is held
 * back to its start (a slow source, not a silent one). */
static bool spoke_after(const struct tb_power_sample *w, size_t n, int64_t t1,
                        struct tb_power_figures *f)
{
    if (n && w[n - 1].t_ns >= t1)
        return true;
    snprintf(f->why, sizeof(f->why), "no reading after the window's end: no power figures");
    return false;
}

void tb_power_over(struct tb_sampler *s, const struct tb_power_cfg *pc, int64_t t0, int64_t t1,
                   struct tb_power_figures *f)
{
    memset(f, 0, sizeof(*f));
    f->total_w = f->gpu_w = f->energy_j = f->energy_counter_j = NAN;
    f->gpu_temp_c = f->gpu_clock_mhz = f->emc_clock_mhz = NAN;
    int64_t margin = (int64_t)pc->interval_ms * 4 * 1000000;
    size_t n = 0;
    struct tb_power_sample *w = tb_sampler_window(s, t0, t1, margin, &n);
    int64_t *t = malloc((n ? n : 1) * sizeof(*t));
    double *v = malloc((n ? n : 1) * sizeof(*v));
    if (!w || !t || !v || n == 0 || t1 <= t0)
        goto out;
    const struct tb_power_rails *rails = tb_sampler_rails(s);
    double secs = (double)(t1 - t0) * 1e-9;
    int ti = rail_index(rails, pc->total_rail), gi = rail_index(rails, pc->gpu_rail);
    if (ti == -1 && rails->n > 0 && !pc->total_rail[0])
        ti = 0; /* no rule given: the first rail the source reports */
    size_t k;
    bool live = spoke_after(w, n, t1, f);
    if (ti != -1) {
        SERIES(w, n, rail_value(&w[i_], rails, ti), t, v, k);   /* dropped readings are NAN */
        if (!live)
            k = 0;

        size_t inside = 0;
        f->energy_j = k ? tb_energy_mj(t, v, k, t0, t1, &inside) * 1e-3 : NAN;
        f->total_w = f->energy_j / secs;
        f->samples = inside;
    }
    if (gi != -1) {
        SERIES(w, n, rail_value(&w[i_], rails, gi), t, v, k);
        if (!live)
            k = 0;
        f->gpu_w = k ? tb_energy_mj(t, v, k, t0, t1, NULL) * 1e-3 / secs : NAN;
    }
    /* the energy counter, read at both edges by the same interpolation */
    SERIES(w, n, w[i_].energy_mj, t, v, k);
    if (k >= 2 && t[0] <= t0 && t[k - 1] >= t1) {
        f->energy_counter_j = (tb_energy_interp(t, v, k, t1) - tb_energy_interp(t, v, k, t0)) * 1e-3;
        /* NVML on an H100: 317 J from the (averaged) readings against 491 J counted over 1 s
         * of memcpy: the counter gives the mean power; energy_j keeps the trapezoid */
        f->total_w = f->energy_counter_j / secs;
        if (!strcmp(pc->gpu_rail, pc->total_rail))
            f->gpu_w = f->total_w;
    }
    for (size_t i = n; i-- > 0;)
        if (w[i].t_ns <= t1 + margin / 4) {
            f->gpu_temp_c = w[i].gpu_temp_c;
            f->gpu_clock_mhz = w[i].gpu_clock_mhz;
            f->emc_clock_mhz = w[i].emc_clock_mhz;
            break;
        }
out:
    free(w);
    free(t);
    free(v);
}
