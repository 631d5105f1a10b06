/* runcmd.c: see runcmd.h. The options that name a setting (-o, --kernels, --sizes,
 * --blocks, --seconds, --set) become overrides of the configuration, checked by the loader
 * as the line of a file would be, so a bad value is reported with the others in one pass. */
#include "cmd/runcmd.h"

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run.h"
#include "config/config.h"
#include "lib/util.h"

/* The keys of the options that have no short form. */
enum long_key {
    OPT_DEVICE = TB_OPT_LONG, OPT_KERNELS, OPT_SIZES, OPT_BLOCKS, OPT_SET, OPT_SECONDS, OPT_OUT,
    OPT_METRICS,
};

/* What a command line gives a run besides its overrides. */
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

const struct tb_usage tb_run_usage = {
    "run", run_opts,
    "exit: 0 all points ok, 1 a failure (log still written), 2 usage or configuration\n"
    "error (nothing run, no log), 75 another run holds the lock.\n",
};

const struct tb_usage tb_tune_usage = {
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
    return tb_usage_no_operands(u, argc, argv, optind);
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

/* `--kernels best` without --blocks: each candidate over tune's blocks (its rule keeps its
 * own), so that the choice is tune's without a tuned file. */
static void best_candidates(struct common *c)
{
    char v[4096];
    if (tb_config_override(&c->cfg, "sweep.kernels", v, sizeof(v)) && strstr(v, "\"best\""))
        tune_candidates(c);
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

int tb_run_main(int argc, char **argv)
{
    struct common c;
    if (parse_run_options(argc, argv, &c, &tb_run_usage, NULL) < 0) {
        tb_config_free(&c.cfg);
        tb_diag_free(&c.diag);
        return TB_EXIT_USAGE;
    }
    best_candidates(&c);
    return do_run(&c, NULL);
}

int tb_tune_main(int argc, char **argv)
{
    struct common c;
    struct tune_req t = { NULL };
    if (parse_run_options(argc, argv, &c, &tb_tune_usage, &t) < 0) {
        tb_config_free(&c.cfg);
        tb_diag_free(&c.diag);
        return TB_EXIT_USAGE;
    }
    tune_candidates(&c);
    return do_run(&c, &t);
}
