/* test_probe.c: `probe-power` end to end, in this process on the fake clock: the command's
 * own entry (options, board file, lock, source, the CPU backend's copy as the load, fit,
 * what it prints, the kept file) against a fake hwmon tree (the Orin NX fixture) whose
 * VDD_IN current a thread of this test moves as TI's INA3221 does (SBOS576, "Averaging
 * function": after every conversion the register moves by (sample - register) / N; one
 * conversion of this channel every 3 x 2 x 140 us = 0.84 ms), the true power following how
 * busy the load kept the device (tb_clock_spent_ns). Bad input: no source, a source that
 * cannot be polled fast, a log folder that cannot be written, usage. */
#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include <fcntl.h>
#include <dirent.h>
#include <sys/stat.h>

#include "cmd/probecmd.h"
#include "energy/stepfit.h"
#include "lib/clock.h"
#include "probe_board.h"


static const char *scratch;   /* this test's folder (th_scratch makes a new one per call) */

static struct gen {
    char root[512];
    int avg_n;                 /* the averaging count: tau = 0.84 ms x N */
    double sigint_ms;          /* > 0: a SIGINT this long after the sensor starts */
    int parts;                 /* .part files in the log folder just before that SIGINT */
    pthread_t th;
    atomic_int stop;
} g;

/* The files in dir whose name ends ".part". */
static int count_parts(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strlen(e->d_name) > 5 && !strcmp(e->d_name + strlen(e->d_name) - 5, ".part");
    if (d)
        closedir(d);
    return n;
}

/* The sensor: idle 4.6 W, +3.0 W while the device is busy; each conversion with 2% noise
 * and the 8 mA step of a 5 mOhm shunt (40 uV LSB); the register is read as mA. */
static void *gen_main(void *arg)
{
    struct pb_sensor b;
    int64_t t0 = pb_begin(&b, g.root, g.avg_n, 12345), next = t0;
    while (!atomic_load(&g.stop)) {
        tb_sleep_until_ns(next);
        pb_step(&b, next);
        if (g.sigint_ms > 0 && (double)(next - t0) * 1e-6 >= g.sigint_ms) {
            char logs[600];
            snprintf(logs, sizeof logs, "%s/logs", scratch);
            g.parts = count_parts(logs);
            g.sigint_ms = 0, kill(getpid(), SIGINT);
        }
        next += STEP_NS;
    }
    tb_clock_leave();
    return NULL;
}

/* The fake AGX Orin (tests/fixtures/ina3221/agx-orin.txt: two chips, 0x40 with VDD_GPU_SOC,
 * VDD_CPU_CV and VIN_SYS_5V0, 0x41 with VDDQ_VDD2_1V8AO): chip 1 at N 512 (430 ms), chip 2
 * at N 256 (215 ms), each rail loaded by the copy but VIN_SYS_5V0 (I/O only). */
#define AGX1 "sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1"
#define AGX2 "sys/bus/i2c/drivers/ina3221/1-0041/hwmon/hwmon2"
static struct pb_rail agx[4] = {
    { AGX1 "/curr1_input", 2.3, 6.3, 5000, 512, 0, 0 },
    { AGX1 "/curr2_input", 1.9, 4.9, 5000, 512, 0, 0 },
    { AGX1 "/curr3_input", 4.0, 4.0, 5000, 512, 0, 0 },
    { AGX2 "/curr2_input", 0.6, 1.8, 1800, 256, 0, 0 },
};

static void *agx_main(void *arg)
{
    struct pb_board b;
    int64_t next = pb_board_begin(&b, g.root, agx, 4, 2718);
    while (!atomic_load(&g.stop)) {
        tb_sleep_until_ns(next);
        pb_board_step(&b, next);
        next += STEP_NS;
    }
    tb_clock_leave();
    return NULL;
}

