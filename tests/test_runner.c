/* test_runner.c: the runner through the real binary on the fake CUDA driver: what it does
 * with a timer that cannot be trusted (#40); and what history makes of the energy ratio
 * the runner's rows carry (#39). */
#include "helpers.h"

#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "measure/backend.h"

static char fake_cuda[2 * PATH_MAX + 64];
static bool images;

static int setup(void **state)
{
    const char *b = getenv("TB_BUILD");
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(fake_cuda, sizeof(fake_cuda), "%s/%s/tests/libfake-cuda.so", cwd, b ? b : "build");
    if (b && b[0] == '/')
        snprintf(fake_cuda, sizeof(fake_cuda), "%s/tests/libfake-cuda.so", b);
    images = strncmp(tb_backend_cuda.images((char[1024]){ 0 }, 1024), "none", 4) != 0;
    th_own_lock("runner");   /* per process, removed at its exit */
    return 0;
}

/* A bimodal GPU timer (1e-6 and 1e6 ms in turn): each time is plausible alone, their sum
 * is hours where the wall clock saw a fraction of a second. No row is ok; the note says the
 * timer is not to be trusted (it was 'ok' with a 500 s median from 0.09 s). */
static void test_bimodal_timer_is_never_ok(void **state)
{
    if (!images)
        skip();
    const char *dir = th_scratch();
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_GARBAGE", "bimodal", 1);
    int rc = th_runf("run --quiet --device cuda -b boards/generic.cfg --sizes 16x16 "
                     "--kernels memcpy --set power.source=none --set sweep.stop.min_time_ms=1 "
                     "--set sweep.stop.min_reps=4 --set sweep.warmup=0 -o %s", dir);
    unsetenv("TB_FAKE_CUDA_GARBAGE");
    assert_int_equal(rc, 1);
    char *text = th_keep(th_read_gz(th_keep(th_find_one(dir, ".csv.gz"))));
    assert_null(strstr(text, ",ok,"));
    if (!strstr(text, "the timer is not to be trusted"))
        th_fail("no word of the timer in:\n%.3000s", text);
}

/* A night of blocked with its energy ratio to the copy, its J/GB and how many of its
 * power_cycles blocks were power-capped, as history reads it. */
static void energy_night(const char *dir, int day, double ratio, double ci, double temp,
                         double j_per_gb, double j_ci, int capped, int cycles)
{
    char name[128], text[1024], j[64] = ",";   /* j_per_gb < 0: a log without it */
    if (j_per_gb >= 0)
        snprintf(j, sizeof(j), "%.4f,%.4f", j_per_gb, j_ci);
    snprintf(text, sizeof(text), "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,"
             "block_x,block_y,gbps,rel_sem,status,energy_ratio,energy_ratio_ci95,gpu_temp_c,"
             "j_per_gb,j_per_gb_ci95,power_capped_blocks,power_cycles\n"
             "orin1_jetson-orin-nano_202611%02dT023000Z,jetson-orin-nano,Orin,blocked,float,4096,"
             "4096,32,8,100.0,0.002,ok,%.4f,%.4f,%.1f,%s,%d,%d\n# end: complete, 1 rows\n",
             day, ratio, ci, temp, j, capped, cycles);
    snprintf(name, sizeof(name), "orin1_jetson-orin-nano_202611%02dT023000Z.csv.gz", day);
    free(th_write(dir, name, text));
}

/* history shows each night's ratio with its interval, and calls a change only what lies
 * outside both nights' intervals: 0.900 -> 0.903 (+-0.005, +-0.004) is none, 0.903 -> 0.950
 * is one, said with the GPU 3.5 C warmer than the night before (a temperature difference
 * without a change is not said: night 2 is 2 C cooler). */
static void test_history_energy_ratio(void **state)
{
    const char *dir = th_scratch();
    energy_night(dir, 1, 0.900, 0.005, 50.0, 0.1500, 0.0010, 0, 4);
    energy_night(dir, 2, 0.903, 0.004, 48.0, 0.1505, 0.0010, 0, 4);
    energy_night(dir, 3, 0.950, 0.004, 51.5, 0.1580, 0.0010, 0, 4);
    th_runf("history %s/*.csv.gz", dir);
    const char *out = th_out();
    const char *n2 = strstr(out, "J/B of copy 0.903 +- 0.004");
    const char *n3 = strstr(out, "J/B of copy 0.950 +- 0.004, more J/B than the night before "
                                 "with the GPU 3.5 C warmer");
    if (!n2 || !n3 || strstr(out, "0.903 +- 0.004, "))
        th_fail("history:\n%s", out);
}

/* A power-capped night is judged by J/GB (its ratio follows the card's temperature, its
 * J/GB not). Night 2: tile2x2 at the limit on a warmer H200, the ratio 1.125 -> 1.110
 * (outside both intervals), J/GB 0.1751 -> 0.1755 (inside): no change, its J/GB said beside
 * (2 of 4 blocks capped: half counts). Night 3: J/GB 0.1800 +- 0.0005, the ratio inside: a
 * change, by J/GB. Night 4: capped, without J/GB in its log: by the ratio, 1.111 -> 1.150. */
static void test_history_capped_by_j_per_gb(void **state)
{
    const char *dir = th_scratch();
    energy_night(dir, 1, 1.125, 0.006, 50.0, 0.1751, 0.0012, 4, 4);
    energy_night(dir, 2, 1.110, 0.004, 54.0, 0.1755, 0.0012, 2, 4);
    energy_night(dir, 3, 1.111, 0.004, 54.0, 0.1800, 0.0005, 4, 4);
    energy_night(dir, 4, 1.150, 0.004, 54.0, -1, 0, 4, 4);
    th_runf("history %s/*.csv.gz", dir);
    const char *out = th_out();
    const char *n2 = strstr(out, "J/B of copy 1.110 +- 0.004 (power-capped: J/GB 0.1755 +- "
                                 "0.0012)]");
    const char *n3 = strstr(out, "J/B of copy 1.111 +- 0.004 (power-capped: J/GB 0.1800 +- "
                                 "0.0005), more J/GB than the night before (power-capped: "
                                 "judged by J/GB)");
    const char *n4 = strstr(out, "J/B of copy 1.150 +- 0.004 (power-capped), more J/B than the "
                                 "night before");
    if (!n2 || !n3 || !n4 || strstr(out, "J/GB nan"))
        th_fail("history:\n%s", out);
}

/* Not capped: the ratio alone. A kernel 2.2% dearer on a card 5 C cooler (its J/GB held by
 * the cooler card) is a change, and says the GPU was cooler. */
static void test_history_cooler_night_still_a_change(void **state)
{
    const char *dir = th_scratch();
    energy_night(dir, 1, 0.900, 0.004, 55.0, 0.1500, 0.0010, 0, 4);
    energy_night(dir, 2, 0.920, 0.004, 50.0, 0.1500, 0.0010, 0, 4);
    th_runf("history %s/*.csv.gz", dir);
    if (!strstr(th_out(), "J/B of copy 0.920 +- 0.004, more J/B than the night before with the "
                          "GPU 5.0 C cooler"))
        th_fail("history:\n%s", th_out());
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_bimodal_timer_is_never_ok),
        TH_TEST(test_history_energy_ratio),
        TH_TEST(test_history_capped_by_j_per_gb),
        TH_TEST(test_history_cooler_night_still_a_change),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
