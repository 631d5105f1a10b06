/* test_messages.c: messages a user read as nonsense (#58 items 12 and 14): a row the CSV
 * splitter cannot take was "-1 fields where the header has 81"; it says how many fields it
 * has, or that a quote is not closed. A night on a full disk said its rows "stay in" a
 * temporary that held none; it says that no row could be written. (The lock's "uid -1":
 * test_lock_place.) */
#include "helpers.h"

#include <sys/wait.h>

#include "log/logread.h"

static void test_row_field_count_never_minus_one(void **state)
{
    char *dir = th_tmpdir();
    size_t cap = 8192, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "# log_format: 1\nrun_id,board,device,kernel,elem,rows,"
                            "cols,block_x,block_y,gbps\n"
                            "h_b_20261101T023000Z,b,d,k,float,64,64,8,8,10\n"
                            "h_b_20261101T023000Z,b,d,k,float,64,64,8,8,10");
    for (int i = 0; i < 290; i++)   /* 300 fields: more than the splitter takes */
        len += (size_t)snprintf(text + len, cap - len, ",%d", i);
    snprintf(text + len, cap - len, "\nh_b_20261101T023000Z,\"b,d,k,float,64,64,8,8,10\n"
             "# end: complete, 3 rows\n");
    char *path = th_write(dir, "odd.csv", text);
    struct tb_logset s;
    tb_logset_init(&s, "compare");
    th_stderr_begin();
    assert_int_equal(tb_logread(&s, path), 1);
    char *said = th_stderr_end();
    th_must_have(said, "odd.csv:4: 300 fields where the header has 10; row skipped");
    th_must_have(said, "odd.csv:5: no CSV line (a quote not closed); row skipped");
    assert_null(strstr(said, "-1 fields"));
    free(said);
    tb_logset_free(&s);
    free(path);
    free(text);
    th_rmtree(dir);
    free(dir);
}

/* The night under a file size limit (a full disk's stand-in without root: SIGXFSZ ignored,
 * write(2) fails with EFBIG) of blocks 1 KiB blocks; its stderr. */
static char *night_on_full_disk(const char *dir, int blocks)
{
    const char *bin = getenv("TB_BIN");
    char cmd[4096], errp[1024];
    snprintf(errp, sizeof(errp), "%s/err%d", dir, blocks);
    /* stderr through a pipe to cat, which the limit does not bind; the tool's status kept */
    snprintf(cmd, sizeof(cmd), "{ ( trap '' XFSZ; ulimit -f %d; exec %s run --device cpu "
             "--set power.source=none --set sweep.stop.min_time_ms=5 --set "
             "sweep.stop.min_reps=3 --set sweep.warmup=1 --sizes 16x16,8x8 -b "
             "boards/generic.cfg -o %s/logs%d ) 2>&1 >/dev/null; echo \"exit $?\"; } | cat >%s",
             blocks, bin ? bin : "./transpose-bench", dir, blocks, errp);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    return th_read_gz(errp);
}

static void test_full_disk_says_no_row_was_written(void **state)
{
    char *dir = th_tmpdir();
    for (int blocks = 0; blocks <= 2; blocks += 2) {   /* nothing fits; the first lines fit */
        char *err = night_on_full_disk(dir, blocks);
        th_must_have(err, "no row could be written");
        th_must_have(err, "exit 1");
        if (strstr(err, "stay in"))
            th_fail("rows said to stay in a file that holds none: %s", err);
        free(err);
    }
    th_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_field_count_never_minus_one),
        cmocka_unit_test(test_full_disk_says_no_row_was_written),
    };
    return cmocka_run_group_tests_name("messages", tests, NULL, NULL);
}
