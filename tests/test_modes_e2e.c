/* test_modes_e2e.c: the mode sweep end to end, the real binary on the CPU backend over the
 * Orin Nano Super's R36 root (modes_boards.h) through tests/fake-nvpmodel.sh: three modes
 * and their Pareto front, a run killed or signalled mid-sweep and restored, a live run under
 * another lock left alone, every step refused, tune refusing modes, skipped steps named on
 * the front, a desktop refused, and a step's EMC cap in its ceiling. */
#include "helpers.h"
#include "modes_boards.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "lib/util.h"

#define slurp mb_slurp
#define read_mhz mb_mhz
#define status_mode mb_mode
#define exists mb_exists

/* ---- end to end: the real binary, the CPU backend, a sensor whose watts follow the mode -- */

#define HWMON "sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1"

/* An Orin Nano Super in MAXN_SUPER with its INA3221 (updating every 50 ms) and model. */
static const char *super_board(void)
{
    const char *r = super_root(2);
    assert_true(th_build_sysfs(r, "ina3221/orin-nano.txt", 1) > 10);
    free(th_write(r, HWMON "/update_interval", "50\n"));
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    return r;
}

static char *csv_col(const char *h, const char *row, const char *col)
{
    static char v[8][256];
    static int k;
    k = (k + 1) % 8;
    if (th_field(h, row, col, v[k], sizeof(v[k])) < 0)
        th_fail("no column '%s'", col);
    return v[k];
}

/* compare --pareto on the three modes' log: the front and its knee, in CSV, JSON and a
 * page (see test_e2e_three_modes_pareto). */
static void check_front(const char *log, const char *r)
{
    int rc;
    rc = th_runf("compare --pareto --format csv %s", log);
    if (rc != 0)
        th_fail("compare exit %d: %s", rc, th_err());
    const char *out = th_out(), *ph = out, *pr = out;
    double x[3], y[3];
    char front[3][8], knee[3][8], mode[3][64];
    for (int i = 0; i < 3; i++) {
        pr = strchr(pr, '\n');
        assert_non_null(pr);
        pr++;
        tb_strlcpy(mode[i], csv_col(ph, pr, "power_mode"), sizeof(mode[i]));
        x[i] = atof(csv_col(ph, pr, "dyn_pj_per_byte"));
        y[i] = atof(csv_col(ph, pr, "gbps"));
        tb_strlcpy(front[i], csv_col(ph, pr, "front"), sizeof(front[i]));
        tb_strlcpy(knee[i], csv_col(ph, pr, "knee"), sizeof(knee[i]));
    }
    assert_null(strchr(strchr(pr, '\n') + 1, ','));   /* three operating points, no more */
    assert_string_equal(mode[0], "15W (0)");             /* the least energy: always on it */
    assert_string_equal(front[0], "yes");
    int knees = 0;
    for (int i = 0; i < 3; i++) {
        knees += !strcmp(knee[i], "knee");
        if (!strcmp(knee[i], "knee"))
            assert_string_equal(front[i], "yes");
        if (!strcmp(front[i], "no")) {   /* dominated: some front point moves more for less */
            bool dom = false;
            for (int j = 0; j < 3; j++)
                dom |= !strcmp(front[j], "yes") && x[j] <= x[i] && y[j] >= y[i];
            assert_true(dom);
        }
        if (i && !strcmp(front[i], "yes"))   /* along the front, more energy buys more GB/s */
            assert_true(x[i] > x[i - 1] && y[i] > y[i - 1]);
    }
    assert_int_equal(knees, 1);
    rc = th_runf("compare --pareto --format json %s", log);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(th_out(), "\"pareto\": ["));
    assert_non_null(strstr(th_out(), "\"knee\": \"knee\""));
    /* the page: one chart of the front, every point above zero drawn (a dynamic energy at
     * or below idle has no place on the axis: under qemu the fake's watts, which follow the
     * tool's CPU time, once put the least-energy mode there), the knee ringed and named
     * where it is drawn; its table row always */
    char page[PATH_MAX];
    snprintf(page, sizeof(page), "%s/front.html", r);
    rc = th_runf("compare --pareto --html %s %s", page, log);
    if (rc != 0)
        th_fail("compare --pareto --html exit %d: %s", rc, th_err());
    char *html = th_keep(th_read_gz(page));
    assert_non_null(strstr(html, "GB/s against dynamic energy per byte"));
    assert_non_null(strstr(html, "15W (0)"));
    assert_null(strstr(html, "block -"));   /* copy_row takes no block: its label says none */
    size_t dots = 0, above = 0;
    double knee_x = NAN;
    for (int i = 0; i < 3; i++) {
        above += x[i] > 0;
        if (!strcmp(knee[i], "knee"))
            knee_x = x[i];
    }
    for (const char *q = html; (q = strstr(q, "r=\"4\"")); q++)
        dots++;
    assert_int_equal(dots, above);
    if (knee_x > 0) {
        assert_non_null(strstr(html, " (knee)</text>"));
        assert_non_null(strstr(html, "r=\"9\" fill=\"none\""));   /* the ring */
    }
    assert_non_null(strstr(html, "yes, the knee"));
}

