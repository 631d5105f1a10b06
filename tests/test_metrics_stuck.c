/* test_metrics_stuck.c: `run --metrics` after the night, when an earlier log of the board
 * never answers (#58 item 5's theme, the adversarial review's M1): the regression state is
 * read on a thread of its own within a deadline, and not waited for once a signal asks to
 * stop; the file is written all the same, without the state, saying why. The stuck open is
 * a test hook of the tool's (tb_metrics_test_stall) held in a FIFO's blocking open. */
#include "helpers.h"
#include "stall_hook.h"

#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_clock.h"

#include "cmd/run_summary.h"
#include "config/config.h"
#include "lib/util.h"

void tb_metrics_test_stall(void);
void tb_metrics_test_stall(void)
{
    stall_here();
}

struct night {
    struct tb_config *cfg;
    struct tb_runner_result res;
    char log[PATH_MAX], prom[PATH_MAX];
};

/* One run's metrics with stop; its stderr into *err, the file into *text, the virtual
 * seconds it took into *took. */
static void metrics(struct night *n, volatile sig_atomic_t *stop, char **err, char **text,
                    double *took)
{
    unlink(n->prom);
    int64_t t0 = tb_now_ns();
    th_stderr_begin();
    assert_int_equal(tb_run_metrics(n->cfg, "h", "cpu", "", "complete, 0 rows", true, &n->res,
                                    n->log, stop), 0);
    *err = th_keep(th_stderr_end());
    *took = (double)(tb_now_ns() - t0) / 1e9;
    *text = th_keep(th_read_gz(n->prom));
    assert_non_null(*text);
    th_must_have(*text, "transpose_bench_night_ok{");   /* the night's figures, written */
    th_must_have(*text, "# EOF\n");
}

static void test_stuck_state_read_is_left_behind(void **state)
{
    const char *d = th_scratch();
    struct night n = { .cfg = th_keep(calloc(1, sizeof(struct tb_config))) };
    tb_strlcpy(n.cfg->board.name, "generic", sizeof(n.cfg->board.name));
    snprintf(n.prom, sizeof(n.prom), "%s/n.prom", d);
    tb_strlcpy(n.cfg->sweep.metrics_file, n.prom, sizeof(n.cfg->sweep.metrics_file));
    char logs[PATH_MAX];   /* a real night's log, the one --metrics follows */
    snprintf(logs, sizeof(logs), "%s/logs", d);
    assert_int_equal(th_runf("run --device cpu -q -o %s --kernels copy_row --sizes 64x64 "
                             "--set sweep.stop.min_time_ms=2", logs), 0);
    tb_strlcpy(n.log, th_keep(th_find_one(logs, ".csv.gz")), sizeof(n.log));
    snprintf(stall_fifo, sizeof(stall_fifo), "%s/stuck", d);
    assert_int_equal(mkfifo(stall_fifo, 0600), 0);
    n.res.t_start_ns = tb_now_ns();
    volatile sig_atomic_t stop = 0;
    char *err, *text;
    double took;
    metrics(&n, &stop, &err, &text, &took);   /* not stuck: the state read, nothing missing */
    if (strstr(text, "transpose_bench_regression_state_missing"))
        th_fail("%s\n%s", err, text);
    assert_int_equal(atomic_load(&entered), 1);
    atomic_store(&stall_on, true);   /* stuck: given up at the limit (TB_DRIVER_TIMEOUT_S) */
    metrics(&n, &stop, &err, &text, &took);
    if (took < 2 || took > 2.5)
        th_fail("took %g s of the fake clock, the 2 s limit expected", took);
    th_must_have(err, "no regression state: the earlier logs in the folder of '");
    th_must_have(err, "were not read within 2 s (a file whose open or read does not return?)");
    th_must_have(text, "# HELP transpose_bench_regression_state_missing ");
    th_must_have(text, "transpose_bench_regression_state_missing{board=\"generic\",host=\"h\",device=\"cpu\","
                       "reason=\"the earlier logs in the folder of '");
    th_must_have(text, "not read within 2 s (a file whose open or read does not return?)\"} 1\n");
    assert_null(strstr(text, "transpose_bench_regression{"));
    stop_on_entry = &stop;   /* SIGTERM while it hangs: not waited for */
    metrics(&n, &stop, &err, &text, &took);
    stop_on_entry = NULL;
    if (took > 0.1)
        th_fail("took %g s of the fake clock after the signal, at once expected", took);
    th_must_have(err, "not read before a signal asked the run to end");
    assert_null(strstr(err, "within"));   /* once "within 2 s (stopped by ...)" at once */
    th_must_have(text, "not read before a signal asked the run to end\"} 1\n");
    int before = atomic_load(&entered);   /* a signal before: nothing started */
    metrics(&n, &stop, &err, &text, &took);
    assert_int_equal(atomic_load(&entered), before);
    assert_true(took < 0.001);
    th_must_have(text, "before a signal asked the run to end");
    unstall();   /* the stuck opens return: the threads left behind end on their own */
    int64_t give_up = tb_real_now_ns() + 10000000000LL;
    while (atomic_load(&left) < before && tb_real_now_ns() < give_up)
        sched_yield();
    assert_int_equal(atomic_load(&left), before);
}

int main(void)
{
    tb_clock_fake(0);
    setenv("TB_DRIVER_TIMEOUT_S", "2", 1);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_stuck_state_read_is_left_behind),
    };
    return cmocka_run_group_tests_name("metrics_stuck", tests, NULL, NULL);
}
