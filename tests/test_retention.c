/* test_retention.c: whose a log is. Names that every sanitizing rule of the code (the log
 * name's, the tuned sweep's) once spelled alike get distinct spellings; retention removes
 * only logs whose own metadata names this host, machine-id and board exactly, whatever
 * their file names spell; a stamp from the future never holds a place among the newest;
 * keep_days removes only logs past that age from now and from the newest earlier log. */
#include "helpers.h"

#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fake_clock.h"
#include "stall_hook.h"

#include "log/csvlog.h"
#include "log/retention.h"
#include "lib/util.h"

/* Pairs of different names that the old rule (all but [A-Za-z0-9.+-] to '-') or a file
 * system that folds case made into one file name. */
static const char *const pairs[][2] = {
    { "lab nano", "lab-nano" },                      /* blank */
    { "lab_nano", "lab-nano" },                      /* underscore: the name's separator */
    { "lab/nano", "lab-nano" },                      /* a path */
    { "Lab-Nano", "lab-nano" },                      /* case (vfat, exFAT, APFS fold it) */
    { "LAB-NANO", "Lab-Nano" },
    { "lab\xe2\x80\x90nano", "lab-nano" },           /* U+2010 HYPHEN */
    { "lab\xe2\x80\x90nano", "lab\xe2\x80\x91nano" },/* U+2010 and U+2011: same bytes count */
    { "lab\xe2\x80\xaenano", "lab-nano" },           /* U+202E RIGHT-TO-LEFT OVERRIDE */
    { "caf\xc3\xa9", "cafe\xcc\x81" },               /* NFC and NFD of one word */
    { "lab+nano", "lab-nano" },                      /* '+', once kept */
    { ".lab-nano", "-lab-nano" },                    /* a hidden file's dot */
    { "", "-" },                                     /* empty */
    { "-rf", "--" },                                 /* options to zcat and rm (#40) */
    { "-rf", "xrf" },
    { "lab-nano-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1",
      "lab-nano-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2" },
};

static void test_colliding_names_get_distinct_spellings(void **state)
{
    for (size_t i = 0; i < sizeof(pairs) / sizeof(*pairs); i++) {
        char a[128], b[128];
        tb_name_part(a, sizeof(a), pairs[i][0]);
        tb_name_part(b, sizeof(b), pairs[i][1]);
        if (!strcasecmp(a, b))
            th_fail("'%s' and '%s' share the spelling '%s'", pairs[i][0], pairs[i][1], a);
        for (const char *s[] = { a, b }, **p = s; p < s + 2; p++) {
            assert_null(strchr(*p, '_'));
            assert_null(strchr(*p, '/'));
            assert_true((*p)[0] && (*p)[0] != '.');
            assert_true((*p)[0] != '-');   /* `zcat *.csv.gz` reads no log as an option */
            assert_true(strlen(*p) <= 64);
        }
        /* the log name's rule is this one, and the name parses back into its parts */
        char h[128], bd[128], name[512], ph[128], pb[128];
        tb_strlcpy(h, pairs[i][0], sizeof(h));
        tb_strlcpy(bd, pairs[i][1], sizeof(bd));
        tb_log_name_part(h, sizeof(h));
        tb_log_name_part(bd, sizeof(bd));
        assert_string_equal(h, a);
        assert_string_equal(bd, b);
        snprintf(name, sizeof(name), "%s_%s_20261122T101500Z.csv.gz", h, bd);
        assert_true(tb_log_name_parse(name, ph, sizeof(ph), pb, sizeof(pb), NULL));
        assert_string_equal(ph, h);
        assert_string_equal(pb, bd);
    }
    /* plain names keep their spelling: the logs of every shipped board keep their names */
    char s[128];
    tb_name_part(s, sizeof(s), "jetson-orin-nano");
    assert_string_equal(s, "jetson-orin-nano");
    tb_name_part(s, sizeof(s), "h100-sxm");
    assert_string_equal(s, "h100-sxm");
}

/* Two runs of the same second for boards whose names once shared a spelling: two names,
 * neither a "-2" of the other. */
