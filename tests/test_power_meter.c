/* test_power_meter.c: the meter (src/power/meter.c) on the fake clock, against a simulated
 * board: a load whose power follows a simulated temperature that climbs as the test goes
 * (0.4% a degree, as the H100 logs showed), read through sensors of the kinds the tool
 * meets: an INA3221 hwmon that averages 430 ms, NVML's energy counter every 100 ms, a Nano's
 * triggered IIO sensor (one conversion a reading), a static sensor, a source that dies. No
 * real sleep: time moves when the sampler and the load wait on the fake clock. */
#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/util.h"
#include "power/meter.h"
#include "power/meter_internal.h"
#include "power/power.h"

#define MS 1000000LL
enum kind { AVG430, COUNTER, TRIGGERED, STATIC, DIES };

/* The simulated board: who loads it since when, and how hot it is. */
static struct sim {
    pthread_mutex_t mu;
    enum kind kind;
    int64_t t0;                   /* the simulation's start */
    int64_t seg_t[4096];          /* load switches: from seg_t[i], point seg_p[i] (-1 idle) */
    int seg_p[4096], nseg;
    double temp0, heat_c_per_s;   /* temperature: temp0 + heat x seconds since t0 (capped) */
    double noise;                 /* relative noise of a reading */
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

static double temp_at(int64_t t)
{
    double c = sim.temp0 + sim.heat_c_per_s * (double)(t - sim.t0) * 1e-9;
    return c > 90 ? 90 : c;
}

static int point_at(int64_t t)
{
    int p = -1;
    for (int i = 0; i < sim.nseg && sim.seg_t[i] <= t; i++)
        p = sim.seg_p[i];
    return p;
}

static double power_at(int64_t t)
{
    int p = point_at(t);
    double w = p < 0 ? IDLE_W : base_w[p];
    return w * (1 + 0.004 * (temp_at(t) - 40));
}

/* Energy in J over [a, b], 1 ms steps. */
static double energy(int64_t a, int64_t b)
{
    double e = 0;
    for (int64_t t = a; t < b; t += MS)
        e += power_at(t) * (double)(t + MS < b ? MS : b - t) * 1e-9;
    return e;
}

static double noise(void)
{
    sim.rng = sim.rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return sim.noise * (((double)(sim.rng >> 11) / 9007199254740992.0) * 2 - 1);
}

struct fake { int64_t last_k; double value, counter; };

static int64_t period_ns(void)
{
    return sim.kind == COUNTER ? 100 * MS : sim.kind == TRIGGERED ? 450 * MS : 430 * MS;
}

static int fake_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
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
static int fake_sample(void *st, struct tb_power_sample *s, char *why, size_t n)
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
    if (k != f->last_k) {
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
    double t = temp_at(now);
    bool fell = sim.clock_fall_after_s > 0 && (now - sim.t0) * 1e-9 > sim.clock_fall_after_s;
    pthread_mutex_unlock(&sim.mu);
    if (sim.kind == COUNTER)
        s->energy_mj = f->counter;
    s->rail_mw[0] = sim.kind == COUNTER ? (float)(power_at(now) * 1e3) : (float)f->value;
    s->gpu_temp_c = (float)t;
    s->gpu_clock_mhz = fell ? 700.0f : 1400.0f;
    return 0;
}

static void fake_close(void *st) {}

static void fake_cadence(void *st, struct tb_power_cadence *c)
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
    }
}

static const struct tb_power_ops fake_ops = {
    .name = "sim", .help = "a simulated board", .state_size = sizeof(struct fake),
    .open = fake_open, .sample = fake_sample, .close = fake_close, .cadence = fake_cadence,
};

/* The load: point i runs until end; the fake clock spends the time. */
static int sim_load(void *arg, size_t i, int64_t end, double *bytes)
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

static void sim_idle(void)
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
};

