/* compare.c: `transpose-bench compare`. Reads logs (logread.c), and prints per size the best
 * point of each kernel on each board and host; with --baseline, the best of each point on
 * either side marked faster, slower or same by a rule that counts both runs' measured spread,
 * exiting 1 when one regressed beyond --threshold. A failed night is listed with its reason,
 * a row that failed verification apart (never a best point or a baseline), and both exit 1.
 * The output goes through the table writer (table.c); --html and --plot: report.c. */
#include "report/compare.h"
#include "report/compare_key.h"
#include "report/compare_pareto.h"

#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/imagesdiff.h"
#include "log/logread.h"
#include "report/report.h"
#include "format/table.h"
#include "lib/outfile.h"
#include "lib/util.h"

#define rec tb_log_rec   /* a row as the log reader gives it */

#define SAME_FLOOR 0.01      /* a change under 1% is never faster or slower */
#define Z95 1.96             /* a 95% interval from a relative standard error */

static int by_all(const void *a, const void *b) { return tb_compare_by_key(a, b, K_HOST | K_BLOCK); }
static int by_all_but_host(const void *a, const void *b) { return tb_compare_by_key(a, b, K_BLOCK); }

/* The best usable point of each group (tb_compare_by_key with what) into out; sorts in. One kernel at
 * one size on one board, host and device, with one element type in one power mode under the
 * same clock caps asked: a u8 and a double point, a 5W and a MAXN night, a 15W night under a
 * GPU cap and one without, two Nanos, are never merged. */
static size_t best_points(struct rec *in, size_t n_in, struct rec *out, unsigned what)
{
    size_t n = 0;
    tb_sort(in, n_in, sizeof(*in), what & K_HOST ? by_all : by_all_but_host);
    for (size_t i = 0; i < n_in; i++) {
        const struct rec *r = &in[i];
        if (!tb_log_usable(r))
            continue;
        if (n && tb_compare_by_key(&out[n - 1], r, what) == 0) {
            /* the fastest point, with the best GB/s per W measured for the group (a power
             * run and a bench run of the same board need not share their fastest point),
             * that row's interval and energy per byte going with it */
            struct rec pw = out[n - 1];
            if (r->gbps_per_w > pw.gbps_per_w || (isnan(pw.gbps_per_w) && !isnan(r->gbps_per_w)))
                pw = *r;
            if (r->gbps > out[n - 1].gbps)
                out[n - 1] = *r;
            out[n - 1].gbps_per_w = pw.gbps_per_w;
            out[n - 1].gbps_per_w_ci95 = pw.gbps_per_w_ci95;
            out[n - 1].j_per_gb = pw.j_per_gb;
            out[n - 1].j_per_gb_ci95 = pw.j_per_gb_ci95;
            out[n - 1].dyn_pj_per_byte = pw.dyn_pj_per_byte;
            out[n - 1].dyn_pj_per_byte_ci95 = pw.dyn_pj_per_byte_ci95;
            out[n - 1].energy_ratio = pw.energy_ratio;
            out[n - 1].energy_ratio_rerun_ci95 = pw.energy_ratio_rerun_ci95;
        } else {
            out[n++] = *r;
        }
    }
    return n;
}

/* The CSV columns keep the order they always had (scripts read them): element and power mode
 * come last there, and early in the tables people read. */
