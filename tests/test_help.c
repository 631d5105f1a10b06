/* test_help.c: the real binary's help, end to end: `--version`, `CMD --help`, `help CMD`
 * and the main usage from one command table; each option printed by compare's and history's
 * --help taken by their parsers; `help settings [KEY]` from the config schema; `help --doc`,
 * the README's and the man page's generated parts. (Moved out of test_e2e.c, which keeps
 * the runs; test_cli.c tests the printing functions themselves.) Each test runs in the
 * fixture of helpers.h (TH_TEST). */
#include "helpers.h"

#include <signal.h>

static void test_help_version_list(void **state)
{
    assert_int_equal(th_runf("--version"), 0);
    assert_true(!strncmp(th_out(), "transpose-bench ", 16) && strstr(th_out(), "(git "));
    const char *cmds[] = { "run", "list", "power", "compare" };
    for (int i = 0; i < 4; i++) {
        char a[64];
        snprintf(a, sizeof(a), "%s --help", cmds[i]);
        assert_int_equal(th_runf("%s", a), 0);
        assert_non_null(strstr(th_out(), "usage: transpose-bench"));
    }
    assert_int_equal(th_runf("list"), 0);
    assert_non_null(strstr(th_out(), "smem_unroll_pad"));
    assert_non_null(strstr(th_out(), "block.x == block.y (the tile)"));
    assert_non_null(strstr(th_out(), "ina3221"));
    assert_non_null(strstr(th_out(), "tegrastats"));
}

/* The command table: `CMD --help`, `CMD -h` and `help CMD` print one text for every command
 * the main usage lists; each option row of run is both in its usage and accepted by its
 * parser; an unknown command (or `help` of one) is told the nearest name from the table. */
static void test_help_from_the_command_table(void **state)
{
    assert_int_equal(th_runf("--help"), 0);
    char *main_usage = th_keep(strdup(th_out()));
    assert_int_equal(th_runf("help"), 0);
    assert_string_equal(th_out(), main_usage);
    const char *cmds[] = { "run", "list", "power", "compare", "history", "tune", "restore", "help",
                           "version" };
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char line[32];
        snprintf(line, sizeof(line), "\n  %-9s ", cmds[i]);
        assert_non_null(strstr(main_usage, line));
        assert_int_equal(th_runf("help %s", cmds[i]), 0);
        char *help = th_keep(strdup(th_out()));
        char usage[64];
        snprintf(usage, sizeof(usage), "usage: transpose-bench %s", cmds[i]);
        assert_true(!strncmp(help, usage, strlen(usage)));
        /* `CMD --help` is `help CMD`, for help itself too */
        assert_int_equal(th_runf("%s --help", cmds[i]), 0);
        assert_string_equal(th_out(), help);
    }
    assert_int_equal(th_runf("run -h"), 0);
    char *run_help = th_keep(strdup(th_out()));
    const char *rows[] = { "  -c, --config SWEEP.cfg ", "  -o, --output LOGDIR ",
                           "      --device D ", "      --set KEY=VAL... ", "  -q, --quiet " };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        assert_non_null(strstr(run_help, rows[i]));
    /* a row's option is the parser's: tune's own rows are not run's */
    assert_non_null(strstr(run_help, "exit: 0 all points ok"));
    assert_null(strstr(run_help, "--seconds"));
    assert_int_equal(th_runf("run --seconds 5"), 2);
    assert_non_null(strstr(th_err(), "usage: transpose-bench run"));
    assert_int_equal(th_runf("list --colums"), 2);
    assert_non_null(strstr(th_err(), "usage: transpose-bench list"));

    assert_int_equal(th_runf("rnu --sizes 8x8"), 2);
    assert_non_null(strstr(th_err(), "unknown command 'rnu' (did you mean 'run'?)"));
    assert_non_null(strstr(th_err(), "usage: transpose-bench <command>"));
    assert_string_equal(th_out(), "");
    assert_int_equal(th_runf("hisotry"), 2);
    assert_non_null(strstr(th_err(), "(did you mean 'history'?)"));
    assert_int_equal(th_runf("help comprae"), 2);
    assert_non_null(strstr(th_err(), "unknown command 'comprae' (did you mean 'compare'?)"));
    assert_int_equal(th_runf("frobnicate"), 2);
    assert_non_null(strstr(th_err(), "unknown command 'frobnicate'"));
    assert_null(strstr(th_err(), "did you mean"));
    assert_int_equal(th_runf("version"), 0);
    assert_true(!strncmp(th_out(), "transpose-bench ", 16));
}

/* compare's and history's options are their parsers' rows, as run's are: each option line
 * of `CMD --help` (name, and its argument when it shows one) is taken by the command (an
 * error of its own at most, never getopt's "unrecognized" nor the usage), every option the
 * command took before its rows is printed, and an option of another command's rows is
 * refused with this command's usage. */
