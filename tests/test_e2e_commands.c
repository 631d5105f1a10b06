/* test_e2e_commands.c: the real binary's other commands end to end: make install and
 * uninstall into a DESTDIR, tune writing a sweep that run takes, the board detected from
 * a device tree, compare on logs the tool wrote (and its plot). Fixture: TH_TEST. */
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

/* make install into a DESTDIR; the installed binary, run from elsewhere, finds its files. */
static void test_install_and_uninstall(void **state)
{
    const char *dir = th_scratch();
    char cmd[4 * PATH_MAX], bin[PATH_MAX], runner[64] = "";
    const char *b = getenv("TB_BIN");
    const char *sp = b ? strrchr(b, ' ') : NULL;       /* "qemu-aarch64 /path/bin" */
    snprintf(bin, sizeof(bin), "%s", sp ? sp + 1 : b ? b : "./transpose-bench");
    if (sp)
        snprintf(runner, sizeof(runner), "%.*s ", (int)(sp - b), b);
    /* -o: install the binary under test as it is, never rebuild it (it may be aarch64) */
    snprintf(cmd, sizeof(cmd), "make -s -o %s install BIN=%s DESTDIR=%s PREFIX=/opt/tb "
             ">/dev/null 2>&1", bin, bin, dir);
    assert_int_equal(system(cmd), 0);
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/opt/tb/share/man/man1/transpose-bench.1", dir);
    assert_int_equal(access(p, R_OK), 0);
    snprintf(p, sizeof(p), "%s/opt/tb/share/transpose-bench/boards/jetson-nano.cfg", dir);
    assert_int_equal(access(p, R_OK), 0);
    /* from / : conf/default.cfg and boards/ must come from the installed share directory */
    snprintf(cmd, sizeof(cmd), "cd / && %s%s/opt/tb/bin/transpose-bench run --device cpu "
             "--sizes 8x8 --set power.source=none --set sweep.stop.min_time_ms=1 -q -o %s/logs "
             "&& %s%s/opt/tb/bin/transpose-bench list -b jetson-nano | grep -q 'board .jetson-nano'",
             runner, dir, dir, runner, dir);
    assert_int_equal(system(cmd), 0);
    char logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    char *log = th_only_log(logs);
    free(log);
    snprintf(cmd, sizeof(cmd), "make -s uninstall DESTDIR=%s PREFIX=/opt/tb >/dev/null 2>&1", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(p, sizeof(p), "%s/opt/tb/bin/transpose-bench", dir);
    assert_int_equal(access(p, F_OK), -1);
    snprintf(p, sizeof(p), "%s/opt/tb/share/transpose-bench", dir);
    assert_int_equal(access(p, F_OK), -1);
}

/* SCRIPT BIN, BIN the binary under test (TB_BIN's last word): exit 0 expected */
static void run_install_script(const char *script)
{
    char cmd[2 * PATH_MAX];
    const char *b = getenv("TB_BIN");
    const char *sp = b ? strrchr(b, ' ') : NULL;       /* "qemu-aarch64 /path/bin" */
    snprintf(cmd, sizeof(cmd), "%s '%s' >&2", script, sp ? sp + 1 : b ? b :
             "./transpose-bench");
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* make install and uninstall with a blank in PREFIX and DESTDIR: nothing into the checkout,
 * only what install installed removed (tests/install-test.sh, which says each check). */
static void test_install_with_blanks(void **state)
{
    run_install_script("tests/install-test.sh");
}

/* install-test.sh's "nothing into the checkout" passes while another process writes into the
 * checkout, and fails when install writes into it (tests/install-test-test.sh, #59). */
static void test_install_check_beside_other_writers(void **state)
{
    run_install_script("tests/install-test-test.sh");
}

/* .ci/run's stages side by side (.ci/pair.sh) interrupted by SIGINT, SIGTERM or SIGHUP to its
 * group: the stage beside ends too, in the group bg_stage made (tests/ci-pair-test.sh, #59). */
static void test_ci_pair_interrupted(void **state)
{
    run_install_script("tests/ci-pair-test.sh");
}

static void test_tune_writes_a_sweep_run_takes(void **state)
{
    const char *dir = th_scratch();
    char args[3 * PATH_MAX], tuned[PATH_MAX];
    snprintf(tuned, sizeof(tuned), "%s/tuned.cfg", dir);
    snprintf(args, sizeof(args), "tune " FAST " --sizes 64x64,31x33 --blocks 4x4,8x8,16x16 "
             "-o %s/logs --out %s", dir, tuned);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_err(), "tune: measured 10 of 10 candidate points (100%)"));
    char *text = th_read_gz(tuned);
    /* one best block per kernel and size; blocked's is one of the candidates */
    const char *p = strstr(text, "{ kernel = \"blocked\"; size = [ 64, 64 ]; block = [ ");
    assert_non_null(p);
    assert_null(strstr(p + 1, "{ kernel = \"blocked\"; size = [ 64, 64 ]"));
    int bx = atoi(p + strlen("{ kernel = \"blocked\"; size = [ 64, 64 ]; block = [ "));
    assert_true(bx == 4 || bx == 8 || bx == 16);
    free(text);
    /* the nightly run measures exactly those points */
    snprintf(args, sizeof(args), "run --device cpu -b boards/generic.cfg --set power.source=none "
             "-c %s --set sweep.stop.min_time_ms=1 -o %s/run", tuned, dir);
    assert_int_equal(th_runf("%s", args), 0);
    char runs[PATH_MAX];
    snprintf(runs, sizeof(runs), "%s/run", dir);
    char *log = th_only_log(runs);
    char *t2 = th_read_gz(log);
    const char *header;
    assert_int_equal(th_data_rows(t2, &header), 6);   /* copy_row, naive_row, blocked per size */
    free(t2);
    free(log);
    /* per element type: a u8 search writes a u8 sweep, whose run measures bytes */
    snprintf(args, sizeof(args), "tune " FAST " --sizes 31x33 --blocks 4x4,8x8 "
             "--set sweep.element=u8 -o %s/logs3 --out %s/t8.cfg", dir, dir);
    assert_int_equal(th_runf("%s", args), 0);
    char t8[PATH_MAX + 16];
    snprintf(t8, sizeof(t8), "%s/t8.cfg", dir);
    text = th_read_gz(t8);
    assert_non_null(strstr(text, "element = \"u8\";"));
    free(text);
    snprintf(args, sizeof(args), "run --device cpu -b boards/generic.cfg --set power.source=none "
             "-c %s --set sweep.stop.min_time_ms=1 -o %s/run8", t8, dir);
    assert_int_equal(th_runf("%s", args), 0);
    snprintf(runs, sizeof(runs), "%s/run8", dir);
    log = th_only_log(runs);
    t2 = th_read_gz(log);
    assert_non_null(strstr(t2, ",blocked,u8,1,31,33,"));
    free(t2);
    free(log);
    /* a budget that ends the search early says how much it covered */
    snprintf(args, sizeof(args), "tune --device cpu -b boards/generic.cfg --set power.source=none "
             "--sizes 256x256 --set sweep.stop.min_time_ms=400 --seconds 1 -o %s/logs2 "
             "--out %s/t2.cfg", dir, dir);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_err(), "candidate points ("));
    assert_null(strstr(th_err(), "(100%)"));
}

