/* test_meter_cap.c: a Jetson's power limit through the meter, on the fake clock. The real
 * INA3221 source reads a fake Orin NX hwmon tree built from the fixture
 * (tests/fixtures/ina3221/orin-nx.txt: curr1_max 7784 mA OBSERVED, in1_input 5160 mV): its
 * enforced limit is 7784 mA x 5160 mV = 40.2 W. A thread of this test keeps VDD_IN's
 * curr1_input at what meter_sim.h's board draws through the chip's average (TI SBOS576, 512
 * samples, 430 ms; 2% a conversion), and, where a test asks, curr1_crit_alarm and the
 * soctherm_oc device's oc3_event_cnt (NVIDIA's tegra234-oc-event driver) while a point runs.
 * A point at 99.5% of the limit is capped, at 80% it is not; a limit file holding garbage is
 * warned of by name and the night goes on without a limit; the over-current throttle's
 * alarm or events cap the blocks they come in, whatever the limit. */
#include "meter_sim.h"
#include "probe_board.h"

#include <stdatomic.h>
#include <unistd.h>

#include "power/ina3221.h"

#define OC "sys/class/hwmon/hwmon3"
#define LIMIT_W (7784 * MV / 1e6)    /* the fixture's curr1_max x in1_input */

static struct gen {
    char root[512];
    int alarm_point, oc_point;       /* the point while which the alarm reads 1, or the
                                      * events grow (-1: none) */
    pthread_t th;
    atomic_int stop;
} g;

/* Every 2.5 ms of the fake clock: the chip's register (as sim_read runs it), in 8 mA steps
 * of a 5 mOhm shunt, written when it changed; the alarm while alarm_point runs; an event
 * every 100 ms while oc_point runs. */
static void *gen_main(void *arg)
{
    long shown = -1, alarm = 0, events = 0;
    int64_t next = tb_now_ns() + 1234567, last_event = 0;
    while (!atomic_load(&g.stop)) {
        tb_sleep_until_ns(next);
        pthread_mutex_lock(&sim.mu);
        double w = sim_read(&sim_ema, next, 0, NULL);
        int p = point_at(next);
        pthread_mutex_unlock(&sim.mu);
        long ma = lround(w / MV * 1e6 / 8) * 8;
        if (ma != shown)
            pb_put(g.root, HWMON "/curr1_input", ma), shown = ma;
        if ((p >= 0 && p == g.alarm_point) != alarm)
            pb_put(g.root, HWMON "/curr1_crit_alarm", alarm = !alarm);
        if (p >= 0 && p == g.oc_point && next - last_event >= 100 * MS) {
            pb_put(g.root, OC "/oc3_event_cnt", ++events);
            last_event = next;
        }
        next += STEP_NS;
    }
    tb_clock_leave();
    return NULL;
}

/* The fake Orin NX's tree (hwmon1), update_interval 430 and samples 512 as L4T's
 * nvpower.sh sets them, and the soctherm_oc device beside it (its counters at 0). */
static void board_tree(void)
{
    snprintf(g.root, sizeof g.root, "%s/root", th_scratch());
    assert_true(th_build_sysfs(g.root, "ina3221/orin-nx.txt", 1) > 0);
    pb_put(g.root, HWMON "/update_interval", 430);
    pb_put(g.root, HWMON "/samples", 512);
    free(th_write(g.root, OC "/name", "soctherm_oc\n"));
    for (int k = 1; k <= 3; k++) {
        char f[64];
        snprintf(f, sizeof f, OC "/oc%d_event_cnt", k);
        pb_put(g.root, f, 0);
    }
    g.alarm_point = g.oc_point = -1;
}

/* The copy at 75% of the limit, point 1 at 80%, point 2 at 99.5%: three cycles measured by
 * the meter over the ina3221 source on the tree; *err what it warned meanwhile. */
static void night(struct tb_meter_result *out, double *limit_w, char *how, size_t n, char **err)
{
    base_w[0] = 0.75 * LIMIT_W;
    base_w[1] = 0.80 * LIMIT_W;
    base_w[2] = 0.995 * LIMIT_W;
    struct rig r;
    memset(&r, 0, sizeof(r));
    r.pc = defaults;
    tb_strlcpy(r.pc.sysfs_root, g.root, sizeof(r.pc.sysfs_root));
    tb_strlcpy(r.pc.total_rail, "VDD_IN", sizeof(r.pc.total_rail));
    sim_reset(&r, EMA, 0.02);
    atomic_store(&g.stop, 0);
    tb_clock_join();
    assert_int_equal(pthread_create(&g.th, NULL, gen_main, NULL), 0);
    th_stderr_begin();
    rig_open(&r, &tb_power_ina3221);
    *limit_w = tb_sampler_device(r.s)->limit_w;
    tb_strlcpy(how, tb_sampler_device(r.s)->limit_how, n);
    measure(&r, 3, out);
    rig_stop(&r);
    *err = th_keep(th_stderr_end());
    atomic_store(&g.stop, 1);
    tb_clock_thread_join(g.th);   /* by the clock: no grace (#59) */
}

