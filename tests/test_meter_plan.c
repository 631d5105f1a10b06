/* test_meter_plan.c: the sensor's timing planned once (#59): the meter's plan takes the
 * sampler's feed (power/feed.h) when it is made, and from then on energy asks the sampler
 * nothing: once its first idle has settled the plan, a size's blocks, the cadence line, the
 * night's plan and a later idle read the plan, and fetch their readings, losses and health
 * through the feed; nor does a night through energy's door, whose log line power_cadence is
 * printed from the plan. The linker routes every call of the sampler that energy could
 * make, and the feed's readings and losses, through counting doubles here (-Wl,--wrap, the
 * Makefile's rule for this program), each passing on to the real one, so the meter under
 * test runs as it does in the tool; the simulated boards are meter_sim.h's, on the fake
 * clock. (scripts/call-seams.txt holds the same seam by the objects' calls.) */
#include "meter_sim.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "energy/door.h"
#include "log/csvlog.h"
#include "power/feed.h"

/* The sampler's calls and the feed's reads, counted (the doubles are the symbols --wrap
 * names). */
static atomic_int n_feed, n_cadence, n_rails, n_device, n_interval, n_source, n_set_cadence,
    n_window, n_failed, n_why, n_health, n_feed_window, n_feed_lost;

#define WRAP(ret, name, counter, params, args)                                             \
    ret __real_##name params;                                                              \
    ret __wrap_##name params;                                                              \
    ret __wrap_##name params                                                               \
    {                                                                                      \
        atomic_fetch_add(&counter, 1);                                                     \
        return __real_##name args;                                                         \
    }
WRAP(struct tb_feed *, tb_sampler_feed, n_feed, (struct tb_sampler *s), (s))
WRAP(const struct tb_power_cadence *, tb_sampler_cadence, n_cadence,
     (const struct tb_sampler *s), (s))
WRAP(const struct tb_power_rails *, tb_sampler_rails, n_rails, (const struct tb_sampler *s),
     (s))
WRAP(const struct tb_power_device *, tb_sampler_device, n_device,
     (const struct tb_sampler *s), (s))
WRAP(int, tb_sampler_interval_ms, n_interval, (const struct tb_sampler *s), (s))
WRAP(const char *, tb_sampler_source, n_source, (const struct tb_sampler *s), (s))
WRAP(struct tb_power_sample *, tb_sampler_window, n_window,
     (struct tb_sampler *s, int64_t t0, int64_t t1, int64_t margin, size_t *n),
     (s, t0, t1, margin, n))
WRAP(bool, tb_sampler_failed, n_failed, (const struct tb_sampler *s), (s))
WRAP(const char *, tb_sampler_why, n_why, (const struct tb_sampler *s), (s))
WRAP(struct tb_power_sample *, tb_feed_window, n_feed_window,
     (struct tb_feed *f, int64_t t0, int64_t t1, int64_t margin, size_t *n),
     (f, t0, t1, margin, n))
WRAP(bool, tb_feed_lost, n_feed_lost, (const struct tb_feed *f), (f))
void __real_tb_sampler_set_cadence(struct tb_sampler *s, const struct tb_power_cadence *c);
void __wrap_tb_sampler_set_cadence(struct tb_sampler *s, const struct tb_power_cadence *c);
void __wrap_tb_sampler_set_cadence(struct tb_sampler *s, const struct tb_power_cadence *c)
{
    atomic_fetch_add(&n_set_cadence, 1);
    __real_tb_sampler_set_cadence(s, c);
}
void __real_tb_sampler_health(struct tb_sampler *s, struct tb_power_health *h);
void __wrap_tb_sampler_health(struct tb_sampler *s, struct tb_power_health *h);
void __wrap_tb_sampler_health(struct tb_sampler *s, struct tb_power_health *h)
{
    atomic_fetch_add(&n_health, 1);
    __real_tb_sampler_health(s, h);
}

static atomic_int *const counters[] = { &n_feed, &n_cadence, &n_rails, &n_device, &n_interval,
                                        &n_source, &n_set_cadence, &n_window, &n_failed,
                                        &n_why, &n_health, &n_feed_window, &n_feed_lost };

static void zero(void)
{
    for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
        atomic_store(counters[i], 0);
}

/* Every call of the sampler counted (the feed's reads are not the sampler's). */
static int sampler_calls(void)
{
    int n = 0;
    for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
        if (counters[i] != &n_feed_window && counters[i] != &n_feed_lost)
            n += atomic_load(counters[i]);
    return n;
}

static void say_calls(const char *when, int kind)
{
    th_fail("sensor kind %d, %s: energy called the sampler %d time(s) (feed %d, cadence %d, "
            "rails %d, device %d, poll %d, source %d, set_cadence %d, window %d, failed %d, "
            "why %d, health %d)", kind, when, sampler_calls(), atomic_load(&n_feed),
            atomic_load(&n_cadence), atomic_load(&n_rails), atomic_load(&n_device),
            atomic_load(&n_interval), atomic_load(&n_source), atomic_load(&n_set_cadence),
            atomic_load(&n_window), atomic_load(&n_failed), atomic_load(&n_why),
            atomic_load(&n_health));
}

