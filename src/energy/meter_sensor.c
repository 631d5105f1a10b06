/* meter_sensor.c: what the meter knows of its sensor, in one place: the timing a block is
 * planned with, as the plan has it (plan.c: the sensor's period, how often it is read,
 * whether its average is inverted and the lead-in that takes, a block's length and the
 * patience for an update, a load slice), the readings it asks for through the plan, and
 * what a span says beside its power (block extras). Not here: the blocks themselves
 * (meter.c, meter_ema.c), the self-calibration (meter_cal.c). */
#include "energy/meter.h"
#include "energy/meter_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/stats.h"

/* The plan's figures, as the meter's files ask for them (plan.c works them out once). */
double tb_meter_period_ms(const struct tb_meter *m) { return m->plan.period_ms; }
int tb_meter_need_updates(const struct tb_meter *m) { return m->plan.need_updates; }
double tb_meter_block_cap_ms(const struct tb_meter *m) { return m->plan.block_cap_ms; }
double tb_meter_block_ms(const struct tb_meter *m) { return m->plan.block_ms; }
double tb_meter_read_ms(const struct tb_meter *m) { return m->plan.read_ms; }
bool tb_meter_slow_reads(const struct tb_meter *m) { return m->plan.slow_reads; }
double tb_meter_lead_ms(const struct tb_meter *m) { return m->plan.lead_ms; }

/* How long a block may wait for an update before the sensor counts as static or silent. */
int64_t tb_meter_patience_ns(const struct tb_meter *m) { return m->plan.patience_ns; }

/* A source that said nothing at all for a while (plan.c's words, without their verdict:
 * the figures' judgement is meter_figures.c's). */
bool tb_meter_silent(struct tb_meter *m, char *why, size_t n)
{
    if (!tb_energy_plan_silent(&m->plan, why, n))
        return false;
    char *cut = strstr(why, ": no power figures");
    if (cut)
        *cut = '\0';
    return true;
}

/* One slice of point i's load; its bytes added to *bytes. 0, -EINTR (a stop), or the
 * load's error. */
int tb_meter_load_slice(struct tb_meter *m, const struct tb_meter_load *ld, size_t i,
                      double *bytes)
{
    double b = 0;
    int rc = ld->fn(ld->arg, i, tb_now_ns() + m->plan.slice_ns, &b);
    *bytes += b;
    return rc ? rc : *m->stop ? -EINTR : 0;
}

/* ---- an averaging sensor, inverted ---------------------------------------------------
 * An INA3221 (and tegrastats reading one) is an exponential average (sensor_model.h): every
 * reading carries the blocks before it, so a block's power is not its readings' mean but
 * their integral plus tau times their change over the block (tb_power_inverted_w), exact
 * whatever ran before. Read at our poll, a block starts at the first poll after the switch
 * (the lead-in is one poll); read by another program every read period too coarse to
 * integrate the average's swing (tegrastats), after a lead-in of 5 tau (tb_meter_lead_ms). */
bool tb_meter_inverts(const struct tb_meter *m) { return m->plan.inverts; }

size_t tb_meter_updates(struct tb_meter *m, int64_t t0, int64_t t1, int64_t **tc, double **vc)
{
    struct tb_power_span sp;
    tb_energy_plan_read(&m->plan, t0, t1, 0, &sp);
    size_t k = tb_power_updates(&m->plan, &sp, t0, t1, tc, vc);
    tb_power_span_free(&sp);
    return k;
}

void tb_meter_over(struct tb_meter *m, const struct tb_power_cfg *pc, int64_t t0, int64_t t1,
                   struct tb_power_figures *f)
{
    struct tb_power_span sp;
    int64_t margin = tb_power_plan_margin_ns(&m->plan, pc);
    tb_energy_plan_read(&m->plan, t0 - margin, t1 + margin, 0, &sp);
    tb_power_over(&m->plan, pc, &sp, t0, t1, f);
    tb_power_span_free(&sp);
}

/* What the block's span [ta, tb] says beside its power, from the block's readings sp: the
 * GPU rail, temperatures, clocks, the readings and the power cap's reasons. */
void tb_meter_block_extras(struct tb_meter *m, const struct tb_power_span *sp, int64_t ta,
                           int64_t tb, struct tb_meter_block *b)
{
    struct tb_power_figures f;
    tb_power_over(&m->plan, m->pc, sp, ta, tb, &f);
    b->gpu_w = f.gpu_w;
    b->temp_c = f.gpu_temp_c;
    b->mem_temp_c = f.mem_temp_c;
    b->clock_mhz = f.gpu_clock_mhz;
    b->emc_mhz = f.emc_clock_mhz;
    b->samples = f.samples;
    b->energy_j = f.energy_j;
    b->counter_j = f.energy_counter_j;
    /* capped: the power cap's bit in half the block's readings or more that said */
    b->reasons_seen = (int)f.reason_samples;
    double limit = m->plan.device.limit_w;   /* its power at the limit: capped */
    b->limit_known = isfinite(limit) && limit > 0;
    b->limit_w = b->limit_known ? limit : NAN;
    b->at_limit = b->limit_known && b->w >= TB_METER_AT_LIMIT * limit;
    /* an over-current event is a moment (about 1 ms of halved clocks): one in the span is
     * the throttle at work on this load, however few of the readings saw it */
    b->oc = f.oc_samples > 0;
    b->capped = b->at_limit || b->oc || tb_power_capped_majority((double)f.capped_samples,
                                                                 (double)f.reason_samples);
}
