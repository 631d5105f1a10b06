/* plan.c: see plan.h. The plan's constructor takes the sampler's feed, energy's one call of
 * the sampler; the plan is worked out from what the feed says (make, learn, device), and
 * the rest of this file is the door to the feed's readings, the source's failure and the
 * readings' health, which change while the night runs. */
#include "energy/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "power/feed.h"

/* An inverted block's lead-in before its span: 0 (the first poll after the switch) where
 * reads are fast, TB_METER_LEAD_TAUS time constants where slow. */
static double lead_ms(const struct tb_energy_plan *p)
{
    if (!p->inverts)
        return NAN;
    return p->slow_reads ? TB_METER_LEAD_TAUS * p->tau_ms : 0;
}

/* The longest an inverted block may be: the fewest cycles' blocks (two a point a cycle: its
 * own and the copy's after it, with their lead-ins and closing polls) within
 * power.budget_s a point, never below TB_METER_MIN_BLOCK_TAUS time constants. */
static double block_cap_ms(const struct tb_energy_plan *p)
{
    double extra = (isnan(p->lead_ms) ? 0 : p->lead_ms) + p->read_ms + p->pc->interval_ms;
    double fit = p->pc->budget_s * 1e3 / (2.0 * TB_METER_FEWEST_CYCLES) - extra;
    return fmax(TB_METER_MIN_BLOCK_TAUS * p->tau_ms, fit);
}

/* A block's span: power.window_ms, lengthened to hold need_updates periods (inverted:
 * power.block_updates time constants, the inversion's noise, tau x the reading's change,
 * over the block's). Inverted, a block is exact at any length (only its noise grows as it
 * shortens): a slow average's blocks are cut to what the budget holds (#58: 5000 ms made
 * 15 s blocks, a night announced at 25 s took 76 s); not where reads are slow (tegrastats'
 * lines), whose blocks must hold a few of them and whose lead-in is the cost. */
static double block_ms(const struct tb_energy_plan *p)
{
    double per = p->inverts ? p->tau_ms : p->period_ms, ms = p->pc->window_ms;
    if (isfinite(per) && per > 0)
        ms = fmax(ms, p->need_updates * per);
    return p->inverts && !p->slow_reads ? fmin(ms, p->block_cap_ms) : ms;
}

/* Everything that follows from the sampler's facts and the settings, in the order each
 * needs the one before. */
static void work_out(struct tb_energy_plan *p)
{
    const struct tb_power_cfg *pc = p->pc;
    const struct tb_sensor_model *md = &p->cadence.model;
    double per = p->cadence.period_ms;
    p->counter = tb_power_cadence_counter(&p->cadence);
    p->period_ms = isfinite(per) && per > 0 ? per : NAN;
    p->tau_ms = tb_sensor_model_max_tau_ms(md, p->rails.n);
    p->inverts = md->kind == TB_SENSOR_EMA;
    /* another program's read period (tegrastats: its interval, or the period seen while
     * idle if slower), else our poll as the sampler keeps it: where reads block (JetPack
     * 5's driver waits for a conversion on every read, 100-430 ms a rail) it lengthens
     * power.interval_ms (sampler.c), and blocks planned on the poll asked held one or two
     * readings (issue #57: two chips read 430 ms each, polled every 1100 ms, blocks of
     * 1289 ms, -0.524% to +1.055%) */
    p->read_ms = md->read_ms > 0 ? fmax(md->read_ms, isnan(p->period_ms) ? 0 : p->period_ms)
                                 : fmax(pc->interval_ms, p->poll_ms);
    /* the trapezoid of an average read every h misses h^2 / (12 tau^2) of its swing, and a
     * reading held up to h late shifts it: past tau / 8 (0.1% of the swing) too coarse */
    p->slow_reads = p->read_ms > p->tau_ms / 8;
    p->lead_ms = lead_ms(p);
    int k = pc->block_updates > 0 ? pc->block_updates : 1;
    p->need_updates = p->cadence.triggered ? 3 * k : k;   /* a moment a reading, not a mean */
    p->block_cap_ms = block_cap_ms(p);
    p->block_ms = block_ms(p);
    double pm = p->period_ms;
    /* never less than three of the sampler's polls (a lengthened poll of 1100 ms) */
    double wait_ms = isnan(pm) ? 3000 : fmax(4 * pm, 1000);
    p->patience_ns = (int64_t)(fmax(wait_ms, 3.0 * p->poll_ms) * 1e6);
    p->slice_ns = (int64_t)((isnan(pm) ? 20 : fmin(fmax(pm / 4, 5), 50)) * 1e6);
    /* min_readings readings need that many updates (one more for a counter, whose readings
     * are the spans between updates), and one period more for where the window's edges
     * fall between them */
    p->window_ms = isnan(per) || per <= 0 ? pc->window_ms
                   : fmax((double)pc->window_ms,
                          ((double)pc->min_readings + (p->counter ? 1 : 0) + 1) * per);
    /* an energy counter's next update closes the window; an averaging reading is read at
     * the edge by interpolation, for which the next sample is enough */
    p->settle_ms = p->counter && !isnan(per) ? fmin(per, 5000) + p->poll_ms : 2.0 * p->poll_ms;
}

