/* test_report.c: compare and history on the real binary fed hostile logs and outputs: rows
 * of 1e308, 5e-324, inf and negative GB/s through --html, a page or plot named over a log
 * (`compare --html *.csv.gz`), a page through a link, a FIFO and /dev/zero as logs, a failed
 * night among good ones, two hosts of one name, a baseline night with two logs, JSON read by
 * python3, output to a full disk. Every command runs under `timeout`: a hang fails the test. */
#include "helpers.h"

#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/html.h"
#include "log/log_meta.h"
#include "report/plot.h"
#include "lib/util.h"

/* the command lines are format strings of this file, chosen from tables */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static char bin[PATH_MAX + 32];

static int setup(void **state)
{
    const char *b = getenv("TB_BIN");
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(bin, sizeof(bin), "%s", b ? b : "./transpose-bench");
    char t[PATH_MAX + 64];
    snprintf(t, sizeof(t), "timeout 60 %s", bin);   /* a hang is exit 124, not a stuck suite */
    setenv("TB_BIN", t, 1);
    th_own_lock("report");   /* per process, removed at its exit */
    return 0;
}

static void must_have(const char *text, const char *want)
{
    if (!text || !strstr(text, want))
        th_fail("missing '%s' in:\n%.3000s", want, text ? text : "(null)");
}

static void must_lack(const char *text, const char *bad)
{
    if (text && strstr(text, bad))
        th_fail("unexpected '%s' in:\n%.3000s", bad, text);
}

static long size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

#define FIELDS "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status," \
               "frac_copy,gbps_per_w\n"

/* Three nights of a log whose kernels carry hostile figures (k1 1e308, k2 5e-324, k3 inf,
 * k4 negative) beside an ordinary one (k5); the paths into names[3]. */
static void extreme_logs(const char *dir, char names[3][PATH_MAX])
{
    for (int d = 0; d < 3; d++) {
        char text[2048], name[96];
        const char *id = "h_b_2026110%dT020000Z";
        char run[64];
        snprintf(run, sizeof(run), id, d + 1);
        snprintf(text, sizeof(text),
                 "# log_format: 1\n" FIELDS
                 "%s,b,d,k1,float,64,64,8,8,1e308,0.01,ok,1e308,1e308\n"
                 "%s,b,d,k2,float,64,64,8,8,5e-324,0.01,ok,5e-324,5e-324\n"
                 "%s,b,d,k3,float,64,64,8,8,inf,0.01,ok,nan,-1\n"
                 "%s,b,d,k4,float,64,64,8,8,-5,0.01,ok,1,1\n"
                 "%s,b,d,k5,float,64,64,8,8,12.5,0.01,ok,0.5,2\n# end: complete, 5 rows\n",
                 run, run, run, run, run);
        snprintf(name, sizeof(name), "%s.csv", run);
        char *p = th_write(dir, name, text);
        tb_strlcpy(names[d], p, PATH_MAX);
        free(p);
    }
}

/* The page writers alone, fed the numbers that once made the log-axis loop run forever:
 * they return, and the page stays small. */
