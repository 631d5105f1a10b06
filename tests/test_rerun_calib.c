/* test_rerun_calib.c: the rerun interval calibrated (#49), by meter-sim's nights (tests/sim/:
 * the real meter, sampler and learner on the fake clock, NVML's part-time energy counter):
 * 400 successive nights each, whose true ratio moves by a between-night spread B (0, 0.2%,
 * 1%), at two noise levels and at 3 and 12 cycles a night. energy_ratio_rerun_ci95 of each
 * night from its sixth on must hold the next night's ratio 93-97% of the time (too narrow
 * and too wide both fail), its median half-width at most 1.2 times that of an interval
 * that knew both true spreads (tests/sim/rerun_sim.h). */
#include "helpers.h"

#include "sim/nights.h"

struct calib_case {
    double noise_pct, between_pct;
    int cycles;
};

/* One case: 400 nights, seed 1; said on stdout as meter-sim says it. */
static void calib(const struct calib_case *c)
{
    struct sim_opts o = sim_defaults;
    o.sensor = SIM_NVML;
    o.noise_pct = c->noise_pct;
    o.between_pct = c->between_pct;
    o.cycles = c->cycles;
    o.nights = 400;
    struct sim_night *nt = calloc((size_t)o.nights, sizeof(*nt));
    assert_non_null(nt);
    struct sim_summary sm;
    sim_nights(&o, nt, &sm);
    free(nt);
    sim_print(stdout, &o, &sm);
    printf("  cycles=%d\n", c->cycles);
    if (!(sm.rerun_coverage_pct >= 93 && sm.rerun_coverage_pct <= 97))
        th_fail("noise %g%%, between %g%%, %d cycles: the rerun interval held %.1f%% of the "
                "next nights (93-97)", c->noise_pct, c->between_pct, c->cycles,
                sm.rerun_coverage_pct);
    if (!(sm.rerun_halfwidth_pct_median <= 1.2 * sm.oracle_halfwidth_pct))
        th_fail("noise %g%%, between %g%%, %d cycles: median half-width %.3f%%, over 1.2 "
                "times the oracle's %.3f%%", c->noise_pct, c->between_pct, c->cycles,
                sm.rerun_halfwidth_pct_median, sm.oracle_halfwidth_pct);
}

static void test_rerun_interval_calibrated(void **state)
{
    static const struct calib_case cases[] = {
        { 1, 0, 3 }, { 1, 0.2, 3 }, { 1, 1, 3 }, { 1, 0, 12 }, { 1, 0.2, 12 }, { 1, 1, 12 },
        { 3, 0, 3 }, { 3, 0.2, 3 }, { 3, 1, 3 }, { 3, 0, 12 }, { 3, 0.2, 12 }, { 3, 1, 12 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        calib(&cases[i]);
}

int main(void)
{
    tb_clock_fake(1000000000000LL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rerun_interval_calibrated),
    };
    return cmocka_run_group_tests_name("rerun_calib", tests, NULL, NULL);
}