static void test_same_second_runs_of_colliding_boards(void **state)
{
    char *dir = th_tmpdir();
    struct tb_csvlog *a, *b;
    assert_int_equal(tb_csvlog_open(&a, dir, "host", "lab nano", 1), 0);
    assert_int_equal(tb_csvlog_open(&b, dir, "host", "lab-nano", 1), 0);
    assert_string_not_equal(tb_csvlog_run_id(a), tb_csvlog_run_id(b));
    assert_non_null(strstr(tb_csvlog_run_id(b), "host_lab-nano_"));
    assert_null(strstr(tb_csvlog_run_id(a), "host_lab-nano_"));
    assert_int_equal(tb_csvlog_close(a, "complete"), 0);
    assert_int_equal(tb_csvlog_close(b, "complete"), 0);
    th_rmtree(dir);
    free(dir);
}

/* A log of host, machine-id ("" none) and board, named name in dir. */
static void put_log(const char *dir, const char *name, const char *host, const char *mid,
                    const char *board)
{
    char text[2048], idline[128] = "";
    if (mid[0])
        snprintf(idline, sizeof(idline), "# machine_id: %s\n", mid);
    snprintf(text, sizeof(text),
             "# transpose-bench: 0.1.0\n# log_format: 1\n# run_id: x\n# host: %s\n%s"
             "# board: %s, peak 25.6 GB/s, has a GPU\n"
             "run_id,host,board,kernel,rows,cols,gbps\nx,%s,%s,copy,8,8,1.0\n# end: complete, 1 rows\n",
             host, idline, board, host, board);
    free(th_write(dir, name, text));
}

