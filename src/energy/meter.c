/* meter.c: a size's energy in blocks interleaved with the reference copy's. A block is the
 * load of one point over whole sensor updates: the first update after the switch closes a
 * lead-in (it averages what ran before), the block's figure is read between it and a later
 * update. The copy's blocks alternate with the kernels' in an order that rotates every
 * cycle, closing with a copy block, so that every kernel block has a copy block on either
 * side under the same thermal history: their ratio cancels the drift that moves absolute
 * figures between reruns (doc/notes/energy-design.md: +-0.3% interleaved against
 * 1-3% between sequential halves). Cycles are added until every figure is within
 * power.target_rel_ci or the budget is spent (nvbench's stopping). Not here: the figures
 * (meter_figures.c), idle and warming (meter_run.c). */
#include "energy/meter.h"
#include "energy/meter_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/stats.h"

/* A block whose GPU clock fell below this share of the size's highest: a throttle. */
#define CLOCK_FALL 0.85

struct tb_meter *tb_meter_new(struct tb_sampler *s, const struct tb_power_cfg *pc,
                              volatile sig_atomic_t *stop)
{
    struct tb_meter *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    tb_energy_plan_make(&m->plan, s, pc);
    m->pc = pc;
    m->stop = stop;
    m->steady = true;
    m->idle_rel_sd = NAN;
    m->rng = (unsigned long long)tb_now_ns() * 0x9E3779B97F4A7C15ULL | 1;
    return m;
}

const struct tb_energy_plan *tb_meter_plan(const struct tb_meter *m)
{
    return &m->plan;
}

void tb_meter_step(struct tb_meter *m)
{
    tb_energy_plan_device(&m->plan);
}

void tb_meter_judge_clock(struct tb_meter *m, bool on)
{
    m->judge_clock = on;
}

void tb_meter_free(struct tb_meter *m)
{
    if (m)
        free(m->sw);
    free(m);
}

/* A counter that samples part of each period (NVML on the A100/H100: 25 ms of 100 ms,
 * Yang et al., SC24) counts a block exactly only where its load is steady over whole
 * periods; a load with a rhythm of its own (a sync every 20 ms) locked to the counter's
 * phase would be sampled at one point of that rhythm every block. So each block on such
 * a counter first loads for a random part of a period: its edges, and its load's rhythm,
 * fall anywhere against the sampling, and what one block over- or under-counts another
 * does the other way. 0, or the load's error. */
static int jitter(struct tb_meter *m, const struct tb_meter_load *ld, size_t i)
{
    const struct tb_sensor_model *md = &m->plan.cadence.model;
    if (md->kind != TB_SENSOR_COUNTER || !(md->window_ms < md->period_ms))
        return 0;
    m->rng ^= m->rng << 13;
    m->rng ^= m->rng >> 7;
    m->rng ^= m->rng << 17;
    double u = (double)(m->rng >> 11) / 9007199254740992.0, b = 0;
    int rc = ld->fn(ld->arg, i, tb_now_ns() + (int64_t)(u * md->period_ms * 1e6), &b);
    return rc ? rc : *m->stop ? -EINTR : 0;
}

/* Loads point i in slices until an update after t0 is seen (or patience runs out): its
 * time into *ta. A sliding mean (NVML's power reading, sensor_model.h: a mean of 1 s) holds
 * the block before until its whole span has passed: the update must come after t0 plus
 * that span. 0, 1 (none came: why), or the load's error. */
