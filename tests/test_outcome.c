/* test_outcome.c: one rule for what counts as a result (outcome.h). The rule itself over
 * every status and verification; then a kernel that is wrong on purpose (the test-only
 * executable build/tests/transpose-bench-hooks, tests/wrong_kernel.c) through run, compare,
 * history and tune; and a log whose row was hand-edited to FAIL. A row that failed
 * verification must never be a best point, a baseline, a history value or a tuned block, and
 * every command that meets one exits non-zero. */
#include "helpers.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include <zlib.h>

#include "log/logread.h"
#include "log/outcome.h"

#define FAST "--device cpu -b boards/generic.cfg --set power.source=none " \
             "--set sweep.stop.min_time_ms=2 --set sweep.stop.min_reps=3 --set sweep.warmup=1"

static void test_the_rule(void **state)
{
    int counted = 0;
    for (int s = 0; s < TB_STATUS_N; s++)
        for (int v = 0; v < TB_VERIFIED_N; v++) {
            bool counts = tb_outcome_counts((enum tb_status)s, (enum tb_verified)v);
            bool wrong = tb_outcome_wrong((enum tb_status)s, (enum tb_verified)v);
            assert_false(counts && wrong);
            if (v == TB_VERIFIED_FAIL)
                assert_false(counts);
            counted += counts;
        }
    /* ok, suspect and an old log's empty status count, verified ok or not checked */
    assert_int_equal(counted, 6);
    assert_true(tb_outcome_wrong(TB_STATUS_OK, TB_VERIFIED_FAIL));
    assert_false(tb_outcome_wrong(TB_STATUS_ERROR, TB_VERIFIED_FAIL));
    assert_false(tb_outcome_counts(TB_STATUS_SKIPPED, TB_VERIFIED_NA));
    for (int s = 0; s < TB_STATUS_N; s++) {
        enum tb_status back = TB_STATUS_N;
        assert_true(tb_status_parse(tb_status_name((enum tb_status)s), &back));
        assert_int_equal(back, s);
    }
    enum tb_verified v = TB_VERIFIED_N;
    assert_true(tb_verified_parse("FAIL", &v));
    assert_int_equal(v, TB_VERIFIED_FAIL);
    assert_false(tb_verified_parse("fail", &v));   /* the log's spelling only */
    enum tb_status st;
    assert_false(tb_status_parse("ok ", &st));
}

/* The field of the first data row whose kernel is k. */
static bool row_field(const char *text, const char *k, const char *col, char *buf, size_t n)
{
    const char *header = NULL;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (*p == '#' || *p == '\n')
            continue;
        if (!header) {
            header = p;
            continue;
        }
        char kernel[64];
        if (th_field(header, p, "kernel", kernel, sizeof(kernel)) == 0 && !strcmp(kernel, k))
            return th_field(header, p, col, buf, n) == 0;
    }
    return false;
}

/* The best table of compare's JSON, without its failed_verification part. */
static char *json_best_part(const char *json)
{
    char *copy = th_keep(strdup(json));
    char *fv = strstr(copy, "\"failed_verification\"");
    if (fv)
        *fv = '\0';
    return copy;
}

