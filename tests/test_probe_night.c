/* test_probe_night.c: what a night does with the board's probe result (src/cmd/probe_night.c),
 * in this process on the fake clock, against the fake Orin NX hwmon tree (update_interval
 * 430 ms, samples 512, as L4T's nvpower.sh sets them) whose VDD_IN current a thread of this
 * test moves as TI's INA3221 does (SBOS576, "Averaging function": after every conversion the
 * register moves by (sample - register) / N, one conversion of the channel every 0.84 ms;
 * test_probe.c's sensor), the true power following how busy the load kept the device. The
 * night's own steps are called as run.c calls them: the probe first where power.probe says,
 * the night's sampler, the result put in its cadence, and the meter's cadence line (the
 * log's `# power_cadence:` line begins with it). */
#include "helpers.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/probe_night.h"
#include "energy/meter.h"
#include "energy/stepfit.h"
#include "power/ina3221.h"
#include "lib/clock.h"
#include "probe_board.h"

#define RESULT "probe-jetson-orin-nx-R35.4.1.cfg"

static const char *scratch;

static struct gen {
    char root[512];
    int avg_n;
    pthread_t th;
    atomic_int stop;
    bool running;
} g;

/* The sensor of test_probe.c: idle 4.6 W, +3.0 W while the device is busy, 2% noise a
 * conversion in the 8 mA steps of a 5 mOhm shunt, SBOS576's average of N. */
static void *gen_main(void *arg)
{
    struct pb_sensor b;
    int64_t t0 = pb_begin(&b, g.root, g.avg_n, 4242), next = t0;
    while (!atomic_load(&g.stop)) {
        tb_sleep_until_ns(next);
        pb_step(&b, next);
        next += STEP_NS;
    }
    tb_clock_leave();
    return NULL;
}

/* The fake Orin NX (update_interval 430, samples 512, L4T R35.4.1); with a sensor of N
 * when avg_n > 0. */
static void board_up(int avg_n)
{
    snprintf(g.root, sizeof g.root, "%s/root", scratch);
    assert_true(th_build_sysfs(g.root, "ina3221/orin-nx.txt", 1) > 0);
    pb_put(g.root, HWMON "/update_interval", 430);
    pb_put(g.root, HWMON "/samples", 512);
    free(th_write(g.root, "etc/nv_tegra_release",
                  "# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: "
                  "aarch64, DATE: Tue Aug  1 19:57:35 UTC 2023\n"));
    setenv("TB_ROOT", g.root, 1);
    g.avg_n = avg_n;
    g.running = avg_n > 0;
    atomic_store(&g.stop, 0);
    if (g.running) {
        tb_clock_join();
        assert_int_equal(pthread_create(&g.th, NULL, gen_main, NULL), 0);
    }
}

static void board_down(void)
{
    atomic_store(&g.stop, 1);
    if (g.running)
        tb_clock_thread_join(g.th);   /* by the clock: no grace (#59) */
    g.running = false;
}

/* A night's start as run.c makes it: the board file and settings, the CPU backend open,
 * the probe first, the sampler, the result used, the meter's cadence line into line;
 * stderr into *err (malloc). Returns what the probe step did (pn.ran). */
struct night {
    char line[2048];
    char *err;
    int ran;
    char path[PATH_MAX];
};

static void night_start_budget(struct night *nt, const char *probe_setting, double budget_s);

static void night_start(struct night *nt, const char *probe_setting)
{
    night_start_budget(nt, probe_setting, 120);
}

