/* html.c: see html.h. Charts are plain SVG elements with computed coordinates; colours from
 * one fixed palette; a white background so that dark viewers show them as printed. */
#include "report/html.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "lib/util.h"

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                       "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };
#define NPAL (sizeof(palette) / sizeof(*palette))

void tb_html_text(FILE *f, const char *s)
{
    /* the one cleaning rule first (util.h: controls, bytes that are no UTF-8, bidi overrides
     * and zero-width characters made visible), then HTML's own escapes */
    size_t n = strlen(s) * 9 + 1;   /* one byte may become "[U+XXXX]" */
    char small[1024], *clean = n <= sizeof(small) ? small : malloc(n);
    if (!clean) {
        clean = small;
        n = sizeof(small);
    }
    tb_text_clean(clean, n, s, false);
    for (const char *p = clean; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*p, f);
        }
    }
    if (clean != small)
        free(clean);
}

int tb_html_open(struct tb_html *h, const char *path, const char *title)
{
    tb_strlcpy(h->path, path, sizeof(h->path));
    int fd = tb_outfile_tmp(path, h->tmp, sizeof(h->tmp));   /* lib/outfile.h's rule */
    if (fd < 0 || !(h->f = fdopen(fd, "w"))) {
        if (fd >= 0)
            close(fd);
        return error("cannot write '%s': %s", h->tmp, strerror(errno));
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", h->f);
    tb_html_text(h->f, title);
    fputs("</title>\n<style>body{font-family:sans-serif;margin:1.5em;background:#fff;color:#111}"
          "table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #bbb;"
          "padding:2px 8px}td.n{text-align:right}.flag{color:#b00;font-weight:bold}"
          "svg{display:block;margin:0.5em 0}</style></head><body>\n<h1>", h->f);
    tb_html_text(h->f, title);
    fputs("</h1>\n", h->f);
    return 0;
}

int tb_html_close(struct tb_html *h)
{
    fputs("</body></html>\n", h->f);
    bool bad = fflush(h->f) != 0 || ferror(h->f) || fsync(fileno(h->f)) != 0;
    int err = errno;
    bad |= fclose(h->f) != 0;
    if (bad) {
        unlink(h->tmp);   /* our own temporary file: no partial page is left */
        return error("cannot write '%s': %s", h->path, strerror(err));
    }
    return tb_outfile_commit("page", h->tmp, h->path);
}

bool tb_html_full(FILE *f)
{
    long at = ftell(f);
    return at < 0 || at >= TB_HTML_MAX_BYTES;
}

void tb_html_left_out(FILE *f, const char *who, size_t n, size_t total, const char *what)
{
    fprintf(f, "<p class=\"flag\">%zu of %zu %s left out: the page stops at %ld MiB "
            "(the text, CSV and JSON outputs have every one).</p>\n", n, total, what,
            TB_HTML_MAX_BYTES >> 20);
    warning("%s: the page holds %zu of %zu %s (it stops at %ld MiB); %zu left out: the text, "
            "CSV and JSON outputs have every one", who, total - n, total, what,
            TB_HTML_MAX_BYTES >> 20, n);
}

int tb_html_abort(struct tb_html *h)
{
    fclose(h->f);
    unlink(h->tmp);   /* our own temporary file */
    return -1;
}

/* What an axis takes: a value outside [AXIS_MIN, AXIS_MAX] is clamped to it, so log10 stays
 * finite and every tick loop ends (a row of 1e308 or 5e-324 GB/s once made the decade loop
 * run forever). Negative and non-finite values are never drawn. */
#define AXIS_MIN 1e-6
#define AXIS_MAX 1e9
#define MAX_TICKS 40

static bool drawable(double v, bool log)
{
    return isfinite(v) && (log ? v > 0 : v >= 0);
}

static double clamp_axis(double v)
{
    return fmin(fmax(v, AXIS_MIN), AXIS_MAX);
}

/* Axis position of v in [lo, hi] on a length of px pixels. */
static double scale(double v, double lo, double hi, bool log, double px)
{
    if (log)
        return px * (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
    return px * (v - lo) / (hi - lo);
}

/* A tick step of 1, 2 or 5 x 10^k that cuts [0, hi] into at most about n steps: ticks a
 * reader can read (0, 2, 4, 6) rather than fifths of the largest value (0.21, 0.42). */
static double nice_step(double hi, int n)
{
    double raw = hi / n, mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* hi raised to a whole number of nice steps; *step set. */
static double nice_top(double hi, int n, double *step)
{
    *step = nice_step(hi, n);
    return ceil(hi / *step - 1e-9) * *step;
}

static void legend(FILE *f, const char *const *series, size_t ns, double x, double y)
{
    for (size_t s = 0; s < ns; s++) {
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%.0f\" y=\"%.0f\">", x, y + 16.0 * (double)s, palette[s % NPAL],
                x + 16, y + 16.0 * (double)s + 11);
        tb_html_text(f, series[s]);
        fputs("</text>\n", f);
    }
}

static void svg_head(FILE *f, const char *title, double w, double h)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\"><rect width=\"100%%\" height=\"100%%\" "
            "fill=\"#fff\"/><text x=\"10\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", w, h);
    tb_html_text(f, title);
    fputs("</text>\n", f);
}