static const struct tb_table_col best_cols[] = {
    { .name = "rows", .head = "rows", .kind = 'N', .data_only = true },
    { .name = "cols", .head = "cols", .kind = 'N', .data_only = true },
    { .name = "kernel", .head = "kernel", .kind = 'S', .width = 16 },
    { .name = "board", .head = "board", .kind = 'S', .width = 18, .cut = true },
    { .name = "elem", .head = "element", .kind = 'S', .width = 7, .text_only = true },
    { .name = "power_mode", .head = "power mode", .kind = 'S', .width = 10, .cut = true,
      .text_only = true },
    { .name = "device", .head = "device", .kind = 'S', .width = 28, .cut = true },
    { .name = "gbps", .head = "best GB/s", .kind = 'N', .dec = 1, .width = 10, .data_dec = 2 },
    { .name = "block", .head = "block", .kind = 'S', .width = 8, .text_only = true },
    { .name = "block_x", .head = "block x", .kind = 'N', .data_only = true },
    { .name = "block_y", .head = "block y", .kind = 'N', .data_only = true },
    { .name = "frac_peak", .head = "of peak", .kind = 'N', .dec = 3, .width = 8, .data_dec = 4 },
    { .name = "frac_copy", .head = "of memcpy", .kind = 'N', .dec = 3, .width = 9, .data_dec = 4 },
    { .name = "gbps_per_w", .head = "GB/s per W", .kind = 'N', .dec = 3, .width = 10,
      .data_dec = 4 },
    { .name = "gbps_per_w_ci", .head = "+-95%", .kind = 'N', .dec = 3, .width = 6,
      .text_only = true },
    { .name = "dyn_pj", .head = "pJ/B dyn", .kind = 'N', .dec = 1, .width = 8,
      .text_only = true },
    { .name = "energy_ratio", .head = "J/B of copy", .kind = 'N', .dec = 3, .width = 11,
      .text_only = true },
    { .name = "energy_ratio_ci", .head = "+-95%", .kind = 'N', .dec = 3, .width = 6,
      .text_only = true },
    { .name = "host", .head = "host", .kind = 'S', .width = 12, .cut = true },
    { .name = "machine_id", .head = "machine id", .kind = 'S', .data_only = true },
    { .name = "elem", .head = "element", .kind = 'S', .data_only = true },
    { .name = "power_mode", .head = "power mode", .kind = 'S', .data_only = true },
    { .name = "gpu_cap_asked_mhz", .head = "GPU cap", .kind = 'N', .data_only = true },
    { .name = "emc_cap_asked_mhz", .head = "EMC cap", .kind = 'N', .data_only = true },
    { .name = "gbps_per_w_ci95", .head = "GB/s per W +-95%", .kind = 'N', .data_only = true,
      .data_dec = 4 },
    { .name = "j_per_gb", .head = "J/GB", .kind = 'N', .data_only = true, .data_dec = 4 },
    { .name = "j_per_gb_ci95", .head = "J/GB +-95%", .kind = 'N', .data_only = true,
      .data_dec = 4 },
    { .name = "dyn_pj_per_byte", .head = "dynamic pJ/B", .kind = 'N', .data_only = true,
      .data_dec = 2 },
    { .name = "dyn_pj_per_byte_ci95", .head = "dynamic pJ/B +-95%", .kind = 'N',
      .data_only = true, .data_dec = 2 },
    { .name = "energy_ratio", .head = "J/B of copy", .kind = 'N', .data_only = true,
      .data_dec = 4 },
    { .name = "energy_ratio_rerun_ci95", .head = "J/B of copy +-95% (a rerun)", .kind = 'N',
      .data_only = true, .data_dec = 4 },
};

/* The terminal's "power mode" column (text_only where the table has one) made wide enough
 * for the caps when a point has some: a cap cut off would read as the mode uncapped. Points
 * without caps keep the table as it always was. cols: a copy of the table's columns. */
static void widen_mode(struct tb_table_col *cols, size_t ncols, const struct rec *v, size_t n)
{
    size_t want = 0;
    for (size_t i = 0; i < n; i++) {
        char m[160];
        if (isfinite(v[i].gpu_cap_mhz) || isfinite(v[i].emc_cap_mhz))
            if (strlen(tb_compare_mode_text(m, sizeof(m), &v[i])) > want)
                want = strlen(m);
    }
    for (size_t k = 0; k < ncols && want; k++)
        if (!strcmp(cols[k].name, "power_mode") && !cols[k].data_only &&
            (size_t)cols[k].width < want)
            cols[k].width = (int)want;
}

