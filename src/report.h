/* report.h: the --html pages and --plot pictures of compare and history (report.c). */
#ifndef TB_REPORT_H
#define TB_REPORT_H

#include <stddef.h>

#include "compare.h"

/* One series of history: a board's nights for one kernel, size, element type, power mode. */
struct tb_history_series {
    const char *board, *host, *device, *kernel, *elem, *power_mode;
    long rows, cols;
    size_t n;
    const char **night;        /* n nights, in order */
    double *gbps, *base, *change;   /* base, change (percent): NAN where none */
    char (*flag)[48];
};

/* The page of compare: best points (sorted by size, then kernel) read from nlogs logs. */
int tb_report_compare(const struct tb_compare_rec *best, size_t n, size_t nlogs,
                      const char *path);
/* The page of history; regressions as history counted them. 0, or -1 with the reason said. */
int tb_report_history(const struct tb_history_series *v, size_t n, int regressions,
                      const char *path);
/* The same charts as the pages, drawn by gnuplot into path (.svg or .png); 0, or -1 with the
 * reason said and no file left. */
int tb_report_compare_plot(const struct tb_compare_rec *best, size_t n, const char *path);
int tb_report_history_plot(const struct tb_history_series *v, size_t n, const char *path);

#endif
