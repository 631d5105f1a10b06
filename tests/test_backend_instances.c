/* test_backend_instances.c: backends with instances (#29 item 3) and device recovery
 * (#29 item 7), against the fake libcuda (fake_cuda.c): identify names a GPU with no
 * context and no module load, so board choice and `list` make none; two instances of one
 * backend share no state; a launch that fails is recovered and the sweep goes on; a
 * context lost for good ends the run honestly, every completed row kept. No GPU needed. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include "measure/backend.h"
#include "cuda/images.h"
#include "lib/util.h"

static const char *fake;
static bool images;   /* this build carries kernel images (CUDA=1) */

static int setup(void **state)
{
    fake = th_fake_cuda_lib();
    /* in this process too: identify and the instances below load the fake */
    setenv("TB_CUDA_LIB", fake, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    th_own_lock("instances");
    images = th_have_images();
    return 0;
}

/* How many lines of the trace file are exactly `what` (0 when there is no file). */
static size_t trace_count(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    size_t n = 0;
    char line[256];
    while (f && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        n += !strcmp(line, what);
    }
    if (f)
        fclose(f);
    return n;
}

/* A fresh trace file in the test's scratch folder, named by TB_FAKE_CUDA_TRACE. */
static const char *trace_file(void)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/trace.txt", th_scratch());
    unlink(path);
    setenv("TB_FAKE_CUDA_TRACE", path, 1);
    return path;
}

/* identify, in this process: the name, compute capability and memory, with the driver
 * initialised and not one context made or module loaded. */