/* The doubles count what calls them: the test's own calls are seen, so a meter's would be. */
static void test_doubles_count(void **state)
{
    struct rig r;
    rig_start(&r, AVG430, 0.003);
    zero();
    assert_non_null(tb_sampler_cadence(r.s));
    assert_non_null(tb_sampler_rails(r.s));
    struct tb_power_health h;
    tb_sampler_health(r.s, &h);
    size_t n = 0;
    free(tb_feed_window(tb_sampler_feed(r.s), 0, INT64_MAX / 2, 0, &n));
    assert_true(n > 0);
    assert_int_equal(atomic_load(&n_cadence), 1);
    assert_int_equal(atomic_load(&n_health), 1);
    assert_int_equal(atomic_load(&n_feed_window), 1);
    assert_int_equal(sampler_calls(), 4);
    rig_stop(&r);
}

/* One night on a sensor of the kind given: the meter made and its first idle run (the plan
 * made, taking the sampler's feed: energy's one call of the sampler; then settled from the
 * feed), then everything a night does after it, counted. */
static void night(enum kind kind)
{
    struct rig r;
    zero();
    rig_start(&r, kind, 0.003);
    /* the plan's constructor took the feed, once, and asked the sampler nothing else */
    if (atomic_load(&n_feed) != 1 || sampler_calls() != 1)
        say_calls("making the plan", kind);
    zero();
    struct tb_meter_result out[3];
    measure(&r, 3, out);
    char line[2048];
    tb_meter_cadence_line(r.m, line, sizeof(line));
    double step = tb_meter_plan_size_s(r.m, 3, true);
    assert_true(tb_meter_plan_s(r.m, step, 2) > step);
    double ci;
    tb_meter_idle(r.m, &ci, NULL, 0);   /* a later idle: the plan stays as settled */
    if (sampler_calls() != 0)
        say_calls("after the plan", kind);
    print_message("sensor kind %d: %d spans of readings fetched from the feed, %d loss "
                  "checks, 0 sampler calls\n", kind, atomic_load(&n_feed_window),
                  atomic_load(&n_feed_lost));
    /* it measured, reading the feed's readings and asking it whether the source was lost */
    assert_true(out[1].measured && out[1].power_cycles >= 2);
    assert_true(atomic_load(&n_feed_window) > 0 && atomic_load(&n_feed_lost) > 0);
    rig_stop(&r);
}

/* A night through energy's door, as the runner goes through it: begin (the meter made, its
 * plan with it, the idle settling it), a size, end (the closing idle, and the log's
 * power_cadence line, printed from the plan): after begin, no call of the sampler; the line
 * says the plan's cadence (430 ms, from sysfs) and rail. */
static void test_door_night(void **state)
{
    struct rig r;
    char why[256], *dir = th_tmpdir();
    memset(&r, 0, sizeof(r));
    r.pc = defaults;
    sim_reset(&r, AVG430, 0.003);
    if (tb_sampler_start(&r.s, &fake_ops, &r.pc, 50, 100000, why, sizeof(why)))
        th_fail("sampler: %s", why);
    size_t points = 3;
    bool ref = true;
    struct tb_energy_start st = { .sampler = r.s, .pc = &r.pc, .stop = &r.stop, .quiet = true,
                                  .log_dir = dir, .host = "h", .host_id = "", .board = "sim",
                                  .device_id = "", .size_points = &points, .size_ref = &ref,
                                  .sizes = 1, .steps = 1 };
    struct tb_energy_said said = { .idle_after_w = NAN, .idle_after_ci = NAN };
    struct tb_energy *e = NULL;
    zero();
    tb_energy_begin(&e, &st, &said);
    assert_non_null(e);
    assert_int_equal(atomic_load(&n_feed), 1);
    assert_int_equal(sampler_calls(), 1);
    zero();
    struct tb_meter_load ld = { sim_load, NULL, NULL };
    struct tb_log_rec keys[3];
    memset(keys, 0, sizeof(keys));
    struct tb_meter_result out[3];
    tb_energy_size(e, &ld, 3, 0, keys, 0, out);
    struct tb_csvlog *log = NULL;
    assert_int_equal(tb_csvlog_open(&log, dir, "h", "sim", 1), 0);
    tb_energy_end(e, log, &said);
    assert_int_equal(sampler_calls(), 0);
    assert_true(atomic_load(&n_feed_window) > 0);
    assert_true(out[1].measured && out[1].power_cycles >= 2);
    assert_int_equal(tb_csvlog_close(log, "ok"), 0);
    char *text = th_the_log(dir);
    th_must_have(text, "# power_cadence: 430 ms (sysfs: hwmon update_interval 430 ms");
    th_must_have(text, "rails: VDD_IN; total: VDD_IN");
    free(text);
    tb_energy_free(e);
    tb_sampler_stop(r.s, NULL);
    th_rmtree(dir);
    free(dir);
}

static void test_boxcar_430(void **state) { night(AVG430); }
static void test_averaging_inverted(void **state) { night(EMA); }
static void test_energy_counter(void **state) { night(COUNTER); }
/* the period not given by the source, inferred from the first idle's readings */
static void test_triggered_inferred(void **state) { night(TRIGGERED); }

int main(void)
{
    tb_clock_fake(1000000000000LL);
    for (int i = 3; i < NPTS; i++) {
        base_w[i] = 10.0 + 0.1 * i;
        rate_bps[i] = 100e9 / (1 + 0.05 * i);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doubles_count),
        cmocka_unit_test(test_boxcar_430),
        cmocka_unit_test(test_averaging_inverted),
        cmocka_unit_test(test_energy_counter),
        cmocka_unit_test(test_triggered_inferred),
        cmocka_unit_test(test_door_night),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
