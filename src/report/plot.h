/* plot.h: charts drawn by gnuplot into one SVG or PNG (plot.c), the same charts as the --html
 * page draws (report.c composes both): bars per category and series, or lines over nights,
 * one panel each, stacked. Text from logs reaches gnuplot only as data or inside escaped
 * single-quoted strings, never as code; the picture is drawn under a temporary name and
 * renamed only when whole. */
#ifndef TB_PLOT_H
#define TB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "report/chart.h"

struct tb_plot;

/* Checks gnuplot and the name (.svg or .png); NULL with the reason said. who: "compare". */
struct tb_plot *tb_plot_open(const char *path, const char *who);
/* The heading of the panels that follow (a size, a kernel); a note (boards lacking the size)
 * goes under it. */
void tb_plot_heading(struct tb_plot *p, const char *heading, const char *note);
/* As tb_html_bars and tb_html_lines (html.h): values[c * ns + s], values[s * nx + x]. */
void tb_plot_bars(struct tb_plot *p, const char *title, const char *unit,
                  const char *const *cats, size_t nc, const char *const *series, size_t ns,
                  const double *values, bool log);
void tb_plot_lines(struct tb_plot *p, const char *title, const char *unit,
                   const char *const *xs, size_t nx, const char *const *series, size_t ns,
                   const double *values);
void tb_plot_scatter(struct tb_plot *p, const char *title, const char *xunit, const char *yunit,
                     const char *const *series, size_t ns, const struct tb_xy *pts, size_t n);
/* Runs gnuplot and puts the picture in place; 0, or -1 with the reason said and no file. */
int tb_plot_close(struct tb_plot *p);
/* For tests and the fuzzer: open without looking for gnuplot, see the script and data files
 * in tb_plot_dir (a fresh 0700 directory), and drop it all without drawing. */
struct tb_plot *tb_plot_open_script(const char *path, const char *who);
const char *tb_plot_dir(const struct tb_plot *p);
void tb_plot_discard(struct tb_plot *p);

#endif
