/* test_power_window.c: a window's power from the sampler's readings, fed by a scripted
 * source whose readings carry their own times: a source that stalls (tegrastats alive and
 * silent) gives no watts, and so no GB/s per W, for the windows in the silence, with the
 * reason; a window with readings on both sides gives the mean power. On the fake clock
 * (lib/clock.h), started at the readings' base: the sampler polls in virtual time, and the
 * seconds of readings a test waits for pass without a real sleep. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <math.h>

#include "energy/plan.h"
#include "energy/window.h"
#include "power/power.h"
#include "lib/clock.h"
#include "lib/util.h"

#define MS 1000000LL
static const int64_t base = 1000000000000LL;   /* readings' clock: arbitrary, theirs */

/* What the scripted sensor does: n readings, one every step_ms (its own clock), whose value
 * changes every update_ms (the sensor's own cadence) through the values mw[], cyclically. */
struct script_cfg {
    int n;
    int step_ms, update_ms;
    const double *mw;
    int nv;
};
static const double alternating[] = { 4990, 5010 };
static const struct script_cfg stall_cfg = { 10, 100, 100, alternating, 2 };
static struct script_cfg script_now;   /* the next sampler's script (set before its start) */

struct script { int next; struct script_cfg cfg; };

static int script_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                       char *why, size_t n)
{
    struct script *s = st;
    s->cfg = script_now;
    rails->n = 1;
    tb_strlcpy(rails->name[0], "VDD_IN", TB_RAIL_NAME);
    return 0;
}

static int script_sample(void *st, struct tb_power_sample *out, char *why, size_t n)
{
    struct script *s = st;
    if (s->next >= s->cfg.n)
        return -EAGAIN;   /* alive, and says nothing: a stalled tegrastats */
    int64_t at_ms = (int64_t)s->next++ * s->cfg.step_ms;
    out->t_ns = base + at_ms * MS;
    out->rail_mw[0] = (float)s->cfg.mw[(at_ms / s->cfg.update_ms) % s->cfg.nv];
    return 0;
}

static void script_close(void *st) {}

/* The window's power as the meter reads it: a plan of s (energy/plan.h) and the window's
 * span read through it. */
static void over(struct tb_sampler *s, const struct tb_power_cfg *pc, int64_t t0, int64_t t1,
                 struct tb_power_figures *f)
{
    struct tb_energy_plan p;
    struct tb_power_span sp;
    int64_t margin = tb_power_over_margin_ns(pc);
    tb_energy_plan_make(&p, s, pc);
    tb_energy_plan_read(&p, t0 - margin, t1 + margin, 0, &sp);
    tb_power_over(&p, pc, &sp, t0, t1, f);
    tb_power_span_free(&sp);
}

/* A point's power window as the plan of s works it out. */
static double window_ms(struct tb_sampler *s, const struct tb_power_cfg *pc)
{
    struct tb_energy_plan p;
    tb_energy_plan_make(&p, s, pc);
    return p.window_ms;
}

/* The cadence settled by an idle [t0, t1], as the meter's first idle settles it: the
 * source's own, else the period the idle's readings show (given to the sampler too). */
static double learn_cadence(struct tb_sampler *s, const struct tb_power_cfg *pc, int64_t t0,
                            int64_t t1)
{
    struct tb_energy_plan p;
    struct tb_power_span sp;
    double period = NAN;
    size_t intervals = 0;
    tb_energy_plan_make(&p, s, pc);
    if (isnan(p.cadence.period_ms)) {
        tb_energy_plan_read(&p, t0, t1, 0, &sp);
        period = tb_power_infer_period(&p, &sp, t0, t1, &intervals);
        tb_power_span_free(&sp);
    }
    return tb_energy_plan_learn(&p, period, intervals);
}

/* Waits in virtual time (polls of step_ms) until n readings of [from, to] are in, or the
 * sampler's polls could have read them twice over. */
static void wait_readings(struct tb_sampler *s, int64_t from, int64_t to, size_t n, int step_ms)
{
    size_t got = 0;
    int64_t give_up = tb_now_ns() + 2 * ((int64_t)n + 10) * step_ms * MS;
    for (;;) {
        free(tb_sampler_window(s, from, to, 0, &got));
        if (got >= n || tb_now_ns() > give_up)
            break;
        tb_sleep_ns(step_ms * MS);
    }
    assert_int_equal(got, n);
}