/* `run --kernels best`: the candidates over tune's blocks (no --blocks: blocked's 1024x1 is
 * among them), and after the size's rows a `best` row that repeats the fastest transpose's
 * figures and names it; the reference copy is never chosen. */
static void test_run_kernels_best(void **state)
{
    const char *dir = th_scratch();
    assert_int_equal(th_runf("run " FAST " --kernels best --sizes 40x50 -o %s/best", dir), 0);
    const char *out = th_out();
    assert_non_null(strstr(out, "blocked          -          1024x1"));
    double top = -1, gbps;
    char kernel[32], block[16], fastest[1024] = "";
    const char *line = strstr(out, "40 x 50");
    assert_non_null(line);
    const char *best = strstr(line, "\n  best ");
    assert_non_null(best);
    /* the fastest printed figure: rows tied at it as printed (one decimal) are all fastest,
     * since the choice is made on the unrounded figures */
    for (int pass = 0; pass < 2; pass++)
        for (const char *l = line; l && l < best; l = strchr(l + 1, '\n')) {
            char chosen[32];
            if (sscanf(l, "\n %31s %31s %15s %lf", kernel, chosen, block, &gbps) != 4 ||
                !strcmp(kernel, "copy_row"))
                continue;
            if (pass == 0 && gbps > top)
                top = gbps;
            else if (pass == 1 && gbps == top)
                snprintf(fastest + strlen(fastest), sizeof(fastest) - strlen(fastest),
                         "[%s %s]", kernel, block);
        }
    assert_true(top > 0);
    char chosen[32];
    assert_int_equal(sscanf(best, "\n %31s %31s %15s %lf", kernel, chosen, block, &gbps), 4);
    char got[80];
    snprintf(got, sizeof(got), "[%s %s]", chosen, block);
    if (!strstr(fastest, got))
        th_fail("best chose %s, the fastest printed: %s", got, fastest);
    assert_true(gbps == top);
    /* a named kernel shows no best row */
    assert_int_equal(th_runf("run " FAST " --kernels blocked --sizes 40x50 --blocks 8x8 -o %s/b2",
                             dir), 0);
    assert_null(strstr(th_out(), "\n  best "));
}