void tb_html_bars(FILE *f, const char *title, const char *unit, const char *const *cats,
                  size_t nc, const char *const *series, size_t ns, const double *values,
                  bool log)
{
    double lo = log ? INFINITY : 0, hi = 0;
    for (size_t i = 0; i < nc * ns; i++)
        if (drawable(values[i], log)) {
            hi = fmax(hi, clamp_axis(values[i]));
            lo = log ? fmin(lo, clamp_axis(values[i])) : 0;
        }
    if (!(hi > 0))
        return;
    if (log) {
        lo = pow(10, floor(log10(lo)));
        hi = pow(10, ceil(log10(hi)));
        if (hi <= lo)
            hi = lo * 10;
    }
    double step = 0;
    if (!log)
        hi = nice_top(hi, 5, &step);
    const double left = 150, plotw = 520, bar = 12, top = 40;
    double h = top + (double)nc * ((double)ns * bar + 8) + 40;
    double lh = top + 16.0 * (double)ns + 10;
    svg_head(f, title, left + plotw + 230, h > lh ? h : lh);
    double y = top;
    for (size_t c = 0; c < nc; c++) {
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", left - 6,
                y + (double)ns * bar / 2 + 4);
        tb_html_text(f, cats[c]);
        fputs("</text>\n", f);
        for (size_t s = 0; s < ns; s++, y += bar) {
            double v = values[c * ns + s];
            if (!drawable(v, log))
                continue;
            fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\">"
                    "<title>%.3g %s</title></rect>\n", left, y,
                    fmax(1, scale(fmin(fmax(clamp_axis(v), lo), hi), lo, hi, log, plotw)), bar - 1,
                    palette[s % NPAL], v, unit);
        }
        y += 8;
    }
    /* the value axis: decades on a log axis, nice steps on a linear one */
    for (int i = 0; i < MAX_TICKS; i++) {
        double v = log ? lo * pow(10, i) : step * i;
        if (v > hi * 1.0001)
            break;
        double x = left + scale(v, lo, hi, log, plotw);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ccc\"/>"
                "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.3g</text>\n", x, top - 4, x,
                y, x, y + 14, v);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">", left + plotw / 2, y + 30);
    tb_html_text(f, unit);
    fprintf(f, "%s</text>\n", log ? " (log scale)" : "");
    legend(f, series, ns, left + plotw + 20, top);
    fputs("</svg>\n", f);
}

