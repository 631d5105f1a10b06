/* test_stats.c: statistics, the stopping rule, bandwidth arithmetic, and grouping (lib/groups.h:
 * the sizes compare shows). */
#include "helpers.h"

#include <math.h>
#include <string.h>

#include "lib/groups.h"
#include "lib/stats.h"

static void test_stats_odd_even(void **state)
{
    double a[] = { 5, 1, 3, 2, 4 };
    struct tb_stats st;
    tb_stats_compute(a, 5, &st);
    assert_true(st.median == 3 && st.min == 1 && st.max == 5 && st.mean == 3);
    th_assert_close(st.stddev, sqrt(2.5), 1e-12);          /* sample stddev */
    th_assert_close(st.rel_sem, sqrt(2.5) / sqrt(5) / 3, 1e-12);
    double b[] = { 4, 1, 3, 2 };
    tb_stats_compute(b, 4, &st);
    th_assert_close(st.median, 2.5, 1e-12);
    double c[] = { 7 };
    tb_stats_compute(c, 1, &st);
    assert_true(st.median == 7 && st.stddev == 0);
    tb_stats_compute(c, 0, &st);
    assert_true(isnan(st.median) && isnan(st.mean));
}

static void test_running_matches_batch(void **state)
{
    double x[] = { 1.5, 2.25, 0.75, 3.0, 2.0, 1.0 };
    struct tb_running r = { 0 };
    for (int i = 0; i < 6; i++)
        tb_running_add(&r, x[i]);
    struct tb_stats st;
    double copy[6];
    memcpy(copy, x, sizeof(x));
    tb_stats_compute(copy, 6, &st);
    th_assert_close(r.mean, st.mean, 1e-12);
    th_assert_close(tb_running_rel_sem(&r), st.rel_sem, 1e-12);
    th_assert_close(r.sum, 10.5, 1e-12);
}

static void test_stop_rule(void **state)
{
    struct tb_stop_rule rule = { .min_reps = 3, .max_reps = 10, .min_time_ms = 5,
                                 .max_time_ms = 1000, .rel_spread = 0.01 };
    struct tb_running r = { 0 };
    tb_running_add(&r, 2.0);
    tb_running_add(&r, 2.0);
    assert_int_equal(tb_stop_check(&rule, &r, 1), TB_GO_ON);        /* under min_reps */
    tb_running_add(&r, 2.0);
    assert_int_equal(tb_stop_check(&rule, &r, 1), TB_STOP_SPREAD);  /* no spread, 6 ms */
    struct tb_running q = { 0 };
    for (int i = 0; i < 3; i++)
        tb_running_add(&q, 1.0);
    assert_int_equal(tb_stop_check(&rule, &q, 1), TB_GO_ON);        /* 3 ms < min_time */
    struct tb_running noisy = { 0 };
    for (int i = 0; i < 9; i++)
        tb_running_add(&noisy, i % 2 ? 1.0 : 3.0);
    assert_int_equal(tb_stop_check(&rule, &noisy, 1), TB_GO_ON);    /* spread too large */
    tb_running_add(&noisy, 1.0);
    assert_int_equal(tb_stop_check(&rule, &noisy, 1), TB_STOP_MAX_REPS);
    struct tb_running slow = { 0 };
    tb_running_add(&slow, 3.0);
    assert_int_equal(tb_stop_check(&rule, &slow, 1000), TB_STOP_MAX_TIME); /* cap beats minimum */
    assert_string_equal(tb_stop_name(TB_STOP_SPREAD), "spread");
}

static void test_bandwidth(void **state)
{
    /* 8192 x 8192 floats read and written in 0.5 ms: 2 x 256 MiB / 0.5 ms */
    double bytes = 2.0 * 8192 * 8192 * 4;
    th_assert_close(tb_gbps(bytes, 0.5), bytes / 0.5e-3 / 1e9, 1e-9);
    th_assert_close(tb_gbps(1e9, 1000), 1.0, 1e-12);             /* GB = 1e9 bytes */
    assert_true(isnan(tb_gbps(1e9, 0)));
    th_assert_close(tb_ratio(3, 4), 0.75, 1e-12);
    assert_true(isnan(tb_ratio(3, 0)) && isnan(tb_ratio(NAN, 2)));
}

/* Capped: at least one block and half of them or more; a count that cannot be is none. */
/* A noise's sd from its steps: the median magnitude over 0.6745 sqrt 2, one wild step (an
 * odd value, a level change) left out; signs do not matter. */
static void test_sd_of_steps(void **state)
{
    double d[] = { 1, -1, 1, -1, 100 };
    th_assert_close(tb_sd_of_steps(d, 5), 1.0 / (0.6745 * sqrt(2.0)), 1e-12);
    double e[] = { -2, 4 };
    th_assert_close(tb_sd_of_steps(e, 2), 3.0 / (0.6745 * sqrt(2.0)), 1e-12);
    assert_true(isnan(tb_sd_of_steps(e, 0)));
}

/* From the steps' mean square: sqrt(mean d^2 / 2), d left in its order; a wild step (over
 * 4 times the median-based sd of a difference, here 4 / 0.6745 = 5.93) left out, counted
 * out of kept. Degrees of freedom 2 m^2 / (3 m - 1): 1 for one difference, about 2m/3 later. */
