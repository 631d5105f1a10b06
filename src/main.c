/* main.c: command-line parsing and subcommand dispatch, and the only place that exits.
 * One table of commands (name, function, summary, usage); a usage's option rows (cli.h) are
 * both the parser's and the usage's, for every command; help and did-you-mean read the same
 * table. Each command gathers its inputs, hands them to the modules (a run's lifecycle is
 * run.c), and maps the outcome to an exit code (README: 0 ok, 1 runtime or verification
 * failure, 2 usage or config, 75 another run holds the lock). Not here: measuring, reading
 * config files, the options of compare, history and restore (their rooms'). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/board.h"
#include "lib/cli.h"
#include "report/compare.h"
#include "config/config.h"
#include "report/history.h"
#include "cmd/listcmd.h"
#include "cmd/powercmd.h"
#include "cmd/probecmd.h"
#include "cmd/restorecmd.h"
#include "cmd/run.h"
#include "format/table.h"
#include "lib/util.h"
#include "lib/version.h"

/* ---- the command table's shape ----------------------------------------------------- */

/* A command row (git's commands[]): the only list of commands; the main usage, `help CMD`,
 * `CMD --help` and did-you-mean are all read from it. A command's usage (cli.h) holds the
 * option rows its parser is made from: main.c's commands' beside their parsers below, those
 * of rooms that read their own arguments (compare, history, restore) exported by the room. */
struct command {
    const char *name;
    int (*fn)(int argc, char **argv);   /* argv[0] is the command's name */
    const char *summary;                /* one line, in the main usage */
    const struct tb_usage *usage;
    bool env;                 /* checks the TB_* paths before it runs (tb_env_check) */
};

/* The keys of main.c's options that have no short form. */
enum long_key {
    OPT_DEVICE = TB_OPT_LONG, OPT_KERNELS, OPT_SIZES, OPT_BLOCKS, OPT_SET, OPT_SECONDS, OPT_OUT,
    OPT_COLUMNS, OPT_IMAGES, OPT_FORMAT, OPT_METRICS,
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

/* ---- shared option handling ------------------------------------------------------- */

struct common {
    struct tb_config cfg;
    struct tb_diag diag;
    const char *sweep_file, *board_file, *device;
    bool quiet;
};

/* The one rule for words after a command's options where it takes none (run, tune, list,
 * power, version): an error and the usage, never ignored. -1 after the error, else 0. */
static int no_operands(int argc, char **argv, int first, const struct tb_usage *u)
{
    if (first >= argc)
        return 0;
    error("unexpected argument '%s'", argv[first]);
    tb_usage_print(u, stderr);
    return -1;
}

/* "a,b" -> [ "a", "b" ]; "8x8,3x5" -> ( [8, 8], [3, 5] ). Returns -1 on a bad item. */
static int list_option(struct common *c, const char *opt, const char *arg, const char *path,
                       bool pairs)
{
    char value[4096], label[512];
    size_t len = (size_t)snprintf(value, sizeof(value), pairs ? "(" : "[");
    char *copy = strdup(arg), *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save), n++) {
        if (pairs) {
            long a, b;
            if (tb_parse_pair(tok, &a, &b) < 0) {
                tb_diag_add(&c->diag, "%s %s: '%s' is not of the form NxM", opt, arg, tok);
                free(copy);
                return -1;
            }
            /* L: 64-bit literals, which libconfig 1.5 would otherwise wrap to 32 bits */
            len += (size_t)snprintf(value + len, sizeof(value) - len, "%s[%ldL, %ldL]",
                                    n ? ", " : " ", a, b);
        } else {
            len += (size_t)snprintf(value + len, sizeof(value) - len, "%s\"%s\"", n ? ", " : " ",
                                    tok);
        }
        if (len >= sizeof(value)) {
            tb_diag_add(&c->diag, "%s: list too long", opt);
            free(copy);
            return -1;
        }
    }
    free(copy);
    if (n == 0) {
        tb_diag_add(&c->diag, "%s: empty list", opt);
        return -1;
    }
    snprintf(value + len, sizeof(value) - len, pairs ? " )" : " ]");
    snprintf(label, sizeof(label), "%s %s", opt, arg);
    return tb_config_add_override(&c->cfg, path, value, label);
}

