/* test_stepfit.c: the step-response fit against readings made by a sensor that follows the
 * INA3221 datasheet's averaging (tests/step_sensor.h), with noise: the time constant, the
 * window, the refresh period, the model told apart; bad input; the stored file. */
#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "energy/stepfit.h"
#include "step_sensor.h"

/* idle 1.5 s, load 1.5 s, idle, load, idle: the probe's shape; polled every 5 ms + jitter */
static const double EDGES[] = { 1500, 3000, 4500, 6000 };
#define NE 4
#define NPOLL 1490
static double T[1800], W[1800];
/* three seeds a case; one in the quick form (TB_TEST_QUICK: under valgrind, 274 s for three) */
#define SEEDS (th_quick() ? 1u : 3u)

static void poll(enum ss_kind kind, int avg_n, double noise_rel, double delay_ms, uint64_t seed)
{
    struct step_sensor s = { kind, 0.84, avg_n, 4.2, 11.7, noise_rel, delay_ms, seed,
                             0, 0, NULL, 0, 0, 0 };
    ss_poll(&s, EDGES, NE, 5.0, 1.5, NPOLL, T, W);
}

static struct tb_stepfit fit_ok(void)
{
    struct tb_stepfit f;
    char why[256] = "";
    int rc = tb_stepfit(T, W, NPOLL, EDGES, NE, &f, why, sizeof why);
    if (rc != 0)
        th_fail("tb_stepfit: %d: %s", rc, why);
    return f;
}

/* The datasheet's average with N = 512 (430 ms, Xavier's and Orin's update_interval) and
 * N = 256, 3% noise on every conversion and three seeds: exponential, tau within 5%. */
static void test_ema_recovered(void **state)
{
    int ns[] = { 512, 256 };
    for (int i = 0; i < 2; i++) {
        for (uint64_t seed = 1; seed <= SEEDS; seed++) {
            poll(SS_EMA, ns[i], 0.03, 0, seed * 7919);
            struct tb_stepfit f = fit_ok();
            double tau = 0.84 * ns[i];
            assert_string_equal(f.model, "ema");
            th_assert_close(f.tau_ms, tau, 0.05 * tau);
            assert_true(f.refresh_ms == 0);       /* a register that moves every 0.84 ms */
            assert_true(f.rms_boxcar_w > 1.5 * f.rms_ema_w);
            assert_true(f.delay_ms < 10);
        }
    }
}

/* Heavy noise: 20% per conversion (about 0.6% per reading after the average, correlated
 * from reading to reading), three seeds. */
static void test_ema_noisy(void **state)
{
    for (uint64_t seed = 11; seed <= 10 + SEEDS; seed++) {
        poll(SS_EMA, 512, 0.20, 0, seed);
        struct tb_stepfit f = fit_ok();
        assert_string_equal(f.model, "ema");
        th_assert_close(f.tau_ms, 430, 0.05 * 430);
    }
}

/* A dead time of 60 ms before the rail moves is the delay, not a longer tau. */
static void test_ema_delay(void **state)
{
    poll(SS_EMA, 256, 0.03, 60, 99);
    struct tb_stepfit f = fit_ok();
    assert_string_equal(f.model, "ema");
    th_assert_close(f.tau_ms, 215, 0.05 * 215);
    th_assert_close(f.delay_ms, 60, 6);
}

/* The mean of 512 conversions written once per block: a staircase every 430 ms. */
static void test_block_mean_staircase(void **state)
{
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        poll(SS_BLOCK_MEAN, 512, 0.03, 0, seed * 104729);
        struct tb_stepfit f = fit_ok();
        assert_string_equal(f.model, "boxcar");
        th_assert_close(f.tau_ms, 430, 0.05 * 430);
        th_assert_close(f.refresh_ms, 430, 0.02 * 430);
        assert_true(f.rms_ema_w > 1.5 * f.rms_boxcar_w);
    }
}

/* A 215 ms block mean with 10% noise, its edges laid out as probe-power lays them (the
 * middle idle 1.37 spans long): the window within 5% (with four edges at one phase of the
 * refresh it came out up to 19.5% off: doc/power.md). */
