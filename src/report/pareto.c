/* pareto.c: see pareto.h. Dominance is judged on the point estimates; the intervals ride
 * along for the reader (two points whose intervals overlap may trade places in another
 * run), deliberately not folded into a rule here. */
#include "report/pareto.h"

#include <math.h>
#include <stdlib.h>

#include "lib/util.h"

static bool finite_xy(const struct tb_pareto_point *a)
{
    return isfinite(a->x) && isfinite(a->y);
}

/* a dominates b: no more energy and no less bandwidth, better in one. */
static bool dominates(const struct tb_pareto_point *a, const struct tb_pareto_point *b)
{
    return a->x <= b->x && a->y >= b->y && (a->x < b->x || a->y > b->y);
}

static int by_front_then_x(const void *pa, const void *pb)
{
    const struct tb_pareto_point *a = pa, *b = pb;
    if (a->front != b->front)
        return a->front ? -1 : 1;
    bool fa = finite_xy(a), fb = finite_xy(b);
    if (fa != fb)
        return fa ? -1 : 1;
    if (fa && a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (fa && a->y != b->y)
        return a->y > b->y ? -1 : 1;
    return (a->src > b->src) - (a->src < b->src);
}

size_t tb_pareto_front(struct tb_pareto_point *p, size_t n)
{
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        p[i].knee = false;
        p[i].front = finite_xy(&p[i]);
        p[i].frac_y_of_fastest = p[i].frac_x_of_fastest = NAN;
        for (size_t j = 0; j < n && p[i].front; j++)
            if (j != i && finite_xy(&p[j]) && dominates(&p[j], &p[i]))
                p[i].front = false;
        /* two equal points: the first stays on the front, the other is a duplicate */
        for (size_t j = 0; j < i && p[i].front; j++)
            if (p[j].front && p[j].x == p[i].x && p[j].y == p[i].y)
                p[i].front = false;
        nf += p[i].front;
    }
    tb_sort(p, n, sizeof(*p), by_front_then_x);
    if (!nf)
        return 0;
    /* sorted by x, the front's y rises: its last point is the fastest */
    const struct tb_pareto_point *fast = &p[nf - 1];
    for (size_t i = 0; i < n; i++) {
        if (!finite_xy(&p[i]))
            continue;
        p[i].frac_y_of_fastest = fast->y > 0 ? p[i].y / fast->y : NAN;
        p[i].frac_x_of_fastest = fast->x > 0 ? p[i].x / fast->x : NAN;
    }
    size_t knee = nf - 1;
    if (nf >= 3) {
        double x0 = p[0].x, x1 = p[nf - 1].x, y0 = p[0].y, y1 = p[nf - 1].y, best = -1;
        for (size_t i = 0; i < nf; i++) {
            double d = (p[i].y - y0) / (y1 - y0) - (p[i].x - x0) / (x1 - x0);
            if (d > best) {
                best = d;
                knee = i;
            }
        }
    } else {
        for (size_t i = 0; i < nf; i++)
            if (p[i].y >= TB_PARETO_KNEE_FRAC * fast->y) {
                knee = i;
                break;
            }
    }
    p[knee].knee = true;
    return nf;
}
