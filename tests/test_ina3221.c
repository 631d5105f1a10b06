/* test_ina3221.c: the INA3221 source on fake sysfs trees built from the fixture layouts:
 * the JetPack 4 IIO layout (Nano), the JetPack 5/6 hwmon layout (Orin NX), two chips
 * (AGX Orin), disabled and NC channels, a file that vanishes, and a value that is junk;
 * the total rail's enforced limit and the over-current throttle's alarm and counters. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "lib/clock.h"
#include "lib/util.h"
#include "power/ina3221.h"
#include "power/power.h"

struct fake {
    char *root;
    struct tb_power_cfg b;
    void *st;
    struct tb_power_rails rails;
};

static void fake_open(struct fake *f, const char *fixture, int hwmon)
{
    f->root = th_tmpdir();
    if (fixture)
        assert_true(th_build_sysfs(f->root, fixture, hwmon) > 0);
    memset(&f->b, 0, sizeof(f->b));
    tb_strlcpy(f->b.sysfs_root, f->root, sizeof(f->b.sysfs_root));
    f->st = calloc(1, tb_power_ina3221.state_size);
}

static void fake_close(struct fake *f)
{
    tb_power_ina3221.close(f->st);
    free(f->st);
    th_rmtree(f->root);
    free(f->root);
}

/* The source opened on f's tree as its board file says, and what it reports of the limit. */
static void limit_of(struct fake *f, struct tb_power_device *d)
{
    char why[256];
    if (tb_power_ina3221.open(f->st, &f->b, &f->rails, why, sizeof(why)) != 0)
        th_fail("open: %s", why);
    tb_power_ina3221.identify(f->st, d);
}

static float rail_mw(const struct fake *f, const struct tb_power_sample *s, const char *name)
{
    for (int i = 0; i < f->rails.n; i++)
        if (!strcmp(f->rails.name[i], name))
            return s->rail_mw[i];
    th_fail("rail %s missing", name);
    return NAN;
}

static void test_nano_iio(void **state)
{
    struct fake f;
    char why[256];
    fake_open(&f, "ina3221/nano.txt", 0);
    assert_int_equal(tb_power_ina3221.probe(&f.b, why, sizeof(why)), 0);
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    assert_int_equal(f.rails.n, 3);
    assert_string_equal(f.rails.name[0], "POM_5V_IN");
    struct tb_power_sample s;
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_ina3221.sample(f.st, &s, why, sizeof(why)), 0);
    th_assert_close(rail_mw(&f, &s, "POM_5V_IN"), 1022, 0);   /* in_power0_input, mW */
    th_assert_close(rail_mw(&f, &s, "POM_5V_GPU"), 0, 0);
    th_assert_close(rail_mw(&f, &s, "POM_5V_CPU"), 204, 0);
    assert_true(s.t_ns > 0);
    fake_close(&f);
}

/* The Nano's sensor mode, as the IIO driver shows it (running_mode beside the rails; the
 * fixture's 0 is triggered), in the cadence's detail that the log's power_cadence line
 * carries; unknown where the file is not there. */
static void test_nano_sensor_mode(void **state)
{
    const char *want[] = { "ina3221x running_mode 0: triggered (each read one conversion of "
                           "~1 ms, no averaging)",
                           "ina3221x running_mode 1: continuous (the chip averages)",
                           "ina3221x sensor mode unknown (no running_mode to read): taken as "
                           "continuous" };
    for (int k = 0; k < 3; k++) {
        struct fake f;
        char why[256], p[PATH_MAX];
        fake_open(&f, "ina3221/nano.txt", 0);
        snprintf(p, sizeof(p), "%s/sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0/running_mode",
                 f.root);
        if (k == 1)
            free(th_write(f.root, "sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0/running_mode",
                          "1\n"));
        if (k == 2)
            assert_int_equal(unlink(p), 0);
        assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
        struct tb_power_cadence c;
        memset(&c, 0, sizeof(c));
        c.period_ms = NAN;
        tb_power_ina3221.cadence(f.st, &c);
        assert_true(isnan(c.period_ms));   /* inferred from the readings, as before */
        assert_string_equal(c.detail, want[k]);
        assert_true(c.triggered == (k == 0));   /* only running_mode 0 is triggered */
        /* the model: point samples when triggered, else the chip's own average */
        assert_int_equal(c.model.kind, k == 0 ? TB_SENSOR_POINT : TB_SENSOR_EMA);
        assert_true(k == 0 || tb_sensor_model_tau_ms(&c.model, 0) > 0);
        fake_close(&f);
    }
}

