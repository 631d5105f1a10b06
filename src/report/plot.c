/* plot.c: `--plot` of compare and history: the charts report.c composes, drawn by gnuplot as
 * stacked panels of one SVG or PNG on a white background. Each chart's numbers and labels go
 * to gnuplot in a data file of its own (labels double-quoted, quotes and control characters
 * replaced); titles and the output name stand in single-quoted strings, where gnuplot does no
 * substitution and a quote is written twice. Nothing from a log is ever gnuplot code.
 * Not here: which charts (report.c). */
#include "report/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "lib/util.h"

enum { MAX_PANELS = 60, PANEL_HEIGHT = 420, WIDTH = 1400 };

struct tb_plot {
    const char *who;
    bool png;
    char dir[32], out[PATH_MAX], tmp[PATH_MAX + 32], body[64], drawn[64];
    FILE *f;                   /* the panels' commands (body.gp, loaded by plot.gp) */
    int panels, skipped, ndata;
    char heading[600];
};

static bool have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* Text from logs through the one cleaning rule (util.h) before gnuplot's quoting: no
 * control character ends a quoted string, no bidi override reorders a label. */
static void gp_single(FILE *f, const char *s)
{
    char clean[2048];
    s = tb_text_clean(clean, sizeof(clean), s, false);
    fputc('\'', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\'')
            fputs("''", f);
        else
            fputc(ch < 0x20 || ch == 0x7f ? ' ' : ch, f);
    }
    fputc('\'', f);
}

static void gp_data_label(FILE *f, const char *s)
{
    char clean[2048];
    s = tb_text_clean(clean, sizeof(clean), s, false);
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        fputc(ch == '"' ? '\'' : ch < 0x20 || ch == 0x7f ? ' ' : ch, f);
    }
    fputc('"', f);
}

struct tb_plot *tb_plot_open(const char *path, const char *who)
{
    if (!have_gnuplot()) {
        error("%s: --plot needs gnuplot, which is not installed; install it with: "
              "sudo apt-get install gnuplot-nox (the tables above are complete without it)", who);
        return NULL;
    }
    return tb_plot_open_script(path, who);
}

