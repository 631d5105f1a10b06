/* test_meter_plan.c: the sensor's timing planned once (#59): the meter's plan takes the
 * sampler's feed (power/feed.h) when it is made, and from then on energy asks the sampler
 * nothing: once its first idle has settled the plan, a size's blocks, the cadence line, the
 * night's plan, a mode step and a later idle read the plan, and fetch their readings, losses
 * and health through the feed, whose timing (poll, cadence, device) is not read block by
 * block: only the mode step's device, once; nor does a night through energy's door, whose
 * log line power_cadence is printed from the plan. The linker routes every tb_sampler_* of
 * power.h, and the feed's spans, losses and timing, through counting doubles here
 * (-Wl,--wrap, the Makefile's rule for this program), each passing on to the real one, so
 * the meter under test runs as it does in the tool; the simulated boards are meter_sim.h's,
 * on the fake clock. (scripts/call-seams.txt holds the same seams by the objects' calls.) */
#include "meter_sim.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "energy/door.h"
#include "log/csvlog.h"
#include "power/feed.h"

/* The sampler's calls and the feed's reads, counted (the doubles are the symbols --wrap
 * names: every tb_sampler_* of power.h, and the feed's spans, losses and timing), from the
 * measuring thread only: the sampler thread reads the feed's poll every poll, which is its
 * own business, not energy's. */
static atomic_int n_feed, n_cadence, n_rails, n_device, n_source, n_set_cadence,
    n_window, n_failed, n_why, n_health, n_start, n_stop, n_reidentify, n_reasons,
    n_conditions, n_feed_window, n_feed_lost, n_feed_poll, n_feed_cadence, n_feed_device;
static pthread_t measuring;

static void count(atomic_int *counter)
{
    if (pthread_equal(pthread_self(), measuring))
        atomic_fetch_add(counter, 1);
}

#define WRAP(ret, name, counter, params, args)                                             \
    ret __real_##name params;                                                              \
    ret __wrap_##name params;                                                              \
    ret __wrap_##name params                                                               \
    {                                                                                      \
        count(&counter);                                                                   \
        return __real_##name args;                                                         \
    }
#define WRAP_VOID(name, counter, params, args)                                             \
    void __real_##name params;                                                             \
    void __wrap_##name params;                                                             \
    void __wrap_##name params                                                              \
    {                                                                                      \
        count(&counter);                                                                   \
        __real_##name args;                                                                \
    }
WRAP(struct tb_feed *, tb_sampler_feed, n_feed, (struct tb_sampler *s), (s))
WRAP(const struct tb_power_cadence *, tb_sampler_cadence, n_cadence,
     (const struct tb_sampler *s), (s))
WRAP(const struct tb_power_rails *, tb_sampler_rails, n_rails, (const struct tb_sampler *s),
     (s))
WRAP(const struct tb_power_device *, tb_sampler_device, n_device,
     (const struct tb_sampler *s), (s))
WRAP(const char *, tb_sampler_source, n_source, (const struct tb_sampler *s), (s))
WRAP(struct tb_power_sample *, tb_sampler_window, n_window,
     (struct tb_sampler *s, int64_t t0, int64_t t1, int64_t margin, size_t *n),
     (s, t0, t1, margin, n))
WRAP(bool, tb_sampler_failed, n_failed, (const struct tb_sampler *s), (s))
WRAP(const char *, tb_sampler_why, n_why, (const struct tb_sampler *s), (s))
WRAP(int, tb_sampler_start, n_start,
     (struct tb_sampler **out, const struct tb_power_ops *ops, const struct tb_power_cfg *pc,
      int interval_ms, size_t capacity, char *why, size_t n),
     (out, ops, pc, interval_ms, capacity, why, n))
WRAP(double, tb_sampler_stop, n_stop, (struct tb_sampler *s, uint64_t *n_samples),
     (s, n_samples))
WRAP(int, tb_sampler_clock_reasons, n_reasons, (struct tb_sampler *s, unsigned long long *mask),
     (s, mask))