/* Three modes swept in one night: each row carries its mode and clocks, the board ends in
 * the mode it started in, and compare --pareto finds the front and its knee: the 15W mode,
 * whose dynamic watts are lowest for the CPU's unchanged GB/s, is on it and is the knee or
 * left of it; every point off the front is dominated by one on it. */
static void test_e2e_three_modes_pareto(void **state)
{
    (void)state;
    const char *r = super_board();
    /* the sensor, whose watts follow the mode and how busy the load kept the device, is the
     * test-only executable's fake driver (tests/fake_ina_driver.c), on the tool's virtual
     * clock: a busy machine cannot starve it of updates, nor its watts of the load */
    char drv[PATH_MAX + 8];
    snprintf(drv, sizeof(drv), "%s,modes", r);
    setenv("TB_TEST_INA_DRIVER", drv, 1);
    setenv("TB_FAKE_CLOCK", "1", 1);
    setenv("TB_FAKE_CLOCK_WORK", "10", 1);   /* its load: 100 ms of real work a second */
    th_use_hooks_binary();
    char logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", r);
    /* every step here settles: a long limit costs nothing, and under the sanitizers on a
     * busy machine 400 ms was too short for the fake nvpmodel (a step skipped, in CI) */
    setenv("TB_MODE_SETTLE_MS", "20000", 1);
    int rc = th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 512x512 "
                     "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                     "--set 'sweep.power_modes=[\"15W\", \"25W\", \"MAXN_SUPER\"]' "
                     "--set power.interval_ms=10 --set power.window_ms=100 "
                     "--set power.idle_ms=100 --set power.max_rel_ci=0.5 "
                     /* one round, no warming: this is about the modes and their front; a
                      * CPU copy's GB/s moves between rounds (60% under qemu) */
                     "--set power.rounds=1 --set power.settle_s=0 "
                     "--set power.sysfs_root=%s -o %s", r, logs);
    if (rc != 0)
        th_fail("run exit %d: %s", rc, th_err());
    /* the summary names each row's step: three rows of one point are told apart */
    if (!strstr(th_out(), "power mode") || !strstr(th_out(), "15W (0)") ||
        !strstr(th_out(), "MAXN_SUPER (2)"))
        th_fail("summary without the steps:\n%s", th_out());
    assert_int_equal(status_mode(r), 2);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    char *log = th_keep(th_find_one(logs, ".csv.gz"));
    char *text = th_keep(th_read_gz(log));
    assert_non_null(strstr(text, "# mode_step: step 1 of 3, mode 15W (0): GPU max 612 MHz, "
                                 "EMC top rate 2133 MHz read after it settled\n"));
    assert_non_null(strstr(text, "# modes_restored: mode MAXN_SUPER (2), GPU max 1020 MHz"));
    const char *h = strstr(text, "\nrun_id,") + 1, *row = h;
    const char *want_mode[] = { "15W (0)", "25W (1)", "MAXN_SUPER (2)" };
    double want_gpu[] = { 612, 918, 1020 }, dyn[3];
    for (int i = 0; i < 3; i++) {
        do
            row = strchr(row, '\n') + 1;
        while (row[0] == '#');
        assert_string_equal(csv_col(h, row, "power_mode"), want_mode[i]);
        th_assert_close(atof(csv_col(h, row, "gpu_max_mhz")), want_gpu[i], 0);
        assert_string_equal(csv_col(h, row, "gpu_cap_asked_mhz"), "");
        dyn[i] = atof(csv_col(h, row, "dyn_pj_per_byte"));
        if (!csv_col(h, row, "dyn_pj_per_byte")[0])
            th_fail("row %d has no dynamic energy: %s", i, csv_col(h, row, "power_note"));
    }
    if (!(dyn[0] < dyn[1] && dyn[1] < dyn[2]))
        th_fail("dynamic pJ/B not in the modes' order: %g %g %g", dyn[0], dyn[1], dyn[2]);
    check_front(log, r);
}

