/* test_imagesdiff.c: the kernel images a log says it ran (its "# kernel_images:" line), read
 * from plain and gzip logs and never from past the CSV header; compare's two sides and
 * history's nights of one board said to differ exactly when their images differ; a link or a
 * FIFO in place of a log refused without blocking. */
#include "helpers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "log/imagesdiff.h"

#define NANO19 "PTX sm_53 ISA 6.5 (clang 19.1.7)"
#define NANO14 "PTX sm_53 ISA 6.5 (clang 14.0.6)"

/* A log's text: its metadata, the CSV header, one row. */
static char *log_text(const char *host, const char *board, const char *started, const char *images)
{
    char *t = NULL;
    if (asprintf(&t, "# transpose-bench: 0.1.0 (git x)\n# run_id: %s_%s_x\n# started_utc: %s\n"
                 "# host: %s\n# machine_id: 0123\n# board: %s, peak 25.6 GB/s\n%s%s%s"
                 "run_id,kernel,gbps\n# kernel_images: after the header\nr,k,1.0\n",
                 host, board, started, host, board, images ? "# kernel_images: " : "",
                 images ? images : "", images ? "\n" : "") < 0)
        fail();
    return t;
}

static char *write_log(const char *dir, const char *name, const char *text, bool gzip)
{
    if (!gzip)
        return th_write(dir, name, text);
    char *p = NULL;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        fail();
    gzFile g = gzopen(p, "wb");
    assert_non_null(g);
    assert_int_equal(gzputs(g, text), (int)strlen(text));
    gzclose(g);
    return p;
}

static void test_read(void **state)
{
    char *d = th_tmpdir();
    char *t = log_text("nano1", "jetson-nano", "2026-11-20T02:30:00Z", NANO19);
    char *plain = write_log(d, "a.csv", t, false), *gz = write_log(d, "a.csv.gz", t, true);
    struct tb_log_images li;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tb_log_images_read(i ? gz : plain, &li), 0);
        assert_string_equal(li.images, NANO19);   /* not the line after the header */
        assert_string_equal(li.started, "2026-11-20T02:30:00Z");
        assert_string_equal(li.who, "nano1 0123 jetson-nano");
    }
    char link[512];
    snprintf(link, sizeof(link), "%s/link.csv.gz", d);
    assert_int_equal(symlink(gz, link), 0);
    assert_int_equal(tb_log_images_read(link, &li), -ELOOP);
    char fifo[512];
    snprintf(fifo, sizeof(fifo), "%s/fifo.csv.gz", d);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(tb_log_images_read(fifo, &li), -EINVAL);   /* returns: no writer awaited */
    free(t); free(plain); free(gz);
    th_rmtree(d);
    free(d);
}

static void test_sides(void **state)
{
    char *d = th_tmpdir();
    char *t19a = log_text("nano1", "jetson-nano", "2026-11-20T02:30:00Z", NANO19);
    char *t19b = log_text("nano1", "jetson-nano", "2026-11-21T02:30:00Z", NANO19);
    char *t14 = log_text("nano1", "jetson-nano", "2026-11-22T02:30:00Z", NANO14);
    char *tnone = log_text("nano1", "jetson-nano", "2026-11-19T02:30:00Z", NULL);
    char *a = write_log(d, "a.csv.gz", t19a, true), *b = write_log(d, "b.csv", t19b, false);
    char *c = write_log(d, "c.csv.gz", t14, true), *n = write_log(d, "n.csv", tnone, false);
    char *now[] = { c }, *base[] = { a, b }, *same[] = { b }, *old[] = { n };

    th_stderr_begin();
    assert_int_equal(tb_images_note_sides("compare", now, 1, base, 2), 1);
    char *err = th_stderr_end();
    assert_non_null(strstr(err, "compare: the logs and the baseline ran different kernel images "
                                "(logs: " NANO14 "; baseline: " NANO19 ")"));
    free(err);
    th_stderr_begin();
    assert_int_equal(tb_images_note_sides("compare", same, 1, base, 2), 0);
    assert_int_equal(tb_images_note_sides("compare", now, 1, old, 1), 0);   /* unknown: unsaid */
    err = th_stderr_end();
    assert_string_equal(err, "");
    free(err);
    free(t19a); free(t19b); free(t14); free(tnone); free(a); free(b); free(c); free(n);
    th_rmtree(d);
    free(d);
}

static void test_nights(void **state)
{
    char *d = th_tmpdir();
    /* nano1: 20th and 21st clang 19, 22nd clang 14, 23rd clang 14 (given out of order);
     * orin1 carries other images all along: another board, no change */
    const char *spec[][3] = {
        { "nano1", "2026-11-22T02:30:00Z", NANO14 }, { "nano1", "2026-11-20T02:30:00Z", NANO19 },
        { "orin1", "2026-11-20T02:30:00Z", "PTX sm_87 ISA 7.4 (clang 19.1.7)" },
        { "nano1", "2026-11-23T02:30:00Z", NANO14 }, { "nano1", "2026-11-21T02:30:00Z", NANO19 },
        { "orin1", "2026-11-21T02:30:00Z", "PTX sm_87 ISA 7.4 (clang 19.1.7)" },
    };
    char *paths[6];
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof(name), "l%d.csv.gz", i);
        char *t = log_text(spec[i][0], spec[i][0][0] == 'n' ? "jetson-nano" : "jetson-agx-orin",
                           spec[i][1], spec[i][2]);
        paths[i] = write_log(d, name, t, true);
        free(t);
    }
    th_stderr_begin();
    assert_int_equal(tb_images_note_nights("history", paths, 6), 1);
    char *err = th_stderr_end();
    assert_non_null(strstr(err, "history: nano1 0123 jetson-nano: the kernel images changed on "
                                "the night of 2026-11-22T02:30:00Z (before: " NANO19 "; from then: "
                                NANO14 ")"));
    assert_null(strstr(err, "orin1"));
    free(err);
    th_stderr_begin();
    assert_int_equal(tb_images_note_nights("history", paths + 4, 2), 0);   /* one image each */
    free(th_stderr_end());
    for (int i = 0; i < 6; i++)
        free(paths[i]);
    th_rmtree(d);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_sides),
        cmocka_unit_test(test_nights),
    };
    return cmocka_run_group_tests_name("imagesdiff", tests, NULL, NULL);
}