WRAP(const char *, tb_sampler_conditions, n_conditions,
     (const struct tb_sampler *s, double *max_clock_mhz), (s, max_clock_mhz))
WRAP_VOID(tb_sampler_reidentify, n_reidentify, (struct tb_sampler *s), (s))
WRAP_VOID(tb_sampler_set_cadence, n_set_cadence,
          (struct tb_sampler *s, const struct tb_power_cadence *c), (s, c))
WRAP_VOID(tb_sampler_health, n_health, (struct tb_sampler *s, struct tb_power_health *h),
          (s, h))
WRAP(struct tb_power_sample *, tb_feed_window, n_feed_window,
     (struct tb_feed *f, int64_t t0, int64_t t1, int64_t margin, size_t *n),
     (f, t0, t1, margin, n))
WRAP(bool, tb_feed_lost, n_feed_lost, (const struct tb_feed *f), (f))
WRAP(int, tb_feed_poll_ms, n_feed_poll, (const struct tb_feed *f), (f))
WRAP(const struct tb_power_cadence *, tb_feed_cadence, n_feed_cadence,
     (const struct tb_feed *f), (f))
WRAP(const struct tb_power_device *, tb_feed_device, n_feed_device, (const struct tb_feed *f),
     (f))

/* the sampler's calls first (sampler_calls adds these), then the feed's reads */
static atomic_int *const sampler_counters[] = {
    &n_feed, &n_cadence, &n_rails, &n_device, &n_source, &n_set_cadence,
    &n_window, &n_failed, &n_why, &n_health, &n_start, &n_stop, &n_reidentify, &n_reasons,
    &n_conditions,
};
static atomic_int *const feed_counters[] = { &n_feed_window, &n_feed_lost, &n_feed_poll,
                                             &n_feed_cadence, &n_feed_device };

static void zero(void)
{
    for (size_t i = 0; i < sizeof(sampler_counters) / sizeof(sampler_counters[0]); i++)
        atomic_store(sampler_counters[i], 0);
    for (size_t i = 0; i < sizeof(feed_counters) / sizeof(feed_counters[0]); i++)
        atomic_store(feed_counters[i], 0);
}

/* Every call of the sampler counted (the feed's reads are not the sampler's). */
static int sampler_calls(void)
{
    int n = 0;
    for (size_t i = 0; i < sizeof(sampler_counters) / sizeof(sampler_counters[0]); i++)
        n += atomic_load(sampler_counters[i]);
    return n;
}

static void say_calls(const char *when, int kind)
{
    th_fail("sensor kind %d, %s: the sampler called %d time(s) (feed %d, cadence %d, rails %d, "
            "device %d, source %d, set_cadence %d, window %d, failed %d, why %d, "
            "health %d, start %d, stop %d, reidentify %d, clock_reasons %d, conditions %d); "
            "the feed's timing read: poll %d, cadence %d, device %d", kind, when,
            sampler_calls(), atomic_load(&n_feed), atomic_load(&n_cadence),
            atomic_load(&n_rails), atomic_load(&n_device),
            atomic_load(&n_source), atomic_load(&n_set_cadence), atomic_load(&n_window),
            atomic_load(&n_failed), atomic_load(&n_why), atomic_load(&n_health),
            atomic_load(&n_start), atomic_load(&n_stop), atomic_load(&n_reidentify),
            atomic_load(&n_reasons), atomic_load(&n_conditions), atomic_load(&n_feed_poll),
            atomic_load(&n_feed_cadence), atomic_load(&n_feed_device));
}

/* The doubles count what calls them: the test's own calls are seen, so a meter's would be;
 * the sampler thread's reads of the feed's poll are not (they are not energy's). */