static const char *hw(const struct fake *f, const char *chip, int idx, const char *file, char *buf)
{
    snprintf(buf, 1024, "sys/bus/i2c/drivers/ina3221/%s/hwmon/hwmon%d/%s", chip, idx, file);
    return buf;
}

static void test_orin_nx_hwmon(void **state)
{
    struct fake f;
    char why[256], p[1024];
    fake_open(&f, "ina3221/orin-nx.txt", 7);          /* the index is found by globbing */
    /* the fixture gives curr2/curr3 but no voltages for them: 5.1 V, as its notes say */
    free(th_write(f.root, hw(&f, "1-0040", 7, "in2_input", p), "5100\n"));
    free(th_write(f.root, hw(&f, "1-0040", 7, "in3_input", p), "5100\n"));
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    assert_int_equal(f.rails.n, 3);
    struct tb_power_sample s;
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_ina3221.sample(f.st, &s, why, sizeof(why)), 0);
    th_assert_close(rail_mw(&f, &s, "VDD_IN"), 5160.0 * 888 / 1000, 1e-2);   /* mV x mA */
    th_assert_close(rail_mw(&f, &s, "VDD_CPU_GPU_CV"), 5100.0 * 112 / 1000, 1e-2);
    th_assert_close(rail_mw(&f, &s, "VDD_SOC"), 5100.0 * 240 / 1000, 1e-2);
    fake_close(&f);
}

static void test_agx_orin_two_chips(void **state)
{
    struct fake f;
    char why[256], p[1024];
    fake_open(&f, "ina3221/agx-orin.txt", 1);
    free(th_write(f.root, hw(&f, "1-0040", 1, "in1_input", p), "5000\n"));
    free(th_write(f.root, hw(&f, "1-0040", 1, "curr1_input", p), "1200\n"));
    free(th_write(f.root, hw(&f, "1-0040", 1, "in2_input", p), "5000\n"));
    free(th_write(f.root, hw(&f, "1-0040", 1, "curr2_input", p), "300\n"));
    /* second chip (hwmon2 in the fixture): in1 labelled NC, in2 real, in3 disabled */
    free(th_write(f.root, hw(&f, "1-0041", 2, "in1_label", p), "NC\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "in1_input", p), "0\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "curr1_input", p), "0\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "in2_input", p), "1800\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "curr2_input", p), "100\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "in3_label", p), "VDD_OFF\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "in3_enable", p), "0\n"));
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    assert_int_equal(f.rails.n, 4); /* 3 on the first chip, VDDQ on the second */
    for (int i = 0; i < f.rails.n; i++) {
        assert_string_not_equal(f.rails.name[i], "NC");
        assert_string_not_equal(f.rails.name[i], "VDD_OFF");
    }
    struct tb_power_sample s;
    tb_power_sample_clear(&s);
    int64_t t0 = tb_now_ns();
    assert_int_equal(tb_power_ina3221.sample(f.st, &s, why, sizeof(why)), 0);
    th_assert_close(rail_mw(&f, &s, "VDD_GPU_SOC"), 6000, 1e-3);
    th_assert_close(rail_mw(&f, &s, "VIN_SYS_5V0"), 4000, 1e-3);   /* 5000 mV x 800 mA */
    th_assert_close(rail_mw(&f, &s, "VDDQ_VDD2_1V8AO"), 180, 1e-3);
    for (int i = 0; i < f.rails.n; i++)   /* each rail stamped as its files were read (#57) */
        if (s.rail_t_ns[i] < (i ? s.rail_t_ns[i - 1] : t0) || s.rail_t_ns[i] > s.t_ns)
            th_fail("rail %d read at %lld, its poll at %lld", i, (long long)s.rail_t_ns[i],
                    (long long)s.t_ns);
    fake_close(&f);
}

