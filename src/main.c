/* main.c: command-line parsing and subcommand dispatch, and the only place that exits.
 * Each subcommand gathers its inputs, hands them to the modules (a run's lifecycle is
 * run.c), and maps the outcome to an exit code (README: 0 ok, 1 runtime or verification failure, 2 usage or config, 75
 * another run holds the lock). */
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

#include "board.h"
#include "compare.h"
#include "config.h"
#include "history.h"
#include "listcmd.h"
#include "powercmd.h"
#include "restorecmd.h"
#include "run.h"
#include "table.h"
#include "util.h"
#include "version.h"

/* ---- usage ------------------------------------------------------------------------ */

static const char usage_main[] =
    "usage: transpose-bench <command> [options]\n"
    "\n"
    "commands:\n"
    "  run       run a sweep of transpose kernels and write a gzipped CSV log\n"
    "  list      list kernels, power sources (and log columns with --columns)\n"
    "  power     sample the board's power source and print what it reads\n"
    "  compare   compare logs from boards and GPUs, or against a baseline\n"
    "  history   each result night by night, with changes beyond the noise flagged\n"
    "  tune      find each kernel's best block per size and write a tuned sweep file\n"
    "  restore   put back the power mode and clocks a mode sweep that died had changed\n"
    "\n"
    "  transpose-bench <command> --help    options of a command\n"
    "  transpose-bench --version           version and git revision\n";

static const char usage_run[] =
    "usage: transpose-bench run [-c SWEEP.cfg] [-b BOARD.cfg] [-o LOGDIR]\n"
    "                           [--device auto|cpu|cuda[:N]] [--kernels a,b] [--sizes RxC,...]\n"
    "                           [--blocks XxY,...] [--set KEY=VALUE]... [--quiet]\n"
    "\n"
    "  -c, --config FILE   sweep file (default: conf/default.cfg)\n"
    "  -b, --board FILE    board file (default: detected from the device tree or GPU name)\n"
    "  -o, --output DIR    log directory (same as --set output.dir=DIR)\n"
    "      --device D      auto (a usable GPU, else the CPU), cpu, cuda or cuda:N\n"
    "      --kernels LIST  comma-separated kernel names, '*' for all (sweep.kernels)\n"
    "      --sizes LIST    e.g. 8192x8192,8191x12289 (rows x cols; sweep.sizes)\n"
    "      --blocks LIST   e.g. 32x8,16x16 (x x y; sweep.blocks)\n"
    "      --set KEY=VAL   override any setting of either file, e.g. --set sweep.warmup=5\n"
    "  -q, --quiet         nothing on stdout; errors and warnings on stderr (for cron)\n"
    "\n"
    "exit: 0 all points ok, 1 a failure (log still written), 2 usage or configuration\n"
    "error (nothing run, no log), 75 another run holds the lock.\n";

static const char usage_list[] =
    "usage: transpose-bench list [--columns] [--images DIR] [-b BOARD.cfg] [--set KEY=VALUE]...\n"
    "\n"
    "  Lists every kernel (backend, availability, block-shape rule), every embedded kernel\n"
    "  image and the one GPU 0 runs (and why), and every power source with whether it can\n"
    "  work here. --columns prints the log's columns instead; --images DIR writes each\n"
    "  kernel image to a file in DIR (PTX as text, cubins as ELF) for inspection.\n";

static void print_version(void)
{
    printf("transpose-bench %s (git %s)\nkernel images: sha256 %s\n", TB_VERSION, TB_GIT_REV,
           tb_images_sha256);
}

/* Handles --help and --version before any parsing. */
static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

/* ---- shared option handling ------------------------------------------------------- */

struct common {
    struct tb_config cfg;
    struct tb_diag diag;
    const char *sweep_file, *board_file, *device;
    bool quiet;
};

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

/* Options shared by run and tune; tune also takes --seconds and --out. Returns -1 after a
 * usage error (printed), else 0. */
