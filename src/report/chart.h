/* chart.h: a point of a scatter chart, as report.c composes it and html.c (SVG) and plot.c
 * (gnuplot) draw it: energy per byte against GB/s, one point per kernel and board; and the
 * Pareto front of compare --pareto, GB/s against dynamic energy per byte across modes. */
#ifndef TB_CHART_H
#define TB_CHART_H

#include <stdbool.h>
#include <stddef.h>

struct tb_xy {
    double x, y;          /* NAN or <= 0 on a log axis: not drawn */
    double y_ci;          /* half-width of y's 95% interval, drawn as a bar; NAN: none */
    size_t series;        /* index into the chart's series (its colour and legend) */
    const char *label;    /* beside the point (a kernel) */
    bool front;           /* joined to the series' other front points by a line */
    double x_ci;          /* half-width of x's 95% interval (0 or NAN: none); last, so that
                           * charts without one may leave it out of an initialiser */
    bool knee;            /* ringed: a Pareto front's knee (compare --pareto) */
};

#endif
