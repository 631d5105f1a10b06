/* test_table.c: the table writer fed hostile text (a board name with a comma, a quote, a
 * line break, a '|', an escape sequence, bytes that are no UTF-8) in each format: CSV read
 * back by an RFC 4180 parser, markdown cells counted, the terminal checked for control
 * bytes, JSON read by python3's json module. */
#include "helpers.h"

#include <math.h>
#include <stdint.h>

#include "table.h"

static const struct tb_table_col cols[] = {
    { .name = "board", .head = "board", .kind = 'S', .width = 12, .cut = true },
    { .name = "rows", .head = "rows", .kind = 'N', .data_only = true },
    { .name = "gbps", .head = "GB/s", .kind = 'N', .dec = 1, .width = 8, .data_dec = 2 },
    { .name = "block", .head = "block", .kind = 'S', .width = 6, .text_only = true },
    { .name = "change_pct", .head = "change", .kind = 'P', .dec = 1, .width = 7 },
};

static const char *const hostile[] = {
    "nano, \"the\" first", "a|b\\c", "line\nbreak\r", "\x1b]0;pwned\x07\x1b[2J", "c1\xc2\x9b" "x",
    "bad\xff\xfeutf8", "ok-\xc3\xa9t\xc3\xa9", "q\"uote", "",
};
#define NH (sizeof(hostile) / sizeof(*hostile))

/* The document of the hostile rows in format f (malloc'd). */
static char *render(enum tb_format f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    struct tb_doc d;
    struct tb_table t;
    tb_doc_begin(&d, out, f, "test");
    tb_table_begin(&t, &d, "points", "Points", cols, sizeof(cols) / sizeof(*cols));
    tb_table_section(&t, "64 x 64 \x1b[31mred");
    for (size_t i = 0; i < NH; i++) {
        struct tb_cell c[] = { TB_TEXT(hostile[i]), TB_NUM(64), TB_NUM(i ? 12.345 : NAN),
                               TB_TEXT("8x8"), TB_NUM(-3.25) };
        tb_table_row(&t, c);
    }
    tb_table_end(&t);
    assert_int_equal(tb_doc_end(&d), 0);
    fclose(out);
    return buf;
}

/* One RFC 4180 record from *p into fields (malloc'd, count returned); *p moves past it. */
static int csv_record(const char **p, char **fields, int max)
{
    int n = 0;
    const char *s = *p;
    for (;;) {
        char *out = malloc(strlen(s) + 1), *o = out;
        if (*s == '"') {
            for (s++;; s++) {
                if (*s == '\0')
                    th_fail("unterminated quote");
                if (*s == '"' && s[1] == '"')
                    *o++ = *s++;
                else if (*s == '"') {
                    s++;
                    break;
                } else
                    *o++ = *s;
            }
        } else {
            while (*s && *s != ',' && *s != '\n') {
                if (*s == '"' || *s == '\r')
                    th_fail("a bare quote or CR in an unquoted field: %s", *p);
                *o++ = *s++;
            }
        }
        *o = '\0';
        assert_true(n < max);
        fields[n++] = out;
        if (*s == ',') {
            s++;
            continue;
        }
        assert_true(*s == '\n');   /* a field ends at a comma or the record's end */
        *p = s + 1;
        return n;
    }
}

static void test_csv_round_trip(void **state)
{
    char *doc = render(TB_FMT_CSV);
    const char *p = doc;
    char *f[16];
    int n = csv_record(&p, f, 16);
    assert_int_equal(n, 4);   /* board,rows,gbps,change_pct: block is the tables' own */
    assert_string_equal(f[0], "board");
    assert_string_equal(f[3], "change_pct");
    for (int i = 0; i < n; i++)
        free(f[i]);
    for (size_t r = 0; r < NH; r++) {
        n = csv_record(&p, f, 16);
        assert_int_equal(n, 4);
        assert_string_equal(f[0], hostile[r]);   /* every byte back, as written */
        assert_string_equal(f[1], "64");
        assert_string_equal(f[2], r ? "12.35" : "");   /* CSV's decimals; empty: no reading */
        assert_string_equal(f[3], "-3.2");
        for (int i = 0; i < n; i++)
            free(f[i]);
    }
    assert_string_equal(p, "");   /* one table, nothing after it */
    free(doc);
}