static const struct tb_power_ops script_ops = {
    .name = "script", .help = "scripted readings", .state_size = sizeof(struct script),
    .open = script_open, .sample = script_sample, .close = script_close,
};

static void test_stall_gives_no_watts(void **state)
{
    struct tb_power_cfg pc;
    memset(&pc, 0, sizeof(pc));
    pc.interval_ms = 100;   /* the board's interval: the window's margin */
    pc.max_rel_ci = 0.03;
    tb_strlcpy(pc.total_rail, "VDD_IN", sizeof(pc.total_rail));
    tb_strlcpy(pc.gpu_rail, "VDD_IN", sizeof(pc.gpu_rail));
    struct tb_sampler *s;
    char why[256];
    script_now = stall_cfg;   /* readings at base + 0, 100, ..., 900 ms, then silence */
    th_stderr_begin();   /* the sampler says the silence; not this test's subject */
    assert_int_equal(tb_sampler_start(&s, &script_ops, &pc, 1, 64, why, sizeof(why)), 0);
    wait_readings(s, base, base + 900 * MS, 10, 100);   /* the script read whole */
    struct tb_power_figures f;
    /* readings on both sides: the mean power, no reason */
    over(s, &pc, base + 200 * MS, base + 700 * MS, &f);
    th_assert_close(f.total_w, 5.0, 1e-9);
    th_assert_close(f.gpu_w, 5.0, 1e-9);
    assert_string_equal(f.why, "");
    assert_int_equal(f.updates, 5);   /* 300, 400, ..., 700 ms */
    assert_true(f.total_w_ci > 0 && f.total_w_ci < 0.03 * 5.0);
    /* the silence starts in the window: no reading after its end */
    over(s, &pc, base + 850 * MS, base + 1350 * MS, &f);
    assert_true(isnan(f.total_w));
    assert_true(isnan(f.gpu_w));
    assert_true(isnan(f.energy_j));
    assert_non_null(strstr(f.why, "no reading after the window's end"));
    /* the first window wholly in the silence: readings only before it */
    over(s, &pc, base + 950 * MS, base + 1250 * MS, &f);
    assert_true(isnan(f.total_w));
    assert_int_equal(f.samples, 0);
    assert_non_null(strstr(f.why, "no power figures"));
    tb_sampler_stop(s, NULL);
    free(th_stderr_end());
}

/* The sampler's stop joins its thread by the clock (tb_clock_thread_join): time moves to
 * the thread's next poll at once, where a plain pthread_join blocked outside the clock and
 * waited out a grace of real time, once a night (#59: most of test_meter_sim's minutes). */
static void test_stop_waits_no_grace(void **state)
{
    struct tb_power_cfg pc;
    memset(&pc, 0, sizeof(pc));
    pc.interval_ms = 100;
    struct tb_sampler *s;
    char why[256];
    script_now = (struct script_cfg){ 1000, 100, 100, alternating, 2 };
    assert_int_equal(tb_sampler_start(&s, &script_ops, &pc, 100, 64, why, sizeof(why)), 0);
    tb_sleep_ns(1050 * MS);   /* between two polls: the thread sleeps by the clock */
    int64_t t = tb_now_ns();
    long graces = tb_fake_clock_graces();
    uint64_t n = 0;
    tb_sampler_stop(s, &n);
    assert_int_equal(tb_fake_clock_graces(), graces);
    int64_t moved = tb_now_ns() - t;   /* to the next poll (every 100 ms), which saw the stop */
    assert_true(moved > 0 && moved <= 100 * MS);
    assert_true(n >= 10);
}

/* A source that reports no EMC clock (INA3221, NVML, this script) still gets one per
 * reading from sysfs, under the board's sysfs root. */
static void test_emc_clock_from_sysfs(void **state)
{
    struct tb_power_cfg pc;
    memset(&pc, 0, sizeof(pc));
    pc.interval_ms = 100;
    pc.max_rel_ci = 0.03;
    script_now = stall_cfg;
    tb_strlcpy(pc.total_rail, "VDD_IN", sizeof(pc.total_rail));
    tb_strlcpy(pc.sysfs_root, th_fixture("emc/l4t35-orin"), sizeof(pc.sysfs_root));
    struct tb_sampler *s;
    char why[256];
    th_stderr_begin();
    assert_int_equal(tb_sampler_start(&s, &script_ops, &pc, 1, 64, why, sizeof(why)), 0);
    wait_readings(s, base, base + 900 * MS, 10, 100);
    struct tb_power_figures f;
    over(s, &pc, base + 200 * MS, base + 700 * MS, &f);
    th_assert_close(f.emc_clock_mhz, 2133, 1e-3);
    tb_sampler_stop(s, NULL);
    free(th_stderr_end());
}