void tb_html_lines(FILE *f, const char *title, const char *unit, const char *const *xs,
                   size_t nx, const char *const *series, size_t ns, const double *values)
{
    double hi = 0;
    for (size_t i = 0; i < nx * ns; i++)
        if (drawable(values[i], false))
            hi = fmax(hi, clamp_axis(values[i]));
    if (!(hi > 0) || nx == 0)
        return;
    double tick;
    hi = nice_top(hi * 1.05, 4, &tick);
    const double left = 70, plotw = 560, ploth = 220, top = 40;
    /* one night: its point in the middle, said to be alone (a line needs two) */
    double step = nx > 1 ? plotw / (double)(nx - 1) : 0, x0 = nx > 1 ? left : left + plotw / 2;
    svg_head(f, title, left + plotw + 250, top + ploth + 70);
    if (nx == 1)
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#666\">one "
                "night so far: a trend needs two</text>\n", left + plotw / 2, top + 14);
    for (int i = 0; i < MAX_TICKS && tick * i <= hi * 1.0001; i++) {
        double v = tick * i, y = top + ploth - ploth * v / hi;
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n", left, y,
                left + plotw, y, left - 4, y + 4, v);
    }
    size_t every = nx / 8 + 1;   /* at most about 8 night labels */
    for (size_t x = 0; x < nx; x += every) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">", x0 + step * (double)x,
                top + ploth + 16);
        tb_html_text(f, xs[x]);
        fputs("</text>\n", f);
    }
    for (size_t s = 0; s < ns; s++) {
        fprintf(f, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"%s\" points=\"",
                palette[s % NPAL]);
        for (size_t x = 0; x < nx; x++) {
            double v = values[s * nx + x];
            if (drawable(v, false))
                fprintf(f, "%.1f,%.1f ", x0 + step * (double)x,
                        top + ploth - ploth * fmin(v, hi) / hi);
        }
        fputs("\"/>\n", f);
        for (size_t x = 0; x < nx; x++) {
            double v = values[s * nx + x];
            if (drawable(v, false)) {
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
                        x0 + step * (double)x, top + ploth - ploth * fmin(v, hi) / hi,
                        palette[s % NPAL]);
                tb_html_text(f, xs[x]);
                fprintf(f, ": %.1f %s</title></circle>\n", v, unit);
            }
        }
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">night (UTC)</text>\n",
            left + plotw / 2, top + ploth + 36);
    fprintf(f, "<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" "
            "text-anchor=\"middle\">", top + ploth / 2, top + ploth / 2);
    tb_html_text(f, unit);
    fputs("</text>\n", f);
    legend(f, series, ns, left + plotw + 20, top);
    fputs("</svg>\n", f);
}

/* ---- scatter ------------------------------------------------------------------------ */

struct axis {
    double lo, hi, step;
    bool log;
};

/* The axis over values v (and v +- ci): logarithmic past a factor 20, else linear from 0
 * with nice steps; false when nothing is drawable. */
static bool axis_of(const struct tb_xy *pts, size_t n, bool y, struct axis *a)
{
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++) {
        double v = y ? pts[i].y : pts[i].x, e = y ? pts[i].y_ci : pts[i].x_ci,
               ci = isfinite(e) ? e : 0;
        if (!drawable(v, true) || !drawable(y ? pts[i].x : pts[i].y, true))
            continue;
        lo = fmin(lo, clamp_axis(v - ci > 0 ? v - ci : v));
        hi = fmax(hi, clamp_axis(v + ci));
    }
    if (!(hi > 0))
        return false;
    a->log = hi / lo > 20;
    if (a->log) {
        a->lo = pow(10, floor(log10(lo)));
        a->hi = pow(10, ceil(log10(hi)));
        a->step = 10;
    } else {
        a->lo = 0;
        a->hi = nice_top(hi * 1.05, 5, &a->step);
    }
    return true;
}

static double at(const struct axis *a, double v, double px)
{
    return scale(fmin(fmax(clamp_axis(v), a->lo), a->hi), a->lo, a->hi, a->log, px);
}

static void scatter_axes(FILE *f, const struct axis *ax, const struct axis *ay, double left,
                         double top, double w, double h, const char *xunit, const char *yunit)
{
    for (int i = 0; i < MAX_TICKS; i++) {
        double v = ax->log ? ax->lo * pow(10, i) : ax->step * i, x = left + at(ax, v, w);
        if (v > ax->hi * 1.0001)
            break;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
                "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.4g</text>\n", x, top, x,
                top + h, x, top + h + 14, v);
    }
    for (int i = 0; i < MAX_TICKS; i++) {
        double v = ay->log ? ay->lo * pow(10, i) : ay->step * i, y = top + h - at(ay, v, h);
        if (v > ay->hi * 1.0001)
            break;
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n", left, y,
                left + w, y, left - 4, y + 4, v);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">", left + w / 2, top + h + 32);
    tb_html_text(f, xunit);
    fprintf(f, "%s</text>\n<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" "
            "text-anchor=\"middle\">", ax->log ? " (log scale)" : "", top + h / 2, top + h / 2);
    tb_html_text(f, yunit);
    fprintf(f, "%s</text>\n", ay->log ? " (log scale)" : "");
}

