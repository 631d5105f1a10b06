/* test_night_pages.c: what compare, history and their plots make of a fleet's nights, on the
 * real binary: a log is data, never code (hostile names through --plot), compare's output to
 * a full disk, history's sizes in number order, a lasting change flagged and a one-night blip
 * not, caps kept apart, a night stamped in the future hiding nothing, hostile text cleaned
 * before a terminal. Split from test_nightly.c, in the fixture of helpers.h (TH_TEST). */
#include "helpers.h"

#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TINY "--sizes 16x16 --kernels copy_row --set power.source=none " \
             "--set sweep.stop.min_time_ms=1 --set sweep.stop.min_reps=2 --set sweep.warmup=0"

static int setup(void **state)
{
    th_own_lock("night-pages");
    return 0;
}

/* A log is data, never code: board names with quotes, backquotes, macros and system() calls
 * go through compare --plot without running anything, and the plot is drawn. */
static void test_plot_of_hostile_names(void **state)
{
    const char *dir = th_scratch();
    char args[6 * PATH_MAX], board[PATH_MAX], pwned[PATH_MAX];
    snprintf(pwned, sizeof(pwned), "%s/PWNED", dir);
    char text[3 * PATH_MAX];
    snprintf(text, sizeof(text),
             "board = { name = \"bob's nano'; system('touch %s'); `touch %s` @x \\\"q\\\"\"; "
             "peak_gbps = 0.0; };\npower = { source = \"none\"; };\n", pwned, pwned);
    free(th_write(dir, "hostile.cfg", text));
    snprintf(board, sizeof(board), "%s/hostile.cfg", dir);
    snprintf(args, sizeof(args), "run --quiet --device cpu -b %s --sizes 64x64 --kernels copy_row,"
             "blocked --blocks 8x8,16x16 --set sweep.stop.min_time_ms=1 -o %s/logs", board, dir);
    assert_int_equal(th_runf("%s", args), 0);
    char logs[PATH_MAX + 8], *log;
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    log = th_find_one(logs, ".csv.gz");
    assert_non_null(log);
    th_must_have(log, "_bob-s-nano---system--touch-");   /* the file name: nothing a shell reads */
    snprintf(args, sizeof(args), "compare %s --plot \"%s/it's a plot.svg\"", log, dir);
    int rc = th_runf("%s", args);
    assert_int_equal(access(pwned, F_OK), -1);          /* nothing ran */
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        assert_int_equal(rc, 0);
        char svg[PATH_MAX + 32];
        snprintf(svg, sizeof(svg), "%s/it's a plot.svg", dir);
        char *pic = th_read_gz(svg);
        assert_non_null(pic);
        th_must_have(pic, "<svg");
        th_must_have(pic, "bob's nano'; system('touch ");   /* the name, drawn as text */
        free(pic);
    } else {
        assert_int_equal(rc, 1);
        th_must_have(th_err(), "sudo apt-get install gnuplot-nox");
    }
    /* history --plot of the same log, to a name with a quote, a semicolon and a backslash */
    snprintf(args, sizeof(args), "history %s --plot \"%s/it's; a \\ plot.svg\"", log, dir);
    rc = th_runf("%s", args);
    assert_int_equal(access(pwned, F_OK), -1);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        assert_int_equal(rc, 0);
        char svg[PATH_MAX + 32];
        snprintf(svg, sizeof(svg), "%s/it's; a \\ plot.svg", dir);
        char *pic = th_read_gz(svg);
        if (!pic)
            th_fail("no history plot; stderr: %s", th_err());
        th_must_have(pic, "Best GB/s per night");
        th_must_have(pic, "bob's nano'; system('touch ");
        free(pic);
    }
    free(log);
}

/* A crafted log: every text field (board, device, kernel, power mode) carries quotes,
 * backslashes, a tab, semicolons, backquotes, $( ) and gnuplot's system(); compare --plot and
 * history --plot draw it, nothing runs, and the names appear as text. */