/* One point measured for energy, power.budget_s of budget_s: the night's energy budget. */
static void night_start_budget(struct night *nt, const char *probe_setting, double budget_s)
{
    struct tb_config cfg;
    struct tb_diag d = { 0 };
    char set[1200];
    tb_config_init(&cfg);
    snprintf(set, sizeof set, "power.sysfs_root=%s", g.root);
    tb_config_add_set(&cfg, set, &d);
    snprintf(set, sizeof set, "output.dir=%s/logs", scratch);
    tb_config_add_set(&cfg, set, &d);
    snprintf(set, sizeof set, "power.probe=%s", probe_setting);
    tb_config_add_set(&cfg, set, &d);
    snprintf(set, sizeof set, "power.budget_s=%g", budget_s);
    tb_config_add_set(&cfg, set, &d);
    assert_int_equal(tb_config_load(&cfg, NULL, "boards/jetson-orin-nx.cfg", &d), 0);
    const struct tb_backend *be;
    int index = 0, prc = 0;
    char why[1024];
    assert_int_equal(tb_backend_select("cpu", &be, &index, why, sizeof why, &prc), 0);
    void *st = tb_backend_new(be);
    struct tb_device_info dev;
    assert_int_equal(be->open(st, index, &dev, why, sizeof why), 0);
    volatile sig_atomic_t stop = 0;
    struct tb_point pt = { tb_kernel_copy_ref(be->id), 256, 256, 32, 8, 0, false, false, "" };
    struct tb_probe_night pn = { .cfg = &cfg, .ops = &tb_power_ina3221, .l4t = "R35.4.1",
                                 .be = be, .be_st = st, .dev = &dev, .pts = &pt, .npts = 1,
                                 .stop = &stop };
    th_stderr_begin();
    tb_probe_night_first(&pn);
    struct tb_sampler *s = NULL;
    assert_int_equal(tb_sampler_start(&s, &tb_power_ina3221, &cfg.board.power, 5, 4096, why,
                                      sizeof why), 0);
    tb_probe_night_use(&pn, s);
    nt->err = th_stderr_end();
    struct tb_meter *m = tb_meter_new(s, &cfg.board.power, &stop);
    assert_non_null(m);
    tb_meter_cadence_line(m, nt->line, sizeof nt->line);
    tb_meter_free(m);
    tb_sampler_stop(s, NULL);
    be->close(st);
    free(st);
    nt->ran = pn.ran;
    snprintf(nt->path, sizeof nt->path, "%s", pn.path);
    tb_config_free(&cfg);
    tb_diag_free(&d);
}

/* A kept result planted at the name a night reads: the probe's own text. */
static char *plant(const char *model, double tau_ms)
{
    struct tb_stepfit f = { .model = model, .tau_ms = tau_ms, .delay_ms = 3, .rms_ema_w = 0.01,
                           .rms_boxcar_w = 0.05 };
    char text[1024];
    assert_true(tb_stepfit_format(&f, "jetson-orin-nx", "R35.4.1", text, sizeof text) > 0);
    char dir[700];
    snprintf(dir, sizeof dir, "%s/logs", scratch);
    return th_write(dir, RESULT, text);
}

/* The model from sysfs, as the night had it before: hwmon's update_interval and samples */
static void must_be_sysfs(const char *line)
{
    if (!strstr(line, "model ema, tau 430 ms (INA3221 averaging") ||
        !strstr(line, "chip 1: update_interval 430 ms, samples 512 (sysfs)"))
        th_fail("not the sysfs model: %s", line);
}

/* A result that agrees with sysfs (tau 425 against 429.6) and one that does not (215):
 * the night takes the probe's, says where it came from, and the disagreement beyond 10%. */