/* The tool started in the background (TB_BIN as th_run has it), its output dropped: a long
 * two-step mode sweep of one slow point on root r, logs in logs. Returns its pid. */
static pid_t spawn_sweep(const char *r, const char *modes, const char *logs)
{
    char args[3 * PATH_MAX];
    snprintf(args, sizeof(args), "run --device cpu -b boards/jetson-orin-nano.cfg "
             "--sizes 256x256 --kernels copy_row --set sweep.stop.min_time_ms=20000 "
             "--set sweep.stop.max_time_ms=20000 --set sweep.stop.max_reps=10000000 "
             "--set 'sweep.power_modes=%s' --set power.sysfs_root=%s -o %s", modes, r, logs);
    return mb_spawn_tool(args);
}

/* A run SIGKILLed mid-sweep leaves the board in another mode and its state file: the next
 * run puts it back and says so in its log; `restore` does the same on its own. */
static void test_killed_run_restored(void **state)
{
    (void)state;
    const char *r = super_root(2);
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    const char *sp = getenv("TB_MODE_STATE");
    for (int round = 0; round < 2; round++) {
        char logs[PATH_MAX];
        snprintf(logs, sizeof(logs), "%s/logs%d", r, round);
        pid_t pid = spawn_sweep(r, "[\"7W\", \"15W\"]", logs);
        /* until the first step took: the state file written, the board in 7W */
        for (int i = 0; i < 300 && !(exists(sp) && status_mode(r) == 3); i++) {
            struct timespec ts = { 0, 50 * 1000000L };
            nanosleep(&ts, NULL);
        }
        assert_true(exists(sp));
        assert_int_equal(status_mode(r), 3);
        assert_int_equal(kill(pid, SIGKILL), 0);   /* our own child */
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st));
        assert_int_equal(status_mode(r), 3);       /* nobody restored it */
        if (round == 0) {
            assert_int_equal(th_runf("restore"), 0);
            assert_non_null(strstr(th_err(), "died with the board changed"));
        } else {
            int rc = th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 64x64 "
                             "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                             "--set power.sysfs_root=%s -o %s/next", r, r);
            assert_int_equal(rc, 0);
            char dir[PATH_MAX];
            snprintf(dir, sizeof(dir), "%s/next", r);
            char *log = th_keep(th_find_one(dir, ".csv.gz"));
            char *text = th_keep(th_read_gz(log));
            if (!strstr(text, "# modes_restored: a run (pid "))
                th_fail("no modes_restored line:\n%.3000s", text);
            assert_non_null(strstr(text, "mode MAXN_SUPER (2), GPU max 1020 MHz"));
        }
        assert_int_equal(status_mode(r), 2);
        th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
        assert_false(exists(sp));
    }
    assert_int_equal(th_runf("restore"), 0);      /* nothing left: nothing to do */
    assert_non_null(strstr(th_err(), "nothing to restore"));
    /* @reboot's --quiet: nothing said when nothing is to do (cron mails what a job prints) */
    assert_int_equal(th_runf("restore --quiet"), 0);
    assert_string_equal(th_err(), "");
    assert_int_equal(th_runf("restore -q extra"), 2);
}

/* SIGINT, SIGTERM, SIGHUP, and the other signals that end a process by default (SIGQUIT,
 * SIGUSR1, a real-time one: #50) mid-sweep: the run stops, puts the board back, and its log
 * says what was restored before its end line. */
