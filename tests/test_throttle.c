/* test_throttle.c: why a point throttled, from two snapshots of fake trees shaped like an
 * Orin Nano Super's and a Nano's (tests/fixtures/throttle/): OC counters that advance, a
 * devfreq cap lowered mid-point, an nvpmodel mode changed mid-point, a hot zone, a pinned
 * clock that fell, and nothing at all; NVML's clock-event reasons as a cause, through the
 * fake libnvidia-ml. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "power/nvml.h"
#include "power/power.h"
#include "jetson/throttle.h"
#include "lib/util.h"

/* An Orin Nano Super in MAXN_SUPER under jetson_clocks, soctherm_oc at hwmon3, with its
 * nvpmodel.conf; the caller removes it (th_rmtree) and frees it. */
static char *super_tree(void)
{
    char *r = th_tmpdir();
    assert_true(th_build_sysfs(r, "throttle/orin-nano-super.txt", 3) > 10);
    char dst[PATH_MAX];
    snprintf(dst, sizeof(dst), "%s/etc", r);
    mkdir(dst, 0755);
    snprintf(dst, sizeof(dst), "%s/etc/nvpmodel.conf", r);
    /* as on L4T: a link to the board's own file, outside /etc */
    char *conf = realpath(th_fixture("nvpmodel/orin-nano-super.conf"), NULL);
    assert_non_null(conf);
    assert_int_equal(symlink(conf, dst), 0);
    free(conf);
    return r;
}

static void done(char *r)
{
    th_rmtree(r);
    free(r);
}

static void test_snapshot_reads_the_tree(void **state)
{
    char *r = super_tree();
    struct tb_throttle_snap s;
    tb_throttle_snap(r, &s);
    assert_string_equal(s.oc_hwmon, "hwmon3");   /* found by name, past the INA3221's hwmon0 */
    assert_int_equal(s.oc_cnt[0], 0);
    assert_int_equal(s.oc_cnt[1], 0);
    assert_int_equal(s.oc_cnt[2], 17);
    assert_int_equal(s.n_zones, 6);
    assert_string_equal(s.zone[3].type, "gpu-thermal");
    th_assert_close(s.zone[3].temp_c, 53.343, 1e-9);
    assert_string_equal(s.devfreq, "17000000.gpu");
    th_assert_close(s.gpu_cur_mhz, 1020, 1e-9);
    th_assert_close(s.gpu_min_mhz, 1020, 1e-9);
    th_assert_close(s.gpu_max_mhz, 1020, 1e-9);
    assert_int_equal(s.mode_id, 2);
    assert_string_equal(s.mode_name, "MAXN_SUPER");
    done(r);
}

static void test_nothing_happened(void **state)
{
    char *r = super_tree();
    struct tb_throttle_snap a, b;
    struct tb_throttle_diff d;
    tb_throttle_snap(r, &a);
    tb_throttle_snap(r, &b);
    tb_throttle_diff(&a, &b, TB_THROTTLE_HOT_C, &d);
    assert_string_equal(d.cause, "");
    assert_false(d.throttled);
    assert_int_equal(d.oc_total, 0);
    th_assert_close(d.max_temp_c, 53.968, 1e-9);
    assert_string_equal(d.max_temp_zone, "cpu-thermal");   /* the first of two at 53.968 */
    done(r);
}

/* OC3 fired 12 times during the point: devfreq still says 1020 MHz, the row must not. */
static void test_oc_delta_lands_in_cause(void **state)
{
    char *r = super_tree();
    struct tb_throttle_snap a, b;
    struct tb_throttle_diff d;
    tb_throttle_snap(r, &a);
    free(th_write(r, "sys/class/hwmon/hwmon3/oc3_event_cnt", "29\n"));
    tb_throttle_snap(r, &b);
    tb_throttle_diff(&a, &b, TB_THROTTLE_HOT_C, &d);
    assert_int_equal(d.oc_delta[0], 0);
    assert_int_equal(d.oc_delta[2], 12);
    assert_int_equal(d.oc_total, 12);
    assert_true(d.throttled);
    assert_false(d.capped);
    assert_false(d.below_max);
    assert_string_equal(d.cause, "oc3 +12");
    /* two counters: both named, oc1 first */
    free(th_write(r, "sys/class/hwmon/hwmon3/oc1_event_cnt", "2\n"));
    tb_throttle_snap(r, &b);
    tb_throttle_diff(&a, &b, TB_THROTTLE_HOT_C, &d);
    assert_string_equal(d.cause, "oc1 +2 oc3 +12");
    /* a counter that went back (the driver reloaded) is unknown, not an event */
    free(th_write(r, "sys/class/hwmon/hwmon3/oc1_event_cnt", "0\n"));
    free(th_write(r, "sys/class/hwmon/hwmon3/oc3_event_cnt", "3\n"));
    tb_throttle_snap(r, &b);
    tb_throttle_diff(&a, &b, TB_THROTTLE_HOT_C, &d);
    assert_int_equal(d.oc_delta[2], -1);
    assert_int_equal(d.oc_total, 0);
    assert_string_equal(d.cause, "");
    assert_false(d.throttled);
    done(r);
}