static int lead_in(struct tb_meter *m, const struct tb_meter_load *ld, size_t i, int64_t t0,
                   int64_t *ta, char *why, size_t n)
{
    if (m->plan.cadence.model.kind == TB_SENSOR_MEAN)
        t0 += (int64_t)(m->plan.tau_ms * 1e6);
    int64_t give_up = t0 + tb_meter_patience_ns(m);
    int rc = jitter(m, ld, i);
    if (rc)
        return rc;
    for (;;) {
        double b = 0;
        rc = tb_meter_load_slice(m, ld, i, &b);
        if (rc)
            return rc;
        int64_t *tc = NULL, now = tb_now_ns();
        size_t k = tb_meter_updates(m, t0, now, &tc, NULL);
        if (k > 0 && tc)
            *ta = tc[0];
        free(tc);
        if (k > 0)
            return 0;
        bool lost = tb_energy_plan_lost(&m->plan);
        if (lost || now > give_up) {
            if (!lost && tb_meter_silent(m, why, n))
                return 1;
            snprintf(why, n, "no sensor update in %.1f s under load (%s)", (now - t0) * 1e-9,
                     lost ? "source lost" : "a static sensor");
            return 1;
        }
    }
}

/* The block's power between the updates ta and tb: the counter's energy over whole
 * counter periods, or the mean of the readings after ta (each the mean of a period that
 * lies under this block's load). */
static double block_power(struct tb_meter *m, const int64_t *tc, const double *vc, size_t k)
{
    if (m->plan.counter) {
        double span = (double)(tc[k - 1] - tc[0]), p = tb_meter_period_ms(m) * 1e6;
        if (!isnan(p) && p >= 2e6 * m->pc->interval_ms)
            span = fmax(1.0, round(span / p)) * p;
        return (vc[k - 1] - vc[0]) / span * 1e6;   /* mJ per ns -> W */
    }
    double sum = 0;
    for (size_t j = 1; j < k; j++)
        sum += vc[j];
    return sum / (double)(k - 1) * 1e-3;
}

/* Loads point i after the lead-in until the block holds its clean updates over power.window_ms;
 * *tb the last update's time. 0, 1 (too few came: why), or the load's error. */
static int measure_span(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                        int64_t ta, double *bytes, int64_t *m0, int64_t *m1, char *why,
                        size_t n)
{
    int need = tb_meter_need_updates(m);
    int64_t span = (int64_t)(tb_meter_block_ms(m) * 1e6), give_up = ta + span + tb_meter_patience_ns(m);
    *m0 = tb_now_ns();
    *bytes = 0;
    for (;;) {
        int rc = tb_meter_load_slice(m, ld, i, bytes);
        if (rc)
            return rc;
        int64_t *tc = NULL, now = tb_now_ns();
        size_t k = tb_meter_updates(m, ta + 1, now, &tc, NULL);
        /* an update's time is the poll that saw it, late by up to an interval: a span of
         * whole updates may read that much short, and is not made to wait a whole more */
        bool enough = k >= (size_t)need && tc &&
                      tc[k - 1] - ta + (int64_t)m->pc->interval_ms * 1000000 >= span;
        free(tc);
        *m1 = now;
        if (enough)
            return 0;
        bool lost = tb_energy_plan_lost(&m->plan);
        if (lost || now > give_up) {
            snprintf(why, n, "%zu clean sensor update%s in %.1f s, %d needed (%s)", k,
                     k == 1 ? "" : "s", (now - ta) * 1e-9, need, lost
                     ? "source lost" : "power.block_updates");
            return 1;
        }
    }
}