static void test_markdown_cells(void **state)
{
    char *doc = render(TB_FMT_MARKDOWN);
    size_t rows = 0;
    for (char *line = strtok(doc, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] != '|')
            continue;
        int bars = 0;
        for (char *c = line; *c; c++) {
            if (*c == '\\' && c[1]) {
                c++;   /* an escaped '|' or '\' */
                continue;
            }
            bars += *c == '|';
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                th_fail("control byte 0x%02x in markdown: %s", (unsigned char)*c, line);
        }
        assert_int_equal(bars, 5);   /* board, GB/s, block, change: 4 cells */
        rows++;
    }
    assert_int_equal(rows, 2 + NH);   /* the heads, the rule, one line per row */
    free(doc);
    doc = render(TB_FMT_MARKDOWN);
    assert_non_null(strstr(doc, "| a\\|b\\\\c |"));
    assert_non_null(strstr(doc, "| -3.2% |"));
    free(doc);
}

static void test_terminal_has_no_control_bytes(void **state)
{
    char *doc = render(TB_FMT_TABLE);
    for (const unsigned char *c = (const unsigned char *)doc; *c; c++) {
        if (*c < 0x20 && *c != '\n')
            th_fail("control byte 0x%02x reaches the terminal:\n%s", *c, doc);
        if (*c == 0x7f || (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f))
            th_fail("DEL or a C1 control reaches the terminal:\n%s", doc);
    }
    assert_non_null(strstr(doc, "64 x 64 ?[31mred"));
    assert_non_null(strstr(doc, "ok-\xc3\xa9t\xc3\xa9"));   /* UTF-8 text stays */
    assert_non_null(strstr(doc, "   -3.2%"));
    assert_non_null(strstr(doc, "8x8"));
    free(doc);
}

/* JSON read back by python3's json module (strict: no NaN, valid UTF-8). */
static void test_json_parses(void **state)
{
    if (system("python3 -c 'import json' 2>/dev/null") != 0)
        skip();
    char *doc = render(TB_FMT_JSON);
    char *dir = th_tmpdir();
    char *path = th_write(dir, "t.json", doc);
    char cmd[4096];
    snprintf(cmd, sizeof(cmd),
             "python3 -c 'import json,sys\n"
             "d = json.loads(open(sys.argv[1], \"rb\").read().decode(\"utf-8\", \"strict\"),\n"
             "               parse_constant=lambda c: sys.exit(\"non-JSON constant \" + c))\n"
             "assert d[\"schema\"] == \"transpose-bench/test/1\", d\n"
             "p = d[\"points\"]\n"
             "assert len(p) == 9, len(p)\n"
             "assert p[0][\"board\"] == \"nano, \\\"the\\\" first\", p[0]\n"
             "assert p[0][\"gbps\"] is None and p[1][\"gbps\"] == 12.35, p[1]\n"
             "assert p[2][\"board\"] == \"line\\nbreak\\r\", p[2]\n"
             "assert p[3][\"board\"].startswith(\"\\x1b]0;pwned\"), p[3]\n"
             "assert p[5][\"board\"] == \"bad\\ufffd\\ufffdutf8\", p[5]\n"
             "assert p[8][\"board\"] is None and p[8][\"change_pct\"] == -3.2\n"
             "assert \"block\" not in p[0] and p[0][\"rows\"] == 64\n' %s", path);
    int rc = system(cmd);
    if (rc != 0)
        th_fail("python3's json module refused or misread:\n%s", doc);
    free(path);
    th_rmtree(dir);
    free(dir);
    free(doc);
}

static void test_format_names(void **state)
{
    enum tb_format f = TB_FMT_TABLE;
    assert_int_equal(tb_format_parse("json", &f), 0);
    assert_int_equal(f, TB_FMT_JSON);
    assert_int_equal(tb_format_parse("markdown", &f), 0);
    assert_int_equal(f, TB_FMT_MARKDOWN);
    assert_int_equal(tb_format_parse("xml", &f), -1);
    assert_int_equal(tb_format_parse("JSON", &f), -1);
    assert_string_equal(tb_format_names, "table|markdown|csv|json");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_round_trip),
        cmocka_unit_test(test_markdown_cells),
        cmocka_unit_test(test_terminal_has_no_control_bytes),
        cmocka_unit_test(test_json_parses),
        cmocka_unit_test(test_format_names),
    };
    return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