/* Each chip's time constant from its own hwmon files (Linux hwmon/ina3221.rst): the
 * datasheet's per-cycle average (r += (x - r) / N each cycle, cycle = update_interval / N)
 * and the continuous average of time constant tau agree after each cycle, exp(-cycle / tau)
 * = 1 - 1/N; each on its chip's rails only,
 * and where it came from said. Without the files, the documented default, said so. */
static void test_agx_orin_time_constants(void **state)
{
    struct fake f;
    char why[256], p[1024];
    fake_open(&f, "ina3221/agx-orin.txt", 1);
    free(th_write(f.root, hw(&f, "1-0040", 1, "update_interval", p), "430\n"));
    free(th_write(f.root, hw(&f, "1-0040", 1, "samples", p), "512\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "update_interval", p), "215\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "samples", p), "256\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "in2_input", p), "1800\n"));
    free(th_write(f.root, hw(&f, "1-0041", 2, "curr2_input", p), "100\n"));
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    struct tb_power_cadence c;
    memset(&c, 0, sizeof(c));
    c.period_ms = NAN;
    tb_power_ina3221.cadence(f.st, &c);
    assert_int_equal(c.model.kind, TB_SENSOR_EMA);
    th_assert_close(c.period_ms, 430, 0);   /* the slowest chip's */
    for (int i = 0; i < f.rails.n; i++) {
        bool second = !strcmp(f.rails.name[i], "VDDQ_VDD2_1V8AO");
        double n = second ? 256 : 512, ui = second ? 215 : 430;
        double tau = tb_sensor_model_tau_ms(&c.model, i);
        th_assert_close(exp(-(ui / n) / tau), 1 - 1 / n, 1e-9);
    }
    assert_non_null(strstr(c.model.from, "chip 2: update_interval 215 ms, samples 256 (sysfs)"));
    assert_non_null(strstr(c.model.from, "SBOS576"));
    fake_close(&f);

    fake_open(&f, "ina3221/orin-nx.txt", 7);   /* no update_interval: the documented one */
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    memset(&c, 0, sizeof(c));
    c.period_ms = NAN;
    tb_power_ina3221.cadence(f.st, &c);
    assert_int_equal(c.model.kind, TB_SENSOR_EMA);
    th_assert_close(tb_sensor_model_tau_ms(&c.model, 0), 429.6, 0.05);
    assert_non_null(strstr(c.model.from, "documented default"));
    assert_null(strstr(c.model.from, "(sysfs)"));
    fake_close(&f);
}

static void test_vanishing_file(void **state)
{
    struct fake f;
    char why[512], p[1024], full[2048];
    fake_open(&f, "ina3221/orin-nx.txt", 3);
    free(th_write(f.root, hw(&f, "1-0040", 3, "in2_input", p), "5100\n"));
    free(th_write(f.root, hw(&f, "1-0040", 3, "in3_input", p), "5100\n"));
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    struct tb_power_sample s;
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_ina3221.sample(f.st, &s, why, sizeof(why)), 0);
    snprintf(full, sizeof(full), "%s/%s", f.root, hw(&f, "1-0040", 3, "curr1_input", p));
    assert_int_equal(unlink(full), 0);
    assert_int_equal(tb_power_ina3221.sample(f.st, &s, why, sizeof(why)), -ENOENT);
    assert_non_null(strstr(why, "curr1_input"));
    assert_non_null(strstr(why, "No such file or directory"));
    fake_close(&f);
}

/* A reading's files are kept open between readings (tb_safeio_kept_reads): a new value
 * written in place and a file renamed over the old are both read, and a rail file replaced
 * by a link to a file of a plausible value is refused, never followed. */