static int parse_run_options(int argc, char **argv, struct common *c, const char *usage,
                             struct tune_req *tune)
{
    static const struct option opts[] = {
        { "config", required_argument, NULL, 'c' }, { "board", required_argument, NULL, 'b' },
        { "output", required_argument, NULL, 'o' }, { "device", required_argument, NULL, 'D' },
        { "kernels", required_argument, NULL, 'K' }, { "sizes", required_argument, NULL, 'S' },
        { "blocks", required_argument, NULL, 'B' }, { "set", required_argument, NULL, 's' },
        { "quiet", no_argument, NULL, 'q' }, { "seconds", required_argument, NULL, 'T' },
        { "out", required_argument, NULL, 'O' }, { NULL, 0, NULL, 0 },
    };
    memset(c, 0, sizeof(*c));
    tb_config_init(&c->cfg);
    c->device = "auto";
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "c:b:o:q", opts, NULL)) != -1) {
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
        case 'D': c->device = optarg; break;
        case 'K': list_option(c, "--kernels", optarg, "sweep.kernels", false); break;
        case 'S': list_option(c, "--sizes", optarg, "sweep.sizes", true); break;
        case 'B': list_option(c, "--blocks", optarg, "sweep.blocks", true); break;
        case 's': tb_config_add_set(&c->cfg, optarg, &c->diag); break;
        case 'q': c->quiet = true; break;
        case 'T':
        case 'O':
            if (!tune) {   /* tune's options, not run's */
                fputs(usage, stderr);
                return -1;
            }
            if (opt == 'O') {
                tune->out = optarg;
            } else {
                char label[PATH_MAX + 16];
                snprintf(label, sizeof(label), "--seconds %s", optarg);
                tb_config_add_override(&c->cfg, "tune.seconds", optarg, label);
            }
            break;
        default:
            fputs(usage, stderr);
            return -1;
        }
    }
    if (optind < argc) {
        error("unexpected argument '%s'", argv[optind]);
        fputs(usage, stderr);
        return -1;
    }
    tb_quiet = c->quiet;
    return 0;
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

static int cmd_run(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        fputs(usage_run, stdout);
        return TB_EXIT_OK;
    }
    struct common c;
    if (parse_run_options(argc, argv, &c, usage_run, NULL) < 0) {
        tb_config_free(&c.cfg);
        tb_diag_free(&c.diag);
        return TB_EXIT_USAGE;
    }
    return do_run(&c, NULL);
}

static const char usage_tune[] =
    "usage: transpose-bench tune [-c SWEEP.cfg] [-b BOARD.cfg] [-o LOGDIR] [--device D]\n"
    "                            [--kernels a,b] [--sizes RxC,...] [--blocks XxY,...]\n"
    "                            [--seconds S] [--out TUNED.cfg] [--set KEY=VALUE]... [--quiet]\n"
    "\n"
    "  For each kernel and size, measures every block shape its rule allows (all power-of-\n"
    "  two shapes of 32 to 1024 threads unless --blocks is given) the way `run` does, within\n"
    "  a time budget (--seconds, tune.seconds, default 600), then writes a sweep file whose\n"
    "  sweep.points hold each kernel's best block per size, and a log of everything it\n"
    "  measured. It says how much of the space it covered. One file per board and element\n"
    "  type (default conf/tuned-<board>-<element>.cfg; --set sweep.element=u8 tunes bytes).\n";

static int cmd_tune(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        fputs(usage_tune, stdout);
        return TB_EXIT_OK;
    }
    struct common c;
    struct tune_req t = { NULL };
    if (parse_run_options(argc, argv, &c, usage_tune, &t) < 0) {
        tb_config_free(&c.cfg);
        tb_diag_free(&c.diag);
        return TB_EXIT_USAGE;
    }
    tune_candidates(&c);
    return do_run(&c, &t);
}

/* ---- list ------------------------------------------------------------------------- */