/* The figures of the block's measured span [ta, tb] from its readings, read once. */
static int block_figures(struct tb_meter *m, int64_t ta, double rate,
                         struct tb_meter_block *b, char *why, size_t n)
{
    int64_t *tc = NULL;
    double *vc = NULL;
    /* from a poll before ta, so that ta itself counts as the change it is; the span from
     * as far before for the figures beside the power (tb_power_over's margin) */
    int64_t before = ta - (int64_t)(2e6 * tb_power_plan_poll_ms(&m->plan, m->pc)),
            now = tb_now_ns();
    int64_t from = ta - tb_power_plan_margin_ns(&m->plan, m->pc);
    struct tb_power_span sp;
    tb_energy_plan_read(&m->plan, from < before ? from : before, now, 0, &sp);
    size_t k = tb_power_updates(&m->plan, &sp, before, now, &tc, &vc), j = 0;
    while (j < k && tc && tc[j] < ta)
        j++;
    k -= j;
    int rc = 1;
    if (k >= 2 && tc && vc) {
        int64_t tb = tc[j + k - 1];
        b->w = block_power(m, tc + j, vc + j, k);
        b->secs = (double)(tb - ta) * 1e-9;
        b->ta = ta;   /* its stamps, as an inverted block's (meter_ema.c) */
        b->tb = tb;
        b->bytes = rate * b->secs;
        b->updates = k - 1;
        b->jpb = b->w > 0 && b->bytes > 0 ? b->w * b->secs / b->bytes : NAN;
        tb_meter_block_extras(m, &sp, ta, tb, b);
        rc = isfinite(b->jpb) ? 0 : 1;
        if (rc)
            snprintf(why, n, "no power in the block (%.3f W over %.2f s)", b->w, b->secs);
    } else {
        snprintf(why, n, "fewer than 2 sensor updates in the block");
    }
    free(tc);
    free(vc);
    tb_power_span_free(&sp);
    return rc;
}

/* One block of point i. 0 (b filled), 1 (no figure: why), -EINTR (a stop), or the load's
 * error. */
static int run_block(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                     struct tb_meter_block *b, char *why, size_t n)
{
    memset(b, 0, sizeof(*b));
    b->jpb = b->w = b->gpu_w = b->temp_c = b->mem_temp_c = b->clock_mhz = b->emc_mhz = NAN;
    int64_t t0 = tb_now_ns(), ta = 0, m0 = 0, m1 = 0;
    double bytes = 0;
    struct tb_power_health h0, h1;
    tb_energy_plan_health(&m->plan, &h0);
    if (tb_meter_inverts(m)) {
        tb_meter_note_switch(m, i, t0);
        int rc = tb_meter_ema_block(m, ld, i, b, why, n);
        m->sw_end = tb_now_ns();
        tb_energy_plan_health(&m->plan, &h1);
        b->dropped = h1.dropped - h0.dropped;
        return rc;
    }
    int rc = lead_in(m, ld, i, t0, &ta, why, n);
    if (!rc)
        rc = measure_span(m, ld, i, ta, &bytes, &m0, &m1, why, n);
    b->took_s = (double)(tb_now_ns() - t0) * 1e-9;
    tb_energy_plan_health(&m->plan, &h1);
    b->dropped = h1.dropped - h0.dropped;
    if (rc)
        return rc;
    /* the load's rate over its measured slices: steady under one kernel, it gives the
     * bytes of the span between the two updates */
    double rate = m1 > m0 ? bytes / ((double)(m1 - m0) * 1e-9) : NAN;
    return block_figures(m, ta, rate, b, why, n);
}

/* ---- cycles ------------------------------------------------------------------------ */

struct size_run {
    struct tb_meter *m;
    const struct tb_meter_load *ld;
    size_t n, ref;
    struct tb_meter_track *tr;
    struct tb_meter_block prev_ref;    /* the copy block before the next kernel block */
    int prev_idx;                      /* its index in the copy's track (-1: none) */
    double pair_s;                     /* the last pair's (kernel and copy block) time */
    int64_t budget_ns, deadline_ns;    /* when the budget is spent; the run's deadline (0) */
    struct tb_meter_end end;
};