static void test_plot_of_a_crafted_log(void **state)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        skip();
    const char *dir = th_scratch();
    char pwned[PATH_MAX], text[8 * PATH_MAX], args[4 * PATH_MAX];
    snprintf(pwned, sizeof(pwned), "%s/PWNED", dir);
    const char *fields = "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,"
                         "rel_sem,status,power_mode,frac_copy,gbps_per_w\n";
    for (int night = 1; night <= 2; night++) {
        snprintf(text, sizeof(text),
                 "# log_format: 1\n%s"
                 "h_x_202611%02dT023000Z,\"b'; system(\"\"touch %s\"\") #\",\"d\\\\ `touch %s`"
                 " ; $(touch %s)\tx\",\"k'\"\";x\",float,64,64,8,8,%d,0.01,ok,\"m'\\\\\",0.5,1\n"
                 "h_x_202611%02dT023000Z,\"b'; system(\"\"touch %s\"\") #\",\"d\\\\ `touch %s`"
                 " ; $(touch %s)\tx\",memcpy,float,64,64,0,0,20,0.01,ok,\"m'\\\\\",1,2\n"
                 "# end: complete, 2 rows\n",
                 fields, night, pwned, pwned, pwned, 10 + night, night, pwned, pwned, pwned);
        char name[64];
        snprintf(name, sizeof(name), "h_x_202611%02dT023000Z.csv", night);
        free(th_write(dir, name, text));
    }
    const char *cmds[2] = { "compare", "history" };
    for (int c = 0; c < 2; c++) {
        snprintf(args, sizeof(args), "%s %s/h_x_20261101T023000Z.csv %s/h_x_20261102T023000Z.csv "
                 "--plot %s/p%d.svg", cmds[c], dir, dir, dir, c);
        int rc = th_runf("%s", args);
        if (rc != 0)
            th_fail("%s --plot exit %d: %s", cmds[c], rc, th_err());
        assert_int_equal(access(pwned, F_OK), -1);          /* nothing ran */
        char svg[PATH_MAX + 16];
        snprintf(svg, sizeof(svg), "%s/p%d.svg", dir, c);
        char *pic = th_read_gz(svg);
        assert_non_null(pic);
        th_must_have(pic, "system(");                          /* the board name, as text */
        /* compare: the kernel (its double quote drawn as '); history: the device */
        th_must_have(pic, c ? "$(touch " : "k'';x");
        free(pic);
    }
    /* a picture name with a newline: refused with the reason, nothing written, nothing run */
    snprintf(args, sizeof(args), "compare %s/h_x_20261101T023000Z.csv --plot \"%s/a\nb.svg\"",
             dir, dir);
    assert_int_equal(th_runf("%s", args), 2);   /* refused with the outputs, before reading */
    th_must_have(th_err(), "the output name has a control character");
    assert_int_equal(access(pwned, F_OK), -1);
}

/* compare's output to a full disk: an error and exit 1, never a quiet success. */
static void test_compare_output_to_a_full_disk(void **state)
{
    const char *text_dir = th_scratch();
    char args[2 * PATH_MAX], cmd[3 * PATH_MAX];
    snprintf(args, sizeof(args), "run --quiet --device cpu -b boards/generic.cfg " TINY " -o %s",
             text_dir);
    assert_int_equal(th_runf("%s", args), 0);
    char *log = th_find_one(text_dir, ".csv.gz");
    assert_non_null(log);
    const char *bin = getenv("TB_BIN");
    snprintf(cmd, sizeof(cmd), "%s compare %s --format csv > /dev/full 2>%s/err",
             bin ? bin : "./transpose-bench", log, text_dir);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    char errp[PATH_MAX + 8];
    snprintf(errp, sizeof(errp), "%s/err", text_dir);
    char *err = th_read_gz(errp);
    th_must_have(err, "compare: cannot write the output: No space left on device");
    free(err);
    /* history too: its table to a full disk is an error, not a quiet success */
    snprintf(cmd, sizeof(cmd), "%s history %s --format csv > /dev/full 2>%s/err",
             bin ? bin : "./transpose-bench", log, text_dir);
    st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    err = th_read_gz(errp);
    th_must_have(err, "history: cannot write the output: No space left on device");
    free(err);
    free(log);
}

/* list to a full disk: exit 1 and said, never a quiet 0 (list, --columns, --images). */
static void test_list_output_to_a_full_disk(void **state)
{
    const char *dir = th_scratch(), *bin = getenv("TB_BIN");
    const char *args[] = { "list -b boards/generic.cfg", "list --columns" };
    char cmd[3 * PATH_MAX], errp[PATH_MAX + 8];
    snprintf(errp, sizeof(errp), "%s/err", dir);
    for (size_t i = 0; i < sizeof(args) / sizeof(*args); i++) {
        snprintf(cmd, sizeof(cmd), "%s %s > /dev/full 2>%s", bin ? bin : "./transpose-bench",
                 args[i], errp);
        int st = system(cmd);
        assert_true(WIFEXITED(st));
        if (WEXITSTATUS(st) != 1)
            th_fail("%s > /dev/full: exit %d", args[i], WEXITSTATUS(st));
        char *err = th_read_gz(errp);
        th_must_have(err, "list: cannot write the output: No space left on device");
        free(err);
    }
}