/* The board file for list and power: given, or detected (said on stderr unless quiet). */
static int pick_board(struct common *c, char *path, size_t n, char *why, size_t wn)
{
    if (tb_board_pick(&c->cfg, c->board_file, NULL, path, n, why, wn) < 0) {
        tb_diag_add(&c->diag, "cannot find a board file: %s (give one with -b)", why);
        return -1;
    }
    return 0;
}

/* ---- run -------------------------------------------------------------------------- */

/* What `tune` adds to a run that the configuration cannot hold: where the tuned sweep goes.
 * Its candidate blocks and time budget are overrides (tune_candidates, --seconds). */
struct tune_req {
    const char *out;       /* tuned sweep file; NULL: tb_tune_default_path's */
};

/* The option rows of run; tune's are these and two more. */
#define RUN_OPTS \
    { "config", 'c', "SWEEP.cfg", "sweep file (default: conf/default.cfg)" }, \
    { "board", 'b', "BOARD.cfg", "board file (default: detected from the device tree or GPU name)" }, \
    { "output", 'o', "LOGDIR", "log directory (same as --set output.dir=LOGDIR)" }, \
    { "metrics", OPT_METRICS, "FILE.prom", "the night's figures for Prometheus (node_exporter's\n" \
                                           "textfile collector; output.metrics_file)" }, \
    { "device", OPT_DEVICE, "D", "auto (a usable GPU, else the CPU), cpu, cuda or cuda:N" }, \
    { "kernels", OPT_KERNELS, "LIST", "comma-separated kernel names, '*' for all, 'best' for the\n" \
                                      "fast ones over tune's blocks, the fastest shown (sweep.kernels)" }, \
    { "sizes", OPT_SIZES, "LIST", "e.g. 8192x8192,8191x12289 (rows x cols; sweep.sizes)" }, \
    { "blocks", OPT_BLOCKS, "LIST", "e.g. 32x8,16x16 (x x y; sweep.blocks)" }, \
    { "set", OPT_SET, "KEY=VAL...", "override any setting of either file, e.g.\n" \
                                    "--set sweep.warmup=5 (every key: help settings)" }, \
    { "quiet", 'q', NULL, "nothing on stdout; errors and warnings on stderr (for cron)" }

static const struct tb_opt_row run_opts[] = { RUN_OPTS, TB_OPT_END };
static const struct tb_opt_row tune_opts[] = {
    RUN_OPTS,
    { "seconds", OPT_SECONDS, "S", "time budget (tune.seconds, default 600)" },
    { "out", OPT_OUT, "TUNED.cfg", "the tuned sweep file (default conf/tuned-<board>-<element>.cfg)" },
    TB_OPT_END,
};

static const struct tb_usage run_usage = {
    "run", run_opts,
    "exit: 0 all points ok, 1 a failure (log still written), 2 usage or configuration\n"
    "error (nothing run, no log), 75 another run holds the lock.\n",
};

static const struct tb_usage tune_usage = {
    "tune", tune_opts,
    "  For each kernel and size, measures every block shape its rule allows (all power-of-\n"
    "  two shapes of 32 to 1024 threads unless --blocks is given) the way `run` does, within\n"
    "  a time budget (--seconds, tune.seconds, default 600), then writes a sweep file whose\n"
    "  sweep.points hold each kernel's best block per size, and a log of everything it\n"
    "  measured. It says how much of the space it covered. One file per board and element\n"
    "  type (default conf/tuned-<board>-<element>.cfg; --set sweep.element=u8 tunes bytes).\n",
};

/* Options shared by run and tune; tune also takes --seconds and --out. Returns -1 after a
 * usage error (printed), else 0. */
