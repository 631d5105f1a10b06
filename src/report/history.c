/* history.c: `transpose-bench history LOG...`: for each board, host, device, kernel, size,
 * element type, power mode and clock caps asked, the best result of each night (the date in the
 * run_id) in time order, judged by the regression alarm (history_alarm.c over alarm.c: the
 * noise learned from the series, a CUSUM on robust residuals, for GB/s, the energy ratio and
 * J/GB): a change flagged from the night it began, never for one noisy night.
 * Exit 1 when a series' latest change is a regression, when a board's latest night failed,
 * when a row failed verification (listed apart, never a night's value), or when a log could
 * not be read.
 * Not here: reading logs (logread.c), the output formats (table.c), the rule (alarm.c). */
#include "report/history.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/imagesdiff.h"
#include "log/logread.h"
#include "report/history_alarm.h"
#include "report/report.h"
#include "format/openmetrics.h"
#include "lib/outfile.h"
#include "lib/stats.h"
#include "format/table.h"
#include "lib/util.h"

static bool same_series(const struct tb_log_rec *a, const struct tb_log_rec *b)
{
    return tb_history_series_cmp(a, b) == 0;
}

/* The series' own columns are the section heading of the terminal table and markdown. */
static const struct tb_table_col cols[] = {
    { .name = "board", .head = "board", .kind = 'S', .data_only = true },
    { .name = "host", .head = "host", .kind = 'S', .data_only = true },
    { .name = "device", .head = "device", .kind = 'S', .data_only = true },
    { .name = "kernel", .head = "kernel", .kind = 'S', .data_only = true },
    { .name = "rows", .head = "rows", .kind = 'N', .data_only = true },
    { .name = "cols", .head = "cols", .kind = 'N', .data_only = true },
    { .name = "elem", .head = "elem", .kind = 'S', .data_only = true },
    { .name = "power_mode", .head = "mode", .kind = 'S', .data_only = true },
    { .name = "gpu_cap_asked_mhz", .head = "GPU cap", .kind = 'N', .data_only = true },
    { .name = "emc_cap_asked_mhz", .head = "EMC cap", .kind = 'N', .data_only = true },
    { .name = "night", .head = "night", .kind = 'S', .width = 10 },
    { .name = "gbps", .head = "best GB/s", .kind = 'N', .dec = 1, .width = 10, .data_dec = 2 },
    { .name = "baseline_gbps", .head = "baseline", .kind = 'N', .dec = 1, .width = 10 },
    { .name = "change_pct", .head = "change", .kind = 'P', .dec = 1, .width = 8 },
    { .name = "gbps_per_w", .head = "GB/s/W", .kind = 'N', .dec = 3, .width = 7,
      .text_only = true },
    { .name = "gbps_per_w_ci95", .head = "+-95%", .kind = 'N', .dec = 3, .width = 6,
      .text_only = true },
    { .name = "flag", .head = "", .kind = 'S', .gap = 1, .blank = true, .data_only = true },
    { .name = "flag_note", .head = "", .kind = 'S', .gap = 1, .blank = true,
      .text_only = true },
    { .name = "machine_id", .head = "machine id", .kind = 'S', .data_only = true },
    { .name = "gbps_per_w", .head = "GB/s/W", .kind = 'N', .data_only = true, .data_dec = 4 },
    { .name = "gbps_per_w_ci95", .head = "+-95%", .kind = 'N', .data_only = true,
      .data_dec = 4 },
    { .name = "note", .head = "note", .kind = 'S', .data_only = true },
};

static const char *energy_flag(const struct tb_log_rec *const *n, size_t i);

/* What else a night's best point says: a throttle cause seen during it, and a ceiling that
 * moved from the night before (a power mode, an EMC cap): a slower night then has a reason
 * apart from the kernel; its energy ratio to the copy with its interval, and whether it
 * moved outside both nights' intervals (energy_flag), with how much warmer or cooler the GPU
 * was; a power-capped night's J/GB beside it (a warmer H200 moved a capped
 * kernel's ratio 0.8% and not its J/GB: doc/results/h200-2026-11-26-energy2.md). */