static void agx_up(void)
{
    snprintf(g.root, sizeof g.root, "%s/root", scratch);
    assert_true(th_build_sysfs(g.root, "ina3221/agx-orin.txt", 1) > 0);
    static const char *const volts[] = { AGX1 "/in1_input", AGX1 "/in2_input",
                                         AGX1 "/in3_input", AGX2 "/in2_input" };
    for (int i = 0; i < 4; i++)   /* the rails there before the source is opened */
        pb_put(g.root, volts[i], (long)agx[i].mv), pb_put(g.root, agx[i].curr, 0);
    pb_put(g.root, AGX1 "/update_interval", 430);
    pb_put(g.root, AGX1 "/samples", 512);
    pb_put(g.root, AGX2 "/update_interval", 215);
    pb_put(g.root, AGX2 "/samples", 256);
    free(th_write(g.root, "etc/nv_tegra_release",
                  "# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: "
                  "aarch64, DATE: Tue Aug  1 19:57:35 UTC 2023\n"));
    setenv("TB_ROOT", g.root, 1);
    atomic_store(&g.stop, 0);
    tb_clock_join();
    assert_int_equal(pthread_create(&g.th, NULL, agx_main, NULL), 0);
}

/* The fake Orin NX: the fixture's tree, its update_interval and samples as given (L4T's
 * nvpower.sh sets 430 and 512), an L4T release; the sensor started with N. */
static void board_up(int avg_n, long update_interval, long samples)
{
    snprintf(g.root, sizeof g.root, "%s/root", scratch);
    assert_true(th_build_sysfs(g.root, "ina3221/orin-nx.txt", 1) > 0);
    pb_put(g.root, HWMON "/update_interval", update_interval);
    pb_put(g.root, HWMON "/samples", samples);
    free(th_write(g.root, "etc/nv_tegra_release",
                  "# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: "
                  "aarch64, DATE: Tue Aug  1 19:57:35 UTC 2023\n"));
    setenv("TB_ROOT", g.root, 1);
    g.avg_n = avg_n;
    atomic_store(&g.stop, 0);
    tb_clock_join();
    assert_int_equal(pthread_create(&g.th, NULL, gen_main, NULL), 0);
}

static void board_down(void)
{
    atomic_store(&g.stop, 1);
    tb_clock_thread_join(g.th);   /* by the clock: no grace (#59) */
}

static char out_text[16384];

/* Runs the command's entry with args split at spaces; stdout into out_text, stderr into
 * *err (malloc). Returns the exit code. */
static int probe(char **err, const char *fmt, ...)
{
    char line[4096], *argv[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    int argc = 0;
    argv[argc++] = "probe-power";
    for (char *save = NULL, *tok = strtok_r(line, " ", &save); tok && argc < 63;
         tok = strtok_r(NULL, " ", &save))
        argv[argc++] = tok;
    argv[argc] = NULL;
    char path[600];
    snprintf(path, sizeof path, "%s/stdout", scratch);
    fflush(stdout);
    int keep = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 1);
    close(fd);
    th_stderr_begin();
    int rc = tb_probe_main(argc, argv);
    fflush(stdout);
    *err = th_stderr_end();
    dup2(keep, 1);
    close(keep);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out_text, 1, sizeof out_text - 1, f) : 0;
    out_text[n] = 0;
    if (f)
        fclose(f);
    return rc;
}

static double field(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? atof(p + strlen(key)) : NAN;
}

#define COMMON "-b boards/jetson-orin-nx.cfg --device cpu --size 256x256"

/* The datasheet's sensor at N = 512: tau 430 ms found, agreeing with update_interval, and
 * the meter's old model (a mean changing once per interval) said to disagree; the kept
 * file holds what was printed. */
