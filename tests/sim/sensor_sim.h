/* sensor_sim.h: the power sensors the tool reads, as their datasheets and drivers describe
 * them, on the fake clock: what a poll at time t reads when the board draws P(t).
 *   ema        TI INA3221 (SBOS576, "Averaging function"): after every conversion cycle
 *              (channels x (bus + shunt conversion time): 3 x 2 x 140 us on L4T) the chip
 *              adds (sample - register) / AVG to its output register: an exponential
 *              average whose time constant is AVG x cycle, Linux's update_interval
 *              (Documentation/hwmon/ina3221.rst: channels x samples x (bus + shunt)).
 *              Several chips summed (AGX boards), each with its own constant.
 *   boxcar     the model the tool used to assume: a plain mean of the conversions over a
 *              period, changing only at its end.
 *   point      the R32 ina3221x IIO driver in triggered mode: each read is one conversion.
 *   tegrastats the ema registers read at tegrastats' own interval (a reading held between).
 *   nvml       NVML's energy counter on the A100/H100: the power sampled 25 ms of every
 *              100 ms, that mean counted for the whole 100 ms (Yang et al., SC24), the phase
 *              of the 25 ms random per night.
 *   nvml-power NVML's power reading on Ampere and newer: the mean of the last 1 s, a new one
 *              every 100 ms.
 * Conversion noise: each conversion's sample is P(t - delay) x (1 + noise x N(0,1)): the
 * dead time a probe measures (24.5 ms on the Orin fixture) delays what a conversion sees;
 * a register read rounds to its step (lsb_w: the LSB of current x bus voltage).
 * Header-only (static functions): meter-sim and the test programs include it. Not here: the
 * load and the nights (nights.h), the source ops the sampler reads (nights.h). */
#ifndef TB_SIM_SENSOR_SIM_H
#define TB_SIM_SENSOR_SIM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define SIM_MS 1000000LL
#define SIM_MAX_CHIPS 2

enum sim_sensor { SIM_EMA, SIM_BOXCAR, SIM_POINT, SIM_TEGRASTATS, SIM_NVML, SIM_NVML_POWER };

static const char *const sim_sensor_names[] = { "ema", "boxcar", "point", "tegrastats", "nvml",
                                                "nvml-power", NULL };

/* The board's power: chip c's share of it at time t (ns), W. */
typedef double (*sim_power_fn)(void *arg, int64_t t, int chip);

struct sim_chip {
    double tau_ms;        /* the average's time constant: AVG x cycle_ms */
    double cycle_ms;      /* one conversion cycle of every channel */
    int avg;              /* the averaging count (config bits 11-9) */
    double reg;           /* the output register, W */
    int64_t next_ns;      /* when the next conversion cycle ends */
    double box_sum;       /* boxcar: this period's conversions */
    int box_n;
    int64_t box_end;      /* boxcar: the period's end */
    double held;          /* boxcar and tegrastats: the value a read gives */
    int64_t next_read;    /* tegrastats: its next line */
};

struct sim_sensor_state {
    enum sim_sensor kind;
    int chips;
    struct sim_chip chip[SIM_MAX_CHIPS];
    double noise;               /* relative sd of one conversion's sample */
    double delay_ms;            /* the dead time: a conversion at t samples P(t - delay) */
    double lsb_w;               /* a register read's step, W (0: exact) */
    double read_ms;             /* tegrastats' interval */
    double nvml_period_ms, nvml_window_ms, nvml_phase_ms;
    double counter_mj;          /* nvml: the energy counter */
    int64_t counter_next;       /* nvml: the next period's end */
    sim_power_fn power;
    void *arg;
    unsigned long long rng;
};

