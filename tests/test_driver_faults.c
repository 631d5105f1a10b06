/* test_driver_faults.c: a CUDA driver that hangs or answers garbage, and signals at each
 * step of a run (#33), on the real binary with a fake libcuda (tests/fake_cuda.c): a run
 * ends within its deadline with one whole log whose end line names the call, the lock
 * released; garbage from the driver is never a row. The deadlines here are real: they are
 * what is tested (TB_DRIVER_TIMEOUT_S=1). Split from test_nightly.c, in the fixture of
 * helpers.h (TH_TEST). */
#include "helpers.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util.h"

static const char *fake_cuda;
static bool images;

static int setup(void **state)
{
    fake_cuda = th_fake_cuda_lib();
    images = th_have_images();
    th_own_lock("driver-faults");
    return 0;
}

#define ON_CUDA "run --quiet --device cuda -b boards/generic.cfg --sizes 16x16 --kernels memcpy " \
                "--set power.source=none --set sweep.stop.min_time_ms=1 " \
                "--set sweep.stop.min_reps=2 --set sweep.warmup=0"

/* The tool under a bound that proves "does not hang": killed after 60 s (exit 137). */
static void bounded_bin(void)
{
    const char *bin = getenv("TB_BIN");
    char b[PATH_MAX + 64];
    snprintf(b, sizeof(b), "timeout -s KILL 60 %s", bin ? bin : "./transpose-bench");
    setenv("TB_BIN", b, 1);
}

/* Whether the run's lock is free now: taken and dropped again. */
static bool lock_free(void)
{
    int fd = open(getenv("TB_LOCK_FILE"), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return true;
    bool ok = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return ok;
}

static size_t count_lines(const char *text, const char *prefix)
{
    size_t n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += strncmp(p, prefix, strlen(prefix)) == 0;
    return n;
}

/* A driver that never returns, at each step of the lifecycle where it can block (init,
 * context, module load, synchronize in the sweep): the run ends within the deadline with
 * one whole log whose end line names the call, the lock released, exit 1. */
static void test_driver_hang_at_each_step(void **state)
{
    if (!images)
        skip();
    static const char *const calls[] = { "cuInit", "cuDevicePrimaryCtxRetain",
                                         "cuModuleLoadDataEx", "cuEventSynchronize" };
    bounded_bin();
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "1", 1);
    for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
        const char *dir = th_scratch();
        setenv("TB_FAKE_CUDA_HANG", calls[i], 1);
        assert_int_equal(th_runf(ON_CUDA " -o %s", dir), 1);
        assert_int_equal(th_count_files(dir), 1);   /* the log, no .part */
        char *text = th_the_log(dir);
        char want[256];
        snprintf(want, sizeof(want), "# end: failed: the GPU %sthe CUDA driver did not return "
                 "from %s within 1 s", i < 3 ? "cannot be used (" : "hung: ", calls[i]);
        th_must_have(text, want);
        assert_int_equal(count_lines(text, "# end:"), 1);
        th_must_have(text, "\nrun_id,utc,");   /* a header: readers take the failed night */
        free(text);
        th_must_have(th_err(), "did not return from");
        assert_true(lock_free());
    }
}

/* Starts the tool in the background with args, then " -o DIR/sub"; its pid. */
static pid_t spawn(const char *args_head, const char *dir, const char *sub)
{
    char args[2048];
    snprintf(args, sizeof(args), "%s -o %s/%s", args_head, dir, sub);
    return th_spawn_tool(args);
}

/* Waits (at most 30 s) until file holds want. */
static void wait_for(const char *file, const char *want)
{
    for (int i = 0; i < 600; i++) {
        char *t = th_read_gz(file);
        bool there = t && strstr(t, want);
        free(t);
        if (there)
            return;
        usleep(50000);
    }
    th_fail("'%s' never appeared in '%s'", want, file);
}

/* SIGTERM while the driver hangs, at each step (before the log exists, with the log open
 * before the device, in the sweep): exit 1 within seconds, one log whose end line says the
 * signal and the call, the lock released. The deadline is far away: the signal ends it. */