static void night_note(const struct tb_log_rec *const *n, size_t i, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    if (isfinite(n[i]->energy_ratio)) {
        const char *flag = energy_flag(n, i);
        k += (size_t)snprintf(buf, len, "J/B of copy %.3f +- %.3f", n[i]->energy_ratio,
                              n[i]->energy_ratio_rerun_ci95);
        if (k < len && n[i]->power_capped && isfinite(n[i]->j_per_gb))
            k += (size_t)snprintf(buf + k, len - k, isfinite(n[i]->j_per_gb_ci95)
                                  ? " (power-capped: J/GB %.4f +- %.4f)"
                                  : " (power-capped: J/GB %.4f)", n[i]->j_per_gb,
                                  n[i]->j_per_gb_ci95);
        else if (k < len && n[i]->power_capped)
            k += (size_t)snprintf(buf + k, len - k, " (power-capped)");
        if (k < len && flag[0])
            k += (size_t)snprintf(buf + k, len - k, ", %s", flag);
        double dt = flag[0] ? n[i]->gpu_temp_c - n[i - 1]->gpu_temp_c : NAN;
        if (k < len && fabs(dt) >= 1.0)   /* NAN: no flag or a night without temperature */
            k += (size_t)snprintf(buf + k, len - k, " with the GPU %.1f C %s", fabs(dt),
                                  dt > 0 ? "warmer" : "cooler");
    }
    if (k < len && n[i]->throttle_cause[0])
        k += (size_t)snprintf(buf + k, len - k, "%sthrottled: %s", k ? "; " : "",
                              n[i]->throttle_cause);
    double now = n[i]->peak_gbps, before = i ? n[i - 1]->peak_gbps : NAN;
    if (k < len && !isnan(now) && !isnan(before) && fabs(now / before - 1) > 0.01)
        snprintf(buf + k, len - k, "%sceiling %.1f -> %.1f GB/s", k ? "; " : "", before, now);
}

/* Night i's energy against the night before, by the figure a rerun reproduces: the ratio
 * to the copy, or J/GB where either night's best point was power-capped (its ratio follows
 * the card's temperature, its J/GB not: log_columns.h, power_capped_blocks) and both have
 * J/GB with an interval. A change is one only outside both nights' 95% intervals; "" where
 * it is inside them or either has no interval. */
static const char *energy_flag(const struct tb_log_rec *const *n, size_t i)
{
    if (i == 0)
        return "";
    const struct tb_log_rec *a = n[i - 1], *b = n[i];
    bool cap = (a->power_capped || b->power_capped) && isfinite(a->j_per_gb) &&
               isfinite(a->j_per_gb_ci95) && isfinite(b->j_per_gb) && isfinite(b->j_per_gb_ci95);
    /* each night's interval where a rerun lands (energy_ratio_rerun_ci95: logread.h) */
    double x = cap ? a->j_per_gb : a->energy_ratio;
    double cx = cap ? a->j_per_gb_ci95 : a->energy_ratio_rerun_ci95;
    double y = cap ? b->j_per_gb : b->energy_ratio;
    double cy = cap ? b->j_per_gb_ci95 : b->energy_ratio_rerun_ci95;
    if (!isfinite(x) || !isfinite(y) || !isfinite(cx) || !isfinite(cy) || fabs(y - x) <= cx + cy)
        return "";
    if (cap)
        return y > x ? "more J/GB than the night before (power-capped: judged by J/GB)"
                     : "less J/GB than the night before (power-capped: judged by J/GB)";
    return y > x ? "more J/B than the night before" : "less J/B than the night before";
}

