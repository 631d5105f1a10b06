/* test_runner.c: the runner through the real binary on the fake CUDA driver: what it does
 * with a timer that cannot be trusted (#40). */
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
    char lock[64];
    snprintf(lock, sizeof(lock), "/tmp/tb-test-runner-lock-%ld", (long)getpid());
    setenv("TB_LOCK_FILE", lock, 1);
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

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_bimodal_timer_is_never_ok),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