static int parse_run_options(int argc, char **argv, struct common *c, const struct tb_usage *u,
                             struct tune_req *tune)
{
    struct tb_getopt g;
    tb_getopt_begin(&g, u->opts);
    memset(c, 0, sizeof(*c));
    tb_config_init(&c->cfg);
    c->device = "auto";
    int opt;
    while ((opt = tb_getopt_next(&g, argc, argv)) != -1) {
        switch (opt) {
        case 'c': c->sweep_file = optarg; break;
        case 'b': c->board_file = optarg; break;
        case 'o': {
            char v[PATH_MAX + 8], label[PATH_MAX + 8];
            snprintf(v, sizeof(v), "\"%s\"", optarg);
            snprintf(label, sizeof(label), "-o %s", optarg);
            tb_config_add_override(&c->cfg, "output.dir", v, label);
            break;
        }
        case OPT_METRICS: {
            char v[PATH_MAX + 8], label[PATH_MAX + 16];
            snprintf(v, sizeof(v), "\"%s\"", optarg);
            snprintf(label, sizeof(label), "--metrics %s", optarg);
            tb_config_add_override(&c->cfg, "output.metrics_file", v, label);
            break;
        }
        case OPT_DEVICE: c->device = optarg; break;
        case OPT_KERNELS: list_option(c, "--kernels", optarg, "sweep.kernels", false); break;
        case OPT_SIZES: list_option(c, "--sizes", optarg, "sweep.sizes", true); break;
        case OPT_BLOCKS: list_option(c, "--blocks", optarg, "sweep.blocks", true); break;
        case OPT_SET: tb_config_add_set(&c->cfg, optarg, &c->diag); break;
        case 'q': c->quiet = true; break;
        case OPT_OUT: tune->out = optarg; break;   /* only in tune's rows */
        case OPT_SECONDS: {
            char label[PATH_MAX + 16];
            double s;   /* the one number parser (util.h); tune.seconds' range is the schema's */
            snprintf(label, sizeof(label), "--seconds %s", optarg);
            if (tb_parse_number(optarg, 0, true, 1e6, &s) < 0)
                tb_diag_add(&c->diag, "--seconds '%s': expected a number of seconds (decimal)",
                            optarg);
            else
                tb_config_add_override(&c->cfg, "tune.seconds", optarg, label);
            break;
        }
        default:
            tb_usage_print(u, stderr);
            return -1;
        }
    }
    return no_operands(argc, argv, optind, u);
}

/* Block shapes `tune` tries when --blocks is not given: every power-of-two shape from 32
 * to 1024 threads; each kernel's rule then keeps the ones it accepts. */
static void tune_candidates(struct common *c)
{
    char v[2048];
    if (tb_config_override(&c->cfg, "sweep.blocks", v, sizeof(v)))
        return;
    size_t len = (size_t)snprintf(v, sizeof(v), "(");
    for (int x = 1; x <= 1024; x *= 2)
        for (int y = 1; x * y <= 1024; y *= 2)
            if (x * y >= 32)
                len += (size_t)snprintf(v + len, sizeof(v) - len, "%s[%d, %d]",
                                        len > 1 ? ", " : " ", x, y);
    snprintf(v + len, sizeof(v) - len, " )");
    tb_config_add_override(&c->cfg, "sweep.blocks", v, "tune's candidate blocks");
}

/* run and tune: the run module does the work; here its outcome becomes an exit code. */
static int do_run(struct common *c, struct tune_req *tune)
{
    struct tb_run_opts o = {
        .cfg = &c->cfg, .diag = &c->diag, .sweep_file = c->sweep_file,
        .board_file = c->board_file, .device = c->device, .quiet = c->quiet,
        .tune = tune != NULL, .tune_out = tune ? tune->out : NULL,
    };
    enum tb_run_outcome out = tb_run(&o);
    tb_config_free(&c->cfg);
    tb_diag_free(&c->diag);
    switch (out) {
    case TB_RUN_OK: return TB_EXIT_OK;
    case TB_RUN_USAGE: return TB_EXIT_USAGE;
    case TB_RUN_LOCKED: return TB_EXIT_LOCKED;
    default: return TB_EXIT_FAIL;
    }
}