/* The whole tool with a fake tegrastats that stalls after 3 lines: every row the silence
 * reaches says so and carries no watts and no GB/s per W (the first of them once logged
 * both from the readings before the silence). */
static void test_run_with_a_stalled_tegrastats(void **state)
{
    char cwd[PATH_MAX], text[2 * PATH_MAX + 512], args[3 * PATH_MAX], lock[PATH_MAX + 8];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    const char *dir = th_scratch();   /* the fixture removes it and restores the env */
    snprintf(lock, sizeof(lock), "%s/lock", dir);
    setenv("TB_LOCK_FILE", lock, 1);
    th_use_fake_clock();   /* the run keeps virtual time: no real sleep */
    setenv("TB_FAKE_CLOCK_WORK", "100", 1);   /* its load: 10 ms of real work a second */
    char *lines = th_write(dir, "replay.txt", "RAM 3452/7620MB EMC_FREQ 43%@2133 GR3D_FREQ 0% "
                           "VDD_IN 4824mW/4824mW VDD_CPU_GPU_CV 518mW/518mW\n");
    setenv("TB_FAKE_TEGRASTATS_FILE", lines, 1);
    setenv("TB_FAKE_TEGRASTATS_STALL", "3", 1);
    snprintf(text, sizeof(text),
             "board = { name = \"stall\"; max_power_w = 45.0; };\n"
             "power = { source = \"tegrastats\"; interval_ms = 100; window_ms = 300; "
             "idle_ms = 0; total_rail = \"VDD_IN\"; gpu_rail = \"VDD_CPU_GPU_CV\";\n"
             "  tegrastats = { command = \"%s/tests/fake-tegrastats.sh\"; }; };\n", cwd);
    char *board = th_write(dir, "board.cfg", text);
    snprintf(args, sizeof(args), "run --quiet --device cpu -b %s --sizes 64x64,32x32,16x16 "
             "--kernels copy_row --set sweep.stop.min_time_ms=1 -o %s/logs", board, dir);
    assert_int_equal(th_runf("%s", args), 0);
    char logs[PATH_MAX + 8];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    char *log = th_find_one(logs, ".csv.gz"), *t = th_read_gz(log);
    assert_non_null(t);
    const char *h = strstr(t, "\nrun_id,") + 1;
    int silent = 0;
    for (const char *row = strchr(h, '\n') + 1; *row && *row != '#';
         row = strchr(row, '\n') + 1) {
        char note[256], w[64], gw[64];
        assert_int_equal(th_field(h, row, "power_note", note, sizeof(note)), 0);
        assert_int_equal(th_field(h, row, "power_total_w", w, sizeof(w)), 0);
        assert_int_equal(th_field(h, row, "gbps_per_w", gw, sizeof(gw)), 0);
        if (strstr(note, "no sensor update") || strstr(note, "(the source is silent)")) {
            silent++;
            if (w[0] || gw[0])
                th_fail("a row in the silence logs %s W, %s GB/s per W (%s)", w, gw, note);
        }
    }
    assert_true(silent >= 2);   /* the run goes on well past the third line */
    free(t);
    free(log);
    free(board);
    free(lines);
}

/* Starts a sampler on the script cfg and waits until every reading is in. */
static struct tb_sampler *scripted(const struct script_cfg *cfg, struct tb_power_cfg *pc)
{
    memset(pc, 0, sizeof(*pc));
    pc->interval_ms = cfg->step_ms;
    pc->min_readings = 10;
    pc->max_rel_ci = 0.03;
    pc->window_ms = 1000;
    tb_strlcpy(pc->total_rail, "VDD_IN", sizeof(pc->total_rail));
    script_now = *cfg;
    struct tb_sampler *s;
    char why[256];
    assert_int_equal(tb_sampler_start(&s, &script_ops, pc, 1, (size_t)cfg->n + 8, why,
                                      sizeof(why)), 0);
    wait_readings(s, base, base + (int64_t)(cfg->n - 1) * cfg->step_ms * MS, (size_t)cfg->n,
                  cfg->step_ms);
    return s;
}