static const struct tb_power_cfg defaults = {
    .source = "sim", .interval_ms = 50, .window_ms = 1000, .idle_ms = 1000, .min_readings = 10,
    .batches = 4, .rounds = 3, .settle_s = 0, .settle_rel = 0.002, .max_rel_ci = 0.03,
    .target_rel_ci = 0.01, .budget_s = 12, .block_updates = 3,
    .points = "fastest",
};

static void rig_start(struct rig *r, enum kind kind, double noise_rel)
{
    memset(r, 0, sizeof(*r));
    r->pc = defaults;
    pthread_mutex_lock(&sim.mu);
    sim.kind = kind;
    sim.t0 = tb_now_ns();
    sim.nseg = 0;
    sim.temp0 = 40;
    sim.heat_c_per_s = 0;
    sim.noise = noise_rel;
    sim.clock_fall_after_s = 0;
    sim.dies_after_ns = INT64_MAX / 2;
    sim.rng = 42;
    sim.loads = sim.stop_after_loads = 0;
    sim.stop = &r->stop;
    pthread_mutex_unlock(&sim.mu);
    sim_idle();
    char why[256];
    int interval = kind == COUNTER ? 20 : 50;
    assert_int_equal(tb_sampler_start(&r->s, &fake_ops, &r->pc, interval, 100000, why,
                                      sizeof(why)), 0);
    r->m = tb_meter_new(r->s, &r->pc, &r->stop);
    assert_non_null(r->m);
    r->idle_w = tb_meter_idle(r->m, &r->idle_ci, r->idle_why, sizeof(r->idle_why));
}

static void rig_stop(struct rig *r)
{
    tb_meter_free(r->m);
    tb_sampler_stop(r->s, NULL);
}

static void measure(struct rig *r, size_t n, struct tb_meter_result *out)
{
    struct tb_meter_load ld = { sim_load, NULL, NULL };
    tb_meter_size(r->m, &ld, n, 0, r->idle_w, r->idle_ci, 0, out);
    sim_idle();
}

/* The true ratio of point k's J per byte to the copy's (temperature cancels). */
static double truth(int k)
{
    return (base_w[k] / rate_bps[k]) / (base_w[0] / rate_bps[0]);
}

/* The board warms 40 -> 90 C in the first 50 s: the absolute figure moves by far more than its
 * interval between a cold and a hot measurement; the ratio stays inside both intervals. */
static void test_ratio_holds_while_absolute_moves(void **state)
{
    struct rig r;
    rig_start(&r, AVG430, 0.003);
    sim.heat_c_per_s = 1.0;   /* 40 C to 90 C in 50 s, then steady */
    struct tb_meter_result cold[3], hot[3];
    measure(&r, 3, cold);
    tb_sleep_ns(120 * 1000 * MS);   /* two minutes later, hotter */
    measure(&r, 3, hot);
    rig_stop(&r);
    for (int k = 1; k < 3; k++) {
        assert_true(cold[k].cycles >= 3 && hot[k].cycles >= 3);
        /* a 95% interval; the drift inside a block (1 C/s) leaves a trace of 0.1% */
        if (fabs(cold[k].ratio - truth(k)) > cold[k].ratio_ci + 0.002 * truth(k) ||
            fabs(hot[k].ratio - truth(k)) > hot[k].ratio_ci + 0.002 * truth(k))
            th_fail("point %d: ratio %.4f +- %.4f cold, %.4f +- %.4f hot, truth %.4f", k,
                    cold[k].ratio, cold[k].ratio_ci, hot[k].ratio, hot[k].ratio_ci, truth(k));
        assert_true(fabs(cold[k].ratio - hot[k].ratio) <= cold[k].ratio_ci + hot[k].ratio_ci);
        /* while the absolute figure moved 10% and more */
        if (!(fabs(hot[k].jpb / cold[k].jpb - 1) > 0.08))
            th_fail("point %d: J/B %.4g at %.1f C, %.4g at %.1f C", k, cold[k].jpb,
                    cold[k].temp_c, hot[k].jpb, hot[k].temp_c);
        /* the absolute figure moved beyond the cold interval, and says at what temperature */
        assert_true(fabs(hot[k].jpb - cold[k].jpb) > cold[k].jpb_ci);
        assert_true(hot[k].temp_c > cold[k].temp_c + 20);
        assert_non_null(strstr(hot[k].blocks, "ratio "));
        assert_non_null(strstr(hot[k].blocks, "; C "));
    }
    /* the copy's own row: ratio 1 by definition, absolute figures with an interval */
    assert_true(cold[0].ratio == 1.0 && cold[0].gbps_per_w_ci > 0);
    th_assert_close(cold[0].gbps, 100.0, 0.5);
}

