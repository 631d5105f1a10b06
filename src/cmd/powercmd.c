/* powercmd.c: see powercmd.h. Readings are printed as they arrive, from the sampler's
 * ring, so what is printed is exactly what a run would integrate. */
#include "cmd/powercmd.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "power/power.h"
#include "lib/util.h"
#include "lib/cli.h"
#include "measure/board.h"

static const struct tb_table_col cols[] = {
    { .name = "elapsed_s", .head = "t_s", .kind = 'N', .dec = 3, .width = 8 },
    { .name = "source", .head = "source", .kind = 'S', .data_only = true },
    { .name = "rail", .head = "rail", .kind = 'S', .width = 14 },
    { .name = "power_mw", .head = "mW", .kind = 'N', .width = 7 },
    { .name = "gpu_load_pct", .head = "gpu %", .kind = 'N', .width = 5, .text_only = true },
    { .name = "gpu_clock_mhz", .head = "gpu MHz", .kind = 'N', .width = 7, .text_only = true },
    { .name = "emc_load_pct", .head = "emc %", .kind = 'N', .width = 5, .text_only = true },
    { .name = "gpu_temp_c", .head = "gpu C", .kind = 'N', .dec = 1, .width = 5,
      .text_only = true },
    { .name = "energy_j", .head = "energy J", .kind = 'N', .dec = 3, .width = 10,
      .text_only = true },
};

/* One reading: a row per rail, the source's other figures on the first. */
static void print_sample(struct tb_table *t, const char *source, const struct tb_power_rails *r,
                         const struct tb_power_sample *s, double elapsed)
{
    for (int i = 0; i < r->n; i++) {
        bool first = i == 0;
        struct tb_cell c[] = {
            TB_NUM(elapsed), TB_TEXT(source), TB_TEXT(r->name[i]), TB_NUM(s->rail_mw[i]),
            TB_NUM(first ? s->gpu_load_pct : NAN), TB_NUM(first ? s->gpu_clock_mhz : NAN),
            TB_NUM(first ? s->emc_load_pct : NAN), TB_NUM(first ? s->gpu_temp_c : NAN),
            TB_NUM(first ? s->energy_mj * 1e-3 : NAN),
        };
        tb_table_row(t, c);
    }
    fflush(t->doc->out);
}

int tb_power_command(const struct tb_power_cfg *pc, const char *board, double seconds,
                     enum tb_format f, FILE *out)
{
    char why[512];
    const struct tb_power_ops *ops = tb_power_pick(pc->source, pc, why, sizeof(why));
    if (!ops) {
        error("%s", why);
        return TB_EXIT_FAIL;
    }
    if (ops->flags & TB_POWER_NOTHING) {
        error("no power source to sample on board '%s'%s%s (see 'transpose-bench list')", board,
              why[0] ? ": " : "", why);
        return TB_EXIT_FAIL;
    }
    struct tb_sampler *s;
    int interval = pc->interval_ms;
    size_t cap = (size_t)(seconds * 1000 / interval) + 64;
    if (tb_sampler_start(&s, ops, pc, interval, cap, why, sizeof(why)) < 0) {
        error("power source '%s' cannot start: %s", ops->name, why);
        return TB_EXIT_FAIL;
    }
    const struct tb_power_rails *rails = tb_sampler_rails(s);
    char bclean[512];
    struct tb_doc d;
    struct tb_table t;
    tb_doc_begin(&d, out, f, "power");
    if (!tb_format_is_data(f))
        fprintf(out, "source %s, board %s, every %d ms\n", ops->name,
                tb_text_clean(bclean, sizeof(bclean), board, false), interval);
    tb_table_begin(&t, &d, "readings", "", cols, ARRAY_SIZE(cols));
    int64_t t0 = tb_now_ns(), end = t0 + (int64_t)(seconds * 1e9), last = t0 - 1;
    size_t printed = 0;
    for (;;) {
        int64_t now = tb_now_ns();
        size_t n;
        struct tb_power_sample *buf = tb_sampler_window(s, last + 1, now, 0, &n);
        for (size_t i = 0; i < n; i++) {
            if (buf[i].t_ns <= last)
                continue;
            print_sample(&t, ops->name, rails, &buf[i], (double)(buf[i].t_ns - t0) * 1e-9);
            last = buf[i].t_ns;
            printed++;
        }
        free(buf);
        if (now >= end || tb_sampler_failed(s))
            break;
        tb_sleep_ns((int64_t)interval * 1000000 / 2);
    }
    bool failed = tb_sampler_failed(s);
    tb_sampler_stop(s, NULL);
    tb_table_end(&t);
    if (tb_doc_end(&d) < 0) {
        error("power: cannot write the output: %s", strerror(errno ? errno : EIO));
        return TB_EXIT_FAIL;
    }
    if (printed == 0) {
        error("power source '%s' gave no reading in %.1f s", ops->name, seconds);
        return TB_EXIT_FAIL;
    }
    return failed ? TB_EXIT_FAIL : TB_EXIT_OK;
}

