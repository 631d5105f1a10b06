/* sweep.h: turns the validated sweep settings into the ordered list of points to run,
 * checking each against its kernel's row (block rule, element size) before any device
 * work. Per size, the backend's reference copy comes first so frac_copy has a divisor. */
#ifndef TB_SWEEP_H
#define TB_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "kernels.h"

struct tb_point {
    const struct tb_kernel *k;
    long rows, cols;
    int bx, by;          /* 0x0 for kernels that take no block */
    size_t size_index;
    bool skip;
    bool auto_ref;       /* added by the sweep, not asked for: the frac_copy divisor */
    char why[200];       /* why skipped */
};

/* The name in sweep.kernels that stands for the backend's candidate rows (TB_KF_BEST, taking
 * the sweep's element): `--kernels best` measures them, and the summary shows the fastest. */
#define TB_SWEEP_BEST "best"
bool tb_sweep_wants_best(const struct tb_sweep_cfg *s);

/* Expands; returns 0, or -1 with a message in d when nothing is left to run. */
int tb_sweep_expand(const struct tb_sweep_cfg *s, enum tb_backend_id b, struct tb_point **out,
                    size_t *n, struct tb_diag *d);
size_t tb_sweep_count_runnable(const struct tb_point *p, size_t n);

#endif