static void test_devfreq_cap_lowered(void **state)
{
    char *r = super_tree();
    struct tb_throttle_snap a, b;
    struct tb_throttle_diff d;
    tb_throttle_snap(r, &a);
    free(th_write(r, "sys/class/devfreq/17000000.gpu/max_freq", "612000000\n"));
    free(th_write(r, "sys/class/devfreq/17000000.gpu/cur_freq", "612000000\n"));
    free(th_write(r, "sys/class/hwmon/hwmon3/oc3_event_cnt", "18\n"));   /* weaker cause */
    tb_throttle_snap(r, &b);
    tb_throttle_diff(&a, &b, TB_THROTTLE_HOT_C, &d);
    assert_true(d.capped);
    th_assert_close(d.gpu_max_start_mhz, 1020, 1e-9);
    th_assert_close(d.gpu_max_end_mhz, 612, 1e-9);
    assert_true(d.throttled);
    assert_false(d.mode_changed);
    assert_string_equal(d.cause, "devfreq max 1020->612 MHz");
    done(r);
}

/* nvpmodel.service re-ran mid-point (it undoes jetson_clocks): the mode is the cause, though
 * the cap fell with it. */
static void test_mode_changed_mid_point(void **state)
{
    char *r = super_tree();
    struct tb_throttle_snap a, b;
    struct tb_throttle_diff d;
    tb_throttle_snap(r, &a);
    free(th_write(r, "var/lib/nvpmodel/status", "pmode:0000\n"));
    free(th_write(r, "sys/class/devfreq/17000000.gpu/max_freq", "612000000\n"));
    free(th_write(r, "sys/class/devfreq/17000000.gpu/min_freq", "306000000\n"));
    tb_throttle_snap(r, &b);
    assert_int_equal(b.mode_id, 0);
    assert_string_equal(b.mode_name, "15W");
    tb_throttle_diff(&a, &b, TB_THROTTLE_HOT_C, &d);
    assert_true(d.mode_changed);
    assert_true(d.capped);
    assert_true(d.throttled);
    assert_string_equal(d.cause, "mode changed MAXN_SUPER->15W");
    done(r);
}

static void test_hot_zone_and_pinned_clock(void **state)
{
    char *r = super_tree();
    struct tb_throttle_snap a, b;
    struct tb_throttle_diff d;
    tb_throttle_snap(r, &a);
    free(th_write(r, "sys/class/thermal/thermal_zone3/temp", "97125\n"));
    tb_throttle_snap(r, &b);
    tb_throttle_diff(&a, &b, TB_THROTTLE_HOT_C, &d);
    assert_true(d.hot);
    assert_string_equal(d.max_temp_zone, "gpu-thermal");
    assert_string_equal(d.cause, "thermal gpu-thermal 97 C");
    /* no threshold: the hottest zone is still reported, as no cause */
    tb_throttle_diff(&a, &b, NAN, &d);
    th_assert_close(d.max_temp_c, 97.125, 1e-9);
    assert_false(d.hot);
    assert_string_equal(d.cause, "");
    /* pinned at the start (min == max), below max at the end: something held it down */
    free(th_write(r, "sys/class/devfreq/17000000.gpu/cur_freq", "510000000\n"));
    tb_throttle_snap(r, &b);
    tb_throttle_diff(&a, &b, NAN, &d);
    assert_true(d.below_max);
    assert_true(d.throttled);
    th_assert_close(d.gpu_cur_start_mhz, 1020, 1e-9);
    th_assert_close(d.gpu_cur_end_mhz, 510, 1e-9);
    assert_string_equal(d.cause, "devfreq cur 510 < max 1020 MHz");
    done(r);
}

/* A Nano: PMIC-Die reads 100 C always and one sensor is offline; neither is a cause. An
 * unpinned clock below its max is DVFS, not throttling. */
