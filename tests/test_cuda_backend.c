/* test_cuda_backend.c: the driver-API backend against a fake libcuda (fake_cuda.c), through
 * the real binary: every way a GPU is unusable said by `list` and by `run --device cuda`
 * (no library, a driver older than CUDA 10.2, cuInit failing, no device, no image for
 * the GPU, images the driver refuses), a usable GPU with the image it runs, and cuBLAS
 * absent (its rows skipped with the reason). No GPU needed. */
#include "helpers.h"

#include <limits.h>
#include <unistd.h>

#include "backend.h"

static char fake[PATH_MAX], fake_old[PATH_MAX];
static bool images;   /* this build carries kernel images (nvcc was there) */

static int setup(void **state)
{
    const char *b = getenv("TB_BUILD");
    snprintf(fake, sizeof(fake), "%s/tests/libfake-cuda.so", b ? b : "build");
    snprintf(fake_old, sizeof(fake_old), "%s/tests/libfake-cuda-old.so", b ? b : "build");
    if (fake[0] != '/') {   /* the binary runs from the checkout: make the path absolute */
        char cwd[PATH_MAX], rel[PATH_MAX];
        assert_non_null(getcwd(cwd, sizeof(cwd)));
        snprintf(rel, sizeof(rel), "%s", fake);
        snprintf(fake, sizeof(fake), "%.2000s/%.2000s", cwd, rel);
        snprintf(rel, sizeof(rel), "%s", fake_old);
        snprintf(fake_old, sizeof(fake_old), "%.2000s/%.2000s", cwd, rel);
    }
    images = strncmp(tb_cuda_images(), "none", 4) != 0;
    char lock[64];   /* per process: suites run at once (make test beside make test-valgrind) */
    snprintf(lock, sizeof(lock), "/tmp/tb-test-cuda-lock-%ld", (long)getpid());
    setenv("TB_LOCK_FILE", lock, 1);
    return 0;
}

/* `list` with libcuda = lib in mode; returns its stdout (malloc). */
static char *list_with(const char *lib, const char *mode)
{
    setenv("TB_CUDA_LIB", lib, 1);
    setenv("TB_FAKE_CUDA", mode, 1);
    char *out;
    assert_int_equal(th_run("list -b boards/generic.cfg", &out, NULL), 0);
    return out;
}

/* The "GPU cuda:0: ..." line of list's output. */
static const char *gpu_line(const char *out)
{
    const char *l = strstr(out, "GPU cuda:0: ");
    assert_non_null(l);
    return l;
}

static void expect_line(const char *out, const char *want)
{
    const char *l = gpu_line(out);
    if (!images)
        want = "carries no kernel images";
    if (!strstr(l, want) || strchr(l, '\n') < strstr(l, want)) {
        print_error("want '%s' in: %.400s\n", want, l);
        fail();
    }
}

static void test_no_library(void **state)
{
    char *out = list_with("/nonexistent/libcuda.so.1", "h100");
    expect_line(out, "not usable: cannot load the CUDA driver library '/nonexistent/libcuda.so.1'");
    free(out);
}

static void test_driver_too_old(void **state)
{
    char *out = list_with(fake_old, "h100");
    expect_line(out, "has no cuDevicePrimaryCtxReset: the driver is older than CUDA 10.2");
    free(out);
}

static void test_cuinit_fails(void **state)
{
    char *out = list_with(fake, "nodevice");
    expect_line(out, "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected); "
                     "driver's CUDA 13.0 (on a Jetson: is this user in the 'video' group?)");
    free(out);
}

static void test_no_device(void **state)
{
    char *out = list_with(fake, "zero");
    expect_line(out, "no CUDA device: the driver sees none; driver's CUDA 13.0");
    free(out);
}

/* A Nano (integrated sm_53) with a binary built without sm_53: which images, and the fix. */
static void test_no_image_for_the_gpu(void **state)
{
    char *out = list_with(fake, "nano");
    if (strstr(tb_cuda_images(), "sm_53 "))
        expect_line(out, "usable, runs cubin sm_53");
    else {
        char want[512];
        snprintf(want, sizeof(want), "no kernel image for this GPU (sm_53): the binary carries "
                 "%s; driver's CUDA 10.2; rebuild with SMS=53", tb_cuda_images());
        expect_line(out, want);
    }
    free(out);
}

