/* point_rules.c: see point_rules.h. Every problem names the FILE:LINE (or option) where
 * the kernel, block or size was written, all of them in one pass. */
#include "measure/point_rules.h"

#include <stdio.h>
#include <string.h>

#include "measure/backend.h"
#include "measure/sweep.h"
#include "lib/util.h"

/* A kernel name for backend b: the row, or NULL with the problem added to d. */
static const struct tb_kernel *check_kernel_name(const struct tb_config *c, enum tb_backend_id b,
                                                 bool usable, const char *name, const char *at,
                                                 struct tb_diag *d)
{
    const struct tb_sweep_cfg *s = &c->sweep;
    const struct tb_kernel *k = tb_kernel_find(name, b);
    if (k && !(k->elem_sizes & (1u << s->elem_size))) {
        tb_diag_add(d, "%s: kernel '%s' does not support element type '%s'", at, name, s->element);
        return NULL;
    }
    if (k && !tb_kernel_built(k) && usable) {
        tb_diag_add(d, "%s: kernel '%s' is not available: %s", at, name, k->unavailable);
        return NULL;
    }
    if (k)
        return k;
    const char *cands[64];
    size_t n = 0;
    for (const struct tb_kernel *q = tb_kernels; q->name && n < 64; q++)
        if (q->backend == b)
            cands[n++] = q->name;
    const struct tb_kernel *other = tb_kernel_find(name, b == TB_BACKEND_CPU ? TB_BACKEND_CUDA
                                                   : TB_BACKEND_CPU);
    const char *sug = tb_suggest(name, cands, n);
    if (other)
        tb_diag_add(d, "%s: kernel '%s' exists on the %s backend, not on %s (this run uses %s)",
                    at, name, tb_backend_name(other->backend), tb_backend_name(b),
                    tb_backend_name(b));
    else if (sug)
        tb_diag_add(d, "%s: unknown kernel '%s' (did you mean '%s'?)", at, name, sug);
    else
        tb_diag_add(d, "%s: unknown kernel '%s' (see 'transpose-bench list')", at, name);
    return NULL;
}

int tb_point_rules_check_names(const struct tb_config *c, enum tb_backend_id b, bool usable,
                               struct tb_diag *d)
{
    size_t before = d->n;
    const struct tb_sweep_cfg *s = &c->sweep;
    for (size_t i = 0; i < s->n_kernels; i++)
        if (strcmp(s->kernels[i], "*") && strcmp(s->kernels[i], TB_SWEEP_BEST))
            check_kernel_name(c, b, usable, s->kernels[i], s->kernel_at[i], d);
    for (size_t i = 0; i < s->n_points; i++) {
        const struct tb_point_cfg *p = &s->points[i];
        const struct tb_kernel *k = check_kernel_name(c, b, usable, p->kernel, p->at.text, d);
        char why[160];
        if (k && !tb_kernel_block_ok(k, p->x, p->y, why, sizeof(why)))
            tb_diag_add(d, "%s: %s", p->at.text, why);
    }
    return (int)(d->n - before);
}

static void check_threads(const char *at, int x, int y, const struct tb_device_info *dev,
                          struct tb_diag *d)
{
    long threads = (long)x * y;
    if (threads > dev->max_threads_per_block)
        tb_diag_add(d, "%s: block %dx%d has %ld threads, above the device's limit of %d", at, x, y,
                    threads, dev->max_threads_per_block);
}

static void check_memory(const char *at, long rows, long cols, int elem_size,
                         const struct tb_device_info *dev, struct tb_diag *d)
{
    size_t elems, bytes, both;
    if (tb_mul_overflow((size_t)rows, (size_t)cols, &elems) ||
        tb_mul_overflow(elems, (size_t)elem_size, &bytes) || tb_mul_overflow(bytes, 2, &both)) {
        tb_diag_add(d, "%s: size %ldx%ld overflows a byte count", at, rows, cols);
        return;
    }
    if (dev->mem_bytes && both > dev->mem_bytes)
        tb_diag_add(d, "%s: size %ldx%ld needs %.2f GiB for input and output, more than the "
                    "device's %.2f GiB", at, rows, cols, (double)both / (1 << 30),
                    (double)dev->mem_bytes / (1 << 30));
}

int tb_point_rules_check_device(const struct tb_config *c, const struct tb_device_info *dev,
                                struct tb_diag *d)
{
    size_t before = d->n;
    const struct tb_sweep_cfg *s = &c->sweep;
    for (size_t i = 0; i < s->n_points; i++)
        check_threads(s->points[i].at.text, s->points[i].x, s->points[i].y, dev, d);
    for (size_t i = 0; i < s->n_blocks; i++)
        check_threads(s->blocks[i].at.text, s->blocks[i].x, s->blocks[i].y, dev, d);
    for (size_t i = 0; i < s->n_sizes; i++)
        check_memory(s->sizes[i].at.text, s->sizes[i].rows, s->sizes[i].cols, s->elem_size, dev, d);
    for (size_t i = 0; i < s->n_points; i++)
        check_memory(s->points[i].at.text, s->points[i].rows, s->points[i].cols, s->elem_size,
                     dev, d);
    return (int)(d->n - before);
}
