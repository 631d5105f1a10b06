/* report.c: what `compare` and `history` show as pictures, composed once and drawn either as
 * the --html page (html.c: inline SVG and tables) or as the --plot picture (plot.c: gnuplot):
 * per size and element type, the charts of every board (fraction of memcpy and of peak, GB/s
 * on a log axis, GB/s per W) saying which boards lack the size, and on the page the table;
 * per kernel, size, element type, power mode and caps of history, the nights of every board as
 * lines, and on the page the table with the flags. */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/html.h"
#include "report/plot.h"
#include "lib/groups.h"
#include "lib/stats.h"
#include "lib/util.h"

#define MAXS 64   /* series (boards) and categories (kernels) a chart shows */

static size_t find_or_add(const char **v, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(v[i], s))
            return i;
    if (*n == MAXS)
        return MAXS;
    v[*n] = s;
    return (*n)++;
}

/* Where the charts go: the page (html, with tables) or the gnuplot picture. */
struct canvas {
    FILE *html;
    struct tb_plot *plot;
};

static void cv_heading(const struct canvas *cv, const char *heading, const char *note)
{
    if (!cv->html) {
        tb_plot_heading(cv->plot, heading, note);
        return;
    }
    fputs("<h2>", cv->html);
    tb_html_text(cv->html, heading);
    fputs("</h2>\n", cv->html);
    if (note && note[0]) {
        fputs("<p class=\"flag\">", cv->html);
        tb_html_text(cv->html, note);
        fputs("</p>\n", cv->html);
    }
}

static void cv_bars(const struct canvas *cv, const char *title, const char *unit,
                    const char *const *cats, size_t nc, const char *const *series, size_t ns,
                    const double *v, bool log)
{
    if (cv->html)
        tb_html_bars(cv->html, title, unit, cats, nc, series, ns, v, log);
    else
        tb_plot_bars(cv->plot, title, unit, cats, nc, series, ns, v, log);
}

static void cv_lines(const struct canvas *cv, const char *title, const char *unit,
                     const char *const *xs, size_t nx, const char *const *series, size_t ns,
                     const double *v)
{
    if (cv->html)
        tb_html_lines(cv->html, title, unit, xs, nx, series, ns, v);
    else
        tb_plot_lines(cv->plot, title, unit, xs, nx, series, ns, v);
}

/* A chart's series: the board on its host (two Nanos are two series), with its power mode
 * where it has one and the clock caps a mode sweep's step asked (compare's best points keep
 * a capped night apart); the machine-id's start where two hosts share a name. */
#define TB_SERIES_LABEL 320   /* board, host, id, mode, caps: each field's bound, summed */
static void series_label(char *out, size_t n, const struct tb_log_rec *r)
{
    char caps[64];
    tb_log_caps_text(caps, sizeof(caps), r->gpu_cap_mhz, r->emc_cap_mhz);
    snprintf(out, n, "%s%s%s%s%.8s%s%s%s%s%s", r->board, r->host[0] ? " on " : "", r->host,
             r->host_id[0] ? " (" : "", r->host_id, r->host_id[0] ? ")" : "",
             r->power_mode[0] ? " " : "", r->power_mode, caps[0] ? ", " : "", caps);
}

static void cv_scatter(const struct canvas *cv, const char *title, const char *xunit,
                       const char *yunit, const char *const *series, size_t ns,
                       const struct tb_xy *pts, size_t n)
{
    if (cv->html)
        tb_html_scatter(cv->html, title, xunit, yunit, series, ns, pts, n);
    else
        tb_plot_scatter(cv->plot, title, xunit, yunit, series, ns, pts, n);
}

/* The energy chart of one size: each kernel's best point per board, its energy per byte
 * against its GB/s, with the 95% interval: the dynamic energy (above idle) where every
 * point has it, else the total energy per GB. */