static void test_probe_ema(void **state)
{
    scratch = th_scratch();
    board_up(512, 430, 512);
    char *err;
    int rc = probe(&err, COMMON " --set power.sysfs_root=%s -o %s/logs", g.root, scratch);
    board_down();
    if (rc != 0)
        th_fail("exit %d: %s\n%s", rc, err, out_text);
    th_must_have(out_text, "source ina3221, rail VDD_IN");
    th_must_have(out_text, "L4T R35.4.1");
    th_must_have(out_text, "fit: model=ema ");
    double tau = field(out_text, "tau_ms=");
    th_assert_close(tau, 430, 0.05 * 430);
    assert_true(field(out_text, "delay_ms=") < 60);
    th_must_have(out_text, "sysfs: hwmon update_interval 430 ms, samples 512");
    th_must_have(out_text, "agrees: tau");
    th_must_have(out_text, "DISAGREES: the reading changes at every poll");
    th_must_have(out_text, "please send this whole output");
    char path[700];
    snprintf(path, sizeof path, "%s/logs/probe-jetson-orin-nx-R35.4.1.cfg", scratch);
    th_must_have(out_text, path);
    struct tb_stepfit f;
    char why[512];
    assert_int_equal(tb_stepfit_load(path, &f, why, sizeof why), 0);
    assert_string_equal(f.model, "ema");
    /* printed to 0.1 ms, kept to 0.001 ms: they differ by up to half the print's last digit */
    th_assert_close(f.tau_ms, tau, 0.05 + 0.0005);
    free(err);
}

/* N = 256 (215 ms) where sysfs claims 430: the disagreement said with both numbers; a
 * second probe replaces the first's result, never another file at that name. */
static void test_probe_disagrees_and_keeps(void **state)
{
    scratch = th_scratch();
    board_up(256, 430, 512);
    char *err;
    int rc = probe(&err, COMMON " --seconds 1 --set power.sysfs_root=%s -o %s/logs", g.root,
                   scratch);
    if (rc != 0)
        th_fail("exit %d: %s\n%s", rc, err, out_text);
    free(err);
    th_assert_close(field(out_text, "tau_ms="), 215, 0.05 * 215);
    th_must_have(out_text, "DISAGREES: tau ");
    th_must_have(out_text, "against update_interval 430 ms");
    rc = probe(&err, COMMON " --seconds 1 --set power.sysfs_root=%s -o %s/logs", g.root,
               scratch);
    if (rc != 0)
        th_fail("exit %d: %s\n%s", rc, err, out_text);
    th_must_have(out_text, "(replacing the earlier result)");
    free(err);
    char *path = th_write(scratch, "other/probe-jetson-orin-nx-R35.4.1.cfg", "mine\n");
    rc = probe(&err, COMMON " --seconds 1 --set power.sysfs_root=%s -o %s/other", g.root,
               scratch);
    board_down();
    assert_int_equal(rc, 1);
    th_must_have(err, "is not an earlier probe's result: not replaced");
    FILE *f = fopen(path, "r");
    char buf[16] = "";
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "mine\n");
    char other[600];
    snprintf(other, sizeof other, "%s/other", scratch);
    assert_int_equal(th_count_files(other), 1);   /* no temporary of ours left */
    free(path);
    free(err);
    /* a link at the name to an earlier probe's real result: what is at the name is read
     * through one descriptor that never follows a link, so it is no result of ours either */
    char logs_result[700], link_at[700];
    snprintf(logs_result, sizeof logs_result, "%s/logs/probe-jetson-orin-nx-R35.4.1.cfg",
             scratch);
    snprintf(link_at, sizeof link_at, "%s/linked/probe-jetson-orin-nx-R35.4.1.cfg", scratch);
    free(th_write(scratch, "linked/.keep", ""));
    assert_int_equal(symlink(logs_result, link_at), 0);
    board_up(256, 430, 512);
    rc = probe(&err, COMMON " --seconds 1 --set power.sysfs_root=%s -o %s/linked", g.root,
               scratch);
    board_down();
    assert_int_equal(rc, 1);
    th_must_have(err, "is not an earlier probe's result: not replaced");
    struct stat st;
    assert_int_equal(lstat(link_at, &st), 0);
    assert_true(S_ISLNK(st.st_mode));   /* left as it was */
    free(err);
}