static void test_identify_makes_no_context(void **state)
{
    const char *trace = trace_file();
    struct tb_device_info dev;
    char why[512] = "";
    assert_int_equal(tb_backend_cuda.identify(0, &dev, why, sizeof(why)), 0);
    assert_string_equal(dev.name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(dev.cc_major, 9);
    assert_int_equal(dev.cc_minor, 0);
    assert_int_equal(dev.sm_count, 132);
    assert_true(dev.mem_bytes == (size_t)4 << 30);
    assert_string_equal(dev.pci_bus_id, "00000000:19:00.0");
    assert_string_equal(dev.driver_version, "13.0");
    if (images)
        assert_true(dev.image[0] && dev.image_why[0]);   /* the rules' pick, no load */
    else
        assert_non_null(strstr(dev.image_why, "carries no kernel images"));
    assert_int_equal(trace_count(trace, "ctx"), 0);
    assert_int_equal(trace_count(trace, "load"), 0);
    /* a device the driver does not have: said, still no context */
    assert_int_not_equal(tb_backend_cuda.identify(3, &dev, why, sizeof(why)), 0);
    assert_non_null(strstr(why, "CUDA device 3 does not exist (1 device)"));
    assert_int_equal(trace_count(trace, "ctx"), 0);
    /* the control: the same trace sees the context and the load an open makes */
    if (images) {
        void *st = tb_backend_new(&tb_backend_cuda);
        assert_non_null(st);
        assert_int_equal(tb_backend_cuda.open(st, 0, &dev, why, sizeof(why)), 0);
        assert_int_equal(trace_count(trace, "ctx"), 1);
        assert_true(trace_count(trace, "load") >= 1);
        tb_backend_cuda.close(st);
        free(st);
    }
}

/* list (no -b: board choice asks the driver for GPU 0's name) names the GPU, picks the
 * H100's board file and says which image it would run, without a context or a load;
 * power's board choice the same. The control: a run does make one. */
static void test_list_and_board_choice_make_no_context(void **state)
{
    if (!images)
        skip();   /* CUDA=0: no GPU usable, board choice never asks the driver */
    const char *trace = trace_file();
    char *root = th_keep(th_tmpdir());   /* no device-tree model: the GPU's name decides */
    setenv("TB_ROOT", root, 1);
    assert_int_equal(th_runf("list"), 0);
    assert_non_null(strstr(th_out(), "GPU cuda:0: NVIDIA H100 80GB HBM3, sm_90, driver's CUDA "
                                     "13.0: usable, runs "));
    assert_non_null(strstr(th_out(), "desktop-h100.cfg (GPU 'NVIDIA H100 80GB HBM3' matches"));
    assert_true(trace_count(trace, "init") >= 1);   /* the driver was asked */
    assert_int_equal(trace_count(trace, "ctx"), 0);
    assert_int_equal(trace_count(trace, "load"), 0);
    char nvml[PATH_MAX];
    snprintf(nvml, sizeof(nvml), "%.4000s", fake);
    strcpy(strstr(nvml, "libfake-cuda.so"), "libfake-nvml.so");
    setenv("TB_NVML_LIB", nvml, 1);
    assert_int_equal(th_runf("power --seconds 0.2"), 0);
    assert_non_null(strstr(th_out(), "board h100-sxm"));
    assert_int_equal(trace_count(trace, "ctx"), 0);
    assert_int_equal(trace_count(trace, "load"), 0);
    th_runf("run --device cuda --sizes 16x16 --kernels copy_row --set power.source=none "
            "--set sweep.stop.min_time_ms=1 --quiet -o %s/logs", th_scratch());
    assert_int_equal(trace_count(trace, "ctx"), 1);
    assert_true(trace_count(trace, "load") >= 1);
}

/* The "available" column of list's row for kernel name on backend be ("yes"/"no"). */
static const char *available(const char *out, const char *name, const char *be)
{
    char want[64];
    snprintf(want, sizeof(want), "\n  %s ", name);
    for (const char *p = out; (p = strstr(p, want)); p++) {
        char n[32], b[16], a[8];
        if (sscanf(p + 1, "%31s %15s %7s", n, b, a) == 3 && !strcmp(b, be))
            return strcmp(a, "yes") ? "no" : "yes";
    }
    th_fail("no row for %s on %s", name, be);   /* cmocka 1.1.1 has no fail_msg */
    return NULL;
}

/* #33: list says "available yes" for a CUDA kernel only where a GPU can run it: never with
 * no driver, nor with a driver that sees no GPU; the CPU's kernels stay available. */
static void test_list_availability_follows_the_driver(void **state)
{
    setenv("TB_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
    assert_int_equal(th_runf("list -b boards/generic.cfg"), 0);
    assert_string_equal(available(th_out(), "naive_row", "cuda"), "no");
    assert_string_equal(available(th_out(), "memcpy", "cuda"), "no");
    assert_string_equal(available(th_out(), "naive_row", "cpu"), "yes");
    /* without kernel images (CUDA=0) list says that first; with them, the GPU */
    assert_non_null(strstr(th_out(), tb_image_count() ? "no usable GPU here (see below)"
                                                      : "built without kernel images"));
    setenv("TB_CUDA_LIB", fake, 1);
    setenv("TB_FAKE_CUDA", "nodevice", 1);
    assert_int_equal(th_runf("list -b boards/generic.cfg"), 0);
    assert_string_equal(available(th_out(), "naive_row", "cuda"), "no");
    setenv("TB_FAKE_CUDA", "h100", 1);   /* the control: a usable GPU */
    assert_int_equal(th_runf("list -b boards/generic.cfg"), 0);
    assert_string_equal(available(th_out(), "naive_row", "cuda"), images ? "yes" : "no");
}

/* Two CPU instances: a stop flag given to one never stops the other (it was one static). */
static void test_two_cpu_instances(void **state)
{
    const struct tb_backend *be = &tb_backend_cpu;
    void *a = tb_backend_new(be), *b = tb_backend_new(be);
    assert_non_null(a);
    assert_non_null(b);
    struct tb_device_info dev;
    char why[256];
    assert_int_equal(be->open(a, 0, &dev, why, sizeof(why)), 0);
    assert_int_equal(be->open(b, 0, &dev, why, sizeof(why)), 0);
    volatile sig_atomic_t stop = 1;
    be->watch(a, &stop);
    float buf[64];
    assert_int_equal(be->fill_pattern(a, buf, 64, 4, 1), -EINTR);
    assert_int_equal(be->fill_pattern(b, buf, 64, 4, 1), 0);
    /* the words of an error live in the instance: a second error elsewhere keeps them */
    const char *ea = be->errstr(a, -ENOMEM), *eb = be->errstr(b, -EINTR);
    assert_ptr_not_equal(ea, eb);
    assert_string_equal(ea, strerror(ENOMEM));
    assert_string_equal(eb, strerror(EINTR));
    assert_int_equal(be->flush_cache(a), 0);
    be->close(a);
    assert_int_equal(be->flush_cache(b), 0);   /* b's buffer is its own */
    be->close(b);
    free(a);
    free(b);
}

/* Two CUDA instances on one GPU: each its own context and modules; closing one leaves the
 * other working; each one's error words its own. */
static void test_two_cuda_instances(void **state)
{
    if (!images)
        skip();
    const char *trace = trace_file();
    const struct tb_backend *be = &tb_backend_cuda;
    void *a = tb_backend_new(be), *b = tb_backend_new(be);
    struct tb_device_info da, db;
    char why[1024];
    assert_int_equal(be->open(a, 0, &da, why, sizeof(why)), 0);
    assert_int_equal(be->open(b, 0, &db, why, sizeof(why)), 0);
    assert_int_equal(trace_count(trace, "ctx"), 2);   /* the second open did not close the first */
    size_t loads = trace_count(trace, "load");
    assert_true(loads >= 2);
    const char *ea = be->errstr(a, 100), *eb = be->errstr(b, 209);
    assert_ptr_not_equal(ea, eb);
    assert_non_null(strstr(ea, "CUDA_ERROR_NO_DEVICE"));
    assert_non_null(strstr(eb, "CUDA_ERROR_NO_BINARY_FOR_GPU"));
    be->close(a);
    /* b still has its context, stream and modules */
    void *p = NULL;
    unsigned char host[256];
    assert_int_equal(be->alloc(b, sizeof(host), &p), 0);
    assert_int_equal(be->fill_bytes(b, p, 0xA5, sizeof(host)), 0);
    assert_int_equal(be->download(b, host, p, sizeof(host)), 0);
    for (size_t i = 0; i < sizeof(host); i++)
        assert_int_equal(host[i], 0xA5);
    assert_int_equal(be->fill_pattern(b, p, 64, 4, 7), 0);   /* b's module's entry */
    double mhz;
    assert_int_equal(be->sm_clock_mhz(b, &mhz), 0);
    be->free(b, p);
    assert_int_equal(trace_count(trace, "load"), loads);   /* nothing reloaded for b */
    be->close(b);
    free(a);
    free(b);
}

static const char *run_err;   /* the last run_log's stderr */

/* The run's rows, as the log holds them: its text (kept until the teardown). fault: the
 * fake's TB_FAKE_CUDA_FAULT, or "" for none. */
static const char *run_log(const char *fault, int want_rc)
{
    setenv("TB_FAKE_CUDA_FAULT", fault, 1);
    char *err = NULL;
    /* one warm-up launch: the backend's launch path (TB_CUDA_FAULT's) as well as the timed */
    char *text = th_run_log("run --device cuda -b boards/generic.cfg --sizes 64x64,128x128 "
                            "--kernels naive_row,tiled --blocks 32x8 --set sweep.verify=false "
                            "--set power.source=none --set sweep.warmup=1 "
                            "--set sweep.stop.min_reps=1 --set sweep.stop.max_reps=2 "
                            "-o %s --quiet", want_rc, true, NULL, &err);
    unsetenv("TB_FAKE_CUDA_FAULT");
    run_err = th_keep(err);
    return th_keep(text);
}

/* Rows whose status is s. */
static size_t rows_with(const char *log, const char *s)
{
    char want[64];
    snprintf(want, sizeof(want), ",%s,", s);
    size_t n = 0;
    for (const char *p = log; (p = strstr(p, want)); p++)
        n++;
    return n;
}

/* A launch that fails (CUDA_ERROR_LAUNCH_FAILED breaks the context): its row says so, the
 * device is reset, the other points run, and the run ends complete but not clean. */
static void test_launch_fault_recovered(void **state)
{
    if (!images)
        skip();
    const char *trace = trace_file();
    const char *log = run_log("launch:1", 1);
    assert_non_null(strstr(log, "CUDA_ERROR_LAUNCH_FAILED"));
    assert_int_equal(rows_with(log, "error"), 1);
    assert_true(rows_with(log, "ok") >= 3);   /* every other point of the four */
    assert_int_equal(trace_count(trace, "reset"), 1);
    assert_int_equal(trace_count(trace, "ctx"), 2);   /* the first, and the one after the reset */
    assert_null(strstr(log, "aborted"));
}

/* A context lost for good after the first kernel: the second kernel's row says what
 * happened, the reset cannot bring it back, the sweep stops, and the end line says the
 * device was lost, never "complete"; the rows measured before stay. */
static void test_context_lost_mid_sweep(void **state)
{
    if (!images)
        skip();
    const char *trace = trace_file();
    const char *log = run_log("lost:4", 1);
    assert_true(rows_with(log, "ok") >= 1);     /* measured before the loss: kept */
    assert_int_equal(rows_with(log, "error"), 1);
    assert_non_null(strstr(log, "CUDA_ERROR_LAUNCH_FAILED"));
    assert_int_equal(trace_count(trace, "reset"), 1);
    const char *end = strstr(log, "# end: ");
    assert_non_null(end);
    assert_non_null(strstr(end, "aborted, device lost (the reset did not recover it), "));
    size_t not_run = 0;   /* the points after the lost one: each said, none a row */
    assert_int_equal(sscanf(strstr(end, "recover it), ") + 13, "%zu points not run", &not_run), 1);
    assert_true(not_run >= 1);
    assert_int_equal(rows_with(log, "ok") + rows_with(log, "error") + not_run, 6);
    assert_null(strstr(end, "complete"));
    assert_non_null(strstr(run_err, "the device could not be recovered"));
}

/* The backend's own hook (TB_CUDA_FAULT, for contrib/gpu-lab/gpu-check.sh): its kernel's first launch
 * writes through a bad pointer; the fake reports an illegal address at the synchronize, as
 * a GPU does; the row says so, the device is reset, the sweep goes on, the log names the
 * hook. */
static void test_fault_hook_illegal_address(void **state)
{
    if (!images)
        skip();
    const char *trace = trace_file();
    setenv("TB_CUDA_FAULT", "tiled", 1);
    const char *log = run_log("", 1);
    unsetenv("TB_CUDA_FAULT");
    assert_non_null(strstr(log, "# fault_injection: TB_CUDA_FAULT=tiled"));
    const char *row = strstr(log, ",tiled,");
    assert_non_null(row);
    const char *err = strstr(row, ",error,");
    assert_true(err && err < strchr(row, '\n'));
    assert_non_null(strstr(row, "CUDA_ERROR_ILLEGAL_ADDRESS"));
    assert_int_equal(rows_with(log, "error"), 1);
    assert_true(rows_with(log, "ok") >= 3);
    assert_int_equal(trace_count(trace, "reset"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_identify_makes_no_context),
        TH_TEST(test_list_and_board_choice_make_no_context),
        TH_TEST(test_list_availability_follows_the_driver),
        TH_TEST(test_two_cpu_instances),
        TH_TEST(test_two_cuda_instances),
        TH_TEST(test_launch_fault_recovered),
        TH_TEST(test_context_lost_mid_sweep),
        TH_TEST(test_fault_hook_illegal_address),
    };
    return cmocka_run_group_tests_name("backend_instances", tests, setup, NULL);
}