/* The flag of night i from the GB/s alarm's state of it (history_alarm.h). */
static const char *flag_of(unsigned char state, int dir, double x, double level)
{
    switch (state) {
    case TB_AN_BEGIN: return dir < 0 ? "SLOWER from here" : "faster from here";
    case TB_AN_IN: return dir < 0 ? "still slower" : "still faster";
    case TB_AN_OFF: return "one night off (noise)";
    case TB_AN_LATEST_OFF: return x < level ? "lower (one night: not yet a change)"
                                            : "higher (one night)";
    }
    return "";
}

/* The GB/s change night i belongs to (its direction), 0 none. */
static int change_dir(const struct tb_alarm *a, size_t i)
{
    int dir = 0;
    for (size_t c = 0; c < a->nch && a->ch[c].begin <= i; c++)
        dir = a->ch[c].dir;
    return dir;
}

/* The note of a night where a change began: its size, interval, the night it was flagged
 * and what changed with it; then the energy figures' own changes. */
static void change_note(const struct tb_series_alarm *sa, const struct tb_log_rec *const *n,
                        size_t i, const struct tb_logset *all, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t c = 0; c < sa->a[TB_HFIG_GBPS].nch; c++) {
        const struct tb_alarm_change *ch = &sa->a[TB_HFIG_GBPS].ch[c];
        if (ch->begin == i)
            k = (size_t)snprintf(buf, len, "GB/s %+.1f%% +- %.1f%% (flagged %s)",
                                 ch->change_pct, ch->ci95_pct, n[ch->found]->night);
    }
    if (k < len)
        tb_history_alarm_note(sa, n, i, buf + k + (k ? 2 : 0), len - k - (k ? 2 : 0));
    if (k && buf[k + 2])
        memcpy(buf + k, "; ", 2);
    k = strlen(buf);
    char cond[256];
    if (k && k < len) {
        tb_history_alarm_conditions(n, i, all, cond, sizeof(cond));
        if (cond[0])
            snprintf(buf + k, len - k, "; with it: %s", cond);
    }
}

/* The series' heading in the terminal table and markdown. */
static void section_head(struct tb_table *t, const struct tb_log_rec *r)
{
    char h[512], caps[64];
    tb_log_caps_text(caps, sizeof(caps), r->gpu_cap_mhz, r->emc_cap_mhz);
    snprintf(h, sizeof(h), "%s (%s%s%.40s)%s%s%s%.8s%s, %s, %ldx%ld %s%s%s%s%s", r->board,
             r->device, r->device_id[0] ? " " : "", r->device_id, r->host[0] ? " on " : "",
             r->host, r->host_id[0] ? " (" : "", r->host_id, r->host_id[0] ? ")" : "",
             r->kernel, r->rows, r->cols, r->elem, r->power_mode[0] ? ", " : "",
             r->power_mode, caps[0] ? ", " : "", caps);
    tb_table_section(t, h);
}

/* What history makes of one series: its alarms, the tables' rows, the metrics' samples. */
struct hseries {
    const struct tb_log_rec *const *n;
    size_t count;
    const struct tb_logset *all;
    struct tb_series_alarm sa;
};

/* Night i's row (its flag already in out->flag[i]). */
static void night_row(const struct hseries *hs, size_t i, struct tb_table *t,
                      const struct tb_history_series *out)
{
    const struct tb_log_rec *const *n = hs->n, *r = n[0];
    const char *flag = out->flag[i];
    char note[160], change[400], both[600], flag_note[700];
    night_note(n, i, note, sizeof(note));
    change_note(&hs->sa, n, i, hs->all, change, sizeof(change));
    snprintf(both, sizeof(both), "%s%s%s", change, change[0] && note[0] ? "; " : "", note);
    snprintf(flag_note, sizeof(flag_note), "%s%s%s%s%s", flag, flag[0] && both[0] ? " " : "",
             both[0] ? "[" : "", both, both[0] ? "]" : "");
    struct tb_cell c[] = {
        TB_TEXT(r->board), TB_TEXT(r->host), TB_TEXT(r->device), TB_TEXT(r->kernel),
        TB_NUM((double)r->rows), TB_NUM((double)r->cols), TB_TEXT(r->elem),
        TB_TEXT(r->power_mode), TB_NUM(r->gpu_cap_mhz), TB_NUM(r->emc_cap_mhz),
        TB_TEXT(n[i]->night), TB_NUM(out->gbps[i]), TB_NUM(out->base[i]),
        TB_NUM(out->change[i]), TB_NUM(n[i]->gbps_per_w), TB_NUM(n[i]->gbps_per_w_ci95),
        TB_TEXT(flag), TB_TEXT(flag_note), TB_TEXT(r->host_id), TB_NUM(n[i]->gbps_per_w),
        TB_NUM(n[i]->gbps_per_w_ci95), TB_TEXT(both),
    };
    tb_table_row(t, c);
}

