/* sweep.c: see sweep.h. Kernel names and explicit points' blocks were checked before
 * (point_rules.c); here each point is marked skipped where a row's rule excludes it. */
#include "measure/sweep.h"
#include "measure/backend.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool wants_all(const struct tb_sweep_cfg *s)
{
    for (size_t i = 0; i < s->n_kernels; i++)
        if (!strcmp(s->kernels[i], "*"))
            return true;
    return false;
}

bool tb_sweep_wants_best(const struct tb_sweep_cfg *s)
{
    for (size_t i = 0; i < s->n_kernels; i++)
        if (!strcmp(s->kernels[i], TB_SWEEP_BEST))
            return true;
    return false;
}

/* A row `best` stands for: the backend's candidates (TB_KF_BEST) that are built and take
 * the element. */
static bool best_candidate(const struct tb_sweep_cfg *s, const struct tb_kernel *k, enum tb_backend_id b)
{
    return k->backend == b && (k->flags & TB_KF_BEST) && tb_kernel_built(k) &&
           (k->elem_sizes & (1u << s->elem_size));
}

/* The kernels to run, in order, without duplicates; `best` adds its candidates where it
 * is listed. */
static size_t pick_kernels(const struct tb_sweep_cfg *s, enum tb_backend_id b,
                           const struct tb_kernel **ks, size_t cap)
{
    size_t n = 0;
    const struct tb_kernel *ref = tb_kernel_copy_ref(b);
    if (ref && tb_kernel_built(ref))
        ks[n++] = ref;
    if (wants_all(s)) {
        for (const struct tb_kernel *k = tb_kernels; k->name && n < cap; k++)
            if (k->backend == b && tb_kernel_built(k) && k != ref && (k->elem_sizes & (1u << s->elem_size)))
                ks[n++] = k;
        return n;
    }
    for (size_t i = 0; i < s->n_kernels && n < cap; i++) {
        bool best = !strcmp(s->kernels[i], TB_SWEEP_BEST);
        for (const struct tb_kernel *k = tb_kernels; k->name && n < cap; k++) {
            if (best ? !best_candidate(s, k, b) : k != tb_kernel_find(s->kernels[i], b))
                continue;
            bool dup = false;
            for (size_t j = 0; j < n; j++)
                dup |= ks[j] == k;
            if (tb_kernel_built(k) && !dup)
                ks[n++] = k;
        }
    }
    return n;
}

static bool asked_for(const struct tb_sweep_cfg *s, const struct tb_kernel *k)
{
    if (wants_all(s) || (tb_sweep_wants_best(s) && best_candidate(s, k, k->backend)))
        return true;
    for (size_t i = 0; i < s->n_kernels; i++)
        if (!strcmp(s->kernels[i], k->name))
            return true;
    return false;
}

/* Marks p skipped, with the reason, when it breaks a rule of its kernel's row (block shape,
 * matrix shape) or the kernel cannot run in this process (its library not found). */
static void check_point(struct tb_point *p)
{
    const struct tb_kernel *k = p->k;
    char why[sizeof(p->why)];
    if (!tb_kernel_block_ok(k, p->bx, p->by, why, sizeof(why)) ||
        !tb_kernel_shape_ok(k, p->rows, p->cols, why, sizeof(why)) ||
        !tb_kernel_usable(k, why, sizeof(why))) {
        p->skip = true;
        tb_strlcpy(p->why, why, sizeof(p->why));
    }
}

/* sweep.points: the listed points grouped by size (in order of first appearance), each
 * size led by the reference copy unless the list has it; a point whose kernel's row now
 * refuses it (its library not found, a shape rule) is kept, marked skipped. */
static int expand_points(const struct tb_sweep_cfg *s, enum tb_backend_id b, struct tb_point **out,
                         size_t *n_out)
{
    struct tb_point *pts = calloc(2 * s->n_points + 1, sizeof(*pts));
    if (!pts)
        return -1;
    const struct tb_kernel *ref = tb_kernel_copy_ref(b);
    size_t n = 0;
    for (size_t i = 0; i < s->n_points; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= s->points[j].rows == s->points[i].rows && s->points[j].cols == s->points[i].cols;
        if (seen)
            continue;
        bool has_ref = false;
        for (size_t j = i; j < s->n_points; j++)
            has_ref |= s->points[j].rows == s->points[i].rows &&
                       s->points[j].cols == s->points[i].cols && ref &&
                       !strcmp(s->points[j].kernel, ref->name);
        if (ref && tb_kernel_built(ref) && !has_ref)
            pts[n++] = (struct tb_point){ .k = ref, .rows = s->points[i].rows,
                                          .cols = s->points[i].cols, .size_index = i,
                                          .auto_ref = true };
        for (size_t j = i; j < s->n_points; j++) {
            const struct tb_point_cfg *p = &s->points[j];
            if (p->rows != s->points[i].rows || p->cols != s->points[i].cols)
                continue;
            const struct tb_kernel *k = tb_kernel_find(p->kernel, b);
            if (!k || !tb_kernel_built(k))
                continue;
            bool noblock = k->flags & TB_KF_NO_BLOCK;
            struct tb_point *q = &pts[n++];
            *q = (struct tb_point){ .k = k, .rows = p->rows, .cols = p->cols,
                                    .bx = noblock ? 0 : p->x, .by = noblock ? 0 : p->y,
                                    .size_index = i };
            check_point(q);
        }
    }
    *out = pts;
    *n_out = n;
    return 0;
}

int tb_sweep_expand(const struct tb_sweep_cfg *s, enum tb_backend_id b, struct tb_point **out,
                    size_t *n_out, struct tb_diag *d)
{
    if (s->n_points)
        return expand_points(s, b, out, n_out);
    const struct tb_kernel *ks[128];
    size_t nk = pick_kernels(s, b, ks, 128);
    size_t cap = s->n_sizes * nk * (s->n_blocks ? s->n_blocks : 1) + 1;
    struct tb_point *pts = calloc(cap, sizeof(*pts));
    if (!pts)
        return -1;
    size_t n = 0;
    for (size_t si = 0; si < s->n_sizes; si++) {
        for (size_t ki = 0; ki < nk; ki++) {
            const struct tb_kernel *k = ks[ki];
            size_t nb = (k->flags & TB_KF_NO_BLOCK) ? 1 : s->n_blocks;
            for (size_t bi = 0; bi < nb; bi++) {
                struct tb_point *p = &pts[n++];
                p->k = k;
                p->rows = s->sizes[si].rows;
                p->cols = s->sizes[si].cols;
                p->size_index = si;
                p->auto_ref = !asked_for(s, k);
                if (!(k->flags & TB_KF_NO_BLOCK)) {
                    p->bx = s->blocks[bi].x;
                    p->by = s->blocks[bi].y;
                }
                check_point(p);
            }
        }
    }
    size_t runnable = 0;
    for (size_t i = 0; i < n; i++)
        runnable += !pts[i].skip && !pts[i].auto_ref;
    if (runnable == 0) {
        if (nk == 0)
            tb_diag_add(d, "%s: no kernel of the %s backend is available to run",
                        s->kernels_at.text, tb_backend_name(b));
        else
            tb_diag_add(d, "%s: nothing to run: every kernel asked for excludes every block shape "
                        "given (see the block rules in 'transpose-bench list')", s->kernels_at.text);
        free(pts);
        return -1;
    }
    *out = pts;
    *n_out = n;
    return 0;
}

size_t tb_sweep_count_runnable(const struct tb_point *p, size_t n)
{
    size_t r = 0;
    for (size_t i = 0; i < n; i++)
        r += !p[i].skip;
    return r;
}