/* A two-chip board (#57): each rail fitted by itself, each loaded rail's constant within 3%
 * of its own chip's (430 and 215 ms), where the sum of the rails (the AGX total) is a blend
 * of both; the rail the load does not move said to hold no step; all kept in the result. */
static void test_probe_per_rail(void **state)
{
    scratch = th_scratch();
    agx_up();
    char *err;
    int rc = probe(&err, "-b boards/jetson-agx-orin.cfg --device cpu --size 256x256 --set "
                   "power.sysfs_root=%s -o %s/logs", g.root, scratch);
    board_down();
    if (rc != 0)
        th_fail("exit %d: %s\n%s", rc, err, out_text);
    th_must_have(out_text, "rail sum of rails");
    static const struct { const char *name; double tau; } want[] = {
        { "VDD_GPU_SOC", 429.6 }, { "VDD_CPU_CV", 429.6 }, { "VDDQ_VDD2_1V8AO", 214.6 },
    };
    char path[700], key[64];
    snprintf(path, sizeof path, "%s/logs/probe-jetson-agx-orin-R35.4.1.cfg", scratch);
    struct tb_stepfit f;
    char why[512];
    assert_int_equal(tb_stepfit_load(path, &f, why, sizeof why), 0);
    assert_int_equal(f.nrails, 4);
    for (int i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "rail %s: model=ema tau_ms=", want[i].name);
        double tau = field(out_text, key);
        if (!(fabs(tau / want[i].tau - 1) <= 0.03))
            th_fail("%s: tau %.1f ms, not %.1f within 3%%:\n%s", want[i].name, tau,
                    want[i].tau, out_text);
        int k = i < 2 ? i : 3;
        assert_string_equal(f.rail[k].name, want[i].name);
        assert_string_equal(f.rail[k].model, "ema");
        th_assert_close(f.rail[k].tau_ms, tau, 0.05 + 0.0005);
    }
    th_must_have(out_text, "(sysfs: tau 214.6 ms, agrees)");
    th_must_have(out_text, "rail VIN_SYS_5V0: no fit: ");
    assert_null(f.rail[2].model);
    free(err);
}

/* --report (#57): one file beside the result with the rail folders as ls -l shows them, 20
 * timed reads of each rail file, the averaging (sysfs and the device tree's
 * ti,continuous-config, NVIDIA's 0x7c07 decoded), the kernel, then the probe per rail. */
static void test_probe_report(void **state)
{
    scratch = th_scratch();
    board_up(512, 430, 512);
    free(th_write(g.root, "proc/sys/kernel/osrelease", "5.10.120-tegra\n"));
    char *dt = th_write(g.root, "proc/device-tree/bus@0/i2c@c240000/ina3221@40/"
                        "ti,continuous-config", "");
    static const unsigned char cell[4] = { 0, 0, 0x7c, 0x07 };
    int fd = open(dt, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, cell, 4), 4);
    close(fd);
    char *err;
    int rc = probe(&err, COMMON " --report --set power.sysfs_root=%s -o %s/logs", g.root,
                   scratch);
    board_down();
    if (rc != 0)
        th_fail("exit %d: %s\n%s", rc, err, out_text);
    const char *at = strstr(out_text, "report: ");
    assert_non_null(at);
    char path[700];
    assert_int_equal(sscanf(at, "report: %699s", path), 1);
    th_must_have(path, "/logs/probe-jetson-orin-nx-R35.4.1-report-");
    char *text = th_keep(th_read_gz(path));   /* a plain file read whole */
    static const char *const want[] = {
        "probe-power report, ", "board file: jetson-orin-nx\n", "kernel: 5.10.120-tegra\n",
        "## rail folders (ls -l)\n", "/1-0040/hwmon/hwmon1:\n", "  -rw-r--r-- ",
        " curr1_input\n", "## 20 timed reads of each rail file, and the averaging\n",
        "  update_interval = 430\n", "  samples = 512\n", "  name = ina3221\n",
        "  in1_input: read in ms min ", "; 0 failed; values: 5160 5160 ",
        "ti,continuous-config = 0x7c07: 3 channels, 512 samples, bus 140 us, shunt 140 us, "
        "mode 7: about 430.1 ms\n", "## the probe, each rail by itself\n",
        "probe-power: board jetson-orin-nx, L4T R35.4.1", "rail VDD_IN: model=ema tau_ms=",
        "kept: ",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(text, want[i]))
            th_fail("'%s' not in the report:\n%s", want[i], text);
    th_must_have(out_text, "please send that file");
    free(dt);
    free(err);
}