static void test_nano_zones(void **state)
{
    char *r = th_tmpdir();
    assert_true(th_build_sysfs(r, "throttle/nano.txt", 0) > 5);
    struct tb_throttle_snap a;
    struct tb_throttle_diff d;
    tb_throttle_snap(r, &a);
    assert_int_equal(a.n_zones, 5);
    assert_true(isnan(a.zone[3].temp_c));   /* -256 C: offline */
    th_assert_close(a.zone[4].temp_c, 100, 1e-9);
    assert_string_equal(a.oc_hwmon, "");
    assert_int_equal(a.oc_cnt[2], -1);
    assert_int_equal(a.mode_id, -1);
    assert_string_equal(a.devfreq, "57000000.gpu");
    tb_throttle_diff(&a, &a, TB_THROTTLE_HOT_C, &d);
    th_assert_close(d.max_temp_c, 39.5, 1e-9);
    assert_string_equal(d.max_temp_zone, "AO-therm");
    assert_int_equal(d.oc_total, -1);
    assert_false(d.below_max);
    assert_false(d.throttled);
    assert_string_equal(d.cause, "");
    done(r);
}

/* A desktop (nothing of it exists) and a FIFO where a counter should be: unknowns, quickly. */
static void test_missing_and_hostile(void **state)
{
    char *r = th_tmpdir();
    struct tb_throttle_snap a;
    struct tb_throttle_diff d;
    tb_throttle_snap(r, &a);
    assert_int_equal(a.n_zones, 0);
    assert_true(isnan(a.gpu_max_mhz));
    assert_int_equal(a.mode_id, -1);
    tb_throttle_diff(&a, &a, TB_THROTTLE_HOT_C, &d);
    assert_true(isnan(d.max_temp_c));
    assert_false(d.throttled);
    assert_string_equal(d.cause, "");

    free(th_write(r, "sys/class/hwmon/hwmon7/name", "soctherm_oc\n"));
    free(th_write(r, "sys/class/hwmon/hwmon7/oc1_event_cnt", "5\n"));
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/sys/class/hwmon/hwmon7/oc3_event_cnt", r);
    assert_int_equal(mkfifo(p, 0644), 0);
    alarm(60);
    tb_throttle_snap(r, &a);
    alarm(0);
    assert_string_equal(a.oc_hwmon, "hwmon7");
    assert_int_equal(a.oc_cnt[0], 5);
    assert_int_equal(a.oc_cnt[1], -1);
    assert_int_equal(a.oc_cnt[2], -1);
    done(r);
}

/* Eight zones whose type is a FIFO (a file that cannot be read: a hung one costs the same
 * place in the scan), then the Orin's gpu-thermal as thermal_zone8 and tj-thermal after a
 * gap (thermal_zone11): both read, the eight named in the snapshot's note; no FIFO opened.
 * Was: eight misses ended the scan, the GPU zone was never seen and nothing said why. */
static void test_unreadable_zones_hide_none(void **state)
{
    char *r = super_tree();
    char p[PATH_MAX], rel[128];
    for (int i = 0; i < 8; i++) {
        snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%d/temp", i);
        free(th_write(r, rel, "99000\n"));
        snprintf(p, sizeof(p), "%s/sys/class/thermal/thermal_zone%d/type", r, i);
        unlink(p);
        assert_int_equal(mkfifo(p, 0644), 0);
    }
    free(th_write(r, "sys/class/thermal/thermal_zone8/type", "gpu-thermal\n"));
    free(th_write(r, "sys/class/thermal/thermal_zone8/temp", "53343\n"));
    free(th_write(r, "sys/class/thermal/thermal_zone11/type", "tj-thermal\n"));
    free(th_write(r, "sys/class/thermal/thermal_zone11/temp", "-256000\n"));   /* offline */
    free(th_write(r, "sys/class/thermal/cooling_device0/type", "fan\n"));
    struct tb_throttle_snap s;
    struct tb_throttle_diff d;
    alarm(60);
    tb_throttle_snap(r, &s);
    alarm(0);
    assert_int_equal(s.n_zones, 2);
    assert_int_equal(s.zone[0].index, 8);
    assert_string_equal(s.zone[0].type, "gpu-thermal");
    th_assert_close(s.zone[0].temp_c, 53.343, 1e-9);
    assert_int_equal(s.zone[1].index, 11);
    assert_true(isnan(s.zone[1].temp_c));
    for (int i = 0; i < 8; i++) {
        snprintf(rel, sizeof(rel), "thermal_zone%d/type (not a regular file)", i);
        assert_non_null(strstr(s.unread, rel));
    }
    assert_null(strstr(s.unread, "zone8"));
    tb_throttle_diff(&s, &s, TB_THROTTLE_HOT_C, &d);
    th_assert_close(d.max_temp_c, 53.343, 1e-9);   /* not the unread zones' 99 C */
    assert_string_equal(d.max_temp_zone, "gpu-thermal");
    /* the zones by number, not as listed: thermal_zone10 after thermal_zone9 and 8 */
    free(th_write(r, "sys/class/thermal/thermal_zone10/type", "cpu-thermal\n"));
    free(th_write(r, "sys/class/thermal/thermal_zone10/temp", "50000\n"));
    tb_throttle_snap(r, &s);
    assert_int_equal(s.n_zones, 3);
    assert_int_equal(s.zone[1].index, 10);
    assert_int_equal(s.zone[2].index, 11);
    done(r);
}