static void test_page_writers_bounded(void **state)
{
    static const char *const cats[3] = { "a", "b", "c" }, *const series[2] = { "x", "y" };
    const double sets[][6] = {
        { 1e308, 5e-324, 12.5, 1, 2, 3 },
        { 1e308, 1e308, 1e308, 1e308, 1e308, 1e308 },
        { 5e-324, 5e-324, 5e-324, 5e-324, 5e-324, 5e-324 },
        { 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, -5, 0, 1e-300 },
    };
    alarm(30);
    for (size_t i = 0; i < sizeof(sets) / sizeof(*sets); i++)
        for (int log = 0; log < 2; log++) {
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            tb_html_bars(f, "t", "GB/s", cats, 3, series, 2, sets[i], log);
            tb_html_lines(f, "t", "u", cats, 3, series, 2, sets[i]);
            struct tb_xy pts[3];
            for (size_t k = 0; k < 3; k++)
                pts[k] = (struct tb_xy){ sets[i][k], sets[i][k + 3], sets[i][(k + 1) % 6],
                                         k % 2, cats[k], k != 1, sets[i][(k + 2) % 6],
                                         k == 0 };
            tb_html_scatter(f, "t", "GB/s", "pJ/B", series, 2, pts, 3);
            fclose(f);
            if (len > 64 * 1024)
                th_fail("set %zu (log %d): a page of %zu bytes", i, log, len);
            must_lack(buf, "nan");
            must_lack(buf, "inf");
            free(buf);
            /* the plot's script and data, without drawing */
            struct tb_plot *p = tb_plot_open_script("/tmp/x.svg", "test");
            assert_non_null(p);
            tb_plot_bars(p, "t", "GB/s", cats, 3, series, 2, sets[i], log);
            tb_plot_lines(p, "t", "u", cats, 3, series, 2, sets[i]);
            struct tb_xy pp[3];
            for (size_t k = 0; k < 3; k++)
                pp[k] = (struct tb_xy){ sets[i][k], sets[i][k + 3], NAN, k % 2, cats[k], true,
                                        NAN, false };
            tb_plot_scatter(p, "t", "GB/s", "pJ/B", series, 2, pp, 3);
            char body[PATH_MAX];
            snprintf(body, sizeof(body), "%s/body.gp", tb_plot_dir(p));
            FILE *b = fopen(body, "r");
            char text[4096] = "";
            size_t n = b ? fread(text, 1, sizeof(text) - 1, b) : 0;
            if (b)
                fclose(b);
            text[n] = '\0';
            must_lack(text, "inf");   /* a yrange gnuplot can draw */
            must_lack(text, "nan");
            tb_plot_discard(p);
        }
    alarm(0);
}

/* Ticks a reader can read (steps of 1, 2 or 5 x 10^k, not fifths of the largest value), a
 * one-night chart said to be alone, and the energy chart with its intervals and escaped
 * labels, straight from the page writers. */
static void test_ticks_one_night_and_scatter(void **state)
{
    static const char *const cats[2] = { "a", "b" }, *const series[2] = { "x", "<y>" };
    const double v[4] = { 0.21, 0.1, 0.07, 0.2 };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tb_html_bars(f, "t", "GB/s per W", cats, 2, series, 2, v, false);
    fclose(f);
    must_have(buf, ">0.05</text>");
    must_have(buf, ">0.25</text>");     /* the top: a whole number of steps above 0.21 */
    must_lack(buf, ">0.0441</text>");   /* the old fifths of 0.21 x 1.05 */
    free(buf);
    f = open_memstream(&buf, &len);
    tb_html_lines(f, "t", "u", cats, 1, series, 2, v);
    fclose(f);
    must_have(buf, "one night so far");
    free(buf);
    struct tb_xy pts[3] = { { 2900, 127.5, 1.9, 0, "memcpy", false, NAN, false },
                            { 2830, 145.3, 0.7, 1, "tile<2x2>", false, NAN, false },
                            { 2800, NAN, 1, 1, "undrawn", false, NAN, false } };
    f = open_memstream(&buf, &len);
    tb_html_scatter(f, "Energy", "GB/s", "pJ per byte", series, 2, pts, 3);
    fclose(f);
    must_have(buf, "tile&lt;2x2&gt;");       /* labels escaped */
    must_have(buf, "&lt;y&gt;");
    must_have(buf, "memcpy: 2900, 127.5 +- 1.9");         /* the point's title carries its interval */
    must_lack(buf, "undrawn");
    size_t circles = 0, bars = 0;
    for (const char *p = buf; (p = strstr(p, "<circle")); p++)
        circles++;
    for (const char *p = buf; (p = strstr(p, "<path d=\"M")); p++)
        bars++;
    assert_int_equal(circles, 2);
    assert_int_equal(bars, 2);
    free(buf);
}

/* compare --html with power figures: each with its interval in the table, and the energy
 * chart; without power figures, no energy chart. */
