/* meter_run.c: the meter's run-wide parts: the idle baseline (which settles the sensor's
 * cadence), the line that says the cadence and the block it sizes, the plan of a run's
 * energy time, and the warming before the sweep. Not here: a size's blocks (meter.c). */
#include "energy/meter.h"
#include "energy/meter_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/stats.h"

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

/* The plan settled by an idle [t0, t1]: where the source gave no cadence, the period its
 * readings show (plan.c says it and works the plan out again); once settled, a later idle
 * (a mode step's, the closing one) leaves it as it is. */
static void learn(struct tb_meter *m, int64_t t0, int64_t t1)
{
    double period = NAN;
    size_t intervals = 0;
    if (m->plan.settled)
        return;
    if (isnan(m->plan.cadence.period_ms)) {
        struct tb_power_span sp;
        tb_energy_plan_read(&m->plan, t0, t1, 0, &sp);
        period = tb_power_infer_period(&m->plan, &sp, t0, t1, &intervals);
        tb_power_span_free(&sp);
    }
    tb_energy_plan_learn(&m->plan, period, intervals);
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
    while (!*m->stop && waited < cap && !tb_energy_plan_lost(&m->plan)) {
        double step = fmin(250.0, want - waited);
        if (step > 0) {
            sleep_ms(step);
            waited = (double)(tb_now_ns() - t0) * 1e-6;
            continue;
        }
        got = tb_meter_updates(m, t0, tb_now_ns(), NULL, NULL);
        if (got >= (size_t)pc->min_readings + 1)
            break;
        want = waited + 250.0;   /* not yet enough updates: a little longer */
    }
    int64_t t1 = tb_now_ns();
    learn(m, t0, t1);
    sleep_ms(m->plan.settle_ms);
    struct tb_power_figures f;   /* an idle is printed with its interval, however wide */
    tb_meter_over(m, pc, t0, t1, &f);
    *ci = f.total_w_ci;
    /* a reading's spread in the first idle, for the plan of the cycles: from successive
     * readings, not the idle's interval, which a card still cooling from the run before
     * widens (four H200s at once: +-3 W of 125 W planned 48 s for runs of 27 s) */
    if (isnan(m->idle_rel_sd) && f.updates >= 3 && isfinite(f.reading_rel_sd))
        m->idle_rel_sd = f.reading_rel_sd;
    if (why && n && f.updates < 2 && f.samples > 0)
        snprintf(why, n, "the reading changed %zu time(s) in %.1f s of idle (%zu polls): a "
                 "static sensor, no interval", f.updates, (t1 - t0) * 1e-9, f.samples);
    return f.total_w;
}

/* An averaging sensor's blocks, said: the model, and which lead-in its reads allow. A
 * lag left in a block by a short lead-in is (tau / block) x the power step; inverted, it
 * is gone where the average is read often enough to integrate, and where not (tegrastats
 * every second), 5 tau of lead-in leave e^-5 of it, where blocks long enough for the lag
 * to fade within them would need about 500 tau (0.2% of a full step): the lead-in always
 * costs less, and the line says so. */