/* A 430 ms hwmon sensor: every block spans whole updates (at least block_updates after
 * the lead-in) and each figure is given, not withheld; the idle holds enough updates. */
static void test_hwmon_430(void **state)
{
    struct rig r;
    rig_start(&r, AVG430, 0.003);
    struct tb_meter_result out[3];
    measure(&r, 3, out);
    char line[400];
    tb_meter_cadence_line(r.m, line, sizeof(line));
    rig_stop(&r);
    if (!strstr(line, "430 ms (sysfs") || !strstr(line, "energy blocks of 1290 ms"))
        th_fail("cadence line '%s'", line);
    th_assert_close(r.idle_w, IDLE_W, 0.05);
    for (int k = 0; k < 3; k++) {
        assert_true(out[k].updates >= (size_t)out[k].cycles * 3);
        assert_false(isnan(out[k].gbps_per_w));
        assert_false(isnan(out[k].dyn_pj));
        /* within the target: the cycles stopped before the budget, nothing to say */
        if (out[k].note[0])
            th_fail("point %d note '%s'", k, out[k].note);
    }
    assert_true(out[1].ratio_ci / out[1].ratio <= 0.01);
}

/* NVML's energy counter every 100 ms: blocks of power.window_ms, the figure from the
 * counter's difference; the target is reached and the cycles stop there. */
static void test_energy_counter(void **state)
{
    struct rig r;
    rig_start(&r, COUNTER, 0.002);
    int64_t t0 = tb_now_ns();
    struct tb_meter_result out[3];
    measure(&r, 3, out);
    double took = (double)(tb_now_ns() - t0) * 1e-9;
    rig_stop(&r);
    for (int k = 1; k < 3; k++) {
        assert_true(out[k].ratio_ci / out[k].ratio <= 0.01);
        assert_true(fabs(out[k].ratio - truth(k)) <= out[k].ratio_ci);
    }
    assert_true(took < 3 * r.pc.budget_s);   /* stopped by the target, not the budget */
    th_assert_close(out[0].total_w, base_w[0], 0.05 * base_w[0]);
}

/* A Nano's triggered sensor: named in the cadence line, and each block holds three times
 * the clean updates (each reading a moment, not a mean). */
static void test_triggered_nano(void **state)
{
    struct rig r;
    rig_start(&r, TRIGGERED, 0.01);
    r.pc.budget_s = 30;   /* blocks of 9 updates of 450 ms: 3 cycles of 2 points */
    struct tb_meter_result out[2];
    measure(&r, 2, out);
    char line[400];
    tb_meter_cadence_line(r.m, line, sizeof(line));
    rig_stop(&r);
    if (!strstr(line, "triggered"))
        th_fail("cadence line '%s'", line);
    assert_true(out[1].cycles >= 3);
    if (out[1].updates < (size_t)out[1].cycles * 9)
        th_fail("%zu updates in %d cycles: %s", out[1].updates, out[1].cycles, line);
    assert_false(isnan(out[1].ratio));
}

/* A static INA3221 (the reading never changes): the idle gives up from the cadence, not
 * after a minute, and says why; no block can be measured: withheld, said so. */