/* A copy whose one launch stands for 0.4 s or more of virtual time (a machine so loaded that
 * the launch's real time, scaled by the fake clock, is that long: the cause of
 * test_night_probes_when_none's fits with a 500 ms delay, #58): the load's work reaches the
 * sensor as it is done, not a launch late, so the step is where the edges are. */
static void test_probe_slow_copy(void **state)
{
    scratch = th_scratch();
    board_up(512, 430, 512);
    setenv("TB_FAKE_CLOCK_WORK", "40000", 1);
    char *err;
    int rc = probe(&err, COMMON " --set power.sysfs_root=%s -o %s/logs", g.root, scratch);
    setenv("TB_FAKE_CLOCK_WORK", "200", 1);
    board_down();
    if (rc != 0)
        th_fail("exit %d: %s\n%s", rc, err, out_text);
    th_must_have(out_text, "fit: model=ema ");
    th_assert_close(field(out_text, "tau_ms="), 430, 0.05 * 430);
    if (!(field(out_text, "delay_ms=") < 20))
        th_fail("a delay the sensor does not have:\n%s", out_text);
    free(err);
}

/* A signal in the middle (the second load): the probe stops, keeps nothing, leaves no
 * temporary, and the handlers it installed are gone again: SIGINT's is what it was before
 * (SIG_DFL from a terminal, SIG_IGN where a shell started the tests in the background: a
 * non-interactive shell's `&` ignores SIGINT, which made a check for SIG_DFL fail there). */
static void test_probe_signal(void **state)
{
    struct sigaction before;
    sigaction(SIGINT, NULL, &before);
    scratch = th_scratch();
    g.sigint_ms = 3500;
    board_up(512, 430, 512);
    char *err, logs[600];
    int rc = probe(&err, COMMON " --seconds 1 --set power.sysfs_root=%s -o %s/logs", g.root,
                   scratch);
    board_down();
    assert_int_equal(rc, 1);
    th_must_have(err, "stopped by signal 2: nothing kept");
    /* no temporary while it measured: a kill no handler sees (SIGKILL) would leave it (#58) */
    assert_int_equal(g.parts, 0);
    snprintf(logs, sizeof logs, "%s/logs", scratch);
    assert_int_equal(th_count_files(logs), 0);
    struct sigaction now;
    sigaction(SIGINT, NULL, &now);
    assert_true(now.sa_handler == before.sa_handler);
    free(err);
}

