/* report.h: what compare and history show beside their tables (report.c): the --html pages
 * and --plot pictures, the failed nights, and the rule that an output never goes over an
 * input or a log. */
#ifndef TB_REPORT_H
#define TB_REPORT_H

#include <stddef.h>

#include "log/logread.h"
#include "report/pareto.h"
#include "format/table.h"

/* One series of history: a board's nights for one kernel, size, element type, power mode and
 * clock caps asked. */
struct tb_history_series {
    const char *board, *host, *device, *kernel, *elem, *power_mode;
    double gpu_cap_mhz, emc_cap_mhz;   /* the caps its step asked; NAN none */
    long rows, cols;
    size_t n;
    const char **night;        /* n nights, in order */
    double *gbps, *base, *change;   /* base, change (percent): NAN where none */
    char (*flag)[48];
};

/* The page of compare: best points (sorted by size, then kernel) read from nlogs logs, and
 * the failed nights of s (listed with how they ended; a page of failed nights only when no
 * point was measured). */
int tb_report_compare(const struct tb_log_rec *best, size_t n, size_t nlogs,
                      const struct tb_logset *s, const char *path);
/* The page of history; regressions as history counted them; the failed nights of s listed.
 * 0, or -1 with the reason said. */
int tb_report_history(const struct tb_history_series *v, size_t n, int regressions,
                      const struct tb_logset *s, const char *path);
/* The page of compare --pareto --html: one front per kernel, size and board (pareto.h: its
 * points sorted, front and knee marked), each point named by label[p[i].src] (its power mode
 * and caps). 0, or -1 with the reason said and no file left. */
struct tb_report_front {
    char title[300];
    const struct tb_pareto_point *p;
    size_t n;
    const char *const *label;
};
int tb_report_pareto(const struct tb_report_front *fr, size_t n, const char *path);
/* The same charts as the pages, drawn by gnuplot into path (.svg or .png); 0, or -1 with the
 * reason said and no file left. */
int tb_report_compare_plot(const struct tb_log_rec *best, size_t n, const char *path);
int tb_report_history_plot(const struct tb_history_series *v, size_t n, const char *path);

/* The logs of nights that failed before measuring (the GPU could not be used), as a table
 * "failed_nights": a failed night is a result to show, not an unreadable file. With CSV (one
 * table only) each is said on stderr instead. */
void tb_report_failed_nights(struct tb_doc *d, const struct tb_logset *s, const char *who);
/* The rows of v that measured but failed verification (tb_log_wrong), as a table
 * "failed_verification"; none, no table. Returns how many: the caller exits non-zero. */
size_t tb_report_wrong_rows(struct tb_doc *d, const struct tb_log_rec *v, size_t n,
                            const char *who);

#endif
