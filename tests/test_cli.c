/* test_cli.c: option rows (cli.c) as the parser's and the usage's: a usage laid out from its
 * rows (the synopsis's options made from them and wrapped, short and long options,
 * arguments, continued help, a column as wide as the widest label), the same synopsis as
 * markdown and roff for the docs, `help settings` from the config schema (config/help.c),
 * getopt's tables made from them, and the exported usages of compare, history and
 * restore: each row printed once, each printed option line a row, each row accepted by the
 * tables its parser is made from, and every option those commands took before the rows
 * still there. test_e2e.c runs the real binary with each printed option. */
#include "helpers.h"

#include "config/config.h"
#include "lib/cli.h"
#include "report/compare.h"
#include "report/history.h"
#include "cmd/restorecmd.h"

/* The usage as printed (malloc'd). */
static char *printed(const struct tb_usage *u)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    tb_usage_print(u, f);
    fclose(f);
    return buf;
}

enum { K_LONG = TB_OPT_LONG, K_FLAG };

static const struct tb_opt_row rows[] = {
    { "config", 'c', "FILE", "a file" },
    { "long", K_LONG, "LIST", "first line\nsecond line" },
    { "flag", K_FLAG, NULL, "no argument" },
    { "quiet", 'q', NULL, "quiet" },
    TB_OPT_END,
};

static void test_usage_layout(void **state)
{
    /* the synopsis's own option list (from " [-" on) is not printed: the rows' is */
    const struct tb_usage u = { "thing [-c FILE] [--gone]", rows, "  after the rows\n" };
    char *s = printed(&u);
    assert_string_equal(s,
        "usage: transpose-bench thing [-c FILE] [--long LIST] [--flag] [-q]\n"
        "\n"
        "  -c, --config FILE   a file\n"
        "      --long LIST     first line\n"
        "                      second line\n"
        "      --flag          no argument\n"
        "  -q, --quiet         quiet\n"
        "\n"
        "  after the rows\n");
    free(s);
    /* no rows: the synopsis, a blank line, the text (restore's shape) */
    const struct tb_usage bare = { "bare", NULL, "text\n" };
    s = printed(&bare);
    assert_string_equal(s, "usage: transpose-bench bare\n\ntext\n");
    free(s);
    const struct tb_usage alone = { "alone", NULL, NULL };
    s = printed(&alone);
    assert_string_equal(s, "usage: transpose-bench alone\n");
    free(s);
}

/* Options past column 80 go on the next line, under the first; an argument name ending in
 * "..." repeats: "[--set KEY=VAL]..." (the row's own line keeps the name as it is). */
static void test_synopsis_from_rows_wraps(void **state)
{
    static const struct tb_opt_row many[] = {
        { "config", 'c', "SWEEP.cfg", "a" }, { "board", 'b', "BOARD.cfg", "b" },
        { "output", 'o', "LOGDIR", "c" }, { "kernels", K_LONG, "LIST", "d" },
        { "set", K_FLAG, "KEY=VAL...", "e" }, { "quiet", 'q', NULL, "f" },
        TB_OPT_END,
    };
    const struct tb_usage u = { "thing OPERAND...", many, NULL };
    char *s = printed(&u);
    const char *want =
        "usage: transpose-bench thing OPERAND... [-c SWEEP.cfg] [-b BOARD.cfg]\n"
        "                                        [-o LOGDIR] [--kernels LIST]\n"
        "                                        [--set KEY=VAL]... [-q]\n"
        "\n";
    if (strncmp(s, want, strlen(want)))
        th_fail("printed:\n%s", s);
    assert_non_null(strstr(s, "\n      --set KEY=VAL...    e\n"));
    free(s);
    /* the documents' styles: markdown escapes a table's '|', roff marks options bold,
     * arguments italic, and escapes '-' */
    static const struct tb_opt_row two[] = {
        { "format", K_LONG, "a|b", "x-y\nmore" }, { "set", 's', "K=V...", ".dot" }, TB_OPT_END,
    };
    const struct tb_usage d = { "cmd LOG...", two, NULL };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tb_usage_synopsis(&d, TB_DOC_MARKDOWN, f);
    fputc('\n', f);
    tb_usage_synopsis(&d, TB_DOC_TEXT, f);
    fputc('\n', f);
    tb_usage_synopsis(&d, TB_DOC_ROFF, f);
    fputc('\n', f);
    tb_usage_options_roff(&d, f);
    fclose(f);
    assert_string_equal(buf,
        "`transpose-bench cmd LOG... [--format a\\|b] [-s K=V]...`\n"
        "transpose-bench cmd LOG... [--format a|b] [-s K=V]...\n"
        ".B transpose-bench cmd\n"
        "LOG... [\\fB\\-\\-format\\fR \\fIa|b\\fR] [\\fB\\-s\\fR \\fIK=V\\fR]...\n"
        ".TP\n\\fB\\-\\-format\\fR \\fIa|b\\fR\nx\\-y more\n"
        ".TP\n\\fB\\-s\\fR, \\fB\\-\\-set\\fR \\fIK=V...\\fR\n\\&.dot\n");
    free(buf);
}

