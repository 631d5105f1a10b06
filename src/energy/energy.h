/* energy.h: integrating power samples over a time window. Pure arithmetic. */
#ifndef TB_ENERGY_H
#define TB_ENERGY_H

#include <stddef.h>
#include <stdint.h>

/* Energy in millijoules of power p_mw[i] sampled at t_ns[i] (ascending) over [t0, t1]:
 * trapezoid rule, with the power at t0 and t1 interpolated linearly between the
 * neighbouring samples (held constant beyond the first or last sample).
 * NAN when n == 0 or t1 <= t0. *inside gets how many samples lie within the window. */
double tb_energy_mj(const int64_t *t_ns, const double *p_mw, size_t n, int64_t t0, int64_t t1,
                    size_t *inside);

/* The series p sampled at t (ascending, n >= 1) at time x: linear between neighbours, held
 * constant beyond the ends. */
double tb_energy_interp(const int64_t *t_ns, const double *p, size_t n, int64_t x);

/* The energy in mJ over [t0, t1] of what a first-order average r' = (P - r) / tau was fed,
 * from its readings r_mw[i] at t_ns[i]: integral(r dt) + tau x (r(t1) - r(t0)), exact for
 * that average whatever P did (Burtscher et al., "Measuring GPU power with the K20
 * built-in sensor", GPGPU-7 2014); the integral by tb_energy_mj, r at the edges by
 * tb_energy_interp. tau_ms 0: the plain integral. NAN as tb_energy_mj. */
double tb_energy_inverted_mj(const int64_t *t_ns, const double *r_mw, size_t n, int64_t t0,
                             int64_t t1, double tau_ms, size_t *inside);

#endif