static void test_board_detection(void **state)
{
    const char *dir = th_scratch();
    char args[2048];
    /* the device tree ends its string with a NUL */
    char *m = th_write(dir, "proc/device-tree/model", "NVIDIA Jetson Orin Nano Developer Kit");
    snprintf(args, sizeof(args), "run --device cpu --sizes 8x8 --set power.source=none "
             "--set power.sysfs_root=%s --set sweep.stop.min_time_ms=1 -o %s/logs", dir, dir);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_err(), "board file 'boards/jetson-orin-nano.cfg': model "
                                "'NVIDIA Jetson Orin Nano Developer Kit' matches 'Orin Nano'"));
    assert_non_null(strstr(th_out(), "of peak"));
    free(m);
}

/* Rewrites a log with gbps of one kernel scaled, as a baseline from a faster night. The
 * field is found by its column index (its text may also occur inside another field). */
/* A copy of a log with kernel's gbps scaled by factor and every row's rel_sem set to 0.1%:
 * a baseline whose verdicts depend on the planted change alone, never on how loaded the
 * machine was when the real log was measured. Fields before gbps are unquoted in our rows. */
static void scaled_copy(const char *src, const char *dst, const char *kernel, double factor)
{
    char *text = th_read_gz(src);
    gzFile out = gzopen(dst, "wb");
    int gcol = -1, scol = -1;
    const char *header = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') {
            gzprintf(out, "%s\n", line);
            continue;
        }
        if (!header) {
            header = line;
            int i = 0;
            for (const char *p = line; p; p = strchr(p, ','), p = p ? p + 1 : NULL, i++) {
                if (!strncmp(p, "gbps,", 5))
                    gcol = i;
                if (!strncmp(p, "rel_sem,", 8))
                    scol = i;
            }
            gzprintf(out, "%s\n", line);
            continue;
        }
        char k[64], row[8192] = "";
        bool scale = th_field(header, line, "kernel", k, sizeof(k)) == 0 && !strcmp(k, kernel);
        const char *p = line;
        size_t len = 0;
        for (int i = 0; p; i++) {
            const char *end = i < gcol ? strchr(p, ',') : NULL;
            if (i == scol)
                len += (size_t)snprintf(row + len, sizeof(row) - len, "0.001,");
            else if (i == gcol)
                len += (size_t)snprintf(row + len, sizeof(row) - len, "%.2f%s",
                                        atof(p) * (scale ? factor : 1.0), strchr(p, ','));
            else if (i < gcol)
                len += (size_t)snprintf(row + len, sizeof(row) - len, "%.*s,", (int)(end - p), p);
            p = i < gcol ? end + 1 : NULL;
        }
        gzprintf(out, "%s\n", row);
    }
    gzclose(out);
    free(text);
}

static void test_compare_plot(void **state)
{
    const char *dir = th_scratch();
    char args[3 * PATH_MAX];
    /* logs from two "boards": the CPU run here and the recorded H100 one */
    snprintf(args, sizeof(args), "run " FAST " --sizes 64x64 --blocks 8x8,16x16 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 0);
    char *log = th_only_log(dir);
    char svg[PATH_MAX];
    snprintf(svg, sizeof(svg), "%s/plot.svg", dir);
    snprintf(args, sizeof(args), "compare %s %s --plot %s", log,
             th_fixture("logs/h100-bench-subset.csv.gz"), svg);
    int rc = th_runf("%s", args);
    assert_non_null(strstr(th_out(), "64 x 64"));       /* the tables, with or without gnuplot */
    assert_non_null(strstr(th_out(), "8192 x 8192"));
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        assert_int_equal(rc, 0);
        char *text = th_read_gz(svg);
        assert_non_null(text);
        assert_non_null(strstr(text, "<svg"));
        /* the charts of the page: each size, its boards, and the board that lacks it */
        assert_non_null(strstr(text, "8192x8192 float. Not measured at this size: generic: "
                                     "Fraction of memcpy (same board, same size)"));
        assert_non_null(strstr(text, "64x64 float. Not measured at this size: h100-sxm: Best GB/s"));
        assert_non_null(strstr(text, "8192x8192 float. Not measured at this size: generic: "
                                     "Fraction of the board's peak bandwidth"));
        assert_non_null(strstr(text, "fill=\"#ffffff\""));   /* opaque white, not transparent */
        assert_non_null(strstr(text, "cublas_geam"));      /* a kernel, as a tick label */
        free(text);
    } else {
        assert_int_equal(rc, 1);
        assert_non_null(strstr(th_err(), "sudo apt-get install gnuplot-nox"));
    }
    snprintf(args, sizeof(args), "compare %s --plot %s/plot.pdf", log, dir);
    assert_int_equal(th_runf("%s", args), 1);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        /* a place no picture can be written (even by root): exit 1, the file named */
        snprintf(args, sizeof(args), "compare %s --plot /proc/tb-none/plot.svg", log);
        assert_int_equal(th_runf("%s", args), 1);
        assert_non_null(strstr(th_err(), "/proc/tb-none/plot.svg"));
    }
    free(log);
}

