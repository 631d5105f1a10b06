/* test_csvlog.c: the log writer: gzip round trip, empty cells for missing readings,
 * quoting, the temporary name until close, rows readable from an unfinished log. */
#include "helpers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csvlog.h"
#include "util.h"

static void fill(struct tb_row *r, const char *kernel, double gbps)
{
    tb_row_init(r);
    r->run_id = "h_b_20260101T000000Z";
    r->kernel = kernel;
    r->rows = 8191;
    r->cols = 12289;
    r->gbps = gbps;
    r->note = "a, \"quoted\" # note";
    r->status = "ok";
}

static void test_roundtrip(void **state)
{
    char *dir = th_tmpdir();
    struct tb_csvlog *l;
    assert_int_equal(tb_csvlog_open(&l, dir, "x.csv.gz", 6), 0);
    char tmp[4096], final[4096];
    tb_strlcpy(tmp, tb_csvlog_tmp_path(l), sizeof(tmp));
    tb_strlcpy(final, tb_csvlog_path(l), sizeof(final));
    assert_int_equal(tb_csvlog_meta(l, "host", "%s", "vm"), 0);
    assert_int_equal(tb_csvlog_header(l), 0);
    struct tb_row r;
    fill(&r, "smem_pad", 2712.5);
    assert_int_equal(tb_csvlog_row(l, &r), 0);
    fill(&r, "naive_row", NAN);
    assert_int_equal(tb_csvlog_row(l, &r), 0);
    /* before close: only the temporary name, and its rows already readable */
    assert_int_equal(access(final, F_OK), -1);
    char *partial = th_read_gz(tmp);
    assert_non_null(partial);
    assert_non_null(strstr(partial, "naive_row"));
    free(partial);
    assert_int_equal(tb_csvlog_close(l, "complete"), 0);
    assert_int_equal(access(tmp, F_OK), -1);
    char *text = th_read_gz(final);
    assert_non_null(text);
    assert_true(!strncmp(text, "# host: vm\nrun_id,utc,", 22));
    const char *header = strchr(text, '\n') + 1;
    const char *row1 = strchr(header, '\n') + 1, *row2 = strchr(row1, '\n') + 1;
    char v[256];
    assert_int_equal(th_field(header, row1, "gbps", v, sizeof(v)), 0);
    assert_string_equal(v, "2712.50");
    assert_int_equal(th_field(header, row1, "rows", v, sizeof(v)), 0);
    assert_string_equal(v, "8191");
    assert_int_equal(th_field(header, row2, "gbps", v, sizeof(v)), 0);
    assert_string_equal(v, "");                       /* no reading: empty, not zero */
    assert_int_equal(th_field(header, row2, "power_total_w", v, sizeof(v)), 0);
    assert_string_equal(v, "");
    assert_int_equal(th_field(header, row1, "note", v, sizeof(v)), 0);
    assert_string_equal(v, "a, quoted % note");       /* quotes kept by CSV, '#' replaced */
    assert_non_null(strstr(text, "\"a, \"\"quoted\"\" % note\""));
    assert_non_null(strstr(text, "# end: complete, 2 rows\n"));
    free(text);
    th_rmtree(dir);
    free(dir);
}

static void test_header_matches_table(void **state)
{
    char buf[8192];
    tb_header_format(buf, sizeof(buf));
    size_t commas = 0;
    for (char *p = buf; *p; p++)
        commas += *p == ',';
    assert_int_equal(commas + 1, tb_n_columns);
    const char *core[] = { "run_id", "utc", "host", "board", "device", "backend", "kernel",
                           "rows", "cols", "block_x", "block_y", "grid_x", "grid_y", "reps",
                           "time_ms_median", "time_ms_min", "time_ms_max", "time_ms_mean",
                           "time_ms_stddev", "gbps", "frac_peak", "frac_copy", "verified",
                           "status" };
    for (size_t i = 0; i < sizeof(core) / sizeof(*core); i++) {
        char pat[64];
        snprintf(pat, sizeof(pat), ",%s,", core[i]);
        char wrapped[8300];
        snprintf(wrapped, sizeof(wrapped), ",%s,", buf);
        assert_non_null(strstr(wrapped, pat));
    }
}

static void test_doc_lists_every_column(void **state)
{
    FILE *f = fopen("doc/log-format.md", "r");
    assert_non_null(f);
    static char doc[1 << 16];
    size_t n = fread(doc, 1, sizeof(doc) - 1, f);
    doc[n] = '\0';
    fclose(f);
    for (size_t i = 0; i < tb_n_columns; i++) {
        char pat[64];
        snprintf(pat, sizeof(pat), "`%s`", tb_columns[i].name);
        if (!strstr(doc, pat))
            th_fail("doc/log-format.md does not list column %s", tb_columns[i].name);
    }
}

static void test_existing_name_not_clobbered(void **state)
{
    char *dir = th_tmpdir();
    free(th_write(dir, ".x.csv.gz.part", "someone else's\n"));
    struct tb_csvlog *l;
    assert_true(tb_csvlog_open(&l, dir, "x.csv.gz", 6) < 0);     /* O_EXCL */
    char p[4096];
    snprintf(p, sizeof(p), "%s/.x.csv.gz.part", dir);
    char *text = th_read_gz(p);
    assert_string_equal(text, "someone else's\n");
    free(text);
    th_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_header_matches_table),
        cmocka_unit_test(test_doc_lists_every_column),
        cmocka_unit_test(test_existing_name_not_clobbered),
    };
    return cmocka_run_group_tests_name("csvlog", tests, NULL, NULL);
}