/* Point 2 draws 99.5% of curr1_max x in1_input: it is capped (half its blocks or more at
 * 98% of the limit) and its note names the limit; the copy (75%) and point 1 (80%) are not. */
static void test_capped_near_the_limit(void **state)
{
    board_tree();
    struct tb_meter_result out[3];
    double limit;
    char how[192], *err;
    night(out, &limit, how, sizeof how, &err);
    th_assert_close(limit, 40.16544, 1e-9);
    assert_string_equal(how, "the averaged warning limit: INA3221 VDD_IN curr1_max 7784 mA x "
                        "in1_input 5160 mV at the run's start (curr1_crit 7784 mA: an "
                        "instantaneous trip)");
    /* a block's mean moves by some tenths of a percent with the chip's noise and the
     * lead-in: a block of point 2 may read under 98%, but half of them or more do not
     * (the row is capped), and none of the others' does */
    for (int k = 0; k < 3; k++) {
        double c = out[k].power_cycles, capped = out[k].power_capped_blocks;
        if (!(c >= 3) || (k == 2 ? !(2 * capped >= c && capped <= c) : capped != 0))
            th_fail("point %d: %g of %g blocks capped at %.2f W (%s)", k, capped, c,
                    out[k].power_total_w, out[k].power_note);
    }
    char want[160];
    int cyc = (int)out[2].power_cycles, cap = (int)out[2].power_capped_blocks;
    snprintf(want, sizeof want, "power-capped in %d of %d blocks (%d at 98%% or more of the "
             "enforced power limit, 40.2 W)", cap, cyc, cap);
    th_must_have(out[2].power_note, want);
    assert_null(strstr(out[1].power_note, "power-capped"));
    assert_null(strstr(err, "warning"));
}

/* curr1_max holds garbage: a warning names the file, the night goes on with every figure,
 * no limit (said why), and nothing is capped (the alarm and counters read 0 meanwhile). */
static void test_garbage_limit(void **state)
{
    board_tree();
    free(th_write(g.root, HWMON "/curr1_max", "garbage\n"));
    struct tb_meter_result out[3];
    double limit;
    char how[192], *err;
    night(out, &limit, how, sizeof how, &err);
    th_must_have(err, "warning: INA3221 power limit: '");
    th_must_have(err, "/curr1_max' holds 'garbage");
    th_must_have(err, "the enforced limit is not known");
    assert_true(isnan(limit));
    th_must_have(how, "not known: '");
    for (int k = 0; k < 3; k++) {
        assert_true(out[k].power_cycles >= 3 && isfinite(out[k].energy_ratio) && isfinite(out[k].power_total_w));
        if (out[k].power_capped_blocks != 0)
            th_fail("point %d: %g capped (%s)", k, out[k].power_capped_blocks, out[k].power_note);
    }
}

/* No limit file (unknown, said without a warning): the over-current throttle's own signs
 * cap the blocks they come in: the alarm while point 1 runs at 80%, soctherm_oc's OC3
 * events while point 2 runs; the copy, with neither, is not capped. */
static void test_overcurrent_caps(void **state)
{
    board_tree();
    char p[700];
    snprintf(p, sizeof p, "%s/" HWMON "/curr1_max", g.root);
    assert_int_equal(unlink(p), 0);
    g.alarm_point = 1;
    g.oc_point = 2;
    struct tb_meter_result out[3];
    double limit;
    char how[192], *err;
    night(out, &limit, how, sizeof how, &err);
    assert_true(isnan(limit));
    assert_null(strstr(err, "warning"));
    for (int k = 0; k < 3; k++)
        if (!(out[k].power_cycles >= 3) || out[k].power_capped_blocks != (k ? out[k].power_cycles : 0))
            th_fail("point %d: %g of %g blocks capped (%s)", k, out[k].power_capped_blocks,
                    out[k].power_cycles, out[k].power_note);
    char want[160];
    int cyc = (int)out[2].power_cycles;
    snprintf(want, sizeof want, "power-capped in %d of %d blocks (%d in an over-current "
             "event)", cyc, cyc, cyc);
    th_must_have(out[2].power_note, want);
    assert_null(strstr(out[0].power_note, "power-capped"));
}

int main(void)
{
    tb_clock_fake(1000000000000LL);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_capped_near_the_limit),
        TH_TEST(test_garbage_limit),
        TH_TEST(test_overcurrent_caps),
    };
    return cmocka_run_group_tests_name("meter_cap", tests, NULL, NULL);
}
