/* chart.h: a point of a scatter chart, as report.c composes it and html.c (SVG) and plot.c
 * (gnuplot) draw it: energy per byte against GB/s, one point per kernel and board. */
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
};

#endif
