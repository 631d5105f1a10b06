/* test_cuda_backend.c: the driver-API backend against a fake libcuda (fake_cuda.c), through
 * the real binary: every way a GPU is unusable said by `list` and by `run --device cuda`
 * (no library, a driver older than CUDA 10.2, cuInit failing, no device, no image for
 * the GPU, images the driver refuses), a usable GPU with the image it runs, and cuBLAS
 * absent (its rows skipped with the reason). No GPU needed. */
#include "helpers.h"

#include <limits.h>
#include <unistd.h>

#include "measure/backend.h"
#include "cuda/images.h"

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
    images = tb_image_count() > 0;
    th_own_lock("cuda");   /* per process, removed at its exit */
    return 0;
}

/* `list` with libcuda = lib in mode; returns its stdout (the fixture's, freed by the
 * teardown, which also puts TB_CUDA_LIB and TB_FAKE_CUDA back). */
static const char *list_with(const char *lib, const char *mode)
{
    setenv("TB_CUDA_LIB", lib, 1);
    setenv("TB_FAKE_CUDA", mode, 1);
    int rc = th_runf("list -b boards/generic.cfg");
    if (rc != 0)   /* once seen under SAN in CI, not again: say what list said */
        th_fail("list exit %d; stderr:\n%.3000s\nstdout:\n%.2000s", rc, th_err(), th_out());
    return th_out();
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
    const char *out = list_with("/nonexistent/libcuda.so.1", "h100");
    expect_line(out, "not usable: cannot load the CUDA driver library '/nonexistent/libcuda.so.1'");
}

static void test_driver_too_old(void **state)
{
    const char *out = list_with(fake_old, "h100");
    expect_line(out, "has no cuDevicePrimaryCtxReset: the driver is older than CUDA 10.2");
}

static void test_cuinit_fails(void **state)
{
    const char *out = list_with(fake, "nodevice");
    expect_line(out, "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected); "
                     "driver's CUDA 13.0 (on a Jetson: is this user in the 'video' group?)");
}

static void test_no_device(void **state)
{
    const char *out = list_with(fake, "zero");
    expect_line(out, "no CUDA device: the driver sees none; driver's CUDA 13.0");
}

/* The image the build's table gives sm/driver (images.c's rules, unit-tested on their own in
 * test_cuda_images.c); here: that the backend runs what they pick. */
static bool pick_for(int sm, bool integrated, int driver, struct tb_image_pick *p)
{
    return tb_image_pick(tb_images, tb_image_count(), sm, integrated, driver, p);
}

/* A whole small file, or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void expect_image(const char *out, const struct tb_image_pick *p, bool fits)
{
    char want[256];
    if (!fits) {
        expect_line(out, "no kernel image for this GPU: no image fits");
        return;
    }
    const struct tb_image *im = &tb_images[p->cubin >= 0 ? p->cubin : p->ptx];
    if (im->kind == TB_IMAGE_CUBIN)
        snprintf(want, sizeof(want), "usable, runs cubin sm_%d", im->sm);
    else
        snprintf(want, sizeof(want), "usable, runs PTX sm_%d ISA %d.%d", im->sm, im->ptx_isa / 10,
                 im->ptx_isa % 10);
    expect_line(out, want);
}

/* A Nano (Tegra sm_53, CUDA 10.2): no cubin of a newer CUDA, PTX at ISA 6.5 at most. */
static void test_nano_image(void **state)
{
    struct tb_image_pick p;
    bool fits = pick_for(53, true, 10020, &p);
    const char *out = list_with(fake, "nano");
    expect_image(out, &p, fits);
    if (fits) {
        assert_int_equal(p.cubin, -1);   /* every cubin we can build is CUDA 11 or newer */
        assert_true(tb_images[p.ptx].ptx_isa <= 65 && tb_images[p.ptx].sm <= 53);
        assert_non_null(strstr(out, "why that image: PTX sm_"));
    }
}

/* An Orin under JetPack 5 (CUDA 11.4): a CUDA 13 cubin is never loaded; PTX up to ISA 7.4. */
static void test_orin_old_driver(void **state)
{
    struct tb_image_pick p;
    bool fits = pick_for(87, true, 11040, &p);
    const char *out = list_with(fake, "orin-old");
    expect_image(out, &p, fits);
    if (fits && p.cubin < 0)
        assert_true(tb_images[p.ptx].ptx_isa <= 74);
}

/* A GPU older than every image: says so, with what the binary carries. */
static void test_no_image_for_the_gpu(void **state)
{
    const char *out = list_with(fake, "kepler");
    expect_line(out, "no kernel image for this GPU: no image fits sm_30 under a driver of CUDA "
                     "10.2 (PTX ISA 6.5 at most");
}