static void test_energy_on_the_page(void **state)
{
    const char *dir = th_scratch();
    char *log = th_write(dir, "h_b_20261101T020000Z.csv",
        "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,"
        "status,verified,frac_copy,gbps_per_w,gbps_per_w_ci95,j_per_gb,j_per_gb_ci95,"
        "dyn_pj_per_byte,dyn_pj_per_byte_ci95\n"
        "h_b_20261101T020000Z,b,d,memcpy,float,8192,8192,0,0,2924.4,0.001,ok,ok,1,5.9789,0.0973,"
        "0.1673,0.0027,124.57,2.68\n"
        "h_b_20261101T020000Z,b,d,vec16,float,8192,8192,256,1,2805.6,0.001,ok,ok,0.96,5.1821,"
        "0.0294,0.1930,0.0011,148.44,1.11\n# end: complete, 2 rows\n");
    char page[PATH_MAX];
    snprintf(page, sizeof(page), "%s/p.html", dir);
    assert_int_equal(th_runf("compare %s --html %s", log, page), 0);
    char *html = th_keep(th_read_gz(page));
    must_have(html, "Energy per byte above idle against GB/s");
    must_have(html, "5.979 &plusmn; 0.097");
    must_have(html, "148.4 &plusmn; 1.1");
    must_have(html, ">vec16</text>");
    free(log);
    /* the same without power columns: no energy chart */
    log = th_write(dir, "h_b_20261102T020000Z.csv",
        "# log_format: 1\n" FIELDS "h_b_20261102T020000Z,b,d,k5,float,64,64,8,8,12.5,0.01,ok,"
        "0.5,\n# end: complete, 1 rows\n");
    snprintf(page, sizeof(page), "%s/q.html", dir);
    assert_int_equal(th_runf("compare %s --html %s", log, page), 0);
    html = th_keep(th_read_gz(page));
    must_lack(html, "Energy per");
    free(log);
}

/* compare --html and history --html over logs of extreme figures: they return at once, the
 * page is small, and impossible rows are said and left out, never drawn as results. */
static void test_extreme_numbers_through_the_pages(void **state)
{
    const char *dir = th_scratch();
    char logs[3][PATH_MAX], page[PATH_MAX];
    extreme_logs(dir, logs);
    const char *cmds[2] = { "compare", "history" };
    for (int c = 0; c < 2; c++) {
        snprintf(page, sizeof(page), "%s/%s.html", dir, cmds[c]);
        assert_int_equal(th_runf("%s %s %s %s --html %s", cmds[c], logs[0], logs[1],
                                 logs[2], page), 0);
        must_have(th_err(), "k1 64x64: impossible figures (gbps '1e308'); flagged, not shown");
        must_have(th_err(), "k3 64x64: impossible figures (gbps 'inf')");
        must_have(th_err(), "k4 64x64: impossible figures (gbps '-5')");
        long size = size_of(page);
        assert_true(size > 0 && size < 200 * 1024);
        char *html = th_read_gz(page);
        must_have(html, "k5");
        must_lack(html, ">k1<");
        must_lack(html, ">k3<");
        must_lack(html, ">k4<");
        /* a row of k1 (not the name alone: the page's path, a mkdtemp name, once held "k1") */
        must_lack(th_out(), "\n  k1 ");
        free(html);
    }
}

/* `compare --html *.csv.gz`: the page's path is the first log. Refused with exit 2 before
 * anything is read, the log untouched; the same for history, --plot, a page named like a log
 * and an existing log under another name. */