static void test_wrong_kernel_everywhere(void **state)
{
    const char *dir = th_scratch();
    th_use_hooks_binary();
    /* run: the wrong kernel's row says FAIL, the run exits 1 and says so */
    int rc = th_runf("run " FAST " --sizes 64x64,33x31 --kernels copy_row,naive_row,wrong_row "
                     "-o %s/logs", dir);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(th_err(), "verification failed"));
    assert_non_null(strstr(th_out(), "2 verification failures"));
    char logdir[PATH_MAX];
    snprintf(logdir, sizeof(logdir), "%s/logs", dir);
    char *log = th_keep(th_find_one(logdir, ".csv.gz"));
    assert_non_null(log);
    char *text = th_keep(th_read_gz(log));
    char v[16], st[16], gb[32];
    assert_true(row_field(text, "wrong_row", "verified", v, sizeof(v)));
    assert_string_equal(v, "FAIL");
    assert_true(row_field(text, "wrong_row", "status", st, sizeof(st)));
    assert_string_equal(st, "ok");   /* it measured: the log keeps its time */
    assert_true(row_field(text, "wrong_row", "gbps", gb, sizeof(gb)));
    assert_true(gb[0] != '\0');
    assert_true(row_field(text, "naive_row", "verified", v, sizeof(v)));
    assert_string_equal(v, "ok");

    /* compare: never a best point; listed apart; exit 1. The wrong kernel is the fastest
     * "transpose" here only if counted, so check it is absent from the best table. */
    assert_int_equal(th_runf("compare %s", log), 1);
    const char *best_end = strstr(th_out(), "Failed verification");
    assert_non_null(best_end);
    assert_null(strstr(best_end, "naive_row"));
    char *best_part = th_keep(strndup(th_out(), (size_t)(best_end - th_out())));
    assert_null(strstr(best_part, "wrong_row"));
    assert_non_null(strstr(best_part, "naive_row"));
    assert_non_null(strstr(best_end, "wrong_row"));
    assert_int_equal(th_runf("compare --format json %s", log), 1);
    assert_null(strstr(json_best_part(th_out()), "wrong_row"));
    assert_non_null(strstr(th_out(), "\"failed_verification\""));
    /* as a baseline: the wrong row is no point on either side (CSV carries one table: the
     * failed verification is said on stderr) */
    assert_int_equal(th_runf("compare --format csv %s --baseline %s", log, log), 1);
    assert_null(strstr(th_out(), "wrong_row"));
    assert_non_null(strstr(th_out(), "naive_row"));
    assert_non_null(strstr(th_err(), "failed verification"));

    /* history: no series for it, listed apart, exit 1 */
    assert_int_equal(th_runf("history %s", log), 1);
    best_end = strstr(th_out(), "Failed verification");
    assert_non_null(best_end);
    char *nights = th_keep(strndup(th_out(), (size_t)(best_end - th_out())));
    assert_null(strstr(nights, "wrong_row"));
    assert_non_null(strstr(nights, "naive_row"));
    assert_non_null(strstr(th_out(), "some rows failed verification"));

    /* tune: the wrong kernel is measured but never written as a tuned point */
    char tuned[PATH_MAX];
    snprintf(tuned, sizeof(tuned), "%s/tuned.cfg", dir);
    rc = th_runf("tune " FAST " --sizes 32x32 --kernels naive_row,wrong_row -o %s/tl --out %s",
                 dir, tuned);
    assert_int_equal(rc, 1);   /* a verification failure in the tune run */
    char *cfg = th_keep(th_read_gz(tuned));
    assert_non_null(cfg);
    assert_non_null(strstr(cfg, "\"naive_row\""));
    assert_null(strstr(cfg, "\"wrong_row\""));
}

/* A log whose naive_row rows a hand (or a bit flip) turned to FAIL: compare and history list
 * them apart and exit 1; an unknown outcome text is not counted either. */
static void test_hand_edited_log(void **state)
{
    const char *dir = th_scratch();
    assert_int_equal(th_runf("run " FAST " --sizes 64x64 --kernels copy_row,naive_row -o %s/l",
                             dir), 0);
    char logdir[PATH_MAX];
    snprintf(logdir, sizeof(logdir), "%s/l", dir);
    char *log = th_keep(th_find_one(logdir, ".csv.gz"));
    char *text = th_keep(th_read_gz(log));
    char *row = strstr(text, ",naive_row,");
    assert_non_null(row);
    char *okok = strstr(row, ",ok,ok,");
    assert_non_null(okok);
    size_t pre = (size_t)(okok - text);
    size_t len = strlen(text) + 16;
    char *edited = th_keep(malloc(len));
    snprintf(edited, len, "%.*s,FAIL,ok,%s", (int)pre, text, okok + strlen(",ok,ok,"));
    char *path = th_write(dir, "edited.csv", edited);
    th_keep(path);
    assert_int_equal(th_runf("compare %s", path), 1);
    const char *apart = strstr(th_out(), "Failed verification");
    assert_non_null(apart);
    assert_non_null(strstr(apart, "naive_row"));
    char *best = th_keep(strndup(th_out(), (size_t)(apart - th_out())));
    assert_null(strstr(best, "naive_row"));
    assert_non_null(strstr(best, "copy_row"));
    assert_int_equal(th_runf("history %s", path), 1);
    assert_non_null(strstr(th_out(), "Failed verification"));

    /* the untouched log: exit 0, naive_row a best point (the control) */
    assert_int_equal(th_runf("compare %s", log), 0);
    assert_non_null(strstr(th_out(), "naive_row"));
    assert_null(strstr(th_out(), "Failed verification"));

    /* a status that is no value */
    snprintf(edited, len, "%.*s,ok,maybe,%s", (int)pre, text, okok + strlen(",ok,ok,"));
    char *path2 = th_keep(th_write(dir, "edited2.csv", edited));
    assert_int_equal(th_runf("compare %s", path2), 1);
    assert_non_null(strstr(th_err(), "not a value this tool writes"));
    apart = strstr(th_out(), "Failed verification");
    assert_non_null(apart);
    assert_non_null(strstr(apart, "naive_row"));
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    th_own_lock("outcome");   /* per process, removed at its exit */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_rule),
        TH_TEST(test_wrong_kernel_everywhere),
        TH_TEST(test_hand_edited_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
