/* test_power_e2e.c: the whole tool on a fake Orin Nano Super whose INA3221 behaves as L4T
 * sets it (a new mean every 430 ms: samples 512, update_interval 430) and whose OC3
 * counter advances: the test-only executable's fake driver (tests/fake_ina_driver.c)
 * rewrites the fixture files as the hwmon driver would, on the tool's own clock, which is
 * virtual (TB_FAKE_CLOCK=1): the minutes of idle, warming and energy blocks pass without a
 * real sleep, and a busy machine cannot make an update late. It shows, through the binary
 * and its log: energy blocks sized to the sensor, cycles of them with an interval, the time
 * announced at the start within 15% of the time taken; a static sensor named, its figures
 * withheld with the reason, its idle not a minute; the OC events in the row; the Super in its
 * 15W mode judged against 68.3 GB/s (its nvpmodel EMC cap). */
#include "helpers.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>

/* The Super's root in its 15W mode (0), as a normal user sees it: no EMC clock readable. */
static void super_15w(const char *r)
{
    assert_true(th_build_sysfs(r, "ina3221/orin-nano.txt", 1) > 10);
    assert_true(th_build_sysfs(r, "throttle/orin-nano-super.txt", 3) > 10);
    th_orin_super_root(r, 0);
}

static const char *first_row(const char *text, const char **header)
{
    *header = strstr(text, "\nrun_id,");
    assert_non_null(*header);
    (*header)++;
    return strchr(*header, '\n') + 1;
}

static double num(const char *h, const char *row, const char *col)
{
    char v[256];
    assert_int_equal(th_field(h, row, col, v, sizeof(v)), 0);
    return v[0] ? atof(v) : NAN;
}

/* A run on the root whose sensor does what driver says ("": a new mean every 430 ms,
 * ",ramp": climbing, ",still": static), on virtual time; the load counts 100 times its
 * work (TB_FAKE_CLOCK_WORK: a slower device), so a second of it is 10 ms of real work. */
static void run_on(const char *root, const char *driver, const char *extra, const char *logdir)
{
    char drv[PATH_MAX + 16];
    snprintf(drv, sizeof(drv), "%s%s", root, driver);
    setenv("TB_TEST_INA_DRIVER", drv, 1);
    int rc = th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 64x64 "
                     "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                     "--set power.sysfs_root=%s %s -o %s", root, extra, logdir);
    if (rc != 0)
        th_fail("run exit %d: %s", rc, th_err());
}

static void check_budget_run(const char *text);
static void check_static_run(const char *text);
static void check_climbing_run(const char *text);