/* One series: its nights into the table and into *out for the page (out->n = 0 when out of
 * memory), its state per figure into om (*nom grows); returns 1 when it regressed on its
 * latest night (its latest change in any figure is a regression: history_alarm.h). */
static int series(struct hseries *hs, struct tb_table *t, struct tb_history_series *out,
                  struct tb_om_alarm *om, size_t *nom)
{
    size_t count = hs->count;
    const struct tb_log_rec *const *n = hs->n, *r = n[0];
    unsigned char *state = malloc(count);
    out->night = malloc(count * sizeof(*out->night));
    out->gbps = malloc(3 * count * sizeof(*out->gbps));
    out->flag = malloc(count * sizeof(*out->flag));
    out->n = 0;
    if (!state || !out->night || !out->gbps || !out->flag) {
        free(state);
        return 0;
    }
    *out = (struct tb_history_series){ r->board, r->host, r->device, r->kernel, r->elem,
                                       r->power_mode, r->gpu_cap_mhz, r->emc_cap_mhz, r->rows,
                                       r->cols, count, out->night, out->gbps,
                                       out->gbps + count, out->gbps + 2 * count, out->flag };
    if (tb_history_alarm(n, count, &hs->sa, out->base, state) < 0) {
        out->n = 0;
        free(state);
        return 0;
    }
    section_head(t, r);
    for (size_t i = 0; i < count; i++) {
        out->night[i] = n[i]->night;
        out->gbps[i] = n[i]->gbps;
        out->change[i] = (out->gbps[i] / out->base[i] - 1) * 100;   /* NAN: not judged */
        tb_strlcpy(out->flag[i], flag_of(state[i], change_dir(&hs->sa.a[TB_HFIG_GBPS], i),
                                         out->gbps[i], out->base[i]), sizeof(out->flag[i]));
        night_row(hs, i, t, out);
    }
    free(state);
    *nom += tb_history_alarm_metrics(&hs->sa, n, om + *nom);
    int bad = 0;
    for (int f = 0; f < TB_HFIG_N; f++)
        bad |= tb_series_regressed(&hs->sa, (enum tb_hfig)f);
    return bad;
}

/* Boards whose latest night failed (a failed log, and no measured row of a later night of
 * that board on that host): each said; returns how many. */
static int failed_latest(const struct tb_logset *s)
{
    int n = 0;
    for (size_t i = 0; i < s->nlogs; i++) {
        const struct tb_log_info *l = &s->logs[i];
        bool later = !l->failed || l->bad_time[0];   /* a night that cannot be is no latest */
        for (size_t j = 0; j < s->n && !later; j++) {
            const struct tb_log_rec *r = &s->v[j];
            later = !strcmp(r->board, l->board) &&
                    !tb_log_host_cmp(r->host, r->host_id, l->host, l->host_id) &&
                    strcmp(r->night, l->night) > 0 && tb_log_usable(r);
        }
        for (size_t j = 0; j < s->nlogs && !later; j++)   /* a later failed night says it */
            later = j != i && s->logs[j].failed && !s->logs[j].bad_time[0] &&
                    !strcmp(s->logs[j].board, l->board) &&
                    !strcmp(s->logs[j].host, l->host) &&
                    strcmp(s->logs[j].run_id, l->run_id) > 0;
        if (!later) {   /* a log's text, never raw on a terminal */
            char b[256], h[256], e[1024];
            error("history: the latest night of %s on %s (%s) ended '%s'",
                  tb_table_clean(b, sizeof(b), l->board), tb_table_clean(h, sizeof(h), l->host),
                  l->night, tb_table_clean(e, sizeof(e), l->end));
            n++;
        }
    }
    return n;
}