/* An Orin whose driver (CUDA 11.4) refuses images from a newer nvcc. */
static void test_images_refused(void **state)
{
    char *out = list_with(fake, "orin-old");
    if (strstr(tb_cuda_images(), "sm_87"))
    {
        expect_line(out, "the driver refused the kernel images: CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
        expect_line(out, "GPU sm_87, driver's CUDA 11.4, images ");
        expect_line(out, "build them with CUDA 11.4 or older (e.g. NVCC=/usr/local/cuda-11.4/bin/nvcc)");
    }
    else
        expect_line(out, "no kernel image for this GPU (sm_87)");
    free(out);
}

static void test_usable_gpu_and_its_image(void **state)
{
    char *out = list_with(fake, "h100");
    char want[256];
    snprintf(want, sizeof(want), "kernel images: %s\n", tb_cuda_images());
    assert_non_null(strstr(out, want));
    if (strstr(tb_cuda_images(), "sm_90"))
        expect_line(out, "NVIDIA H100 80GB HBM3, sm_90, driver's CUDA 13.0: usable, runs cubin sm_90");
    else
        expect_line(out, "usable, runs PTX compute_");
    free(out);
}

/* --device cuda on an unusable GPU: exit 1, saying why. */
static void test_run_on_unusable_gpu(void **state)
{
    setenv("TB_CUDA_LIB", fake, 1);
    setenv("TB_FAKE_CUDA", "nodevice", 1);
    char *dir = th_tmpdir(), *err, args[1024];
    snprintf(args, sizeof(args), "run --device cuda -b boards/generic.cfg --sizes 64x64 "
             "--set power.source=none -o %s --quiet", dir);
    assert_int_equal(th_run(args, NULL, &err), 1);
    assert_non_null(strstr(err, images ? "cuInit: CUDA_ERROR_NO_DEVICE" : "no kernel images"));
    free(err);
    th_rmtree(dir);
    free(dir);
}

/* cuBLAS absent: `list` says so, and a run skips its rows with the reason. */
static void test_cublas_absent(void **state)
{
    setenv("TB_CUBLAS_LIB", "/nonexistent/libcublas.so", 1);
    char *out = list_with(fake, "h100");
    const char *row = strstr(out, "  cublas_geam ");
    assert_non_null(row);
    /* without kernel images (CUDA=0) the row is unavailable for that first reason */
    const char *want = images ? "cuBLAS not found" : "built without kernel images";
    assert_non_null(strstr(row, want));
    assert_true(strstr(row, want) < strchr(row, '\n'));
    free(out);
    if (images && strstr(tb_cuda_images(), "sm_90")) {
        char *dir = th_tmpdir(), args[1024];
        snprintf(args, sizeof(args), "run --device cuda -b boards/generic.cfg --sizes 64x64 "
                 "--kernels memcpy,cublas_geam --set sweep.verify=false --set power.source=none "
                 "--set sweep.warmup=0 --set sweep.stop.min_reps=1 --set sweep.stop.max_reps=2 "
                 "-o %s --quiet", dir);
        assert_int_equal(th_run(args, NULL, NULL), 0);
        char *log = th_find_one(dir, ".csv.gz");
        assert_non_null(log);
        char *text = th_read_gz(log);
        const char *r = strstr(text, ",cublas_geam,");
        assert_non_null(r);
        const char *eol = strchr(r + 1, '\n');
        const char *skip = strstr(r, ",skipped,");
        assert_true(skip && skip < eol);
        const char *why = strstr(r, "cuBLAS not found");
        assert_true(why && why < eol);
        free(text);
        free(log);
        th_rmtree(dir);
        free(dir);
    }
    unsetenv("TB_CUBLAS_LIB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_library),
        cmocka_unit_test(test_driver_too_old),
        cmocka_unit_test(test_cuinit_fails),
        cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_no_image_for_the_gpu),
        cmocka_unit_test(test_images_refused),
        cmocka_unit_test(test_usable_gpu_and_its_image),
        cmocka_unit_test(test_run_on_unusable_gpu),
        cmocka_unit_test(test_cublas_absent),
    };
    return cmocka_run_group_tests_name("cuda_backend", tests, setup, NULL);
}
