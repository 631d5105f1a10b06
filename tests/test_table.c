/* test_table.c: the table writer fed hostile text (a board name with a comma, a quote, a
 * line break, a '|', an escape sequence, bytes that are no UTF-8) in each format: CSV read
 * back by an RFC 4180 parser, markdown cells counted, the terminal checked for control
 * bytes, JSON read by python3's json module. */
#include "helpers.h"

#include <math.h>
#include <stdint.h>

#include "report/html.h"
#include "format/table.h"
#include "lib/util.h"

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
             "assert d[\"schema\"] == \"transpose-bench/test/2\", d\n"
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

/* JSON: a figure whose table has its interval (<name>_ci95) is one object with its bounds,
 * the interval's own key gone; a missing half-width leaves the bounds null; other formats
 * keep the two columns. */
static void test_json_figure_bounds(void **state)
{
    static const struct tb_table_col fc[] = {
        { .name = "kernel", .head = "kernel", .kind = 'S', .width = 8 },
        { .name = "gbps_per_w", .head = "GB/s/W", .kind = 'N', .dec = 3, .width = 8 },
        { .name = "gbps_per_w_ci95", .head = "+-", .kind = 'N', .dec = 4, .width = 8 },
        { .name = "gbps", .head = "GB/s", .kind = 'N', .dec = 1, .width = 8 },
    };
    for (int f = 0; f < 2; f++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        struct tb_doc d;
        struct tb_table t;
        tb_doc_begin(&d, out, f ? TB_FMT_CSV : TB_FMT_JSON, "test");
        tb_table_begin(&t, &d, "points", "", fc, 4);
        struct tb_cell a[] = { TB_TEXT("k1"), TB_NUM(5.25), TB_NUM(0.125), TB_NUM(40) };
        struct tb_cell b[] = { TB_TEXT("k2"), TB_NUM(2), TB_NUM(NAN), TB_NUM(NAN) };
        tb_table_row(&t, a);
        tb_table_row(&t, b);
        tb_table_end(&t);
        assert_int_equal(tb_doc_end(&d), 0);
        fclose(out);
        if (f == 0) {
            th_must_have(buf, "{\"kernel\": \"k1\", \"gbps_per_w\": {\"value\": 5.250, "
                              "\"lower\": 5.1250, \"upper\": 5.3750, \"ci95\": 0.1250}, "
                              "\"gbps\": 40.0}");
            th_must_have(buf, "{\"kernel\": \"k2\", \"gbps_per_w\": {\"value\": 2.000, "
                              "\"lower\": null, \"upper\": null, \"ci95\": null}, "
                              "\"gbps\": null}");
            assert_null(strstr(buf, "\"gbps_per_w_ci95\""));
        } else {
            th_must_have(buf, "kernel,gbps_per_w,gbps_per_w_ci95,gbps\n");
            th_must_have(buf, "k1,5.250,0.1250,40.0\n");
        }
        free(buf);
    }
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

/* The table of formats (table.h's TB_FORMATS): every row's name parses back to that row and
 * to no other, every row names a writer with every step, and the names string every usage
 * splices in is exactly the rows' names, in their order. */
static void test_format_table(void **state)
{
    const char *names = TB_FORMAT_NAMES;
    assert_string_equal(tb_format_names, names);
    for (int i = 0; i < TB_FMT_COUNT; i++) {
        enum tb_format f = (enum tb_format)i, back = TB_FMT_COUNT;
        const char *name = tb_format_name(f);
        assert_non_null(name);
        assert_true(name[0] != '\0');
        if (tb_format_parse(name, &back) != 0 || back != f)
            th_fail("format %d: '%s' parses to %d", i, name, (int)back);
        const struct tb_format_ops *w = tb_format_writer(f);
        if (!w || !w->doc_begin || !w->doc_end || !w->note || !w->table_begin || !w->section ||
            !w->row || !w->table_end)
            th_fail("format '%s': its writer lacks a step", name);
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(tb_format_writer((enum tb_format)j), w);
        /* the names string: this row's name next, then '|' or the end */
        size_t len = strlen(name);
        if (strncmp(names, name, len) || (names[len] != '|' && names[len] != '\0'))
            th_fail("TB_FORMAT_NAMES '%s': '%s' is not next", TB_FORMAT_NAMES, name);
        names += len + (names[len] == '|');
        assert_true(i < TB_FMT_COUNT - 1 ? names[-1] == '|' : *names == '\0');
    }
    assert_string_equal(names, "");   /* no name the table lacks */
    assert_null(tb_format_name(TB_FMT_COUNT));
    assert_null(tb_format_writer(TB_FMT_COUNT));
    enum tb_format f = TB_FMT_JSON;
    assert_int_equal(tb_format_parse("", &f), -1);
    assert_int_equal(tb_format_parse("table|markdown", &f), -1);
    assert_int_equal(f, TB_FMT_JSON);   /* a miss leaves it */
}

/* A row's flags say what its writer does: a format for people writes the titles, section
 * headings and notes, one for data none of them; a first-table-only format writes nothing of
 * the second table, the others write its rows too. */
static void test_format_flags_match_writers(void **state)
{
    static const struct tb_table_col c2[] = {
        { .name = "kernel", .head = "kernel", .kind = 'S', .width = 10 },
        { .name = "gbps", .head = "GB/s", .kind = 'N', .dec = 1, .width = 6 },
    };
    for (int i = 0; i < TB_FMT_COUNT; i++) {
        enum tb_format f = (enum tb_format)i;
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        assert_non_null(out);
        struct tb_doc d;
        struct tb_table t;
        tb_doc_begin(&d, out, f, "test");
        tb_table_begin(&t, &d, "first", "Title-one", c2, 2);
        tb_table_section(&t, "Section-one");
        tb_table_row(&t, (struct tb_cell[]){ TB_TEXT("kernel-one"), TB_NUM(1.5) });
        tb_table_end(&t);
        tb_table_begin(&t, &d, "second", "Title-two", c2, 2);
        tb_table_row(&t, (struct tb_cell[]){ TB_TEXT("kernel-two"), TB_NUM(2.5) });
        tb_table_end(&t);
        tb_doc_note(&d, "Note-%d", 1);
        assert_int_equal(tb_doc_end(&d), 0);
        fclose(out);
        const char *name = tb_format_name(f);
        bool people = !tb_format_is_data(f);
        const char *prose[] = { "Title-one", "Section-one", "Note-1" };
        for (size_t k = 0; k < 3; k++)
            if (people != (strstr(buf, prose[k]) != NULL))
                th_fail("format '%s' (%s): '%s' %s:\n%s", name, people ? "for people" : "data",
                        prose[k], people ? "missing" : "written", buf);
        assert_non_null(strstr(buf, "kernel-one"));
        bool one = tb_format_first_table_only(f);
        if (one == (strstr(buf, "kernel-two") != NULL))
            th_fail("format '%s' (%s): the second table %s:\n%s", name,
                    one ? "first table only" : "every table", one ? "written" : "missing", buf);
        free(buf);
    }
    /* the formats the commands test by these flags: as they were */
    assert_false(tb_format_is_data(TB_FMT_TABLE));
    assert_false(tb_format_is_data(TB_FMT_MARKDOWN));
    assert_true(tb_format_is_data(TB_FMT_CSV));
    assert_true(tb_format_is_data(TB_FMT_JSON));
    assert_true(tb_format_first_table_only(TB_FMT_CSV));
    assert_false(tb_format_first_table_only(TB_FMT_JSON));
}

/* Every command's --help and its refusal of an unknown format name the table's formats. */
static void test_format_names_in_usage(void **state)
{
    const char *cmds[] = { "compare", "history", "power" };
    for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
        assert_int_equal(th_runf("%s --help", cmds[i]), 0);
        /* the synopsis's item is made from the row ("[--format F]"); the row names them */
        if (!strstr(th_out(), " [--format F]") ||
            !strstr(th_out(), "--format F      ") ||
            !strstr(th_out(), TB_FORMAT_NAMES " (default table)"))
            th_fail("%s --help does not name the formats " TB_FORMAT_NAMES ":\n%s", cmds[i],
                    th_out());
        assert_int_equal(th_runf("%s --format xml", cmds[i]), 2);
        if (!strstr(th_err(), "--format 'xml': expected " TB_FORMAT_NAMES))
            th_fail("%s --format xml said:\n%s", cmds[i], th_err());
    }
}

