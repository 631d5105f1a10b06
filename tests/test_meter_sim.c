/* test_meter_sim.c: the sensor issue's "done when", on meter-sim's nights (tests/sim/:
 * the real meter and sampler against the sensors as their datasheets describe them, on the
 * fake clock), NIGHTS nights a ratio: the INA3221's exponential average at 430 ms (512
 * samples), at 422 ms (the Nano's 64 x 6.6 ms) and two chips summed (430 and 215 ms), true
 * energy ratios 0.8, 1.1 and 1.5: |bias| <= 0.3% and the logged energy_ratio_ci95 covering
 * the truth in 92-98% of the nights (within its binomial sampling error: coverage_ok says
 * why); NVML's part-time counter and the old boxcar model
 * within 0.3%; tegrastats read every second through its 5-tau lead-in; and the meter as it
 * was before the model (a one-update lead-in, readings averaged) off by -2% or more on the
 * same sensor; the probe's fit recovering the time constant within 5%. Slow (2051 nights,
 * most of its 40 s of CPU in the meter's self-calibration fit: SLOW_TESTS). */
#include "helpers.h"

#include <math.h>
#include <stdlib.h>

#include "lib/clock.h"
#include "sim/nights.h"

static const double ratios[] = { 0.8, 1.1, 1.5 };

/* Nights a ratio: the fewest that keep each coverage check able to fail on what it guards
 * against (#59: 200 cost a minute of CPU). An interval that covers 99.5% of the nights (the
 * rerun interval of #49) fails a ratio's check from 85 nights on (99.5 - 1.96 x 0.77 > 98);
 * one that covers 89% passes each ratio's (its sd over 150 is 2.6 points) and fails the
 * three ratios' together from 418 nights on (89 + 1.96 x 1.53 < 92): 150 a ratio (450)
 * leave that 0.1 point of room. The bias checks (|bias| <= 0.3%) read 0.09% at most over
 * 200; the old design's -3.4% is caught with 50. */
#define NIGHTS 150

/* o's nights at ratio r into *sm (the summary's line on stderr); the first night's cadence
 * line into line where not NULL. */
static void run(struct sim_opts o, double r, struct sim_summary *sm, char *line, size_t n)
{
    o.ratio = r;
    struct sim_night *nt = calloc((size_t)o.nights, sizeof(*nt));
    assert_non_null(nt);
    sim_nights(&o, nt, sm);
    sim_print(stderr, &o, sm);
    if (line)
        snprintf(line, n, "%s", nt[0].cadence);
    free(nt);
}

/* Whether a coverage of pct over n nights is consistent with 92-98%: the band within
 * 1.96 binomial sds of it. A calibrated 95% interval's coverage over 150 nights has an sd of
 * 1.8 points, so a bare 92-98 for each 150 would fail cases by chance (the
 * Nano's at ratio 1.5 read 99.0% with seed 1, 96.8% over 800 nights); an interval that
 * covers 99.5% (the rerun interval of #49) or 89% still fails this. */
static bool coverage_ok(double pct, int n)
{
    double p = pct / 100, sd = 100 * sqrt(fmax(p * (1 - p), 0.0025) / n);
    return pct - 1.96 * sd <= 98 && pct + 1.96 * sd >= 92;
}

/* Every ratio, NIGHTS nights: every night measured, |bias_pct| <= 0.3 and, where asked, the
 * coverage consistent with 92-98% (coverage_ok), each ratio's and the three's together. */
static void done_when(const struct sim_opts *o, bool coverage)
{
    double covered = 0;
    int nights = 0;
    struct sim_opts each = *o;
    each.nights = NIGHTS;
    for (size_t k = 0; k < sizeof(ratios) / sizeof(ratios[0]); k++) {
        struct sim_summary sm;
        run(each, ratios[k], &sm, NULL, 0);
        covered += sm.coverage_pct * sm.nights / 100;
        nights += sm.nights;
        if (sm.failed || !(fabs(sm.bias_pct) <= 0.3) ||
            (coverage && !coverage_ok(sm.coverage_pct, sm.nights)))
            th_fail("%s at ratio %.1f: %d of %d nights failed, bias %.3f%%, coverage %.1f%%",
                    sim_sensor_names[o->sensor], ratios[k], sm.failed, sm.nights, sm.bias_pct,
                    sm.coverage_pct);
    }
    double pct = 100 * covered / nights;
    if (coverage && !coverage_ok(pct, nights))
        th_fail("%s: coverage %.1f%% over %d nights", sim_sensor_names[o->sensor], pct, nights);
}

static void test_ema_430(void **state)
{
    struct sim_opts o = sim_defaults;
    done_when(&o, true);
}