static const char history_text[] =
    "  For each board, host, device, kernel, size, element type, power mode and clock caps\n"
    "  asked: the best GB/s of each night (the UTC date of the run), in time order, judged by\n"
    "  an alarm that learns each series' night-to-night noise from the series itself and flags\n"
    "  a sustained change (a CUSUM on robust residuals: one bad night alone never alarms),\n"
    "  for GB/s, the energy ratio and J/GB; a change says the night it began, its size with a\n"
    "  95% interval, the night it was flagged and what changed with it (doc/usage.md, \"The\n"
    "  regression alarm\"). A night that failed before measuring is listed with its reason.\n"
    "  Exit 1 when a series' latest change is a regression (less GB/s, more energy), a\n"
    "  board's latest night failed, a row failed verification (listed apart, never a night's\n"
    "  value), a log cannot be read, or a night ran with a reset clock (its log's # clock:\n"
    "  line): when is unknown, so it may be the newest, left out unjudged.\n"
    "  --format json: {\"schema\": \"transpose-bench/history/2\", \"nights\": [rows],\n"
    "  \"failed_nights\": [rows]} (doc/log-format.md). --html writes one self-contained page:\n"
    "  per kernel, size and element type a chart of the nights with a line per board, and the\n"
    "  table with its flags. --plot draws those charts with gnuplot. --metrics writes each\n"
    "  series' state per figure for node_exporter's textfile collector.\n";

/* history's options: long ones only, numbered from TB_OPT_LONG (cli.h). */
enum { H_FORMAT = TB_OPT_LONG, H_HTML, H_PLOT, H_METRICS };

static const struct tb_opt_row history_opts[] = {
    { "format", H_FORMAT, "F", TB_FORMAT_NAMES " (default table)" },
    { "html", H_HTML, "FILE", "write one self-contained page of the nights (below)" },
    { "plot", H_PLOT, "FILE", "draw the page's charts with gnuplot (.svg or .png)" },
    { "metrics", H_METRICS, "FILE",
      "write each series' alarm state for Prometheus (FILE.prom:\n"
      "transpose_bench_regression and its change)" },
    TB_OPT_END,
};

const struct tb_usage tb_history_usage = {
    "history LOG...", history_opts, history_text,   /* the options: from the rows (cli.h) */
};

struct hopts {
    enum tb_format f;
    const char *html_file, *plot_file, *metrics_file;
};

/* 0, or -1 after a usage error (said). Outputs are checked against the inputs here, before
 * anything is read. */
static int parse(int argc, char **argv, struct hopts *o)
{
    struct tb_getopt g;
    tb_getopt_begin(&g, tb_history_usage.opts);
    int opt;
    while ((opt = tb_getopt_next(&g, argc, argv)) != -1) {
        if (opt == H_HTML)
            o->html_file = optarg;
        else if (opt == H_PLOT)
            o->plot_file = optarg;
        else if (opt == H_METRICS)
            o->metrics_file = optarg;
        else if (opt == H_FORMAT && tb_format_parse(optarg, &o->f) < 0)
            return error("history: --format '%s': expected %s", optarg, tb_format_names);
        else if (opt != H_FORMAT) {
            tb_usage_print(&tb_history_usage, stderr);
            return -1;
        }
    }
    if (optind >= argc) {
        tb_usage_print(&tb_history_usage, stderr);
        return -1;
    }
    const char *const *in = (const char *const *)argv + optind;
    const char *outs[] = { o->html_file, o->plot_file, o->metrics_file };   /* outfile.h */
    return tb_outfile_check("history", outs, 3, in, (size_t)(argc - optind));
}