static void inverted_line(const struct tb_meter *m, char *line, size_t n)
{
    const struct tb_power_cadence *c = &m->plan.cadence;
    int rails = m->plan.rails.n;
    char model[TB_METER_MODEL_LINE];
    tb_sensor_model_line(&c->model, rails, model, sizeof(model));
    double tau = m->plan.tau_ms, lead = tb_meter_lead_ms(m);
    /* the sampler's poll, where its reads outlasted power.interval_ms (JetPack 5's driver
     * waits for a conversion on every read): the blocks are planned on it, and said so,
     * only where the period printed is that poll (not tegrastats' interval, nor the period
     * seen while idle where it is slower) */
    char slow[160] = "";
    if (m->plan.poll_ms > m->pc->interval_ms && m->plan.poll_ms >= tb_meter_read_ms(m) - 0.5)
        snprintf(slow, sizeof(slow), " (the sampler's poll, lengthened from power.interval_ms "
                 "%d ms: its reads took longer than that)", m->pc->interval_ms);
    if (tb_meter_slow_reads(m))
        snprintf(line, n, "model %s; read every %.0f ms%s, too coarse to invert the average "
                 "(over tau / 8): each block inverted after a lead-in of %d tau (%.0f ms), "
                 "which costs less than blocks long enough for the lag (%.0f s); energy blocks "
                 "of %.0f ms", model, tb_meter_read_ms(m), slow, TB_METER_LEAD_TAUS, lead,
                 500 * tau * 1e-3, tb_meter_block_ms(m));
    else
        snprintf(line, n, "model %s; polled every %.0f ms%s: each block inverted (integral "
                 "of the readings + tau x their change), from the first poll after the switch; "
                 "energy blocks of %.0f ms", model, tb_meter_read_ms(m), slow,
                 tb_meter_block_ms(m));
    size_t len = strlen(line);
    double want = fmax(m->pc->window_ms, tb_meter_need_updates(m) * tau);
    if (tb_meter_block_ms(m) < want && len < n)   /* cut to the budget: said */
        snprintf(line + len, n - len, " (%.1f tau: power.block_updates' %d tau cut so that "
                 "the fewest cycles, %d, fit power.budget_s %.0f s a point)",
                 tb_meter_block_ms(m) / tau, tb_meter_need_updates(m), TB_METER_FEWEST_CYCLES,
                 m->pc->budget_s);
    /* the source's own words (ina3221.c: how long its rail reads took, what slow reads
     * changed, what a rail's stamp means), which the model's line does not carry */
    len = strlen(line);
    if (c->detail[0] && len < n)
        snprintf(line + len, n - len, "; the source: %s", c->detail);
}

void tb_meter_cadence_line(const struct tb_meter *m, char *line, size_t n)
{
    const struct tb_power_cadence *c = &m->plan.cadence;
    double block = tb_meter_block_ms(m);
    int need = m->pc->block_updates * (c->triggered ? 3 : 1);
    if (tb_meter_inverts(m)) {
        inverted_line(m, line, n);
        return;
    }
    if (c->model.kind != TB_SENSOR_UNKNOWN) {   /* the model first, then the cadence */
        char model[TB_METER_MODEL_LINE];
        int k = snprintf(line, n, "model ");
        tb_sensor_model_line(&c->model, m->plan.rails.n, model, sizeof(model));
        k += snprintf(line + k, n > (size_t)k ? n - (size_t)k : 0, "%s; ", model);
        if ((size_t)k >= n)
            return;
        line += k;
        n -= (size_t)k;
    }
    if (isnan(c->period_ms))
        snprintf(line, n, "not known (%s)%s; energy blocks of %.0f ms as power.window_ms "
                 "says; each block waits for %d clean updates", c->how[0] ? c->how :
                 "no change seen while idle", c->triggered ? "; triggered: one conversion a "
                 "reading, no averaging" : "", block, need);
    else
        snprintf(line, n, "%.0f ms (%s: %s)%s; energy blocks of %.0f ms for %d clean "
                 "updates after a lead-in update", c->period_ms, c->how, c->detail,
                 c->triggered ? "; triggered: one conversion a reading, no averaging" : "",
                 block, need);
}

/* An idle's seconds: power.idle_ms, longer for min_readings + 1 updates, and the wait for
 * the reading that closes it. An average's reading moves at every read (its register every
 * conversion cycle), not once per update_interval. */
static double idle_s(const struct tb_meter *m)
{
    double p = tb_meter_inverts(m) ? tb_meter_read_ms(m) : tb_meter_period_ms(m),
           idle = m->pc->idle_ms;
    if (!isnan(p))
        idle = fmax(idle, (m->pc->min_readings + 1) * p);
    return (idle + m->plan.settle_ms) * 1e-3;
}

/* A block's seconds: the lead-in to the next update (a whole period: the block before
 * ended at an update), its span of whole updates over power.window_ms, and the poll that
 * sees the last. */