static int by_x(const void *a, const void *b)
{
    const struct tb_xy *p = *(const struct tb_xy *const *)a, *q = *(const struct tb_xy *const *)b;
    return (p->x > q->x) - (p->x < q->x);
}

/* The front of series s: its front points joined in the order of x. */
static void front_line(FILE *f, const struct tb_xy *pts, size_t n, size_t s,
                       const struct axis *ax, const struct axis *ay, double left, double top,
                       double w, double h)
{
    const struct tb_xy **fp = malloc((n ? n : 1) * sizeof(*fp));
    size_t m = 0;
    for (size_t i = 0; fp && i < n; i++)
        if (pts[i].front && pts[i].series == s && drawable(pts[i].x, true) &&
            drawable(pts[i].y, true))
            fp[m++] = &pts[i];
    if (m > 1) {
        tb_sort(fp, m, sizeof(*fp), by_x);
        fprintf(f, "<polyline fill=\"none\" stroke-dasharray=\"4 3\" stroke=\"%s\" points=\"",
                palette[s % NPAL]);
        for (size_t i = 0; i < m; i++)
            fprintf(f, "%.1f,%.1f ", left + at(ax, fp[i]->x, w), top + h - at(ay, fp[i]->y, h));
        fputs("\"/>\n", f);
    }
    free(fp);
}

void tb_html_scatter(FILE *f, const char *title, const char *xunit, const char *yunit,
                     const char *const *series, size_t ns, const struct tb_xy *pts, size_t n)
{
    struct axis ax, ay;
    if (!axis_of(pts, n, false, &ax) || !axis_of(pts, n, true, &ay))
        return;
    const double left = 80, w = 520, h = 300, top = 40;
    double lh = top + 16.0 * (double)ns + 10;
    svg_head(f, title, left + w + 260, fmax(top + h + 50, lh));
    scatter_axes(f, &ax, &ay, left, top, w, h, xunit, yunit);
    for (size_t s = 0; s < ns; s++)
        front_line(f, pts, n, s, &ax, &ay, left, top, w, h);
    for (size_t i = 0; i < n; i++) {
        const struct tb_xy *p = &pts[i];
        if (!drawable(p->x, true) || !drawable(p->y, true))
            continue;
        const char *col = palette[p->series % NPAL];
        double x = left + at(&ax, p->x, w), y = top + h - at(&ay, p->y, h);
        if (isfinite(p->x_ci) && p->x_ci > 0) {
            double x0 = left + at(&ax, p->x - p->x_ci > 0 ? p->x - p->x_ci : p->x, w),
                   x1 = left + at(&ax, p->x + p->x_ci, w);
            fprintf(f, "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\" stroke=\"%s\"/>\n",
                    x0, y, x1, x0, y - 3, y + 3, x1, y - 3, y + 3, col);
        }
        if (p->knee)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"#111\" "
                    "stroke-width=\"1.5\"/>\n", x, y);
        if (isfinite(p->y_ci) && p->y_ci > 0) {
            double y0 = top + h - at(&ay, p->y - p->y_ci > 0 ? p->y - p->y_ci : p->y, h),
                   y1 = top + h - at(&ay, p->y + p->y_ci, h);
            fprintf(f, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"%s\"/>\n",
                    x, y0, y1, x - 3, y0, x + 3, x - 3, y1, x + 3, col);
        }
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>", x, y, col);
        tb_html_text(f, p->label ? p->label : "");
        fprintf(f, ": %.4g, %.4g", p->x, p->y);
        if (isfinite(p->y_ci))
            fprintf(f, " +- %.2g", p->y_ci);
        fputs("</title></circle><text font-size=\"10\" x=\"", f);
        fprintf(f, "%.1f\" y=\"%.1f\">", x + 6, y - 4);
        tb_html_text(f, p->label ? p->label : "");
        fputs(p->knee ? " (knee)</text>\n" : "</text>\n", f);
    }
    legend(f, series, ns, left + w + 20, top);
    fputs("</svg>\n", f);
}
