/* meter_ema.c: the meter's blocks on an averaging sensor (sensor_model.h's ema: an INA3221,
 * or tegrastats reading one), inverted: a block's power is its readings' integral plus tau
 * times their change over it (tb_power_inverted_w), exact whatever ran before; how often
 * the sensor is read decides the lead-in. Not here: the other sensors' blocks and the
 * cycles (meter.c), the arithmetic (window.c, energy.c). */
#include "energy/meter.h"
#include "energy/meter_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"

/* The time of the first poll at or after from (first) or the last up to to (!first) in
 * [from, to]; 0 when none. */
static int64_t poll_at(struct tb_meter *m, int64_t from, int64_t to, bool first)
{
    struct tb_power_span sp = { NULL, 0 };
    if (to >= from)
        tb_energy_plan_read(&m->plan, from, to, 0, &sp);
    int64_t t = sp.w && sp.n ? sp.w[first ? 0 : sp.n - 1].t_ns : 0;
    tb_power_span_free(&sp);
    return t;
}

/* Loads point i in slices until a poll at or after from has landed: the first such poll's
 * time (first) or the last one's into *t, the slices' bytes added to *bytes. 0, 1 (none
 * came: why), or the load's error. */
static int load_until_poll(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                           int64_t from, bool first, int64_t *t, double *bytes, char *why,
                           size_t n)
{
    int64_t give_up = from + tb_meter_patience_ns(m);
    for (;;) {
        int rc = tb_meter_load_slice(m, ld, i, bytes);
        if (rc)
            return rc;
        int64_t now = tb_now_ns();
        if (now >= from && (*t = poll_at(m, from, now, first)) != 0)
            return 0;
        bool lost = tb_energy_plan_lost(&m->plan);
        if (lost || now > give_up) {
            if (!lost && tb_meter_silent(m, why, n))
                return 1;
            snprintf(why, n, "no sensor update in %.1f s under load (%s)", (now - from) * 1e-9,
                     lost ? "source lost" : "no reading");
            return 1;
        }
    }
}

static int span_figures(struct tb_meter *m, const struct tb_power_span *sp, int64_t t0,
                        int64_t ta, int64_t tb, double bytes, int64_t m0,
                        struct tb_meter_block *b, char *why, size_t n);

/* A block on an averaging sensor: the lead-in, then its span of power.block_updates time
 * constants from the first poll after it to the last poll once the span is whole. */
int tb_meter_ema_block(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                     struct tb_meter_block *b, char *why, size_t n)
{
    int64_t t0 = tb_now_ns(), ta = 0, tb = 0, m0 = 0;
    double lead_bytes = 0, bytes = 0;
    int rc = load_until_poll(m, ld, i, t0 + (int64_t)(tb_meter_lead_ms(m) * 1e6), true, &ta,
                             &lead_bytes, why, n);
    if (!rc) {
        m0 = tb_now_ns();
        rc = load_until_poll(m, ld, i, ta + (int64_t)(tb_meter_block_ms(m) * 1e6), false,
                             &tb, &bytes, why, n);
    }
    b->took_s = (double)(tb_now_ns() - t0) * 1e-9;
    if (rc)
        return rc;
    /* the block's readings, read once: its updates, its power, what it says beside */
    struct tb_power_span sp;
    int64_t margin = tb_power_plan_margin_ns(&m->plan, m->pc);
    /* from a reading before the switch: whether the reading moved since (below) */
    int64_t before = t0 - (int64_t)(2 * tb_meter_read_ms(m) * 1e6);
    tb_energy_plan_read(&m->plan, (before < ta ? before : ta) - margin, tb + margin, 0, &sp);
    rc = span_figures(m, &sp, t0, ta, tb, bytes, m0, b, why, n);
    tb_power_span_free(&sp);
    return rc;
}

/* The figures of a block whose span [ta, tb] of polls followed its switch at t0, from its
 * readings sp; bytes the load moved since m0. 0, or 1 (no figure: why). */
static int span_figures(struct tb_meter *m, const struct tb_power_span *sp, int64_t t0,
                        int64_t ta, int64_t tb, double bytes, int64_t m0,
                        struct tb_meter_block *b, char *why, size_t n)
{
    /* a reading that never moved under load since the switch is a stale file or a dead
     * sensor, not power; one that moved in the lead-in and then holds is a register with a
     * step, settled at its level (issue #57: a step of 2% read every 1100 ms after a lead-in
     * of 5 tau holds one value through the block, and every such night failed) */
    int64_t from = t0;   /* the last reading at or before the switch */
    for (size_t k = 0; k < sp->n && sp->w[k].t_ns <= t0; k++)
        from = sp->w[k].t_ns;
    if (tb_power_updates(&m->plan, sp, from, tb, NULL, NULL) == 0) {
        snprintf(why, n, "no sensor update in %.1f s under load (a static sensor)",
                 (double)(tb - t0) * 1e-9);
        return 1;
    }
    /* the load's rate over its measured slices: steady under one kernel */
    double rate = bytes / ((double)(tb_now_ns() - m0) * 1e-9);
    size_t polls = 0;
    b->w = tb_power_inverted_w(&m->plan, sp, ta, tb, &polls);
    b->secs = (double)(tb - ta) * 1e-9;
    b->bytes = rate * b->secs;
    b->updates = polls;
    b->t_switch = t0;
    b->ta = ta;
    b->tb = tb;
    b->rate = rate;
    b->jpb = b->w > 0 && b->bytes > 0 ? b->w * b->secs / b->bytes : NAN;
    tb_meter_block_extras(m, sp, ta, tb, b);
    if (!isfinite(b->jpb)) {
        snprintf(why, n, "no power in the block (%.3f W over %.2f s)", b->w, b->secs);
        return 1;
    }
    return 0;
}
