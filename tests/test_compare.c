/* test_compare.c: compare's verdict against a baseline (tb_compare_verdict): a difference is
 * "faster" or "slower" only beyond both 1% and three combined standard errors
 * (3 x sqrt(sem_base^2 + sem_now^2), each relative); otherwise "same". A missing standard
 * error (NAN) counts as none, so the 1% floor alone decides. */
#include "helpers.h"

#include <math.h>
#include <string.h>

#include "compare.h"

static const char *verdict(double base, double now, double sb, double sn)
{
    double delta = NAN;
    const char *v = tb_compare_verdict(base, now, sb, sn, &delta);
    th_assert_close(delta, now / base - 1.0, 1e-12);
    return v;
}

/* No standard error on either side: the 1% floor is the bar. */
static void test_floor_is_one_percent(void **state)
{
    assert_string_equal(verdict(100, 100, NAN, NAN), "same");
    assert_string_equal(verdict(100, 100.9, NAN, NAN), "same");
    assert_string_equal(verdict(100, 99.1, NAN, NAN), "same");
    assert_string_equal(verdict(100, 101.1, NAN, NAN), "faster");
    assert_string_equal(verdict(100, 98.9, NAN, NAN), "slower");
    /* a standard error far below the floor changes nothing */
    assert_string_equal(verdict(100, 101.1, 0.001, 0.001), "faster");
    assert_string_equal(verdict(100, 99.1, 0.001, 0.001), "same");
}

/* Noisy sides: 1% each is a bar of 3 x sqrt(2) x 1% = 4.24%. */
static void test_three_combined_standard_errors(void **state)
{
    assert_string_equal(verdict(100, 104, 0.01, 0.01), "same");
    assert_string_equal(verdict(100, 96, 0.01, 0.01), "same");
    assert_string_equal(verdict(100, 104.5, 0.01, 0.01), "faster");
    assert_string_equal(verdict(100, 95.5, 0.01, 0.01), "slower");
    /* a 6% drop is a real slowdown with quiet sides, noise with 2% on each (8.5%) */
    assert_string_equal(verdict(100, 94, 0.002, 0.002), "slower");
    assert_string_equal(verdict(100, 94, 0.02, 0.02), "same");
}

/* The errors combine in quadrature, and one side's alone counts when the other has none:
 * 0.5% on one side is a 1.5% bar; 0.3% and 0.4% are 3 x 0.5% = 1.5% too. */
static void test_sides_combine_in_quadrature(void **state)
{
    assert_string_equal(verdict(100, 101.3, NAN, 0.005), "same");
    assert_string_equal(verdict(100, 101.7, NAN, 0.005), "faster");
    assert_string_equal(verdict(100, 98.3, 0.005, NAN), "slower");
    assert_string_equal(verdict(100, 101.3, 0.003, 0.004), "same");
    assert_string_equal(verdict(100, 101.7, 0.003, 0.004), "faster");
    /* the sum (0.7% x 3 = 2.1%) would have called 1.7% the same */
    assert_string_equal(verdict(100, 98.3, 0.003, 0.004), "slower");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor_is_one_percent),
        cmocka_unit_test(test_three_combined_standard_errors),
        cmocka_unit_test(test_sides_combine_in_quadrature),
    };
    return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
