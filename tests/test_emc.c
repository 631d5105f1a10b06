/* test_emc.c: the EMC clock found and read in fake sysfs trees of each layout
 * (tests/fixtures/emc/README.txt), skipped where debugfs is out of reach or the file is a
 * FIFO, and recorded in the run conditions whatever the power source. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/conditions.h"
#include "jetson/emc.h"
#include "lib/util.h"

static void expect(const char *tree, const char *suffix, double mhz)
{
    char root[PATH_MAX], path[PATH_MAX], why[512];
    snprintf(root, sizeof(root), "%s", th_fixture(tree));
    assert_int_equal(tb_emc_find(root, path, sizeof(path)), 0);
    size_t l = strlen(path), k = strlen(suffix);
    if (l < k || strcmp(path + l - k, suffix))
        th_fail("%s: found '%s', expected '...%s'", tree, path, suffix);
    th_assert_close(tb_emc_read_mhz(path, why, sizeof(why)), mhz, 1e-9);
}

static void test_every_layout(void **state)
{
    expect("emc/l4t32-nano", "/sys/kernel/debug/clk/emc/clk_rate", 1600);
    expect("emc/l4t32-nano-bwmgr", "/sys/kernel/debug/clk/override.emc/clk_rate", 1600);
    expect("emc/l4t35-orin", "/sys/kernel/debug/bpmp/debug/clk/emc/rate", 2133);
    expect("emc/l4t36-orin-devfreq", "/sys/class/devfreq/bwmgr/cur_freq", 3199);
    char path[PATH_MAX];
    assert_int_equal(tb_emc_find(th_fixture("emc/no-root-orin"), path, sizeof(path)), -ENOENT);
    assert_string_equal(path, "");
}

static void test_fifo_and_junk_skipped(void **state)
{
    char *r = th_tmpdir(), p[PATH_MAX], path[PATH_MAX], why[512];
    free(th_write(r, "sys/class/devfreq/emc/cur_freq", "fast\n"));          /* junk */
    free(th_write(r, "sys/kernel/debug/clk/emc/clk_rate", "1600000000\n"));
    snprintf(p, sizeof(p), "%s/sys/kernel/debug/bpmp/debug/clk/emc/rate", r);
    free(th_write(r, "sys/kernel/debug/bpmp/debug/clk/emc/x", ""));
    assert_int_equal(mkfifo(p, 0644), 0);                                   /* a FIFO */
    alarm(60);
    assert_int_equal(tb_emc_find(r, path, sizeof(path)), 0);
    alarm(0);
    assert_non_null(strstr(path, "/sys/kernel/debug/clk/emc/clk_rate"));
    snprintf(p, sizeof(p), "%s/sys/class/devfreq/emc/cur_freq", r);
    assert_true(isnan(tb_emc_read_mhz(p, why, sizeof(why))));
    assert_non_null(strstr(why, "not a clock in Hz"));
    th_rmtree(r);
    free(r);
}

static void emit(void *ctx, const char *key, const char *value)
{
    if (!strcmp(key, "emc_clock"))
        tb_strlcpy(ctx, value, 512);
}

static void test_in_run_conditions(void **state)
{
    setenv("TB_ROOT", th_fixture("emc/l4t35-orin"), 1);
    struct tb_conditions c;
    tb_conditions_read(&c);
    th_assert_close(c.emc_mhz, 2133, 1e-9);
    char v[512] = "";
    tb_conditions_each(&c, emit, v);
    assert_non_null(strstr(v, "2133 MHz at the start ("));
    assert_non_null(strstr(v, "/sys/kernel/debug/bpmp/debug/clk/emc/rate)"));
    setenv("TB_ROOT", th_fixture("emc/no-root-orin"), 1);
    tb_conditions_read(&c);
    assert_true(isnan(c.emc_mhz));
    v[0] = '\0';
    tb_conditions_each(&c, emit, v);
    assert_string_equal(v, "");
    unsetenv("TB_ROOT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_layout),
        cmocka_unit_test(test_fifo_and_junk_skipped),
        cmocka_unit_test(test_in_run_conditions),
    };
    return cmocka_run_group_tests_name("emc", tests, NULL, NULL);
}
