/* rounds.c: a point's power figures from its rounds, the repeated windows spread over its
 * group of points (runner.c). One window's readings say how sure its mean is over those
 * seconds; they cannot say what a rerun would read. On an H100 three runs of one kernel
 * drew powers 0.5-2.9% apart while each window said +-0.2-1%: the card warmed from 49 to
 * 62 C over a minute and drew 2 W more per degree (doc/power.md, "Measured"). The rounds'
 * spread holds that; the interval is the wider of it and the windows' own. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "power/power.h"
#include "lib/stats.h"

static bool usable(const struct tb_power_round *r)
{
    return r->secs > 0 && isfinite(r->f.total_w) && r->f.total_w > 0 &&
           isfinite(r->f.total_w_ci);
}

/* Sums of the usable rounds: time-weighted power, energy (NAN when a round lacks it), the
 * windows' own intervals combined as independent (half-widths add in quadrature). */
static void sums(const struct tb_power_round *r, int n, struct tb_power_point *o, double *ci_w)
{
    double pw = 0, gw = 0, ci2 = 0;
    o->energy_j = o->energy_counter_j = 0;
    for (int k = 0; k < n; k++) {
        o->samples += r[k].f.samples;
        o->updates += r[k].f.updates;
        if (!usable(&r[k]))
            continue;
        o->rounds++;
        o->secs += r[k].secs;
        o->bytes += r[k].bytes;
        pw += r[k].f.total_w * r[k].secs;
        gw += r[k].f.gpu_w * r[k].secs;   /* NAN stays NAN: a rail missing in one round */
        ci2 += (r[k].f.total_w_ci * r[k].secs) * (r[k].f.total_w_ci * r[k].secs);
        o->energy_j += r[k].f.energy_j;
        o->energy_counter_j += r[k].f.energy_counter_j;
        o->gpu_temp_c = r[k].f.gpu_temp_c;
        o->gpu_clock_mhz = r[k].f.gpu_clock_mhz;
        o->emc_clock_mhz = r[k].f.emc_clock_mhz;
    }
    o->total_w = o->secs > 0 ? pw / o->secs : NAN;
    o->gpu_w = o->secs > 0 ? gw / o->secs : NAN;
    *ci_w = o->secs > 0 ? sqrt(ci2) / o->secs : NAN;
}

/* The relative 95% half-widths of the rounds' mean power and mean GB/s per W. */
static void spread(const struct tb_power_round *r, int n, double *rel_w, double *rel_g)
{
    double w[TB_POWER_MAX_ROUNDS], g[TB_POWER_MAX_ROUNDS], hw;
    size_t m = 0;
    for (int k = 0; k < n && m < TB_POWER_MAX_ROUNDS; k++)
        if (usable(&r[k])) {
            w[m] = r[k].f.total_w;
            g[m++] = r[k].bytes / r[k].secs / r[k].f.total_w;
        }
    *rel_w = *rel_g = NAN;
    if (m < 2)
        return;
    double mw = tb_mean_ci95(w, m, &hw);
    *rel_w = hw / mw;
    double mg = tb_mean_ci95(g, m, &hw);
    *rel_g = mg > 0 ? hw / mg : NAN;
}

static void withhold(struct tb_power_point *o)
{
    o->withheld = true;
    o->total_w = o->total_w_ci = o->gpu_w = o->energy_j = o->energy_counter_j = NAN;
    o->gbps_per_w_rel = NAN;
}

void tb_power_rounds(const struct tb_power_round *r, int n, const struct tb_power_cfg *pc,
                     struct tb_power_point *out)
{
    memset(out, 0, sizeof(*out));
    out->gpu_temp_c = out->gpu_clock_mhz = out->emc_clock_mhz = NAN;
    n = n > TB_POWER_MAX_ROUNDS ? TB_POWER_MAX_ROUNDS : n < 0 ? 0 : n;
    double ci_w;
    sums(r, n, out, &ci_w);
    if (out->rounds == 0) {
        const char *why = n > 0 && r[n - 1].f.why[0] ? r[n - 1].f.why : "no reading inside "
                          "the window: no power figures";
        snprintf(out->why, sizeof(out->why), "%s", why);
        withhold(out);
        return;
    }
    double rel_own = ci_w / out->total_w, rel_w, rel_g;
    spread(r, n, &rel_w, &rel_g);
    double rel_p = isnan(rel_w) || rel_w < rel_own ? rel_own : rel_w;
    out->total_w_ci = rel_p * out->total_w;
    out->gbps_per_w_rel = isnan(rel_g) || rel_g < rel_own ? rel_own : rel_g;
    double rel = fmax(rel_p, out->gbps_per_w_rel);
    if (rel <= pc->max_rel_ci)
        return;
    if (out->rounds == 1)
        snprintf(out->why, sizeof(out->why), "%zu sensor updates in %.1f s: +-%.1f%%, wider "
                 "than power.max_rel_ci %.1f%%: no power figures", out->updates, out->secs,
                 100 * rel, 100 * pc->max_rel_ci);
    else
        snprintf(out->why, sizeof(out->why), "%d rounds (%zu sensor updates in %.1f s): "
                 "+-%.1f%% (%s), wider than power.max_rel_ci %.1f%%: no power figures",
                 out->rounds, out->updates, out->secs, 100 * rel,
                 rel > rel_own ? "the rounds' spread" : "the windows' own",
                 100 * pc->max_rel_ci);
    withhold(out);
}