static void test_static_sensor(void **state)
{
    struct rig r;
    int64_t t0 = tb_now_ns();
    rig_start(&r, STATIC, 0);
    double idle_s = (double)(tb_now_ns() - t0) * 1e-9;
    assert_true(idle_s < 30);
    if (!strstr(r.idle_why, "static sensor"))
        th_fail("idle why '%s'", r.idle_why);
    struct tb_meter_result out[2];
    measure(&r, 2, out);
    rig_stop(&r);
    assert_true(isnan(out[1].ratio) && isnan(out[1].gbps_per_w));
    if (!strstr(out[1].note, "no sensor update") || !strstr(out[1].note, "no power figures"))
        th_fail("note '%s'", out[1].note);
}

/* A mode step mid-size: the GPU clock halves; the blocks after it are dropped and named,
 * the figures rest on the blocks before. */
static void test_mode_step(void **state)
{
    struct rig r;
    rig_start(&r, AVG430, 0.003);
    tb_meter_judge_clock(r.m, true);
    sim.clock_fall_after_s = (double)(tb_now_ns() - sim.t0) * 1e-9 + 15;
    struct tb_meter_result out[3];
    measure(&r, 3, out);
    rig_stop(&r);
    if (!strstr(out[1].note, "GPU clock fell to 700 of 1400 MHz"))
        th_fail("note '%s'", out[1].note);
    assert_false(isnan(out[1].ratio));
    assert_true(fabs(out[1].ratio - truth(1)) <= out[1].ratio_ci + 1e-9 ||
                isnan(out[1].ratio_ci));
}

/* Warming once a night: the first call warms until steady; a mode step's call ends after
 * two blocks when the power no longer moves, and says it warmed again. */
static void test_warming_once(void **state)
{
    struct rig r;
    rig_start(&r, AVG430, 0.0005);
    r.pc.settle_s = 120;
    struct tb_meter_load ld = { sim_load, NULL, NULL };
    char line[400];
    double first = tb_meter_warm(r.m, &ld, 0, "copy", line, sizeof(line));
    if (!strstr(line, ": steady"))
        th_fail("first warming '%s'", line);
    double again = tb_meter_warm(r.m, &ld, 0, "copy", line, sizeof(line));
    rig_stop(&r);
    if (!strstr(line, "again for this step: steady"))
        th_fail("second warming '%s'", line);
    assert_true(again <= 11 && first >= 10);
}

/* A signal in the middle of a cycle: the blocks measured before it give the figures, and
 * every row says the cycles were cut. */
static void test_signal_mid_cycle(void **state)
{
    struct rig r;
    rig_start(&r, AVG430, 0.003);
    sim.stop_after_loads = 400;   /* a few cycles in, inside a block */
    struct tb_meter_result out[3];
    measure(&r, 3, out);
    rig_stop(&r);
    for (int k = 0; k < 3; k++) {
        if (!strstr(out[k].note, "stopped by a signal in cycle"))
            th_fail("point %d note '%s'", k, out[k].note);
        assert_true(out[k].cycles >= 1);
        assert_false(isnan(out[k].gbps_per_w));
    }
}

/* The source dies after some cycles: the figures of the blocks measured before stay, and
 * the note says so without claiming "no power figures". */
static void test_source_lost(void **state)
{
    struct rig r;
    rig_start(&r, DIES, 0.003);
    sim.dies_after_ns = tb_now_ns() - sim.t0 + 12000 * MS;
    struct tb_meter_result out[3];
    measure(&r, 3, out);
    rig_stop(&r);
    if (!strstr(out[1].note, "lost"))
        th_fail("note '%s'", out[1].note);
    if (out[1].cycles > 0)
        assert_null(strstr(out[1].note, "no power figures"));
    else
        assert_non_null(strstr(out[1].note, "no power figures"));
}

/* A night that fits: the Jetson default sweep's energy on an Orin (430 ms INA3221, readings
 * +-1%) with the defaults: two sizes of 20 fastest points each (the copy among them). The
 * blocks take no more than the budget the run announces (12 s a point), and so a mode's
 * night, with the timing of its 83 points at their stopping rule and a warming of at most
 * 120 s, fits 15 minutes. */