static void print_best(struct tb_doc *d, const struct rec *v, size_t n)
{
    struct tb_table t;
    struct tb_table_col cols[ARRAY_SIZE(best_cols)];
    memcpy(cols, best_cols, sizeof(cols));
    widen_mode(cols, ARRAY_SIZE(cols), v, n);
    tb_table_begin(&t, d, "best", "", cols, ARRAY_SIZE(cols));
    for (size_t i = 0; i < n; i++) {
        const struct rec *r = &v[i];
        if (i == 0 || r->rows != v[i - 1].rows || r->cols != v[i - 1].cols) {
            char h[64];
            snprintf(h, sizeof(h), "%ld x %ld", r->rows, r->cols);
            tb_table_section(&t, h);
        }
        char blk[32], mode[160];
        tb_compare_block_text(blk, sizeof(blk), r);
        tb_compare_mode_text(mode, sizeof(mode), r);
        struct tb_cell c[] = {
            TB_NUM((double)r->rows), TB_NUM((double)r->cols), TB_TEXT(r->kernel),
            TB_TEXT(r->board), TB_TEXT(r->elem), TB_TEXT(mode), TB_TEXT(r->device),
            TB_NUM(r->gbps), TB_TEXT(blk), TB_NUM(r->bx), TB_NUM(r->by), TB_NUM(r->frac_peak),
            TB_NUM(r->frac_copy), TB_NUM(r->gbps_per_w), TB_NUM(r->gbps_per_w_ci95),
            TB_NUM(r->dyn_pj_per_byte), TB_NUM(r->energy_ratio),
            TB_NUM(r->energy_ratio_rerun_ci95),
            TB_TEXT(r->host), TB_TEXT(r->host_id), TB_TEXT(r->elem),
            TB_TEXT(r->power_mode), TB_NUM(r->gpu_cap_mhz), TB_NUM(r->emc_cap_mhz),
            TB_NUM(r->gbps_per_w_ci95), TB_NUM(r->j_per_gb),
            TB_NUM(r->j_per_gb_ci95), TB_NUM(r->dyn_pj_per_byte),
            TB_NUM(r->dyn_pj_per_byte_ci95), TB_NUM(r->energy_ratio),
            TB_NUM(r->energy_ratio_rerun_ci95),   /* where a rerun lands (before #59, the
                                                   * output called it energy_ratio_ci95) */
        };
        tb_table_row(&t, c);
    }
    tb_table_end(&t);
}

/* ---- baseline --------------------------------------------------------------------- */

/* A change delta whose 95% interval has half-width w: "same" within the floor; beyond it,
 * up or down where the interval lies on one side of 0, else "undecided": a change the
 * noise cannot tell from none (nvbench's compare: each change judged against both runs'
 * noise). */
static const char *judge(double delta, double w, const char *up, const char *down)
{
    if (fabs(delta) <= SAME_FLOOR)
        return "same";
    if (delta - w > 0)
        return up;
    if (delta + w < 0)
        return down;
    return "undecided";
}

const char *tb_compare_verdict(double base, double now, double sem_base, double sem_now,
                               double *delta)
{
    *delta = now / base - 1.0;
    double sb = isnan(sem_base) ? 0 : sem_base, sn = isnan(sem_now) ? 0 : sem_now;
    return judge(*delta, Z95 * sqrt(sb * sb + sn * sn), "faster", "slower");
}

const char *tb_compare_energy_verdict(double base, double ci_base, double now, double ci_now,
                                      double *delta)
{
    *delta = now / base - 1.0;
    if (!isfinite(*delta) || !isfinite(ci_base) || !isfinite(ci_now) || !(base > 0) ||
        !(now > 0))
        return NULL;
    double w = (now / base) * sqrt(ci_base * ci_base / (base * base) +
                                   ci_now * ci_now / (now * now));
    return judge(*delta, w, "more", "less");
}

