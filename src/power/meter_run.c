/* meter_run.c: the meter's run-wide parts: the idle baseline (which settles the sensor's
 * cadence), the line that says the cadence and the block it sizes, the plan of a run's
 * energy time, and the warming before the sweep. Not here: a size's blocks (meter.c). */
#include "power/meter_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"

static void sleep_ms(double ms)
{
    int64_t end = tb_now_ns() + (int64_t)(ms * 1e6);
    while (tb_sleep_until_ns(end) == -EINTR)
        ;
}

/* How long an idle may wait for its updates: a minute when the cadence is not known; with
 * a period, four times what the readings need (a static sensor then gives up early: an
 * INA3221 that never changed cost 60 s per idle). */
static double idle_cap_ms(const struct tb_meter *m)
{
    double p = tb_meter_period_ms(m), want = m->pc->idle_ms;
    if (isnan(p))
        return fmax(2 * want, 15000.0);
    return fmax(2 * want, 4.0 * (m->pc->min_readings + 1) * p);
}

double tb_meter_idle(struct tb_meter *m, double *ci, char *why, size_t n)
{
    const struct tb_power_cfg *pc = m->pc;
    *ci = NAN;
    if (why && n)
        why[0] = 0;
    if (pc->idle_ms <= 0)
        return NAN;
    int64_t t0 = tb_now_ns();
    double waited = 0, want = pc->idle_ms, cap = idle_cap_ms(m);
    size_t got = 0;
    while (!*m->stop && waited < cap && !tb_sampler_failed(m->s)) {
        double step = fmin(250.0, want - waited);
        if (step > 0) {
            sleep_ms(step);
            waited = (double)(tb_now_ns() - t0) * 1e-6;
            continue;
        }
        got = tb_power_updates_in(m->s, pc, t0, tb_now_ns());
        if (got >= (size_t)pc->min_readings + 1)
            break;
        want = waited + 250.0;   /* not yet enough updates: a little longer */
    }
    int64_t t1 = tb_now_ns();
    tb_power_learn_cadence(m->s, pc, t0, t1);
    sleep_ms(tb_power_settle_ms(m->s));
    struct tb_power_cfg loose = *pc;   /* an idle is printed with its interval, however wide */
    loose.max_rel_ci = INFINITY;
    struct tb_power_figures f;
    tb_power_over(m->s, &loose, t0, t1, &f);
    *ci = f.total_w_ci;
    if (why && n && f.updates < 2 && f.samples > 0)
        snprintf(why, n, "the reading changed %zu time(s) in %.1f s of idle (%zu polls): a "
                 "static sensor, no interval", f.updates, (t1 - t0) * 1e-9, f.samples);
    return f.total_w;
}

void tb_meter_cadence_line(const struct tb_meter *m, char *line, size_t n)
{
    const struct tb_power_cadence *c = tb_sampler_cadence(m->s);
    double block = tb_meter_block_ms(m);
    int need = m->pc->block_updates * (c->triggered ? 3 : 1);
    if (isnan(c->period_ms))
        snprintf(line, n, "not known (%s): energy blocks of %.0f ms as power.window_ms says; "
                 "each block waits for %d clean updates", c->how[0] ? c->how :
                 "no change seen while idle", block, need);
    else
        snprintf(line, n, "%.0f ms (%s: %s)%s; energy blocks of %.0f ms for %d clean "
                 "updates after a lead-in update", c->period_ms, c->how, c->detail,
                 c->triggered ? "; triggered: one conversion a reading, no averaging" : "",
                 block, need);
}

double tb_meter_plan_s(const struct tb_meter *m, size_t points)
{
    /* the energy budget, and the idle after the sweep as long as the one before needed */
    double p = tb_meter_period_ms(m), idle = m->pc->idle_ms;
    if (!isnan(p))
        idle = fmax(idle, (m->pc->min_readings + 1) * p + tb_power_settle_ms(m->s));
    return m->pc->budget_s * (double)points + idle * 1e-3;
}

