/* energy.c: see energy.h. Sensors update every 100 ms or so while a kernel takes well
 * under a millisecond, so the window's edges rarely meet a sample: interpolating there
 * rather than dropping the partial intervals keeps short windows honest. */
#include "energy/energy.h"

#include <math.h>

double tb_energy_interp(const int64_t *t, const double *p, size_t n, int64_t x)
{
    if (x <= t[0])
        return p[0];
    if (x >= t[n - 1])
        return p[n - 1];
    size_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (t[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    double f = (double)(x - t[lo]) / (double)(t[hi] - t[lo]);
    return p[lo] + f * (p[hi] - p[lo]);
}

double tb_energy_mj(const int64_t *t_ns, const double *p_mw, size_t n, int64_t t0, int64_t t1,
                    size_t *inside)
{
    if (inside)
        *inside = 0;
    if (n == 0 || t1 <= t0)
        return NAN;
    double e = 0;       /* mW * ns */
    int64_t prev_t = t0;
    double prev_p = tb_energy_interp(t_ns, p_mw, n, t0);
    for (size_t i = 0; i < n; i++) {
        if (t_ns[i] <= t0 || t_ns[i] >= t1)
            continue;
        e += 0.5 * (prev_p + p_mw[i]) * (double)(t_ns[i] - prev_t);
        prev_t = t_ns[i];
        prev_p = p_mw[i];
        if (inside)
            (*inside)++;
    }
    double end_p = tb_energy_interp(t_ns, p_mw, n, t1);
    e += 0.5 * (prev_p + end_p) * (double)(t1 - prev_t);
    return e * 1e-9; /* mW*ns -> mJ */
}

double tb_energy_inverted_mj(const int64_t *t_ns, const double *r_mw, size_t n, int64_t t0,
                             int64_t t1, double tau_ms, size_t *inside)
{
    double e = tb_energy_mj(t_ns, r_mw, n, t0, t1, inside);
    if (isnan(e) || !(tau_ms > 0))
        return e;
    /* r' = (P - r) / tau: P = r + tau r', so the integral of P is that of r plus tau times
     * r's change over the span */
    double lag = tb_energy_interp(t_ns, r_mw, n, t1) - tb_energy_interp(t_ns, r_mw, n, t0);
    return e + tau_ms * 1e-3 * lag;
}