static void test_signal_restores(void **state)
{
    (void)state;
    const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGRTMIN + 1 };
    for (int k = 0; k < (int)(sizeof(sigs) / sizeof(sigs[0])); k++) {
        const char *r = super_root(2);
        free(th_write(r, "proc/device-tree/model",
                      "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
        char logs[PATH_MAX];
        snprintf(logs, sizeof(logs), "%s/logs", r);
        pid_t pid = spawn_sweep(r, "[\"15W\", \"7W\"]", logs);
        for (int i = 0; i < 300 && status_mode(r) != 0; i++) {
            struct timespec ts = { 0, 50 * 1000000L };
            nanosleep(&ts, NULL);
        }
        assert_int_equal(status_mode(r), 0);
        assert_int_equal(kill(pid, sigs[k]), 0);   /* our own child */
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
        assert_int_equal(status_mode(r), 2);
        th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
        assert_false(exists(getenv("TB_MODE_STATE")));
        char *log = th_keep(th_find_one(logs, ".csv.gz"));
        assert_non_null(log);
        char *text = th_keep(th_read_gz(log));
        const char *restored = strstr(text, "# modes_restored: mode MAXN_SUPER (2)");
        const char *end = strstr(text, "# end: interrupted by ");
        if (!restored || !end || restored > end)
            th_fail("signal %d: no restore before the end line:\n%.3000s", sigs[k], text);
        assert_null(strstr(text, "mode 7W (3)"));   /* the second step never started */
    }
}

/* A live sweep that took another lock file (another TB_LOCK_FILE; a /tmp cleaned under
 * it): `restore` must not put the board back under it (its rows would name a mode the board
 * is no longer in); the run restores its own changes when it ends. */
static void test_live_run_under_another_lock(void **state)
{
    (void)state;
    const char *r = super_root(2);
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    const char *sp = getenv("TB_MODE_STATE");
    char logs[PATH_MAX], other[PATH_MAX], mine[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", r);
    snprintf(other, sizeof(other), "%s/other.lock", r);
    tb_strlcpy(mine, getenv("TB_LOCK_FILE"), sizeof(mine));
    setenv("TB_LOCK_FILE", other, 1);
    pid_t pid = spawn_sweep(r, "[\"7W\", \"15W\"]", logs);
    setenv("TB_LOCK_FILE", mine, 1);
    for (int i = 0; i < 300 && !(exists(sp) && status_mode(r) == 3); i++) {
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
    int before = status_mode(r);
    int rc = th_runf("restore");
    int after = status_mode(r);
    bool kept = exists(sp);
    assert_int_equal(kill(pid, SIGTERM), 0);      /* our own child: it restores itself */
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);  /* before any check: never left running */
    assert_int_equal(before, 3);
    if (rc != 1 || !strstr(th_err(), "is a live run's (pid"))
        th_fail("restore under a live run: exit %d: %s", rc, th_err());
    assert_int_equal(after, 3);                   /* the live run's mode, untouched */
    assert_true(kept);
    assert_int_equal(status_mode(r), 2);
    assert_false(exists(sp));
}

/* Every mode refused: a failed night (exit 1) whose words point at the mode_step lines, not
 * at rows there are none of; a state file that is a link: no mode changed, and the end line
 * says so rather than "NOT restored". */
/* A night of 15W and 25W on an Orin Nano Super in MAXN_SUPER with the fake nvpmodel's faults
 * (FAKE_NVPM_FAULT's words), logs in ROOT/logs; the run's exit code. */
static int two_mode_night(const char **root, const char *faults)
{
    const char *r = *root = super_root(2);
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    setenv("FAKE_NVPM_FAULT", faults, 1);
    return th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 64x64 "
                   "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                   "--set 'sweep.power_modes=[\"15W\", \"25W\"]' "
                   "--set power.sysfs_root=%s -o %s/logs", r, r);
}

static void test_every_step_refused(void **state)
{
    (void)state;
    const char *r;
    int rc = two_mode_night(&r, "refuse:0 refuse:1");
    assert_int_equal(rc, 1);
    assert_non_null(strstr(th_err(), "nothing was measured: every mode step was skipped"));
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/logs", r);
    char *log = th_keep(th_find_one(dir, ".csv.gz"));
    char *text = th_keep(th_read_gz(log));
    assert_non_null(strstr(text, "2 of 2 mode steps skipped"));
    assert_null(strstr(text, "NOT all restored"));
    assert_int_equal(status_mode(r), 2);
    unsetenv("FAKE_NVPM_FAULT");
    assert_int_equal(symlink("/nonexistent", getenv("TB_MODE_STATE")), 0);
    rc = th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 64x64 "
                 "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                 "--set 'sweep.power_modes=[\"15W\"]' "
                 "--set power.sysfs_root=%s -o %s/logs2", r, r);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(th_err(), "no power mode or clock could be changed"));
    snprintf(dir, sizeof(dir), "%s/logs2", r);
    log = th_keep(th_find_one(dir, ".csv.gz"));
    text = th_keep(th_read_gz(log));
    assert_non_null(strstr(text, "power modes not changed, none of 1 mode steps run"));
    assert_null(strstr(text, "NOT all restored"));
    assert_int_equal(status_mode(r), 2);
}