struct tb_plot *tb_plot_open_script(const char *path, const char *who)
{
    const char *ext = strrchr(path, '.');
    if (!ext || (strcmp(ext, ".svg") && strcmp(ext, ".png"))) {
        error("%s: --plot '%s': the file must end in .svg or .png", who, path);
        return NULL;
    }
    for (const char *c = path; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {   /* gnuplot's quoted names hold none */
            error("%s: --plot: the file name has a control character (a newline, a tab...): "
                  "give another name", who);
            return NULL;
        }
    struct tb_plot *p = calloc(1, sizeof(*p));
    if (!p) {
        error("%s: out of memory for the plot", who);
        return NULL;
    }
    p->who = who;
    p->png = !strcmp(ext, ".png");
    tb_strlcpy(p->out, path, sizeof(p->out));
    tb_strlcpy(p->dir, "/tmp/tb-plot-XXXXXX", sizeof(p->dir));
    if (!mkdtemp(p->dir)) {
        error("%s: cannot make a temporary directory: %s", who, strerror(errno));
        free(p);
        return NULL;
    }
    snprintf(p->body, sizeof(p->body), "%s/body.gp", p->dir);
    snprintf(p->drawn, sizeof(p->drawn), "%s/picture", p->dir);
    if (!(p->f = fopen(p->body, "w"))) {
        error("%s: cannot write '%s': %s", who, p->body, strerror(errno));
        rmdir(p->dir);
        free(p);
        return NULL;
    }
    return p;
}

void tb_plot_heading(struct tb_plot *p, const char *heading, const char *note)
{
    snprintf(p->heading, sizeof(p->heading), "%s%s%s", heading, note && note[0] ? ". " : "",
             note ? note : "");
}

/* Copies the picture gnuplot drew in our private directory to our own new temporary file
 * beside the output (lib/outfile.h: never through a link left there), then puts it in place
 * by the outputs' rule; 0, or -1 after the error, no temporary left. */
static int put_in_place(const char *who, const char *drawn, char *tmp, size_t tmp_n,
                        const char *out)
{
    int in = open(drawn, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    int fd = in < 0 ? -1 : tb_outfile_tmp(out, tmp, tmp_n);
    int rc = fd < 0 ? -1 : 0;
    char buf[65536];
    ssize_t n;
    while (rc == 0 && (n = read(in, buf, sizeof(buf))) != 0)
        rc = n < 0 || write(fd, buf, (size_t)n) != n ? -1 : 0;
    if (rc == 0 && fsync(fd) != 0)
        rc = -1;
    int e = errno;
    if (fd >= 0 && close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (in >= 0)
        close(in);
    if (rc != 0 && fd >= 0)
        unlink(tmp);   /* our own temporary file */
    if (rc != 0)
        return error("%s: cannot write '%s' (through '%s'): %s", who, out, tmp, strerror(e));
    return tb_outfile_commit(who, tmp, out);
}

/* Whether gnuplot wrote the picture whole: a full disk can leave it cut short with gnuplot
 * exiting 0. An SVG ends with its closing tag, a PNG with its IEND chunk. */
static bool whole(const char *path, bool png)
{
    FILE *f = fopen(path, "rb");
    char tail[64] = "";
    size_t n = 0;
    if (f && fseek(f, -(long)(sizeof(tail) - 1), SEEK_END) == 0)
        n = fread(tail, 1, sizeof(tail) - 1, f);
    if (f)
        fclose(f);
    tail[n] = '\0';
    if (png)
        return n >= 12 && !memcmp(tail + n - 8, "IEND", 4);
    return strstr(tail, "</svg>") != NULL;
}

/* What an axis takes (as html.c): values clamped to [AXIS_MIN, AXIS_MAX], so a row of 1e308
 * or 5e-324 GB/s gives gnuplot a range it can draw; negative and non-finite ones are left
 * out of the data ('-', missing). */
#define AXIS_MIN 1e-6
#define AXIS_MAX 1e9

static bool drawable(double v)
{
    return isfinite(v) && v >= 0;
}

/* The drawable values' range, clamped (above 0 when log); false when there is none. */
static bool range_of(const double *v, size_t n, bool log, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (drawable(v[i]) && (!log || v[i] > 0)) {
            double c = fmin(fmax(v[i], AXIS_MIN), AXIS_MAX);
            *lo = fmin(*lo, c);
            *hi = fmax(*hi, c);
        }
    return *lo <= *hi;
}

/* A new panel with its title and axis label, or false when the picture is full or the
 * chart has nothing to draw (no finite value; none above 0 on a log axis). */
static bool panel(struct tb_plot *p, const char *title, const char *unit, const double *v,
                  size_t n, bool log)
{
    double lo, hi;
    if (!range_of(v, n, log, &lo, &hi))
        return false;
    if (p->panels == MAX_PANELS) {
        p->skipped++;
        return false;
    }
    p->panels++;
    char t[1200];
    snprintf(t, sizeof(t), "%s%s%s", p->heading, p->heading[0] ? ": " : "", title);
    fputs("set title ", p->f);
    gp_single(p->f, t);
    fputs("\nset ylabel ", p->f);
    gp_single(p->f, unit);
    fputc('\n', p->f);
    return true;
}

/* Writes a data file: a header of series names, one row per category; val(c, s) reads the
 * value. Its name, under our temporary directory, into name. */
static bool data_file(struct tb_plot *p, char *name, size_t n, const char *const *cats,
                      size_t nc, const char *const *series, size_t ns, const double *v,
                      bool by_series)
{
    snprintf(name, n, "%s/%d.dat", p->dir, p->ndata++);
    FILE *f = fopen(name, "w");
    if (!f)
        return false;
    fputs("category", f);
    for (size_t s = 0; s < ns; s++)
        fputc('\t', f), gp_data_label(f, series[s]);
    fputc('\n', f);
    for (size_t c = 0; c < nc; c++) {
        gp_data_label(f, cats[c]);
        for (size_t s = 0; s < ns; s++) {
            double x = by_series ? v[s * nc + c] : v[c * ns + s];
            if (drawable(x))
                fprintf(f, "\t%.6g", fmin(fmax(x, AXIS_MIN), AXIS_MAX));
            else
                fputs("\t-", f);
        }
        fputc('\n', f);
    }
    return fclose(f) == 0;
}

/* A panel and its data file (named into name), or false when there is nothing to draw or
 * the data cannot be written (then the panel says so). */
static bool chart(struct tb_plot *p, const char *title, const char *unit, const char *const *cats,
                  size_t nc, const char *const *series, size_t ns, const double *values,
                  bool log, bool by_series, char *name, size_t n)
{
    if (!panel(p, title, unit, values, nc * ns, log))
        return false;
    if (!data_file(p, name, n, cats, nc, series, ns, values, by_series)) {
        fputs("set label 1 'cannot write the data' at graph 0.5, 0.5\nplot NaN notitle\n", p->f);
        return false;
    }
    return true;
}

void tb_plot_bars(struct tb_plot *p, const char *title, const char *unit,
                  const char *const *cats, size_t nc, const char *const *series, size_t ns,
                  const double *values, bool log)
{
    char name[64];
    if (!chart(p, title, unit, cats, nc, series, ns, values, log, false, name, sizeof(name)))
        return;
    double lo, hi;
    range_of(values, nc * ns, log, &lo, &hi);
    if (log)   /* whole decades, the lowest bar well above the axis: a Nano beside an H100 */
        fprintf(p->f, "set logscale y\nset yrange [%g:%g]\n", pow(10, floor(log10(lo / 2))),
                pow(10, ceil(log10(hi * 1.2))));
    else
        fprintf(p->f, "unset logscale y\nset yrange [0:%g]\n", hi > 0 ? hi * 1.08 : 1);
    fprintf(p->f, "set style data histograms\nset style histogram clustered gap 1\n"
            "set style fill solid 0.8 border -1\nset xtics rotate by -35\n"
            "plot for [i=2:%zu] '%s' using i:xtic(1) title columnhead(i)\n", ns + 1, name);
}

void tb_plot_lines(struct tb_plot *p, const char *title, const char *unit,
                   const char *const *xs, size_t nx, const char *const *series, size_t ns,
                   const double *values)
{
    char name[64];
    if (!chart(p, title, unit, xs, nx, series, ns, values, false, true, name, sizeof(name)))
        return;
    double lo, hi;
    range_of(values, nx * ns, false, &lo, &hi);
    double pad = fmax(0.05 * (hi - lo), 0.02 * fmax(fabs(hi), 1e-9));
    fprintf(p->f, "unset logscale y\nset yrange [%g:%g]\nset xtics rotate by -35\n"
            "plot for [i=2:%zu] '%s' using 0:i:xtic(1) with linespoints pt 7 title "
            "columnhead(i)\n", lo - pad, hi + pad, ns + 1, name);
}

/* The points of each series as one data block (blocks apart by two blank lines, gnuplot's
 * `index`): x, y, y's half-width (0: none), label; front points again in a second block
 * per series, in the order of x, for the line. */
static bool scatter_data(struct tb_plot *p, char *name, size_t n, size_t ns,
                         const struct tb_xy *pts, size_t np, bool front)
{
    snprintf(name, n, "%s/%d.dat", p->dir, p->ndata++);
    FILE *f = fopen(name, "w");
    if (!f)
        return false;
    for (size_t s = 0; s < ns; s++) {
        fprintf(f, "# series %zu\n", s);
        double last = -INFINITY;
        for (size_t k = 0; k < np; k++) {
            /* front blocks in the order of x: the smallest x above the last one written */
            size_t pick = np;
            for (size_t i = 0; i < np; i++) {
                const struct tb_xy *q = &pts[i];
                if (q->series != s || !drawable(q->x) || !(q->y > 0) || !drawable(q->y) ||
                    (front && (!q->front || q->x <= last)) || (!front && i != k))
                    continue;
                if (pick == np || q->x < pts[pick].x)
                    pick = i;
            }
            if (pick == np)
                continue;
            const struct tb_xy *q = &pts[pick];
            last = q->x;
            fprintf(f, "%.6g\t%.6g\t%.6g\t", fmin(fmax(q->x, AXIS_MIN), AXIS_MAX),
                    fmin(fmax(q->y, AXIS_MIN), AXIS_MAX), isfinite(q->y_ci) ? q->y_ci : 0.0);
            gp_data_label(f, q->label ? q->label : "");
            fputc('\n', f);
        }
        fputs("\n\n", f);
    }
    return fclose(f) == 0;
}

void tb_plot_scatter(struct tb_plot *p, const char *title, const char *xunit, const char *yunit,
                     const char *const *series, size_t ns, const struct tb_xy *pts, size_t n)
{
    double *ys = malloc((n ? n : 1) * sizeof(*ys));
    if (!ys)
        return;
    for (size_t i = 0; i < n; i++)
        ys[i] = drawable(pts[i].x) ? pts[i].y : NAN;
    bool ok = panel(p, title, yunit, ys, n, true);
    free(ys);
    char name[64], fname[64];
    if (!ok)
        return;
    if (!scatter_data(p, name, sizeof(name), ns, pts, n, false) ||
        !scatter_data(p, fname, sizeof(fname), ns, pts, n, true)) {
        fputs("set label 1 'cannot write the data' at graph 0.5, 0.5\nplot NaN notitle\n", p->f);
        return;
    }
    fputs("set xlabel ", p->f);
    gp_single(p->f, xunit);
    fputs("\nset logscale xy\nset autoscale xy\nunset xtics\nset xtics\nplot ", p->f);
    for (size_t s = 0; s < ns; s++) {
        fprintf(p->f, "%s'%s' index %zu using 1:2:3 with yerrorbars pt 7 lc %zu title ",
                s ? ", " : "", name, s, s + 1);
        gp_single(p->f, series[s]);
        fprintf(p->f, ", '%s' index %zu using 1:2:4 with labels offset 1,0.5 left font ',8' "
                "notitle, '%s' index %zu using 1:2 with lines dt 2 lc %zu notitle", name, s,
                fname, s, s + 1);
    }
    fputs("\nunset xlabel\nunset logscale x\nset autoscale x\n", p->f);
}

const char *tb_plot_dir(const struct tb_plot *p) { return p->dir; }

/* Our temporary directory and what is in it (only our own files), and p. */
static void cleanup(struct tb_plot *p, const char *script)
{
    for (int i = 0; i < p->ndata; i++) {
        char name[64];
        snprintf(name, sizeof(name), "%s/%d.dat", p->dir, i);
        unlink(name);
    }
    unlink(script);
    unlink(p->body);
    unlink(p->drawn);
    rmdir(p->dir);
    free(p);
}

void tb_plot_discard(struct tb_plot *p)
{
    char script[64];
    fclose(p->f);
    snprintf(script, sizeof(script), "%s/plot.gp", p->dir);
    cleanup(p, script);
}

int tb_plot_close(struct tb_plot *p)
{
    bool body_ok = fclose(p->f) == 0;
    char script[64];
    snprintf(script, sizeof(script), "%s/plot.gp", p->dir);
    int rc = -1;
    FILE *f;
    if (p->panels == 0)
        error("%s: --plot: nothing to plot (no measured point)", p->who);
    else if (!body_ok || !(f = fopen(script, "w")))
        error("%s: cannot write the plot's script in %s: %s", p->who, p->dir, strerror(errno));
    else {
        int h = PANEL_HEIGHT * p->panels;
        if (p->png)
            fprintf(f, "set terminal pngcairo size %d,%d background rgb 'white'\n", WIDTH, h);
        else
            fprintf(f, "set terminal svg size %d,%d dynamic background rgb 'white'\n", WIDTH, h);
        fputs("set output ", f);
        gp_single(f, p->drawn);   /* in our own 0700 directory: no link can be planted there */
        fprintf(f, "\nset termoption noenhanced\nset datafile missing '-'\n"
                "set key outside right top\nset grid ytics\nset multiplot layout %d,1\n"
                "load '%s'\nunset multiplot\n", p->panels, p->body);
        if (fclose(f) == 0) {
            char cmd[128];
            snprintf(cmd, sizeof(cmd), "gnuplot '%s' 1>&2", script);
            int st = system(cmd);
            if (st != 0)
                error("%s: gnuplot failed (exit %d) drawing '%s'", p->who,
                      WIFEXITED(st) ? WEXITSTATUS(st) : st, p->out);
            else if (!whole(p->drawn, p->png))
                error("%s: '%s' was not written whole (disk full?)", p->who, p->out);
            else if (put_in_place(p->who, p->drawn, p->tmp, sizeof(p->tmp), p->out) == 0)
                rc = 0;
        } else
            error("%s: cannot write '%s': %s", p->who, script, strerror(errno));
    }
    if (rc == 0 && p->skipped)
        warning("%s: --plot drew %d charts and left %d out (a picture has room for %d); --html "
                "shows every one", p->who, p->panels, p->skipped, MAX_PANELS);
    cleanup(p, script);
    return rc;
}