static void test_kept_files_follow_their_paths(void **state)
{
    struct fake f;
    char why[512], p[1024], full[2048], tmp[2100];
    fake_open(&f, "ina3221/orin-nx.txt", 3);
    free(th_write(f.root, hw(&f, "1-0040", 3, "in2_input", p), "5100\n"));
    free(th_write(f.root, hw(&f, "1-0040", 3, "in3_input", p), "5100\n"));
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    struct tb_power_sample s;
    static const char *const amps[] = { "888\n", "1000\n", "2000\n" };
    for (int k = 0; k < 3; k++) {   /* as the fixture; written in place; renamed over */
        if (k == 1)
            free(th_write(f.root, hw(&f, "1-0040", 3, "curr1_input", p), amps[k]));
        snprintf(full, sizeof(full), "%s/%s", f.root, hw(&f, "1-0040", 3, "curr1_input", p));
        snprintf(tmp, sizeof(tmp), "%s.new", full);
        if (k == 2) {
            free(th_write(f.root, hw(&f, "1-0040", 3, "curr1_input.new", p), amps[k]));
            assert_int_equal(rename(tmp, full), 0);
        }
        tb_power_sample_clear(&s);
        assert_int_equal(tb_power_ina3221.sample(f.st, &s, why, sizeof(why)), 0);
        th_assert_close(rail_mw(&f, &s, "VDD_IN"), 5160.0 * atoi(amps[k]) / 1000, 1e-2);
    }
    free(th_write(f.root, "elsewhere", "5000\n"));
    snprintf(tmp, sizeof(tmp), "%s/elsewhere", f.root);
    snprintf(full, sizeof(full), "%s/%s", f.root, hw(&f, "1-0040", 3, "in1_input", p));
    assert_int_equal(unlink(full), 0);
    assert_int_equal(symlink(tmp, full), 0);
    assert_int_equal(tb_power_ina3221.sample(f.st, &s, why, sizeof(why)), -ELOOP);
    th_must_have(why, "in1_input' is a symbolic link where a file is expected: not followed");
    fake_close(&f);
}

static void test_junk_value_and_units(void **state)
{
    char *dir = th_tmpdir();
    char why[512];
    long v;
    char *p = th_write(dir, "a", "32760 ma\n");
    assert_int_equal(tb_ina3221_read_value(p, &v, why, sizeof(why)), 0);
    assert_int_equal(v, 32760);
    free(p);
    p = th_write(dir, "b", "garbage\n");
    assert_int_equal(tb_ina3221_read_value(p, &v, why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "not a number"));
    free(p);
    p = th_write(dir, "c", "12abc\n");
    assert_int_equal(tb_ina3221_read_value(p, &v, why, sizeof(why)), -EINVAL);
    free(p);
    p = th_write(dir, "d", "");
    assert_int_equal(tb_ina3221_read_value(p, &v, why, sizeof(why)), -EINVAL);
    free(p);
    th_rmtree(dir);
    free(dir);
}

static void test_no_rails(void **state)
{
    struct fake f;
    char why[512];
    fake_open(&f, NULL, 0);
    assert_int_equal(tb_power_ina3221.probe(&f.b, why, sizeof(why)), -ENOENT);
    assert_non_null(strstr(why, "no INA3221 rails under"));
    fake_close(&f);
}

/* Every file of the tree at mode (folders 0755, so that another user may walk it). */
static void chmod_tree(const char *dir, mode_t mode)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    assert_int_equal(chmod(dir, 0755), 0);
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[2048];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        assert_int_equal(lstat(p, &st), 0);
        if (S_ISDIR(st.st_mode))
            chmod_tree(p, mode);
        else
            assert_int_equal(chmod(p, mode), 0);
    }
    closedir(d);
}

/* Rails present but readable by root only (R35's 5.10 driver at some versions: 0400, OE4T
 * linux-tegra-5.10 @86d7784): a normal user is told so, and the remedy, never "no INA3221
 * rails" (#57). As root, the probe runs in a child that became nobody; as a normal user, on
 * files this user may not read. */
static void test_rails_root_only(void **state)
{
    struct fake f;
    fake_open(&f, "ina3221/orin-nx.txt", 7);
    bool root = geteuid() == 0;
    assert_int_equal(chmod(f.root, 0755), 0);
    chmod_tree(f.root, root ? 0400 : 0000);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char why[1024] = "";
        if (root && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        int rc = tb_power_ina3221.probe(&f.b, why, sizeof(why));
        dprintf(fds[1], "%d %s", rc, why);
        _exit(0);
    }
    close(fds[1]);
    char buf[1100] = "";
    ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    buf[n > 0 ? n : 0] = 0;
    int status;
    waitpid(pid, &status, 0);
    chmod_tree(f.root, 0644);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char want[64];
    snprintf(want, sizeof want, "%d INA3221 rails present but readable by root only (mode %s",
             -EACCES, root ? "0400" : "0000");
    th_must_have(buf, want);
    th_must_have(buf, "run as root, or let this user read them (a udev rule");
    th_must_have(buf, "Rails readable by root only");
    fake_close(&f);
}