/* tune never switches modes: a sweep file or --set asking modes or caps is refused naming
 * where, before anything runs (the board as found, no state file). */
static void test_tune_refuses_modes(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char *cfg = th_write(r, "modes.cfg", "sweep = {\n  kernels = [\"copy_row\"];\n"
                                          "  gpu_max_mhz = [612];\n};\n");
    assert_int_equal(th_runf("tune --device cpu --sizes 64x64 -c %s", cfg), 2);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof(want), "%s:3: tune measures the board in the mode it is in", cfg);
    if (!strstr(th_err(), want))
        th_fail("tune with a cap: '%s' lacks '%s'", th_err(), want);
    assert_int_equal(th_runf("tune --device cpu --sizes 64x64 --kernels copy_row "
                             "--set 'sweep.power_modes=[\"15W\"]'"), 2);
    assert_non_null(strstr(th_err(), "--set sweep.power_modes"));
    assert_non_null(strstr(th_err(), "never switches it"));
    assert_int_equal(status_mode(r), 2);
    assert_false(exists(getenv("TB_MODE_STATE")));
    free(cfg);
}

/* A step the sweep skipped is on no front: compare --pareto names it with its reason, in the
 * page's notes (table, markdown) or on stderr (CSV, JSON), so that a front missing a mode
 * never reads as if the mode had not been asked. */
static void test_pareto_names_skipped_steps(void **state)
{
    (void)state;
    const char *r;
    int rc = two_mode_night(&r, "refuse:1");
    unsetenv("FAKE_NVPM_FAULT");
    if (rc != 0)
        th_fail("run exit %d: %s", rc, th_err());
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/logs", r);
    char *log = th_keep(th_find_one(dir, ".csv.gz"));
    th_runf("compare --pareto %s", log);
    const char *want = "1 mode step skipped, on no front: step 2 of 2, mode 25W (1): skipped, "
                       "refused: mode 25W (1) refused: nvpmodel exit 1";
    if (!strstr(th_out(), want))
        th_fail("compare --pareto: '%s' lacks '%s'", th_out(), want);
    th_runf("compare --pareto --format csv %s", log);
    assert_null(strstr(th_out(), "skipped"));   /* the data stays data */
    assert_non_null(strstr(th_err(), want));
}

/* A mode sweep where nvpmodel is absent (a desktop): exit 2 before anything runs. */
static void test_desktop_refused(void **state)
{
    (void)state;
    const char *r = th_scratch();
    setenv("TB_ROOT", r, 1);
    int rc = th_runf("run --device cpu --sizes 64x64 --kernels copy_row "
                     "--set 'sweep.power_modes=[\"MAXN\"]' -o %s/logs", r);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(th_err(), "the power-mode sweep needs a Jetson's nvpmodel"));
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/logs", r);
    assert_false(exists(dir) && th_count_files(dir) > 0);
}

/* A step that asks an EMC cap is judged against that cap, read back after the step settled,
 * not against the mode's table: on one Orin Nano Super, 15W (EMC 2133 MHz in its table)
 * capped at 1600 MHz gets 1600/2133 of the uncapped 15W step's peak_gbps, frac_peak follows
 * it, and the step's ceiling line says where the rate came from. A normal user reads no live
 * EMC clock, so nothing else would show the cap (#31 review). */
