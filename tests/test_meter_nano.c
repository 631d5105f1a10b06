/* test_meter_nano.c: a Nano's triggered INA3221 through the meter. The real IIO layout of a
 * Nano on JetPack 4 (tests/fixtures/ina3221/nano.txt, copied from ../shared/fixtures: its
 * running_mode reads 0, triggered: each reading one conversion, no averaging), read by the
 * ina3221 source in the sampler on the fake clock: the meter names the sensor triggered and
 * its blocks hold three times the clean updates; continuous (running_mode 1) the chip's
 * average, its blocks inverted (meter.c). */
#include "helpers.h"

#include <math.h>
#include <signal.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/util.h"
#include "power/ina3221.h"
#include "energy/meter.h"
#include "power/power.h"

#define MODE "sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0/running_mode"

/* The Nano's tree, running_mode as given ("" the fixture's own); the cadence line and the
 * block's ms the meter says for it. */
static void nano(const char *mode, char *line, size_t n, double *block_ms)
{
    char *root = th_tmpdir(), why[256];
    assert_true(th_build_sysfs(root, "ina3221/nano.txt", 0) > 10);
    if (mode[0])
        free(th_write(root, MODE, mode));
    struct tb_power_cfg pc = { .source = "ina3221", .interval_ms = 50, .window_ms = 1000,
                               .idle_ms = 1000, .min_readings = 10, .batches = 4, .rounds = 3,
                               .block_updates = 3, .target_rel_ci = 0.01, .budget_s = 12,
                               .max_rel_ci = 0.03, .points = "fastest" };
    tb_strlcpy(pc.sysfs_root, root, sizeof(pc.sysfs_root));
    tb_strlcpy(pc.total_rail, "POM_5V_IN", sizeof(pc.total_rail));
    struct tb_sampler *s;
    if (tb_sampler_start(&s, &tb_power_ina3221, &pc, pc.interval_ms, 1000, why, sizeof(why)))
        th_fail("sampler: %s", why);
    volatile sig_atomic_t stop = 0;
    struct tb_meter *m = tb_meter_new(s, &pc, &stop);
    tb_meter_cadence_line(m, line, n);
    *block_ms = tb_meter_block_ms(m);
    tb_meter_free(m);
    tb_sampler_stop(s, NULL);
    th_rmtree(root);
    free(root);
}

static void test_triggered_from_running_mode(void **state)
{
    char line[1024];
    double ms;
    nano("", line, sizeof(line), &ms);   /* the fixture's running_mode: 0 */
    if (!strstr(line, "triggered: one conversion a reading") ||
        !strstr(line, "waits for 9 clean updates"))
        th_fail("triggered Nano: '%s'", line);
    /* continuous: the chip averages (TI SBOS576), 64 samples of 6.6 ms cycles: the
     * documented model, its blocks inverted, a time constant of them long */
    nano("1\n", line, sizeof(line), &ms);
    if (strstr(line, "triggered") || !strstr(line, "model ema, tau 419 ms") ||
        !strstr(line, "each block inverted") || !strstr(line, "not confirmed on a board"))
        th_fail("continuous Nano: '%s'", line);
    th_assert_close(ms, 3 * 419.1, 1);
}

int main(void)
{
    tb_clock_fake(1000000000000LL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_triggered_from_running_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