static const struct tb_table_col base_cols[] = {
    { .name = "rows", .head = "rows", .kind = 'N', .data_only = true },
    { .name = "cols", .head = "cols", .kind = 'N', .data_only = true },
    { .name = "size", .head = "size", .kind = 'S', .width = 12, .text_only = true },
    { .name = "kernel", .head = "kernel", .kind = 'S', .width = 16 },
    { .name = "board", .head = "board", .kind = 'S', .width = 18, .cut = true },
    { .name = "device", .head = "device", .kind = 'S', .data_only = true },
    { .name = "block", .head = "block", .kind = 'S', .width = 8, .text_only = true },
    { .name = "block_x", .head = "block x", .kind = 'N', .data_only = true },
    { .name = "block_y", .head = "block y", .kind = 'N', .data_only = true },
    { .name = "base_gbps", .head = "baseline", .kind = 'N', .dec = 1, .width = 12,
      .data_dec = 2 },
    { .name = "gbps", .head = "GB/s", .kind = 'N', .dec = 1, .width = 10, .data_dec = 2 },
    { .name = "delta_pct", .head = "change", .kind = 'P', .dec = 1, .width = 8, .data_dec = 2 },
    { .name = "verdict", .head = "verdict", .kind = 'S', .width = 9 },
    { .name = "regression", .head = "", .kind = 'S', .width = 10, .blank = true },
    { .name = "base_energy_ratio", .head = "J/B of copy before", .kind = 'N', .data_only = true,
      .data_dec = 4 },
    { .name = "energy_ratio", .head = "J/B of copy", .kind = 'N', .data_only = true,
      .data_dec = 4 },
    { .name = "energy_delta_pct", .head = "J/B", .kind = 'P', .dec = 1, .width = 7,
      .data_dec = 2 },
    { .name = "energy_verdict", .head = "J/B verdict", .kind = 'S', .width = 11 },
    { .name = "host", .head = "host", .kind = 'S', .width = 12, .cut = true },
    { .name = "machine_id", .head = "machine id", .kind = 'S', .data_only = true },
    { .name = "elem", .head = "element", .kind = 'S', .width = 7 },
    { .name = "power_mode", .head = "power mode", .kind = 'S', .width = 10, .cut = true,
      .text_only = true },
    { .name = "power_mode", .head = "power mode", .kind = 'S', .data_only = true },
    { .name = "gpu_cap_asked_mhz", .head = "GPU cap", .kind = 'N', .data_only = true },
    { .name = "emc_cap_asked_mhz", .head = "EMC cap", .kind = 'N', .data_only = true },
};

/* The best of each point now against the best of the same point in the baseline logs (a
 * night with a manual run and the cron run is one night, not a regression of itself).
 * Returns the regressions, or -1 when nothing matched. */
static int print_baseline(struct tb_doc *d, const struct rec *now, size_t nn,
                          const struct rec *base, size_t nb, double threshold_pct)
{
    struct tb_table t;
    struct tb_table_col cols[ARRAY_SIZE(base_cols)];
    memcpy(cols, base_cols, sizeof(cols));
    widen_mode(cols, ARRAY_SIZE(cols), now, nn);
    tb_table_begin(&t, d, "baseline", "", cols, ARRAY_SIZE(cols));
    int regressions = 0;
    size_t matched = 0, other_mode = 0;
    for (size_t i = 0; i < nn; i++) {
        const struct rec *r = &now[i], *b = NULL;
        bool mode_differs = false;
        for (size_t j = 0; j < nb && !b; j++) {
            if (tb_compare_by_key(r, &base[j], K_BLOCK) == 0) {
                b = &base[j];
            } else {
                struct rec m = base[j];
                tb_strlcpy(m.power_mode, r->power_mode, sizeof(m.power_mode));
                m.gpu_cap_mhz = r->gpu_cap_mhz;
                m.emc_cap_mhz = r->emc_cap_mhz;
                mode_differs |= tb_compare_by_key(r, &m, K_BLOCK) == 0;
            }
        }
        if (!b) {
            other_mode += mode_differs;
            continue;
        }
        matched++;
        double delta, edelta;
        const char *v = tb_compare_verdict(b->gbps, r->gbps, b->rel_sem, r->rel_sem, &delta);
        const char *ev = tb_compare_energy_verdict(b->energy_ratio, b->energy_ratio_rerun_ci95,
                                                   r->energy_ratio, r->energy_ratio_rerun_ci95,
                                                   &edelta);
        bool regressed = !strcmp(v, "slower") && -delta * 100 > threshold_pct;
        regressions += regressed;
        char size[48], blk[32], mode[160];
        snprintf(size, sizeof(size), "%ldx%ld", r->rows, r->cols);
        tb_compare_block_text(blk, sizeof(blk), r);
        tb_compare_mode_text(mode, sizeof(mode), r);
        struct tb_cell c[] = {
            TB_NUM((double)r->rows), TB_NUM((double)r->cols), TB_TEXT(size), TB_TEXT(r->kernel),
            TB_TEXT(r->board), TB_TEXT(r->device), TB_TEXT(blk), TB_NUM(r->bx), TB_NUM(r->by),
            TB_NUM(b->gbps), TB_NUM(r->gbps), TB_NUM(delta * 100), TB_TEXT(v),
            TB_TEXT(regressed ? "REGRESSION" : ""), TB_NUM(b->energy_ratio),
            TB_NUM(r->energy_ratio), TB_NUM(ev ? edelta * 100 : NAN), TB_TEXT(ev ? ev : ""), TB_TEXT(r->host), TB_TEXT(r->host_id),
            TB_TEXT(r->elem), TB_TEXT(mode), TB_TEXT(r->power_mode), TB_NUM(r->gpu_cap_mhz),
            TB_NUM(r->emc_cap_mhz),
        };
        tb_table_row(&t, c);
    }
    tb_table_end(&t);
    tb_doc_note(d, "%zu points compared, %d regressed beyond %.1f%%", matched, regressions,
                threshold_pct);
    if (other_mode)
        warning("compare: %zu point(s) match the baseline only in another power mode or "
                "under other clock caps: not compared (a 5W night is no regression of a MAXN "
                "one, nor a night under a GPU cap of an uncapped one)", other_mode);
    if (matched == 0) {
        error("compare: no point of the logs matches a point of the baseline (same size, "
              "kernel, board, device, block, element type, power mode and clock caps asked): "
              "nothing compared");
        return -1;
    }
    return regressions;
}