/* `help settings`: every row of the schema with its file, type, range, default and help;
 * `help settings KEY` one key, a group its keys; an unknown key names the nearest. */
static void test_help_settings(void **state)
{
    char *all = NULL, *one = NULL, *grp = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&all, &len);
    assert_int_equal(tb_config_help(NULL, f), 0);
    fclose(f);
    const char *want[] = {
        "\nsweep.warmup (sweep file): integer, 0 to 1000000, default 3\n"
        "    untimed launches first\n",
        "\nsweep.cache (sweep file): string, one of {warm,cold}, default \"warm\"\n",
        "\nsweep.verify (sweep file): true or false, default true\n",
        "\nsweep.stop.rel_spread (sweep file): number, 0 to 10, default 0.005\n",
        "\nboard.peak_gbps (board file): number, 0 or 0.1 to 100000, default 0\n",
        "\nsweep.blocks (sweep file): list, default \"32x8\"\n",
        "\npower.source (board file): string, default \"auto\"\n",
        "\nboard.name (board file): string, default empty\n",
        "\n\npower (board file): group\n    power measurement\n",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(all, want[i]))
            th_fail("help settings has no\n%s", want[i]);
    /* every key of the schema, each with a help line: what --set and the files take */
    const char *keys[] = { "sweep.kernels", "sweep.points", "sweep.power_modes", "tune.seconds",
                           "output.keep_days", "board.match.model", "board.dram_type",
                           "power.settle_s", "power.tegrastats.command", "power.gpu_rail" };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        char head[64];
        snprintf(head, sizeof(head), "\n%s (", keys[i]);
        const char *at = strstr(all, head);
        if (!at)
            th_fail("help settings: no %s", keys[i]);
        const char *help = strchr(at + 1, '\n');
        assert_true(!strncmp(help, "\n    ", 5) && help[5] != ' ' && help[5] != '\n');
    }
    /* and every row of the schema, whatever is added: a key line, then its help indented */
    size_t nkeys = 0;
    for (const char *l = all; *l; l = strchr(l, '\n') + 1) {
        if (*l == '\n' || *l == ' ')
            continue;
        nkeys++;
        const char *next = strchr(l, '\n') + 1;
        if (strncmp(next, "    ", 4) || next[4] == ' ' || next[4] == '\n')
            th_fail("help settings: no help line for\n%.*s", (int)(next - l), l);
    }
    assert_true(nkeys >= 50);
    f = open_memstream(&one, &len);
    assert_int_equal(tb_config_help("output.gzip_level", f), 0);
    fclose(f);
    assert_string_equal(one, "output.gzip_level (sweep file): integer, 1 to 9, default 6\n"
                             "    1 fast .. 9 small\n");
    f = open_memstream(&grp, &len);
    assert_int_equal(tb_config_help("sweep.stop", f), 0);
    fclose(f);
    const char *head = "sweep.stop (sweep file): group\n";
    assert_true(!strncmp(grp, head, strlen(head)));
    assert_non_null(strstr(grp, "\nsweep.stop.max_reps ("));
    assert_null(strstr(grp, "sweep.warmup"));   /* not under sweep.stop */
    assert_null(strstr(grp, "\n\n"));
    f = fopen("/dev/null", "w");
    th_stderr_begin();
    assert_int_equal(tb_config_help("sweep.warmpu", f), -1);
    char *err = th_stderr_end();
    assert_non_null(strstr(err, "unknown setting 'sweep.warmpu' (did you mean 'sweep.warmup'?)"));
    free(err);
    th_stderr_begin();
    assert_int_equal(tb_config_help("sweep.war", f), -1);   /* a key's prefix is not a key */
    free(th_stderr_end());
    fclose(f);
    free(all);
    free(one);
    free(grp);
}

/* A label wider than the column moves the whole column, two spaces past it, and the
 * continued help with it. */
static void test_usage_column_follows_the_widest_label(void **state)
{
    static const struct tb_opt_row wide[] = {
        { "threshold", K_LONG, "PERCENT", "one\ntwo" },
        { "x", 'x', NULL, "short" },
        TB_OPT_END,
    };
    const struct tb_usage u = { NULL, wide, NULL };
    char *s = printed(&u);
    assert_string_equal(s,
        "      --threshold PERCENT  one\n"
        "                           two\n"
        "  -x, --x                  short\n");
    free(s);
}

