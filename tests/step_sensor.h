/* step_sensor.h: a power sensor that follows TI's INA3221 datasheet (SBOS576, "Averaging
 * function"), for the step-response probe's tests: the chip converts each channel once per
 * conversion cycle (L4T: 3 channels x (bus 140 us + shunt 140 us) = 0.84 ms) and after each
 * conversion adds (sample - register) / N to its register, N the averaging count: an
 * exponential average of time constant about N x cycle (512 x 0.84 ms = 430 ms, Linux's
 * update_interval, Documentation/hwmon/ina3221.rst). The other kinds are what the probe must
 * tell apart: a block mean of N conversions written once per block (the staircase this tool
 * assumed before, #48), a moving mean of the last N conversions, a point sample (N = 1).
 * Readings are polled at given times and quantised to 1 mW (hwmon's units). Time is
 * simulated, never slept. Not here: sysfs files (test_probe.c writes them). */
#ifndef TB_TEST_STEP_SENSOR_H
#define TB_TEST_STEP_SENSOR_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum ss_kind { SS_EMA, SS_BLOCK_MEAN, SS_MOVING_MEAN };

struct step_sensor {
    enum ss_kind kind;
    double cycle_ms;         /* one conversion of this channel every cycle_ms */
    int avg_n;               /* the averaging count N (1: a point sample) */
    double idle_w, load_w;   /* the true power, off and on */
    double noise_rel;        /* sd of each conversion's noise, relative to its power */
    double delay_ms;         /* the load reaches the rail this late after an edge */
    uint64_t seed;
    /* state */
    double reg, sum;
    double *ring;
    int filled, pos;
    double t_conv;           /* the next conversion's time */
};

static inline double ss_gauss(uint64_t *s)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
        u[i] = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* The true power at time t: load within [edge 2k, edge 2k+1) shifted by the delay. */
static inline double ss_power(const struct step_sensor *s, const double *e, size_t ne, double t)
{
    int on = 0;
    for (size_t k = 0; k < ne && e[k] + s->delay_ms <= t; k++)
        on = !on;
    return on ? s->load_w : s->idle_w;
}

static inline void ss_start(struct step_sensor *s)
{
    s->reg = s->idle_w, s->sum = 0, s->filled = 0, s->pos = 0, s->t_conv = 0;
    s->ring = malloc((size_t)s->avg_n * sizeof *s->ring);
    for (int i = 0; i < s->avg_n; i++)
        s->ring[i] = s->idle_w;
}

/* One conversion at time t, as the datasheet's averaging treats it. */
static inline void ss_convert(struct step_sensor *s, double p)
{
    double x = p * (1 + s->noise_rel * ss_gauss(&s->seed));
    if (s->kind == SS_EMA) {
        s->reg += (x - s->reg) / s->avg_n;
    } else if (s->kind == SS_BLOCK_MEAN) {
        s->sum += x;
        if (++s->filled == s->avg_n)
            s->reg = s->sum / s->avg_n, s->sum = 0, s->filled = 0;
    } else {
        s->ring[s->pos] = x, s->pos = (s->pos + 1) % s->avg_n;
        double m = 0;
        for (int i = 0; i < s->avg_n; i++)
            m += s->ring[i];
        s->reg = m / s->avg_n;
    }
}

/* The register as read at time t (conversions up to t done first), in W quantised to mW. */
static inline double ss_read(struct step_sensor *s, const double *e, size_t ne, double t)
{
    while (s->t_conv <= t) {
        ss_convert(s, ss_power(s, e, ne, s->t_conv));
        s->t_conv += s->cycle_ms;
    }
    return round(s->reg * 1000) / 1000;
}

/* n readings polled every poll_ms (plus up to jitter_ms late, uniformly) into t and w. */
static inline void ss_poll(struct step_sensor *s, const double *e, size_t ne, double poll_ms,
                           double jitter_ms, size_t n, double *t, double *w)
{
    ss_start(s);
    uint64_t js = s->seed ^ 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        js ^= js << 13, js ^= js >> 7, js ^= js << 17;
        t[i] = poll_ms * (double)(i + 1) + jitter_ms * (double)(js >> 11) / 9007199254740992.0;
        w[i] = ss_read(s, e, ne, t[i]);
    }
    free(s->ring);
    s->ring = NULL;
}

#endif
