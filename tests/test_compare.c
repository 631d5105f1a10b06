/* test_compare.c: compare's verdict against a baseline (tb_compare_verdict, #60): "same"
 * within 1%; beyond it, the change's 95% interval from both sides' relative standard errors
 * (1.96 x their quadrature sum) says "faster" or "slower" where it lies on one side of 0,
 * "undecided" where it holds 0; a missing standard error (NAN) counts as none. The energy
 * ratio's verdict the same way from each side's rerun interval (more, less, same,
 * undecided). Then the real binary on written logs (#31): the clock caps a mode sweep asked
 * are part of a point, --pareto names the operating points whose energy figures were
 * withheld instead of leaving them out, and the rerun interval is energy_ratio_rerun_ci95 in
 * CSV and JSON (#59). */
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/compare.h"

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

/* Noisy sides, 1% each: an interval of +-2.77%. A 4% change is sure (its interval 1.2% to
 * 6.8%), 2% is not (-0.8% to 4.8%): undecided; within 1%, the same whatever the noise. The
 * rule before #60 (3 combined errors, 4.24%) called 4% "same" and 2% "same". */
static void test_intervals_decide(void **state)
{
    assert_string_equal(verdict(100, 104, 0.01, 0.01), "faster");
    assert_string_equal(verdict(100, 96, 0.01, 0.01), "slower");
    assert_string_equal(verdict(100, 102, 0.01, 0.01), "undecided");
    assert_string_equal(verdict(100, 98, 0.01, 0.01), "undecided");
    assert_string_equal(verdict(100, 100, 0.01, 0.01), "same");
    assert_string_equal(verdict(100, 100.5, 0.05, 0.05), "same");
    /* a 6% drop is a real slowdown with quiet sides and with 2% on each (+-5.5%) */
    assert_string_equal(verdict(100, 94, 0.002, 0.002), "slower");
    assert_string_equal(verdict(100, 94, 0.02, 0.02), "slower");
    assert_string_equal(verdict(100, 95, 0.02, 0.02), "undecided");
}

/* The errors combine in quadrature, and one side's alone counts when the other has none:
 * 0.3% and 0.4% are 1.96 x 0.5% = 0.98% (their sum would be 1.37%): a 1.1% change is sure. */
static void test_sides_combine_in_quadrature(void **state)
{
    assert_string_equal(verdict(100, 101.1, 0.003, 0.004), "faster");
    assert_string_equal(verdict(100, 98.9, 0.003, 0.004), "slower");
    assert_string_equal(verdict(100, 101.1, 0.004, 0.004), "undecided");   /* 1.11% */
    assert_string_equal(verdict(100, 101.3, NAN, 0.005), "faster");
    assert_string_equal(verdict(100, 98.7, 0.005, NAN), "slower");
    assert_string_equal(verdict(100, 101.3, 0.0052, 0.0052), "undecided");
}

/* The energy ratio: each side's rerun interval (absolute), relative to its side, in
 * quadrature; NULL where a side has no ratio or no interval. */
static void test_energy_verdict(void **state)
{
    double d = NAN;
    assert_string_equal(tb_compare_energy_verdict(1.2, 0.012, 1.26, 0.012, &d), "more");
    th_assert_close(d, 0.05, 1e-12);
    assert_string_equal(tb_compare_energy_verdict(1.26, 0.012, 1.2, 0.012, &d), "less");
    assert_string_equal(tb_compare_energy_verdict(1.2, 0.03, 1.23, 0.03, &d), "undecided");
    assert_string_equal(tb_compare_energy_verdict(1.2, 0.003, 1.205, 0.003, &d), "same");
    assert_null(tb_compare_energy_verdict(1.2, NAN, 1.26, 0.012, &d));
    assert_null(tb_compare_energy_verdict(NAN, 0.01, 1.26, 0.012, &d));
}

/* ---- the binary on written logs ---------------------------------------------------- */