/* ---- warming ------------------------------------------------------------------------
 * A GPU's power climbs as it warms (leakage): an H100 under memcpy drew 501 W at 50 C and
 * 522 W at 62 C a minute later. Once a night, before the sweep, a kernel runs in blocks of
 * 5 s at least until two successive blocks' mean powers differ by at most settle_rel (or by
 * less than their own intervals), or power.settle_s has passed. A mode step runs the same
 * loop: where the power no longer moves it ends after two blocks. */
#define SETTLE_BLOCK_MIN_MS 5000.0

struct settle_state {
    double first, prev, prev_ci, change;
    int blocks;
    bool steady;
    char why[128];
};

/* One block of load; its mean power judged against the previous block's. 0, the load's
 * error, or 1 when the block had no power figure (st->why says why). */
static int settle_block(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                        int64_t end, struct settle_state *st)
{
    int64_t t0 = tb_now_ns();
    while (tb_now_ns() < end && !*m->stop) {
        double b = 0;
        int rc = ld->fn(ld->arg, i, end, &b);
        if (rc)
            return rc;
    }
    int64_t t1 = tb_now_ns();
    struct tb_power_cfg loose = *m->pc;
    loose.max_rel_ci = INFINITY;
    /* the readings' noise only: batch means would count the climb itself as noise and call
     * two blocks of a climbing board steady */
    loose.batches = 1;
    sleep_ms(tb_power_settle_ms(m->s));
    struct tb_power_figures f;
    tb_power_over(m->s, &loose, t0, t1, &f);
    if (!isfinite(f.total_w) || f.total_w <= 0) {
        if (f.samples > 0 && f.updates < 2)
            snprintf(st->why, sizeof(st->why), "the reading changed %zu time(s) in %.1f s: a "
                     "static sensor", f.updates, (t1 - t0) * 1e-9);
        else
            snprintf(st->why, sizeof(st->why), "%s", f.why[0] ? f.why : "no power reading");
        return 1;
    }
    if (!st->blocks++)
        st->first = f.total_w;
    else {
        st->change = (f.total_w - st->prev) / f.total_w;
        double ci = hypot(isfinite(f.total_w_ci) ? f.total_w_ci : 0,
                          isfinite(st->prev_ci) ? st->prev_ci : 0);
        st->steady = fabs(st->change) <= m->pc->settle_rel || fabs(f.total_w - st->prev) < ci;
    }
    st->prev = f.total_w;
    st->prev_ci = f.total_w_ci;
    return 0;
}

double tb_meter_warm(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                     const char *what, char *line, size_t n)
{
    const struct tb_power_cfg *pc = m->pc;
    line[0] = 0;
    if (pc->settle_s <= 0 || *m->stop)
        return 0;
    double block_ms = fmax(tb_meter_block_ms(m), SETTLE_BLOCK_MIN_MS);
    int64_t t_start = tb_now_ns(), limit = t_start + (int64_t)pc->settle_s * 1000000000LL;
    struct settle_state st = { NAN, NAN, NAN, NAN, 0, false, "" };
    int rc = 0;
    while (!rc && !st.steady && !*m->stop && tb_now_ns() < limit) {
        int64_t end = tb_now_ns() + (int64_t)(block_ms * 1e6);
        rc = settle_block(m, ld, i, end < limit ? end : limit, &st);
    }
    double secs = (double)(tb_now_ns() - t_start) * 1e-9;
    char err[96] = "the load failed";
    if (rc > 1 || rc < 0) {
        if (ld->errstr)
            ld->errstr(ld->arg, rc, err, sizeof(err));
    }
    const char *how = st.steady ? "steady" : *m->stop ? "stopped by a signal"
                      : rc == 1 ? st.why : rc ? err : "not steady when power.settle_s ended";
    snprintf(line, n, "%.0f s under %s in blocks of %.1f s: %.1f W -> %.1f W, last change "
             "%+.2f%% (power.settle_rel %.2f%%)%s: %s", secs, what, block_ms * 1e-3, st.first,
             st.prev, 100 * st.change, 100 * pc->settle_rel, m->warmed ? ", again for this "
             "step" : "", how);
    m->warmed = true;
    m->steady = st.steady;
    snprintf(m->warm_why, sizeof(m->warm_why), "not steady (%s)", how);
    return secs;
}

bool tb_meter_warm_steady(const struct tb_meter *m)
{
    return m->steady;
}