/* The series of the k usable rows (sorted), into the table and hs; returns the series
 * whose latest night is inside a slowdown. */
static int all_series(struct tb_log_rec *v, size_t k, struct tb_table *t,
                      const struct tb_log_rec **best, struct tb_history_series *hs, size_t *nhs,
                      const struct tb_logset *all, struct tb_om_alarm *om, size_t *nom)
{
    int regressions = 0;
    for (size_t i = 0; i < k;) {
        size_t n = 0, j = i;
        for (; j < k && same_series(&v[i], &v[j]); j++)
            if (n == 0 || strcmp(best[n - 1]->night, v[j].night))
                best[n++] = &v[j];   /* the first of a night is its best */
        struct hseries h = { best, n, all, { .nights = { 0 } } };
        regressions += series(&h, t, &hs[(*nhs)++], om, nom);
        i = j;
    }
    return regressions;
}

/* The page and the plot; the exit code so far, made 1 when one fails. */
static int pictures(const struct hopts *o, struct tb_doc *d, const struct tb_history_series *hs,
                    size_t nhs, int regressions, const struct tb_logset *all, int code)
{
    if (o->html_file && tb_report_history(hs, nhs, regressions, all, o->html_file) < 0)
        code = TB_EXIT_FAIL;
    else if (o->html_file)
        tb_doc_note(d, "page: %s", o->html_file);
    if (o->plot_file && tb_report_history_plot(hs, nhs, o->plot_file) < 0)
        code = TB_EXIT_FAIL;
    else if (o->plot_file)
        tb_doc_note(d, "plot: %s", o->plot_file);
    return code;
}

/* --metrics: each series' state per figure; the exit code so far, made 1 when it fails. */
static int metrics(const struct hopts *o, struct tb_doc *d, const struct tb_om_alarm *om,
                   size_t nom, int code)
{
    if (o->metrics_file && tb_openmetrics_alarms_file("history", o->metrics_file, om, nom) < 0)
        return TB_EXIT_FAIL;
    if (o->metrics_file)
        tb_doc_note(d, "metrics: %s", o->metrics_file);
    return code;
}

/* Logs whose stamp cannot be are flagged (stderr) and left out: the page says how many.
 * Returns how many of them a reset clock wrote (their `# clock:` line): when such a night ran
 * is unknown (its stamp is the reset clock's, its floor only the tool's build date), so any
 * of them may be the newest night, left out unjudged (#58: counting only those whose floor
 * came after the latest night kept missed a board reset months after its install). */
static size_t note_untimed(struct tb_doc *d, const struct tb_logset *all,
                           const struct tb_log_rec *v, size_t k)
{
    size_t untimed = 0, reset = 0;
    const char *latest = "";
    for (size_t i = 0; i < k; i++)
        latest = strcmp(v[i].night, latest) > 0 ? v[i].night : latest;
    for (size_t i = 0; i < all->nlogs; i++) {
        untimed += all->logs[i].bad_time[0] != 0;
        reset += all->logs[i].clock_floor[0] != 0;
    }
    if (untimed)
        tb_doc_note(d, "%zu log%s stamped with a time that cannot be (named above): left "
                    "out of nights, baselines and bands; the latest night is the latest "
                    "plausible one", untimed, untimed == 1 ? "" : "s");
    if (reset)
        error("history: %zu night%s ran with a reset clock (the log's # clock: line): when is "
              "unknown, so %s may be newer than %s, the latest night kept, and %s left out: "
              "nothing is judged on %s (set the boards' clocks; move such logs aside once "
              "read)", reset, reset == 1 ? "" : "s", reset == 1 ? "it" : "they",
              latest[0] ? latest : "(none)", reset == 1 ? "is" : "are",
              reset == 1 ? "it" : "them");
    return reset;
}