/* Adds b; its index in t, or -1 where t is full. */
static int track_add(struct tb_meter_track *t, const struct tb_meter_block *b, double ratio,
                     double around)
{
    if (t->n >= TB_METER_MAX_CYCLES)
        return -1;
    t->cb[t->n][0] = t->cb[t->n][1] = -1;
    t->cj[t->n][0] = t->cj[t->n][1] = NAN;
    t->cta[t->n][0] = t->cta[t->n][1] = t->ctb[t->n][0] = t->ctb[t->n][1] = 0;
    t->sw[t->n] = b->t_switch;
    t->ta[t->n] = b->ta;
    t->tb[t->n] = b->tb;
    t->rate[t->n] = b->rate;
    t->ratio[t->n] = ratio;
    t->around[t->n] = around;
    t->jpb[t->n] = b->jpb;
    t->w[t->n] = b->w;
    t->gpu_w[t->n] = b->gpu_w;
    t->mem_temp[t->n] = b->mem_temp_c;
    t->temp[t->n++] = b->temp_c;
    t->secs += b->secs;
    t->bytes += b->bytes;
    t->energy_j += b->energy_j;
    t->counter_j += b->counter_j;
    t->samples += b->samples;
    t->updates += b->updates;
    t->dropped_readings += b->dropped;
    t->capped += b->capped;
    t->at_limit += b->at_limit;
    t->oc += b->oc;
    if (b->limit_known)
        t->limit_w = b->limit_w;
    t->reasons_known += b->reasons_seen > 0 || b->limit_known;
    t->clock_mhz = b->clock_mhz;
    t->emc_mhz = b->emc_mhz;
    return t->n - 1;
}

/* A block that marks a throttle or a mode change: the GPU clock the source reads at its
 * end fell below CLOCK_FALL of the highest the same point's blocks saw (each kernel against
 * itself: one that runs power-capped at a lower clock than the copy is not throttled by
 * that). A jump in power alone is not judged: a noisy sensor makes them, and the interval
 * holds them. */
static bool jumped(struct size_run *r, struct tb_meter_track *t, const struct tb_meter_block *b,
                   char *why, size_t n)
{
    if (!r->m->judge_clock)
        return false;
    if (isfinite(b->clock_mhz) && !(b->clock_mhz <= t->top_clock))
        t->top_clock = b->clock_mhz;
    if (isfinite(b->clock_mhz) && b->clock_mhz < CLOCK_FALL * t->top_clock) {
        snprintf(why, n, "GPU clock fell to %.0f of %.0f MHz (a throttle or a mode change)",
                 b->clock_mhz, t->top_clock);
        return true;
    }
    return false;
}

/* A block, its failure or jump noted in the track; 0 with a usable block, 1 without, or
 * <0 to end the cycles (a stop, the load's error). */
static int block_into(struct size_run *r, size_t i, struct tb_meter_block *b)
{
    struct tb_meter_track *t = &r->tr[i];
    char why[128] = "";
    int rc = run_block(r->m, r->ld, i, b, why, sizeof(why));
    if (rc < 0 || rc > 1) {
        if (rc == -EINTR || *r->m->stop)
            r->end.signal = true;
        else {
            r->end.error = true;
            char e[96] = "";
            if (r->ld->errstr)
                r->ld->errstr(r->ld->arg, rc, e, sizeof(e));
            snprintf(r->end.why, sizeof(r->end.why), "the load failed: %s", e[0] ? e : "error");
        }
        return -1;
    }
    if (rc == 1) {
        t->failed++;
        snprintf(t->fail_why, sizeof(t->fail_why), "%s", why);
        if (tb_energy_plan_lost(&r->m->plan))
            r->end.lost = true;
        return r->end.lost ? -1 : 1;
    }
    if (jumped(r, t, b, why, sizeof(why))) {
        t->dropped++;
        snprintf(t->drop_why, sizeof(t->drop_why), "%s", why);
        return 1;
    }
    return 0;
}

/* Side k of t's ratio at: the copy block c's J per byte, stamp and span (none where c is
 * NULL or had no figure), so that one past the copy's track is known by it and refigured
 * (meter_internal.h). */
static void copy_side(struct tb_meter_track *t, int at, int k, const struct tb_meter_block *c)
{
    if (!c || !isfinite(c->jpb))
        return;
    t->cj[at][k] = c->jpb;
    t->csw[at][k] = c->t_switch;   /* for the night's constants (meter_cal.c) */
    t->cta[at][k] = c->ta;
    t->ctb[at][k] = c->tb;
    t->crate[at][k] = c->rate;
}

