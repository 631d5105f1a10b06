/* test_logread.c: the log reader fed hostile logs: a bit flip in the gzip trailer, a cut
 * gzip, a FIFO and /dev/zero as a log, a gzip bomb past the row caps, a byte bound, a
 * failed night's log with and without its header, Windows line ends, a huge format number,
 * forged logs. What it reads out of the rows: test_logread_fields.c. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "log/csvlog.h"
#include "log/log_meta.h"
#include "log/logread.h"

#define HEAD "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps," \
             "rel_sem,status,frac_peak,frac_copy,gbps_per_w\n"

static void must_have(const char *text, const char *want)
{
    if (!text || !strstr(text, want))
        th_fail("missing '%s' in:\n%.3000s", want, text ? text : "(null)");
}

/* A log of n rows "k<i>" at 64x64, gzipped into path (level 9: a bomb is small). */
static void write_gz(const char *path, const char *head, long n, const char *tail)
{
    gzFile g = gzopen(path, "wb9");
    assert_non_null(g);
    gzputs(g, head);
    for (long i = 0; i < n; i++)
        gzprintf(g, "h_b_20261101T020000Z,b,d,k%ld,float,64,64,8,8,12.5,0.01,ok,0.5,0.5,1\n",
                 i % 7);
    gzputs(g, tail);
    assert_int_equal(gzclose(g), Z_OK);
}

static long file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (long)st.st_size;
}

/* Reads path into a fresh set; stderr into *said. Returns tb_logread's result. */
static int read_one(struct tb_logset *s, const char *path, char **said)
{
    tb_logset_init(s, "compare");
    th_stderr_begin();
    int rc = tb_logread(s, path);
    *said = th_stderr_end();
    return rc;
}

/* zlib's gzgets dropped the whole chunk it was inflating when the trailer's CRC was wrong:
 * every row of a small log. Each row read before the damage stays. */
static void test_bit_flip_in_the_trailer_keeps_the_rows(void **state)
{
    char *dir = th_tmpdir(), path[PATH_MAX], *said;
    snprintf(path, sizeof(path), "%s/flip.csv.gz", dir);
    write_gz(path, HEAD, 3, "# end: complete, 3 rows\n");
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, -6, SEEK_END), 0);   /* inside the CRC-32 of the trailer */
    int ch = fgetc(f);
    assert_int_equal(fseek(f, -6, SEEK_END), 0);
    fputc(ch ^ 0x10, f);
    fclose(f);
    struct tb_logset s;
    assert_int_equal(read_one(&s, path, &said), 3);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.problems, 1);
    must_have(said, "flip.csv.gz: unreadable after line 6 (damaged gzip data: ");
    must_have(said, "using the 3 rows before it");
    assert_string_equal(s.logs[0].end, "complete, 3 rows");
    free(said);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

