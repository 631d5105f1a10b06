/* compare_pareto.h: `compare --pareto`, called by compare.c: per kernel and size, the front
 * of GB/s against dynamic pJ/B over the modes and clock caps of the rows (pareto.c computes
 * a front), printed through the table writer and, with a page, drawn there (report.c). */
#ifndef TB_COMPARE_PARETO_H
#define TB_COMPARE_PARETO_H

#include <stddef.h>

#include "format/table.h"
#include "log/logread.h"

/* Per kernel and size, the front of v[0..n) (sorted in place); with page, drawn there too.
 * Returns the fronts found. */
size_t tb_compare_pareto(struct tb_doc *d, struct tb_log_rec *v, size_t n, const char *page);
/* The steps a mode sweep skipped, named per log (on no front). */
void tb_compare_pareto_skipped(struct tb_doc *d, const struct tb_logset *set);

#endif