/* JetPack 5's 5.10 driver (#57): each read of a rail's file waits for a conversion
 * (tests/fake_ina_driver.c's read, 60 ms a file here, in the test-only executable), on the
 * Orin NX's tree: said, only the total rail read each poll, the crit alarm not read, the
 * poll lengthened and said; a quick driver's reads timed and said in the cadence. */
static void test_slow_driver_adapts(void **state)
{
    struct fake f;
    char p[1024], why[256];
    fake_open(&f, "ina3221/orin-nx.txt", 1);
    free(th_write(f.root, hw(&f, "1-0040", 1, "in2_input", p), "5100\n"));
    free(th_write(f.root, hw(&f, "1-0040", 1, "in3_input", p), "5100\n"));
    free(th_write(f.root, hw(&f, "1-0040", 1, "update_interval", p), "430\n"));
    tb_strlcpy(f.b.total_rail, "VDD_IN", sizeof(f.b.total_rail));
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    struct tb_power_cadence c;
    memset(&c, 0, sizeof(c));
    tb_power_ina3221.cadence(f.st, &c);
    th_must_have(c.detail, "hwmon update_interval 430 ms; rail reads ");
    th_must_have(c.detail, " ms at most");
    th_use_hooks_binary();
    setenv("TB_TEST_SLOW_READ_MS", "60", 1);
    int rc = th_runf("power -b boards/jetson-orin-nx.cfg --seconds 1.5 --format csv --set "
                     "power.sysfs_root=%s", f.root);
    unsetenv("TB_TEST_SLOW_READ_MS");
    if (rc != 0)
        th_fail("power: exit %d: %s", rc, th_err());
    th_must_have(th_err(), "warning: INA3221 rails: reading ");
    th_must_have(th_err(), " ms (JetPack 5's 5.10 driver waits for a conversion on each read)");
    th_must_have(th_err(), "only the total rail is read each poll (1 of 3 rails); "
                 "currK_crit_alarm is not read (a read clears the flag each rail read waits "
                 "on)");
    th_must_have(th_err(), "warning: power source 'ina3221': 3 readings in a row took ");
    th_must_have(th_err(), "longer than the 50 ms poll: polled every ");
    th_must_have(th_out(), ",VDD_IN,4582");     /* 888 mA x 5160 mV */
    assert_null(strstr(th_out(), ",VDD_SOC,1"));   /* not read: empty */
    fake_close(&f);
}

/* issue 32: -5000 mV x -1000 mA was logged as +5000 mW. A negative voltage or current, or a
 * bus voltage past the INA3221's 26 V, is given to the sampler as a negative power, which it
 * drops and counts (test_nightly: test_absurd_readings_dropped); the good rails stay. */
static void test_impossible_channels_are_no_power(void **state)
{
    static const char *const volts[] = { "-5000\n", "5160\n", "30000\n", "-5160\n" };
    static const char *const amps[] = { "-1000\n", "-888\n", "888\n", "888\n" };
    for (int i = 0; i < 4; i++) {
        struct fake f;
        char why[256], p[1024];
        fake_open(&f, "ina3221/orin-nx.txt", 7);
        free(th_write(f.root, hw(&f, "1-0040", 7, "in2_input", p), "5100\n"));
        free(th_write(f.root, hw(&f, "1-0040", 7, "in3_input", p), "5100\n"));
        free(th_write(f.root, hw(&f, "1-0040", 7, "in1_input", p), volts[i]));
        free(th_write(f.root, hw(&f, "1-0040", 7, "curr1_input", p), amps[i]));
        assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
        struct tb_power_sample s;
        tb_power_sample_clear(&s);
        assert_int_equal(tb_power_ina3221.sample(f.st, &s, why, sizeof(why)), 0);
        if (!(rail_mw(&f, &s, "VDD_IN") < 0))
            th_fail("%s mV x %s mA gave %g mW", volts[i], amps[i], rail_mw(&f, &s, "VDD_IN"));
        th_assert_close(rail_mw(&f, &s, "VDD_SOC"), 5100.0 * 240 / 1000, 1e-2);
        fake_close(&f);
    }
}