static void test_night_takes_probe_result(void **state)
{
    scratch = th_scratch();
    board_up(0);
    struct night nt;
    char *path = plant("ema", 425);
    night_start(&nt, "never");
    assert_int_equal(nt.ran, 0);
    char want[PATH_MAX + 200];
    snprintf(want, sizeof want, "model ema, tau 425 ms (from probe %s (", path);
    if (!strstr(nt.line, want) || !strstr(nt.line, " UTC); sysfs said ema 430 ms: agrees (-1%)"))
        th_fail("no probe model in: %s\n%s", nt.line, nt.err);
    assert_null(strstr(nt.line, "DISAGREES"));
    assert_true(strstr(nt.line, "each block inverted") != NULL);
    free(nt.err);
    free(path);
    path = plant("ema", 215);
    night_start(&nt, "auto");   /* a result is there: auto does not probe again */
    assert_int_equal(nt.ran, 0);
    if (!strstr(nt.line, "model ema, tau 215 ms (from probe ") ||
        !strstr(nt.line, "sysfs said ema 430 ms: the probe DISAGREES (ema 215 ms, -50%)"))
        th_fail("no disagreement in: %s", nt.line);
    free(nt.err);
    free(path);
    /* each rail fitted by itself (#57): each rail's own constant, a rail of no step keeps
     * what sysfs said (not the total's, on an AGX board a blend of two chips) */
    char dir[700];
    snprintf(dir, sizeof dir, "%s/logs", scratch);
    pb_put(g.root, HWMON "/in2_input", 5100);   /* the fixture's other two rails read */
    pb_put(g.root, HWMON "/in3_input", 5100);
    free(th_write(dir, RESULT, TB_STEPFIT_HEAD ": kept\nboard = \"jetson-orin-nx\";\n"
                  "l4t = \"R35.4.1\";\nmodel = \"ema\";\ntau_ms = 425;\nrail1 = \"VDD_IN\";\n"
                  "rail1_model = \"ema\";\nrail1_tau_ms = 425;\nrail2 = \"VDD_CPU_GPU_CV\";\n"
                  "rail2_model = \"ema\";\nrail2_tau_ms = 300;\nrail3 = \"VDD_SOC\";\n"
                  "rail3_model = \"none\";\n"));
    night_start(&nt, "never");
    if (!strstr(nt.line, "model ema, tau 425/300/430 ms by rail (from probe ") ||
        !strstr(nt.line, "; each rail's own: VDD_IN 425 ms, VDD_CPU_GPU_CV 300 ms, VDD_SOC no "
                         "step (kept 430 ms)"))
        th_fail("no rail's own constant in: %s", nt.line);
    free(nt.err);
    /* a boxcar measured: the meter's blocks of whole refreshes, not the inversion */
    path = plant("boxcar", 430);
    night_start(&nt, "never");
    if (!strstr(nt.line, "model boxcar, tau 430 ms (from probe ") ||
        !strstr(nt.line, "the probe DISAGREES (boxcar 430 ms, +0%)") ||
        strstr(nt.line, "inverted"))
        th_fail("no boxcar in: %s", nt.line);
    free(nt.err);
    free(path);
    board_down();
}

/* A result another user could have planted: writable by others, or (as root) another
 * user's; a link. Each ignored with a warning that says why, the model sysfs's. */
static void test_night_refuses_planted_result(void **state)
{
    scratch = th_scratch();
    board_up(0);
    struct night nt;
    char *path = plant("ema", 215);
    assert_int_equal(chmod(path, 0666), 0);
    night_start(&nt, "never");
    must_be_sysfs(nt.line);
    th_must_have(nt.err, "warning: ");
    th_must_have(nt.err, "may be written by other users (mode 0666)");
    th_must_have(nt.line, " not used: writable by others (mode 0666)");
    free(nt.err);
    assert_int_equal(chmod(path, 0644), 0);
    if (geteuid() == 0) {   /* root never trusts another user's file */
        assert_int_equal(chown(path, 65534, 65534), 0);
        night_start(&nt, "never");
        must_be_sysfs(nt.line);
        th_must_have(nt.err, "belongs to uid 65534, not to this user or root");
        th_must_have(nt.err, "ignored");
        th_must_have(nt.line, " not used: another user's (uid 65534)");
        free(nt.err);
    }
    unlink(path);
    char target[1100];
    snprintf(target, sizeof target, "%s/elsewhere.cfg", scratch);
    free(plant("ema", 215));
    char *mine = plant("ema", 215);
    assert_int_equal(rename(mine, target), 0);
    assert_int_equal(symlink(target, path), 0);
    night_start(&nt, "never");
    must_be_sysfs(nt.line);
    th_must_have(nt.err, "a link, not followed");
    th_must_have(nt.line, " not used: a link");
    free(nt.err);
    free(mine);
    free(path);
    board_down();
}

/* A malformed result: an error naming its file, line and setting; the night goes on with
 * the model from sysfs and says so. */
