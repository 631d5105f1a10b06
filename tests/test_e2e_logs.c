/* test_e2e_logs.c: the real binary's logs survive what a night does to them: signals during
 * a sweep close the log, SIGKILL leaves the rows written readable, a full disk keeps the
 * earlier logs, a log folder removed mid-run; retention removes this host's old logs of
 * this board and nothing else. The children's deadlines here are real (a child process is
 * waited for), the only real waits of the end-to-end programs. Fixture: TH_TEST. */
#include "e2e.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "measure/backend.h"
#include "log/csvlog.h"
#include "lib/util.h"

#define SLOW "--device cpu -b boards/generic.cfg --set power.source=none --sizes 256x256 " \
             "--blocks 8x8,16x16,32x32,64x64,4x4,2x2 --set sweep.stop.min_time_ms=400 " \
             "--set sweep.stop.rel_spread=0 --set sweep.stop.max_time_ms=500"

/* The slow run started into dir, once its .part log holds two rows: its pid, and the
 * .part's path in *part. */
static pid_t slow_run_two_rows(const char *dir, char **part)
{
    char args[1024];
    snprintf(args, sizeof(args), "run " SLOW " -o %s", dir);
    pid_t pid = th_spawn_tool(args);
    *part = th_wait_part(dir, 2, 20);
    assert_non_null(*part);
    return pid;
}

static void test_signals_close_the_log(void **state)
{
    const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
    const char *names[] = { "Terminated", "Interrupt", "Hangup" };
    for (int s = 0; s < 3; s++) {
        const char *dir = th_scratch();
        char *part;
        pid_t pid = slow_run_two_rows(dir, &part);
        free(part);
        kill(pid, sigs[s]);
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 1);
        assert_null(th_find_one(dir, ".part"));
        char *log = th_only_log(dir);
        char *text = th_read_gz(log);
        char want[64];
        snprintf(want, sizeof(want), "# end: interrupted by %s,", names[s]);
        assert_non_null(strstr(text, want));
        const char *header;
        int rows = th_data_rows(text, &header);
        assert_true(rows >= 2 && rows < 8);
        char v[64];
        for (int i = 0; i < rows; i++) {       /* every row written is a whole, good row */
            assert_int_equal(th_field(header, th_row_at(header, i), "status", v, sizeof(v)), 0);
            assert_string_equal(v, "ok");
        }
        free(text);
        free(log);
    }
}

static void test_sigkill_leaves_readable_rows(void **state)
{
    const char *dir = th_scratch();
    char *part;
    pid_t pid = slow_run_two_rows(dir, &part);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    char *text = th_read_gz(part);          /* as zcat would: every synced row is there */
    const char *header;
    assert_true(th_data_rows(text, &header) >= 2);
    assert_null(strstr(text, "# end:"));
    assert_null(th_find_one(dir, ".csv.gz")); /* no file with the final name */
    free(text);
    free(part);
}

static void test_full_disk_keeps_earlier_logs(void **state)
{
    const char *dir = th_scratch();
    char args[3 * PATH_MAX];
    /* an earlier night's log, and a file size limit that the new log will hit */
    char *old = th_write(dir, "vm_generic_20260101T000000Z.csv.gz", "earlier log\n");
    const char *bin = getenv("TB_BIN");
    /* its stderr in a folder of this test's own (mkdtemp), not at a name under /tmp that
     * another user could plant as a link for the shell's `2>` to follow */
    char errpath[PATH_MAX];
    snprintf(errpath, sizeof(errpath), "%s/stderr", th_scratch());
    snprintf(args, sizeof(args), "sh -c 'ulimit -f 2; exec %s run " FAST " --sizes 16x16,8x8 "
             "--blocks 4x4,2x2,1x1,8x8,16x16 -o %s' >/dev/null 2>%s", bin ? bin :
             "./transpose-bench", dir, errpath);
    int st = system(args);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    char *e = th_read_gz(errpath);
    assert_non_null(strstr(e, "cannot write log"));
    assert_non_null(strstr(e, "File too large"));
    free(e);
    char *t = th_read_gz(old);
    assert_string_equal(t, "earlier log\n");
    free(t);
    free(old);
    /* a log directory that cannot be made (a file is in the way) */
    char *blocker = th_write(dir, "notadir", "x");
    snprintf(args, sizeof(args), "run " FAST " --sizes 16x16 -o %s/sub", blocker);
    assert_int_equal(th_runf("%s", args), 1);
    assert_non_null(strstr(th_err(), "cannot create log directory"));
    free(blocker);
}