/* A cubin NVIDIA's rules allow but the driver refuses: list (no context) says what the
 * rules pick; a run loads it, is refused, runs the PTX, and its log says why. */
static void test_cubin_refused_falls_back(void **state)
{
    struct tb_image_pick p;
    bool fits = pick_for(90, false, 13000, &p);
    const char *out = list_with(fake, "h100-nocubin");
    expect_image(out, &p, fits);
    if (!fits || p.cubin < 0)
        return;
    const char *dir = th_scratch();
    int rc = th_runf("run --device cuda -b boards/generic.cfg --sizes 64x64 "
                     "--kernels naive_row --blocks 32x8 --set sweep.verify=false "
                     "--set power.source=none --set sweep.warmup=0 --set sweep.stop.min_reps=1 "
                     "--set sweep.stop.max_reps=2 -o %s --quiet", dir);
    char *log = th_find_one(dir, ".csv.gz");
    assert_non_null(log);
    char *text = th_read_gz(log);
    const char *why = strstr(text, "# kernel_image: ");
    assert_non_null(why);
    assert_non_null(strstr(why, "the driver (CUDA 13.0) refused cubin sm_90"));
    assert_non_null(strstr(why, "CUDA_ERROR_INVALID_IMAGE"));
    if (p.ptx >= 0) {   /* the PTX ran instead */
        const struct tb_image *im = &tb_images[p.ptx];
        char want[128];
        snprintf(want, sizeof(want), "runs PTX sm_%d ISA %d.%d", im->sm, im->ptx_isa / 10,
                 im->ptx_isa % 10);
        assert_non_null(strstr(text, want));
        assert_int_equal(rc, 0);
    } else
        assert_int_equal(rc, 1);
    free(text);
    free(log);
}

/* PTX is JIT-compiled one entry at a time, when the sweep first runs it: a run of one kernel
 * loads the clock probe, the fill and that kernel's entries, nothing else, and its log says
 * how many entries and how long. */
static void test_ptx_loaded_by_entry(void **state)
{
    struct tb_image_pick p;
    if (!pick_for(53, true, 10020, &p))
        skip();   /* a build without an image for the Nano (CUDA=0) */
    const char *dir = th_scratch();
    char loads[PATH_MAX];
    snprintf(loads, sizeof(loads), "%s/loads.txt", dir);
    setenv("TB_CUDA_LIB", fake, 1);
    setenv("TB_FAKE_CUDA", "nano", 1);
    setenv("TB_FAKE_CUDA_LOG", loads, 1);
    assert_int_equal(th_runf("run --device cuda -b boards/generic.cfg --sizes 64x64,65x33 "
                             "--kernels naive_row --blocks 32x8 --set sweep.verify=false "
                             "--set power.source=none --set sweep.warmup=0 "
                             "--set sweep.stop.min_reps=1 --set sweep.stop.max_reps=2 "
                             "-o %s/logs --quiet", dir), 0);
    char *text = read_text(loads);
    assert_non_null(text);
    /* each load is one entry; each entry is loaded once */
    size_t n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        n++;
        assert_true(!strncmp(l, "ptx tb_", 7) && !strchr(l + 4, ' '));
        assert_true(!strcmp(l + 4, "tb_clock_probe") || !strcmp(l + 4, "tb_fill_pattern") ||
                    !strcmp(l + 4, "tb_naive_row_4"));
    }
    assert_int_equal(n, 3);
    free(text);
    char logdir[PATH_MAX];
    snprintf(logdir, sizeof(logdir), "%s/logs", dir);
    char *log = th_find_one(logdir, ".csv.gz");
    char *gz = th_read_gz(log);
    assert_non_null(strstr(gz, "# kernel_load: 3 PTX entries JIT-compiled in "));
    assert_non_null(strstr(gz, "# kernel_image: PTX sm_"));
    assert_non_null(strstr(gz, "# jit_cache: "));
    free(gz);
    free(log);
}

static void test_usable_gpu_and_its_image(void **state)
{
    const char *out = list_with(fake, "h100");
    char want[1100], summary[1024];
    tb_backend_cuda.images(summary, sizeof(summary));
    if (!tb_image_count()) {   /* none: why, once */
        snprintf(want, sizeof(want), "kernel images: %s\n", summary);
        assert_non_null(strstr(out, want));
    } else {
        /* the images once (#33: they were listed twice, as a summary line and again one
         * per line): a heading, one line each, never the log's one-line summary */
        assert_non_null(strstr(out, "\nkernel images:\n  image 0: "));
        assert_null(strstr(out, summary));
    }
    for (size_t i = 0; i < tb_image_count(); i++) {   /* one line per image, once */
        char desc[192];
        tb_image_describe(&tb_images[i], desc, sizeof(desc));
        snprintf(want, sizeof(want), "  image %zu: %s\n", i, desc);
        const char *at = strstr(out, want), *gpu = strstr(out, "GPU cuda:0: ");
        assert_non_null(at);
        const char *again = strstr(at + strlen(want), desc);   /* the GPU line may name it */
        assert_true(!again || (gpu && again > gpu));
    }
    struct tb_image_pick p;
    expect_image(out, &p, pick_for(90, false, 13000, &p));
}