static void test_nvml_reasons(void **state)
{
    char buf[128];
    assert_string_equal(tb_throttle_nvml_cause(0, buf, sizeof(buf)), "");
    assert_string_equal(tb_throttle_nvml_cause(0x1, buf, sizeof(buf)), "");   /* GPU idle */
    assert_false(tb_throttle_nvml_throttled(0x1));
    assert_string_equal(tb_throttle_nvml_cause(0x4, buf, sizeof(buf)), "SW power cap");
    assert_true(tb_throttle_nvml_throttled(0x4));
    assert_string_equal(tb_throttle_nvml_cause(0x44, buf, sizeof(buf)), "HW thermal+SW power cap");
    assert_string_equal(tb_throttle_nvml_cause(0x8 | 0x80, buf, sizeof(buf)),
                        "HW power brake+HW slowdown");
    assert_string_equal(tb_throttle_nvml_cause(0x10 | 0x20 | 0x100 | 0x2, buf, sizeof(buf)),
                        "SW thermal+sync boost+display clock+app clocks");
    assert_string_equal(tb_throttle_nvml_cause(0x1 | 0x400, buf, sizeof(buf)), "0x400");

    /* the optional NVML entry point on the source's own state, against the fake library */
    const char *bdir = getenv("TB_BUILD");
    char lib[PATH_MAX];
    snprintf(lib, sizeof(lib), "%s/tests/libfake-nvml.so", bdir ? bdir : "build");
    setenv("TB_NVML_LIB", lib, 1);
    setenv("TB_FAKE_NVML_REASONS", "0x24", 1);
    struct tb_power_cfg pc;
    memset(&pc, 0, sizeof(pc));
    struct tb_power_rails rails;
    char why[256];
    void *st = calloc(1, tb_power_nvml.state_size);
    assert_int_equal(tb_power_nvml.open(st, &pc, &rails, why, sizeof(why)), 0);
    unsigned long long mask = 0;
    /* through the source's reasons op, as the sampler and the meter ask it */
    assert_non_null(tb_power_nvml.reasons);
    assert_int_equal(tb_power_nvml.reasons(st, &mask), 0);
    assert_true(mask == 0x24 && (mask & TB_POWER_REASON_CAP));
    assert_string_equal(tb_throttle_nvml_cause(mask, buf, sizeof(buf)), "SW thermal+SW power cap");
    setenv("TB_FAKE_NVML_REASONS", "notsup", 1);
    assert_int_equal(tb_nvml_clock_reasons(st, &mask), -ENOTSUP);
    tb_power_nvml.close(st);
    assert_int_equal(tb_nvml_clock_reasons(st, &mask), -ENOTSUP);   /* closed: not known */
    free(st);
    unsetenv("TB_FAKE_NVML_REASONS");
    unsetenv("TB_NVML_LIB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_reads_the_tree),
        cmocka_unit_test(test_nothing_happened),
        cmocka_unit_test(test_oc_delta_lands_in_cause),
        cmocka_unit_test(test_devfreq_cap_lowered),
        cmocka_unit_test(test_mode_changed_mid_point),
        cmocka_unit_test(test_hot_zone_and_pinned_clock),
        cmocka_unit_test(test_nano_zones),
        cmocka_unit_test(test_missing_and_hostile),
        cmocka_unit_test(test_unreadable_zones_hide_none),
        cmocka_unit_test(test_nvml_reasons),
    };
    return cmocka_run_group_tests_name("throttle", tests, NULL, NULL);
}