/* Invisible format characters (Unicode Cf) and bidi overrides: "nano" + U+202E + "evil" would
 * show reversed on a terminal, U+200B hides in a name. Every output shows them as [U+XXXX]
 * (terminal, markdown, titles, notes, HTML, stderr), JSON escapes them, CSV to a file keeps
 * the data as it is. The one function: tb_text_clean (util.h). */
static const char *const invisible[] = {
    "\xe2\x80\xae", "\xe2\x80\x8b", "\xe2\x81\xa6", "\xe2\x81\xa9", "\xef\xbb\xbf",
    "\xc2\xad", "\xf3\xa0\x80\x81", "\xe2\x80\xa8", "\xd8\x9c", "\xe2\x80\x8f",
};
static const char *const shown[] = {
    "[U+202E]", "[U+200B]", "[U+2066]", "[U+2069]", "[U+FEFF]", "[U+00AD]", "[U+E0001]",
    "[U+2028]", "[U+061C]", "[U+200F]",
};
#define NI (sizeof(invisible) / sizeof(*invisible))

static char *render_invisible(enum tb_format f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    struct tb_doc d;
    struct tb_table t;
    tb_doc_begin(&d, out, f, "test");
    char title[64];
    snprintf(title, sizeof(title), "title %s", invisible[0]);
    tb_table_begin(&t, &d, "points", title, cols, sizeof(cols) / sizeof(*cols));
    for (size_t i = 0; i < NI; i++) {
        char name[64];
        snprintf(name, sizeof(name), "na%sno", invisible[i]);
        struct tb_cell c[] = { TB_TEXT(name), TB_NUM(64), TB_NUM(1), TB_TEXT("8x8"), TB_NUM(1) };
        tb_table_row(&t, c);
    }
    tb_table_end(&t);
    tb_doc_note(&d, "note on %s", invisible[0]);
    assert_int_equal(tb_doc_end(&d), 0);
    fclose(out);
    return buf;
}