static void test_doubles_count(void **state)
{
    struct rig r;
    zero();
    rig_start(&r, AVG430, 0.003);
    assert_int_equal(atomic_load(&n_start), 1);
    zero();
    assert_non_null(tb_sampler_cadence(r.s));
    assert_non_null(tb_sampler_rails(r.s));
    struct tb_power_health h;
    tb_sampler_health(r.s, &h);
    size_t n = 0;
    struct tb_feed *f = tb_sampler_feed(r.s);
    free(tb_feed_window(f, 0, INT64_MAX / 2, 0, &n));
    assert_true(n > 0);   /* the sampler thread has polled, reading the feed's poll each time */
    assert_int_equal(atomic_load(&n_cadence), 1);
    assert_int_equal(atomic_load(&n_health), 1);
    assert_int_equal(atomic_load(&n_feed_window), 1);
    assert_int_equal(sampler_calls(), 4);
    assert_int_equal(atomic_load(&n_feed_poll), 0);
    assert_true(tb_feed_poll_ms(f) > 0 && tb_feed_cadence(f) && tb_feed_device(f));
    assert_int_equal(atomic_load(&n_feed_poll), 1);
    assert_int_equal(atomic_load(&n_feed_device), 1);
    assert_int_equal(atomic_load(&n_feed_cadence), 2);   /* tb_sampler_cadence's, and this */
    tb_meter_free(r.m);
    tb_sampler_stop(r.s, NULL);
    assert_int_equal(atomic_load(&n_stop), 1);
}

/* One night on a sensor of the kind given: the meter made and its first idle run (the plan
 * made, taking the sampler's feed: energy's one call of the sampler; then settled from the
 * feed), then everything a night does after it, counted: no call of the sampler, and the
 * feed's timing (poll, cadence, device) not read block by block. What the plan may read
 * again, and the night does here: a mode step's device (tb_meter_step, once a step: the
 * limit the run asked the source for again); a later idle would read the poll again only
 * while the plan is not settled (tb_energy_plan_learn), and every kind here settles at the
 * first idle, so it reads nothing. */
static void night(enum kind kind)
{
    struct rig r;
    zero();
    rig_start(&r, kind, 0.003);
    /* the test's own start; the plan's constructor took the feed, once, and asked the
     * sampler nothing else */
    if (atomic_load(&n_start) != 1 || atomic_load(&n_feed) != 1 || sampler_calls() != 2)
        say_calls("making the plan", kind);
    assert_true(tb_meter_plan(r.m)->settled);
    zero();
    struct tb_meter_result out[3];
    measure(&r, 3, out);
    char line[2048];
    tb_meter_cadence_line(r.m, line, sizeof(line));
    double step = tb_meter_plan_size_s(r.m, 3, true);
    assert_true(tb_meter_plan_s(r.m, step, 2) > step);
    tb_meter_step(r.m);   /* a mode step: its limit planned */
    double ci;
    tb_meter_idle(r.m, &ci, NULL, 0);   /* a later idle: the plan stays as settled */
    measure(&r, 3, out);
    if (sampler_calls() != 0 || atomic_load(&n_feed_poll) != 0 ||
        atomic_load(&n_feed_cadence) != 0 || atomic_load(&n_feed_device) != 1)
        say_calls("after the plan (the feed's device once, at the step; no other timing)", kind);
    print_message("sensor kind %d: %d spans of readings fetched from the feed, %d loss "
                  "checks, 0 sampler calls, the feed's timing read once (the step's "
                  "device)\n", kind, atomic_load(&n_feed_window), atomic_load(&n_feed_lost));
    /* it measured, reading the feed's readings and asking it whether the source was lost:
     * the spans are the blocks, many more than the one timing read */
    assert_true(out[1].measured && out[1].power_cycles >= 2);
    assert_true(atomic_load(&n_feed_window) > 4 && atomic_load(&n_feed_lost) > 0);
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
    /* one step, settled at begin: the feed's timing not read again */
    assert_int_equal(atomic_load(&n_feed_poll), 0);
    assert_int_equal(atomic_load(&n_feed_cadence), 0);
    assert_int_equal(atomic_load(&n_feed_device), 0);
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
    measuring = pthread_self();
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
