/* compare_key.h: what a point of compare is and how it is named, shared by compare.c (best
 * points, baselines, the command) and compare_pareto.c (--pareto's fronts): the key that
 * groups rows into one point, and a point's block and mode as people read them. Reads
 * records only; no table, no log. */
#ifndef TB_COMPARE_KEY_H
#define TB_COMPARE_KEY_H

#include <stddef.h>

#include "log/logread.h"

/* What a point is. K_HOST: the host (name and machine-id) too; K_BLOCK: the block too. */
enum { K_HOST = 1, K_BLOCK = 2 };

/* Two numbers, NAN (a figure missing) after every number. */
int tb_compare_cmp_num(double a, double b);
/* Size (by elements, then rows, cols), kernel, board, host (K_HOST), device, element, mode
 * step, block (K_BLOCK). */
int tb_compare_by_key(const struct tb_log_rec *x, const struct tb_log_rec *y, unsigned what);
/* "32x8", or "-" for a kernel without a block. */
void tb_compare_block_text(char *buf, size_t n, const struct tb_log_rec *r);
/* A point's mode as people read it: the power mode and the clock caps its step asked
 * ("15W (0), GPU cap 408 MHz"); returns buf. */
const char *tb_compare_mode_text(char *buf, size_t n, const struct tb_log_rec *r);

#endif