static void test_block_mean_probe_layout(void **state)
{
    static const double e[] = { 1500, 3000, 5055, 6555 };
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct step_sensor s = { SS_BLOCK_MEAN, 0.84, 256, 4.2, 11.7, 0.10, 0,
                                 seed * 2654435761u, 0, 0, NULL, 0, 0, 0 };
        ss_poll(&s, e, 4, 5.0, 1.5, 1790, T, W);
        struct tb_stepfit f;
        char why[256];
        assert_int_equal(tb_stepfit(T, W, 1790, e, 4, &f, why, sizeof why), 0);
        assert_string_equal(f.model, "boxcar");
        th_assert_close(f.tau_ms, 215, 0.05 * 215);
        th_assert_close(f.refresh_ms, 215, 0.02 * 215);
    }
}

/* A moving mean of the last 512 conversions, moving every conversion. */
static void test_moving_mean(void **state)
{
    poll(SS_MOVING_MEAN, 512, 0.03, 0, 4242);
    struct tb_stepfit f = fit_ok();
    assert_string_equal(f.model, "boxcar");
    th_assert_close(f.tau_ms, 430, 0.05 * 430);
    assert_true(f.refresh_ms == 0);
}

/* No averaging (N = 1, as the R32 IIO driver's triggered mode): a point sensor. */
static void test_point(void **state)
{
    poll(SS_EMA, 1, 0.03, 0, 77);
    struct tb_stepfit f = fit_ok();
    assert_string_equal(f.model, "point");
    assert_true(f.tau_ms == 0);
}

/* A point sensor without noise moves only at the edges: that is no refresh period. */
static void test_point_quiet(void **state)
{
    poll(SS_EMA, 1, 0, 0, 78);
    assert_true(tb_stepfit_refresh(T, W, NPOLL) == 0);
    struct tb_stepfit f = fit_ok();
    assert_string_equal(f.model, "point");
    assert_true(f.refresh_ms == 0);
}

/* Forcing the other model gives a clearly worse fit on either sensor: the choice is not a
 * coin toss, and a fit that let either model pass would fail here. */
static void test_wrong_model_forced(void **state)
{
    double len, d, rms_right, rms_wrong;
    char why[256];
    poll(SS_EMA, 512, 0.03, 0, 5);
    assert_int_equal(tb_stepfit_model(T, W, NPOLL, EDGES, NE, "ema", 0, &len, &d, &rms_right,
                                      why, sizeof why), 0);
    th_assert_close(len, 430, 0.05 * 430);
    assert_int_equal(tb_stepfit_model(T, W, NPOLL, EDGES, NE, "boxcar", 0, &len, &d,
                                      &rms_wrong, why, sizeof why), 0);
    assert_true(rms_wrong > 2 * rms_right);

    poll(SS_BLOCK_MEAN, 512, 0.03, 0, 5);
    double r = tb_stepfit_refresh(T, W, NPOLL);
    assert_int_equal(tb_stepfit_model(T, W, NPOLL, EDGES, NE, "boxcar", r, &len, &d,
                                      &rms_right, why, sizeof why), 0);
    assert_int_equal(tb_stepfit_model(T, W, NPOLL, EDGES, NE, "ema", r, &len, &d, &rms_wrong,
                                      why, sizeof why), 0);
    assert_true(rms_wrong > 2 * rms_right);
    assert_int_equal(tb_stepfit_model(T, W, NPOLL, EDGES, NE, "linear", 0, &len, &d, &rms_wrong,
                                      why, sizeof why), -EINVAL);
    th_must_have(why, "'linear'");
}

