/* test_power_rounds.c: a point's power from its rounds (src/power/rounds.c): the rounds'
 * spread against the windows' own interval, time weighting, rounds without a reading,
 * withholding past power.max_rel_ci. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "power/power.h"
#include "lib/stats.h"

/* A round of secs seconds at w watts whose own interval is rel of w, moving gbps GB/s. */
static struct tb_power_round round_of(double secs, double w, double rel, double gbps)
{
    struct tb_power_round r;
    memset(&r, 0, sizeof(r));
    r.secs = secs;
    r.bytes = gbps * 1e9 * secs;
    r.f.total_w = w;
    r.f.total_w_ci = rel * w;
    r.f.gpu_w = w / 2;
    r.f.energy_j = w * secs;
    r.f.energy_counter_j = NAN;
    r.f.samples = 50;
    r.f.updates = 12;
    r.f.gpu_temp_c = r.f.gpu_clock_mhz = r.f.emc_clock_mhz = NAN;
    return r;
}

static struct tb_power_cfg cfg(double max_rel)
{
    struct tb_power_cfg pc;
    memset(&pc, 0, sizeof(pc));
    pc.max_rel_ci = max_rel;
    pc.rounds = 3;
    return pc;
}

/* The GB/s per W interval of n rounds computed here the long way (not by rounds.c). */
static double spread_rel(const struct tb_power_round *r, int n)
{
    double g[16], sum = 0, ss = 0;
    for (int k = 0; k < n; k++)
        sum += g[k] = r[k].bytes / r[k].secs / r[k].f.total_w;
    double mean = sum / n;
    for (int k = 0; k < n; k++)
        ss += (g[k] - mean) * (g[k] - mean);
    return tb_t95((size_t)n - 1) * sqrt(ss / (n - 1)) / sqrt((double)n) / mean;
}

static void test_spread_wider_than_the_windows(void **state)
{
    (void)state;
    struct tb_power_round r[3] = { round_of(1.2, 510, 0.002, 2900),
                                   round_of(1.2, 511.5, 0.002, 2900),
                                   round_of(1.2, 513, 0.002, 2900) };
    struct tb_power_cfg pc = cfg(0.03);
    struct tb_power_point pp;
    tb_power_rounds(r, 3, &pc, &pp);
    assert_false(pp.withheld);
    assert_int_equal(pp.rounds, 3);
    th_assert_close(pp.total_w, 511.5, 1e-9);
    double want = spread_rel(r, 3);
    assert_true(want > 0.002);   /* the rounds disagree more than each window says */
    th_assert_close(pp.gbps_per_w_rel, want, 1e-9);
    assert_true(pp.total_w_ci / pp.total_w > 0.002);
    assert_int_equal(pp.updates, 36);
    assert_int_equal(pp.samples, 150);
    th_assert_close(pp.secs, 3.6, 1e-12);
    th_assert_close(pp.energy_j, (510 + 511.5 + 513) * 1.2, 1e-9);
    assert_true(isnan(pp.energy_counter_j));   /* no round had a counter */
}

static void test_windows_wider_than_the_spread(void **state)
{
    (void)state;
    /* identical rounds: no spread; the windows' own intervals combine as independent */
    struct tb_power_round r[2] = { round_of(2, 400, 0.01, 100), round_of(2, 400, 0.01, 100) };
    struct tb_power_cfg pc = cfg(0.03);
    struct tb_power_point pp;
    tb_power_rounds(r, 2, &pc, &pp);
    assert_false(pp.withheld);
    th_assert_close(pp.gbps_per_w_rel, 0.01 / sqrt(2), 1e-12);
    th_assert_close(pp.total_w_ci, 4 / sqrt(2), 1e-9);
}

static void test_time_weighted(void **state)
{
    (void)state;
    struct tb_power_round r[2] = { round_of(1, 500, 0.001, 100), round_of(3, 600, 0.001, 100) };
    struct tb_power_cfg pc = cfg(10);
    struct tb_power_point pp;
    tb_power_rounds(r, 2, &pc, &pp);
    th_assert_close(pp.total_w, 575, 1e-9);
    th_assert_close(pp.gpu_w, 287.5, 1e-9);
    th_assert_close(pp.bytes, 400e9, 1);
}

static void test_wide_spread_withheld(void **state)
{
    (void)state;
    struct tb_power_round r[3] = { round_of(1.2, 500, 0.002, 2900),
                                   round_of(1.2, 510, 0.002, 2900),
                                   round_of(1.2, 520, 0.002, 2900) };
    struct tb_power_cfg pc = cfg(0.03);
    struct tb_power_point pp;
    tb_power_rounds(r, 3, &pc, &pp);
    assert_true(spread_rel(r, 3) > 0.03);
    assert_true(pp.withheld);
    assert_true(isnan(pp.total_w) && isnan(pp.total_w_ci) && isnan(pp.gbps_per_w_rel));
    assert_non_null(strstr(pp.why, "3 rounds"));
    assert_non_null(strstr(pp.why, "the rounds' spread"));
    assert_non_null(strstr(pp.why, "power.max_rel_ci 3.0%"));
    /* the same rounds under a looser rule give a figure */
    pc.max_rel_ci = 0.1;
    tb_power_rounds(r, 3, &pc, &pp);
    assert_false(pp.withheld);
    th_assert_close(pp.gbps_per_w_rel, spread_rel(r, 3), 1e-9);
}

static void test_rounds_without_readings(void **state)
{
    (void)state;
    struct tb_power_round r[3] = { round_of(1, 300, 0.005, 50), round_of(1, 300, 0.005, 50),
                                   round_of(1, 300, 0.005, 50) };
    r[1].f.total_w = r[1].f.total_w_ci = NAN;   /* withheld by window.c: 1 update */
    snprintf(r[1].f.why, sizeof(r[1].f.why), "1 sensor update in 1.0 s: no interval");
    struct tb_power_cfg pc = cfg(0.03);
    struct tb_power_point pp;
    tb_power_rounds(r, 3, &pc, &pp);
    assert_false(pp.withheld);
    assert_int_equal(pp.rounds, 2);
    th_assert_close(pp.secs, 2, 1e-12);
    /* none with a reading: withheld with the window's reason */
    r[0].f.total_w = r[2].f.total_w = NAN;
    snprintf(r[2].f.why, sizeof(r[2].f.why), "no reading after the window's end");
    tb_power_rounds(r, 3, &pc, &pp);
    assert_true(pp.withheld);
    assert_int_equal(pp.rounds, 0);
    assert_string_equal(pp.why, "no reading after the window's end");
}

static void test_one_round_is_the_window(void **state)
{
    (void)state;
    struct tb_power_round r = round_of(4.7, 7.5, 0.04, 60);
    struct tb_power_cfg pc = cfg(0.03);
    struct tb_power_point pp;
    tb_power_rounds(&r, 1, &pc, &pp);
    assert_true(pp.withheld);
    assert_non_null(strstr(pp.why, "12 sensor updates in 4.7 s: +-4.0%"));
    pc.max_rel_ci = 0.05;
    tb_power_rounds(&r, 1, &pc, &pp);
    assert_false(pp.withheld);
    th_assert_close(pp.gbps_per_w_rel, 0.04, 1e-12);
    th_assert_close(pp.total_w_ci, 0.3, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spread_wider_than_the_windows),
        cmocka_unit_test(test_windows_wider_than_the_spread),
        cmocka_unit_test(test_time_weighted),
        cmocka_unit_test(test_wide_spread_withheld),
        cmocka_unit_test(test_rounds_without_readings),
        cmocka_unit_test(test_one_round_is_the_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