/* A page of a 50,000-size log on a full disk (the file size limit, RLIMIT_FSIZE, stands in
 * for it without root: write(2) fails with EFBIG once SIGXFSZ is ignored): an error naming
 * the page, exit 1, and no page nor temporary left, partial or whole. */
static void test_big_page_on_a_full_disk(void **state)
{
    const char *dir = th_scratch(), *bin = getenv("TB_BIN");
    char *log = th_write_sizes_log(dir, "h_x_20261101T023000Z.csv", 50000);
    char cmd[4 * PATH_MAX], errp[PATH_MAX + 8], pages[PATH_MAX];
    snprintf(pages, sizeof(pages), "%s/pages", dir);
    assert_int_equal(mkdir(pages, 0700), 0);
    snprintf(errp, sizeof(errp), "%s/err", dir);
    snprintf(cmd, sizeof(cmd), "trap '' XFSZ; ulimit -f 200; exec %s compare --html "
             "%s/pages/p.html %s >/dev/null 2>%s", bin ? bin : "./transpose-bench", dir, log, errp);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) != 1)
        th_fail("compare --html to a full disk: exit %d", WEXITSTATUS(st));
    char *err = th_read_gz(errp);
    th_must_have(err, "pages/p.html': File too large");
    free(err);
    assert_int_equal(th_count_files(pages), 0);   /* no page, no temporary */
    free(log);
}

/* A night's log as history reads it: the run_id carries the night. */
static void night_log(const char *dir, int day, const char *const *kernels, const double *gbps,
                      int nk)
{
    char name[128], text[4096];
    size_t len = (size_t)snprintf(text, sizeof(text),
                                  "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,"
                                  "block_x,block_y,gbps,rel_sem,status,power_mode\n");
    for (int k = 0; k < nk; k++)
        len += (size_t)snprintf(text + len, sizeof(text) - len,
                                "orin1_jetson-orin-nano_202611%02dT023000Z,jetson-orin-nano,Orin,"
                                "%s,float,4096,4096,32,8,%.2f,0.002,ok,15W (0)\n", day, kernels[k],
                                gbps[k]);
    snprintf(text + len, sizeof(text) - len, "# end: complete, %d rows\n", nk);
    snprintf(name, sizeof(name), "orin1_jetson-orin-nano_202611%02dT023000Z.csv.gz", day);
    free(th_write(dir, name, text));
}

/* #33: history listed 1024x1024 before 64x64 and 2048 before 512 (sizes as text). Sizes
 * are numbers: one night of three sizes, each size's series in number order. */
static void test_history_sizes_in_number_order(void **state)
{
    const char *dir = th_scratch();
    const char *sizes[3] = { "1024,1024", "64,64", "512,2048" };
    char text[1024];
    size_t len = (size_t)snprintf(text, sizeof(text), "# log_format: 1\nrun_id,board,device,"
                                  "kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status\n");
    for (int i = 0; i < 3; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "h_b_20261101T023000Z,b,d,"
                                "blocked,float,%s,8,8,%d.0,0.002,ok\n", sizes[i], 10 + i);
    snprintf(text + len, sizeof(text) - len, "# end: complete, 3 rows\n");
    free(th_write(dir, "h_b_20261101T023000Z.csv.gz", text));
    char args[PATH_MAX + 64];
    snprintf(args, sizeof(args), "history --format csv %s/h_b_20261101T023000Z.csv.gz", dir);
    assert_int_equal(th_runf("%s", args), 0);
    const char *a = strstr(th_out(), ",64,64,"), *b = strstr(th_out(), ",512,2048,"),
               *c = strstr(th_out(), ",1024,1024,");
    if (!a || !b || !c || !(a < b && b < c))
        th_fail("sizes not in number order:\n%s", th_out());
}

/* Hostile text in a log never reaches the terminal raw: compare's "impossible figures"
 * warning (a kernel name with an escape sequence) and history's failed-night error (an end
 * line, a board and a host carrying escapes). */