static void test_log_dir_removed_mid_run(void **state)
{
    const char *dir = th_scratch();
    char args[3 * PATH_MAX], logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    snprintf(args, sizeof(args), "run " SLOW " -o %s 2>%s/err", logs, dir);
    pid_t pid = th_spawn_tool(args);
    char *part = th_wait_part(logs, 2, 20);
    assert_non_null(part);
    free(part);
    th_rmtree(logs);                            /* someone cleans up during the run */
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char errp[PATH_MAX];
    snprintf(errp, sizeof(errp), "%s/err", dir);
    char *err = th_read_gz(errp);
    assert_non_null(strstr(err, "vanished during the run: recreated it"));
    free(err);
    char *log = th_only_log(logs);                 /* every row, in a whole log */
    char *text = th_read_gz(log);
    const char *header;
    assert_int_equal(th_data_rows(text, &header), 8);
    assert_non_null(strstr(text, "# end: complete, 8 rows"));
    free(text);
    free(log);
}

/* Retention removes this host's old logs of this board, and nothing else: not other
 * hosts' logs (pulled back from boards into one folder), not other boards', not files
 * that only look like logs, not files whose names are ours but whose metadata says another
 * host or board (whose a log is comes from inside it). */
static void test_retention_only_own_logs(void **state)
{
    const char *dir = th_scratch();
    char args[1024], host[128] = "host";
    gethostname(host, sizeof(host) - 1);
    char raw[128];
    tb_strlcpy(raw, host, sizeof(raw));
    tb_log_name_part(host, sizeof(host));
    /* a real log of this host and board, as the template of the old ones */
    snprintf(args, sizeof(args), "run " FAST " --sizes 8x8 -o %s/first", dir);
    assert_int_equal(th_runf("%s", args), 0);
    char first[PATH_MAX];
    snprintf(first, sizeof(first), "%s/first", dir);
    char *log = th_find_one(first, ".csv.gz");
    assert_non_null(log);
    char *text = th_read_gz(log);
    assert_non_null(text);
    char hostline[300], *other_host = NULL, *other_board = NULL;
    snprintf(hostline, sizeof(hostline), "# host: %s\n", raw);
    const char *hl = strstr(text, hostline), *bl = strstr(text, "# board: generic,");
    assert_non_null(hl);
    assert_non_null(bl);
    assert_int_not_equal(asprintf(&other_host, "%.*s# host: jetson1%s\n%s", (int)(hl - text), text,
                                  raw, hl + strlen(hostline)), -1);
    assert_int_not_equal(asprintf(&other_board, "%.*s# board: jetson-nano,%s", (int)(bl - text),
                                  text, bl + strlen("# board: generic,")), -1);
    char names[10][300];
    snprintf(names[0], 300, "%s_generic_20200101T000000Z.csv.gz", host);
    snprintf(names[1], 300, "%s_generic_20200102T000000Z.csv.gz", host);
    snprintf(names[2], 300, "%s_generic_20200103T000000Z-2.csv.gz", host);
    snprintf(names[3], 300, "notes.txt");
    snprintf(names[4], 300, "results.csv.gz");
    snprintf(names[5], 300, "%s_generic_2020.csv.gz", host);
    snprintf(names[6], 300, "jetson1%s_generic_20200101T000000Z.csv.gz", host);  /* another host */
    snprintf(names[7], 300, "%s_jetson-nano_20200101T000000Z.csv.gz", host);     /* another board */
    snprintf(names[8], 300, "%s_generic_20200101T010000Z.csv.gz", host);   /* ours by name only */
    snprintf(names[9], 300, "%s_generic_20200101T020000Z.csv.gz", host);
    for (int i = 0; i < 10; i++)
        free(th_write(dir, names[i], i <= 2 || i == 5 ? text : i == 6 || i == 8 ? other_host
                                     : i == 7 || i == 9 ? other_board : "x\n"));
    snprintf(args, sizeof(args), "run " FAST " --sizes 8x8 --set output.keep_logs=2 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 0);
    char p[PATH_MAX];
    /* the new log and the newest old one stay; others of ours go; nothing else is touched */
    snprintf(p, sizeof(p), "%s/%s", dir, names[2]);
    assert_int_equal(access(p, F_OK), 0);
    snprintf(p, sizeof(p), "%s/%s", dir, names[1]);
    assert_int_equal(access(p, F_OK), -1);
    snprintf(p, sizeof(p), "%s/%s", dir, names[0]);
    assert_int_equal(access(p, F_OK), -1);
    for (int i = 3; i < 10; i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
        assert_int_equal(access(p, F_OK), 0);
    }
    assert_int_equal(th_count_files(dir), 10);   /* 8 left, the new log, the folder first */
    free(other_host);
    free(other_board);
    free(text);
    free(log);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_signals_close_the_log),
        TH_TEST(test_sigkill_leaves_readable_rows),
        TH_TEST(test_full_disk_keeps_earlier_logs),
        TH_TEST(test_log_dir_removed_mid_run),
        TH_TEST(test_retention_only_own_logs),
    };
    return cmocka_run_group_tests_name("e2e_logs", tests, th_lock_setup, th_lock_teardown);
}