static void test_cut_gzip_keeps_the_rows_before_the_cut(void **state)
{
    char *dir = th_tmpdir(), path[PATH_MAX], *said;
    snprintf(path, sizeof(path), "%s/cut.csv.gz", dir);
    write_gz(path, HEAD, 200, "# end: complete, 200 rows\n");
    assert_int_equal(truncate(path, file_size(path) - 30), 0);
    struct tb_logset s;
    int rc = read_one(&s, path, &said);
    assert_true(rc > 100 && rc < 200);   /* what came before the cut, no more */
    assert_int_equal(s.problems, 1);
    must_have(said, "cut.csv.gz: unreadable after line ");
    must_have(said, "the gzip stream is cut short");
    free(said);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

/* Line numbers past a run of empty lines and past the longest lines, plain and gzipped (the
 * bytes come in 16 kB reads, or 64 kB inflated, so the runs and the long lines cross them):
 * a line of 65,535 bytes is read (a row of one field, said at its own line), one of 65,536
 * is skipped and said, and the rows before and after are kept. */
static void test_line_numbers_past_blank_and_long_lines(void **state)
{
    const long blanks = 100003;
    size_t cap = 400000, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)sprintf(text + n, "%sh_b_20261101T020000Z,b,d,k,float,64,64,8,8,12.5,0.01,ok,"
                         "0.5,0.5,1\n", HEAD);                        /* lines 1-3 */
    memset(text + n, '\n', (size_t)blanks);                           /* 4 .. 100006 */
    n += (size_t)blanks;
    memset(text + n, 'x', 65536);                                      /* 100007: skipped */
    n += 65536;
    text[n++] = '\n';
    memset(text + n, 'y', 65535);                                      /* 100008: read */
    n += 65535;
    n += (size_t)sprintf(text + n, "\n\r\nh_b_20261101T020000Z,b,d,k2,float,64,64,8,8,12.5,0.01,"
                         "ok,0.5,0.5,1\n");                            /* 100009, 100010 */
    char *dir = th_tmpdir();
    for (int gz = 0; gz <= 1; gz++) {
        char path[PATH_MAX], *said;
        snprintf(path, sizeof(path), "%s/lines%d.csv%s", dir, gz, gz ? ".gz" : "");
        if (gz) {
            gzFile g = gzopen(path, "wb1");
            assert_non_null(g);
            assert_int_equal(gzwrite(g, text, (unsigned)n), (int)n);
            assert_int_equal(gzclose(g), Z_OK);
        } else {
            FILE *f = fopen(path, "wb");
            assert_non_null(f);
            assert_int_equal(fwrite(text, 1, n, f), n);
            assert_int_equal(fclose(f), 0);
        }
        struct tb_logset s;
        assert_int_equal(read_one(&s, path, &said), 2);
        assert_string_equal(s.v[1].kernel, "k2");
        char want[120];
        snprintf(want, sizeof(want), "lines%d.csv%s:100007: line longer than 65536 bytes; "
                 "skipped", gz, gz ? ".gz" : "");
        must_have(said, want);
        snprintf(want, sizeof(want), ":100008: 1 fields where the header has 15");
        must_have(said, want);
        assert_int_equal(s.problems, 2);
        free(said);
        tb_logset_free(&s);
    }
    free(text);
    th_rmtree(dir);
    free(dir);
}

/* A FIFO with no writer, /dev/zero and a directory as logs: refused at once (the alarm kills
 * the test if a read blocks or never ends). */