static void test_no_output_over_a_log(void **state)
{
    const char *dir = th_scratch();
    char logs[3][PATH_MAX];
    extreme_logs(dir, logs);
    char *before = th_read_gz(logs[0]);
    const char *forms[] = { "compare --html %s %s %s", "history --html %s %s %s",
                            "compare --plot %s %s %s", "history --plot %s %s %s" };
    for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
        assert_int_equal(th_runf(forms[i], logs[0], logs[1], logs[2]), 2);
        must_have(th_err(), "refused");
        must_lack(th_err(), "impossible");   /* refused before reading */
        char *after = th_read_gz(logs[0]);
        assert_string_equal(after, before);
        free(after);
    }
    /* the page named as one of the logs given, after them */
    assert_int_equal(th_runf("history %s %s --html %s", logs[1], logs[0], logs[0]), 2);
    must_have(th_err(), "is one of the files it reads: refused");
    /* an existing log by another name, and an output with a log's name */
    char copy[PATH_MAX + 16];
    snprintf(copy, sizeof(copy), "%s/report.html", dir);
    FILE *f = fopen(copy, "wb");
    fputs("\x1f\x8b rest of a gzip stream", f);
    fclose(f);
    assert_int_equal(th_runf("compare %s --html %s", logs[1], copy), 2);
    must_have(th_err(), "is an existing log: refused (a log is never overwritten)");
    assert_int_equal(th_runf("compare %s --html %s/new.csv.gz", logs[1], dir), 2);
    must_have(th_err(), "has a log's name: refused");
    free(before);
}

/* A page whose name is a link left by someone else: the link is replaced by our own file,
 * its target never written. */