static bool exists(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

#define MID "0123456789abcdef0123456789abcdef"

/* The attacks of issue 32: board "lab nano" with keep_logs=1 once deleted every log of board
 * "lab-nano"; host "lab_nano" those of host "lab-nano". Logs of the old rule share one
 * spelling, so the names here are all "lab-nano"'s: only the metadata tells them apart. */
static void test_retention_by_identity_not_spelling(void **state)
{
    char *dir = th_tmpdir();
    /* this run: host lab_nano, board "lab nano", named as the old rule named it */
    put_log(dir, "lab-nano_lab-nano_20261124T010000Z.csv.gz", "lab_nano", MID, "lab nano");
    /* the same spelling, other owners: board lab-nano, host lab-nano, another machine, a
     * board whose name holds ", peak ", no machine-id, and a file that is no log */
    put_log(dir, "lab-nano_lab-nano_20261101T010000Z.csv.gz", "lab_nano", MID, "lab-nano");
    put_log(dir, "lab-nano_lab-nano_20261102T010000Z.csv.gz", "lab-nano", MID, "lab nano");
    put_log(dir, "lab-nano_lab-nano_20261103T010000Z.csv.gz", "lab_nano",
            "ffffffffffffffffffffffffffffffff", "lab nano");
    put_log(dir, "lab-nano_lab-nano_20261104T010000Z.csv.gz", "lab_nano", MID,
            "lab nano, peak 1.0 GB/s");
    put_log(dir, "lab-nano_lab-nano_20261105T010000Z.csv.gz", "lab_nano", "", "lab nano");
    put_log(dir, "lab-nano_lab-nano_20261106T010000Z.csv.gz", "LAB_NANO", MID, "lab nano");
    free(th_write(dir, "lab-nano_lab-nano_20261107T010000Z.csv.gz", "not a log\n"));
    /* ours, older, under old and new spellings: these go */
    put_log(dir, "lab-nano_lab-nano_20261001T010000Z.csv.gz", "lab_nano", MID, "lab nano");
    char h[128] = "lab_nano", b[128] = "lab nano", mine[512];
    tb_log_name_part(h, sizeof(h));
    tb_log_name_part(b, sizeof(b));
    snprintf(mine, sizeof(mine), "%s_%s_20261002T010000Z.csv.gz", h, b);
    put_log(dir, mine, "lab_nano", MID, "lab nano");
    char keep[4096];
    snprintf(keep, sizeof(keep), "%s/lab-nano_lab-nano_20261124T010000Z.csv.gz", dir);
    assert_int_equal(tb_retention_apply(dir, "lab_nano", "lab nano", 1, 0, keep), 2);
    assert_false(exists(dir, "lab-nano_lab-nano_20261001T010000Z.csv.gz"));
    assert_false(exists(dir, mine));
    assert_true(exists(dir, "lab-nano_lab-nano_20261124T010000Z.csv.gz"));
    for (int day = 1; day <= 7; day++) {
        char n[128];
        snprintf(n, sizeof(n), "lab-nano_lab-nano_202611%02dT010000Z.csv.gz", day);
        if (!exists(dir, n))
            th_fail("'%s' (another owner's) was removed", n);
    }
    /* a run of board lab-nano and host lab-nano keeps everything of lab nano / lab_nano */
    put_log(dir, "lab-nano_lab-nano_20261124T020000Z.csv.gz", "lab-nano", MID, "lab-nano");
    snprintf(keep, sizeof(keep), "%s/lab-nano_lab-nano_20261124T020000Z.csv.gz", dir);
    assert_int_equal(tb_retention_apply(dir, "lab-nano", "lab-nano", 1, 0, keep), 0);
    /* and a keep_path that is not this host's and board's log removes nothing */
    assert_int_equal(tb_retention_apply(dir, "lab_nano", "lab nano", 1, 0, keep), 0);
    assert_int_equal(th_count_files(dir), 9);
    th_rmtree(dir);
    free(dir);
}

/* A log of ours stamped 2999 (a clock set wrong) would stay "the newest" for ever and push
 * the real nights out: it counts as the oldest, and is never removed for its age. */
static void test_future_stamp_counts_as_oldest(void **state)
{
    char *dir = th_tmpdir();
    put_log(dir, "h_b_20261124T010000Z.csv.gz", "h", MID, "b");
    put_log(dir, "h_b_29990101T000000Z.csv.gz", "h", MID, "b");
    put_log(dir, "h_b_20261123T010000Z.csv.gz", "h", MID, "b");
    put_log(dir, "h_b_20261122T010000Z.csv.gz", "h", MID, "b");
    char keep[4096];
    snprintf(keep, sizeof(keep), "%s/h_b_20261124T010000Z.csv.gz", dir);
    /* keep_days: the 2999 log is not "older than N days" and not removed for age */
    assert_int_equal(tb_retention_apply(dir, "h", "b", 0, 100000, keep), 0);
    assert_int_equal(tb_retention_apply(dir, "h", "b", 3, 0, keep), 1);
    assert_false(exists(dir, "h_b_29990101T000000Z.csv.gz"));
    assert_true(exists(dir, "h_b_20261123T010000Z.csv.gz"));
    assert_true(exists(dir, "h_b_20261122T010000Z.csv.gz"));
    th_rmtree(dir);
    free(dir);
}

/* A log of ours dated `days` days before now (whole days: no test depends on the hour). */
static void put_aged_log(const char *dir, char *name, size_t n, time_t now, int days)
{
    time_t t = now - (time_t)days * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
    snprintf(name, n, "h_b_%s.csv.gz", stamp);
    put_log(dir, name, "h", MID, "b");
}

/* keep_days: a log of ours more than keep_days old goes (said on stderr, with the rule that
 * removed it), a younger one stays, 0 keeps every age; the log just written always stays.
 * The age counts from now and from the newest earlier log (here 1 day old): 9 days is past
 * 7 by both, 6 by neither. */
static void test_keep_days_removes_only_older_logs(void **state)
{
    char *dir = th_tmpdir();
    time_t now = time(NULL);
    char keep[64], d1[64], d6[64], d9[64], d40[64], path[4096];
    put_aged_log(dir, keep, sizeof(keep), now, 0);
    put_aged_log(dir, d1, sizeof(d1), now, 1);
    put_aged_log(dir, d6, sizeof(d6), now, 6);
    put_aged_log(dir, d9, sizeof(d9), now, 9);
    put_aged_log(dir, d40, sizeof(d40), now, 40);
    snprintf(path, sizeof(path), "%s/%s", dir, keep);
    assert_int_equal(tb_retention_apply(dir, "h", "b", 0, 0, path), 0);   /* 0: never */
    assert_int_equal(th_count_files(dir), 5);
    th_stderr_begin();
    int removed = tb_retention_apply(dir, "h", "b", 0, 7, path);
    char *err = th_stderr_end();
    assert_int_equal(removed, 2);
    assert_true(exists(dir, keep) && exists(dir, d1) && exists(dir, d6));
    assert_false(exists(dir, d9));
    assert_false(exists(dir, d40));
    assert_non_null(strstr(err, d9));
    assert_non_null(strstr(err, "(keep_days)"));
    free(err);
    /* keep_logs and keep_days together: each rule removes on its own */
    assert_int_equal(tb_retention_apply(dir, "h", "b", 2, 30, path), 1);
    assert_true(exists(dir, keep) && exists(dir, d1));
    assert_false(exists(dir, d6));
    th_rmtree(dir);
    free(dir);
}

/* A clock far ahead of the logs (or a long pause): every earlier log looks older than
 * keep_days from now, so ages also count from the newest earlier log; only a log that far
 * behind that one goes, and the jump is said. */
static void test_keep_days_after_a_clock_jump(void **state)
{
    char *dir = th_tmpdir();
    time_t now = time(NULL);
    char keep[64], d400[64], d410[64], d450[64], path[4096];
    put_aged_log(dir, keep, sizeof(keep), now, 0);
    put_aged_log(dir, d400, sizeof(d400), now, 400);
    put_aged_log(dir, d410, sizeof(d410), now, 410);
    put_aged_log(dir, d450, sizeof(d450), now, 450);
    snprintf(path, sizeof(path), "%s/%s", dir, keep);
    th_stderr_begin();
    int removed = tb_retention_apply(dir, "h", "b", 0, 30, path);
    char *err = th_stderr_end();
    assert_int_equal(removed, 1);
    assert_true(exists(dir, d400) && exists(dir, d410));
    assert_false(exists(dir, d450));
    assert_non_null(strstr(err, "the newest earlier log is 400 days old"));
    free(err);
    th_rmtree(dir);
    free(dir);
}

/* Dates that cannot be are no log names (timegm once moved month 13 into the next year). */
static void test_impossible_dates_are_no_stamps(void **state)
{
    assert_true(tb_log_name_parse("h_b_20240229T235960Z.csv.gz", NULL, 0, NULL, 0, NULL));
    assert_false(tb_log_name_parse("h_b_20261301T000000Z.csv.gz", NULL, 0, NULL, 0, NULL));
    assert_false(tb_log_name_parse("h_b_20260231T000000Z.csv.gz", NULL, 0, NULL, 0, NULL));
    assert_false(tb_log_name_parse("h_b_20250229T000000Z.csv.gz", NULL, 0, NULL, 0, NULL));
    assert_false(tb_log_name_parse("h_b_20261100T000000Z.csv.gz", NULL, 0, NULL, 0, NULL));
    assert_false(tb_log_name_parse("h_b_20261122T246000Z.csv.gz", NULL, 0, NULL, 0, NULL));
    assert_false(tb_log_name_parse("h_b_20261122T006100Z.csv.gz", NULL, 0, NULL, 0, NULL));
    assert_non_null(tb_time_implausible(32503680000LL, 1795000000LL));   /* 3000 */
    assert_non_null(tb_time_implausible(0, 1795000000LL));               /* 1970 */
    assert_null(tb_time_implausible(1795000000LL + 60, 1795000000LL));   /* a minute's skew */
}

/* Retention's thread waits here on a FIFO that no one writes to, as an open on a stuck FUSE
 * or network mount waits: the tool's weak hook, replaced for this program (stall_hook.h). */
void tb_retention_test_stall(void);
void tb_retention_test_stall(void)
{
    stall_here();
}

/* #58 item 5: a log whose open never returns held the night's end, its lock with it, for
 * ever. Bounded, retention is given up at its limit (the fake clock's, 2 s here: the night's is
 * TB_RETENTION_LIMIT_S; each 50 ms slice costs the clock's grace of real time), or at
 * once when a signal asked the run to stop, with a warning, and nothing else waits; the
 * thread left behind ends when its open does. Not stalled, it does its work as before. */
static void test_retention_bounded_by_time_and_signal(void **state)
{
    char *dir = th_tmpdir();
    put_log(dir, "h_b_20261124T010000Z.csv.gz", "h", MID, "b");
    put_log(dir, "h_b_20261123T010000Z.csv.gz", "h", MID, "b");
    put_log(dir, "h_b_20261122T010000Z.csv.gz", "h", MID, "b");
    char keep[4096];
    snprintf(keep, sizeof(keep), "%s/h_b_20261124T010000Z.csv.gz", dir);
    snprintf(stall_fifo, sizeof(stall_fifo), "%s/stuck", dir);
    assert_int_equal(mkfifo(stall_fifo, 0600), 0);
    volatile sig_atomic_t stop = 0;
    atomic_store(&stall_on, true);
    int64_t t0 = tb_now_ns();
    th_stderr_begin();
    int rc = tb_retention_apply_bounded(dir, "h", "b", 1, 0, keep, 2, &stop);
    char *err = th_stderr_end();
    assert_int_equal(rc, -1);
    th_must_have(err, "not done within 2 s");
    th_must_have(err, "left for the next night");
    free(err);
    assert_true(tb_now_ns() - t0 >= 2000000000LL);   /* the limit, on the fake clock */
    assert_int_equal(th_count_files(dir), 4);   /* nothing removed while it hangs */
    stop = SIGTERM;   /* the handler's flag: the limit is not waited for, nothing started */
    t0 = tb_now_ns();
    th_stderr_begin();
    rc = tb_retention_apply_bounded(dir, "h", "b", 1, 0, keep, 3600, &stop);
    err = th_stderr_end();
    assert_int_equal(rc, -1);
    th_must_have(err, "a signal asked the run to end");
    free(err);
    assert_true(tb_now_ns() - t0 < 1000000000LL);
    /* SIGTERM while it hangs: not waited for, and said as a signal's stop, not as a limit
     * passed (it said "not done within 3600 s (stopped by a signal)" at once) */
    stop = 0;
    stop_on_entry = &stop;
    t0 = tb_now_ns();
    th_stderr_begin();
    rc = tb_retention_apply_bounded(dir, "h", "b", 1, 0, keep, 3600, &stop);
    err = th_stderr_end();
    stop_on_entry = NULL;
    assert_int_equal(rc, -1);
    th_must_have(err, "not done before a signal asked the run to end: left for the next night");
    assert_null(strstr(err, "within"));
    free(err);
    assert_true(tb_now_ns() - t0 < 1000000000LL);
    atomic_store(&stall_on, false);
    unstall();   /* the first thread's open returns: it does its work and ends */
    stop = 0;
    th_stderr_begin();
    rc = tb_retention_apply_bounded(dir, "h", "b", 1, 0, keep, 30, &stop);
    free(th_stderr_end());
    assert_true(rc >= 0);
    assert_true(exists(dir, "h_b_20261124T010000Z.csv.gz"));
    assert_false(exists(dir, "h_b_20261123T010000Z.csv.gz"));
    assert_false(exists(dir, "h_b_20261122T010000Z.csv.gz"));
    th_rmtree(dir);
    free(dir);
}

int main(void)
{
    tb_clock_fake(0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colliding_names_get_distinct_spellings),
        cmocka_unit_test(test_same_second_runs_of_colliding_boards),
        cmocka_unit_test(test_retention_by_identity_not_spelling),
        cmocka_unit_test(test_future_stamp_counts_as_oldest),
        cmocka_unit_test(test_keep_days_removes_only_older_logs),
        cmocka_unit_test(test_keep_days_after_a_clock_jump),
        cmocka_unit_test(test_impossible_dates_are_no_stamps),
        cmocka_unit_test(test_retention_bounded_by_time_and_signal),
    };
    return cmocka_run_group_tests_name("retention", tests, NULL, NULL);
}