/* A temporary made old (as SIGKILL leaves one) at path, with text. */
static char *old_part(const char *name, const char *text)
{
    char rel[300];
    snprintf(rel, sizeof rel, "logs/%s", name);
    char *path = th_write(scratch, rel, text);
    struct timespec t[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
    return path;
}

/* Temporaries left by probes that were killed (SIGKILL: no handler runs) are removed at the
 * next start: only this result's, this user's, old, empty or the start of a result (#58). */
static void test_probe_clears_stale_parts(void **state)
{
    scratch = th_scratch();
    board_up(512, 430, 512);
    const char *base = "probe-jetson-orin-nx-R35.4.1.cfg";
    char name[300];
    snprintf(name, sizeof name, "%s.Ab3xYz.part", base);
    char *gone1 = old_part(name, "");
    snprintf(name, sizeof name, "%s.Qq1234.part", base);
    char *gone2 = old_part(name, TB_STEPFIT_HEAD ": the power sensor's step response\n");
    snprintf(name, sizeof name, "%s.notour.part", base);
    char *kept[5];
    kept[0] = old_part(name, "mine\n");                     /* not what we write */
    kept[1] = old_part("probe-jetson-orin-nx-R35.3.1.cfg.Ab3xYz.part", "");   /* another's */
    snprintf(name, sizeof name, "logs/%s.young1.part", base);
    kept[2] = th_write(scratch, name, "");                  /* may be a running probe's */
    snprintf(name, sizeof name, "%s.toolong1.part", base);
    kept[3] = old_part(name, "");                           /* not six letters */
    snprintf(name, sizeof name, "%s.other1.part", base);
    kept[4] = old_part(name, "");
    bool root = geteuid() == 0;
    if (root)   /* another user's */
        assert_int_equal(chown(kept[4], 65534, 65534), 0);
    char *err;
    int rc = probe(&err, COMMON " --seconds 0.5 --set power.sysfs_root=%s -o %s/logs", g.root,
                   scratch);
    board_down();
    if (rc != 0)
        th_fail("exit %d: %s\n%s", rc, err, out_text);
    assert_int_equal(access(gone1, F_OK), -1);
    assert_int_equal(access(gone2, F_OK), -1);
    th_must_have(err, "the temporary of a probe that was killed");
    th_must_have(err, gone1);
    for (int i = 0; i < 5; i++)
        if ((i < 4 || root) && access(kept[i], F_OK) != 0)
            th_fail("'%s' removed", kept[i]);
    for (int i = 0; i < 5; i++)
        free(kept[i]);
    free(gone1);
    free(gone2);
    free(err);
}

static void test_probe_bad_input(void **state)
{
    scratch = th_scratch();
    char *err, *root = th_tmpdir();
    /* no power source: the generic board has none */
    assert_int_equal(probe(&err, "-b boards/generic.cfg --device cpu -o %s/l", scratch),
                     1);
    th_must_have(err, "no power source on board 'generic'");
    free(err);
    /* the source named cannot be polled fast */
    assert_int_equal(probe(&err, COMMON " --set power.source=tegrastats -o %s/l", scratch),
                     1);
    th_must_have(err, "'tegrastats' cannot be polled every 5 ms");
    free(err);
    /* a tree without the rails */
    assert_int_equal(probe(&err, COMMON " --set power.sysfs_root=%s -o %s/l", root,
                           scratch), 1);
    th_must_have(err, "power source 'ina3221' cannot start");
    free(err);
    /* a log folder that cannot be written (a file where the folder should be), said
     * before anything is measured */
    char *file = th_write(scratch, "notadir", "x\n");
    assert_int_equal(probe(&err, COMMON " --set power.sysfs_root=%s -o %s", root, file), 1);
    th_must_have(err, "cannot write in the log folder");
    th_must_have(err, file);
    free(err);
    /* usage: every problem in one pass, exit 2 */
    assert_int_equal(probe(&err, COMMON " --seconds 60 --poll-ms 2.5 --size 3 -o %s/l",
                           scratch), 2);
    th_must_have(err, "--seconds '60'");
    th_must_have(err, "--poll-ms '2.5'");
    th_must_have(err, "--size '3'");
    free(err);
    assert_int_equal(probe(&err, COMMON " extra"), 2);
    th_must_have(err, "unexpected argument 'extra'");
    free(err);
    free(file);
    th_rmtree(root);
    free(root);
}

int main(void)
{
    tb_clock_fake(0);
    setenv("TB_FAKE_CLOCK_WORK", "200", 1);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_probe_ema),
        TH_TEST(test_probe_disagrees_and_keeps),
        TH_TEST(test_probe_slow_copy),
        TH_TEST(test_probe_per_rail),
        TH_TEST(test_probe_report),
        TH_TEST(test_probe_signal),
        TH_TEST(test_probe_clears_stale_parts),
        TH_TEST(test_probe_bad_input),
    };
    return cmocka_run_group_tests(tests, th_lock_setup, th_lock_teardown);
}