static void test_page_never_through_a_link(void **state)
{
    const char *dir = th_scratch();
    char logs[3][PATH_MAX], page[PATH_MAX + 16];
    extreme_logs(dir, logs);
    char *victim = th_write(dir, "victim.txt", "precious\n");
    snprintf(page, sizeof(page), "%s/page.html", dir);
    assert_int_equal(symlink(victim, page), 0);
    assert_int_equal(th_runf("compare %s --html %s", logs[0], page), 0);
    char *v = th_read_gz(victim);
    assert_string_equal(v, "precious\n");
    struct stat st;
    assert_int_equal(lstat(page, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    free(v);
    free(victim);
}

/* --plot of extreme figures to a name where a link was left: gnuplot draws in our own
 * directory, the picture replaces the link, its target is untouched, no temporary is left. */
static void test_plot_extreme_and_through_no_link(void **state)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        skip();
    const char *dir = th_scratch();
    char logs[3][PATH_MAX], pic[PATH_MAX + 16];
    extreme_logs(dir, logs);
    char *victim = th_write(dir, "victim.txt", "precious\n");
    const char *cmds[2] = { "compare", "history" };
    for (int c = 0; c < 2; c++) {
        snprintf(pic, sizeof(pic), "%s/%s.svg", dir, cmds[c]);
        assert_int_equal(symlink(victim, pic), 0);
        if (th_runf("%s %s %s %s --plot %s", cmds[c], logs[0], logs[1], logs[2], pic) != 0)
            th_fail("%s --plot: %s", cmds[c], th_err());
        struct stat st;
        assert_int_equal(lstat(pic, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        char *svg = th_read_gz(pic);
        must_have(svg, "</svg>");
        must_have(svg, "k5");
        must_lack(svg, "k1e308");
        free(svg);
    }
    char *v = th_read_gz(victim);
    assert_string_equal(v, "precious\n");
    free(v);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "ls -a %s | grep -q '\\.part$'", dir);
    assert_int_not_equal(system(cmd), 0);   /* no temporary left */
    free(victim);
}

/* A FIFO and /dev/zero given as logs: a clear error within seconds (timeout: 60), exit 1,
 * and the good log still read. History says a missing log and exits 1. */
static void test_fifo_and_dev_zero_as_logs(void **state)
{
    const char *dir = th_scratch();
    char logs[3][PATH_MAX], fifo[PATH_MAX + 16];
    extreme_logs(dir, logs);
    snprintf(fifo, sizeof(fifo), "%s/h_b_20261109T020000Z.csv.gz", dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    const char *cmds[2] = { "compare", "history" };
    for (int c = 0; c < 2; c++) {
        assert_int_equal(th_runf("%s %s /dev/zero %s %s/missing.csv.gz", cmds[c], fifo,
                                 logs[0], dir), 1);
        must_have(th_err(),
                  "h_b_20261109T020000Z.csv.gz' is not a regular file (a FIFO): not a log");
        must_have(th_err(), "'/dev/zero' is not a regular file (a device): not a log");
        must_have(th_err(), "missing.csv.gz': No such file or directory");
        must_have(th_out(), "k5");
    }
}

/* A folder of nights: a good CPU night and the tool's own log of a failed night (a Nano's
 * board file, no driver). The failed log has its header; compare shows it as a failed night
 * with its reason (exit 0), history too and exits 1 (the Nano's latest night failed). */
static void test_failed_night_among_good_ones(void **state)
{
    const char *dir = th_scratch();
    setenv("TB_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
    assert_int_equal(th_runf("run --quiet -b boards/jetson-nano.cfg --sizes 16x16 --kernels "
                             "copy_row --set power.source=none -o %s", dir), 1);
    char *failed = th_find_one(dir, ".csv.gz");
    assert_non_null(failed);
    char *text = th_read_gz(failed);
    must_have(text, "\nrun_id,utc,host,board,");   /* the header, before the end line */
    must_have(text, "# end: failed: the GPU cannot be used (");
    free(text);
    assert_int_equal(th_runf("run --quiet --device cpu -b boards/generic.cfg --sizes 16x16 "
                             "--kernels copy_row --set power.source=none "
                             "--set sweep.stop.min_time_ms=1 -o %s", dir), 0);
    assert_int_equal(th_runf("compare %s/*.csv.gz", dir), 0);
    must_have(th_out(), "Failed nights (nothing measured)");
    must_have(th_out(), "jetson-nano");
    must_have(th_out(), "failed: the GPU cannot be used (");
    must_have(th_out(), "copy_row");
    must_lack(th_err(), "not a transpose-bench log");
    assert_int_equal(th_runf("history %s/*.csv.gz", dir), 1);
    must_have(th_out(), "Failed nights (nothing measured)");
    must_have(th_err(), "history: the latest night of jetson-nano on ");
    /* the failed night alone: compare says nothing was measured (exit 1) yet lists it */
    assert_int_equal(th_runf("compare %s", failed), 1);
    must_have(th_out(), "failed: the GPU cannot be used (");
    free(failed);
}

/* Two Nanos of one host name (cloned image) with their own machine-ids: two rows in compare,
 * two series in history. The tool writes the machine-id of TB_ROOT's /etc/machine-id. */
static void test_two_hosts_of_one_name(void **state)
{
    const char *dir = th_scratch();
    char paths[2][PATH_MAX];
    const char *ids[2] = { "11111111111111111111111111111111", "22222222222222222222222222222222" };
    for (int i = 0; i < 2; i++) {
        char text[1024], name[64];
        snprintf(text, sizeof(text), "# log_format: 1\n# run_id: nano_jetson-nano_2026110%dT020000Z\n"
                 "# host: nano\n# machine_id: %s\n" FIELDS
                 "nano_jetson-nano_2026110%dT020000Z,jetson-nano,Maxwell,blocked,float,64,64,8,8,"
                 "%d.5,0.01,ok,0.5,1\n# end: complete, 1 rows\n", i + 1, ids[i], i + 1, 10 + i);
        snprintf(name, sizeof(name), "nano_jetson-nano_2026110%dT020000Z.csv", i + 1);
        char *p = th_write(dir, name, text);
        tb_strlcpy(paths[i], p, PATH_MAX);
        free(p);
    }
    assert_int_equal(th_runf("compare --format csv %s %s", paths[0], paths[1]), 0);
    must_have(th_out(), ",10.50,8,8,,0.5000,1.0000,nano,11111111111111111111111111111111,float,,");
    must_have(th_out(), ",11.50,8,8,,0.5000,1.0000,nano,22222222222222222222222222222222,float,,");
    assert_int_equal(th_runf("history %s %s", paths[0], paths[1]), 0);
    must_have(th_out(), "jetson-nano (Maxwell) on nano (11111111), blocked, 64x64 float\n");
    must_have(th_out(), "jetson-nano (Maxwell) on nano (22222222), blocked, 64x64 float\n");
    /* the tool's own log carries the machine-id of its root */
    const char *root = th_scratch();
    free(th_write(root, "etc/machine-id", "0123456789abcdef0123456789abcdef\n"));
    setenv("TB_ROOT", root, 1);
    setenv("TB_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
    char *log = th_run_log("run --quiet --device cpu -b boards/generic.cfg --sizes 16x16 "
                           "--kernels copy_row --set power.source=none -o %s", 0, true, NULL, NULL);
    must_have(log, "\n# host: ");
    must_have(log, "\n# machine_id: 0123456789abcdef0123456789abcdef\n");
    for (char *l = strtok(log, "\n"); l; l = strtok(NULL, "\n")) {   /* every key listed */
        char key[64];
        if (sscanf(l, "# %63[^:]:", key) == 1 && !tb_meta_known(key))
            th_fail("the log's key '%s' is not in src/log/log_meta.h", key);
    }
    free(log);
}

/* Two GPUs of one model in one host (their device_id lines) are two series in history, the
 * one GPU's 30% drop not hidden in the other's; a Jetson's run logs its module's serial
 * number from the device tree (under TB_ROOT) as its device_id. */
static void test_two_gpus_of_one_host(void **state)
{
    const char *dir = th_scratch();
    char paths[4][PATH_MAX];
    const char *ids[2] = { "GPU-aaaa", "GPU-bbbb" };
    for (int i = 0; i < 4; i++) {
        char text[1024], name[64];
        snprintf(text, sizeof(text), "# log_format: 1\n# run_id: lab_h200_2026110%dT020000Z\n"
                 "# host: lab\n# device_id: %s\n" FIELDS
                 "lab_h200_2026110%dT020000Z,h200,NVIDIA H200,blocked,float,64,64,8,8,"
                 "%d.5,0.01,ok,0.5,1\n# end: complete, 1 rows\n", i + 1, ids[i % 2], i + 1,
                 i == 3 ? 70 : 100);
        snprintf(name, sizeof(name), "lab_h200_2026110%dT020000Z.csv", i + 1);
        char *p = th_write(dir, name, text);
        tb_strlcpy(paths[i], p, PATH_MAX);
        free(p);
    }
    assert_int_equal(th_runf("history %s %s %s %s", paths[0], paths[1], paths[2], paths[3]), 0);
    must_have(th_out(), "h200 (NVIDIA H200 GPU-aaaa) on lab, blocked, 64x64 float\n");
    must_have(th_out(), "h200 (NVIDIA H200 GPU-bbbb) on lab, blocked, 64x64 float\n");
    const char *root = th_scratch();
    free(th_write(root, "proc/device-tree/serial-number", "1423019023456"));
    setenv("TB_ROOT", root, 1);
    setenv("TB_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
    char *log = th_run_log("run --quiet --device cpu -b boards/generic.cfg --sizes 16x16 "
                           "--kernels copy_row --set power.source=none -o %s", 0, true, NULL, NULL);
    must_have(log, "\n# device_id: serial-1423019023456\n");
    free(log);
    unsetenv("TB_ROOT");
}

/* doc/nightly.md's gate: yesterday had a manual run (slow: another load) and the cron run.
 * Given as a quoted pattern, both are the baseline and the best of each point counts: no
 * false regression; today's manual run beside today's cron run is no regression either. */
static void test_baseline_night_with_two_logs(void **state)
{
    const char *dir = th_scratch();
    const char *nights[4] = { "20261101T020000Z", "20261101T150000Z", "20261102T020000Z",
                              "20261102T150000Z" };
    const double gbps[4] = { 100, 60, 99.5, 70 };
    for (int i = 0; i < 4; i++) {
        char text[1024], name[96];
        snprintf(text, sizeof(text), "# log_format: 1\n" FIELDS
                 "o_orin_%s,orin,Orin,blocked,float,4096,4096,32,8,%.1f,0.002,ok,0.9,1\n"
                 "# end: complete, 1 rows\n", nights[i], gbps[i]);
        snprintf(name, sizeof(name), "o_orin_%s.csv.gz", nights[i]);
        free(th_write(dir, name, text));
    }
    assert_int_equal(th_runf("compare %s/o_orin_20261102T*.csv.gz --baseline "
                             "'%s/o_orin_20261101T*.csv.gz'", dir, dir), 0);
    must_have(th_out(), "1 points compared, 0 regressed beyond 5.0%");
    must_lack(th_out(), "REGRESSION");
    /* and a real slowdown is still caught */
    assert_int_equal(th_runf("compare %s/o_orin_20261102T150000Z.csv.gz --baseline "
                             "'%s/o_orin_20261101T*.csv.gz'", dir, dir), 1);
    must_have(th_out(), "slower    REGRESSION");
}

/* python3 -c script with stdin from a file holding text (in a scratch folder of the test):
 * whether it exits 0. */
static bool python_ok(const char *text, const char *script)
{
    char *in = th_keep(th_write(th_scratch(), "in.json", text)), cmd[4096];
    snprintf(cmd, sizeof(cmd), "python3 -c \"%s\" < '%s'", script, in);
    return system(cmd) == 0;
}

/* --format json of compare (best and baseline) and history, read by python3's json module;
 * json to a full disk is exit 1 (the one run here not through the fixture: its stdout is
 * /dev/full, which is the point). */
static void test_json_outputs(void **state)
{
    if (system("python3 -c 'import json' 2>/dev/null") != 0)
        skip();
    const char *dir = th_scratch();
    char logs[3][PATH_MAX], cmd[6 * PATH_MAX], script[1024];
    extreme_logs(dir, logs);
    const char *checks[3][2] = {
        /* k2's 5e-324 GB/s is impossible (below 1 MB/s, #40): k5 alone */
        { "compare --format json %s %s %s", "d['schema'] == 'transpose-bench/compare/2' and "
          "[r['kernel'] for r in d['best']] == ['k5'] and d['best'][0]['gbps'] == 12.5" },
        { "compare --format json %s %s --baseline %s", "[r['verdict'] for r in d['baseline']] "
          "== ['same'] and d['baseline'][0]['base_gbps'] == 12.5" },
        { "history --format json %s %s %s", "d['schema'] == 'transpose-bench/history/2' and "
          "len(d['nights']) == 3 and d['nights'][0]['night'] == '2026-11-01' and "
          "d['nights'][0]['gbps'] == 12.5" },
    };
    for (int i = 0; i < 3; i++) {
        th_runf(checks[i][0], logs[0], logs[1], logs[2]);
        snprintf(script, sizeof(script), "import json,sys\n"
                 "d = json.load(sys.stdin, parse_constant=lambda c: sys.exit('constant ' + c))\n"
                 "sys.exit(0 if %s else 'unexpected: %%s' %% d)", checks[i][1]);
        if (!python_ok(th_out(), script))
            th_fail("%s: not the JSON expected", checks[i][0]);
    }
    snprintf(cmd, sizeof(cmd), "%s compare --format json %s > /dev/full 2>/dev/null", bin,
             logs[0]);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
}

/* power --format json over a fake INA3221 tree, read by python3; CSV keeps its header. */
static void test_power_json(void **state)
{
    if (system("python3 -c 'import json' 2>/dev/null") != 0)
        skip();
    const char *dir = th_scratch();
    char text[1024];
    assert_true(th_build_sysfs(dir, "ina3221/nano.txt", 0) > 0);
    snprintf(text, sizeof(text), "board = { name = \"nano\"; };\npower = { source = \"ina3221\"; "
             "interval_ms = 100; sysfs_root = \"%s\"; };\n", dir);
    char *board = th_write(dir, "board.cfg", text);
    th_use_fake_clock();   /* --seconds on the fake clock: no real sleep */
    th_runf("power -b %s --seconds 0.5 --format json", board);
    if (!python_ok(th_out(), "import json,sys\nd = json.load(sys.stdin)\nr = d['readings']\n"
                   "ok = d['schema'] == 'transpose-bench/power/2' and len(r) >= 3 and "
                   "{'elapsed_s', 'source', 'rail', 'power_mw'} == set(r[0]) and "
                   "any(x['rail'] == 'POM_5V_IN' and x['power_mw'] == 1022 for x in r)\n"
                   "sys.exit(0 if ok else 'unexpected: %s' % d)"))
        th_fail("power --format json: not the JSON expected");
    assert_int_equal(th_runf("power -b %s --seconds 0.3 --format csv", board), 0);
    assert_true(!strncmp(th_out(), "elapsed_s,source,rail,power_mw\n", 31));
    free(board);
}

/* The run's summary to a full disk: exit 1, said, and the log still whole (a system() of
 * its own: stdout to /dev/full is the point, and the fixture captures stdout). */
static void test_run_summary_to_a_full_disk(void **state)
{
    const char *dir = th_scratch();
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof(cmd), "%s run --device cpu -b boards/generic.cfg --sizes 16x16 "
             "--kernels copy_row --set power.source=none -o %s > /dev/full 2>%s/err", bin, dir,
             dir);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    char errp[PATH_MAX + 8];
    snprintf(errp, sizeof(errp), "%s/err", dir);
    char *err = th_read_gz(errp);
    must_have(err, "cannot write the summary: No space left on device");
    free(err);
    char *log = th_find_one(dir, ".csv.gz");
    assert_non_null(log);
    char *text = th_read_gz(log);
    must_have(text, "# end: complete, 1 rows");
    free(text);
    free(log);
}

/* doc/log-format.md's JSON tables name every column the JSON has (#40: compare's best lacked
 * five): each table's row there is checked against what the commands print. */
static void test_json_tables_documented(void **state)
{
    if (system("python3 -c 'import json' 2>/dev/null") != 0)
        skip();
    const char *dir = th_scratch();
    char logs[3][PATH_MAX], script[1024];
    extreme_logs(dir, logs);
    const char *cmds[] = { "compare --format json %s %s %s",
                           "compare --format json %s %s --baseline %s",
                           "history --format json %s %s %s" };
    for (int i = 0; i < 3; i++) {
        th_runf(cmds[i], logs[0], logs[1], logs[2]);
        snprintf(script, sizeof(script), "import json,sys\n"
                 "d = json.load(sys.stdin)\n"
                 "doc = open('doc/log-format.md').read().splitlines()\n"
                 "bad = []\n"
                 "for t, rows in d.items():\n"
                 "    if t == 'schema' or not rows: continue\n"
                 "    q = lambda w: chr(96) + w + chr(96)\n"   /* no backquote in sh's quotes */
                 "    line = [l for l in doc if l.startswith('| ' + chr(96)) and "
                 "'| ' + q(t) + ' |' in l]\n"
                 "    bad += [t + '.' + k for k in rows[0] if not line or q(k) not in line[0]]\n"
                 "sys.exit('undocumented: %%s' %% bad if bad else 0)");
        if (!python_ok(th_out(), script))
            th_fail("%s: a JSON column missing from doc/log-format.md", cmds[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_page_writers_bounded),
        TH_TEST(test_extreme_numbers_through_the_pages),
        TH_TEST(test_no_output_over_a_log),
        TH_TEST(test_page_never_through_a_link),
        TH_TEST(test_plot_extreme_and_through_no_link),
        TH_TEST(test_fifo_and_dev_zero_as_logs),
        TH_TEST(test_failed_night_among_good_ones),
        TH_TEST(test_two_hosts_of_one_name),
        TH_TEST(test_two_gpus_of_one_host),
        TH_TEST(test_baseline_night_with_two_logs),
        TH_TEST(test_json_outputs),
        TH_TEST(test_json_tables_documented),
        TH_TEST(test_run_summary_to_a_full_disk),
        TH_TEST(test_power_json),
        TH_TEST(test_ticks_one_night_and_scatter),
        TH_TEST(test_energy_on_the_page),
    };
    return cmocka_run_group_tests_name("report", tests, setup, NULL);
}