static void test_night_malformed_result(void **state)
{
    scratch = th_scratch();
    board_up(0);
    char dir[700];
    snprintf(dir, sizeof dir, "%s/logs", scratch);
    char *path = th_write(dir, RESULT, TB_STEPFIT_HEAD ": hand-edited\nboard = \"x\";\n"
                          "l4t = \"R35.4.1\";\nmodel = \"cubic\";\ntau_ms = 430;\n");
    struct night nt;
    char want[800];
    night_start(&nt, "auto");
    assert_int_equal(nt.ran, 0);   /* a file is there: not probed over it */
    must_be_sysfs(nt.line);
    snprintf(want, sizeof want, "error: %s:4: model: '\"cubic\"' is not", path);
    th_must_have(nt.err, want);
    th_must_have(nt.err, "ignored, the sensor's model stays sysfs's");
    th_must_have(nt.line, " not used: malformed");
    free(nt.err);
    /* values a parser of finite numbers takes but no probe makes (#58): a 1e12 ms
     * constant (a night that never ends) and an exponential of 0 ms */
    static const char *const bad[][2] = {
        { "tau_ms = 1e12;\n", ":5: tau_ms: 1e12 is outside" },
        { "tau_ms = 0;\n", ":5: tau_ms: 0 with model \"ema\"" },
    };
    for (int i = 0; i < 2; i++) {
        char text[512];
        snprintf(text, sizeof text, TB_STEPFIT_HEAD ": hand-edited\nboard = \"jetson-orin-nx\";"
                 "\nl4t = \"R35.4.1\";\nmodel = \"ema\";\n%s", bad[i][0]);
        free(path);
        path = th_write(dir, RESULT, text);
        night_start(&nt, "auto");
        assert_int_equal(nt.ran, 0);
        must_be_sysfs(nt.line);
        snprintf(want, sizeof want, "error: %s%s", path, bad[i][1]);
        th_must_have(nt.err, want);
        th_must_have(nt.err, "ignored, the sensor's model stays sysfs's");
        th_must_have(nt.line, " not used: malformed");
        free(nt.err);
    }
    free(path);
    board_down();
}

/* A result of another release or board at this night's name (its folder's owner renamed
 * it, #58), and a folder another user owns: refused with a warning, the model sysfs's. */
static void test_night_refuses_renamed_result(void **state)
{
    scratch = th_scratch();
    board_up(0);
    char dir[700];
    snprintf(dir, sizeof dir, "%s/logs", scratch);
    static const char *const lines[][2] = {
        { "board = \"jetson-orin-nx\";\nl4t = \"R35.3.1\";\n",
          "l4t: \"R35.3.1\" is not this release's \"R35.4.1\"" },
        { "board = \"jetson-agx-orin\";\nl4t = \"R35.4.1\";\n",
          "board: \"jetson-agx-orin\" is not this board's \"jetson-orin-nx\"" },
        { "", "board: \"(none)\" is not" },
    };
    struct night nt;
    for (int i = 0; i < 3; i++) {
        char text[512];
        snprintf(text, sizeof text, TB_STEPFIT_HEAD ": kept\n%smodel = \"ema\";\n"
                 "tau_ms = 215;\n", lines[i][0]);
        char *path = th_write(dir, RESULT, text);
        night_start(&nt, "never");
        must_be_sysfs(nt.line);
        th_must_have(nt.err, "warning: ");
        th_must_have(nt.err, lines[i][1]);
        th_must_have(nt.line, " not used: kept for another board or release");
        free(nt.err);
        free(path);
    }
    if (geteuid() == 0) {   /* root's result in a folder another user owns */
        free(plant("ema", 215));
        assert_int_equal(chown(dir, 65534, 65534), 0);
        night_start(&nt, "never");
        must_be_sysfs(nt.line);
        th_must_have(nt.err, "belongs to uid 65534, mode 0755: another user could rename");
        th_must_have(nt.line, " not used: its folder another user's or writable by others");
        free(nt.err);
        assert_int_equal(chown(dir, 0, 0), 0);
    }
    assert_int_equal(chmod(dir, 0777), 0);   /* anyone's to rename in */
    free(plant("ema", 215));
    night_start(&nt, "never");
    must_be_sysfs(nt.line);
    th_must_have(nt.err, "mode 0777: another user could rename");
    free(nt.err);
    assert_int_equal(chmod(dir, 0755), 0);
    board_down();
}

/* No result: never does not probe (no file made), nor does auto where the night's energy
 * budget is short (said why); auto with the time probes first, keeps the result and the
 * night takes it, saying it was measured at its start. */