static void test_getopt_tables_from_rows(void **state)
{
    struct tb_getopt g;
    tb_getopt_begin(&g, rows);
    assert_string_equal(g.shrt, "c:q");
    assert_string_equal(g.lo[1].name, "long");
    assert_int_equal(g.lo[1].has_arg, required_argument);
    assert_int_equal(g.lo[2].has_arg, no_argument);
    assert_int_equal(g.lo[2].val, K_FLAG);
    assert_null(g.lo[4].name);
    char *argv[] = { "thing", "-c", "a.cfg", "operand", "--long", "x,y", "--flag", "-q", NULL };
    int argc = 8, keys[8], n = 0, k;
    const char *args[8];
    while ((k = tb_getopt_next(&g, argc, argv)) != -1 && n < 8) {
        args[n] = optarg;
        keys[n++] = k;
    }
    assert_int_equal(n, 4);
    assert_int_equal(keys[0], 'c');
    assert_string_equal(args[0], "a.cfg");
    assert_int_equal(keys[1], K_LONG);
    assert_string_equal(args[1], "x,y");
    assert_int_equal(keys[2], K_FLAG);
    assert_int_equal(keys[3], 'q');
    /* the operand gathered behind the options */
    assert_int_equal(optind, argc - 1);
    assert_string_equal(argv[optind], "operand");
    /* an option of no row: '?' */
    char *bad[] = { "thing", "--nothing", NULL };
    tb_getopt_begin(&g, rows);
    th_stderr_begin();
    assert_int_equal(tb_getopt_next(&g, 2, bad), '?');
    free(th_stderr_end());
}

/* One line of the printed usage per row, at the option column ("  -c, --" or "      --"),
 * and no other line there. */
static size_t option_lines(const char *s)
{
    size_t n = 0;
    for (const char *l = s; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
        if (!strncmp(l, "      --", 8) || (!strncmp(l, "  -", 3) && !strncmp(l + 4, ", --", 4)))
            n++;
    return n;
}

/* How many times needle is in s. */
static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

struct had { const char *name; bool arg; };

/* u's rows against its printed usage and against the getopt tables made from them; every
 * option in had (what the command took before its rows) is a row, with or without its
 * argument as before. */
static void check_command(const struct tb_usage *u, const char *cmd, const struct had *had)
{
    char *s = printed(u);
    char head[64];
    snprintf(head, sizeof(head), "usage: transpose-bench %s ", cmd);
    assert_true(!strncmp(s, head, strlen(head)));
    size_t nrows = 0;
    for (const struct tb_opt_row *o = u->opts; o && o->name; o++, nrows++) {
        char line[128], shrt[8] = "    ";
        if (o->key < TB_OPT_LONG)
            snprintf(shrt, sizeof(shrt), "-%c, ", o->key);
        snprintf(line, sizeof(line), "\n  %s--%s%s%s  ", shrt, o->name, o->arg ? " " : "",
                 o->arg ? o->arg : "");
        if (count(s, line) != 1)
            th_fail("%s: row --%s is in its usage %zu times", cmd, o->name, count(s, line));
        /* the parser's tables take it, with its argument */
        struct tb_getopt g;
        tb_getopt_begin(&g, u->opts);
        char opt[64];
        snprintf(opt, sizeof(opt), "--%s", o->name);
        char *argv[] = { (char *)cmd, opt, "value", "log", NULL };
        assert_int_equal(tb_getopt_next(&g, 4, argv), o->key);
        if (o->arg)
            assert_string_equal(optarg, "value");
        while (tb_getopt_next(&g, 4, argv) != -1)
            ;
    }
    assert_int_equal(option_lines(s), nrows);
    for (const struct had *h = had; h->name; h++) {
        const struct tb_opt_row *o = u->opts;
        while (o->name && strcmp(o->name, h->name))
            o++;
        if (!o->name)
            th_fail("%s: --%s is no longer an option", cmd, h->name);
        assert_int_equal(o->arg != NULL, h->arg);
        assert_true(o->key >= TB_OPT_LONG);   /* no short form, as before the rows */
    }
    free(s);
}

static void test_compare_history_restore_rows(void **state)
{
    static const struct had compare[] = {
        { "baseline", true }, { "threshold", true }, { "format", true }, { "plot", true },
        { "html", true }, { "pareto", false }, { NULL, false },
    };
    static const struct had history[] = {
        { "format", true }, { "html", true }, { "plot", true }, { NULL, false },
    };
    check_command(&tb_compare_usage, "compare", compare);
    check_command(&tb_history_usage, "history", history);
    static const struct had restore[] = { { NULL, false } };
    check_command(&tb_restore_usage, "restore", restore);
    const struct tb_opt_row *q = tb_restore_usage.opts;   /* its one option, -q too */
    assert_non_null(q);
    assert_string_equal(q->name, "quiet");
    assert_int_equal(q->key, 'q');
    assert_null(q[1].name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage_layout),
        cmocka_unit_test(test_usage_column_follows_the_widest_label),
        cmocka_unit_test(test_synopsis_from_rows_wraps),
        cmocka_unit_test(test_help_settings),
        cmocka_unit_test(test_getopt_tables_from_rows),
        cmocka_unit_test(test_compare_history_restore_rows),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
