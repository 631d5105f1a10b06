/* test_feed.c: the sampler's readings apart from its thread (src/power/feed.c, #59), driven
 * here as the sampler thread drives it, on the fake clock: the ring keeps the newest
 * readings in time order and a span's copy holds exactly those within its margin; a loss
 * keeps its first why; drops and silences are counted, the first silence told; the quiet
 * time is measured from the last reading; the poll, the cadence and the device read back as
 * last set; the quiet time of a sampler whose source was slow to open runs from before the
 * open. The thread itself, over a scripted source: test_power_window.c. */
#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "power/feed.h"

#define MS 1000000LL

static struct tb_feed *feed4(void)
{
    struct tb_power_rails rails = { .n = 2, .name = { "VDD_IN", "VDD_GPU" } };
    struct tb_feed *f = tb_feed_new(4, &rails, "script", 50, tb_now_ns());
    assert_non_null(f);
    return f;
}

static void put_at(struct tb_feed *f, int64_t t_ns, float mw)
{
    struct tb_power_sample s;
    tb_power_sample_clear(&s);
    s.t_ns = t_ns;
    s.rail_mw[0] = mw;
    tb_feed_put(f, &s, t_ns);
}

/* A full ring overwrites its oldest; a span's copy is the readings within it, in order. */
static void test_ring_and_spans(void **state)
{
    struct tb_feed *f = feed4();
    int64_t t0 = tb_now_ns();
    for (int k = 1; k <= 6; k++)
        put_at(f, t0 + k * 10 * MS, (float)k);
    assert_int_equal(tb_feed_total(f), 6);
    size_t n = 0;
    struct tb_power_sample *w = tb_feed_window(f, t0, t0 + 100 * MS, 0, &n);
    assert_int_equal(n, 4);   /* 1 and 2 overwritten */
    for (size_t i = 0; i < n; i++)
        assert_true(w[i].rail_mw[0] == (float)(i + 3));
    free(w);
    w = tb_feed_window(f, t0 + 40 * MS, t0 + 50 * MS, 0, &n);
    assert_int_equal(n, 2);
    assert_true(w[0].rail_mw[0] == 4.0f && w[1].rail_mw[0] == 5.0f);
    free(w);
    w = tb_feed_window(f, t0 + 40 * MS, t0 + 50 * MS, 10 * MS, &n);
    assert_int_equal(n, 4);   /* 3 to 6: the margin reaches one period each side */
    free(w);
    w = tb_feed_window(f, t0 + 200 * MS, t0 + 300 * MS, 0, &n);
    assert_null(w);
    assert_int_equal(n, 0);
    tb_feed_free(f);
}

/* The source lost: said once, its first why kept. */
static void test_lost_keeps_first_why(void **state)
{
    struct tb_feed *f = feed4();
    assert_false(tb_feed_lost(f));
    assert_string_equal(tb_feed_lost_why(f), "");
    tb_feed_lose(f, "NVML abandoned at its deadline");
    tb_feed_lose(f, "a later word");
    assert_true(tb_feed_lost(f));
    assert_string_equal(tb_feed_lost_why(f), "NVML abandoned at its deadline");
    tb_feed_free(f);
}

/* Drops and silences counted (the first silence told, no later one), the quiet time since
 * the last reading, the poll as last set. */
static void test_health(void **state)
{
    struct tb_feed *f = feed4();
    struct tb_power_health h;
    tb_feed_drop(f);
    tb_feed_drop(f);
    assert_true(tb_feed_silence(f));
    assert_false(tb_feed_silence(f));
    put_at(f, tb_now_ns(), 1.0f);
    tb_sleep_ns(300 * MS);
    tb_feed_set_poll_ms(f, 110);
    tb_feed_health(f, &h);
    assert_int_equal(h.dropped, 2);
    assert_int_equal(h.silences, 2);
    th_assert_close(h.quiet_ms, 300, 1e-6);
    assert_int_equal(h.poll_ms, 110);
    assert_int_equal(tb_feed_poll_ms(f), 110);
    tb_feed_free(f);
}

/* What the feed says of the source: as made (period and limit not known), then as set. */
static void test_facts(void **state)
{
    struct tb_feed *f = feed4();
    assert_string_equal(tb_feed_source(f), "script");
    assert_int_equal(tb_feed_rails(f)->n, 2);
    assert_string_equal(tb_feed_rails(f)->name[1], "VDD_GPU");
    assert_true(isnan(tb_feed_cadence(f)->period_ms));
    assert_true(isnan(tb_feed_device(f)->limit_w));
    struct tb_power_cadence c = *tb_feed_cadence(f);
    c.period_ms = 430;
    snprintf(c.how, sizeof(c.how), "inferred");
    tb_feed_set_cadence(f, &c);
    struct tb_power_device d = { .id = "GPU-1", .limit_w = 15 };
    tb_feed_set_device(f, &d);
    th_assert_close(tb_feed_cadence(f)->period_ms, 430, 0);
    assert_string_equal(tb_feed_cadence(f)->how, "inferred");
    assert_string_equal(tb_feed_device(f)->id, "GPU-1");
    th_assert_close(tb_feed_device(f)->limit_w, 15, 0);
    tb_feed_free(f);
}

/* A source slow to open and silent after: 600 ms of its open spent on the fake clock, then
 * nothing. The quiet time runs from before the open, as it did before the feed (#59: the
 * sampler made the feed after the open, and its first "last heard" hid the open's time). */
static int slow_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                     char *why, size_t n)
{
    rails->n = 1;
    snprintf(rails->name[0], sizeof(rails->name[0]), "VDD_IN");
    tb_sleep_ns(600 * MS);
    return 0;
}
static int never_sample(void *st, struct tb_power_sample *smp, char *why, size_t n)
{
    return -EAGAIN;
}
static void no_close(void *st) {}
static const struct tb_power_ops slow_ops = {
    .name = "slow-open", .help = "opens in 600 ms, then says nothing",
    .open = slow_open, .sample = never_sample, .close = no_close,
};

static void test_quiet_from_before_open(void **state)
{
    struct tb_power_cfg pc;
    memset(&pc, 0, sizeof(pc));
    struct tb_sampler *s = NULL;
    char why[256];
    int64_t t0 = tb_now_ns();
    if (tb_sampler_start(&s, &slow_ops, &pc, 50, 16, why, sizeof(why)))
        th_fail("sampler: %s", why);
    struct tb_power_health h;
    tb_feed_health(tb_sampler_feed(s), &h);
    /* the clock moved by the open's 600 ms at least, and never back */
    double since_start_ms = (double)(tb_now_ns() - t0) / 1e6;
    assert_true(since_start_ms >= 600);
    if (h.quiet_ms < 600 || h.quiet_ms > since_start_ms)
        th_fail("quiet %.1f ms, %.1f ms since before the open: the silence must run from "
                "before it", h.quiet_ms, since_start_ms);
    tb_sampler_stop(s, NULL);
}

int main(void)
{
    tb_clock_fake(1000000000000LL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_and_spans),
        cmocka_unit_test(test_lost_keeps_first_why),
        cmocka_unit_test(test_health),
        cmocka_unit_test(test_facts),
        cmocka_unit_test(test_quiet_from_before_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
