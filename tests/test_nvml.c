/* test_nvml.c: the NVML source against a fake libnvidia-ml: absent library, NOT_SUPPORTED
 * (Jetson), a driver that fails to start, a GPU lost mid-run, good readings, and an NVML
 * that hangs (in nvmlInit, or in a reading): abandoned at its deadline with the reason. */
#include "helpers.h"

#include <errno.h>
#include <math.h>

#include "config/config.h"
#include "lib/clock.h"
#include "lib/util.h"
#include "power/nvml.h"
#include "power/power.h"
#include "jetson/throttle.h"

static char fake_lib[4096];

static int setup(void **state)
{
    const char *b = getenv("TB_BUILD");
    snprintf(fake_lib, sizeof(fake_lib), "%s/tests/libfake-nvml.so", b ? b : "build");
    setenv("TB_NVML_LIB", fake_lib, 1);
    return 0;
}

static int probe(char *why, size_t n)
{
    struct tb_power_cfg b;
    memset(&b, 0, sizeof(b));
    return tb_power_nvml.probe(&b, why, n);
}

static void test_missing_library(void **state)
{
    char why[256];
    setenv("TB_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    assert_int_equal(probe(why, sizeof(why)), -ENOENT);
    assert_string_equal(why, "cannot load /nonexistent/libnvidia-ml.so.1 (no NVIDIA desktop "
                             "driver here)");
    setenv("TB_NVML_LIB", fake_lib, 1);
}

static void test_not_supported_is_no_reading(void **state)
{
    char why[256];
    setenv("TB_FAKE_NVML", "notsup", 1);
    assert_int_equal(probe(why, sizeof(why)), -ENOTSUP);
    assert_non_null(strstr(why, "NOT_SUPPORTED"));
    /* so auto does not pick it */
    struct tb_power_cfg b;
    memset(&b, 0, sizeof(b));
    tb_strlcpy(b.sysfs_root, "/nonexistent", sizeof(b.sysfs_root));
    tb_strlcpy(b.tegrastats_command, "/nonexistent/tegrastats", TB_STR);
    assert_ptr_equal(tb_power_pick("auto", &b, why, sizeof(why)), &tb_power_none);
    setenv("TB_FAKE_NVML", "initfail", 1);
    assert_int_equal(probe(why, sizeof(why)), -EIO);
    assert_string_equal(why, "nvmlInit: Driver Not Loaded");
    unsetenv("TB_FAKE_NVML");
}

static void test_readings(void **state)
{
    char why[256];
    struct tb_power_cfg b;
    memset(&b, 0, sizeof(b));
    assert_int_equal(probe(why, sizeof(why)), 0);
    void *st = calloc(1, tb_power_nvml.state_size);
    struct tb_power_rails rails;
    assert_int_equal(tb_power_nvml.open(st, &b, &rails, why, sizeof(why)), 0);
    assert_int_equal(rails.n, 1);
    assert_string_equal(rails.name[0], "GPU");
    struct tb_power_sample s;
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), 0);
    th_assert_close(s.rail_mw[0], 60000, 0);
    assert_false(isnan(s.energy_mj));
    th_assert_close(s.gpu_temp_c, 60, 0);
    th_assert_close(s.gpu_clock_mhz, 1500, 0);
    th_assert_close(s.gpu_load_pct, 97, 0);
    tb_power_nvml.close(st);
    free(st);
}

/* The GPU's own identity and power limit (identify): nvmlDeviceGetUUID's answer, kept as
 * letters, digits and '-' only (a driver's odd bytes never reach the log); none where it
 * answers NOT_SUPPORTED; the enforced limit in W. */
static void identify_as(const char *uuid, const char *limit_mw, struct tb_power_device *d)
{
    char why[256];
    struct tb_power_cfg b;
    struct tb_power_rails rails;
    memset(&b, 0, sizeof(b));
    if (uuid)
        setenv("TB_FAKE_NVML_UUID", uuid, 1);
    setenv("TB_FAKE_NVML_LIMIT_MW", limit_mw, 1);
    void *st = calloc(1, tb_power_nvml.state_size);
    assert_int_equal(tb_power_nvml.open(st, &b, &rails, why, sizeof(why)), 0);
    memset(d, 0x55, sizeof(*d));
    tb_power_nvml.identify(st, d);
    tb_power_nvml.close(st);
    free(st);
    unsetenv("TB_FAKE_NVML_UUID");
    unsetenv("TB_FAKE_NVML_LIMIT_MW");
}

static void test_identity_and_power_limit(void **state)
{
    struct tb_power_device d;
    identify_as("GPU-11111111-2222-3333-4444-555555555555", "700000", &d);
    assert_string_equal(d.id, "GPU-11111111-2222-3333-4444-555555555555");
    th_assert_close(d.limit_w, 700, 1e-9);
    assert_string_equal(d.limit_how, "NVML enforced power limit");
    identify_as("GPU-aa\n# end: complete", "450000", &d);
    assert_string_equal(d.id, "GPU-aaendcomplete");
    th_assert_close(d.limit_w, 450, 1e-9);
    identify_as("notsup", "0", &d);   /* no UUID, a limit of 0: neither known */
    assert_string_equal(d.id, "");
    assert_true(isnan(d.limit_w));
}