/* ---- main ------------------------------------------------------------------------- */

/* compare's options: long ones only, numbered from TB_OPT_LONG (cli.h). */
enum { C_BASELINE = TB_OPT_LONG, C_THRESHOLD, C_FORMAT, C_PLOT, C_HTML, C_PARETO };

static const struct tb_opt_row compare_opts[] = {
    { "baseline", C_BASELINE, "LOG",
      "compare with these logs' best points instead; repeatable,\n"
      "and a quoted glob 'PATTERN' takes every log it matches" },
    { "threshold", C_THRESHOLD, "PERCENT",
      "with --baseline: exit 1 when a point is slower by more\n"
      "than this (default 5)" },
    { "format", C_FORMAT, "F", TB_FORMAT_NAMES " (default table)" },
    { "plot", C_PLOT, "FILE", "draw the charts with gnuplot (.svg or .png)" },
    { "html", C_HTML, "FILE",
      "write one self-contained page of the best points: tables and\n"
      "SVG charts (not with --baseline)" },
    { "pareto", C_PARETO, NULL,
      "per kernel and size, the Pareto front of GB/s against energy\n"
      "per byte (not with --baseline or --plot)" },
    TB_OPT_END,
};

const struct tb_usage tb_compare_usage = {
    "compare LOG... [--baseline LOG|'PATTERN']... [--threshold PERCENT]\n"
    "                               [--format " TB_FORMAT_NAMES "] [--plot FILE.svg|.png]\n"
    "                               [--html FILE.html] [--pareto]",
    compare_opts,
    "  Reads logs (.csv.gz or .csv, any boards) and prints, per matrix size, each kernel's\n"
    "  best point per board and host: GB/s, block shape, fraction of peak, fraction of\n"
    "  memcpy, and the best GB/s per watt measured for it; nights that failed before\n"
    "  measuring are listed with their reason. With --baseline (e.g. a pattern that takes\n"
    "  yesterday's manual and cron runs), compares the best of each point on either side\n"
    "  instead, from both sides' 95% intervals (GB/s: the rows' spread; the energy ratio:\n"
    "  where a rerun lands): same within 1%; beyond it, faster / slower (more / less energy)\n"
    "  where the change's interval lies on one side of 0, undecided where it holds 0; exits\n"
    "  1 when a point is slower by more than --threshold (default 5%), 2 when no point\n"
    "  matched.\n"
    "  --format json: one object, {\"schema\": \"transpose-bench/compare/2\", \"best\" or\n"
    "  \"baseline\": [rows], \"failed_nights\": [rows]} (doc/log-format.md).\n"
    "  --html writes one self-contained page (tables, SVG charts: fraction of memcpy, GB/s\n"
    "  on a log axis, GB/s per W; no network fetches); --plot draws the same charts with\n"
    "  gnuplot (.svg or .png). Neither may name a log or an input (exit 2).\n"
    "  --pareto: per kernel and size, the Pareto front of GB/s against dynamic energy per\n"
    "  byte across power modes and clock caps (a mode sweep's logs, doc/power.md), each\n"
    "  operating point's fastest row with its 95% intervals, the knee marked, then each\n"
    "  one whose energy figures were withheld, with its power_note; exits 1 when no row\n"
    "  has an energy figure; with --html, each front drawn on a page (the knee ringed).\n"
    "  Not with --baseline or --plot.\n",
};