/* An Orin's INA3221 as L4T sets it: a new mean every 430 ms, polled every 50 ms. Twenty
 * samples a second hold two or three readings; the cadence learnt from the idle readings
 * sizes the window to ten of them, which then give a figure with a narrow interval, and a
 * window of one second gets none. */
/* alternating +-3%: ten updates give 2.3%, three give 8.6% */
static const double orin_mw[] = { 12360, 11640 };
static void test_cadence_sizes_the_window(void **state)
{
    struct script_cfg cfg = { 400, 50, 430, orin_mw, 2 };   /* 20 s of readings */
    struct tb_power_cfg pc;
    struct tb_sampler *s = scripted(&cfg, &pc);
    assert_true(isnan(tb_sampler_cadence(s)->period_ms));   /* the script has no sysfs */
    assert_true(isnan(window_ms(s, &pc)) == 0);
    th_assert_close(window_ms(s, &pc), 1000, 1e-9);   /* not known: as configured */
    double p = learn_cadence(s, &pc, base, base + 5000 * MS);   /* "idle" */
    /* polls every 50 ms see updates 400 or 450 ms apart; the median is within one poll */
    assert_true(p >= 400 && p <= 450);
    assert_string_equal(tb_sampler_cadence(s)->how, "inferred");
    double win = window_ms(s, &pc);
    assert_true(win >= 11 * 400.0 && win <= 11 * 450.0);
    struct tb_power_figures f;
    int64_t t0 = base + 6000 * MS, t1 = t0 + (int64_t)win * MS;
    over(s, &pc, t0, t1, &f);
    assert_true(f.updates >= 10);
    assert_true(f.samples >= 80);   /* samples are many; the updates are what count */
    assert_false(f.withheld);
    assert_true(f.total_w > 11.8 && f.total_w < 12.2);
    assert_true(f.total_w_ci > 0 && f.total_w_ci / f.total_w <= 0.03);
    /* a forced short window: 2 or 3 updates, a figure and its interval however wide (the
     * window only reads; a width is the meter's to judge) */
    over(s, &pc, t0, t0 + 1000 * MS, &f);
    assert_true(f.updates >= 2 && f.updates <= 3);
    assert_false(f.withheld);
    assert_true(f.total_w > 11.5 && f.total_w < 12.5);
    assert_true(f.total_w_ci > 0);
    assert_string_equal(f.why, "");
    /* shorter than one update's spacing: at most one update, no interval: withheld */
    over(s, &pc, t0, t0 + 300 * MS, &f);
    assert_true(f.updates <= 1);
    assert_true(f.withheld);
    assert_true(isnan(f.total_w) && isnan(f.total_w_ci));
    assert_non_null(strstr(f.why, "no interval, no power figures"));
    tb_sampler_stop(s, NULL);
}

/* The interval follows the readings' spread: ten noisy updates give a wide interval, kept
 * whatever power.max_rel_ci says (the window only reads: the meter notes a wide one). */
static const double noisy_mw[] = { 12000, 13000, 11000, 12500, 11500, 13200, 10800, 12200,
                                   11700, 12900 };
static void test_interval_follows_the_spread(void **state)
{
    struct script_cfg cfg = { 200, 50, 100, noisy_mw, 10 };
    struct tb_power_cfg pc;
    struct tb_sampler *s = scripted(&cfg, &pc);
    struct tb_power_figures f;
    over(s, &pc, base + 1000 * MS, base + 2000 * MS, &f);
    assert_int_equal(f.updates, 10);
    assert_true(pc.max_rel_ci < 0.04);   /* the default 3%: narrower than this interval */
    assert_false(f.withheld);
    assert_string_equal(f.why, "");
    /* the ten values: mean 12.08 W, sd 833.7 mW; t(9) 2.262 x 833.7 / sqrt(10) = 596 mW,
     * 4.94% of the mean (the trapezoid's mean here is the same to 0.1%) */
    th_assert_close(f.total_w_ci / f.total_w, 0.04937, 0.0005);
    tb_sampler_stop(s, NULL);
}

/* An energy counter (NVML's: a new total every 100 ms) polled every 30 ms: our polls see
 * its updates 90 or 120 ms apart, so the power of each increment over the polled span
 * swings by a third although the card draws a steady 460 W. Each increment over the whole
 * counter periods it spans is steady: the interval is narrow and the figure stands. */