/* ---- the command line ------------------------------------------------------------ */

enum { OPT_SET = TB_OPT_LONG, OPT_SECONDS, OPT_FORMAT };

static const struct tb_opt_row power_opts[] = {
    { "board", 'b', "BOARD.cfg", "board file (default: detected, as run does)" },
    { "set", OPT_SET, "KEY=VAL...", "override a setting of the board file, e.g.\n"
                                    "--set power.source=nvml" },
    { "seconds", OPT_SECONDS, "S", "how long to sample (default 5)" },
    { "format", OPT_FORMAT, "F", TB_FORMAT_NAMES " (default table)" },
    TB_OPT_END,
};

const struct tb_usage tb_power_usage = {
    "power", power_opts,
    "  Samples the board's power source (power.source, auto by default) for S seconds\n"
    "  (default 5) and prints each reading, one row per rail: elapsed_s,source,rail,power_mw\n"
    "  (the table adds the source's GPU load, clocks, temperature and energy).\n",
};

int tb_power_main(int argc, char **argv)
{
    struct tb_getopt g;
    tb_getopt_begin(&g, tb_power_usage.opts);
    struct tb_config cfg;
    struct tb_diag diag = { 0 };
    tb_config_init(&cfg);
    const char *board_file = NULL;
    double seconds = 5;
    enum tb_format format = TB_FMT_TABLE;
    int opt;
    while ((opt = tb_getopt_next(&g, argc, argv)) != -1) {
        switch (opt) {
        case 'b': board_file = optarg; break;
        case OPT_SET: tb_config_add_set(&cfg, optarg, &diag); break;
        case OPT_SECONDS:
            if (tb_parse_number(optarg, 0, true, 86400, &seconds) < 0)   /* util.h's parser */
                tb_diag_add(&diag, "--seconds '%s': expected a number of seconds (0 to 86400]",
                            optarg);
            break;
        case OPT_FORMAT:
            if (tb_format_parse(optarg, &format) < 0)
                tb_diag_add(&diag, "--format '%s': expected %s", optarg, tb_format_names);
            break;
        default:
            tb_usage_print(&tb_power_usage, stderr);
            tb_config_free(&cfg);
            return TB_EXIT_USAGE;
        }
    }
    if (tb_usage_no_operands(&tb_power_usage, argc, argv, optind) < 0) {
        tb_config_free(&cfg);
        tb_diag_free(&diag);
        return TB_EXIT_USAGE;
    }
    /* the board file: given, or detected (as run does; nothing said of the choice) */
    char board_path[PATH_MAX], board_why[512];
    if (tb_board_pick(&cfg, board_file, NULL, board_path, sizeof(board_path), board_why,
                      sizeof(board_why)) < 0)
        tb_diag_add(&diag, "cannot find a board file: %s (give one with -b)", board_why);
    else
        tb_config_load(&cfg, NULL, board_path, &diag);
    int code = TB_EXIT_USAGE;
    if (diag.n)
        tb_diag_print(&diag);
    else
        code = tb_power_command(&cfg.board.power, cfg.board.name, seconds, format,
                                stdout);
    tb_config_free(&cfg);
    tb_diag_free(&diag);
    return code;
}