static void test_ema_422_nano(void **state)
{
    struct sim_opts o = sim_defaults;
    o.tau_ms = 422.4;
    o.avg = 64;
    done_when(&o, true);
}

static void test_two_chips(void **state)
{
    struct sim_opts o = sim_defaults;
    o.tau2_ms = 215;
    done_when(&o, true);
    /* the log says each rail's own constant */
    char line[TB_METER_CADENCE_LINE];
    struct sim_summary sm;
    o.nights = 1;
    run(o, 1.1, &sm, line, sizeof(line));
    if (!strstr(line, "model ema, tau 430/215 ms by rail") || !strstr(line, "each block inverted"))
        th_fail("cadence line: '%s'", line);
}

static void test_nvml_part_time(void **state)
{
    struct sim_opts o = sim_defaults;
    o.sensor = SIM_NVML;
    done_when(&o, false);
}

/* NVML's power reading, a mean of the last second: a lead-in of that second, then whole
 * updates, each a mean that lies under the block. */
static void test_nvml_power_mean(void **state)
{
    struct sim_opts o = sim_defaults;
    o.sensor = SIM_NVML_POWER;
    o.nights = 100;
    struct sim_summary sm;
    run(o, 1.5, &sm, NULL, 0);
    if (sm.failed || !(fabs(sm.bias_pct) <= 0.3))
        th_fail("nvml-power: %d failed, bias %.3f%%", sm.failed, sm.bias_pct);
}

static void test_boxcar_as_before(void **state)
{
    struct sim_opts o = sim_defaults;
    o.sensor = SIM_BOXCAR;
    done_when(&o, true);
}

/* tegrastats printing every second cannot follow a 430 ms average: 5 tau of lead-in, said. */
static void test_tegrastats_lead_in(void **state)
{
    struct sim_opts o = sim_defaults;
    o.sensor = SIM_TEGRASTATS;
    o.nights = 100;
    struct sim_summary sm;
    char line[TB_METER_CADENCE_LINE];
    run(o, 1.5, &sm, line, sizeof(line));
    if (sm.failed || !(fabs(sm.bias_pct) <= 0.3))
        th_fail("tegrastats: %d failed, bias %.3f%%", sm.failed, sm.bias_pct);
    if (!strstr(line, "lead-in of 5 tau") || !strstr(line, "read every 1000 ms"))
        th_fail("cadence line: '%s'", line);
}

/* The meter before the model, on the sensor as it is: the source claiming a 430 ms boxcar
 * (update_interval as a refresh period), a one-update lead-in, the readings' mean. The
 * average carries the block before into each block: a kernel 1.1x the copy reads low. */
static void test_old_design_is_biased(void **state)
{
    struct sim_opts o = sim_defaults;
    o.claim_boxcar = 1;
    o.nights = 50;
    struct sim_summary sm;
    run(o, 1.1, &sm, NULL, 0);
    if (!(sm.bias_pct <= -2 && sm.bias_pct >= -8))
        th_fail("the old design's bias: %.3f%%", sm.bias_pct);
}

/* meter-sim --probe: the probe's fit (stepfit.h) on the simulated sensor's step response
 * recovers the time constant within 5% and tells the average from a boxcar. */
static void test_probe_recovers_the_model(void **state)
{
    static const struct { int sensor; double tau; int avg; const char *model; } c[] = {
        { SIM_EMA, 430, 512, "ema" }, { SIM_EMA, 422.4, 64, "ema" },
        { SIM_BOXCAR, 430, 512, "boxcar" }, { SIM_TEGRASTATS, 430, 512, "ema" },
    };
    for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
        struct sim_opts o = sim_defaults;
        o.sensor = c[k].sensor;
        o.tau_ms = c[k].tau;
        o.avg = c[k].avg;
        struct tb_stepfit fit;
        char why[256];
        if (sim_probe(&o, 7, &fit, why, sizeof(why)))
            th_fail("probe on %s: %s", sim_sensor_names[o.sensor], why);
        if (strcmp(fit.model, c[k].model) || !(fabs(fit.tau_ms / c[k].tau - 1) <= 0.05))
            th_fail("probe on %s %.1f ms: %s %.1f ms", sim_sensor_names[o.sensor], c[k].tau,
                    fit.model, fit.tau_ms);
    }
}

int main(void)
{
    tb_clock_fake(1000000000000LL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ema_430),
        cmocka_unit_test(test_ema_422_nano),
        cmocka_unit_test(test_two_chips),
        cmocka_unit_test(test_nvml_part_time),
        cmocka_unit_test(test_nvml_power_mean),
        cmocka_unit_test(test_boxcar_as_before),
        cmocka_unit_test(test_tegrastats_lead_in),
        cmocka_unit_test(test_old_design_is_biased),
        cmocka_unit_test(test_probe_recovers_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