/* `--kernels best` without --blocks: each candidate over tune's blocks (its rule keeps its
 * own), so that the choice is tune's without a tuned file. */
static void best_candidates(struct common *c)
{
    char v[4096];
    if (tb_config_override(&c->cfg, "sweep.kernels", v, sizeof(v)) && strstr(v, "\"best\""))
        tune_candidates(c);
}

static int cmd_run(int argc, char **argv)
{
    struct common c;
    if (parse_run_options(argc, argv, &c, &run_usage, NULL) < 0) {
        tb_config_free(&c.cfg);
        tb_diag_free(&c.diag);
        return TB_EXIT_USAGE;
    }
    best_candidates(&c);
    return do_run(&c, NULL);
}

static int cmd_tune(int argc, char **argv)
{
    struct common c;
    struct tune_req t = { NULL };
    if (parse_run_options(argc, argv, &c, &tune_usage, &t) < 0) {
        tb_config_free(&c.cfg);
        tb_diag_free(&c.diag);
        return TB_EXIT_USAGE;
    }
    tune_candidates(&c);
    return do_run(&c, &t);
}

/* ---- list ------------------------------------------------------------------------- */

static const struct tb_opt_row list_opts[] = {
    { "columns", OPT_COLUMNS, NULL, "the log's columns (name, unit, meaning) instead" },
    { "images", OPT_IMAGES, "DIR", "write each kernel image to a file in DIR (PTX as text,\n"
                                   "cubins as ELF) for inspection" },
    { "board", 'b', "BOARD.cfg", "board file (default: detected, as run does)" },
    { "set", OPT_SET, "KEY=VAL...", "override a setting of the board file" },
    TB_OPT_END,
};

static const struct tb_usage list_usage = {
    "list", list_opts,
    "  Lists every kernel (backend, availability, block-shape rule), every embedded kernel\n"
    "  image and the one GPU 0 runs (and why), and every power source with whether it can\n"
    "  work here.\n",
};

static int cmd_list(int argc, char **argv)
{
    struct tb_getopt g;
    tb_getopt_begin(&g, list_usage.opts);
    struct common c;
    memset(&c, 0, sizeof(c));
    tb_config_init(&c.cfg);
    bool columns = false;
    const char *images = NULL;
    int opt;
    while ((opt = tb_getopt_next(&g, argc, argv)) != -1) {
        switch (opt) {
        case OPT_COLUMNS: columns = true; break;
        case OPT_IMAGES: images = optarg; break;
        case 'b': c.board_file = optarg; break;
        case OPT_SET: tb_config_add_set(&c.cfg, optarg, &c.diag); break;
        default:
            tb_usage_print(&list_usage, stderr);
            tb_config_free(&c.cfg);
            return TB_EXIT_USAGE;
        }
    }
    if (no_operands(argc, argv, optind, &list_usage) < 0) {
        tb_config_free(&c.cfg);
        tb_diag_free(&c.diag);
        return TB_EXIT_USAGE;
    }
    if (images) {
        tb_config_free(&c.cfg);
        return tb_list_images(images, stdout) < 0 ? TB_EXIT_FAIL : TB_EXIT_OK;
    }
    int rc = columns ? tb_list_columns(stdout) : tb_list(&c.cfg, &c.diag, c.board_file, stdout);
    tb_config_free(&c.cfg);
    tb_diag_free(&c.diag);
    return rc == -EIO ? TB_EXIT_FAIL : rc < 0 ? TB_EXIT_USAGE : TB_EXIT_OK;   /* -EIO: a full disk */
}

/* ---- power ------------------------------------------------------------------------ */