static void energy_chart(const struct canvas *cv, const struct tb_log_rec *v, size_t n,
                         const char *const *series, size_t ns)
{
    struct tb_xy *pts = calloc(n ? n : 1, sizeof(*pts));
    if (!pts)
        return;
    bool dyn = true;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i].j_per_gb))
            dyn &= isfinite(v[i].dyn_pj_per_byte) && v[i].dyn_pj_per_byte > 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i].j_per_gb))
            continue;
        char lab[TB_SERIES_LABEL];
        series_label(lab, sizeof(lab), &v[i]);
        size_t s = 0;
        while (s < ns && strcmp(series[s], lab))
            s++;
        if (s == ns)
            continue;
        pts[m++] = (struct tb_xy){ v[i].gbps, dyn ? v[i].dyn_pj_per_byte : v[i].j_per_gb,
                                   dyn ? v[i].dyn_pj_per_byte_ci95 : v[i].j_per_gb_ci95, s,
                                   v[i].kernel, false, NAN, false };
    }
    if (m)
        cv_scatter(cv, dyn ? "Energy per byte above idle against GB/s (95% intervals)"
                           : "Energy per GB at total power against GB/s (95% intervals)",
                   "GB/s", dyn ? "dynamic pJ per byte" : "J per GB", series, ns, pts, m);
    free(pts);
}

/* "x +- ci" with dec decimals, "x" where no interval, "-" where no figure. */
static void cell_ci(FILE *f, double v, double ci, int dec)
{
    fputs("<td class=\"n\">", f);
    if (!isfinite(v))
        fputs("-", f);
    else if (isfinite(ci))
        fprintf(f, "%.*f &plusmn; %.*f", dec, v, dec, ci);
    else
        fprintf(f, "%.*f", dec, v);
    fputs("</td>", f);
}

/* A number with dec decimals; pct: signed, as a percentage. */
static void cell_num(FILE *f, double v, int dec, bool pct)
{
    fputs("<td class=\"n\">", f);
    if (isfinite(v))
        fprintf(f, pct ? "%+.*f%%" : "%.*f", dec, v);
    else
        fputs("-", f);
    fputs("</td>", f);
}

static void cell(FILE *f, const char *s)
{
    fputs("<td>", f);
    tb_html_text(f, s[0] ? s : "-");
    fputs("</td>", f);
}

/* The order of sizes (rows, columns, element type) that puts each size's points together */
static int by_size(const void *x, const void *y)
{
    const struct tb_log_rec *a = x, *b = y;
    if (a->rows != b->rows)
        return a->rows < b->rows ? -1 : 1;
    if (a->cols != b->cols)
        return a->cols < b->cols ? -1 : 1;
    return strcmp(a->elem, b->elem);
}

/* Items v[0..n) fall into groups by same(); take_group fills idx with the group of item i
 * among those not yet done (i first), marks them done and returns how many. */
typedef bool (*same_fn)(const void *v, size_t a, size_t b);

static size_t take_group(const void *v, size_t n, size_t i, bool *done, same_fn same,
                         size_t *idx)
{
    size_t m = 0;
    for (size_t j = i; j < n; j++)
        if (!done[j] && same(v, i, j)) {
            idx[m++] = j;
            done[j] = true;
        }
    return m;
}