int tb_history_main(int argc, char **argv)
{
    struct hopts o = { TB_FMT_TABLE, NULL, NULL, NULL };
    if (parse(argc, argv, &o) < 0)
        return TB_EXIT_USAGE;
    struct tb_logset all;
    tb_logset_init(&all, "history");
    for (int i = optind; i < argc; i++)
        tb_logread(&all, argv[i]);
    tb_logset_fill_ids(&all);
    tb_logset_fill_device_ids(&all);   /* after the machine-ids: it matches hosts by them */
    tb_images_note_nights("history", argv + optind, (size_t)(argc - optind));   /* said, not judged */
    size_t k = 0, nfailed = 0;
    for (size_t i = 0; i < all.nlogs; i++)
        nfailed += all.logs[i].failed;
    struct tb_log_rec *v = all.v;
    size_t nwrong = 0;
    for (size_t i = 0; i < all.n; i++)
        nwrong += tb_log_wrong(&v[i]);
    struct tb_log_rec *wrong = calloc(nwrong ? nwrong : 1, sizeof(*wrong));
    if (!wrong) {
        error("history: out of memory for %zu rows", nwrong);
        tb_logset_free(&all);
        return TB_EXIT_FAIL;
    }
    for (size_t i = 0, w = 0; i < all.n; i++)   /* kept apart before the compaction below */
        if (tb_log_wrong(&v[i]))
            wrong[w++] = v[i];
    for (size_t i = 0; i < all.n; i++)   /* the rows with a night and a result */
        if (tb_log_usable(&v[i]) && v[i].night[0])
            v[k++] = v[i];
    if (k == 0 && nfailed == 0 && nwrong == 0) {
        error("history: no measured row with a night in the logs given");
        int code = all.problems ? TB_EXIT_FAIL : TB_EXIT_USAGE;
        free(wrong);
        tb_logset_free(&all);
        return code;
    }
    all.n = k;
    tb_sort(v, k, sizeof(*v), tb_history_night_cmp);   /* only failed nights: v may be NULL */
    const struct tb_log_rec **best = malloc((k ? k : 1) * sizeof(*best));
    struct tb_history_series *hs = calloc(k ? k : 1, sizeof(*hs));
    struct tb_om_alarm *om = calloc((k ? k : 1) * TB_HFIG_N, sizeof(*om));
    size_t nhs = 0, nom = 0;
    int code = TB_EXIT_FAIL;
    if (best && hs && om) {
        struct tb_doc d;
        struct tb_table t;
        tb_doc_begin(&d, stdout, o.f, "history");
        tb_table_begin(&t, &d, "nights", "", cols, ARRAY_SIZE(cols));
        int regressions = all_series(v, k, &t, best, hs, &nhs, &all, om, &nom);
        tb_table_end(&t);
        tb_report_failed_nights(&d, &all, "history");
        size_t wrong_shown = tb_report_wrong_rows(&d, wrong, nwrong, "history");
        int failed = failed_latest(&all);
        size_t newest_out = note_untimed(&d, &all, v, k);
        tb_doc_note(&d, "%d series regressed on the latest night%s%s", regressions,
                    failed ? "; the latest night failed on some boards (above)" : "",
                    wrong_shown ? "; some rows failed verification (above)" : "");
        code = regressions || failed || wrong_shown || all.problems || newest_out ?
               TB_EXIT_FAIL : TB_EXIT_OK;
        code = pictures(&o, &d, hs, nhs, regressions, &all, code);
        code = metrics(&o, &d, om, nom, code);
        if (tb_doc_end(&d) < 0) {   /* a full disk must not pass for a whole table */
            error("history: cannot write the output: %s", strerror(errno ? errno : EIO));
            code = TB_EXIT_FAIL;
        }
    }
    for (size_t i = 0; i < nhs; i++) {
        free(hs[i].night);
        free(hs[i].gbps);
        free(hs[i].flag);
    }
    free(hs);
    free(om);
    free(best);
    free(wrong);
    tb_logset_free(&all);
    return code;
}