static void test_fifo_device_and_directory_are_no_logs(void **state)
{
    char *dir = th_tmpdir(), fifo[PATH_MAX], *said;
    snprintf(fifo, sizeof(fifo), "%s/night.csv.gz", dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    alarm(20);
    struct tb_logset s;
    assert_int_equal(read_one(&s, fifo, &said), -EINVAL);
    must_have(said, "night.csv.gz' is not a regular file (a FIFO): not a log");
    assert_int_equal(s.problems, 1);
    free(said);
    tb_logset_free(&s);
    assert_int_equal(read_one(&s, "/dev/zero", &said), -EINVAL);
    must_have(said, "'/dev/zero' is not a regular file (a device)");
    free(said);
    tb_logset_free(&s);
    assert_int_equal(read_one(&s, dir, &said), -EISDIR);
    must_have(said, "is not a regular file (a directory)");
    free(said);
    tb_logset_free(&s);
    assert_int_equal(read_one(&s, "/nonexistent/x.csv.gz", &said), -ENOENT);
    must_have(said, "cannot open '/nonexistent/x.csv.gz': No such file or directory");
    free(said);
    tb_logset_free(&s);
    alarm(0);
    th_rmtree(dir);
    free(dir);
}

/* A gzip bomb of valid rows (about 40 bytes each uncompressed, a few compressed): the
 * default cap stops it with a message naming the file and the line, and keeps exactly the
 * rows up to the cap, never a silent drop. */
static void test_gzip_bomb_stops_at_the_cap(void **state)
{
    char *dir = th_tmpdir(), path[PATH_MAX], *said;
    snprintf(path, sizeof(path), "%s/bomb.csv.gz", dir);
    write_gz(path, HEAD, TB_LOGREAD_MAX_ROWS_PER_LOG + 5000, "");
    assert_true(file_size(path) < 2000000);
    struct tb_logset s;
    assert_int_equal(read_one(&s, path, &said), TB_LOGREAD_MAX_ROWS_PER_LOG);
    assert_int_equal(s.n, TB_LOGREAD_MAX_ROWS_PER_LOG);
    char want[200];
    snprintf(want, sizeof(want), "bomb.csv.gz:%d: more than %d rows in one log; the rows from "
             "here on are not read", TB_LOGREAD_MAX_ROWS_PER_LOG + 3, TB_LOGREAD_MAX_ROWS_PER_LOG);
    must_have(said, want);
    assert_int_equal(s.problems, 1);
    free(said);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

/* The bound on all logs together, and the one on uncompressed bytes. */
static void test_total_and_byte_caps(void **state)
{
    char *dir = th_tmpdir(), a[PATH_MAX], b[PATH_MAX];
    snprintf(a, sizeof(a), "%s/a.csv.gz", dir);
    snprintf(b, sizeof(b), "%s/b.csv.gz", dir);
    write_gz(a, HEAD, 5, "# end: complete, 5 rows\n");
    write_gz(b, HEAD, 5, "# end: complete, 5 rows\n");
    struct tb_logset s;
    tb_logset_init(&s, "history");
    s.max_rows = 7;
    th_stderr_begin();
    assert_int_equal(tb_logread(&s, a), 5);
    assert_int_equal(tb_logread(&s, b), 2);
    char *said = th_stderr_end();
    must_have(said, "history: ");
    must_have(said, "b.csv.gz:5: more than 7 rows in all logs");
    assert_int_equal(s.n, 7);
    free(said);
    tb_logset_free(&s);
    tb_logset_init(&s, "compare");
    s.max_bytes_per_log = 300;
    th_stderr_begin();
    int rc = tb_logread(&s, a);
    said = th_stderr_end();
    assert_int_equal(rc, 2);   /* the rows whole within the bound */
    must_have(said, "a.csv.gz:4: more than 300 bytes uncompressed; the rest is not read");
    free(said);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

/* A failed night's log, as the tool writes it now (with its header) and as it wrote it
 * before (no header): a log, failed, with its reason, and no problem. */
static void test_failed_night_is_a_log(void **state)
{
    static const char *const texts[2] = {
        "# transpose-bench: 0.1.0\n# log_format: 1\n# run_id: nano1_jetson-nano_20261102T020000Z\n"
        "# host: nano1\n# machine_id: 0123456789abcdef0123456789abcdef\n"
        "# board: jetson-nano, peak 25.6 GB/s, has a GPU\n# backend: none\n# gpu: unusable: x\n"
        "run_id,utc,host,board,kernel,rows,cols,gbps\n"
        "# end: failed: the GPU cannot be used (cuInit: no device), 0 rows\n",
        "# transpose-bench: 0.1.0\n# log_format: 1\n# run_id: nano1_jetson-nano_20261102T020000Z\n"
        "# host: nano1\n# board: jetson-nano, peak 25.6 GB/s, has a GPU\n# backend: none\n"
        "# end: failed: the GPU cannot be used (cuInit: no device), 0 rows\n",
    };
    char *dir = th_tmpdir(), *said;
    for (int i = 0; i < 2; i++) {
        char *path = th_write(dir, i ? "old.csv" : "new.csv", texts[i]);
        struct tb_logset s;
        assert_int_equal(read_one(&s, path, &said), 0);
        assert_int_equal(s.problems, 0);
        assert_string_equal(said, "");
        assert_int_equal(s.nlogs, 1);
        const struct tb_log_info *l = &s.logs[0];
        assert_true(l->readable && l->failed);
        assert_string_equal(l->night, "2026-11-02");
        assert_string_equal(l->host, "nano1");
        assert_string_equal(l->board, "jetson-nano");
        assert_string_equal(l->host_id, i ? "" : "0123456789abcdef0123456789abcdef");
        assert_string_equal(l->end, "failed: the GPU cannot be used (cuInit: no device), 0 rows");
        free(said);
        free(path);
        tb_logset_free(&s);
    }
    th_rmtree(dir);
    free(dir);
}

/* A run killed while its power source started, recovered: metadata and an end line, no header.
 * A log of no rows, not an error; a file of the same shape without its run id is no log. */
static void test_headerless_recovered_log(void **state)
{
    char *dir = th_tmpdir(), *said;
    char *path = th_write(dir, "r.csv", "# transpose-bench: 0.1.0\n# log_format: 1\n"
                          "# run_id: orin_jetson-orin-nano_20261103T020000Z\n# host: orin\n"
                          "# end: recovered, the run (pid 42) died before closing its log, 0 rows\n");
    struct tb_logset s;
    assert_int_equal(read_one(&s, path, &said), 0);
    assert_int_equal(s.problems, 0);
    assert_true(s.logs[0].readable && !s.logs[0].failed);
    free(said);
    free(path);
    tb_logset_free(&s);
    path = th_write(dir, "n.csv", "# just a comment\n# end: complete\n");
    assert_int_equal(read_one(&s, path, &said), -EINVAL);
    assert_int_equal(s.problems, 1);
    must_have(said, "n.csv: not a transpose-bench log (no header line)");
    free(said);
    free(path);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

/* Logs saved by a Windows editor: a UTF-8 byte-order mark, CRLF line ends, both, gzipped
 * or not, read as the same log (a BOM was "not a transpose-bench log"); a board name with a
 * comma keeps it in the failed night's identity. */
static void test_windows_logs_and_board_commas(void **state)
{
    char *dir = th_tmpdir();
    static const char *const starts[] = { "", "\xef\xbb\xbf" };
    for (int bom = 0; bom < 2; bom++)
        for (int crlf = 0; crlf < 2; crlf++)
            for (int gz = 0; gz < 2; gz++) {
                char text[1024], conv[2048], path[PATH_MAX];
                snprintf(text, sizeof(text), "%s# run_id: h_lab, nano_20261101T020000Z\n"
                         "# board: lab, nano, peak 25.6 GB/s, has a GPU\n" HEAD,
                         starts[bom]);
                strcat(text, "h_b_20261101T020000Z,b,d,k1,float,64,64,8,8,12.5,0.01,ok,0.5,0.5,1\n"
                             "# end: complete, 1 rows\n");
                size_t w = 0;
                for (const char *p = text; *p; p++) {
                    if (*p == '\n' && crlf)
                        conv[w++] = '\r';
                    conv[w++] = *p;
                }
                conv[w] = '\0';
                snprintf(path, sizeof(path), "%s/w%d%d%d.csv%s", dir, bom, crlf, gz, gz ? ".gz" : "");
                if (gz) {
                    gzFile g = gzopen(path, "wb");
                    assert_non_null(g);
                    gzputs(g, conv);
                    assert_int_equal(gzclose(g), Z_OK);
                } else {
                    free(th_write(dir, strrchr(path, '/') + 1, conv));
                }
                struct tb_logset s;
                char *said;
                if (read_one(&s, path, &said) != 1)
                    th_fail("bom %d crlf %d gz %d: %s", bom, crlf, gz, said);
                assert_int_equal(s.problems, 0);
                assert_string_equal(s.v[0].kernel, "k1");
                th_assert_close(s.v[0].gbps_per_w, 1, 1e-9);
                assert_string_equal(s.logs[0].board, "lab, nano");
                assert_string_equal(s.logs[0].end, "complete, 1 rows");
                free(said);
                tb_logset_free(&s);
            }
    th_rmtree(dir);
    free(dir);
}

/* A log_format number past int (sscanf's %d overflow is undefined behaviour): read as a
 * newer format, said, its rows read by name. */
static void test_huge_log_format(void **state)
{
    char *dir = th_tmpdir();
    char *p = th_write(dir, "f.csv", "# log_format: 99999999999999999999999\n"
                       "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,"
                       "status,frac_peak,frac_copy,gbps_per_w\n"
                       "h_b_20261101T020000Z,b,d,k1,float,64,64,8,8,12.5,0.01,ok,0.5,0.5,1\n");
    struct tb_logset s;
    char *said;
    assert_int_equal(read_one(&s, p, &said), 1);
    must_have(said, "log format 1000000 is newer than this tool's 1");
    free(said);
    tb_logset_free(&s);
    free(p);
    th_rmtree(dir);
    free(dir);
}

/* Forged logs (#40): two gbps columns (the last was taken: 99,999 GB/s), a row after the end
 * line (it was used), a failed night's row (it was a best point), a row naming another
 * run's night (history dated it so). */
static void test_forged_logs(void **state)
{
    char *dir = th_tmpdir(), *said;
    struct tb_logset s;
    char *p = th_write(dir, "two.csv", "# log_format: 1\nrun_id,board,device,kernel,elem,rows,"
                       "cols,block_x,block_y,gbps,rel_sem,status,gbps\n"
                       "h_b_20261101T020000Z,b,d,k,float,64,64,8,8,10,0.01,ok,99999\n");
    assert_int_equal(read_one(&s, p, &said), -EINVAL);
    must_have(said, "two.csv:2: column 'gbps' twice (fields 10 and 13): not read");
    assert_int_equal(s.n, 0);
    free(said);
    free(p);
    tb_logset_free(&s);
    p = th_write(dir, "after.csv", HEAD "h_b_20261101T020000Z,b,d,k,float,64,64,8,8,10,0.01,ok,,,\n"
                 "# end: complete, 1 rows\n"
                 "h_b_20261101T020000Z,b,d,k,float,64,64,8,8,99,0.01,ok,,,\n");
    assert_int_equal(read_one(&s, p, &said), 1);
    must_have(said, "after.csv:5: a row after the end line: not read");
    assert_int_equal(s.problems, 1);
    th_assert_close(s.v[0].gbps, 10, 0);
    free(said);
    free(p);
    tb_logset_free(&s);
    p = th_write(dir, "failed.csv", "# run_id: h_b_20261102T020000Z\n" HEAD
                 "h_b_20261102T020000Z,b,d,k,float,64,64,8,8,10,0.01,ok,,,\n"
                 "# end: failed: the GPU cannot be used (no driver)\n");
    assert_int_equal(read_one(&s, p, &said), 1);
    must_have(said, "failed.csv: 1 row in a log that ended 'failed: the GPU cannot be used");
    assert_false(tb_log_usable(&s.v[0]));
    free(said);
    free(p);
    tb_logset_free(&s);
    p = th_write(dir, "other.csv", "# run_id: h_b_20261103T020000Z\n" HEAD
                 "h_b_20261001T020000Z,b,d,k,float,64,64,8,8,10,0.01,ok,,,\n"
                 "# end: complete, 1 rows\n");
    assert_int_equal(read_one(&s, p, &said), 1);
    must_have(said, "a row of run 'h_b_20261001T020000Z' in the log of run "
                    "'h_b_20261103T020000Z': dated by the log");
    assert_string_equal(s.v[0].night, "2026-11-03");
    assert_true(tb_log_usable(&s.v[0]));
    free(said);
    free(p);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bit_flip_in_the_trailer_keeps_the_rows),
        cmocka_unit_test(test_cut_gzip_keeps_the_rows_before_the_cut),
        cmocka_unit_test(test_line_numbers_past_blank_and_long_lines),
        cmocka_unit_test(test_fifo_device_and_directory_are_no_logs),
        cmocka_unit_test(test_gzip_bomb_stops_at_the_cap),
        cmocka_unit_test(test_total_and_byte_caps),
        cmocka_unit_test(test_failed_night_is_a_log),
        cmocka_unit_test(test_headerless_recovered_log),
        cmocka_unit_test(test_windows_logs_and_board_commas),
        cmocka_unit_test(test_huge_log_format),
        cmocka_unit_test(test_forged_logs),
    };
    return cmocka_run_group_tests_name("logread", tests, NULL, NULL);
}