/* A kernel's block and the copy block after it: the ratio of its J per byte to the mean
 * of the copy's on either side. <0 ends the cycles. */
static int kernel_pair(struct size_run *r, size_t k)
{
    struct tb_meter_block kb, cb;
    int rk = block_into(r, k, &kb);
    if (rk < 0)
        return rk;
    if (r->ref == SIZE_MAX) {
        if (rk == 0)
            track_add(&r->tr[k], &kb, NAN, NAN);
        return 0;
    }
    int rc = block_into(r, r->ref, &cb), after_idx = -1;
    if (rc < 0)
        return rc;
    if (rc == 0)
        after_idx = track_add(&r->tr[r->ref], &cb, 1.0, cb.jpb);
    /* the copy on either side; one side where the other has no figure */
    double before = r->prev_ref.jpb, after = rc == 0 ? cb.jpb : NAN;
    double around = isnan(before) ? after : isnan(after) ? before : 0.5 * (before + after);
    int at = rk == 0 && isfinite(around) ? track_add(&r->tr[k], &kb, kb.jpb / around, around)
                                         : -1;
    if (at >= 0) {   /* -2: a copy block with a figure past the copy's track */
        r->tr[k].cb[at][0] = (short)(isnan(before) ? -1 : r->prev_idx < 0 ? -2 : r->prev_idx);
        r->tr[k].cb[at][1] = (short)(isnan(after) ? -1 : after_idx < 0 ? -2 : after_idx);
        copy_side(&r->tr[k], at, 0, &r->prev_ref);
        copy_side(&r->tr[k], at, 1, rc == 0 ? &cb : NULL);
    } else if (rk == 0 && !isfinite(around)) {
        r->tr[k].failed++;
        snprintf(r->tr[k].fail_why, sizeof(r->tr[k].fail_why), "no copy block with a figure "
                 "beside it");
    }
    r->prev_ref = rc == 0 ? cb : (struct tb_meter_block){ .jpb = NAN };
    r->prev_idx = rc == 0 ? after_idx : -1;
    return 0;
}

/* Whether the next pair would end past the budget (or the deadline) by more than half of
 * it: checked before every pair once two cycles are whole, so that the blocks take about
 * the budget the run announced, whatever a cycle's length. */
static bool spent(struct size_run *r)
{
    if (r->end.cycles < 2 || r->pair_s <= 0)
        return false;
    int64_t next = tb_now_ns() + (int64_t)(r->pair_s * 0.5e9);
    r->end.budget = next > r->budget_ns;
    r->end.deadline = r->deadline_ns && next > r->deadline_ns;
    return r->end.budget || r->end.deadline;
}

/* One cycle: the kernels not yet done, in an order rotated by the cycle's number, each
 * followed by a copy block. <0 ends the cycles (a stop, an error, the budget). */
static int one_cycle(struct size_run *r, int c)
{
    size_t kernels = 0;
    for (size_t j = 0; j < r->n; j++)
        kernels += j != r->ref && !r->tr[j].done;
    if (kernels == 0) {   /* the copy alone (or its own figure left): a block a cycle */
        if (r->ref == SIZE_MAX || spent(r))
            return -1;
        struct tb_meter_block b;
        int64_t p0 = tb_now_ns();
        int rc = block_into(r, r->ref, &b);
        r->pair_s = (double)(tb_now_ns() - p0) * 1e-9;
        if (rc == 0) {
            r->prev_idx = track_add(&r->tr[r->ref], &b, 1.0, b.jpb);
            r->prev_ref = b;
        }
        return rc < 0 ? rc : 0;
    }
    for (size_t s = 0; s < r->n; s++) {
        size_t k = (s + (size_t)c) % r->n;
        if (k == r->ref || r->tr[k].done)
            continue;
        if (spent(r))
            return -1;
        int64_t p0 = tb_now_ns();
        int rc = kernel_pair(r, k);
        if (rc < 0)
            return rc;
        r->pair_s = (double)(tb_now_ns() - p0) * 1e-9;
    }
    return 0;
}