/* The page's table of one size: every best point with its figures and intervals. */
static void size_table(FILE *f, const struct tb_log_rec *v, size_t n)
{
    fputs("<table><tr><th>kernel</th><th>board</th><th>device</th><th>power mode</th>"
          "<th>block</th><th>GB/s</th><th>of peak</th><th>of memcpy</th><th>GB/s per W "
          "(95%)</th><th>J per GB (95%)</th><th>dynamic pJ per byte (95%)</th><th>J per byte "
          "of the copy's (95%)</th></tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        char blk[32] = "-";
        if (v[i].bx)
            snprintf(blk, sizeof(blk), "%dx%d", v[i].bx, v[i].by);
        fputs("<tr>", f);
        cell(f, v[i].kernel);
        cell(f, v[i].board);
        cell(f, v[i].device);
        char mode[160], caps[64];   /* the caps asked, where a step asked some */
        tb_log_caps_text(caps, sizeof(caps), v[i].gpu_cap_mhz, v[i].emc_cap_mhz);
        snprintf(mode, sizeof(mode), "%s%s%s", v[i].power_mode,
                 v[i].power_mode[0] && caps[0] ? ", " : "", caps);
        cell(f, mode);
        cell(f, blk);
        cell_num(f, v[i].gbps, 1, false);
        cell_num(f, v[i].frac_peak, 3, false);
        cell_num(f, v[i].frac_copy, 3, false);
        cell_ci(f, v[i].gbps_per_w, v[i].gbps_per_w_ci95, 3);
        cell_ci(f, v[i].j_per_gb, v[i].j_per_gb_ci95, 4);
        cell_ci(f, v[i].dyn_pj_per_byte, v[i].dyn_pj_per_byte_ci95, 1);
        cell_ci(f, v[i].energy_ratio, v[i].energy_ratio_rerun_ci95, 3);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* One size and element type: v[0..n), sorted by kernel then board. */
static void compare_size(const struct canvas *cv, const struct tb_log_rec *v, size_t n,
                         const char *const *boards, size_t nboards)
{
    char h[96];
    snprintf(h, sizeof(h), "%ldx%ld %s", v[0].rows, v[0].cols, v[0].elem);
    const char *cats[MAXS], *series[MAXS];
    char labels[MAXS][TB_SERIES_LABEL];
    size_t nc = 0, ns = 0;
    for (size_t i = 0; i < n; i++) {
        find_or_add(cats, &nc, v[i].kernel);
        char lab[TB_SERIES_LABEL];
        series_label(lab, sizeof(lab), &v[i]);
        bool have = false;
        for (size_t s = 0; s < ns; s++)
            have |= !strcmp(series[s], lab);
        if (!have && ns < MAXS) {
            tb_strlcpy(labels[ns], lab, sizeof(labels[ns]));
            series[ns] = labels[ns];
            ns++;
        }
    }
    /* boards of the whole input that have no row at this size */
    char note[1024] = "";
    size_t len = 0;
    for (size_t b = 0; b < nboards; b++) {
        bool here = false;
        for (size_t i = 0; i < n && !here; i++)
            here = !strcmp(v[i].board, boards[b]);
        if (!here && len < sizeof(note))
            len += (size_t)snprintf(note + len, sizeof(note) - len, "%s%s",
                                    len ? ", " : "Not measured at this size: ", boards[b]);
    }
    cv_heading(cv, h, note);
    double *frac = malloc(sizeof(double) * nc * ns * 4);
    if (!frac)
        return;
    double *gbps = frac + nc * ns, *perw = gbps + nc * ns, *peak = perw + nc * ns;
    for (size_t i = 0; i < nc * ns * 4; i++)
        frac[i] = NAN;
    bool any_w = false, any_peak = false;
    for (size_t i = 0; i < n; i++) {
        char lab[TB_SERIES_LABEL];
        series_label(lab, sizeof(lab), &v[i]);
        size_t c = find_or_add(cats, &nc, v[i].kernel), s = find_or_add(series, &ns, lab);
        if (c >= MAXS || s >= MAXS)
            continue;
        frac[c * ns + s] = v[i].frac_copy;
        gbps[c * ns + s] = v[i].gbps;
        perw[c * ns + s] = v[i].gbps_per_w;
        peak[c * ns + s] = v[i].frac_peak;
        any_w |= isfinite(v[i].gbps_per_w) != 0;
        any_peak |= isfinite(v[i].frac_peak) != 0;
    }
    cv_bars(cv, "Fraction of memcpy (same board, same size)", "of memcpy", cats, nc, series, ns,
            frac, false);
    if (any_peak)
        cv_bars(cv, "Fraction of the board's peak bandwidth", "of peak", cats, nc, series, ns,
                peak, false);
    cv_bars(cv, "Best GB/s", "GB/s", cats, nc, series, ns, gbps, true);
    if (any_w) {
        cv_bars(cv, "GB/s per watt", "GB/s per W", cats, nc, series, ns, perw, false);
        energy_chart(cv, v, n, series, ns);
    }
    free(frac);
    if (cv->html)
        size_table(cv->html, v, n);
}

/* Every size and element type, in the order of best (by size, then kernel); 0, or -1 out
 * of memory (said). */
static int compare_all(const struct canvas *cv, const struct tb_log_rec *best, size_t n)
{
    const char *boards[MAXS];
    size_t nb = 0;
    for (size_t i = 0; i < n; i++)
        find_or_add(boards, &nb, best[i].board);
    size_t *order = NULL, *start = NULL, sizes = 0, shown = 0;
    struct tb_log_rec *grp = malloc((n ? n : 1) * sizeof(*grp));
    int rc = grp ? tb_groups(best, n, sizeof(*best), by_size, &order, &start, &sizes) : -1;
    for (size_t g = 0; g < sizes && rc == 0; g++) {
        if (cv->html && tb_html_full(cv->html))   /* a page past its bound shows no more */
            break;                                 /* (html.h, #58) */
        size_t m = start[g + 1] - start[g];
        for (size_t k = 0; k < m; k++)
            grp[k] = best[order[start[g] + k]];
        compare_size(cv, grp, m, boards, nb);
        shown++;
    }
    if (rc == 0 && shown < sizes)
        tb_html_left_out(cv->html, "compare", sizes - shown, sizes, "sizes");
    free(order);
    free(start);
    free(grp);
    if (rc)
        error("compare: out of memory for the charts");
    return rc;
}

/* The failed nights of s as a table on a page (every text escaped): a night that measured
 * nothing is on every page, as in the text and JSON outputs (#33). */
static void html_failed_nights(FILE *f, const struct tb_logset *s)
{
    size_t n = 0;
    for (size_t i = 0; s && i < s->nlogs; i++)
        n += s->logs[i].failed;
    if (n == 0)
        return;
    fprintf(f, "<h2>Failed nights (nothing measured): %zu</h2>\n<table>\n<tr><th>night</th>"
            "<th>host</th><th>board</th><th>how it ended</th></tr>\n", n);
    for (size_t i = 0; i < s->nlogs; i++) {
        const struct tb_log_info *l = &s->logs[i];
        if (!l->failed)
            continue;
        const char *cells[] = { l->night, l->host, l->board, l->end };
        fputs("<tr>", f);
        for (size_t c = 0; c < ARRAY_SIZE(cells); c++) {
            fputs("<td>", f);
            tb_html_text(f, cells[c]);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

int tb_report_compare(const struct tb_log_rec *best, size_t n, size_t nlogs,
                      const struct tb_logset *s, const char *path)
{
    struct tb_html h;
    char title[128];
    snprintf(title, sizeof(title), "transpose-bench compare: %zu log%s", nlogs,
             nlogs == 1 ? "" : "s");
    if (tb_html_open(&h, path, title) < 0)
        return -1;
    if (n)
        fputs("<p>Each kernel's best point per board, size and element type; fractions of "
              "memcpy are against the same board's memcpy at the same size in the same "
              "logs.</p>\n", h.f);
    else
        fputs("<p>No point was measured in the logs given.</p>\n", h.f);
    html_failed_nights(h.f, s);
    struct canvas cv = { h.f, NULL };
    return n && compare_all(&cv, best, n) < 0 ? tb_html_abort(&h) : tb_html_close(&h);
}

/* ---- compare --pareto --html ---------------------------------------------------------- */

/* One front: its points as the scatter draws them (GB/s against dynamic pJ/B, both
 * intervals, the front joined, the knee ringed), and the table under it. */
static void pareto_front(FILE *f, const struct tb_report_front *fr)
{
    struct tb_xy *pts = calloc(fr->n ? fr->n : 1, sizeof(*pts));
    if (!pts)
        return;
    for (size_t i = 0; i < fr->n; i++) {
        const struct tb_pareto_point *q = &fr->p[i];
        pts[i] = (struct tb_xy){ q->x, q->y, q->y_ci, 0, fr->label[q->src], q->front, q->x_ci,
                                 q->knee };
    }
    /* short enough for the legend's 224 px beside the plot ("operating points (front
     * joined, knee ringed)" was cut at "ringed") */
    const char *series[1] = { "points: front dashed, knee ringed" };
    cv_heading(&(struct canvas){ f, NULL }, fr->title, NULL);
    tb_html_scatter(f, "GB/s against dynamic energy per byte, per power mode and clock caps "
                    "(95% intervals)", "dynamic pJ per byte", "GB/s", series, 1, pts, fr->n);
    free(pts);
    fputs("<table><tr><th>operating point</th><th>GB/s (95%)</th><th>dynamic pJ per byte "
          "(95%)</th><th>of the fastest's GB/s</th><th>of its pJ/B</th><th>front</th></tr>\n", f);
    for (size_t i = 0; i < fr->n; i++) {
        const struct tb_pareto_point *q = &fr->p[i];
        fputs("<tr>", f);
        cell(f, fr->label[q->src]);
        cell_ci(f, q->y, q->y_ci, 1);
        cell_ci(f, q->x, q->x_ci, 1);
        cell_num(f, q->frac_y_of_fastest, 3, false);
        cell_num(f, q->frac_x_of_fastest, 3, false);
        cell(f, q->knee ? "yes, the knee" : q->front ? "yes" : "no");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

int tb_report_pareto(const struct tb_report_front *fr, size_t n, const char *path)
{
    struct tb_html h;
    if (tb_html_open(&h, path, "transpose-bench compare --pareto") < 0)
        return -1;
    fputs("<p>Per kernel and size on each board: every power mode and clock cap's fastest "
          "point with an energy figure, GB/s against the energy per byte above idle. The front "
          "holds the points no other beats on both; the knee is where more GB/s starts to cost "
          "the most energy (doc/power.md).</p>\n", h.f);
    if (!n)
        fputs("<p>No row with a dynamic energy figure: a front needs a power source and rows "
              "from a mode sweep.</p>\n", h.f);
    for (size_t i = 0; i < n; i++)
        pareto_front(h.f, &fr[i]);
    return tb_html_close(&h);
}

int tb_report_compare_plot(const struct tb_log_rec *best, size_t n, const char *path)
{
    struct canvas cv = { NULL, tb_plot_open(path, "compare") };
    if (!cv.plot)
        return -1;
    int rc = compare_all(&cv, best, n);
    return tb_plot_close(cv.plot) < 0 || rc < 0 ? -1 : 0;
}

/* ---- history ---------------------------------------------------------------------- */

/* Two caps asked the same (NAN: none asked, the same as none). */
static bool same_cap(double a, double b)
{
    return isnan(a) ? isnan(b) : a == b;
}

static bool same_chart(const void *v, size_t i, size_t j)
{
    const struct tb_history_series *a = (const struct tb_history_series *)v + i,
                                   *b = (const struct tb_history_series *)v + j;
    return !strcmp(a->kernel, b->kernel) && !strcmp(a->elem, b->elem) &&
           !strcmp(a->power_mode, b->power_mode) && same_cap(a->gpu_cap_mhz, b->gpu_cap_mhz) &&
           same_cap(a->emc_cap_mhz, b->emc_cap_mhz) && a->rows == b->rows && a->cols == b->cols;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The median of v[0..n), v left as it is; NAN when empty or out of memory. */
static double median_of(const double *v, size_t n)
{
    double *c = malloc((n ? n : 1) * sizeof(*c));
    if (!c)
        return NAN;
    memcpy(c, v, n * sizeof(*c));
    double m = tb_median(c, n);
    free(c);
    return m;
}

static void history_chart(const struct canvas *cv, const struct tb_history_series *const *g,
                          size_t m)
{
    const struct tb_history_series *s0 = g[0];
    char title[256], caps[64];
    tb_log_caps_text(caps, sizeof(caps), s0->gpu_cap_mhz, s0->emc_cap_mhz);
    snprintf(title, sizeof(title), "%s, %ldx%ld %s%s%s%s%s", s0->kernel, s0->rows, s0->cols,
             s0->elem, s0->power_mode[0] ? ", " : "", s0->power_mode, caps[0] ? ", " : "", caps);
    cv_heading(cv, title, NULL);
    size_t total = 0;
    for (size_t i = 0; i < m; i++)
        total += g[i]->n;
    const char **nights = malloc((total ? total : 1) * sizeof(*nights));
    const char *series[MAXS];
    char labels[MAXS][TB_SERIES_LABEL];
    size_t ns = m < MAXS ? m : MAXS, nx = 0;
    double *val = nights ? malloc(sizeof(double) * ns * (total ? total : 1)) : NULL;
    if (!val) {
        free(nights);
        return;
    }
    for (size_t i = 0; i < m; i++)
        for (size_t k = 0; k < g[i]->n; k++)
            nights[nx++] = g[i]->night[k];
    tb_sort(nights, nx, sizeof(*nights), by_text);
    size_t u = 0;
    for (size_t i = 0; i < nx; i++)
        if (!u || strcmp(nights[u - 1], nights[i]))
            nights[u++] = nights[i];
    nx = u;
    for (size_t s = 0; s < ns; s++) {
        snprintf(labels[s], sizeof(labels[s]), "%s (%s)%s%s", g[s]->board, g[s]->device,
                 g[s]->host[0] ? " on " : "", g[s]->host);
        series[s] = labels[s];
        double med = median_of(g[s]->gbps, g[s]->n);
        for (size_t x = 0, k = 0; x < nx; x++) {
            bool at = k < g[s]->n && !strcmp(g[s]->night[k], nights[x]);
            val[s * nx + x] = at && med > 0 ? g[s]->gbps[k++] / med : NAN;
        }
    }
    /* relative: a Nano's nights and an H100's on one axis, each change visible */
    cv_lines(cv, "Best GB/s per night, relative to each board's median night", "of median",
             nights, nx, series, ns, val);
    free(val);
    free(nights);
    FILE *f = cv->html;
    if (!f)
        return;
    fputs("<table><tr><th>board</th><th>host</th><th>night</th><th>best GB/s</th>"
          "<th>baseline</th><th>change</th><th>flag</th></tr>\n", f);
    for (size_t s = 0; s < m; s++)
        for (size_t k = 0; k < g[s]->n; k++) {
            fputs("<tr>", f);
            cell(f, g[s]->board);
            cell(f, g[s]->host);
            cell(f, g[s]->night[k]);
            cell_num(f, g[s]->gbps[k], 1, false);
            cell_num(f, g[s]->base[k], 1, false);
            cell_num(f, g[s]->change[k], 1, true);
            fputs(strstr(g[s]->flag[k], "SLOWER") || strstr(g[s]->flag[k], "still slower")
                      ? "<td class=\"flag\">" : "<td>", f);
            tb_html_text(f, g[s]->flag[k]);
            fputs("</td></tr>\n", f);
        }
    fputs("</table>\n", f);
}

/* Every chart of history (series of one kernel, size, element type, power mode and caps
 * together); 0, or -1 out of memory (said). */
static int history_all(const struct canvas *cv, const struct tb_history_series *v, size_t n)
{
    const struct tb_history_series **g = malloc((n ? n : 1) * sizeof(*g));
    size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
    bool *done = calloc(n ? n : 1, sizeof(*done));
    int rc = g && idx && done ? 0 : -1;
    size_t charts = 0, shown = 0;   /* a page past its bound shows no more (html.h, #58) */
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (done[i])
            continue;
        size_t m = take_group(v, n, i, done, same_chart, idx);
        if (charts++, cv->html && tb_html_full(cv->html))
            continue;
        for (size_t k = 0; k < m; k++)
            g[k] = &v[idx[k]];
        history_chart(cv, g, m);
        shown++;
    }
    if (rc == 0 && shown < charts)
        tb_html_left_out(cv->html, "history", charts - shown, charts, "charts");
    free(g);
    free(idx);
    free(done);
    if (rc)
        error("history: out of memory for the charts");
    return rc;
}

int tb_report_history(const struct tb_history_series *v, size_t n, int regressions,
                      const struct tb_logset *s, const char *path)
{
    struct tb_html h;
    if (tb_html_open(&h, path, "transpose-bench history") < 0)
        return -1;
    if (n)
        fprintf(h.f, "<p>%d series regressed on the latest night. A change is what the "
                "regression alarm flags: a sustained change beyond the noise the series itself "
                "shows (a CUSUM on robust residuals); one bad night alone is noise.</p>\n",
                regressions);
    else   /* only failed nights: not "0 series regressed" */
        fputs("<p>No night measured anything in the logs given: no series.</p>\n", h.f);
    html_failed_nights(h.f, s);
    struct canvas cv = { h.f, NULL };
    return n && history_all(&cv, v, n) < 0 ? tb_html_abort(&h) : tb_html_close(&h);
}

int tb_report_history_plot(const struct tb_history_series *v, size_t n, const char *path)
{
    struct canvas cv = { NULL, tb_plot_open(path, "history") };
    if (!cv.plot)
        return -1;
    int rc = history_all(&cv, v, n);
    return tb_plot_close(cv.plot) < 0 || rc < 0 ? -1 : 0;
}

/* ---- outputs and failed nights ---------------------------------------------------------- */

void tb_report_failed_nights(struct tb_doc *d, const struct tb_logset *s, const char *who)
{
    static const struct tb_table_col cols[] = {
        { .name = "night", .head = "night", .kind = 'S', .width = 10 },
        { .name = "host", .head = "host", .kind = 'S', .width = 12, .cut = true },
        { .name = "machine_id", .head = "machine id", .kind = 'S', .data_only = true },
        { .name = "board", .head = "board", .kind = 'S', .width = 18, .cut = true },
        { .name = "run_id", .head = "run id", .kind = 'S', .data_only = true },
        { .name = "reason", .head = "how it ended", .kind = 'S' },
    };
    size_t n = 0;
    for (size_t i = 0; i < s->nlogs; i++)
        n += s->logs[i].failed;
    if (n == 0)
        return;
    struct tb_table t;
    tb_table_begin(&t, d, "failed_nights", "Failed nights (nothing measured)", cols,
                   ARRAY_SIZE(cols));
    for (size_t i = 0; i < s->nlogs; i++) {
        const struct tb_log_info *l = &s->logs[i];
        if (!l->failed)
            continue;
        struct tb_cell c[] = { TB_TEXT(l->night), TB_TEXT(l->host), TB_TEXT(l->host_id),
                               TB_TEXT(l->board), TB_TEXT(l->run_id), TB_TEXT(l->end) };
        tb_table_row(&t, c);
        if (tb_format_first_table_only(d->f))
            warning("%s: %s: a failed night (%s, %s, %s): %s", who, l->path, l->night, l->host,
                    l->board, l->end);
    }
    tb_table_end(&t);
}

size_t tb_report_wrong_rows(struct tb_doc *d, const struct tb_log_rec *v, size_t n,
                            const char *who)
{
    static const struct tb_table_col cols[] = {
        { .name = "night", .head = "night", .kind = 'S', .width = 10 },
        { .name = "host", .head = "host", .kind = 'S', .width = 12, .cut = true },
        { .name = "machine_id", .head = "machine id", .kind = 'S', .data_only = true },
        { .name = "board", .head = "board", .kind = 'S', .width = 18, .cut = true },
        { .name = "kernel", .head = "kernel", .kind = 'S', .width = 16 },
        { .name = "rows", .head = "rows", .kind = 'N', .width = 7 },
        { .name = "cols", .head = "cols", .kind = 'N', .width = 7 },
        { .name = "block", .head = "block", .kind = 'S', .width = 8 },
        { .name = "elem", .head = "element", .kind = 'S', .width = 7 },
        { .name = "status", .head = "status", .kind = 'S', .width = 8 },
        { .name = "verified", .head = "verified", .kind = 'S' },
    };
    size_t nwrong = 0;
    for (size_t i = 0; i < n; i++)
        nwrong += tb_log_wrong(&v[i]);
    if (nwrong == 0)
        return 0;
    struct tb_table t;
    tb_table_begin(&t, d, "failed_verification",
                   "Failed verification (wrong output: never a result)", cols, ARRAY_SIZE(cols));
    for (size_t i = 0; i < n; i++) {
        const struct tb_log_rec *r = &v[i];
        if (!tb_log_wrong(r))
            continue;
        char blk[24] = "-";
        if (r->bx)
            snprintf(blk, sizeof(blk), "%dx%d", r->bx, r->by);
        const char *st = r->outcome_unknown ? "?" : tb_status_name(r->status);
        const char *ve = r->outcome_unknown ? "?" : tb_verified_name(r->verified);
        struct tb_cell c[] = { TB_TEXT(r->night), TB_TEXT(r->host), TB_TEXT(r->host_id),
                               TB_TEXT(r->board), TB_TEXT(r->kernel), TB_NUM((double)r->rows),
                               TB_NUM((double)r->cols), TB_TEXT(blk), TB_TEXT(r->elem),
                               TB_TEXT(st), TB_TEXT(ve) };
        tb_table_row(&t, c);
    }
    tb_table_end(&t);
    if (tb_format_is_data(d->f))
        warning("%s: %zu row%s failed verification (wrong output); listed apart, never a result",
                who, nwrong, nwrong == 1 ? "" : "s");
    return nwrong;
}