/* The enforced limit of the total rail (issue #49): the hwmon layout's curr1_crit x the
 * bus voltage read at the run's start (the Orin NX fixture's 7784 mA OBSERVED, 5160 mV); none for a
 * "sum" total, and none over board.max_power_w (said why). */
static void test_orin_nx_limit(void **state)
{
    struct fake f;
    struct tb_power_device d;
    fake_open(&f, "ina3221/orin-nx.txt", 7);
    tb_strlcpy(f.b.total_rail, "VDD_IN", sizeof(f.b.total_rail));
    limit_of(&f, &d);
    th_assert_close(d.limit_w, 7784 * 5160 / 1e6, 1e-12);
    assert_string_equal(d.limit_how, "the averaged warning limit: INA3221 VDD_IN curr1_max "
                        "7784 mA x in1_input 5160 mV at the run's start (curr1_crit 7784 mA: "
                        "an instantaneous trip)");
    /* the warning limit, not the critical one (#57): nvpmodel's per-mode curr1_max (3000 mA
     * in Xavier NX's 10/15 W modes, 4000 mA in 20 W), read again after a mode step */
    char p[1024];
    free(th_write(f.root, hw(&f, "1-0040", 7, "curr1_max", p), "3000\n"));
    limit_of(&f, &d);
    th_assert_close(d.limit_w, 3000 * 5160 / 1e6, 1e-12);
    th_must_have(d.limit_how, "curr1_max 3000 mA x in1_input 5160 mV");
    free(th_write(f.root, hw(&f, "1-0040", 7, "curr1_max", p), "4000\n"));
    tb_power_ina3221.identify(f.st, &d);   /* after the mode step */
    th_assert_close(d.limit_w, 4000 * 5160 / 1e6, 1e-12);
    /* a limit at or below what the rail draws (888 mA idle): ignored, with a warning (#58) */
    static const char *const low[] = { "1\n", "888\n" };
    for (int i = 0; i < 2; i++) {
        free(th_write(f.root, hw(&f, "1-0040", 7, "curr1_max", p), low[i]));
        th_stderr_begin();
        tb_power_ina3221.identify(f.st, &d);
        char *err = th_stderr_end();
        assert_true(isnan(d.limit_w));
        th_must_have(err, "warning: INA3221 power limit: VDD_IN curr1_max ");
        th_must_have(err, "at or below what the rail draws now (888 mA): not a limit a block "
                     "reaches; ignored");
        th_must_have(d.limit_how, "not known: VDD_IN curr1_max ");
        free(err);
    }
    free(th_write(f.root, hw(&f, "1-0040", 7, "curr1_max", p), "7784\n"));
    tb_strlcpy(f.b.total_rail, "sum", sizeof(f.b.total_rail));
    limit_of(&f, &d);
    assert_true(isnan(d.limit_w));
    assert_string_equal(d.limit_how, "not known: power.total_rail 'sum' is no one INA3221 rail");
    tb_strlcpy(f.b.total_rail, "", sizeof(f.b.total_rail));   /* the first rail: VDD_IN */
    f.b.max_power_w = 30;
    limit_of(&f, &d);
    assert_true(isnan(d.limit_w));
    assert_non_null(strstr(d.limit_how, "not known: 40.2 W is over board.max_power_w 30 W"));
    fake_close(&f);
}

/* JetPack 4's IIO layout (the Nano fixture): crit_power_limit_0 in mW where it reads, else
 * crit_current_limit_0 x in_voltage0_input; the fixture's 163.8 W is the chip's reset value
 * (163.8 mV over a 5 mOhm shunt), over the Nano's board.max_power_w 25 W: no limit. */