static double block_s(const struct tb_meter *m, int *updates)
{
    double p = tb_meter_period_ms(m), iv = m->pc->interval_ms;
    int need = tb_meter_need_updates(m);
    if (tb_meter_inverts(m) && tb_meter_slow_reads(m) && m->plan.cadence.model.read_ms <= 0) {
        /* our own poll, too coarse to integrate (reads that block lengthened it): the lead-in
         * and the span each end at the first poll after them, and the block began a slice
         * after one, so each is a whole number of polls (issue #57: tau 100 ms polled every
         * 550 ms, blocks of 2 polls planned at 3) */
        *updates = need;
        double h = tb_meter_read_ms(m), slice = (double)m->plan.slice_ns * 1e-6;
        return (ceil((tb_meter_lead_ms(m) + slice) / h) * h +
                ceil(tb_meter_block_ms(m) / h) * h + slice) * 1e-3;
    }
    if (tb_meter_inverts(m)) {   /* its lead-in, its span, the poll after the span, a slice */
        *updates = need;
        return (tb_meter_lead_ms(m) + tb_meter_block_ms(m) + tb_meter_read_ms(m) + iv) * 1e-3;
    }
    if (isnan(p)) {
        *updates = need;
        return (tb_meter_block_ms(m) + iv) * 1e-3;
    }
    double k = fmax(need, ceil(m->pc->window_ms / p));
    *updates = (int)k;
    return (p + k * p + iv) * 1e-3;
}

/* The cycles the figures need to reach power.target_rel_ci where a rerun lands, from the
 * first idle's reading spread: a block's mean of k updates, a ratio of it to the mean of
 * two copy blocks (sd x sqrt(1/k + 1/(2k))), t x sqrt(2) x that / sqrt(cycles). At least
 * power.rounds (2); 0 where the spread is not known (the budget is then the plan). */
/* A block's relative sd from the first idle's reading spread: the mean of k independent
 * updates; inverted, the noise behind the average integrated over the block. An average
 * of time constant tau fed white noise of sd s a conversion cycle c moves by s^2 c h / tau^2
 * in variance over a poll of h, while a block of L integrates s^2 c / L of it: the block's
 * sd is the steps' (sqrt(2) x a reading's, as tb_sd_of_steps gives it) x tau / sqrt(h L).
 * Where reads are slow the steps are nearly independent readings again. */
static double block_rel_sd(const struct tb_meter *m, int k)
{
    if (!tb_meter_inverts(m) || tb_meter_slow_reads(m))
        return m->idle_rel_sd / sqrt((double)k);
    double tau = m->plan.tau_ms;
    return sqrt(2.0) * m->idle_rel_sd * tau / sqrt(tb_meter_read_ms(m) * tb_meter_block_ms(m));
}

static int cycles_needed(const struct tb_meter *m, int k)
{
    if (!isfinite(m->idle_rel_sd))
        return 0;
    double sd = block_rel_sd(m, k) * sqrt(1.5);
    int c = m->pc->rounds > 2 ? m->pc->rounds : 2;
    while (c < TB_METER_MAX_CYCLES &&
           tb_t95((size_t)c - 1) * sqrt(2.0) * sd / sqrt((double)c) > m->pc->target_rel_ci)
        c++;
    return c;
}

double tb_meter_plan_size_s(const struct tb_meter *m, size_t n, bool ref)
{
    if (n == 0)
        return 0;
    int k;
    double b = block_s(m, &k), budget = m->pc->budget_s * (double)n;
    int c = cycles_needed(m, k);
    if (c == 0)
        c = TB_METER_MAX_CYCLES;   /* the spread not known: the budget, or the fewest */
    /* the opening copy block, then a kernel block and a copy block per kernel a cycle (the
     * copy alone: one a cycle); without a copy, one block per point a cycle */
    size_t blocks = !ref ? (size_t)c * n : n == 1 ? 1 + (size_t)c : 1 + (size_t)c * 2 * (n - 1);
    /* the budget ends the cycles, never before the fewest: those blocks, however long */
    size_t f = TB_METER_FEWEST_CYCLES, fewest = !ref ? f * n : n == 1 ? 1 + f : 1 + f * 2 * (n - 1);
    return fmax((double)fewest * b, fmin(budget, (double)blocks * b));
}

/* The warming's blocks: power.settle_s in equal blocks of SETTLE_BLOCK_MIN_MS at least (a
 * sensor's block where longer); their ms into *ms. */