static void test_emc_cap_step_ceiling(void **state)
{
    (void)state;
    const char *r = super_root(2);
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    const char *caps[] = { "", " --set 'sweep.emc_max_mhz=[1600]'" };
    const double cap_read[] = { 2133, 1600 };
    double peak[2];
    char ceiling[2][512];
    for (int k = 0; k < 2; k++) {
        char logs[PATH_MAX];
        snprintf(logs, sizeof(logs), "%s/logs%d", r, k);
        int rc = th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 64x64 "
                         "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                         "--set 'sweep.power_modes=[\"15W\"]'%s "
                         "--set power.sysfs_root=%s -o %s", caps[k], r, logs);
        if (rc != 0)
            th_fail("run %d exit %d: %s", k, rc, th_err());
        char *text = th_keep(th_read_gz(th_keep(th_find_one(logs, ".csv.gz"))));
        /* the step's own ceiling line: the first after its mode_step line */
        const char *step = strstr(text, "# mode_step: step 1 of 1, mode 15W (0)");
        if (!step)
            th_fail("run %d: no step that took:\n%.3000s", k, text);
        const char *line = strstr(step, "\n# ceiling: ");
        assert_non_null(line);
        line += strlen("\n# ceiling: ");
        size_t len = strcspn(line, "\n");
        snprintf(ceiling[k], sizeof(ceiling[k]), "%.*s", (int)(len < 511 ? len : 511), line);
        const char *h = strstr(text, "\nrun_id,") + 1, *row = h;
        do
            row = strchr(row, '\n') + 1;
        while (row[0] == '#');
        assert_string_equal(csv_col(h, row, "power_mode"), "15W (0)");
        th_assert_close(atof(csv_col(h, row, "emc_cap_mhz")), cap_read[k], 0);
        assert_string_equal(csv_col(h, row, "peak_source"), "nvpmodel EMC cap");
        peak[k] = atof(csv_col(h, row, "peak_gbps"));
        double gbps = atof(csv_col(h, row, "gbps")), frac = atof(csv_col(h, row, "frac_peak"));
        if (!(fabs(frac * peak[k] - gbps) <= 0.002 * gbps + 0.01))
            th_fail("run %d: frac_peak %g is not gbps %g / peak_gbps %g", k, frac, gbps, peak[k]);
    }
    th_assert_close(peak[0], 68.3, 0);
    th_assert_close(peak[1], peak[0] * 1600 / 2133, 0.1);   /* both rounded to 0.1 GB/s */
    /* R36 says the EMC's top rate itself (nvpmodel_clk_cap/emc): the mode's 2133 MHz, then
     * the 1600 MHz asked */
    if (!strstr(ceiling[0], "68.3 GB/s (nvpmodel EMC cap): ") ||
        !strstr(ceiling[0], "nvpmodel mode 15W (0): /sys/kernel/nvpmodel_clk_cap/emc reads the "
                            "EMC's top rate, 2133 MHz") ||
        strstr(ceiling[0], "cap asked"))
        th_fail("uncapped step's ceiling: '%s'", ceiling[0]);
    if (!strstr(ceiling[1], "51.2 GB/s (nvpmodel EMC cap): ") ||
        !strstr(ceiling[1], "reads the EMC's top rate, 1600 MHz"))
        th_fail("capped step's ceiling: '%s'", ceiling[1]);
    assert_int_equal(status_mode(r), 2);        /* the board as found, the cap undone */
    th_assert_close(read_mhz(r, EMC_TOP), 3199, 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    th_own_lock("modes-e2e");   /* per process, removed at its exit */
    const struct CMUnitTest tests[] = {
        TH_TEST(test_desktop_refused),
        TH_TEST(test_tune_refuses_modes),
        TH_TEST(test_pareto_names_skipped_steps),
        TH_TEST(test_killed_run_restored),
        TH_TEST(test_signal_restores),
        TH_TEST(test_live_run_under_another_lock),
        TH_TEST(test_every_step_refused),
        TH_TEST(test_e2e_three_modes_pareto),
        TH_TEST(test_emc_cap_step_ceiling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