static void test_hostile_text_not_raw_on_a_terminal(void **state)
{
    const char *dir = th_scratch();
    const char *evil[] = { "copy_row\x1b[2J\x1b]0;pwned\x07" };
    const double inf[] = { 1e30 };
    night_log(dir, 1, evil, inf, 1);
    free(th_write(dir, "h_b_20261102T023000Z.csv.gz",
                  "# log_format: 1\n# run_id: h_b_20261102T023000Z\n"
                  "# host: h\x1b[31m\n# board: b\x1b[1m, peak 1.0 GB/s\n"
                  "run_id,board,kernel,rows,cols,gbps,status\n"
                  "# end: failed: the GPU cannot be used (\x1b[2Jgone), 0 rows\n"));
    th_runf("compare %s/orin1_jetson-orin-nano_20261101T023000Z.csv.gz", dir);
    th_must_have(th_err(), "impossible figures");
    assert_null(strchr(th_err(), '\x1b'));
    assert_null(strchr(th_err(), '\x07'));
    th_runf("history %s/h_b_20261102T023000Z.csv.gz", dir);
    th_must_have(th_err(), "ended '");
    assert_null(strchr(th_err(), '\x1b'));
}

/* Thirteen nights: blocked drops by 30% on the 11th and stays down (a change: flagged on the
 * 13th from the 11th, with its size and interval, still slower on the 12th, exit 1; two
 * nights far out are never a change: report/alarm.c); copy_row has one bad night on the 11th
 * (noise: said, not a change). With the 12th and 13th nights not yet there, the 11th alone
 * is not called a regression. The alarm judges a series from
 * its 11th night (report/alarm.c). */
static void test_history_flags_a_lasting_change_only(void **state)
{
    static const double blocked[13] = { 100, 101, 99, 100.5, 99.5, 100, 101, 99.8, 100.2, 100.1,
                                        70, 71, 70.5 };
    static const double copy[13] = { 200, 201, 199, 200, 202, 201, 200, 199, 201, 200, 140, 199,
                                     200 };
    const char *kernels[2] = { "blocked", "copy_row" };
    const char *dir = th_scratch();
    char args[PATH_MAX + 64];
    for (int d = 0; d < 13; d++) {
        double g[2] = { blocked[d], copy[d] };
        night_log(dir, d + 1, kernels, g, 2);
    }
    snprintf(args, sizeof(args), "history %s/*.csv.gz", dir);
    assert_int_equal(th_runf("%s", args), 1);
    th_must_have(th_out(), "jetson-orin-nano (Orin) on orin1, blocked, 4096x4096 float, 15W (0)\n");
    th_must_have(th_out(), "  2026-11-11       70.0      100.0   -30.0%       -      -  SLOWER from here "
                 "[GB/s -29.5% +- 1.1% (flagged 2026-11-13)]\n");
    th_must_have(th_out(), "  2026-11-12       71.0      100.0   -29.0%       -      -  still slower\n");
    th_must_have(th_out(), "  2026-11-11      140.0      200.0   -30.0%       -      -  one night off (noise)\n");
    assert_null(strstr(th_out(), "faster from here"));
    th_must_have(th_out(), "1 series regressed on the latest night\n");
    /* the csv form, one row per series and night */
    snprintf(args, sizeof(args), "history --format csv %s/*.csv.gz", dir);
    assert_int_equal(th_runf("%s", args), 1);
    th_must_have(th_out(), "jetson-orin-nano,orin1,Orin,blocked,4096,4096,float,\"15W (0)\",,,2026-11-11,70.00,"
                   "100.0,-30.0,\"SLOWER from here\",,,,\"GB/s -29.5% +- 1.1% (flagged 2026-11-13)\"\n");
    /* table.c: RFC 4180, numbers plain */
    /* before the 12th night: one low night is not yet a change */
    char last[PATH_MAX];
    for (int d = 13; d >= 12; d--) {
        snprintf(last, sizeof(last), "%s/orin1_jetson-orin-nano_202611%02dT023000Z.csv.gz", dir, d);
        assert_int_equal(unlink(last), 0);
    }
    assert_int_equal(th_runf("%s", args), 0);
    th_must_have(th_out(), ",2026-11-11,70.00,100.0,-30.0,\"lower (one night: not yet a change)\",,,,\n");
}

/* A night of blocked in 15W under the caps a mode sweep's step asked ("" none), as history
 * reads it. */