#define SETTLE_BLOCK_MIN_MS 5000.0
static int warm_blocks(const struct tb_meter *m, double *ms)
{
    double least = fmax(tb_meter_block_ms(m), SETTLE_BLOCK_MIN_MS), all = m->pc->settle_s * 1e3;
    int k = all >= least ? (int)floor(all / least) : 1;
    *ms = all / k;
    return k;
}

double tb_meter_plan_s(const struct tb_meter *m, double step_s, size_t steps)
{
    double warm = 0, ms;
    if (!m->warmed && m->pc->settle_s > 0)
        warm = m->pc->settle_s + warm_blocks(m, &ms) * m->plan.settle_ms * 1e-3;
    steps = steps ? steps : 1;
    /* the idle before the first step was measured before this is said */
    return (double)steps * (step_s + idle_s(m)) + (double)(steps - 1) * idle_s(m) + warm;
}

void tb_meter_announce(struct tb_meter *m, double secs)
{
    m->announced_s = secs;
    m->announced_ns = tb_now_ns();
}

double tb_meter_announced(const struct tb_meter *m, double *since_s)
{
    if (since_s)
        *since_s = m->announced_s > 0 ? (double)(tb_now_ns() - m->announced_ns) * 1e-9 : 0;
    return m->announced_s;
}

/* ---- warming ------------------------------------------------------------------------
 * A GPU's power climbs as it warms (leakage): an H100 under memcpy drew 501 W at 50 C and
 * 522 W at 62 C a minute later. Interleaving every kernel's blocks with the copy's cancels
 * that drift in the ratio, so the warming need not wait for the power to settle, which
 * took 10 to 90 s on the H200 and made the night's time unpredictable: once a night,
 * before the sweep, a kernel runs for exactly power.settle_s (in blocks of 5 s at least)
 * to bring the device to the load (its clocks up, its power at the load's level), counted
 * in the time the run announces. Whether the last two blocks' mean powers agree (within
 * settle_rel, or their intervals) is said, not waited for. A mode step does not warm again:
 * the device is under load from the step before, and the first update of every block is
 * lead-in. */
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
    /* the readings' noise only: batch means would count the climb itself as noise and call
     * two blocks of a climbing board steady */
    loose.batches = 1;
    sleep_ms(m->plan.settle_ms);
    /* the first update after the start averages what ran before (the idle), and the edge
     * is interpolated from it: two periods of lead-in */
    double p = tb_meter_period_ms(m);
    int64_t from = isnan(p) || t0 + (int64_t)(4e6 * p) > t1 ? t0 : t0 + (int64_t)(2e6 * p);
    struct tb_power_figures f;
    tb_meter_over(m, &loose, from, t1, &f);
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
    if (pc->settle_s <= 0 || *m->stop || m->warmed)
        return 0;
    double block_ms;
    int blocks = warm_blocks(m, &block_ms);
    int64_t t_start = tb_now_ns();
    struct settle_state st = { NAN, NAN, NAN, NAN, 0, false, "" };
    int rc = 0;
    for (int b = 0; b < blocks && !rc && !*m->stop; b++)
        rc = settle_block(m, ld, i, tb_now_ns() + (int64_t)(block_ms * 1e6), &st);
    double secs = (double)(tb_now_ns() - t_start) * 1e-9;
    char err[96] = "the load failed";
    if (rc > 1 || rc < 0) {
        if (ld->errstr)
            ld->errstr(ld->arg, rc, err, sizeof(err));
    }
    const char *how = *m->stop ? "stopped by a signal" : rc == 1 ? st.why : rc ? err
                      : st.steady ? "steady" : "not steady when power.settle_s ended";
    snprintf(line, n, "%.0f s under %s in blocks of %.1f s: %.1f W -> %.1f W, last change "
             "%+.2f%% (power.settle_rel %.2f%%): %s", secs, what, block_ms * 1e-3, st.first,
             st.prev, 100 * st.change, 100 * pc->settle_rel, how);
    m->warmed = true;
    m->steady = st.steady && !rc && !*m->stop;
    snprintf(m->warm_why, sizeof(m->warm_why), "not steady (%s)", how);
    return secs;
}
