/* meter_sim.h: a simulated board for the meter's tests (test_power_meter.c,
 * test_meter_rerun.c, test_meter_night.c), on the fake clock: a load whose power follows a
 * simulated temperature (0.4% a degree, as the H100 logs showed), read through sensors of
 * the kinds the tool meets: an INA3221 on hwmon as its datasheet says (EMA: the per-
 * conversion exponential average of tests/sim/sensor_sim.h, 512 samples, 430 ms), the
 * boxcar the tool assumed before (AVG430: a mean over 430 ms that changes at its end),
 * NVML's energy counter every 100 ms, a Nano's triggered IIO sensor (one conversion a
 * reading), a static sensor, a source that dies; the memory's own temperature where a
 * test asks (sim.mem_above_c). Static functions: each test program includes it once. */
#ifndef TB_TEST_METER_SIM_H
#define TB_TEST_METER_SIM_H

#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/util.h"
#include "energy/meter.h"
#include "energy/meter_internal.h"
#include "power/power.h"
#include "sim/sensor_sim.h"

#define MS 1000000LL
enum kind { AVG430, COUNTER, TRIGGERED, STATIC, DIES, EMA };

/* The simulated board: who loads it since when, and how hot it is. */
static struct sim {
    pthread_mutex_t mu;
    enum kind kind;
    int64_t t0;                   /* the simulation's start */
    int64_t seg_t[4096];          /* load switches: from seg_t[i], point seg_p[i] (-1 idle) */
    int seg_p[4096], nseg;
    double temp0, heat_c_per_s;   /* temperature: temp0 + heat x seconds since t0 (capped) */
    double mem_above_c;           /* the memory's own temperature this far above the GPU's
                                   * with every reading (an HBM board); NAN: not said */
    double noise;                 /* relative noise of a reading */
    double cap_w;                 /* the power limit: a point above it draws it (0: none) */
    bool say_limit, no_cap_bit;   /* the source says cap_w as its enforced limit (NVML's
                                   * identify); its reasons never carry the cap's bit */
    double copy_scale;            /* the copy's power this night over its usual (0: 1): a
                                   * state one run's cycles share and a rerun need not */
    double clock_fall_after_s;    /* the GPU clock halves after this (0: never) */
    int64_t dies_after_ns;        /* DIES: the source fails after this */
    unsigned long long rng;
    int loads, stop_after_loads;  /* a signal after this many load calls (0: none) */
    volatile sig_atomic_t *stop;
} sim = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Per point: watts at 40 C and bytes per second. Point 0 is the copy; points past 2 (a
 * whole sweep's) draw a little more and move a little less each. */
#define NPTS 24
static double base_w[NPTS] = { 10.0, 9.0, 12.0 }, rate_bps[NPTS] = { 100e9, 60e9, 80e9 };
#define IDLE_W 3.0

static inline double temp_at(int64_t t)
{
    double c = sim.temp0 + sim.heat_c_per_s * (double)(t - sim.t0) * 1e-9;
    return c > 90 ? 90 : c;
}

static inline int point_at(int64_t t)
{
    int lo = 0, hi = sim.nseg - 1, p = -1;
    while (lo <= hi) {   /* the last switch at or before t (an EMA reads it every 0.84 ms) */
        int mid = (lo + hi) / 2;
        if (sim.seg_t[mid] <= t) {
            p = sim.seg_p[mid];
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return p;
}

/* A point's power uncapped: its watts at 40 C, 0.4% more a degree. */
static inline double free_power_at(int64_t t)
{
    int p = point_at(t);
    double w = p < 0 ? IDLE_W : base_w[p];
    if (p == 0 && sim.copy_scale > 0)
        w *= sim.copy_scale;
    return w * (1 + 0.004 * (temp_at(t) - 40));
}

/* What the board draws: a load above the power limit is held at it. */
static inline double power_at(int64_t t)
{
    double w = free_power_at(t);
    return sim.cap_w > 0 && point_at(t) >= 0 && w > sim.cap_w ? sim.cap_w : w;
}

/* Energy in J over [a, b], 1 ms steps. */
static inline double energy(int64_t a, int64_t b)
{
    double e = 0;
    for (int64_t t = a; t < b; t += MS)
        e += power_at(t) * (double)(t + MS < b ? MS : b - t) * 1e-9;
    return e;
}

static inline double noise(void)
{
    sim.rng = sim.rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return sim.noise * (((double)(sim.rng >> 11) / 9007199254740992.0) * 2 - 1);
}

/* EMA: the chip as sensor_sim.h runs it, its conversions sampling power_at. */
static struct sim_sensor_state sim_ema;
static double sim_ema_power(void *arg, int64_t t, int chip)
{
    return power_at(t);
}

struct fake { int64_t last_k; double value, counter; };

static inline int64_t period_ns(void)
{
    return sim.kind == COUNTER ? 100 * MS : sim.kind == TRIGGERED ? 450 * MS : 430 * MS;
}

static inline int fake_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                     char *why, size_t n)
{
    struct fake *f = st;
    f->last_k = -1;
    rails->n = 1;
    tb_strlcpy(rails->name[0], "VDD_IN", TB_RAIL_NAME);
    return 0;
}

/* A reading as the kind of sensor gives it: a new value at each period's edge, repeated
 * between edges as a polled sysfs file is. */
static inline int fake_sample(void *st, struct tb_power_sample *s, char *why, size_t n)
{
    struct fake *f = st;
    int64_t now = tb_now_ns(), p = period_ns();
    pthread_mutex_lock(&sim.mu);
    if (sim.kind == DIES && now - sim.t0 > sim.dies_after_ns) {
        pthread_mutex_unlock(&sim.mu);
        snprintf(why, n, "the simulated source died");
        return -EIO;
    }
    int64_t k = (now - sim.t0) / p, edge = sim.t0 + k * p;
    if (sim.kind == EMA) {
        f->value = sim_read(&sim_ema, now, 0, NULL) * 1e3;
    } else if (k != f->last_k) {
        if (sim.kind == COUNTER)
            f->counter += energy(edge - p, edge) * 1e3 * (1 + noise());
        else if (sim.kind == TRIGGERED)
            f->value = power_at(edge) * 1e3 * (1 + noise());
        else if (sim.kind == STATIC)
            f->value = 14300;
        else
            f->value = energy(edge - p, edge) / ((double)p * 1e-9) * 1e3 * (1 + noise());
        f->last_k = k;
    }
    double t = temp_at(now), mem_above = sim.mem_above_c;
    bool fell = sim.clock_fall_after_s > 0 && (now - sim.t0) * 1e-9 > sim.clock_fall_after_s;
    /* NVML's clock-event reasons with every reading (COUNTER only: the other sensors cannot
     * say): the power cap's bit while the load would draw more than the limit */
    s->has_reasons = sim.kind == COUNTER;
    s->reasons = s->has_reasons && !sim.no_cap_bit && sim.cap_w > 0 && point_at(now) >= 0 &&
                 free_power_at(now) > sim.cap_w ? TB_POWER_REASON_CAP : 0;
    pthread_mutex_unlock(&sim.mu);
    if (sim.kind == COUNTER)
        s->energy_mj = f->counter;
    s->rail_mw[0] = sim.kind == COUNTER ? (float)(power_at(now) * 1e3) : (float)f->value;
    s->gpu_temp_c = (float)t;
    s->mem_temp_c = (float)(t + mem_above);
    s->gpu_clock_mhz = fell ? 700.0f : 1400.0f;
    return 0;
}

static inline void fake_close(void *st) {}

static inline void fake_cadence(void *st, struct tb_power_cadence *c)
{
    if (sim.kind == COUNTER) {
        c->period_ms = 100;
        tb_strlcpy(c->how, "energy counter", sizeof(c->how));
    } else if (sim.kind == TRIGGERED) {
        c->triggered = true;   /* the period is left to be inferred from the idle */
    } else {
        c->period_ms = 430;
        tb_strlcpy(c->how, "sysfs", sizeof(c->how));
        tb_strlcpy(c->detail, "hwmon update_interval 430 ms, samples 512", sizeof(c->detail));
        if (sim.kind == EMA) {   /* what ina3221.c makes of those files */
            tb_power_model_documented("ina3221-hwmon", 1, &c->model);
            tb_sensor_model_set_tau(&c->model, 0, 1, tb_sensor_model_hwmon_tau_ms(430, 512),
                                    "chip 1: update_interval 430 ms, samples 512 (sysfs)");
        }
    }
}

static inline void fake_identify(void *st, struct tb_power_device *d)
{
    d->limit_w = sim.say_limit && sim.cap_w > 0 ? sim.cap_w : NAN;
}

static const struct tb_power_ops fake_ops = {
    .name = "sim", .help = "a simulated board", .state_size = sizeof(struct fake),
    .open = fake_open, .sample = fake_sample, .close = fake_close, .cadence = fake_cadence,
    .identify = fake_identify,
};

/* The load: point i runs until end; the fake clock spends the time. */
static inline int sim_load(void *arg, size_t i, int64_t end, double *bytes)
{
    int64_t now = tb_now_ns(), dt = end > now ? end - now : MS;
    pthread_mutex_lock(&sim.mu);
    if ((sim.nseg == 0 || sim.seg_p[sim.nseg - 1] != (int)i) && sim.nseg < 4096) {
        sim.seg_t[sim.nseg] = now;
        sim.seg_p[sim.nseg++] = (int)i;
    }
    pthread_mutex_unlock(&sim.mu);
    tb_clock_spend_ns(dt);
    *bytes = rate_bps[i] * (double)dt * 1e-9;
    if (sim.stop_after_loads && ++sim.loads >= sim.stop_after_loads)
        *sim.stop = 1;
    return 0;
}

static inline void sim_idle(void)
{
    pthread_mutex_lock(&sim.mu);
    if (sim.nseg < 4096) {
        sim.seg_t[sim.nseg] = tb_now_ns();
        sim.seg_p[sim.nseg++] = -1;
    }
    pthread_mutex_unlock(&sim.mu);
}

struct rig {
    struct tb_power_cfg pc;
    struct tb_sampler *s;
    struct tb_meter *m;
    volatile sig_atomic_t stop;
    double idle_w, idle_ci;
    char idle_why[160];
    const struct tb_rerun_sd *between;   /* each point's run-to-run spread; NULL: none */
};

static const struct tb_power_cfg defaults = {
    .source = "sim", .interval_ms = 50, .window_ms = 1000, .idle_ms = 1000, .min_readings = 10,
    .batches = 4, .rounds = 3, .settle_s = 0, .settle_rel = 0.002, .max_rel_ci = 0.03,
    .target_rel_ci = 0.01, .budget_s = 12, .block_updates = 3,
    .points = "fastest",
};

/* The simulated board started afresh, its load idle: a kind of sensor, its noise. */
static inline void sim_reset(struct rig *r, enum kind kind, double noise_rel)
{
    pthread_mutex_lock(&sim.mu);
    sim.kind = kind;
    sim.t0 = tb_now_ns();
    sim.nseg = 0;
    sim.temp0 = 40;
    sim.heat_c_per_s = 0;
    sim.mem_above_c = NAN;
    sim.noise = noise_rel;
    sim.cap_w = 0;
    sim.say_limit = sim.no_cap_bit = false;
    sim.copy_scale = 0;
    sim.clock_fall_after_s = 0;
    sim.dies_after_ns = INT64_MAX / 2;
    sim.rng = 42;
    sim.loads = sim.stop_after_loads = 0;
    sim.stop = &r->stop;
    memset(&sim_ema, 0, sizeof(sim_ema));
    sim_ema.kind = SIM_EMA;
    sim_ema.chips = 1;
    sim_ema.noise = noise_rel;   /* per conversion: the average narrows it about 32x */
    sim_ema.power = sim_ema_power;
    sim_ema.rng = 42;
    sim_chip_init(&sim_ema.chip[0], 430, 512, sim.t0, 0.5, IDLE_W);
    pthread_mutex_unlock(&sim.mu);
    sim_idle();
}

/* The sampler on source ops with r->pc (the sim's fake_ops, or a real source reading a
 * fake tree the test keeps up with the sim), the meter over it, and its first idle. */
static inline void rig_open(struct rig *r, const struct tb_power_ops *ops)
{
    char why[256];
    int interval = sim.kind == COUNTER ? 20 : 50;
    tb_strlcpy(r->pc.source, ops->name, sizeof(r->pc.source));
    if (tb_sampler_start(&r->s, ops, &r->pc, interval, 100000, why, sizeof(why)))
        th_fail("sampler on %s: %s", ops->name, why);
    r->m = tb_meter_new(r->s, &r->pc, &r->stop);
    assert_non_null(r->m);
    r->idle_w = tb_meter_idle(r->m, &r->idle_ci, r->idle_why, sizeof(r->idle_why));
}

/* The rig with the power settings pc (the sim's source, whatever pc says). */
static inline void rig_start_pc(struct rig *r, enum kind kind, double noise_rel,
                                const struct tb_power_cfg *pc)
{
    memset(r, 0, sizeof(*r));
    r->pc = *pc;
    sim_reset(r, kind, noise_rel);
    rig_open(r, &fake_ops);
}

static inline void rig_start(struct rig *r, enum kind kind, double noise_rel)
{
    rig_start_pc(r, kind, noise_rel, &defaults);
}

static inline void rig_stop(struct rig *r)
{
    tb_meter_free(r->m);
    tb_sampler_stop(r->s, NULL);
}

static inline void measure(struct rig *r, size_t n, struct tb_meter_result *out)
{
    struct tb_meter_load ld = { sim_load, NULL, NULL };
    tb_meter_size(r->m, &ld, n, 0, r->idle_w, r->idle_ci, 0, r->between, out);
    sim_idle();
}

/* The true ratio of point k's J per byte to the copy's (temperature cancels). */
static inline double truth(int k)
{
    return (base_w[k] / rate_bps[k]) / (base_w[0] / rate_bps[0]);
}

#endif