static void test_signal_inside_a_hung_driver_call(void **state)
{
    if (!images)
        skip();
    static const char *const calls[] = { "cuInit", "cuDevicePrimaryCtxRetain",
                                         "cuModuleLoadDataEx", "cuEventSynchronize" };
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "600", 1);
    for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
        const char *dir = th_scratch();
        char trace[PATH_MAX], want[128];
        snprintf(trace, sizeof(trace), "%s/trace", dir);
        setenv("TB_FAKE_CUDA_TRACE", trace, 1);
        setenv("TB_FAKE_CUDA_HANG", calls[i], 1);
        pid_t pid = spawn(ON_CUDA, dir, "logs");
        snprintf(want, sizeof(want), "hang %s", calls[i]);
        wait_for(trace, want);
        kill(pid, SIGTERM);
        assert_int_equal(th_reap(pid, 20), 1);
        char logs[PATH_MAX];
        snprintf(logs, sizeof(logs), "%s/logs", dir);
        assert_int_equal(th_count_files(logs), 1);
        char *text = th_the_log(logs);
        snprintf(want, sizeof(want), "interrupted by Terminated while the CUDA driver was in %s",
                 calls[i]);
        th_must_have(text, want);
        assert_int_equal(count_lines(text, "# end:"), 1);
        free(text);
        assert_true(lock_free());
    }
}

/* The lock comes before the driver: while one run hangs in its context, a second exits 75
 * without calling cuInit (the trace has the first run's one init). */
static void test_second_run_never_touches_the_driver(void **state)
{
    if (!images)
        skip();
    const char *dir = th_scratch();
    char trace[PATH_MAX];
    snprintf(trace, sizeof(trace), "%s/trace", dir);
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_TRACE", trace, 1);
    setenv("TB_FAKE_CUDA_HANG", "cuDevicePrimaryCtxRetain", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "600", 1);
    pid_t pid = spawn(ON_CUDA, dir, "a");
    wait_for(trace, "hang cuDevicePrimaryCtxRetain");
    unsetenv("TB_FAKE_CUDA_HANG");
    bounded_bin();
    assert_int_equal(th_runf(ON_CUDA " -o %s/b", dir), 75);
    char *t = th_read_gz(trace);
    assert_string_equal(t, "init\nctx\nhang cuDevicePrimaryCtxRetain\n");
    free(t);
    kill(pid, SIGINT);
    assert_int_equal(th_reap(pid, 20), 1);
}

/* The driver's error text carries a newline and a forged end line, TB_CUDA_LIB a newline:
 * the log still has exactly one end line, the failure's, and stderr no raw escape. */
static void test_end_line_cannot_be_forged(void **state)
{
    if (!images)
        skip();
    bounded_bin();
    const char *libs[] = { fake_cuda, "/nonexistent/lib\n# end: complete, 5 rows\n.so" };
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_GARBAGE", "errtext", 1);
    for (size_t i = 0; i < 2; i++) {
        const char *dir = th_scratch();
        setenv("TB_CUDA_LIB", libs[i], 1);
        assert_int_equal(th_runf(ON_CUDA " -o %s", dir), 1);
        char *text = th_the_log(dir);
        assert_int_equal(count_lines(text, "# end:"), 1);
        assert_int_equal(count_lines(text, "# gpu:"), 1);
        th_must_have(text, "# end: failed: the GPU cannot be used (");
        assert_null(strchr(text, '\x1b'));
        free(text);
        assert_null(strchr(th_err(), '\x1b'));
        assert_null(strstr(th_err(), "\n# end"));
    }
}

/* A timer that answers NaN, a negative or a zero time: no row is ok, nothing measured, the
 * end line says so, exit 1 (it was 'ok' rows with empty GB/s and exit 0). */
static void test_timer_garbage_is_never_a_row(void **state)
{
    if (!images)
        skip();
    bounded_bin();
    const char *dir = th_scratch();
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_GARBAGE", "timer", 1);
    assert_int_equal(th_runf(ON_CUDA " --kernels memcpy,copy_row --blocks 16x16 -o %s", dir), 1);
    char *text = th_the_log(dir);
    th_must_have(text, "# end: failed: nothing measured (2 points failed");
    th_must_have(text, "impossible time");
    assert_null(strstr(text, ",ok,"));
    free(text);
}