static void test_orin_super_night(void **state)
{
    const char *r = th_scratch();
    super_15w(r);
    setenv("TB_ROOT", r, 1);
    setenv("TB_FAKE_CLOCK", "1", 1);   /* the tool and its sensor keep virtual time */
    setenv("TB_FAKE_CLOCK_WORK", "100", 1);
    th_use_hooks_binary();   /* the one with the fake driver */
    char logs[PATH_MAX], logs2[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", r);
    snprintf(logs2, sizeof(logs2), "%s/logs2", r);
    /* the budget spent (a target no run reaches), so the time taken is the plan's */
    run_on(r, "", "--set power.target_rel_ci=0.0001 --set power.budget_s=8", logs);
    /* a sensor whose reading never changes; the total rail with an averaged warning limit
     * (3000 mA x the fixture's in1_input) for this run alone */
    char *crit = th_write(r, "sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1/curr1_max",
                          "3000\n");
    run_on(r, ",still", "--set power.settle_s=0", logs2);
    assert_int_equal(unlink(crit), 0);
    free(crit);
    /* a board whose draw keeps climbing: the warming ends at its limit and says so */
    char logs3[PATH_MAX];
    snprintf(logs3, sizeof(logs3), "%s/logs3", r);
    run_on(r, ",ramp", "--set power.settle_s=12 --set power.budget_s=3", logs3);

    check_budget_run(th_keep(th_read_gz(th_keep(th_find_one(logs, ".csv.gz")))));
    check_static_run(th_keep(th_read_gz(th_keep(th_find_one(logs2, ".csv.gz")))));
    check_climbing_run(th_keep(th_read_gz(th_keep(th_find_one(logs3, ".csv.gz")))));
}

/* Sized to the sensor's model: the INA3221's average from sysfs (tau from update_interval
 * and samples), inverted blocks of 3 time constants, the time said at the start; the OC
 * events; the Super's ceiling; the warming steady. */
static void check_budget_run(const char *text)
{
    if (!strstr(text, "# power_cadence: model ema, tau 430 ms (INA3221 averaging (TI SBOS576") ||
        !strstr(text, "chip 1: update_interval 430 ms, samples 512 (sysfs): tau 429.6 ms") ||
        !strstr(text, "each block inverted") || !strstr(text, "energy blocks of 1289 ms") ||
        !strstr(text, "; the source: hwmon update_interval 430 ms") ||
        !strstr(text, "each rail stamped at its read's"))
        th_fail("no sysfs model in:\n%.4000s", text);
    /* the Orin Nano fixture has no curr1_max (not observed on that board): no limit, and
     * why, ending the line */
    const char *lim = strstr(text, "; power limit: not known: "), *crit;
    if (!lim || !(crit = strstr(lim, "/curr1_max': No such file")) || crit > strchr(lim, '\n'))
        th_fail("no power limit said in:\n%.4000s", strstr(text, "# power_cadence: "));
    const char *h, *row = first_row(text, &h);
    double cycles = num(h, row, "power_cycles");
    assert_true(cycles >= 3);
    /* every poll of an average is a reading of its own (the register moves every cycle) */
    assert_true(num(h, row, "power_updates") >= 20 * cycles);
    assert_true(num(h, row, "power_samples") >= num(h, row, "power_updates"));
    /* each block from a poll to the first poll 3 tau later */
    if (!(num(h, row, "window_ms") >= cycles * 3 * 429.6))
        th_fail("window_ms %.0f for %.0f cycles", num(h, row, "window_ms"), cycles);
    double w = num(h, row, "power_total_w"), ci = num(h, row, "power_total_w_ci95");
    assert_true(w > 4.6 && w < 4.85);   /* 5048 mV x 925..952 mA */
    if (!(ci >= 0 && ci / w <= 0.03)) {   /* 0: blocks of whole pairs of updates */
        char blocks[256];
        th_field(h, row, "block_figures", blocks, sizeof(blocks));
        th_fail("power %.3f W +- %.3f; blocks %s", w, ci, blocks);
    }
    assert_true(num(h, row, "gbps_per_w_ci95") > 0);
    assert_false(isnan(num(h, row, "j_per_gb")));
    th_assert_close(num(h, row, "energy_ratio"), 1.0, 1e-9);   /* the copy itself */
    /* the time said at the start against the time taken, the warming included: within 15% */
    const char *plan = strstr(text, "# power_plan: announced about ");
    assert_non_null(plan);
    double said = atof(plan + strlen("# power_plan: announced about "));
    const char *took_at = strstr(plan, "); took ");
    assert_non_null(took_at);
    double took = atof(took_at + strlen("); took "));
    if (fabs(took - said) > 0.15 * took)
        th_fail("announced %.0f s, took %.0f s", said, took);
    /* the OC events of the point, and the cause they give */
    assert_true(num(h, row, "oc_events") >= 5);
    char cause[128];
    assert_int_equal(th_field(h, row, "throttle_cause", cause, sizeof(cause)), 0);
    if (!strstr(cause, "oc3 +"))
        th_fail("throttle_cause '%s'", cause);
    /* the Super in 15W: its EMC cap's ceiling */
    th_assert_close(num(h, row, "peak_gbps"), 68.3, 0.05);
    char src[64];
    assert_int_equal(th_field(h, row, "peak_source", src, sizeof(src)), 0);
    assert_string_equal(src, "nvpmodel EMC cap");
    assert_non_null(strstr(text, "# ceiling: 68.3 GB/s (nvpmodel EMC cap)"));
    assert_non_null(strstr(text, "# power_idle: before "));
    /* warmed first: a steady draw is steady after two blocks of 5 s */
    if (!strstr(text, "# power_settle: ") || !strstr(text, "in blocks of 5.0 s: ") ||
        !strstr(text, "): steady\n"))
        th_fail("no steady warming in:\n%.4000s", text);
}

/* The static sensor: named in the idle line, no figure, and why. */
static void check_static_run(const char *text2)
{
    const char *h, *row = first_row(text2, &h);
    assert_true(isnan(num(h, row, "power_total_w")));
    assert_true(isnan(num(h, row, "gbps_per_w")));
    char note[320];
    assert_int_equal(th_field(h, row, "power_note", note, sizeof(note)), 0);
    if (!strstr(note, "no sensor update") || !strstr(note, "no power figures"))
        th_fail("power_note '%s'", note);
    if (!strstr(text2, "a static sensor, no interval"))
        th_fail("no static sensor in:\n%.4000s", text2);
    /* the limit said with where it came from and what it is for, a week later too */
    const char *lim = strstr(text2, "; power limit: ");
    if (!lim || !strstr(lim, " W (the averaged warning limit: INA3221 VDD_IN curr1_max 3000 "
                        "mA x in1_input ") ||
        !strstr(lim, " mV at the run's start); a block at 98% of it or more is capped\n"))
        th_fail("no power limit said in:\n%.4000s", strstr(text2, "# power_cadence: "));
}

/* The climbing board: 12 s of warming, never steady, said in the log and on the row. */
static void check_climbing_run(const char *text3)
{
    const char *h, *row, *settle = strstr(text3, "# power_settle: ");
    if (!settle || !strstr(settle, "not steady when power.settle_s ended"))
        th_fail("no unsteady warming in:\n%.4000s", text3);
    assert_true(atof(settle + strlen("# power_settle: ")) >= 12);
    row = first_row(text3, &h);
    char note[320];
    assert_int_equal(th_field(h, row, "power_note", note, sizeof(note)), 0);
    if (!strstr(note, "warming not steady"))
        th_fail("power_note '%s'", note);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    th_own_lock("power-e2e");   /* per process, removed at its exit */
    const struct CMUnitTest tests[] = {
        TH_TEST(test_orin_super_night),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