static void test_compare_on_real_logs(void **state)
{
    const char *dir = th_scratch();
    char args[3 * PATH_MAX];
    snprintf(args, sizeof(args), "run " FAST " --sizes 64x64,32x48 --blocks 8x8,16x16 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 0);
    char *log = th_only_log(dir);
    snprintf(args, sizeof(args), "compare %s", log);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_out(), "64 x 64"));
    assert_non_null(strstr(th_out(), "32 x 48"));
    assert_non_null(strstr(th_out(), "blocked"));
    assert_non_null(strstr(th_out(), "best GB/s"));
    snprintf(args, sizeof(args), "compare --format markdown %s", log);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_out(), "| kernel | board | element | power mode | device | best GB/s |"));
    snprintf(args, sizeof(args), "compare --format csv %s", log);
    assert_int_equal(th_runf("%s", args), 0);
    assert_true(!strncmp(th_out(), "rows,cols,kernel,board,device,gbps,", 35));

    /* against itself: every point the same */
    snprintf(args, sizeof(args), "compare %s --baseline %s", log, log);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_out(), "8 points compared, 0 regressed"));
    assert_null(strstr(th_out(), "slower"));
    /* a baseline where blocked ran twice as fast: a regression, exit 1 (both sides with a
     * fixed small spread, so the verdicts depend on the planted change alone) */
    char base[PATH_MAX], now[PATH_MAX];
    snprintf(base, sizeof(base), "%s/base.csv.gz", dir);
    snprintf(now, sizeof(now), "%s/now.csv.gz", dir);
    scaled_copy(log, base, "blocked", 2.0);
    scaled_copy(log, now, "blocked", 1.0);
    snprintf(args, sizeof(args), "compare %s --baseline %s --threshold 10", now, base);
    assert_int_equal(th_runf("%s", args), 1);
    assert_non_null(strstr(th_out(), "slower    REGRESSION"));
    assert_non_null(strstr(th_out(), "4 regressed beyond 10.0%"));

    /* a truncated gzip: an error naming the file, and the rows before the cut still used */
    char cut[PATH_MAX];
    snprintf(cut, sizeof(cut), "%s/cut.csv.gz", dir);
    FILE *in = fopen(log, "rb"), *o = fopen(cut, "wb");
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *buf = malloc((size_t)size);
    assert_int_equal(fread(buf, 1, (size_t)size, in), (size_t)size);
    fwrite(buf, 1, (size_t)(size - 40), o); /* the end marker and gzip trailer go */
    fclose(in);
    fclose(o);
    free(buf);
    /* a log from a newer tool version: read by column names, with a warning */
    char newer[PATH_MAX];
    snprintf(newer, sizeof(newer), "%s/newer.csv", dir);
    char *lt = th_read_gz(log);
    char *fmt = strstr(lt, "# log_format: 1");
    assert_non_null(fmt);
    fmt[strlen("# log_format: ")] = '7';
    free(th_write(dir, "newer.csv", lt));
    free(lt);
    snprintf(args, sizeof(args), "compare %s", newer);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_err(), "newer.csv: log format 7 is newer than this tool's 1; reading the "
                                "columns it knows"));
    assert_non_null(strstr(th_out(), "64 x 64"));
    char *notlog = th_write(dir, "notes.txt", "hello,world\n1,2\n");
    snprintf(args, sizeof(args), "compare %s %s", cut, notlog);
    assert_int_equal(th_runf("%s", args), 1);
    assert_non_null(strstr(th_err(), "cut.csv.gz: unreadable after line"));
    assert_non_null(strstr(th_err(), "notes.txt:1: not a transpose-bench log (no 'board' column)"));
    assert_non_null(strstr(th_out(), "64 x 64"));
    free(notlog);
    free(log);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_board_detection),
        TH_TEST(test_install_and_uninstall),
        TH_TEST(test_install_with_blanks),
        TH_TEST(test_install_check_beside_other_writers),
        TH_TEST(test_ci_pair_interrupted),
        TH_TEST(test_tune_writes_a_sweep_run_takes),
        TH_TEST(test_run_kernels_best),
        TH_TEST(test_compare_on_real_logs),
        TH_TEST(test_compare_plot),
    };
    return cmocka_run_group_tests_name("e2e_commands", tests, th_lock_setup, th_lock_teardown);
}