struct opts {
    char **base;           /* baseline logs, each pattern expanded */
    size_t nbase;
    const char *plot_file, *html_file;
    enum tb_format f;
    double threshold;
    bool pareto;
};

/* A --baseline: a log, or a pattern of logs (glob(3); a name that matches nothing stays as
 * it is, to be said unreadable). */
static int add_baseline(struct opts *o, const char *arg)
{
    glob_t g;
    if (glob(arg, GLOB_NOCHECK, NULL, &g) != 0)
        return error("compare: --baseline '%s': cannot expand the pattern", arg);
    char **v = realloc(o->base, (o->nbase + g.gl_pathc) * sizeof(*v));
    int rc = v ? 0 : error("compare: out of memory");
    for (size_t i = 0; v && i < g.gl_pathc; i++)
        if (!(v[o->nbase] = strdup(g.gl_pathv[i])))
            rc = error("compare: out of memory");
        else
            o->nbase++;
    if (v)
        o->base = v;
    globfree(&g);
    return rc;
}

static void free_opts(struct opts *o)
{
    for (size_t i = 0; i < o->nbase; i++)
        free(o->base[i]);
    free(o->base);
}

/* 0, or -1 after a usage error (said). */
static int parse(int argc, char **argv, struct opts *o)
{
    struct tb_getopt g;
    tb_getopt_begin(&g, tb_compare_usage.opts);
    int opt;
    while ((opt = tb_getopt_next(&g, argc, argv)) != -1) {
        switch (opt) {
        case C_BASELINE:
            if (add_baseline(o, optarg) < 0)
                return -1;
            break;
        case C_PLOT: o->plot_file = optarg; break;
        case C_HTML: o->html_file = optarg; break;
        case C_PARETO: o->pareto = true; break;
        case C_FORMAT:
            if (tb_format_parse(optarg, &o->f) < 0)
                return error("compare: --format '%s': expected %s", optarg, tb_format_names);
            break;
        case C_THRESHOLD:
            if (tb_parse_number(optarg, 0, false, 100, &o->threshold) < 0)   /* util.h */
                return error("compare: --threshold '%s': expected a percentage from 0 to 100",
                             optarg);
            break;
        default:
            tb_usage_print(&tb_compare_usage, stderr);
            return -1;
        }
    }
    if (o->html_file && o->nbase)
        return error("compare: --html draws the best points, not a comparison with --baseline: "
                     "give one of them");
    if (o->pareto && (o->nbase || o->plot_file))
        return error("compare: --pareto prints the fronts (and --html draws them): not with "
                     "--baseline or --plot");
    if (optind >= argc) {
        error("compare: no log given");
        tb_usage_print(&tb_compare_usage, stderr);
        return -1;
    }
    /* a page or a plot never goes over a log, an input or the other: lib/outfile.h's rule,
     * checked before anything is read */
    const char *outs[] = { o->html_file, o->plot_file };
    size_t nin = (size_t)(argc - optind) + o->nbase;
    const char **in = calloc(nin, sizeof(*in));
    if (!in)
        return error("compare: out of memory");
    memcpy(in, argv + optind, (size_t)(argc - optind) * sizeof(*in));
    if (o->nbase)
        memcpy(in + (argc - optind), o->base, o->nbase * sizeof(*in));
    int rc = tb_outfile_check("compare", outs, 2, in, nin);
    free(in);
    return rc;
}

/* The best points: the table, the page, the plot. Returns the exit code so far. */
static int show_best(struct tb_doc *d, const struct opts *o, struct tb_logset *now,
                     size_t nlogs, int code)
{
    struct rec *best = calloc(now->n ? now->n : 1, sizeof(*best));
    if (!best) {
        error("compare: out of memory for %zu rows", now->n);
        return TB_EXIT_FAIL;
    }
    size_t nb = best_points(now->v, now->n, best, K_HOST);
    if (!o->nbase)
        print_best(d, best, nb);
    if (o->html_file && tb_report_compare(best, nb, nlogs, now, o->html_file) < 0)
        code = TB_EXIT_FAIL;
    else if (o->html_file)
        tb_doc_note(d, "page: %s", o->html_file);
    if (o->plot_file && tb_report_compare_plot(best, nb, o->plot_file) < 0)
        code = TB_EXIT_FAIL;
    else if (o->plot_file)
        tb_doc_note(d, "plot: %s", o->plot_file);
    free(best);
    return code;
}