/* Every figure within power.target_rel_ci after the fewest cycles: those marked done. */
static bool all_done(struct size_run *r, int cycles)
{
    int least = r->m->pc->rounds > 2 ? r->m->pc->rounds : 2;
    bool all = true;
    if (cycles >= least)   /* judged on the ratios the rows will print */
        tb_meter_calibrate(r->m, r->tr, r->n, r->ref, false);
    /* the interval each row will print: a paired one never narrower than the size's pooled
     * spread, so the pool first (calls E and F: rows done at their own +-0.6% printed +-1.4%) */
    tb_meter_pool(r->m, r->tr, r->n, r->ref);
    for (size_t j = 0; j < r->n; j++) {
        struct tb_meter_track *t = &r->tr[j];
        double rel = tb_meter_track_rel(r->m, t, r->ref != SIZE_MAX && j != r->ref
                                                 ? &r->tr[r->ref] : NULL);
        if (!t->done)
            t->done = cycles >= least && isfinite(rel) && rel <= r->m->pc->target_rel_ci;
        all &= t->done;
    }
    return all;
}

static void cycles(struct size_run *r, int64_t deadline_ns)
{
    r->budget_ns = tb_now_ns() + (int64_t)(r->m->pc->budget_s * (double)r->n * 1e9);
    r->deadline_ns = deadline_ns;
    if (r->ref != SIZE_MAX) {   /* the opening copy block */
        int rc = block_into(r, r->ref, &r->prev_ref);
        if (rc == 0)
            r->prev_idx = track_add(&r->tr[r->ref], &r->prev_ref, 1.0, r->prev_ref.jpb);
        else
            r->prev_ref.jpb = NAN;
        if (rc < 0)
            return;
    }
    for (int c = 0; c < TB_METER_MAX_CYCLES && !r->end.signal && !r->end.error; c++) {
        if (one_cycle(r, c) < 0 || *r->m->stop) {
            r->end.signal |= *r->m->stop != 0;
            break;
        }
        r->end.cycles = c + 1;
        if (all_done(r, c + 1) || r->end.lost)
            break;
    }
}

void tb_meter_size(struct tb_meter *m, const struct tb_meter_load *ld, size_t n, size_t ref,
                   double idle_w, double idle_ci, int64_t deadline_ns,
                   const struct tb_rerun_sd *between, struct tb_meter_result *out)
{
    struct size_run r = { .m = m, .ld = ld, .n = n, .ref = ref < n ? ref : SIZE_MAX,
                          .prev_idx = -1 };
    r.tr = calloc(n ? n : 1, sizeof(*r.tr));
    r.prev_ref.jpb = NAN;
    if (!r.tr) {
        snprintf(r.end.why, sizeof(r.end.why), "out of memory");
        r.end.error = true;
    } else if (tb_energy_plan_lost(&m->plan)) {
        r.end.lost = true;
    } else if (n > 0) {
        m->sw_n = 0;
        cycles(&r, deadline_ns);
        tb_meter_calibrate(m, r.tr, n, r.ref, true);
    }
    if (r.end.lost)
        snprintf(r.end.why, sizeof(r.end.why), "power source '%s' lost: %s",
                 m->plan.source, tb_energy_plan_lost_why(&m->plan));
    if (r.tr)
        tb_meter_pool(m, r.tr, n, r.ref);
    else
        m->pooled_df = 0;
    for (size_t j = 0; j < n; j++) {
        static const struct tb_meter_track none;
        const struct tb_meter_track *t = r.tr ? &r.tr[j] : &none;
        const struct tb_meter_track *rt = r.tr && r.ref != SIZE_MAX ? &r.tr[r.ref] : NULL;
        tb_meter_figures(m, t, rt, j == r.ref, idle_w, idle_ci, &r.end,
                         between ? &between[j] : NULL, &out[j]);
    }
    free(r.tr);
}
