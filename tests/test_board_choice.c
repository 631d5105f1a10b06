/* test_board_choice.c: run, list and power take the same board file on a desktop GPU
 * (they once differed: run matched the GPU's name, list and power did not ask for it),
 * with a fake libcuda naming an H100 and an empty system tree (no device-tree model). */
#include "helpers.h"

#include <limits.h>
#include <unistd.h>

#include "board.h"
#include "config/config.h"
#include "cuda/images.h"
#include "util.h"

static char root[PATH_MAX], lock[PATH_MAX + 16];

static int setup(void **state)
{
    char *r = th_tmpdir();
    tb_strlcpy(root, r, sizeof(root));
    free(r);
    snprintf(lock, sizeof(lock), "%s/lock", root);
    char lib[PATH_MAX], nvml[PATH_MAX];
    const char *b = getenv("TB_BUILD");
    snprintf(lib, sizeof(lib), "%s/tests/libfake-cuda.so", b ? b : "build");
    snprintf(nvml, sizeof(nvml), "%s/tests/libfake-nvml.so", b ? b : "build");
    setenv("TB_ROOT", root, 1);
    setenv("TB_LOCK_FILE", lock, 1);
    setenv("TB_CUDA_LIB", lib, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_NVML_LIB", nvml, 1);
    return 0;
}

static int teardown(void **state)
{
    unsetenv("TB_ROOT");
    unsetenv("TB_LOCK_FILE");
    unsetenv("TB_CUDA_LIB");
    unsetenv("TB_FAKE_CUDA");
    unsetenv("TB_NVML_LIB");
    th_rmtree(root);
    return 0;
}

static void test_list_power_run_agree(void **state)
{
    if (!tb_image_count())
        skip();   /* CUDA=0: no images, so the driver is never asked for the GPU's name */
    char *out, *err, args[PATH_MAX + 256];
    assert_int_equal(th_run("list", &out, &err), 0);
    assert_non_null(strstr(out, "desktop-h100.cfg (GPU 'NVIDIA H100 80GB HBM3' matches"));
    free(out);
    free(err);
    assert_int_equal(th_run("power --seconds 0.3", &out, &err), 0);
    assert_non_null(strstr(out, "board h100-sxm"));
    free(out);
    free(err);
    /* run (the fake GPU runs no kernel: only its choice of board file matters here) */
    snprintf(args, sizeof(args), "run --sizes 16x16 --kernels copy_row --set power.source=none "
             "--set sweep.stop.min_time_ms=1 -o %s/logs", root);
    th_run(args, &out, &err);
    assert_non_null(strstr(err, "desktop-h100.cfg': GPU 'NVIDIA H100 80GB HBM3' matches"));
    free(out);
    free(err);
}

/* The rule itself: "" (no GPU used: --device cpu) never asks the driver; NULL does. */
static void test_pick_rule(void **state)
{
    if (!tb_image_count())
        skip();   /* CUDA=0: no images, so the driver is never asked for the GPU's name */
    struct tb_config cfg;
    tb_config_init(&cfg);
    char path[PATH_MAX], why[512];
    assert_int_equal(tb_board_pick(&cfg, NULL, "", path, sizeof(path), why, sizeof(why)), 0);
    assert_non_null(strstr(path, "generic.cfg"));
    assert_int_equal(tb_board_pick(&cfg, NULL, NULL, path, sizeof(path), why, sizeof(why)), 0);
    assert_non_null(strstr(path, "desktop-h100.cfg"));
    /* a Jetson's model decides before any GPU name */
    free(th_write(root, "proc/device-tree/model", "NVIDIA Jetson Nano Developer Kit"));
    assert_int_equal(tb_board_pick(&cfg, NULL, NULL, path, sizeof(path), why, sizeof(why)), 0);
    assert_non_null(strstr(path, "jetson-nano.cfg"));
    tb_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_list_power_run_agree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pick_rule, setup, teardown),
    };
    return cmocka_run_group_tests_name("board_choice", tests, NULL, NULL);
}