static void test_night_probes_when_none(void **state)
{
    scratch = th_scratch();
    board_up(512);
    struct night nt;
    night_start(&nt, "never");
    assert_int_equal(nt.ran, 0);
    must_be_sysfs(nt.line);
    assert_int_equal(access(nt.path, F_OK), -1);
    assert_null(strstr(nt.err, "probing"));
    free(nt.err);
    night_start_budget(&nt, "auto", 12);
    assert_int_equal(nt.ran, 0);
    must_be_sysfs(nt.line);
    assert_int_equal(access(nt.path, F_OK), -1);
    th_must_have(nt.err, "the sensor not probed: the night's energy budget (12 s: ");
    th_must_have(nt.err, "is shorter than 120 s (power.probe = auto)");
    free(nt.err);
    night_start(&nt, "auto");
    board_down();
    if (nt.ran != 1)
        th_fail("not probed: %s", nt.err);
    th_must_have(nt.err, "power: probing the sensor's step response first (power.probe = auto");
    th_must_have(nt.err, "fit: model=ema ");
    struct tb_stepfit f;
    char why[512];
    assert_int_equal(tb_stepfit_load(nt.path, &f, why, sizeof why), 0);
    assert_string_equal(f.model, "ema");
    th_assert_close(f.tau_ms, 430, 0.05 * 430);
    char want[PATH_MAX + 200];
    snprintf(want, sizeof want, "model ema, tau %.0f ms (from probe %s (", f.tau_ms, nt.path);
    if (!strstr(nt.line, want) || !strstr(nt.line, "; probed at this night's start in "))
        th_fail("the probe's model not taken: %s", nt.line);
    free(nt.err);
}

/* A probe that finds no step (a sensor whose reading the load does not move): it says why,
 * keeps nothing, and the night goes on with the model from sysfs, its line saying so. */
static void test_night_probe_fails(void **state)
{
    scratch = th_scratch();
    board_up(0);
    struct night nt;
    night_start(&nt, "always");
    assert_int_equal(nt.ran, -1);
    must_be_sysfs(nt.line);
    th_must_have(nt.err, "no step to fit");
    th_must_have(nt.err, "the probe at the night's start failed (above)");
    th_must_have(nt.line, "the probe at this night's start failed (said on stderr): no result");
    assert_int_equal(access(nt.path, F_OK), -1);
    char dir[700];
    snprintf(dir, sizeof dir, "%s/logs", scratch);
    assert_int_equal(th_count_files(dir), 0);   /* no temporary left */
    free(nt.err);
    board_down();
}

/* The whole tool (the test-only executable, whose fake INA3221 driver averages as the
 * datasheet says, on the tool's virtual clock): a night with a planted result says in its
 * log's `# power_cadence:` line that its model came from the probe, run.c's own wiring. */
static void test_night_log_names_probe(void **state)
{
    scratch = th_scratch();
    board_up(0);
    char *path = plant("ema", 380);
    setenv("TB_FAKE_CLOCK", "1", 1);
    setenv("TB_FAKE_CLOCK_WORK", "100", 1);
    setenv("TB_TEST_INA_DRIVER", g.root, 1);
    th_use_hooks_binary();
    int rc = th_runf("run --device cpu -b boards/jetson-orin-nx.cfg --sizes 64x64 --kernels "
                     "copy_row --set sweep.stop.min_time_ms=1 --set power.settle_s=0 --set "
                     "power.budget_s=3 --set power.sysfs_root=%s --set power.probe=never -o "
                     "%s/logs", g.root, scratch);
    if (rc != 0)
        th_fail("run exit %d: %s", rc, th_err());
    char logs[700];
    snprintf(logs, sizeof logs, "%s/logs", scratch);
    char *text = th_keep(th_read_gz(th_keep(th_find_one(logs, ".csv.gz"))));
    char want[PATH_MAX + 200];
    snprintf(want, sizeof want, "# power_cadence: model ema, tau 380 ms (from probe %s (",
             path);
    if (!strstr(text, want) || !strstr(text, "sysfs said ema 430 ms: the probe DISAGREES "
                                              "(ema 380 ms, -12%)"))
        th_fail("no probe in the log:\n%.3000s", text);
    th_must_have(text, "power.probe = \"never\"");
    free(path);
    board_down();
}

int main(void)
{
    tb_clock_fake(0);
    setenv("TB_FAKE_CLOCK_WORK", "200", 1);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_night_takes_probe_result),
        TH_TEST(test_night_refuses_planted_result),
        TH_TEST(test_night_malformed_result),
        TH_TEST(test_night_refuses_renamed_result),
        TH_TEST(test_night_probes_when_none),
        TH_TEST(test_night_probe_fails),
        TH_TEST(test_night_log_names_probe),
    };
    return cmocka_run_group_tests(tests, th_lock_setup, th_lock_teardown);
}
