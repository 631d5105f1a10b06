/* pareto.h: the energy-optimal operating points of one kernel at one size: the Pareto front
 * of bandwidth (GB/s, higher is better) against dynamic energy per byte (pJ/B, lower is
 * better) across power modes and clock caps, with the knee of the front marked. Pure
 * arithmetic on points the caller gathers (compare --pareto; the page's chart draws the
 * same struct). Not here: reading logs (logread.h), output (table.h), drawing (report.c). */
#ifndef TB_PARETO_H
#define TB_PARETO_H

#include <stdbool.h>
#include <stddef.h>

/* One operating point. In: x, y and their 95% half-widths (NAN: none), src (the caller's
 * index). Out (tb_pareto_front): front, knee, and the ratios against the fastest point of
 * the front. */
struct tb_pareto_point {
    double x, x_ci;             /* dynamic energy per byte, pJ/B, and its 95% half-width */
    double y, y_ci;             /* GB/s and its 95% half-width */
    size_t src;                 /* the caller's: which row or mode it is */
    bool front;                 /* no other point has x <= and y >= with one strictly */
    bool knee;                  /* the front's knee (one point per front) */
    double frac_y_of_fastest;   /* y / the front's highest y */
    double frac_x_of_fastest;   /* x / the x of the front's fastest point (NAN if that is
                                 * not positive) */
};

/* Marks the front and its knee among p[0..n) in place and sorts p: front points first by x
 * ascending (the least energy first), then the dominated ones by x. Points with a
 * non-finite x or y are never on the front (they stay, last). Returns the front's size.
 * The knee: on the front normalised to [0, 1] in x and y between its two ends, the point
 * farthest above the line joining them (Kneedle: the most GB/s gained per joule added);
 * a front of one or two points has no bend, and its knee is then the least-energy point
 * that keeps TB_PARETO_KNEE_FRAC of the fastest's GB/s. */
size_t tb_pareto_front(struct tb_pareto_point *p, size_t n);

#define TB_PARETO_KNEE_FRAC 0.95

#endif
