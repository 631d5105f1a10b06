/* compare_internal.h: what compare.c (best points, baselines, the command) and
 * compare_pareto.c (--pareto's fronts) share: a point's key and how it is named. Private to
 * src/report/'s compare; not for other commands. */
#ifndef TB_COMPARE_INTERNAL_H
#define TB_COMPARE_INTERNAL_H

#include <stddef.h>

#include "format/table.h"
#include "log/logread.h"

#define rec tb_log_rec

/* What a point is. K_HOST: the host (name and machine-id) too; K_BLOCK: the block too. */
enum { K_HOST = 1, K_BLOCK = 2 };

/* Two numbers, NAN (a figure missing) after every number. */
int tb_compare_cmp_num(double a, double b);
/* Size (by elements, then rows, cols), kernel, board, host (K_HOST), device, element, mode
 * step, block (K_BLOCK). */
int tb_compare_by_key(const struct rec *x, const struct rec *y, unsigned what);
/* "32x8", or "-" for a kernel without a block. */
void tb_compare_block_text(char *buf, size_t n, const struct rec *r);
/* A point's mode as people read it: the power mode and the clock caps its step asked
 * ("15W (0), GPU cap 408 MHz"); returns buf. */
const char *tb_compare_mode_text(char *buf, size_t n, const struct rec *r);

/* --pareto: per kernel and size, the front of GB/s against dynamic pJ/B over the modes and
 * caps of v[0..n) (sorted in place); with page, drawn there too. Returns the fronts found. */
size_t tb_compare_pareto(struct tb_doc *d, struct rec *v, size_t n, const char *page);
/* The steps a mode sweep skipped, named per log (on no front). */
void tb_compare_pareto_skipped(struct tb_doc *d, const struct tb_logset *set);

#endif
