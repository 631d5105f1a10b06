/* compare_key.c: see compare_key.h. One key for every grouping compare makes (best points,
 * baselines, Pareto fronts), so that a point means the same in each. */
#include "report/compare_key.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define rec tb_log_rec   /* a row as the log reader gives it */

/* Two numbers, NAN (a figure missing) after every number. */
int tb_compare_cmp_num(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

int tb_compare_by_key(const struct rec *x, const struct rec *y, unsigned what)
{
    double sx = (double)x->rows * x->cols, sy = (double)y->rows * y->cols;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    if (x->rows != y->rows)
        return x->rows < y->rows ? -1 : 1;
    if (x->cols != y->cols)
        return x->cols < y->cols ? -1 : 1;
    int c;
    if ((c = strcmp(x->kernel, y->kernel)) || (c = strcmp(x->board, y->board)) ||
        ((what & K_HOST) && (c = tb_log_host_cmp(x->host, x->host_id, y->host, y->host_id))) ||
        (c = strcmp(x->device, y->device)) || (c = strcmp(x->elem, y->elem)) ||
        (c = tb_log_step_cmp(x, y)))
        return c;
    if (!(what & K_BLOCK))
        return 0;
    return x->bx != y->bx ? (x->bx < y->bx ? -1 : 1) : (x->by > y->by) - (x->by < y->by);
}

void tb_compare_block_text(char *buf, size_t n, const struct rec *r)
{
    if (r->bx)
        snprintf(buf, n, "%dx%d", r->bx, r->by);
    else
        snprintf(buf, n, "-");
}

/* A point's mode as people read it: the power mode and the clock caps its step asked
 * ("15W (0), GPU cap 408 MHz"); the mode alone where none was asked. */
const char *tb_compare_mode_text(char *buf, size_t n, const struct rec *r)
{
    char caps[64];
    tb_log_caps_text(caps, sizeof(caps), r->gpu_cap_mhz, r->emc_cap_mhz);
    snprintf(buf, n, "%s%s%s", r->power_mode, r->power_mode[0] && caps[0] ? ", " : "", caps);
    return buf;
}
