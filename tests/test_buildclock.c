/* test_buildclock.c: a reset clock (#58 item 4). A night whose clock is more than a day
 * before the tool's own build date says so (stderr, and the log's `# clock:` line with the
 * day the night cannot be older than); history leaves such a night out, counts it, and
 * exits 1 when it ran after the latest night kept, where it said "0 series regressed" and
 * exited 0 while the newest nights, 30% slower, were left out. */
#include "helpers.h"

#include "lib/buildclock.h"
#include "log/logread.h"

#define BUILD 1796601600LL   /* 2026-12-07T00:00:00Z */

static void test_clock_before_the_build_is_said(void **state)
{
    char buf[512], night[12];
    th_stderr_begin();
    assert_false(tb_build_clock_note(BUILD, BUILD, buf, sizeof(buf)));
    assert_false(tb_build_clock_note(BUILD - 3600, BUILD, buf, sizeof(buf)));   /* a day's margin */
    assert_false(tb_build_clock_note(1483228800LL, 0, buf, sizeof(buf)));        /* build unknown */
    free(th_stderr_end());
    th_stderr_begin();
    assert_true(tb_build_clock_note(1483228800LL, BUILD, buf, sizeof(buf)));     /* 2017-01-01 */
    char *err = th_stderr_end();
    th_must_have(err, "the host's clock says 2017-01-01T00:00:00Z, more than a day before this "
                      "tool was built (2026-12-07)");
    free(err);
    th_must_have(buf, "before_build 2026-12-06: the clock said 2017-01-01T00:00:00Z");
    assert_true(tb_build_clock_floor(buf, night, sizeof(night)));
    assert_string_equal(night, "2026-12-06");
    assert_false(tb_build_clock_floor("the clock is fine", night, sizeof(night)));
    assert_false(tb_build_clock_floor("before_build 2026-1-6: x", night, sizeof(night)));
}

/* A night's log of board b on host h: run_id stamp, GB/s, and a `# clock:` line or none. */
static void night(const char *dir, const char *stamp, double gbps, const char *clock)
{
    char name[128], text[2048];
    snprintf(text, sizeof(text), "# run_id: h_b_%s\n# host: h\n%s%s%s# board: b, peak 100.0 GB/s\n"
             "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status\n"
             "h_b_%s,b,d,k,float,4096,4096,32,8,%.2f,0.002,ok\n# end: complete, 1 rows\n",
             stamp, clock ? "# clock: " : "", clock ? clock : "", clock ? "\n" : "", stamp, gbps);
    snprintf(name, sizeof(name), "h_b_%s.csv.gz", stamp);
    free(th_write(dir, name, text));
}

static void test_history_says_the_newest_nights_were_left_out(void **state)
{
    const char *d = th_scratch();
    char days[8][24];
    for (int i = 0; i < 8; i++) {   /* eight good nights, 20 GB/s */
        snprintf(days[i], sizeof(days[i]), "202611%02dT023000Z", i + 1);
        night(d, days[i], 20.0, NULL);
    }
    /* the board's RTC lost: two nights stamped 2017 and one stamped January (plausible, but
     * before the build), each 30% slower; their # clock: line says they ran after Nov 20 */
    const char *c = "before_build 2026-11-20: the clock said ... (a reset clock)";
    night(d, "20170101T000012Z", 14.0, c);
    night(d, "20170101T000015Z", 14.0, c);
    night(d, "20260105T023000Z", 14.0, c);
    int rc = th_runf("history %s/h_b_*.csv.gz", d);
    assert_int_equal(rc, 1);
    th_must_have(th_err(), "3 nights ran with a reset clock (the log's # clock: line): when is "
                           "unknown, so they may be newer than 2026-11-08, the latest night kept");
    th_must_have(th_out(), "3 logs stamped with a time that cannot be");
    assert_null(strstr(th_out(), "2026-01-05"));   /* a reset clock's stamp is no night */
    /* the usual case: a board that ran for months past the build date, then lost its RTC;
     * its nights' floor (the build date) lies before the latest good night, and the reset
     * nights may still be the newest: exit 1 (the adversarial round of #58 found exit 0) */
    const char *d3 = th_scratch();
    for (int i = 0; i < 8; i++)
        night(d3, days[i], 20.0, NULL);
    night(d3, "20170101T000012Z", 14.0, "before_build 2026-10-01: the clock said ...");
    assert_int_equal(th_runf("history %s/h_b_*.csv.gz", d3), 1);
    th_must_have(th_err(), "1 night ran with a reset clock (the log's # clock: line): when is "
                           "unknown, so it may be newer than 2026-11-08");
    /* without the line (a log of an older version, stamped 2017): left out, said, exit 0 as
     * before, since nothing says when it ran */
    const char *d2 = th_scratch();
    for (int i = 0; i < 8; i++)
        night(d2, days[i], 20.0, NULL);
    night(d2, "20170101T000012Z", 14.0, NULL);
    assert_int_equal(th_runf("history %s/h_b_*.csv.gz", d2), 0);
    th_must_have(th_out(), "1 log stamped with a time that cannot be");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_before_the_build_is_said),
        TH_TEST(test_history_says_the_newest_nights_were_left_out),
    };
    return cmocka_run_group_tests_name("buildclock", tests, NULL, NULL);
}
