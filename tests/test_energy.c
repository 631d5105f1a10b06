/* test_energy.c: energy integration against series with known integrals, and edges. */
#include "helpers.h"

#include <math.h>

#include "energy/energy.h"

#define MS 1000000LL

static void test_constant_power(void **state)
{
    int64_t t[] = { 0, 100 * MS, 200 * MS, 300 * MS, 400 * MS };
    double p[] = { 5000, 5000, 5000, 5000, 5000 };
    size_t inside;
    /* 5 W for 0.25 s = 1.25 J = 1250 mJ, window edges between samples */
    th_assert_close(tb_energy_mj(t, p, 5, 50 * MS, 300 * MS, &inside), 1250, 1e-9);
    assert_int_equal(inside, 2); /* samples at 100 and 200 ms; 300 is the edge itself */
}

static void test_linear_ramp(void **state)
{
    /* p(t) = 1000 + 10 t mW (t in ms): integral over [a, b] is exact for the trapezoid */
    int64_t t[11];
    double p[11];
    for (int i = 0; i <= 10; i++) {
        t[i] = i * 100 * MS;
        p[i] = 1000 + 10.0 * i * 100;
    }
    double a = 150, b = 870; /* ms */
    double want = (1000 * (b - a) + 5 * (b * b - a * a)) * 1e-3; /* mW*ms -> mJ */
    th_assert_close(tb_energy_mj(t, p, 11, (int64_t)(a * MS), (int64_t)(b * MS), NULL), want,
                       1e-6);
}

static void test_step_between_samples(void **state)
{
    /* 2 W then 6 W: linear interpolation between the two samples at the edges */
    int64_t t[] = { 0, 1000 * MS };
    double p[] = { 2000, 6000 };
    /* window [250, 750] ms: p goes 3000 -> 5000, mean 4000 mW over 0.5 s = 2000 mJ */
    th_assert_close(tb_energy_mj(t, p, 2, 250 * MS, 750 * MS, NULL), 2000, 1e-9);
}

/* A first-order average's readings after a step from 10 to 15 W (r = 15 - 5 e^(-t/tau),
 * tau 430 ms), polled every 50 ms: the plain integral over [0.1, 1.3] s reads the lag
 * (about 9% short), the inverted one the 15 W that was fed, to the trapezoid's error. */
static void test_inverted_average(void **state)
{
    int64_t t[40];
    double r[40], tau = 0.430;
    for (int i = 0; i < 40; i++) {
        t[i] = (int64_t)i * 50000000;
        r[i] = 15000 - 5000 * exp(-(double)i * 0.05 / tau);
    }
    int64_t a = 100000000, b = 1300000000;
    double plain = tb_energy_mj(t, r, 40, a, b, NULL);
    double inv = tb_energy_inverted_mj(t, r, 40, a, b, 430, NULL);
    assert_true(plain < 0.95 * 15000 * 1.2);
    th_assert_close(inv, 15000 * 1.2, 15000 * 1.2 * 2e-4);
    /* no time constant: the plain integral */
    th_assert_close(tb_energy_inverted_mj(t, r, 40, a, b, 0, NULL), plain, 1e-9);
}

static void test_outside_and_degenerate(void **state)
{
    int64_t t[] = { 100 * MS, 200 * MS };
    double p[] = { 1000, 3000 };
    /* before the first sample the power is held at its value */
    th_assert_close(tb_energy_mj(t, p, 2, 0, 50 * MS, NULL), 50, 1e-9);
    /* after the last one as well */
    th_assert_close(tb_energy_mj(t, p, 2, 300 * MS, 400 * MS, NULL), 300, 1e-9);
    assert_true(isnan(tb_energy_mj(t, p, 0, 0, 10, NULL)));
    assert_true(isnan(tb_energy_mj(t, p, 2, 10, 10, NULL)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant_power),
        cmocka_unit_test(test_linear_ramp),
        cmocka_unit_test(test_step_between_samples),
        cmocka_unit_test(test_inverted_average),
        cmocka_unit_test(test_outside_and_degenerate),
    };
    return cmocka_run_group_tests_name("energy", tests, NULL, NULL);
}
