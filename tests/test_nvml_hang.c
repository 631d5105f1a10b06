/* test_nvml_hang.c: an NVML that hangs (fake_nvml.c's hang modes) through the real binary
 * (#33: NVML under a deadline, as the CUDA driver's calls are): `power` and `list` end on
 * time saying why, and a run goes on without power, every row after the loss saying so
 * and why. The binary runs under a hard time limit: a hang is a failed test (exit 137). */
#include "helpers.h"

#include <limits.h>
#include <unistd.h>

static char bin[PATH_MAX + 64];

static int setup(void **state)
{
    const char *b = getenv("TB_BUILD"), *tool = getenv("TB_BIN");
    char cwd[PATH_MAX], lib[2 * PATH_MAX + 64];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    if (b && b[0] == '/')
        snprintf(lib, sizeof(lib), "%s/tests/libfake-nvml.so", b);
    else
        snprintf(lib, sizeof(lib), "%s/%s/tests/libfake-nvml.so", cwd, b ? b : "build");
    setenv("TB_NVML_LIB", lib, 1);
    setenv("TB_DRIVER_TIMEOUT_S", "1", 1);
    setenv("TB_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);   /* no GPU: the CPU measures */
    snprintf(bin, sizeof(bin), "timeout -s KILL 60 %s", tool ? tool : "./transpose-bench");
    setenv("TB_BIN", bin, 1);
    th_own_lock("nvml-hang");   /* per process, removed at its exit */
    return 0;
}

/* power: readings, then NVML stops answering; exit 1 with the call named, no hang. */
static void test_power_reading_hangs(void **state)
{
    setenv("TB_FAKE_NVML", "hang:3", 1);
    assert_int_equal(th_runf("power --seconds 30 -b boards/desktop-h100.cfg"), 1);
    assert_non_null(strstr(th_out(), "60000"));   /* the readings before it hung */
    assert_non_null(strstr(th_err(), "power source 'nvml' failed: NVML did not return from "
                                     "nvmlDeviceGetPowerUsage within 1 s"));
}

/* power and list with nvmlInit that never returns: each ends, saying why. */
static void test_init_hangs(void **state)
{
    setenv("TB_FAKE_NVML", "hang-init", 1);
    assert_int_equal(th_runf("power --seconds 30 -b boards/desktop-h100.cfg"), 1);
    assert_non_null(strstr(th_err(), "NVML did not return from nvmlInit_v2 within 1 s"));
    assert_int_equal(th_runf("list -b boards/desktop-h100.cfg"), 0);
    const char *row = strstr(th_out(), "  nvml ");
    assert_non_null(row);
    assert_non_null(strstr(row, "not usable: NVML did not return from nvmlInit_v2 within 1 s"));
}

/* A run whose NVML hangs mid-run: the measurement goes on (every point measured, the end
 * line complete), the rows after the loss say power was lost and why, stderr says it
 * once. A run whose NVML hangs in nvmlInit runs without power, its log saying why. */
static void test_run_goes_on_without_power(void **state)
{
    setenv("TB_FAKE_NVML", "hang:4", 1);
    th_use_fake_clock();   /* the run's idle and windows: no real sleep; NVML's
                                        * deadline stays real (what is tested) */
    char *err = NULL;
    char *log = th_run_log("run --device cpu -b boards/generic.cfg --sizes 128x128,256x256 "
                           "--kernels copy_row,naive_row --set power.source=nvml "
                           "--set power.settle_s=0 -o %s --quiet",   /* no warming: real load */
                           0, true, NULL, &err);
    th_keep(err);
    th_keep(log);
    assert_non_null(strstr(log, "# end: complete, 4 rows"));
    size_t lost = 0;
    for (const char *p = log; (p = strstr(p, "power source 'nvml' lost: NVML did not return "
                                              "from nvmlDeviceGetPowerUsage within 1 s")); p++)
        lost++;
    assert_true(lost >= 1);
    assert_non_null(strstr(err, "power source 'nvml' failed: NVML did not return"));
    setenv("TB_FAKE_NVML", "hang-init", 1);
    log = th_keep(th_run_log("run --device cpu -b boards/generic.cfg --sizes 128x128 "
                             "--kernels copy_row --set power.source=nvml -o %s --quiet", 0,
                             true, NULL, NULL));
    assert_non_null(strstr(log, "# power: source 'nvml' cannot start: NVML did not return "
                                "from nvmlInit_v2 within 1 s"));
    assert_non_null(strstr(log, "# end: complete, 1 rows"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_power_reading_hangs),
        TH_TEST(test_init_hangs),
        TH_TEST(test_run_goes_on_without_power),
    };
    return cmocka_run_group_tests_name("nvml_hang", tests, setup, NULL);
}