static void test_invisible_characters_shown(void **state)
{
    for (int f = TB_FMT_TABLE; f <= TB_FMT_JSON; f++) {
        char *doc = render_invisible((enum tb_format)f);
        for (size_t i = 0; i < NI; i++) {
            bool raw = strstr(doc, invisible[i]) != NULL;
            if (f == TB_FMT_CSV ? !raw : raw)
                th_fail("format %d: U+%s %s:\n%s", f, shown[i] + 2, raw ? "raw" : "lost", doc);
            if ((f == TB_FMT_TABLE || f == TB_FMT_MARKDOWN) && !strstr(doc, shown[i]))
                th_fail("format %d: %s not shown:\n%s", f, shown[i], doc);
        }
        if (f == TB_FMT_TABLE || f == TB_FMT_MARKDOWN) {
            assert_non_null(strstr(doc, "title [U+202E]"));
            assert_non_null(strstr(doc, "note on [U+202E]"));
        }
        if (f == TB_FMT_JSON) {
            assert_non_null(strstr(doc, "na\\u202eno"));
            assert_non_null(strstr(doc, "na\\udb40\\udc01no"));   /* a tag: a surrogate pair */
        }
        free(doc);
    }
    /* the page and stderr: the same rule */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    tb_html_text(out, "a\xe2\x80\xae<b>\x1b[2J\xc2\x9b");
    fclose(out);
    assert_string_equal(buf, "a[U+202E]&lt;b&gt;?[2J?");
    free(buf);
    th_stderr_begin();
    error("board '%s'", "na\xe2\x80\xaeno\x1b[31m");
    char *said = th_stderr_end();
    assert_non_null(strstr(said, "board 'na[U+202E]no?[31m'"));
    free(said);
    char small[12];
    assert_string_equal(tb_text_clean(small, sizeof(small), "ab\xe2\x80\xae" "cd", false), "ab[U+202E]c");
    assert_string_equal(tb_text_clean(small, sizeof(small), "abc\xe2\x80\xae", false), "abc[U+202E]");
    assert_string_equal(tb_text_clean(small, sizeof(small), "abcd\xe2\x80\xae", false), "abcd");
}

/* A TB_* path that is not there, or not what it must be, is an error naming it (TB_ROOT
 * naming a missing folder ran silently as the generic board). */
static void test_environment_paths(void **state)
{
    const char *dir = th_scratch();   /* the fixture removes it and restores the env */
    char *file = th_write(dir, "f", "x\n"), lock[4096];
    struct { const char *var, *value, *said; } cases[] = {
        { "TB_ROOT", "/nonexistent/root", "TB_ROOT='/nonexistent/root': No such file or directory (it must name a directory)" },
        { "TB_ROOT", file, "is not a directory" },
        { "TB_LOCK_FILE", "/nonexistent/dir/lock", "its folder '/nonexistent/dir' does not exist" },
        { "TB_CUDA_LIB", dir, "is not a regular file (a library)" },
        { "TB_NVML_LIB", dir, "is not a regular file (a library)" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        setenv(cases[i].var, cases[i].value, 1);
        th_stderr_begin();
        int rc = tb_env_check();
        char *said = th_stderr_end();
        unsetenv(cases[i].var);
        assert_int_equal(rc, -1);
        if (!strstr(said, cases[i].said) || !strstr(said, cases[i].var))
            th_fail("%s='%s': said '%s'", cases[i].var, cases[i].value, said);
        free(said);
    }
    setenv("TB_ROOT", dir, 1);
    snprintf(lock, sizeof(lock), "%s/lock", dir);
    setenv("TB_LOCK_FILE", lock, 1);
    setenv("TB_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);   /* the loader says it, by name */
    setenv("TB_NVML_LIB", "libnvidia-ml.so.1", 1);
    assert_int_equal(tb_env_check(), 0);
    /* the tool: exit 2 before any command runs */
    setenv("TB_ROOT", "/nonexistent/root", 1);
    assert_int_equal(th_runf("list"), 2);
    assert_non_null(strstr(th_err(), "environment: TB_ROOT='/nonexistent/root'"));
    free(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_round_trip),
        cmocka_unit_test(test_markdown_cells),
        cmocka_unit_test(test_terminal_has_no_control_bytes),
        cmocka_unit_test(test_json_parses),
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_json_figure_bounds),
        cmocka_unit_test(test_format_table),
        cmocka_unit_test(test_format_flags_match_writers),
        TH_TEST(test_format_names_in_usage),
        cmocka_unit_test(test_invisible_characters_shown),
        TH_TEST(test_environment_paths),
    };
    return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