static void must_have(const char *text, const char *want)
{
    if (!strstr(text, want))
        th_fail("expected \"%s\" in:\n%s", want, text);
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

#define LOG_HEAD "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,block_x,block_y," \
                 "gbps,rel_sem,status,power_mode,gpu_cap_asked_mhz,emc_cap_asked_mhz," \
                 "dyn_pj_per_byte,power_note\n"

/* A row of the Orin's log of night day: blocked 4096x4096 float at gbps in mode, under the
 * caps given ("" none), with its dynamic pJ/B ("" none) and power_note. */
static const char *orin_row(char *buf, size_t n, int day, const char *mode, const char *gpu_cap,
                            const char *emc_cap, double gbps, const char *dyn_pj,
                            const char *note)
{
    snprintf(buf, n, "orin1_jetson-orin-nano_202611%02dT023000Z,jetson-orin-nano,Orin,blocked,"
             "float,4096,4096,32,8,%.2f,0.002,ok,%s,%s,%s,%s,\"%s\"\n", day, gbps, mode, gpu_cap,
             emc_cap, dyn_pj, note);
    return buf;
}

/* One night's log of one row in dir; returns its path (kept until the teardown). */
static const char *orin_night(const char *dir, int day, const char *gpu_cap, double gbps)
{
    char name[128], row[512], text[1024];
    snprintf(text, sizeof(text), LOG_HEAD "%s# end: complete, 1 rows\n",
             orin_row(row, sizeof(row), day, "15W (0)", gpu_cap, "", gbps, "12.5", ""));
    snprintf(name, sizeof(name), "orin1_jetson-orin-nano_202611%02dT023000Z.csv", day);
    return th_keep(th_write(dir, name, text));
}

/* #31: a 15W night under a GPU cap of 408 MHz at 0.6x the GB/s of an uncapped 15W night is
 * another operating point, never a regression of it: against it as a baseline nothing
 * matches (exit 2, the caps named among what must match), and plain compare shows two best
 * points, the capped one named by its cap (the CSV and JSON carry the caps as two columns
 * after power_mode). Under the same caps the nights are compared, and a drop is a drop. */
static void test_caps_are_part_of_a_point(void **state)
{
    const char *dir = th_scratch();
    const char *uncapped = orin_night(dir, 1, "", 100);
    const char *capped = orin_night(dir, 2, "408", 60);
    assert_int_equal(th_runf("compare %s --baseline %s", capped, uncapped), 2);
    assert_null(strstr(th_out(), "REGRESSION"));
    assert_null(strstr(th_out(), "slower"));
    must_have(th_out(), "0 points compared");
    must_have(th_err(), "power mode and clock caps asked): nothing compared");
    must_have(th_err(), "1 point(s) match the baseline only in another power mode or under "
                        "other clock caps");

    assert_int_equal(th_runf("compare %s %s", capped, uncapped), 0);
    must_have(th_out(), " 15W (0), GPU cap 408 MHz Orin ");
    assert_int_equal(count_of(th_out(), " 15W (0) "), 1);   /* the uncapped one, alone */
    assert_int_equal(count_of(th_out(), "blocked          jetson-orin-nano"), 2);
    assert_int_equal(th_runf("compare --format csv %s %s", capped, uncapped), 0);
    must_have(th_out(), ",elem,power_mode,gpu_cap_asked_mhz,emc_cap_asked_mhz,gbps_per_w_ci95,");
    must_have(th_out(), ",60.00,32,8,,,,orin1,,float,\"15W (0)\",408,,");
    must_have(th_out(), ",100.00,32,8,,,,orin1,,float,\"15W (0)\",,,");
    assert_int_equal(th_runf("compare --format json %s %s", capped, uncapped), 0);
    assert_int_equal(count_of(th_out(), "\"power_mode\": \"15W (0)\", \"gpu_cap_asked_mhz\": "
                                        "408, \"emc_cap_asked_mhz\": null"), 1);
    assert_int_equal(count_of(th_out(), "\"power_mode\": \"15W (0)\", \"gpu_cap_asked_mhz\": "
                                        "null, \"emc_cap_asked_mhz\": null"), 1);

    /* the same caps: compared; the same GB/s is the same, a 40% drop a regression */
    const char *capped_again = orin_night(dir, 3, "408", 60.1);
    assert_int_equal(th_runf("compare %s --baseline %s", capped_again, capped), 0);
    must_have(th_out(), "1 points compared, 0 regressed");
    must_have(th_out(), " float   15W (0), GPU cap 408 MHz\n");
    const char *capped_slow = orin_night(dir, 4, "408", 36);
    assert_int_equal(th_runf("compare %s --baseline %s", capped_slow, capped), 1);
    must_have(th_out(), "REGRESSION");
    assert_int_equal(th_runf("compare --format csv %s --baseline %s", capped_slow, capped), 1);
    must_have(th_out(), ",elem,power_mode,gpu_cap_asked_mhz,emc_cap_asked_mhz\n");
    must_have(th_out(), ",float,\"15W (0)\",408,\n");
}

/* #31: a mode sweep's log where 25W's figures were withheld (power.max_rel_ci) and the 15W
 * step under a GPU cap had too few sensor updates: the front is drawn over 7W and 15W, and
 * the two are listed after it with their reasons (rows with front "no figure" in CSV and
 * JSON), never silently left out. Every figure withheld: no front, and the message says
 * withheld, not that a power source is missing. */
static void test_pareto_names_withheld_points(void **state)
{
    const char *dir = th_scratch();
    const char *wide = "5 sensor updates in 1.0 s: +-9.0%, wider than power.max_rel_ci 5.0%: "
                       "no power figures";
    const char *few = "2 sensor updates in 1.0 s: no interval, no power figures";
    char text[4096], row[512];
    int len = snprintf(text, sizeof(text), LOG_HEAD);
    len += snprintf(text + len, sizeof(text) - (size_t)len, "%s",
                    orin_row(row, sizeof(row), 3, "15W (0)", "", "", 60, "10.5", ""));
    len += snprintf(text + len, sizeof(text) - (size_t)len, "%s",
                    orin_row(row, sizeof(row), 3, "7W (3)", "", "", 40, "8.5", ""));
    len += snprintf(text + len, sizeof(text) - (size_t)len, "%s",
                    orin_row(row, sizeof(row), 3, "25W (1)", "", "", 70, "", wide));
    len += snprintf(text + len, sizeof(text) - (size_t)len, "%s# end: complete, 4 rows\n",
                    orin_row(row, sizeof(row), 3, "15W (0)", "408", "", 50, "", few));
    const char *log = th_keep(th_write(dir, "orin1_jetson-orin-nano_20261103T023000Z.csv",
                                       text));
    assert_int_equal(th_runf("compare --pareto %s", log), 0);
    must_have(th_out(), "2 of 2 operating points on the front; 2 without an energy figure\n");
    char want[512];
    snprintf(want, sizeof(want), "\n25W (1): no energy figure: %s\n", wide);
    must_have(th_out(), want);
    snprintf(want, sizeof(want), "\n15W (0), GPU cap 408 MHz: no energy figure: %s\n", few);
    must_have(th_out(), want);
    assert_int_equal(th_runf("compare --pareto --format csv %s", log), 0);
    must_have(th_out(), ",front,knee,host,device,power_note\n");
    assert_int_equal(count_of(th_out(), ",yes,"), 2);
    snprintf(want, sizeof(want), "\"25W (1)\",,,32x8,70.00,0.274,,,,,\"no figure\",,orin1,"
             "Orin,\"%s\"\n", wide);
    must_have(th_out(), want);
    must_have(th_out(), "\"15W (0)\",408,,32x8,50.00,0.196,,,,,\"no figure\",");
    assert_int_equal(th_runf("compare --pareto --format json %s", log), 0);
    assert_int_equal(count_of(th_out(), "\"front\": \"no figure\""), 2);

    /* every figure withheld: exit 1, said as withheld */
    len = snprintf(text, sizeof(text), LOG_HEAD);
    len += snprintf(text + len, sizeof(text) - (size_t)len, "%s",
                    orin_row(row, sizeof(row), 4, "15W (0)", "", "", 60, "", few));
    len += snprintf(text + len, sizeof(text) - (size_t)len, "%s# end: complete, 2 rows\n",
                    orin_row(row, sizeof(row), 4, "25W (1)", "", "", 70, "", wide));
    log = th_keep(th_write(dir, "orin1_jetson-orin-nano_20261104T023000Z.csv", text));
    assert_int_equal(th_runf("compare --pareto %s", log), 1);
    must_have(th_out(), "no front: none of its 2 operating points has an energy figure\n");
    snprintf(want, sizeof(want), "\n25W (1): no energy figure: %s\n", wide);
    must_have(th_out(), want);
    must_have(th_out(), "no front: no operating point has an energy figure: 2 withheld");
    assert_null(strstr(th_out(), "power source"));
    assert_int_equal(th_runf("compare --pareto --format csv %s", log), 1);
    assert_int_equal(count_of(th_out(), ",\"no figure\","), 2);
    must_have(th_err(), "no operating point has an energy figure: 2 withheld");
}

/* #40: a dynamic energy below idle (-3 pJ/B) ranks nothing (it was the front's cheapest
 * point), and is named with why; a 0.00 GB/s row (a timer gone wrong: 1e-300 GB/s printed
 * as 0.0 among the best points) is impossible, flagged with file and line, on no front and
 * no best point. */
static void test_pareto_takes_no_impossible_figure(void **state)
{
    const char *dir = th_scratch();
    char text[4096], row[512];
    int len = snprintf(text, sizeof(text), LOG_HEAD);
    len += snprintf(text + len, sizeof(text) - (size_t)len, "%s",
                    orin_row(row, sizeof(row), 5, "15W (0)", "", "", 60, "10.5", ""));
    len += snprintf(text + len, sizeof(text) - (size_t)len, "%s",
                    orin_row(row, sizeof(row), 5, "7W (3)", "", "", 40, "-3.0", ""));
    len += snprintf(text + len, sizeof(text) - (size_t)len, "%s# end: complete, 3 rows\n",
                    orin_row(row, sizeof(row), 5, "25W (1)", "", "", 1e-300, "1.0", ""));
    const char *log = th_keep(th_write(dir, "orin1_jetson-orin-nano_20261105T023000Z.csv",
                                       text));
    assert_int_equal(th_runf("compare --pareto %s", log), 0);
    must_have(th_out(), "1 of 1 operating points on the front; 1 without an energy figure\n");
    must_have(th_out(), "\n7W (3): no energy figure: dynamic energy -3 pJ/B is not above idle");
    must_have(th_err(), "20261105T023000Z.csv:5: blocked 4096x4096: impossible figures");
    assert_null(strstr(th_out(), "25W"));
    assert_int_equal(th_runf("compare %s", log), 0);
    assert_null(strstr(th_out(), " 0.0"));
    must_have(th_out(), " 60.0");
}

/* #59 item 4: compare's CSV and JSON carried the rerun interval as energy_ratio_ci95, the
 * log's name for the cycles' own interval. It is energy_ratio_rerun_ci95 in both (JSON: the
 * energy ratio's object keeps its bounds from it); against a baseline, the energy verdict
 * from both sides' rerun intervals beside the GB/s one. */
static void test_rerun_interval_named(void **state)
{
    const char *dir = th_scratch();
    const char *head = "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,block_x,"
                       "block_y,gbps,rel_sem,status,power_mode,energy_ratio,energy_ratio_ci95,"
                       "energy_ratio_rerun_ci95\n";
    char text[1024];
    const char *log[2];
    for (int d = 0; d < 2; d++) {
        snprintf(text, sizeof(text), "%sorin1_jetson-orin-nano_202611%02dT023000Z,"
                 "jetson-orin-nano,Orin,blocked,float,4096,4096,32,8,%s,0.002,ok,15W (0),%s,"
                 "0.0040,0.0120\n# end: complete, 1 rows\n", head, d + 1, d ? "90.00" : "100.00",
                 d ? "1.2600" : "1.2000");
        char name[64];
        snprintf(name, sizeof(name), "n%d.csv", d);
        log[d] = th_keep(th_write(dir, name, text));
    }
    assert_int_equal(th_runf("compare --format csv %s", log[0]), 0);
    must_have(th_out(), ",energy_ratio,energy_ratio_rerun_ci95\n");
    must_have(th_out(), ",1.2000,0.0120\n");
    assert_null(strstr(th_out(), "energy_ratio_ci95"));
    assert_int_equal(th_runf("compare --format json %s", log[0]), 0);
    must_have(th_out(), "\"energy_ratio\": {\"value\": 1.2000, \"lower\": 1.1880, \"upper\": 1.2120, "
                        "\"ci95\": 0.0120}, \"energy_ratio_rerun_ci95\": 0.0120}");
    assert_null(strstr(th_out(), "energy_ratio_ci95"));
    assert_int_equal(th_runf("compare --format csv %s --baseline %s", log[1], log[0]), 1);
    must_have(th_out(), ",delta_pct,verdict,regression,base_energy_ratio,energy_ratio,"
                        "energy_delta_pct,energy_verdict,host,");
    must_have(th_out(), ",100.00,90.00,-10.00,slower,REGRESSION,1.2000,1.2600,5.00,more,orin1,");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor_is_one_percent),
        cmocka_unit_test(test_intervals_decide),
        cmocka_unit_test(test_sides_combine_in_quadrature),
        cmocka_unit_test(test_energy_verdict),
        TH_TEST(test_rerun_interval_named),
        TH_TEST(test_caps_are_part_of_a_point),
        TH_TEST(test_pareto_names_withheld_points),
        TH_TEST(test_pareto_takes_no_impossible_figure),
    };
    return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