static void test_sd_of_steps_rms(void **state)
{
    double d[] = { 1, -1, 1, -1, 100 };
    size_t k;
    th_assert_close(tb_sd_of_steps_rms(d, 5, 0, &k), sqrt(4 / 8.0), 1e-12);
    assert_int_equal(k, 4);
    assert_true(d[4] == 100 && d[1] == -1);
    double e[] = { -2, 4 };
    th_assert_close(tb_sd_of_steps_rms(e, 2, 0, &k), sqrt((4 + 16) / 4.0), 1e-12);
    assert_int_equal(k, 2);
    assert_true(isnan(tb_sd_of_steps_rms(e, 0, 0, NULL)));
    /* a median of 0: three repeats and one step; the step kept, not a spread of 0 */
    double z[] = { 0, 0, 0, 0.002 };
    th_assert_close(tb_sd_of_steps_rms(z, 4, 0, &k), sqrt(0.002 * 0.002 / 8.0), 1e-15);
    assert_int_equal(k, 4);
    th_assert_close(tb_sd_of_steps_rms(z, 4, 0.004, &k), sqrt(0.002 * 0.002 / 8.0), 1e-15);
    assert_int_equal(k, 4);   /* 0.002 is within 4 sqrt 2 x 0.004 = 0.0226 */
    /* repeats around a broken night (a ratio of 9000 among 1.0000s): its two differences
     * are past the cut zero_sd gives, the repeats' spread of 0 is what is left; without a
     * zero_sd nothing is cut and the broken night is the whole spread */
    double b[] = { 0, 0, 9.1, -9.1, 0, 0 };
    assert_true(tb_sd_of_steps_rms(b, 6, 0.004, &k) == 0);
    assert_int_equal(k, 4);
    th_assert_close(tb_sd_of_steps_rms(b, 6, 0, &k), sqrt(2 * 9.1 * 9.1 / 12.0), 1e-12);
    assert_int_equal(k, 6);
    th_assert_close(tb_steps_rms_df(1), 1, 1e-12);
    th_assert_close(tb_steps_rms_df(4), 32.0 / 11.0, 1e-12);
    assert_true(tb_steps_rms_df(0) == 0);
}

/* Student's t at a fractional df: the table at whole degrees; between them linear in 1/df
 * (t(3.36): 3.182 + (2.776 - 3.182) (1/3 - 1/3.36) / (1/3 - 1/4) = 3.008, where the exact
 * quantile is 2.998); t(1) at or below 1 degree and for no number; the normal quantile for
 * infinite degrees. */
static void test_t95_fractional(void **state)
{
    th_assert_close(tb_t95_df(3), 3.182, 1e-12);
    th_assert_close(tb_t95_df(3.36), 3.182 + (2.776 - 3.182) * (1 / 3.0 - 1 / 3.36) / (1 / 3.0 - 1 / 4.0),
                    1e-12);
    th_assert_close(tb_t95_df(3.36), 2.998, 0.015);
    th_assert_close(tb_t95_df(0.4), 12.706, 1e-12);
    th_assert_close(tb_t95_df(NAN), 12.706, 1e-12);
    th_assert_close(tb_t95_df(INFINITY), 1.96, 1e-4);
    assert_true(tb_t95_df(30.5) < tb_t95(30) && tb_t95_df(30.5) > tb_t95(31));
}

static void test_capped_majority(void **state)
{
    assert_true(tb_power_capped_majority(4, 4));
    assert_true(tb_power_capped_majority(2, 4));
    assert_true(tb_power_capped_majority(1, 1));
    assert_false(tb_power_capped_majority(1, 4));
    assert_false(tb_power_capped_majority(0, 4));
    assert_false(tb_power_capped_majority(0, 0));
    assert_false(tb_power_capped_majority(NAN, 4));
    assert_false(tb_power_capped_majority(4, NAN));
    assert_false(tb_power_capped_majority(9, 4));          /* more capped than blocks */
    assert_false(tb_power_capped_majority(1.5, 3));        /* a count is whole */
    assert_false(tb_power_capped_majority(2, 3.5));
    assert_false(tb_power_capped_majority(INFINITY, INFINITY));
}

static double next01(uint64_t *s)   /* a 64-bit LCG's top bits, in [0, 1) */
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Groups as one scan a group made them (the groups in the order of their first item, each
 * group's items in theirs), over seeded keys with few and with many groups, one item, none. */
static void test_groups_in_order_of_first_item(void **state)
{
    uint64_t seed = 3;
    for (int round = 0; round < 40; round++) {
        size_t n = round == 0 ? 0 : round == 1 ? 1 : (size_t)(next01(&seed) * 300);
        int keys[300], span = round % 2 ? 5 : 1000;
        for (size_t i = 0; i < n; i++)
            keys[i] = (int)(next01(&seed) * span) - span / 2;
        size_t *order, *start, ng;
        assert_int_equal(tb_groups(keys, n, sizeof(int), by_int, &order, &start, &ng), 0);
        bool done[300] = { false };
        size_t g = 0, k = 0;
        for (size_t i = 0; i < n; i++) {   /* the reference: one scan a group */
            if (done[i])
                continue;
            assert_true(g < ng);
            assert_int_equal(start[g], k);
            for (size_t j = i; j < n; j++)
                if (!done[j] && keys[j] == keys[i]) {
                    assert_int_equal(order[k++], j);
                    done[j] = true;
                }
            g++;
        }
        assert_int_equal(ng, g);
        assert_int_equal(start[ng], n);
        free(order);
        free(start);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_odd_even),
        cmocka_unit_test(test_running_matches_batch),
        cmocka_unit_test(test_stop_rule),
        cmocka_unit_test(test_bandwidth),
        cmocka_unit_test(test_sd_of_steps),
        cmocka_unit_test(test_sd_of_steps_rms),
        cmocka_unit_test(test_t95_fractional),
        cmocka_unit_test(test_capped_majority),
        cmocka_unit_test(test_groups_in_order_of_first_item),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