static void test_nano_limit(void **state)
{
    struct fake f;
    struct tb_power_device d;
    fake_open(&f, "ina3221/nano.txt", 0);
    tb_strlcpy(f.b.total_rail, "POM_5V_IN", sizeof(f.b.total_rail));
    limit_of(&f, &d);
    th_assert_close(d.limit_w, 32760 * 5000 / 1e6, 1e-12);
    assert_string_equal(d.limit_how, "the averaged warning limit: INA3221 POM_5V_IN "
                        "warn_current_limit_0 32760 mA x in_voltage0_input 5000 mV at the "
                        "run's start (crit_power_limit_0 163800 mW: an instantaneous trip)");
    /* the warning limit, not the critical one (#57): 4000 mA x 5 V */
    free(th_write(f.root, "sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0/"
                  "warn_current_limit_0", "4000 ma\n"));
    limit_of(&f, &d);
    th_assert_close(d.limit_w, 4000 * 5000 / 1e6, 1e-12);
    th_must_have(d.limit_how, "warn_current_limit_0 4000 mA x in_voltage0_input 5000 mV");
    /* at or below what the rail draws (the fixture's 204 mA): ignored, with a warning */
    free(th_write(f.root, "sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0/"
                  "warn_current_limit_0", "200 ma\n"));
    th_stderr_begin();
    limit_of(&f, &d);
    char *err = th_stderr_end();
    assert_true(isnan(d.limit_w));
    th_must_have(err, "warn_current_limit_0 200 mA is at or below what the rail draws now "
                 "(204 mA)");
    free(err);
    fake_close(&f);
    fake_open(&f, "ina3221/nano.txt", 0);
    f.b.max_power_w = 25;
    limit_of(&f, &d);
    assert_true(isnan(d.limit_w));
    assert_non_null(strstr(d.limit_how, "163.8 W is over board.max_power_w 25 W"));
    fake_close(&f);
}

/* A limit file missing: no limit, nothing warned; holding garbage or zero: no limit, and a
 * warning naming the file. open never fails for it. */
static void test_limit_missing_or_garbage(void **state)
{
    static const char *const bad[] = { NULL, "garbage\n", "0\n", "-5\n" };
    for (int k = 0; k < 4; k++) {
        struct fake f;
        char why[256], p[1024], full[2048];
        struct tb_power_device d;
        fake_open(&f, "ina3221/orin-nx.txt", 7);
        snprintf(full, sizeof(full), "%s/%s", f.root, hw(&f, "1-0040", 7, "curr1_max", p));
        if (bad[k])
            free(th_write(f.root, p, bad[k]));
        else
            assert_int_equal(unlink(full), 0);
        th_stderr_begin();
        int rc = tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why));
        char *err = th_stderr_end();
        assert_int_equal(rc, 0);
        tb_power_ina3221.identify(f.st, &d);
        assert_true(isnan(d.limit_w));
        assert_non_null(strstr(d.limit_how, "not known: "));
        if (!bad[k]) {
            assert_string_equal(err, "");
        } else if (!strstr(err, "warning: INA3221 power limit: '") || !strstr(err, full) ||
                   !strstr(err, "the enforced limit is not known")) {
            th_fail("%s: '%s'", bad[k], err);
        }
        free(err);
        fake_close(&f);
    }
}

static void sample_ok(struct fake *f, struct tb_power_sample *s)
{
    char why[256];
    tb_power_sample_clear(s);
    assert_int_equal(tb_power_ina3221.sample(f->st, s, why, sizeof(why)), 0);
}

/* With each reading, whether the over-current throttle acted: the total rail's
 * curr1_crit_alarm reading 1, or a soctherm_oc counter grown since the reading before (not
 * on the first, which has none before it). An alarm file turned garbage is warned of and
 * read no more; the counters still say. The IIO layout, with neither, says nothing. */
static void test_overcurrent_reasons(void **state)
{
    struct fake f;
    char why[256], p[1024];
    struct tb_power_sample s;
    fake_open(&f, "ina3221/orin-nx.txt", 7);
    free(th_write(f.root, "sys/class/hwmon/hwmon3/name", "soctherm_oc\n"));
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc1_event_cnt", "0\n"));
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc2_event_cnt", "0\n"));
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc3_event_cnt", "27390\n"));
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == 0);   /* 27390 before the run: no event */
    free(th_write(f.root, hw(&f, "1-0040", 7, "curr1_crit_alarm", p), "1\n"));
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == TB_POWER_REASON_OC);
    free(th_write(f.root, p, "0\n"));
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc3_event_cnt", "27391\n"));
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == TB_POWER_REASON_OC);
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == 0);
    /* OC3's counter starts again (wrapped, or its driver reloaded: no event of its own)
     * while OC1's grows by 5: an event, though the counters' sum fell from 27391 to 5 */
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc3_event_cnt", "0\n"));
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc1_event_cnt", "5\n"));
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == TB_POWER_REASON_OC);
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc3_event_cnt", "0\n"));   /* at rest */
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == 0);
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc2_event_cnt", "0\n"));
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc1_event_cnt", "2\n"));   /* back alone */
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == 0);
    free(th_write(f.root, p, "2\n"));
    th_stderr_begin();
    sample_ok(&f, &s);
    char *err = th_stderr_end();
    assert_non_null(strstr(err, "curr1_crit_alarm' holds 2: read no more this run"));
    free(err);
    assert_true(s.has_reasons && s.reasons == 0);
    free(th_write(f.root, p, "1\n"));
    sample_ok(&f, &s);   /* the alarm no longer read */
    assert_true(s.has_reasons && s.reasons == 0);
    fake_close(&f);

    fake_open(&f, "ina3221/nano.txt", 0);
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    sample_ok(&f, &s);
    assert_false(s.has_reasons);
    fake_close(&f);
}