static void test_bad_input(void **state)
{
    struct tb_stepfit f;
    char why[256];
    poll(SS_EMA, 512, 0.03, 0, 1);
    assert_int_equal(tb_stepfit(T, W, 10, EDGES, NE, &f, why, sizeof why), -EINVAL);
    th_must_have(why, "at least 20");
    assert_int_equal(tb_stepfit(T, W, NPOLL, EDGES, 1, &f, why, sizeof why), -EINVAL);
    th_must_have(why, "1 edges");
    double back[] = { 1500, 1400 };
    assert_int_equal(tb_stepfit(T, W, NPOLL, back, 2, &f, why, sizeof why), -EINVAL);
    th_must_have(why, "edge 1");
    double late[] = { 1e6, 2e6 };
    assert_int_equal(tb_stepfit(T, W, NPOLL, late, 2, &f, why, sizeof why), -EINVAL);
    th_must_have(why, "after the last reading");
    double keep = T[100];
    T[100] = T[99];
    assert_int_equal(tb_stepfit(T, W, NPOLL, EDGES, NE, &f, why, sizeof why), -EINVAL);
    th_must_have(why, "reading 100");
    T[100] = keep;
    W[7] = NAN;
    assert_int_equal(tb_stepfit(T, W, NPOLL, EDGES, NE, &f, why, sizeof why), -EINVAL);
    th_must_have(why, "reading 7");
    /* a load that does not move the rail: no step to fit */
    struct step_sensor s = { SS_EMA, 0.84, 512, 4.2, 4.2, 0.3, 0, 3, 0, 0, NULL, 0, 0, 0 };
    ss_poll(&s, EDGES, NE, 5.0, 1.5, NPOLL, T, W);
    assert_int_equal(tb_stepfit(T, W, NPOLL, EDGES, NE, &f, why, sizeof why), -ERANGE);
    th_must_have(why, "no step");
    /* a reading that never moves (a sensor that is not read): no step either */
    for (size_t i = 0; i < NPOLL; i++)
        W[i] = 4.582;
    assert_int_equal(tb_stepfit(T, W, NPOLL, EDGES, NE, &f, why, sizeof why), -ERANGE);
}

static void test_file_round_trip(void **state)
{
    struct tb_stepfit f = { "ema", 431.25, 2.5, 0, 0.0123, 0.0456 }, g;
    char buf[1024], why[512];
    assert_true(tb_stepfit_format(&f, "jetson-orin\n\"x", "R35.4.1", buf, sizeof buf) > 0);
    th_must_have(buf, "board = \"jetson-orin__x\";");
    assert_int_equal(tb_stepfit_format(&f, "b", "l", buf, 40), -ENOSPC);
    assert_true(tb_stepfit_format(&f, "orin", "R35.4.1", buf, sizeof buf) > 0);
    char *dir = th_tmpdir();
    char *path = th_write(dir, "probe.cfg", buf);
    assert_int_equal(tb_stepfit_load(path, &g, why, sizeof why), 0);
    assert_string_equal(g.model, "ema");
    th_assert_close(g.tau_ms, 431.25, 1e-9);
    th_assert_close(g.delay_ms, 2.5, 1e-9);
    th_assert_close(g.rms_boxcar_w, 0.0456, 1e-9);

    free(path);
    path = th_write(dir, "bad.cfg", "model = \"ema\";\ntau_ms = -3;\n");
    assert_int_equal(tb_stepfit_load(path, &g, why, sizeof why), -EINVAL);
    th_must_have(why, "bad.cfg:2: tau_ms");
    free(path);
    path = th_write(dir, "bad2.cfg", "# x\nmodel = \"sine\";\n");
    assert_int_equal(tb_stepfit_load(path, &g, why, sizeof why), -EINVAL);
    th_must_have(why, "bad2.cfg:2: model");
    free(path);
    path = th_write(dir, "bad3.cfg", "model = \"ema\";\ntau = 3;\n");
    assert_int_equal(tb_stepfit_load(path, &g, why, sizeof why), -EINVAL);
    th_must_have(why, "unknown setting 'tau'");
    free(path);
    path = th_write(dir, "bad4.cfg", "model = \"ema\";\n");
    assert_int_equal(tb_stepfit_load(path, &g, why, sizeof why), -EINVAL);
    th_must_have(why, "tau_ms missing");
    char missing[600];
    snprintf(missing, sizeof missing, "%s/none.cfg", dir);
    assert_true(tb_stepfit_load(missing, &g, why, sizeof why) < 0);
    th_must_have(why, "none.cfg");
    free(path);
    th_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ema_recovered),
        cmocka_unit_test(test_ema_noisy),
        cmocka_unit_test(test_ema_delay),
        cmocka_unit_test(test_block_mean_staircase),
        cmocka_unit_test(test_block_mean_probe_layout),
        cmocka_unit_test(test_moving_mean),
        cmocka_unit_test(test_point),
        cmocka_unit_test(test_point_quiet),
        cmocka_unit_test(test_wrong_model_forced),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_file_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