void tb_energy_plan_make(struct tb_energy_plan *p, struct tb_sampler *s,
                         const struct tb_power_cfg *pc)
{
    memset(p, 0, sizeof(*p));
    struct tb_feed *f = p->feed = tb_sampler_feed(s);
    p->pc = pc;
    p->source = tb_feed_source(f);
    p->poll_ms = tb_feed_poll_ms(f);
    p->rails = *tb_feed_rails(f);
    p->cadence = *tb_feed_cadence(f);
    p->device = *tb_feed_device(f);
    work_out(p);
}

double tb_energy_plan_learn(struct tb_energy_plan *p, double period_ms, size_t intervals)
{
    /* the poll as it is now: a slow sensor's lengthened it in the idle (sampler.c) */
    p->poll_ms = tb_feed_poll_ms(p->feed);
    struct tb_power_cadence *c = &p->cadence;
    if (isnan(c->period_ms) && !isnan(period_ms)) {
        c->period_ms = period_ms;
        if (!c->how[0])
            tb_strlcpy(c->how, "inferred", sizeof(c->how));
        size_t len = strlen(c->detail);
        snprintf(c->detail + len, sizeof(c->detail) - len, "%smedian of %zu intervals between "
                 "changed readings while idle", len ? "; " : "", intervals);
        tb_feed_set_cadence(p->feed, c);
    }
    p->settled = !isnan(c->period_ms);
    work_out(p);
    return c->period_ms;
}

void tb_energy_plan_device(struct tb_energy_plan *p)
{
    p->device = *tb_feed_device(p->feed);
}

void tb_energy_plan_read(const struct tb_energy_plan *p, int64_t t0, int64_t t1,
                         int64_t margin, struct tb_power_span *sp)
{
    sp->n = 0;
    sp->w = tb_feed_window(p->feed, t0, t1, margin, &sp->n);
}

void tb_power_span_free(struct tb_power_span *sp)
{
    free(sp->w);
    sp->w = NULL;
    sp->n = 0;
}

bool tb_energy_plan_lost(const struct tb_energy_plan *p)
{
    return tb_feed_lost(p->feed);
}

const char *tb_energy_plan_lost_why(const struct tb_energy_plan *p)
{
    return tb_feed_lost_why(p->feed);
}

void tb_energy_plan_health(const struct tb_energy_plan *p, struct tb_power_health *h)
{
    tb_feed_health(p->feed, h);
}

#define SILENT_MIN_MS 250.0
bool tb_energy_plan_silent(const struct tb_energy_plan *p, char *why, size_t n)
{
    struct tb_power_health h;
    tb_feed_health(p->feed, &h);
    /* twice the polling interval (the thread's, as it polls now) and the sensor's period,
     * 250 ms at least: on the H100 an NVML poll every 20 ms came 43 ms late under load, and
     * the row called it silent */
    double limit = fmax(2.0 * h.poll_ms, SILENT_MIN_MS);
    if (isfinite(p->cadence.period_ms))
        limit = fmax(limit, 2.0 * p->cadence.period_ms);
    if (h.quiet_ms <= limit)
        return false;
    snprintf(why, n, "no reading from '%s' for %.0f ms (the source is silent): no power "
             "figures", p->source, h.quiet_ms);
    return true;
}
