/* test_board_choice.c: run, list and power take the same board file on a desktop GPU
 * (they once differed: run matched the GPU's name, list and power did not ask for it),
 * with a fake libcuda naming an H100 and an empty system tree (no device-tree model). */
#include "helpers.h"

#include <limits.h>
#include <unistd.h>

#include "measure/board.h"
#include "config/config.h"
#include "cuda/images.h"
#include "lib/util.h"

/* A desktop with an H100 (the fake libcuda) and an empty system tree under a scratch
 * TB_ROOT; the fixture (TH_TEST) removes the folder and puts the environment back. */
static const char *fake_h100_desktop(void)
{
    const char *root = th_scratch();
    char lock[PATH_MAX + 16], lib[PATH_MAX], nvml[PATH_MAX];
    snprintf(lock, sizeof(lock), "%s/lock", root);
    const char *b = getenv("TB_BUILD");
    snprintf(lib, sizeof(lib), "%s/tests/libfake-cuda.so", b ? b : "build");
    snprintf(nvml, sizeof(nvml), "%s/tests/libfake-nvml.so", b ? b : "build");
    setenv("TB_ROOT", root, 1);
    setenv("TB_LOCK_FILE", lock, 1);
    setenv("TB_CUDA_LIB", lib, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_NVML_LIB", nvml, 1);
    return root;
}

static void test_list_power_run_agree(void **state)
{
    if (!tb_image_count())
        skip();   /* CUDA=0: no images, so the driver is never asked for the GPU's name */
    const char *root = fake_h100_desktop();
    assert_int_equal(th_runf("list"), 0);
    assert_non_null(strstr(th_out(), "desktop-h100.cfg (GPU 'NVIDIA H100 80GB HBM3' matches"));
    assert_int_equal(th_runf("power --seconds 0.3"), 0);
    assert_non_null(strstr(th_out(), "board h100-sxm"));
    /* run (the fake GPU runs no kernel: only its choice of board file matters here) */
    th_runf("run --sizes 16x16 --kernels copy_row --set power.source=none "
            "--set sweep.stop.min_time_ms=1 -o %s/logs", root);
    assert_non_null(strstr(th_err(), "desktop-h100.cfg': GPU 'NVIDIA H100 80GB HBM3' matches"));
}

/* The rule itself: "" (no GPU used: --device cpu) never asks the driver; NULL does. */
static void test_pick_rule(void **state)
{
    if (!tb_image_count())
        skip();   /* CUDA=0: no images, so the driver is never asked for the GPU's name */
    const char *root = fake_h100_desktop();
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
        TH_TEST(test_list_power_run_agree),
        TH_TEST(test_pick_rule),
    };
    return cmocka_run_group_tests_name("board_choice", tests, NULL, NULL);
}
