/* test_ina3221_hang.c: the INA3221 source on a fake Orin NX tree (the fixture's layout)
 * where one of the over-current throttle's files never answers (a wedged BPMP read, made
 * by safeio's test hook): the files read with it before it, the crit alarm first, keep
 * their readings and stay read; the hung counter alone is warned of, by name. Apart from
 * test_ina3221.c, which is at its size. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>

#include "config/config.h"
#include "lib/util.h"
#include "power/ina3221.h"
#include "power/power.h"
#include "read_hang_hook.h"

static int guard(void **state)
{
    alarm(60);   /* a hang is a failure, not a stuck suite */
    return 0;
}

static void sample(void *st, struct tb_power_sample *s)
{
    char why[256];
    tb_power_sample_clear(s);
    if (tb_power_ina3221.sample(st, s, why, sizeof(why)) != 0)
        th_fail("sample: %s", why);
}

/* The alarm is job 0 of the throttle's kept read, oc2's counter a later one that hangs:
 * the alarm's reading (it answered) is kept and it is read on; it said 1 after the hang,
 * and the reading says the throttle acted. Before #57's fix the alarm got the hung file's
 * timeout and was read no more. */
static void test_hung_counter_keeps_the_alarm(void **state)
{
    char *root = th_tmpdir(), why[256], oc2[PATH_MAX + 64];
    const char *alarm_file = "sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon7/curr1_crit_alarm";
    assert_true(th_build_sysfs(root, "ina3221/orin-nx.txt", 7) > 0);
    free(th_write(root, "sys/class/hwmon/hwmon3/name", "soctherm_oc\n"));
    free(th_write(root, "sys/class/hwmon/hwmon3/oc1_event_cnt", "0\n"));
    free(th_write(root, "sys/class/hwmon/hwmon3/oc2_event_cnt", "0\n"));
    free(th_write(root, "sys/class/hwmon/hwmon3/oc3_event_cnt", "0\n"));
    struct tb_power_cfg b = { 0 };
    struct tb_power_rails rails;
    tb_strlcpy(b.sysfs_root, root, sizeof(b.sysfs_root));
    void *st = calloc(1, tb_power_ina3221.state_size);
    assert_int_equal(tb_power_ina3221.open(st, &b, &rails, why, sizeof(why)), 0);
    struct tb_power_sample s;
    sample(st, &s);
    assert_true(s.has_reasons && s.reasons == 0);
    snprintf(oc2, sizeof(oc2), "%s/sys/class/hwmon/hwmon3/oc2_event_cnt", root);
    assert_int_equal(read_hang(oc2), 0);
    th_stderr_begin();
    sample(st, &s);
    char *err = th_stderr_end();
    th_must_have(err, "oc2_event_cnt' did not finish within");
    th_must_have(err, "read no more this run");
    assert_null(strstr(err, "curr1_crit_alarm"));
    free(err);
    assert_true(s.has_reasons && s.reasons == 0);   /* the alarm's 0, read */
    free(th_write(root, alarm_file, "1\n"));
    sample(st, &s);
    assert_true(s.has_reasons && s.reasons == TB_POWER_REASON_OC);
    read_unhang(oc2);
    tb_power_ina3221.close(st);
    free(st);
    th_rmtree(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_hung_counter_keeps_the_alarm, guard),
    };
    return cmocka_run_group_tests_name("ina3221_hang", tests, NULL, NULL);
}