/* xorshift64*: each night's own stream from its seed. */
static inline double sim_uniform(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static inline double sim_gauss(unsigned long long *s)
{
    double u = sim_uniform(s), v = sim_uniform(s);
    return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

static inline double sim_sample(struct sim_sensor_state *z, int64_t t, int c)
{
    double p = z->power(z->arg, t - (int64_t)(z->delay_ms * 1e6), c);
    return z->noise > 0 ? p * (1 + z->noise * sim_gauss(&z->rng)) : p;
}

/* A chip of time constant tau_ms averaging avg conversions: the cycle follows from them. */
static inline void sim_chip_init(struct sim_chip *ch, double tau_ms, int avg, int64_t t0,
                                 double phase01, double p0)
{
    memset(ch, 0, sizeof(*ch));
    ch->tau_ms = tau_ms;
    ch->avg = avg > 0 ? avg : 512;
    ch->cycle_ms = tau_ms / ch->avg;
    ch->reg = ch->held = p0;
    ch->next_ns = t0 + (int64_t)(phase01 * ch->cycle_ms * 1e6) + 1;
    ch->box_end = t0 + (int64_t)(tau_ms * 1e6);
    ch->next_read = t0;
}

/* Runs chip c's conversions up to t. */
static inline void sim_chip_until(struct sim_sensor_state *z, int c, int64_t t)
{
    struct sim_chip *ch = &z->chip[c];
    int64_t step = (int64_t)(ch->cycle_ms * 1e6);
    if (step < 1)
        step = 1;
    while (ch->next_ns <= t) {
        double x = sim_sample(z, ch->next_ns, c);
        if (z->kind == SIM_BOXCAR) {
            if (ch->next_ns > ch->box_end) {   /* the period closed: its mean is the reading */
                ch->held = ch->box_n ? ch->box_sum / ch->box_n : ch->held;
                ch->box_sum = 0;
                ch->box_n = 0;
                ch->box_end += (int64_t)(ch->tau_ms * 1e6);
            }
            ch->box_sum += x;
            ch->box_n++;
        } else {
            ch->reg += (x - ch->reg) / ch->avg;
        }
        ch->next_ns += step;
    }
}

/* nvml: the counter's periods up to t, each adding its 25 ms window's mean x 100 ms. */
static inline void sim_nvml_until(struct sim_sensor_state *z, int64_t t)
{
    int64_t period = (int64_t)(z->nvml_period_ms * 1e6);
    while (z->counter_next <= t) {
        int64_t a = z->counter_next - period + (int64_t)(z->nvml_phase_ms * 1e6);
        int64_t w = (int64_t)(z->nvml_window_ms * 1e6), stp = SIM_MS;
        double sum = 0;
        int n = 0;
        for (int64_t x = a; x < a + w; x += stp, n++)
            sum += sim_sample(z, x, 0) + (z->chips > 1 ? sim_sample(z, x, 1) : 0);
        z->counter_mj += sum / n * z->nvml_period_ms;   /* W x ms = mJ */
        z->counter_next += period;
    }
}

/* nvml-power: the mean of the last 1 s (1 ms steps), recomputed every 100 ms. */
static inline double sim_nvml_power(struct sim_sensor_state *z, int64_t t, int c)
{
    struct sim_chip *ch = &z->chip[c];
    int64_t period = 100 * SIM_MS;
    if (t >= ch->next_read) {
        ch->next_read = t - (t - ch->next_read) % period + period;
        int64_t edge = ch->next_read - period;
        double sum = 0;
        for (int k = 0; k < 1000; k++)
            sum += sim_sample(z, edge - (int64_t)k * SIM_MS, c);
        ch->held = sum / 1000;
    }
    return ch->held;
}

/* What a poll at t reads from chip c (W); the nvml counter in *mj where mj is not NULL. */
static inline double sim_read(struct sim_sensor_state *z, int64_t t, int c, double *mj)
{
    if (z->kind == SIM_NVML_POWER)
        return sim_nvml_power(z, t, c);
    if (z->kind == SIM_NVML) {
        sim_nvml_until(z, t);
        if (mj)
            *mj = z->counter_mj;
        return z->power(z->arg, t, c);   /* NVML's own power reading: not used for energy */
    }
    if (z->kind == SIM_POINT)
        return sim_sample(z, t, c);      /* a triggered conversion, now */
    struct sim_chip *ch = &z->chip[c];
    if (z->kind == SIM_TEGRASTATS)       /* each line: the register as it was then */
        for (; ch->next_read <= t; ch->next_read += (int64_t)(z->read_ms * 1e6)) {
            sim_chip_until(z, c, ch->next_read);
            ch->held = ch->reg;
        }
    sim_chip_until(z, c, t);
    double v = z->kind == SIM_BOXCAR || z->kind == SIM_TEGRASTATS ? ch->held : ch->reg;
    return z->lsb_w > 0 ? round(v / z->lsb_w) * z->lsb_w : v;
}

#endif