static const struct tb_opt_row power_opts[] = {
    { "board", 'b', "BOARD.cfg", "board file (default: detected, as run does)" },
    { "set", OPT_SET, "KEY=VAL...", "override a setting of the board file, e.g.\n"
                                    "--set power.source=nvml" },
    { "seconds", OPT_SECONDS, "S", "how long to sample (default 5)" },
    { "format", OPT_FORMAT, "F", TB_FORMAT_NAMES " (default table)" },
    TB_OPT_END,
};

static const struct tb_usage power_usage = {
    "power", power_opts,
    "  Samples the board's power source (power.source, auto by default) for S seconds\n"
    "  (default 5) and prints each reading, one row per rail: elapsed_s,source,rail,power_mw\n"
    "  (the table adds the source's GPU load, clocks, temperature and energy).\n",
};

static int cmd_power(int argc, char **argv)
{
    struct tb_getopt g;
    tb_getopt_begin(&g, power_usage.opts);
    struct common c;
    memset(&c, 0, sizeof(c));
    tb_config_init(&c.cfg);
    double seconds = 5;
    enum tb_format format = TB_FMT_TABLE;
    int opt;
    while ((opt = tb_getopt_next(&g, argc, argv)) != -1) {
        switch (opt) {
        case 'b': c.board_file = optarg; break;
        case OPT_SET: tb_config_add_set(&c.cfg, optarg, &c.diag); break;
        case OPT_SECONDS:
            if (tb_parse_number(optarg, 0, true, 86400, &seconds) < 0)   /* util.h's parser */
                tb_diag_add(&c.diag, "--seconds '%s': expected a number of seconds (0 to 86400]",
                            optarg);
            break;
        case OPT_FORMAT:
            if (tb_format_parse(optarg, &format) < 0)
                tb_diag_add(&c.diag, "--format '%s': expected %s", optarg, tb_format_names);
            break;
        default:
            tb_usage_print(&power_usage, stderr);
            tb_config_free(&c.cfg);
            return TB_EXIT_USAGE;
        }
    }
    if (no_operands(argc, argv, optind, &power_usage) < 0) {
        tb_config_free(&c.cfg);
        tb_diag_free(&c.diag);
        return TB_EXIT_USAGE;
    }
    char board_path[PATH_MAX], board_why[512];
    c.quiet = true;
    if (pick_board(&c, board_path, sizeof(board_path), board_why, sizeof(board_why)) == 0)
        tb_config_load(&c.cfg, NULL, board_path, &c.diag);
    int code = TB_EXIT_USAGE;
    if (c.diag.n)
        tb_diag_print(&c.diag);
    else
        code = tb_power_command(&c.cfg.board.power, c.cfg.board.name, seconds, format,
                                stdout);
    tb_config_free(&c.cfg);
    tb_diag_free(&c.diag);
    return code;
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
    if (no_operands(argc, argv, 2, &help_usage) < 0)
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
    if (no_operands(argc, argv, 1, &version_usage) < 0)
        return TB_EXIT_USAGE;
    printf("transpose-bench %s\nkernel images: sha256 %s\n", tb_version_line, tb_images_sha256);
    return TB_EXIT_OK;
}

/* ---- the command table ------------------------------------------------------------ */

/* compare, history and restore are rooms of their own: their rows name the room's main
 * function and its usage, whose option rows the room's parser is made from. */
static const struct command commands[] = {
    { "run", cmd_run, "run a sweep of transpose kernels and write a gzipped CSV log",
      &run_usage, true },
    { "list", cmd_list, "list kernels, power sources (and log columns with --columns)",
      &list_usage, true },
    { "power", cmd_power, "sample the board's power source and print what it reads",
      &power_usage, true },
    { "probe-power", tb_probe_main,
      "measure how the power sensor answers a step of load, once per board (send the output)",
      &tb_probe_usage, true },
    { "compare", tb_compare_main, "compare logs from boards and GPUs, or against a baseline",
      &tb_compare_usage, true },
    { "history", tb_history_main,
      "each result night by night, with changes beyond the noise flagged", &tb_history_usage,
      true },
    { "tune", cmd_tune, "find each kernel's best block per size and write a tuned sweep file",
      &tune_usage, true },
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
