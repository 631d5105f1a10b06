/* meter_sensor.c: what the meter asks the sampler about its sensor, in one place: the
 * timing a block is planned with (the sensor's period, how often it is read, whether its
 * average is inverted and the lead-in that takes, a block's length and the patience for an
 * update, a load slice) and the readings beside a span's power (block extras). Not here:
 * the blocks themselves (meter.c, meter_ema.c), the self-calibration (meter_cal.c). */
#include "energy/meter.h"
#include "energy/meter_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/stats.h"

double tb_meter_period_ms(const struct tb_meter *m)
{
    double p = tb_sampler_cadence(m->s)->period_ms;
    return isfinite(p) && p > 0 ? p : NAN;
}

/* How long each load call lasts between two looks at the sensor. */
static int64_t slice_ns(const struct tb_meter *m)
{
    double p = tb_meter_period_ms(m), ms = isnan(p) ? 20 : fmin(fmax(p / 4, 5), 50);
    return (int64_t)(ms * 1e6);
}

int tb_meter_need_updates(const struct tb_meter *m)
{
    int k = m->pc->block_updates > 0 ? m->pc->block_updates : 1;
    return tb_sampler_cadence(m->s)->triggered ? 3 * k : k;
}

double tb_meter_block_cap_ms(const struct tb_meter *m)
{
    double tau = tb_sensor_model_max_tau_ms(&tb_sampler_cadence(m->s)->model,
                                            tb_sampler_rails(m->s)->n);
    double lead = tb_meter_lead_ms(m), extra = (isnan(lead) ? 0 : lead) + tb_meter_read_ms(m) +
                  m->pc->interval_ms;
    double fit = m->pc->budget_s * 1e3 / (2.0 * TB_METER_FEWEST_CYCLES) - extra;
    return fmax(TB_METER_MIN_BLOCK_TAUS * tau, fit);
}

double tb_meter_block_ms(const struct tb_meter *m)
{
    double p = tb_meter_period_ms(m), ms = m->pc->window_ms;
    if (tb_meter_inverts(m))   /* power.block_updates time constants: the inversion's
                                * noise (tau x the reading's change) over the block's */
        p = tb_sensor_model_max_tau_ms(&tb_sampler_cadence(m->s)->model,
                                       tb_sampler_rails(m->s)->n);
    if (isfinite(p) && p > 0)
        ms = fmax(ms, tb_meter_need_updates(m) * p);
    /* inverted, a block is exact at any length (only its noise grows as it shortens): a slow
     * average's blocks are cut to what the budget holds (#58: 5000 ms made 15 s blocks, a
     * night announced at 25 s took 76 s); not where reads are slow (tegrastats' lines), whose
     * blocks must hold a few of them and whose lead-in is the cost */
    return tb_meter_inverts(m) && !tb_meter_slow_reads(m) ? fmin(ms, tb_meter_block_cap_ms(m))
                                                           : ms;
}

/* How long a block may wait for an update before the sensor counts as static or silent. */
int64_t tb_meter_patience_ns(const struct tb_meter *m)
{
    double p = tb_meter_period_ms(m);
    return (int64_t)((isnan(p) ? 3000 : fmax(4 * p, 1000)) * 1e6);
}

/* A source that said nothing at all for a while (window.c's words, without their verdict:
 * the figures' judgement is meter_figures.c's). */
bool tb_meter_silent(struct tb_meter *m, char *why, size_t n)
{
    if (!tb_power_silent(m->s, why, n))
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
    int rc = ld->fn(ld->arg, i, tb_now_ns() + slice_ns(m), &b);
    *bytes += b;
    return rc ? rc : *m->stop ? -EINTR : 0;
}

double tb_meter_read_ms(const struct tb_meter *m)
{
    const struct tb_sensor_model *md = &tb_sampler_cadence(m->s)->model;
    double p = tb_meter_period_ms(m);
    if (md->read_ms > 0)
        return fmax(md->read_ms, isnan(p) ? 0 : p);
    return m->pc->interval_ms;
}

bool tb_meter_slow_reads(const struct tb_meter *m)
{
    double tau = tb_sensor_model_max_tau_ms(&tb_sampler_cadence(m->s)->model,
                                            tb_sampler_rails(m->s)->n);
    /* the trapezoid of an average read every h misses h^2 / (12 tau^2) of its swing, and a
     * reading held up to h late shifts it: past tau / 8 (0.1% of the swing) too coarse */
    return tb_meter_read_ms(m) > tau / 8;
}

double tb_meter_lead_ms(const struct tb_meter *m)
{
    if (!tb_meter_inverts(m))
        return NAN;
    double tau = tb_sensor_model_max_tau_ms(&tb_sampler_cadence(m->s)->model,
                                            tb_sampler_rails(m->s)->n);
    return tb_meter_slow_reads(m) ? TB_METER_LEAD_TAUS * tau : 0;
}

/* ---- an averaging sensor, inverted ---------------------------------------------------
 * An INA3221 (and tegrastats reading one) is an exponential average (sensor_model.h): every
 * reading carries the blocks before it, so a block's power is not its readings' mean but
 * their integral plus tau times their change over the block (tb_power_inverted_w), exact
 * whatever ran before. Read at our poll, a block starts at the first poll after the switch
 * (the lead-in is one poll); read by another program every read period too coarse to
 * integrate the average's swing (tegrastats), after a lead-in of 5 tau (tb_meter_lead_ms). */
bool tb_meter_inverts(const struct tb_meter *m)
{
    return tb_sampler_cadence(m->s)->model.kind == TB_SENSOR_EMA;
}

/* What the block's span [ta, tb] says beside its power: the GPU rail, temperatures, clocks,
 * the readings and the power cap's reasons. */
void tb_meter_block_extras(struct tb_meter *m, int64_t ta, int64_t tb, struct tb_meter_block *b)
{
    struct tb_power_figures f;
    tb_power_over(m->s, m->pc, ta, tb, &f);
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
    double limit = tb_sampler_device(m->s)->limit_w;   /* its power at the limit: capped */
    b->limit_known = isfinite(limit) && limit > 0;
    b->limit_w = b->limit_known ? limit : NAN;
    b->at_limit = b->limit_known && b->w >= TB_METER_AT_LIMIT * limit;
    /* an over-current event is a moment (about 1 ms of halved clocks): one in the span is
     * the throttle at work on this load, however few of the readings saw it */
    b->oc = f.oc_samples > 0;
    b->capped = b->at_limit || b->oc || tb_power_capped_majority((double)f.capped_samples,
                                                                 (double)f.reason_samples);
}