/* The memory's own temperature (NVML_FI_DEV_MEMORY_TEMP, an HBM board) with every reading:
 * read at most every 250 ms (of the fake clock) and carried between, converted by its value
 * type (signed int, double), and named in the run conditions; a board whose field answers
 * NOT_SUPPORTED (GDDR) has none, never 0, and its conditions line does not name it. */
static void test_memory_temperature(void **state)
{
    char why[256], line[256];
    double max_mhz;
    struct tb_power_cfg b;
    memset(&b, 0, sizeof(b));
    struct tb_power_rails rails;
    struct tb_power_sample s;
    void *st = calloc(1, tb_power_nvml.state_size);
    setenv("TB_FAKE_NVML_MEM_TEMP", "45", 1);
    assert_int_equal(tb_power_nvml.open(st, &b, &rails, why, sizeof(why)), 0);
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), 0);
    th_assert_close(s.mem_temp_c, 45, 0);
    th_assert_close(s.gpu_temp_c, 60, 0);
    tb_power_nvml.describe(st, line, sizeof(line), &max_mhz);
    assert_string_equal(line, "SM clock 1500 MHz, max 1980 MHz, power limit 700 W, 60 C, "
                              "memory 45 C");
    setenv("TB_FAKE_NVML_MEM_TEMP", "47.25", 1);
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), 0);
    th_assert_close(s.mem_temp_c, 45, 0);   /* no time passed: the last reading, carried */
    tb_clock_spend_ns(250000000LL);
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), 0);
    th_assert_close(s.mem_temp_c, 47.25, 0);
    /* impossible figures (below absolute zero, a billion degrees, a signed field's INT_MIN)
     * are dropped as absurd, not logged as the memory's temperature; a sane one after them
     * is read again */
    const char *absurd[] = { "-300", "1000000000.5", "-2147483648", "2147483647" };
    for (size_t i = 0; i < sizeof(absurd) / sizeof(absurd[0]); i++) {
        setenv("TB_FAKE_NVML_MEM_TEMP", absurd[i], 1);
        tb_clock_spend_ns(250000000LL);
        tb_power_sample_clear(&s);
        assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), 0);
        if (!isnan(s.mem_temp_c))
            print_message("    %s read as %g C\n", absurd[i], s.mem_temp_c);
        assert_true(isnan(s.mem_temp_c));
    }
    setenv("TB_FAKE_NVML_MEM_TEMP", "46", 1);
    tb_clock_spend_ns(250000000LL);
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), 0);
    th_assert_close(s.mem_temp_c, 46, 0);
    tb_power_nvml.close(st);
    unsetenv("TB_FAKE_NVML_MEM_TEMP");
    memset(st, 0, tb_power_nvml.state_size);
    assert_int_equal(tb_power_nvml.open(st, &b, &rails, why, sizeof(why)), 0);
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), 0);
    assert_true(isnan(s.mem_temp_c));
    tb_power_nvml.describe(st, line, sizeof(line), &max_mhz);
    assert_string_equal(line, "SM clock 1500 MHz, max 1980 MHz, power limit 700 W, 60 C");
    tb_power_nvml.close(st);
    free(st);
}

/* NVML measures the GPU the run uses, found by its PCI bus id, not NVML's GPU 0. */
static void test_follows_the_chosen_gpu(void **state)
{
    char why[256];
    struct tb_power_cfg b;
    memset(&b, 0, sizeof(b));
    struct tb_power_rails rails;
    void *st = calloc(1, tb_power_nvml.state_size);
    tb_strlcpy(b.pci_bus_id, "00000000:19:00.0", sizeof(b.pci_bus_id));
    assert_int_equal(tb_power_nvml.open(st, &b, &rails, why, sizeof(why)), 0);
    tb_power_nvml.close(st);
    memset(st, 0, tb_power_nvml.state_size);
    tb_strlcpy(b.pci_bus_id, "00000000:1a:00.0", sizeof(b.pci_bus_id));
    assert_true(tb_power_nvml.open(st, &b, &rails, why, sizeof(why)) < 0);
    assert_string_equal(why, "NVML device 00000000:1a:00.0: Not Found");
    free(st);
}

static void test_gpu_lost_mid_run(void **state)
{
    char why[256];
    struct tb_power_cfg b;
    memset(&b, 0, sizeof(b));
    setenv("TB_FAKE_NVML", "dies:3", 1);
    void *st = calloc(1, tb_power_nvml.state_size);
    struct tb_power_rails rails;
    assert_int_equal(tb_power_nvml.open(st, &b, &rails, why, sizeof(why)), 0); /* read 1 */
    struct tb_power_sample s;
    int rc = 0, good = 0;
    for (int i = 0; i < 5 && rc == 0; i++) {
        tb_power_sample_clear(&s);
        rc = tb_power_nvml.sample(st, &s, why, sizeof(why));
        good += rc == 0;
    }
    assert_int_equal(good, 2);
    assert_int_equal(rc, -EIO);
    assert_string_equal(why, "nvmlDeviceGetPowerUsage: GPU is lost");
    tb_power_nvml.close(st);
    free(st);
    unsetenv("TB_FAKE_NVML");
}