static void capped_night(const char *dir, int day, const char *gpu_cap, const char *emc_cap,
                         double gbps)
{
    char name[128], text[1024];
    snprintf(text, sizeof(text), "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,"
             "block_x,block_y,gbps,rel_sem,status,power_mode,gpu_cap_asked_mhz,"
             "emc_cap_asked_mhz,dyn_pj_per_byte\n"
             "orin1_jetson-orin-nano_202611%02dT023000Z,jetson-orin-nano,Orin,blocked,float,4096,"
             "4096,32,8,%.2f,0.002,ok,15W (0),%s,%s,12.5\n# end: complete, 1 rows\n", day, gbps,
             gpu_cap, emc_cap);
    snprintf(name, sizeof(name), "orin1_jetson-orin-nano_202611%02dT023000Z.csv.gz", day);
    free(th_write(dir, name, text));
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* #31: history compares like with like. Five nights of 15W uncapped at 100 GB/s, then two of
 * 15W under a GPU cap of 612 MHz at 70: two series, and the capped nights are no slowdown
 * (one series would flag them SLOWER and exit 1). Nights under the same caps are one series;
 * another EMC cap alone is another series. The caps are in each series' heading, in the CSV
 * and JSON columns, in the page's chart titles; compare --pareto's page names a cap asked
 * and leaves out the one not asked. */
static void test_history_keeps_caps_apart(void **state)
{
    const char *dir = th_scratch();
    for (int d = 1; d <= 5; d++)
        capped_night(dir, d, "", "", 100 + (d % 2));
    capped_night(dir, 6, "612", "", 70);
    capped_night(dir, 7, "612", "", 71);
    assert_int_equal(th_runf("history %s/*.csv.gz", dir), 0);
    th_must_have(th_out(), "jetson-orin-nano (Orin) on orin1, blocked, 4096x4096 float, 15W (0)\n");
    th_must_have(th_out(), "jetson-orin-nano (Orin) on orin1, blocked, 4096x4096 float, 15W (0), "
                        "GPU cap 612 MHz\n");
    assert_null(strstr(th_out(), "SLOWER"));
    th_must_have(th_out(), "0 series regressed on the latest night\n");
    assert_int_equal(th_runf("history --format csv %s/*.csv.gz", dir), 0);
    th_must_have(th_out(), ",elem,power_mode,gpu_cap_asked_mhz,emc_cap_asked_mhz,night,");
    assert_int_equal(count_of(th_out(), ",\"15W (0)\",612,,2026-11-0"), 2);
    assert_int_equal(count_of(th_out(), ",\"15W (0)\",,,2026-11-0"), 5);
    assert_int_equal(th_runf("history --format json %s/*.csv.gz", dir), 0);
    assert_int_equal(count_of(th_out(), "\"gpu_cap_asked_mhz\": 612, "
                                        "\"emc_cap_asked_mhz\": null"), 2);
    assert_int_equal(count_of(th_out(), "\"gpu_cap_asked_mhz\": null, "
                                        "\"emc_cap_asked_mhz\": null"), 5);
    char page[PATH_MAX];
    snprintf(page, sizeof(page), "%s/h.html", dir);
    assert_int_equal(th_runf("history --html %s %s/*.csv.gz", page, dir), 0);
    char *html = th_keep(th_read_gz(page));
    th_must_have(html, "blocked, 4096x4096 float, 15W (0)</h2>");
    th_must_have(html, "blocked, 4096x4096 float, 15W (0), GPU cap 612 MHz</h2>");
    snprintf(page, sizeof(page), "%s/p.html", dir);
    assert_int_equal(th_runf("compare --pareto --html %s %s/*.csv.gz", page, dir), 0);
    html = th_keep(th_read_gz(page));
    th_must_have(html, "15W (0), GPU cap 612 MHz, block 32x8");
    assert_null(strstr(html, "nan MHz"));   /* the EMC cap not asked: left out */

    /* the same caps: one series of three nights; another EMC cap: a series of its own */
    const char *dir2 = th_scratch();
    for (int d = 1; d <= 3; d++)
        capped_night(dir2, d, "612", "2133", 70);
    capped_night(dir2, 4, "612", "3199", 75);
    assert_int_equal(th_runf("history %s/*.csv.gz", dir2), 0);
    assert_int_equal(count_of(th_out(), "15W (0), GPU cap 612 MHz, EMC cap 2133 MHz\n"), 1);
    assert_int_equal(count_of(th_out(), "15W (0), GPU cap 612 MHz, EMC cap 3199 MHz\n"), 1);
    assert_int_equal(count_of(th_out(), "jetson-orin-nano (Orin) on orin1"), 2);
    assert_int_equal(th_runf("history --format csv %s/*.csv.gz", dir2), 0);
    assert_int_equal(count_of(th_out(), ",\"15W (0)\",612,2133,2026-11-0"), 3);
    assert_int_equal(count_of(th_out(), ",\"15W (0)\",612,3199,2026-11-04,75.00,"), 1);
}

/* issue 32: one night stamped 2999 (a board whose clock jumped) once became "the latest
 * night", inside the band, and hid a real slowdown (exit 0). It is flagged and left out:
 * the slowdown of the 11th to 13th still exits 1; so does a night of month 13. */
static void test_history_future_night_hides_nothing(void **state)
{
    static const double blocked[13] = { 100, 101, 99, 100.5, 99.5, 100, 101, 99.8, 100.2, 100.1,
                                        70, 71, 70.5 };
    const char *kernels[1] = { "blocked" };
    const char *dir = th_scratch();
    char args[PATH_MAX + 64];
    for (int d = 0; d < 13; d++)
        night_log(dir, d + 1, kernels, &blocked[d], 1);
    snprintf(args, sizeof(args), "history %s/*.csv.gz", dir);
    assert_int_equal(th_runf("%s", args), 1);
    free(th_write(dir, "orin1_jetson-orin-nano_29990101T023000Z.csv.gz",
                  "# log_format: 1\n# run_id: orin1_jetson-orin-nano_29990101T023000Z\n"
                  "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status,"
                  "power_mode\norin1_jetson-orin-nano_29990101T023000Z,jetson-orin-nano,Orin,"
                  "blocked,float,4096,4096,32,8,100.00,0.002,ok,15W (0)\n# end: complete, 1 rows\n"));
    free(th_write(dir, "orin1_jetson-orin-nano_20261332T023000Z.csv.gz",
                  "# log_format: 1\n"
                  "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status,"
                  "power_mode\norin1_jetson-orin-nano_20261332T023000Z,jetson-orin-nano,Orin,"
                  "blocked,float,4096,4096,32,8,100.00,0.002,ok,15W (0)\n# end: complete, 1 rows\n"));
    assert_int_equal(th_runf("%s", args), 1);
    th_must_have(th_out(), "  2026-11-12       71.0      100.0   -29.0%       -      -  still slower\n");
    th_must_have(th_out(), "1 series regressed on the latest night\n");
    th_must_have(th_out(), "2 logs stamped with a time that cannot be (named above): left out of "
                        "nights, baselines and bands; the latest night is the latest plausible one");
    th_must_have(th_err(), "29990101T023000Z.csv.gz:2: run 'orin1_jetson-orin-nano_29990101T023000Z' "
                        "is stamped in the future (a clock set wrong?): flagged");
    th_must_have(th_err(), "20261332T023000Z.csv.gz:3: run 'orin1_jetson-orin-nano_20261332T023000Z' "
                        "is stamped with an impossible date: flagged");
    assert_null(strstr(th_out(), "2999"));
    /* nor is it a baseline: against it alone nothing is compared (exit 2), and it is said */
    char now12[PATH_MAX + 64];
    snprintf(now12, sizeof(now12), "compare %s/orin1_jetson-orin-nano_20261112T023000Z.csv.gz "
             "--baseline %s/orin1_jetson-orin-nano_29990101T023000Z.csv.gz", dir, dir);
    assert_int_equal(th_runf("%s", now12), 2);
    th_must_have(th_err(), "1 baseline row of a run stamped with a time that cannot be: left out");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_plot_of_hostile_names),
        TH_TEST(test_plot_of_a_crafted_log),
        TH_TEST(test_compare_output_to_a_full_disk),
        TH_TEST(test_list_output_to_a_full_disk),
        TH_TEST(test_big_page_on_a_full_disk),
        TH_TEST(test_history_sizes_in_number_order),
        TH_TEST(test_hostile_text_not_raw_on_a_terminal),
        TH_TEST(test_history_flags_a_lasting_change_only),
        TH_TEST(test_history_keeps_caps_apart),
        TH_TEST(test_history_future_night_hides_nothing),
    };
    return cmocka_run_group_tests_name("night_pages", tests, setup, NULL);
}