/* --device cuda on an unusable GPU: exit 1, saying why. */
static void test_run_on_unusable_gpu(void **state)
{
    setenv("TB_CUDA_LIB", fake, 1);
    setenv("TB_FAKE_CUDA", "nodevice", 1);
    assert_int_equal(th_runf("run --device cuda -b boards/generic.cfg --sizes 64x64 "
                             "--set power.source=none -o %s --quiet", th_scratch()), 1);
    assert_non_null(strstr(th_err(), images ? "cuInit: CUDA_ERROR_NO_DEVICE" : "no kernel images"));
}

/* cuBLAS absent: `list` says so, and a run skips its rows with the reason. */
static void test_cublas_absent(void **state)
{
    setenv("TB_CUBLAS_LIB", "/nonexistent/libcublas.so", 1);
    const char *out = list_with(fake, "h100");
    const char *row = strstr(out, "  cublas_geam ");
    assert_non_null(row);
    /* without kernel images (CUDA=0) the row is unavailable for that first reason */
    const char *want = images ? "cuBLAS not found" : "built without kernel images";
    assert_non_null(strstr(row, want));
    assert_true(strstr(row, want) < strchr(row, '\n'));
    struct tb_image_pick p;
    if (tb_image_pick(tb_images, tb_image_count(), 90, false, 13000, &p)) {
        const char *dir = th_scratch();
        assert_int_equal(th_runf("run --device cuda -b boards/generic.cfg --sizes 64x64 "
                                 "--kernels memcpy,cublas_geam --set sweep.verify=false "
                                 "--set power.source=none --set sweep.warmup=0 "
                                 "--set sweep.stop.min_reps=1 --set sweep.stop.max_reps=2 "
                                 "-o %s --quiet", dir), 0);
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
    }
}

/* The # jit_cache line says what the driver will do with CUDA_CACHE_PATH: a relative path
 * (cron's working directory is not a shell's), a regular file, a dangling link: each said,
 * never "writable". */
static void test_jit_cache_line(void **state)
{
    const char *d = th_scratch();
    char p[4096], buf[1024];
    setenv("HOME", d, 1);
    unsetenv("CUDA_CACHE_DISABLE");
    setenv("CUDA_CACHE_PATH", "nv-cache", 1);
    assert_non_null(strstr(tb_backend_cuda.jit_cache(buf, sizeof(buf)), "a relative path"));
    free(th_write(d, "file", "x"));
    snprintf(p, sizeof(p), "%s/file", d);
    setenv("CUDA_CACHE_PATH", p, 1);
    assert_non_null(strstr(tb_backend_cuda.jit_cache(buf, sizeof(buf)), "is not a directory"));
    snprintf(p, sizeof(p), "%s/link", d);
    assert_int_equal(symlink("/nonexistent/cache", p), 0);
    setenv("CUDA_CACHE_PATH", p, 1);
    assert_non_null(strstr(tb_backend_cuda.jit_cache(buf, sizeof(buf)), "a dangling symbolic link"));
    snprintf(p, sizeof(p), "%s/new/cache", d);   /* not made yet: its parent decides */
    setenv("CUDA_CACHE_PATH", p, 1);
    tb_backend_cuda.jit_cache(buf, sizeof(buf));
    assert_null(strstr(buf, "NOT writable"));
    assert_null(strstr(buf, "relative"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_no_library),
        TH_TEST(test_driver_too_old),
        TH_TEST(test_cuinit_fails),
        TH_TEST(test_no_device),
        TH_TEST(test_nano_image),
        TH_TEST(test_orin_old_driver),
        TH_TEST(test_no_image_for_the_gpu),
        TH_TEST(test_cubin_refused_falls_back),
        TH_TEST(test_ptx_loaded_by_entry),
        TH_TEST(test_usable_gpu_and_its_image),
        TH_TEST(test_run_on_unusable_gpu),
        TH_TEST(test_cublas_absent),
        TH_TEST(test_jit_cache_line),
    };
    return cmocka_run_group_tests_name("cuda_backend", tests, setup, NULL);
}