static int counter_sample(void *st, struct tb_power_sample *out, char *why, size_t n)
{
    struct script *s = st;
    if (s->next >= s->cfg.n)
        return -EAGAIN;
    int64_t at_ms = (int64_t)s->next++ * s->cfg.step_ms;
    out->t_ns = base + at_ms * MS;
    out->rail_mw[0] = NAN;
    out->energy_mj = 1e6 + (double)(at_ms / s->cfg.update_ms) * 46000.0;   /* 460 W */
    return 0;
}

static void counter_cadence(void *st, struct tb_power_cadence *c)
{
    tb_strlcpy(c->how, "energy counter", sizeof(c->how));
}

static const struct tb_power_ops counter_ops = {
    .name = "counter", .help = "scripted energy counter", .state_size = sizeof(struct script),
    .open = script_open, .sample = counter_sample, .close = script_close,
    .cadence = counter_cadence,
};

static void test_counter_increments_by_period(void **state)
{
    struct tb_power_cfg pc;
    memset(&pc, 0, sizeof(pc));
    pc.interval_ms = 30;
    pc.min_readings = 10;
    pc.max_rel_ci = 0.03;
    pc.window_ms = 1000;
    tb_strlcpy(pc.total_rail, "VDD_IN", sizeof(pc.total_rail));
    script_now = (struct script_cfg){ 200, 30, 100, alternating, 2 };
    struct tb_sampler *s;
    char why[256];
    assert_int_equal(tb_sampler_start(&s, &counter_ops, &pc, 1, 256, why, sizeof(why)), 0);
    wait_readings(s, base, base + 199 * 30 * MS, 200, 30);
    double p = learn_cadence(s, &pc, base, base + 2000 * MS);
    assert_true(p >= 90 && p <= 120);
    struct tb_power_figures f;
    over(s, &pc, base + 2000 * MS, base + 3500 * MS, &f);
    assert_false(f.withheld);
    assert_true(f.updates >= 14);
    th_assert_close(f.total_w, 460, 460 * 0.08);   /* the edges fall between updates */
    assert_true(f.total_w_ci / f.total_w < 0.005);
    tb_sampler_stop(s, NULL);
}

/* A draw that creeps up 9% across the window, with readings that agree closely with their
 * neighbours: the readings alone say +-1.2%, the means of four spans of it show the drift
 * as an interval wider than power.max_rel_ci (given, not withheld: the window only reads);
 * with power.batches = 1 the drift goes unseen. */
static const double creeping_mw[] = {
    10000, 10045, 10090, 10135, 10180, 10225, 10270, 10315, 10360, 10405, 10450, 10495, 10540,
    10585, 10630, 10675, 10720, 10765, 10810, 10855 };
static void test_batches_show_a_drift(void **state)
{
    struct script_cfg cfg = { 100, 50, 100, creeping_mw, 20 };
    struct tb_power_cfg pc;
    struct tb_sampler *s = scripted(&cfg, &pc);
    struct tb_power_figures f;
    pc.batches = 1;
    over(s, &pc, base, base + 2000 * MS, &f);
    assert_false(f.withheld);
    assert_true(f.total_w_ci / f.total_w < 0.02);
    /* one reading's noise for the meter's plan, from successive differences: the creep's
     * 45 mW steps (their median over 0.954, 0.45%; the script's wrap from its last reading
     * to its first a step left out), not the 2.5% spread about the mean the creep makes */
    if (!(f.reading_rel_sd > 0.004 && f.reading_rel_sd < 0.005))
        th_fail("reading_rel_sd %g", f.reading_rel_sd);
    pc.batches = 4;
    over(s, &pc, base, base + 2000 * MS, &f);
    assert_false(f.withheld);
    if (!(f.total_w_ci / f.total_w > pc.max_rel_ci))
        th_fail("the drift unseen: +-%g%% of %g W", 100 * f.total_w_ci / f.total_w, f.total_w);
    tb_sampler_stop(s, NULL);
}

int main(void)
{
    tb_clock_fake(base);   /* the samplers' polls and this test's waits: virtual time */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cadence_sizes_the_window),
        cmocka_unit_test(test_interval_follows_the_spread),
        cmocka_unit_test(test_counter_increments_by_period),
        cmocka_unit_test(test_batches_show_a_drift),
        cmocka_unit_test(test_stall_gives_no_watts),
        cmocka_unit_test(test_stop_waits_no_grace),
        cmocka_unit_test(test_emc_clock_from_sysfs),
        TH_TEST(test_run_with_a_stalled_tegrastats),
    };
    return cmocka_run_group_tests_name("power_window", tests, NULL, NULL);
}