static int run_baseline(struct tb_doc *d, const struct opts *o, struct tb_logset *now,
                        struct tb_logset *old, int code)
{
    struct rec *bn = calloc(now->n ? now->n : 1, sizeof(*bn));
    struct rec *bo = calloc(old->n ? old->n : 1, sizeof(*bo));
    if (!bn || !bo) {
        free(bn);
        free(bo);
        error("compare: out of memory");
        return TB_EXIT_FAIL;
    }
    /* a baseline stamped with a time that cannot be is no baseline (flagged when read) */
    size_t kept = 0;
    for (size_t i = 0; i < old->n; i++)
        if (!old->v[i].bad_time)
            old->v[kept++] = old->v[i];
    if (kept < old->n)
        warning("compare: %zu baseline row%s of a run stamped with a time that cannot be: "
                "left out", old->n - kept, old->n - kept == 1 ? "" : "s");
    old->n = kept;
    size_t nn = best_points(now->v, now->n, bn, K_HOST | K_BLOCK);
    size_t no = best_points(old->v, old->n, bo, K_BLOCK);
    int reg = print_baseline(d, bn, nn, bo, no, o->threshold);
    free(bn);
    free(bo);
    if (reg < 0)
        return TB_EXIT_USAGE;   /* a nightly gate must not pass on nothing compared */
    return reg > 0 ? TB_EXIT_FAIL : code;
}

int tb_compare_main(int argc, char **argv)
{
    struct opts o = { .f = TB_FMT_TABLE, .threshold = 5 };
    if (parse(argc, argv, &o) < 0) {
        free_opts(&o);
        return TB_EXIT_USAGE;
    }
    struct tb_logset now, old;
    tb_logset_init(&now, "compare");
    tb_logset_init(&old, "compare");
    for (int i = optind; i < argc; i++)
        tb_logread(&now, argv[i]);
    for (size_t i = 0; i < o.nbase; i++)
        tb_logread(&old, o.base[i]);
    tb_logset_fill_ids(&now);   /* an old log without a machine-id joins its one machine */
    if (o.nbase)   /* other images on the two sides: said beside the verdict */
        tb_images_note_sides("compare", argv + optind, (size_t)(argc - optind), o.base, o.nbase);
    int code = now.problems || old.problems ? TB_EXIT_FAIL : TB_EXIT_OK;
    struct tb_doc d;
    tb_doc_begin(&d, stdout, o.f, "compare");
    size_t usable = 0;
    for (size_t i = 0; i < now.n; i++)
        usable += tb_log_usable(&now.v[i]);
    if (usable == 0) {
        error("compare: no measured row in the logs given");
        code = TB_EXIT_FAIL;
        if (o.pareto)
            tb_compare_pareto(&d, NULL, 0, o.html_file);
        else if (!o.nbase)
            print_best(&d, NULL, 0);   /* JSON: its table, empty */
        if (!o.nbase && !o.pareto && o.html_file)   /* a page still, with the failed nights */
            tb_report_compare(NULL, 0, (size_t)(argc - optind), &now, o.html_file);
    } else if (o.pareto) {
        if (tb_compare_pareto(&d, now.v, now.n, o.html_file) == 0)
            code = TB_EXIT_FAIL;
    } else {
        if (o.nbase)
            code = run_baseline(&d, &o, &now, &old, code);
        if (!o.nbase || o.plot_file)
            code = show_best(&d, &o, &now, (size_t)(argc - optind), code) == TB_EXIT_FAIL
                   ? TB_EXIT_FAIL : code;
    }
    if (o.pareto)
        tb_compare_pareto_skipped(&d, &now);
    tb_report_failed_nights(&d, &now, "compare");
    if (tb_report_wrong_rows(&d, now.v, now.n, "compare") > 0)
        code = TB_EXIT_FAIL;   /* a wrong kernel is a failure to see, never a pass */
    /* a table cut short by a full disk must not pass for a whole one */
    if (tb_doc_end(&d) < 0) {
        error("compare: cannot write the output: %s", strerror(errno ? errno : EIO));
        code = TB_EXIT_FAIL;
    }
    tb_logset_free(&now);
    tb_logset_free(&old);
    free_opts(&o);
    return code;
}