static void test_orin_mode_fits(void **state)
{
    struct rig r;
    rig_start(&r, AVG430, 0.01);
    int64_t t0 = tb_now_ns();
    struct tb_meter_result out[20];
    measure(&r, 20, out);
    measure(&r, 20, out);
    double took = (double)(tb_now_ns() - t0) * 1e-9, plan = tb_meter_plan_s(r.m, 40);
    rig_stop(&r);
    if (took > 40 * r.pc.budget_s)
        th_fail("energy took %.0f s, more than its budget %.0f s", took, 40 * r.pc.budget_s);
    double timing = 83 * 0.1 + 2 * 5.0, night = took + timing + 120;
    if (night > 15 * 60)
        th_fail("a mode's night: %.0f s", night);
    for (int k = 0; k < 20; k++) {
        assert_true(out[k].cycles >= 2);
        assert_false(isnan(out[k].gbps_per_w));   /* nothing withheld for noise */
    }
    assert_true(plan >= took);
}

/* Three cycles whose ratios happen to agree give that kernel no interval of its own; the
 * size's other kernel shows how much a cycle moves (the same sensor, the same card): the
 * pooled spread bounds it from below (H200, 2026-11-26: vec16 +-0.0001 in one of three
 * runs whose ratios spread 0.0003). */
static void test_pooled_interval(void **state)
{
    (void)state;
    static struct tb_meter_track tr[3];
    struct tb_power_cfg pc = { .max_rel_ci = 0.03, .target_rel_ci = 0.01 };
    struct tb_meter m = { .pc = &pc, .steady = true };
    double agree[] = { 1.10, 1.10, 1.10 }, moves[] = { 1.20, 1.23, 1.17 };
    for (int k = 0; k < 3; k++) {
        tr[0].jpb[k] = tr[0].around[k] = 1e-10;
        tr[1].ratio[k] = agree[k];
        tr[2].ratio[k] = moves[k];
        tr[1].jpb[k] = tr[2].jpb[k] = 1.1e-10;
        tr[1].around[k] = tr[2].around[k] = 1e-10;
        tr[0].w[k] = tr[1].w[k] = tr[2].w[k] = 500;
    }
    tr[0].n = tr[1].n = tr[2].n = 3;
    tb_meter_pool(&m, tr, 3, 0);
    assert_true(m.pooled_df == 4);   /* 2 a track: three cycles less its own mean */
    struct tb_meter_end end = { 0 };
    struct tb_meter_result agreeing, moving;
    tb_meter_figures(&m, &tr[1], &tr[0], false, NAN, NAN, &end, &agreeing);
    tb_meter_figures(&m, &tr[2], &tr[0], false, NAN, NAN, &end, &moving);
    th_assert_close(agreeing.ratio, 1.10, 1e-12);
    assert_true(agreeing.ratio_ci > 0.01);   /* not the +-0 of its own three cycles */
    /* the moving kernel keeps its own interval, never narrowed by the pool */
    double own, mean;
    own = tb_meter_rel_ci(moves, 3, &mean) * mean;
    assert_true(moving.ratio_ci >= own * (1 - 1e-12));
}

int main(void)
{
    tb_clock_fake(1000000000000LL);
    for (int i = 3; i < NPTS; i++) {
        base_w[i] = 10.0 + 0.1 * i;
        rate_bps[i] = 100e9 / (1 + 0.05 * i);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratio_holds_while_absolute_moves),
        cmocka_unit_test(test_hwmon_430),
        cmocka_unit_test(test_energy_counter),
        cmocka_unit_test(test_triggered_nano),
        cmocka_unit_test(test_static_sensor),
        cmocka_unit_test(test_mode_step),
        cmocka_unit_test(test_warming_once),
        cmocka_unit_test(test_signal_mid_cycle),
        cmocka_unit_test(test_source_lost),
        cmocka_unit_test(test_orin_mode_fits),
        cmocka_unit_test(test_pooled_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