/* A counter that fails for a moment (its file gone while the driver reloads: ENOENT, as
 * the BPMP's EIO) is read again: the readings meanwhile say nothing of the counters, the
 * growth over the gap shows at the next, and nothing is warned; one that fails
 * TB_INA3221_OC_TRIES readings in a row is warned of, once, and read no more. */
static void test_overcurrent_counter_gone_for_a_while(void **state)
{
    struct fake f;
    char why[256], p[1024];
    struct tb_power_sample s;
    fake_open(&f, "ina3221/orin-nx.txt", 7);
    free(th_write(f.root, "sys/class/hwmon/hwmon3/name", "soctherm_oc\n"));
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc3_event_cnt", "7\n"));
    snprintf(p, sizeof(p), "%s/sys/class/hwmon/hwmon3/oc3_event_cnt", f.root);
    assert_int_equal(tb_power_ina3221.open(f.st, &f.b, &f.rails, why, sizeof(why)), 0);
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == 0);
    th_stderr_begin();
    assert_int_equal(unlink(p), 0);
    for (int k = 0; k < 3; k++) {
        sample_ok(&f, &s);
        assert_true(s.reasons == 0);
    }
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc3_event_cnt", "9\n"));   /* back, grown */
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == TB_POWER_REASON_OC);
    sample_ok(&f, &s);
    assert_true(s.has_reasons && s.reasons == 0);
    char *err = th_stderr_end();
    assert_null(strstr(err, "over-current"));
    free(err);
    th_stderr_begin();
    assert_int_equal(unlink(p), 0);
    for (int k = 0; k < TB_INA3221_OC_TRIES + 3; k++)
        sample_ok(&f, &s);
    free(th_write(f.root, "sys/class/hwmon/hwmon3/oc3_event_cnt", "12\n"));
    sample_ok(&f, &s);   /* read no more: the growth is not seen */
    assert_true(s.reasons == 0);
    err = th_stderr_end();
    char want[64];
    snprintf(want, sizeof(want), "(%d readings in a row): read no more this run",
             TB_INA3221_OC_TRIES);
    th_must_have(err, want);
    assert_non_null(strstr(err, "oc3_event_cnt"));
    assert_null(strstr(strstr(err, want) + 1, "over-current"));   /* said once */
    free(err);
    fake_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nano_iio),
        cmocka_unit_test(test_overcurrent_counter_gone_for_a_while),
        cmocka_unit_test(test_nano_sensor_mode),
        cmocka_unit_test(test_orin_nx_hwmon),
        cmocka_unit_test(test_agx_orin_two_chips),
        cmocka_unit_test(test_agx_orin_time_constants),
        cmocka_unit_test(test_vanishing_file),
        cmocka_unit_test(test_kept_files_follow_their_paths),
        cmocka_unit_test(test_junk_value_and_units),
        cmocka_unit_test(test_no_rails),
        cmocka_unit_test(test_impossible_channels_are_no_power),
        cmocka_unit_test(test_rails_root_only),
        cmocka_unit_test(test_slow_driver_adapts),
        cmocka_unit_test(test_orin_nx_limit),
        cmocka_unit_test(test_nano_limit),
        cmocka_unit_test(test_limit_missing_or_garbage),
        cmocka_unit_test(test_overcurrent_reasons),
    };
    return cmocka_run_group_tests_name("ina3221", tests, NULL, NULL);
}
