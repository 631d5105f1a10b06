/* test_conditions.c: the run conditions' GPU temperature from a fake tree whose thermal zones
 * a hostile or broken system makes hard to read: eight zones whose type cannot be read
 * (FIFOs), a gap, then the GPU's zone far down the list. The GPU zone is found, and the
 * zones not read are named in the log's metadata and on stderr. */
#include "helpers.h"

#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/conditions.h"
#include "lib/util.h"

static void emit(void *ctx, const char *key, const char *value)
{
    char *out = ctx;
    size_t len = strlen(out);
    snprintf(out + len, 4096 - len, "# %s: %s\n", key, value);
}

/* A fake root with eight zones whose type is a FIFO (a read that would hang), a gap, then
 * the Orin Nano's GPU zone (tests/fixtures/throttle/orin-nano-super.txt) as zone 40. */
static const char *hung_zones_root(void)
{
    const char *r = th_scratch();
    char p[PATH_MAX], rel[128];
    for (int i = 0; i < 8; i++) {
        snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%d/temp", i);
        free(th_write(r, rel, "99000\n"));
        snprintf(p, sizeof(p), "%s/sys/class/thermal/thermal_zone%d/type", r, i);
        assert_int_equal(mkfifo(p, 0644), 0);
    }
    /* the Orin Nano's GPU zone (tests/fixtures/throttle/orin-nano-super.txt), after a gap */
    free(th_write(r, "sys/class/thermal/thermal_zone40/type", "gpu-thermal\n"));
    free(th_write(r, "sys/class/thermal/thermal_zone40/temp", "53343\n"));
    return r;
}

static void test_gpu_zone_past_unreadable_ones(void **state)
{
    setenv("TB_ROOT", hung_zones_root(), 1);
    struct tb_conditions c;
    alarm(60);
    th_stderr_begin();
    tb_conditions_read(&c);
    char *err = th_stderr_end();
    alarm(0);
    unsetenv("TB_ROOT");
    th_assert_close(c.gpu_temp_c, 53.343, 1e-9);
    char *out = calloc(1, 4096);
    tb_conditions_each(&c, emit, out);
    assert_non_null(strstr(out, "# gpu_temp: 53.3 C at the start\n"));
    assert_non_null(strstr(out, "# thermal_unread: thermal_zone0/type (not a regular file), "
                           "thermal_zone1/type (not a regular file), "));
    assert_non_null(strstr(out, "thermal_zone7/type (not a regular file)\n"));
    assert_non_null(strstr(err, "run conditions: thermal zones not read: thermal_zone0/type"));
    free(out);
    free(err);
}

/* Each row of a run on such a board says its max_temp_c was taken without some zones and
 * where they are named; the GPU zone's 53.3 C is still its max_temp_c. */
static void test_rows_say_zones_unread(void **state)
{
    const char *dir = th_scratch();
    setenv("TB_ROOT", hung_zones_root(), 1);
    alarm(120);
    int rc = th_runf("run --quiet --device cpu -b boards/generic.cfg --sizes 16x16 --kernels "
                     "copy_row --set power.source=none --set sweep.stop.min_time_ms=1 -o %s", dir);
    alarm(0);
    unsetenv("TB_ROOT");
    assert_int_equal(rc, 0);
    char *text = th_read_gz(th_keep(th_find_one(dir, ".csv.gz")));
    if (!strstr(text, "thermal zones unread (max_temp_c without them; the thermal_unread line "
                "names them)") || !strstr(text, ",53.3,") || !strstr(text, "# thermal_unread: "))
        th_fail("no word of the unread zones in:\n%.3000s", text);
    free(text);
}

/* Nothing to say where every zone reads (the Orin's tree) or there is none (a desktop). */
static void test_no_note_when_all_read(void **state)
{
    const char *r = th_scratch();
    assert_true(th_build_sysfs(r, "throttle/orin-nano-super.txt", 3) > 10);
    setenv("TB_ROOT", r, 1);
    struct tb_conditions c;
    tb_conditions_read(&c);
    th_assert_close(c.gpu_temp_c, 53.343, 1e-9);
    assert_string_equal(c.thermal_unread, "");
    setenv("TB_ROOT", th_scratch(), 1);
    tb_conditions_read(&c);
    assert_true(isnan(c.gpu_temp_c));
    assert_string_equal(c.thermal_unread, "");
    unsetenv("TB_ROOT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_gpu_zone_past_unreadable_ones),
        TH_TEST(test_rows_say_zones_unread),
        TH_TEST(test_no_note_when_all_read),
    };
    return cmocka_run_group_tests_name("conditions", tests, NULL, NULL);
}