/* Attributes no GPU can have (L2 of -1 bytes, 2^31-1 SMs, 2^64-1 bytes of memory, an SM
 * clock of 1.8e22 MHz) are unknown in the log, never figures. */
static void test_attribute_garbage_is_unknown(void **state)
{
    if (!images)
        skip();
    bounded_bin();
    const char *dir = th_scratch();
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_GARBAGE", "attrs", 1);
    th_runf(ON_CUDA " -o %s", dir);
    char *text = th_the_log(dir);
    th_must_have(text, ", 0 SMs, L2 0 bytes, memory 0 bytes,");
    assert_null(strstr(text, "18446744073709551615"));
    assert_null(strstr(text, "2147483647"));
    const char *header = strstr(text, "\nrun_id,") + 1, *row = strchr(header, '\n') + 1;
    char v[64];
    assert_int_equal(th_field(header, row, "sm_clock_mhz", v, sizeof(v)), 0);
    assert_string_equal(v, "");
    free(text);
    /* a compute capability of 2^31-1 (its x10 overflowed an int): the GPU is unusable */
    dir = th_scratch();
    setenv("TB_FAKE_CUDA_GARBAGE", "cc", 1);
    assert_int_equal(th_runf(ON_CUDA " -o %s", dir), 1);
    text = th_the_log(dir);
    th_must_have(text, "impossible compute capability (2147483647.0)");
    free(text);
    /* the test hook is named in the log of a run that has it on */
    dir = th_scratch();
    unsetenv("TB_FAKE_CUDA_GARBAGE");
    setenv("TB_CUDA_FAULT", "copy_row", 1);   /* not in the sweep: no launch breaks */
    th_runf(ON_CUDA " -o %s", dir);
    text = th_the_log(dir);
    th_must_have(text, "# fault_injection: TB_CUDA_FAULT=copy_row");
    free(text);
}

/* TB_CUDA_LIB and TB_NVML_LIB naming a FIFO: refused before dlopen (whose open would wait
 * for a writer for ever); list and run end at once and say why. */
static void test_fifo_libraries_do_not_hang(void **state)
{
    bounded_bin();
    const char *dir = th_scratch();
    char fifo[PATH_MAX];
    snprintf(fifo, sizeof(fifo), "%s/libcuda.so.1", dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    setenv("TB_CUDA_LIB", fifo, 1);
    /* refused at the start, as every TB_* path that is not what it must be (a usage error:
     * exit 2, nothing opened); the loader's own FIFO check stays behind it */
    assert_int_equal(th_runf("list"), 2);
    th_must_have(th_err(), "TB_CUDA_LIB");
    th_must_have(th_err(), "is not a regular file");
    assert_int_equal(th_runf(ON_CUDA " -o %s/logs", dir), 2);
    th_must_have(th_err(), "TB_CUDA_LIB");
    if (!images)
        return;
    setenv("TB_CUDA_LIB", fake_cuda, 1);   /* a GPU that works, NVML a FIFO */
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_NVML_LIB", fifo, 1);
    assert_int_equal(th_runf(ON_CUDA " --set power.source=nvml -o %s/logs2", dir), 2);
    th_must_have(th_err(), "TB_NVML_LIB");
}

/* list and power are bounded as run is: a cuInit that never returns ends them within the
 * deadline, non-zero, saying which call. */
static void test_list_and_power_bounded(void **state)
{
    if (!images)
        skip();
    bounded_bin();
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_HANG", "cuInit", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "1", 1);
    assert_int_equal(th_runf("list"), 1);
    th_must_have(th_err(), "the CUDA driver did not return from cuInit within 1 s");
    assert_int_equal(th_runf("power --seconds 1"), 1);
    th_must_have(th_err(), "the CUDA driver did not return from cuInit within 1 s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_driver_hang_at_each_step),
        TH_TEST(test_signal_inside_a_hung_driver_call),
        TH_TEST(test_second_run_never_touches_the_driver),
        TH_TEST(test_end_line_cannot_be_forged),
        TH_TEST(test_timer_garbage_is_never_a_row),
        TH_TEST(test_attribute_garbage_is_unknown),
        TH_TEST(test_fifo_libraries_do_not_hang),
        TH_TEST(test_list_and_power_bounded),
    };
    return cmocka_run_group_tests_name("driver_faults", tests, setup, NULL);
}