/* A reading that never returns: the sample gives up at the deadline (TB_DRIVER_TIMEOUT_S)
 * naming the call, every later call fails at once with the same reason, and close returns
 * (the hung thread keeps the library; nothing waits for it). */
static void test_hang_mid_run_abandoned(void **state)
{
    char why[256];
    struct tb_power_cfg b;
    memset(&b, 0, sizeof(b));
    setenv("TB_DRIVER_TIMEOUT_S", "1", 1);
    setenv("TB_FAKE_NVML", "hang:2", 1);
    void *st = calloc(1, tb_power_nvml.state_size);
    struct tb_power_rails rails;
    assert_int_equal(tb_power_nvml.open(st, &b, &rails, why, sizeof(why)), 0); /* read 1 */
    struct tb_power_sample s;
    tb_power_sample_clear(&s);
    assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), 0);       /* read 2 */
    th_assert_close(s.rail_mw[0], 60000, 0);
    assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), -ETIMEDOUT);
    assert_string_equal(why, "NVML did not return from nvmlDeviceGetPowerUsage within 1 s: "
                             "the source is abandoned (its thread left waiting)");
    why[0] = '\0';
    assert_int_equal(tb_power_nvml.sample(st, &s, why, sizeof(why)), -ETIMEDOUT);
    assert_non_null(strstr(why, "nvmlDeviceGetPowerUsage within 1 s"));
    unsigned long long mask = 0;
    assert_int_equal(tb_nvml_clock_reasons(st, &mask), -ENOTSUP);
    char line[128] = "x";
    double max_mhz = 0;
    tb_power_nvml.describe(st, line, sizeof(line), &max_mhz);
    assert_string_equal(line, "");
    assert_true(isnan(max_mhz));
    tb_power_nvml.close(st);
    free(st);
    unsetenv("TB_FAKE_NVML");
    unsetenv("TB_DRIVER_TIMEOUT_S");
}

/* The fake in mode (TB_FAKE_NVML) hangs in call as the library loads: the probe gives up
 * at the deadline (TB_DRIVER_TIMEOUT_S 1, left set) naming the call. */
static void probe_hangs_in(const char *mode, const char *call)
{
    char why[256], want[256];
    setenv("TB_DRIVER_TIMEOUT_S", "1", 1);
    setenv("TB_FAKE_NVML", mode, 1);
    assert_int_equal(probe(why, sizeof(why)), -ETIMEDOUT);
    snprintf(want, sizeof(want), "NVML did not return from %s within 1 s: the source is "
             "abandoned (its thread left waiting)", call);
    assert_string_equal(why, want);
}

/* nvmlInit that never returns: the probe (list, auto) and open give up with the reason;
 * auto then picks another source. */
static void test_hang_in_init_abandoned(void **state)
{
    char why[256];
    probe_hangs_in("hang-init", "nvmlInit_v2");
    struct tb_power_cfg b;
    memset(&b, 0, sizeof(b));
    void *st = calloc(1, tb_power_nvml.state_size);
    struct tb_power_rails rails;
    assert_int_equal(tb_power_nvml.open(st, &b, &rails, why, sizeof(why)), -ETIMEDOUT);
    assert_non_null(strstr(why, "nvmlInit_v2 within 1 s"));
    free(st);
    tb_strlcpy(b.sysfs_root, "/nonexistent", sizeof(b.sysfs_root));
    tb_strlcpy(b.tegrastats_command, "/nonexistent/tegrastats", TB_STR);
    assert_ptr_equal(tb_power_pick("auto", &b, why, sizeof(why)), &tb_power_none);
    unsetenv("TB_FAKE_NVML");
    unsetenv("TB_DRIVER_TIMEOUT_S");
}

/* The memory temperature's call that never returns (asked once as the library loads): the
 * probe (and open) give up at the deadline naming it, as for any other NVML call. */
static void test_hang_in_field_values_abandoned(void **state)
{
    probe_hangs_in("hang-fields", "nvmlDeviceGetFieldValues");
    unsetenv("TB_FAKE_NVML");
    unsetenv("TB_DRIVER_TIMEOUT_S");
}

int main(void)
{
    tb_clock_fake(0);   /* the memory temperature's 250 ms: time moves only when spent */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_library),
        cmocka_unit_test(test_not_supported_is_no_reading),
        cmocka_unit_test(test_readings),
        cmocka_unit_test(test_identity_and_power_limit),
        cmocka_unit_test(test_memory_temperature),
        cmocka_unit_test(test_follows_the_chosen_gpu),
        cmocka_unit_test(test_gpu_lost_mid_run),
        /* last: a hung fake stays loaded (its thread is inside it) */
        cmocka_unit_test(test_hang_mid_run_abandoned),
        cmocka_unit_test(test_hang_in_init_abandoned),
        cmocka_unit_test(test_hang_in_field_values_abandoned),
    };
    return cmocka_run_group_tests_name("nvml", tests, setup, NULL);
}
