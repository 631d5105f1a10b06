/* main.c: the command table and dispatch, and the only place that exits. One table of
 * commands (git's commands[]: name, function, summary, usage); `--help`, `help CMD`,
 * `CMD --help`, did-you-mean and the documents' generated parts read it. Each command's
 * options are parsed in its own room (src/cmd/, src/report/: a usage's option rows, cli.h,
 * are both its parser's and its usage's), which returns an exit code (README: 0 ok, 1
 * runtime or verification failure, 2 usage or config, 75 another run holds the lock). Not
 * here: any command's options, measuring, reading config files. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "report/compare.h"
#include "config/config.h"
#include "report/history.h"
#include "cmd/listcmd.h"
#include "cmd/powercmd.h"
#include "cmd/probecmd.h"
#include "cmd/restorecmd.h"
#include "cmd/runcmd.h"
#include "lib/util.h"
#include "lib/version.h"

/* ---- the command table's shape ----------------------------------------------------- */

/* A command row (git's commands[]): the only list of commands; the main usage, `help CMD`,
 * `CMD --help` and did-you-mean are all read from it. A command's usage (cli.h) holds the
 * option rows its parser is made from, exported by the room that parses them. */
struct command {
    const char *name;
    int (*fn)(int argc, char **argv);   /* argv[0] is the command's name */
    const char *summary;                /* one line, in the main usage */
    const struct tb_usage *usage;
    bool env;                 /* checks the TB_* paths before it runs (tb_env_check) */
};

/* `CMD --help` or `CMD -h` anywhere among its arguments: git turns it into `help CMD` once
 * for every command, and so does this. */
static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return true;
    return false;
}

static void print_main_usage(FILE *f);
static int print_doc(const char *style);
static const struct command *find_command(const char *name);
static void unknown_command(const char *name);

/* ---- help, version ---------------------------------------------------------------- */

static const struct tb_usage help_usage = {
    "help [COMMAND | settings [KEY]]", NULL,
    "  help COMMAND: a command's options, as `COMMAND --help` prints them.\n"
    "  help settings: every key of the sweep and board files (the keys --set takes), with\n"
    "  its file, type, range, default and meaning; help settings KEY: that key, or a group's\n"
    "  keys (help settings power).\n",
};
static const struct tb_usage version_usage = { "version", NULL, NULL };

/* `help` alone: the main usage; `help CMD`: CMD's usage, as `CMD --help` prints it; `help
 * settings [KEY]`: the configuration's keys. */
static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        print_main_usage(stdout);
        return TB_EXIT_OK;
    }
    if (!strcmp(argv[1], "settings") || !strcmp(argv[1], "--doc")) {
        if (argc > 3 || (argc < 3 && argv[1][0] == '-')) {
            error("help %s: %s", argv[1], argc > 3 ? "one key at most" : "a style is needed");
            tb_usage_print(&help_usage, stderr);
            return TB_EXIT_USAGE;
        }
        if (argv[1][0] == '-')
            return print_doc(argv[2]);
        return tb_config_help(argc > 2 ? argv[2] : NULL, stdout) < 0 ? TB_EXIT_USAGE
                                                                     : TB_EXIT_OK;
    }
    if (tb_usage_no_operands(&help_usage, argc, argv, 2) < 0)
        return TB_EXIT_USAGE;
    /* `help --help` (or -h): help's own usage, as `CMD --help` is CMD's */
    const char *name = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ? "help" : argv[1];
    const struct command *c = find_command(name);
    if (!c) {
        unknown_command(argv[1]);
        print_main_usage(stderr);
        return TB_EXIT_USAGE;
    }
    tb_usage_print(c->usage, stdout);
    return TB_EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
    if (tb_usage_no_operands(&version_usage, argc, argv, 1) < 0)
        return TB_EXIT_USAGE;
    printf("transpose-bench %s\nkernel images: sha256 %s\n", tb_version_line, tb_images_sha256);
    return TB_EXIT_OK;
}

/* ---- the command table ------------------------------------------------------------ */

/* Each row names a room's main function and the usage it exports, whose option rows the
 * room's parser is made from (a new command is its file plus one row); help and version
 * are the table's own. */