static int cmd_list(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        fputs(usage_list, stdout);
        return TB_EXIT_OK;
    }
    static const struct option opts[] = {
        { "columns", no_argument, NULL, 'C' }, { "board", required_argument, NULL, 'b' },
        { "set", required_argument, NULL, 's' }, { "images", required_argument, NULL, 'I' },
        { NULL, 0, NULL, 0 },
    };
    struct common c;
    memset(&c, 0, sizeof(c));
    tb_config_init(&c.cfg);
    bool columns = false;
    const char *images = NULL;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "b:", opts, NULL)) != -1) {
        switch (opt) {
        case 'C': columns = true; break;
        case 'I': images = optarg; break;
        case 'b': c.board_file = optarg; break;
        case 's': tb_config_add_set(&c.cfg, optarg, &c.diag); break;
        default:
            fputs(usage_list, stderr);
            tb_config_free(&c.cfg);
            return TB_EXIT_USAGE;
        }
    }
    if (images) {
        tb_config_free(&c.cfg);
        return tb_list_images(images, stdout) < 0 ? TB_EXIT_FAIL : TB_EXIT_OK;
    }
    int rc = columns ? tb_list_columns(stdout) : tb_list(&c.cfg, &c.diag, c.board_file, stdout);
    tb_config_free(&c.cfg);
    tb_diag_free(&c.diag);
    return rc < 0 ? TB_EXIT_USAGE : TB_EXIT_OK;
}

/* ---- power ------------------------------------------------------------------------ */

static int cmd_power(int argc, char **argv)
{
    static const char usage[] =
        "usage: transpose-bench power [-b BOARD.cfg] [--set KEY=VALUE]... [--seconds S]\n"
        "                             [--format " TB_FORMAT_NAMES "]\n"
        "\n"
        "  Samples the board's power source (power.source, auto by default) for S seconds\n"
        "  (default 5) and prints each reading, one row per rail: elapsed_s,source,rail,power_mw\n"
        "  (the table adds the source's GPU load, clocks, temperature and energy).\n";
    if (wants_help(argc, argv)) {
        fputs(usage, stdout);
        return TB_EXIT_OK;
    }
    static const struct option opts[] = {
        { "board", required_argument, NULL, 'b' }, { "set", required_argument, NULL, 's' },
        { "seconds", required_argument, NULL, 'S' }, { "format", required_argument, NULL, 'f' },
        { NULL, 0, NULL, 0 },
    };
    struct common c;
    memset(&c, 0, sizeof(c));
    tb_config_init(&c.cfg);
    double seconds = 5;
    enum tb_format format = TB_FMT_TABLE;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "b:", opts, NULL)) != -1) {
        switch (opt) {
        case 'b': c.board_file = optarg; break;
        case 's': tb_config_add_set(&c.cfg, optarg, &c.diag); break;
        case 'S': {
            char *end;
            seconds = strtod(optarg, &end);
            if (*end || !(seconds > 0 && seconds <= 86400))
                tb_diag_add(&c.diag, "--seconds '%s': expected a number of seconds (0 to 86400]",
                            optarg);
            break;
        }
        case 'f':
            if (tb_format_parse(optarg, &format) < 0)
                tb_diag_add(&c.diag, "--format '%s': expected %s", optarg, tb_format_names);
            break;
        default:
            fputs(usage, stderr);
            tb_config_free(&c.cfg);
            return TB_EXIT_USAGE;
        }
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

/* ---- dispatch --------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    /* a file size limit (or full quota) must give EFBIG, reported, not a silent death */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        fputs(usage_main, stderr);
        return TB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        print_version();
        return TB_EXIT_OK;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_main, stdout);
        return TB_EXIT_OK;
    }
    /* a TB_ROOT (or other TB_* path) that is not there would run silently as another board */
    if (tb_env_check() < 0)
        return TB_EXIT_USAGE;
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "list"))
        return cmd_list(argc - 1, argv + 1);
    if (!strcmp(cmd, "power"))
        return cmd_power(argc - 1, argv + 1);
    if (!strcmp(cmd, "tune"))
        return cmd_tune(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return tb_compare_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "history"))
        return tb_history_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "restore"))   /* restorecmd.h: a mode sweep's board put back */
        return tb_restore_main(argc - 1, argv + 1);
    static const char *const cmds[] = { "run", "list", "power", "compare", "history", "tune",
                                        "restore" };
    const char *sug = tb_suggest(cmd, cmds, ARRAY_SIZE(cmds));
    if (sug)
        error("unknown command '%s' (did you mean '%s'?)", cmd, sug);
    else
        error("unknown command '%s'", cmd);
    fputs(usage_main, stderr);
    return TB_EXIT_USAGE;
}