static void test_help_rows_are_the_parsers(void **state)
{
    static const struct { const char *cmd, *had[8], *foreign; } cmds[] = {
        { "compare", { "--baseline LOG  ", "--threshold PERCENT  ", "--format F  ",
                       "--plot FILE  ", "--html FILE  ", "--pareto  ", NULL }, "--seconds" },
        { "history", { "--format F  ", "--html FILE  ", "--plot FILE  ", NULL }, "--pareto" },
    };
    const char *dir = th_scratch();
    for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
        assert_int_equal(th_runf("%s --help", cmds[c].cmd), 0);
        char *help = th_keep(strdup(th_out()));
        for (int h = 0; cmds[c].had[h]; h++) {
            char line[64];
            snprintf(line, sizeof(line), "\n      %s", cmds[c].had[h]);
            if (!strstr(help, line))
                th_fail("%s --help: no '%s' line", cmds[c].cmd, cmds[c].had[h]);
        }
        int rows = 0;
        for (const char *l = help; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
            /* an option line: "  -x, --name [ARG]  help" or "      --name [ARG]  help" */
            if (strncmp(l, "      --", 8) && (strncmp(l, "  -", 3) || strncmp(l + 4, ", --", 4)))
                continue;
            const char *name = l + 8;
            size_t n = strcspn(name, " \n");
            bool arg = name[n] == ' ' && name[n + 1] != ' ';
            char args[1024];
            snprintf(args, sizeof(args), "%s --%.*s%s%s%s %s/none.csv.gz", cmds[c].cmd, (int)n,
                     name, arg ? " '" : "", arg ? dir : "", arg ? "/out.svg'" : "", dir);
            th_runf("%s", args);
            if (strstr(th_err(), "unrecognized option") || strstr(th_err(), "requires an argument")
                || strstr(th_err(), "usage: transpose-bench"))
                th_fail("%s: refused as an option:\n%s", args, th_err());
            rows++;
        }
        assert_true(rows >= 3);
        assert_int_equal(th_runf("%s %s 5 %s/none.csv.gz", cmds[c].cmd, cmds[c].foreign, dir), 2);
        char refused[64], usage[64];
        snprintf(refused, sizeof(refused), "%s: unrecognized option '%s'", cmds[c].cmd,
                 cmds[c].foreign);
        snprintf(usage, sizeof(usage), "usage: transpose-bench %s ", cmds[c].cmd);
        assert_non_null(strstr(th_err(), refused));
        assert_non_null(strstr(th_err(), usage));
    }
}

/* `help settings` through the binary: every key the files take, each with its help line,
 * `help settings KEY` one of them (exit 0), an unknown key the nearest one (exit 2), and
 * `help --doc` (the README's and the man page's generated parts) the commands' rows. */
static void test_help_settings(void **state)
{
    assert_int_equal(th_runf("help settings"), 0);
    assert_non_null(strstr(th_out(), "\npower.rounds (board file): integer, 1 to "));
    assert_non_null(strstr(th_out(), "\noutput.keep_logs (sweep file): integer, 0 to 1000000, "
                                     "default 0\n    keep the newest N logs"));
    assert_int_equal(th_runf("help settings sweep.element"), 0);
    assert_true(!strncmp(th_out(), "sweep.element (sweep file): string, default \"float\"\n",
                         50));
    assert_null(strstr(th_out(), "sweep.verify"));
    assert_int_equal(th_runf("help settings power.sourc"), 2);
    assert_non_null(strstr(th_err(), "unknown setting 'power.sourc' (did you mean "
                                     "'power.source'?)"));
    assert_string_equal(th_out(), "");
    assert_int_equal(th_runf("help settings sweep.warmup sweep.verify"), 2);
    assert_non_null(strstr(th_err(), "usage: transpose-bench help"));
    /* the README's table: one line per command of the table, its synopsis from its rows */
    assert_int_equal(th_runf("help --doc readme"), 0);
    assert_non_null(strstr(th_out(), "\n| `transpose-bench list [--columns] [--images DIR] "
                                     "[-b BOARD.cfg] [--set KEY=VAL]...` | "));
    assert_non_null(strstr(th_out(), "\n| `transpose-bench power [-b BOARD.cfg] "
                                     "[--set KEY=VAL]... "));
    assert_int_equal(th_runf("help --doc man-options"), 0);
    assert_non_null(strstr(th_out(), ".SS list\n"));
    assert_non_null(strstr(th_out(), "\\fB\\-\\-images\\fR \\fIDIR\\fR\n"));
    assert_int_equal(th_runf("help --doc nroff"), 2);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_help_version_list),
        TH_TEST(test_help_from_the_command_table),
        TH_TEST(test_help_rows_are_the_parsers),
        TH_TEST(test_help_settings),
    };
    return cmocka_run_group_tests_name("help", tests, NULL, NULL);
}