static const struct command commands[] = {
    { "run", tb_run_main, "run a sweep of transpose kernels and write a gzipped CSV log",
      &tb_run_usage, true },
    { "list", tb_list_main, "list kernels, power sources (and log columns with --columns)",
      &tb_list_usage, true },
    { "power", tb_power_main, "sample the board's power source and print what it reads",
      &tb_power_usage, true },
    { "probe-power", tb_probe_main,
      "measure how the power sensor answers a step of load, once per board (send the output)",
      &tb_probe_usage, true },
    { "compare", tb_compare_main, "compare logs from boards and GPUs, or against a baseline",
      &tb_compare_usage, true },
    { "history", tb_history_main,
      "each result night by night, with changes beyond the noise flagged", &tb_history_usage,
      true },
    { "tune", tb_tune_main,
      "find each kernel's best block per size and write a tuned sweep file", &tb_tune_usage,
      true },
    { "restore", tb_restore_main,
      "put back the power mode and clocks a mode sweep that died had changed",
      &tb_restore_usage, true },
    { "help", cmd_help, "a command's options (help COMMAND), or every setting (help settings)",
      &help_usage, false },
    { "version", cmd_version,
      "version, git revision and the kernel images' sha256 (also --version)", &version_usage,
      false },
    { NULL, NULL, NULL, NULL, false },
};

/* The hidden `help --doc STYLE`: the documents' generated parts, from the command table and
 * the option rows (scripts/docs-gen.sh splices them into README.md and the man page, and
 * make test checks that they are there as printed). */
static int print_doc(const char *style)
{
    if (!strcmp(style, "readme")) {
        fputs("| command | what it does |\n|---|---|\n", stdout);
        for (const struct command *c = commands; c->name; c++) {
            fputs("| ", stdout);
            tb_usage_synopsis(c->usage, TB_DOC_MARKDOWN, stdout);
            printf(" | %s |\n", c->summary);
        }
    } else if (!strcmp(style, "man-synopsis")) {
        for (const struct command *c = commands; c->name; c++) {
            tb_usage_synopsis(c->usage, TB_DOC_ROFF, stdout);
            fputs(c[1].name ? "\n.br\n" : "\n", stdout);
        }
    } else if (!strcmp(style, "man-options")) {
        for (const struct command *c = commands; c->name; c++) {
            if (!c->usage->opts)
                continue;
            printf(".SS %s\n", c->name);
            tb_usage_options_roff(c->usage, stdout);
        }
    } else if (!strcmp(style, "man-settings")) {
        tb_config_help_roff(stdout);
    } else {
        error("help --doc '%s': expected readme, man-synopsis, man-options or man-settings",
              style);
        return TB_EXIT_USAGE;
    }
    return TB_EXIT_OK;
}

static void print_main_usage(FILE *f)
{
    fputs("usage: transpose-bench <command> [options]\n\ncommands:\n", f);
    for (const struct command *c = commands; c->name; c++)
        fprintf(f, "  %-9s %s\n", c->name, c->summary);
    fputs("\n  transpose-bench <command> --help     options of a command (also: help <command>)\n"
          "  transpose-bench help settings [KEY]  the keys of the sweep and board files\n"
          "  transpose-bench --version            version and git revision\n", f);
}

/* The row named name, or NULL. */
static const struct command *find_command(const char *name)
{
    for (const struct command *c = commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

/* "unknown command 'X' (did you mean 'Y'?)", the candidates read from the table. */
static void unknown_command(const char *name)
{
    const char *names[32];
    size_t n = 0;
    for (const struct command *c = commands; c->name && n < ARRAY_SIZE(names); c++)
        names[n++] = c->name;
    const char *sug = tb_suggest(name, names, n);
    if (sug)
        error("unknown command '%s' (did you mean '%s'?)", name, sug);
    else
        error("unknown command '%s'", name);
}

/* ---- dispatch --------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    /* a file size limit (or full quota) must give EFBIG, reported, not a silent death */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        print_main_usage(stderr);
        return TB_EXIT_USAGE;
    }
    /* the options that stand for a command, as git's --help is `help` */
    const char *name = argv[1];
    if (!strcmp(name, "--version"))
        name = "version";
    else if (!strcmp(name, "--help") || !strcmp(name, "-h"))
        name = "help";
    const struct command *cmd = find_command(name);
    if (!cmd) {
        unknown_command(name);
        print_main_usage(stderr);
        return TB_EXIT_USAGE;
    }
    if (cmd->fn != cmd_help && wants_help(argc - 1, argv + 1)) {
        tb_usage_print(cmd->usage, stdout);
        return TB_EXIT_OK;
    }
    /* a TB_ROOT (or other TB_* path) that is not there would run silently as another board */
    if (cmd->env && tb_env_check() < 0)
        return TB_EXIT_USAGE;
    return cmd->fn(argc - 1, argv + 1);
}
