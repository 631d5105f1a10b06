/* door.c: see door.h. The night's energy state is one struct the runner holds by pointer:
 * the meter, the learnt spread, how many steps began and ended; nothing in file scope. */
#include "energy/door.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy/meter_internal.h"
#include "energy/rerun.h"
#include "lib/util.h"
#include "lib/version.h"
#include "lib/watchdog.h"
#include "log/log_meta.h"

struct tb_energy {
    struct tb_meter *m;
    struct tb_rerun *rerun;           /* learned on the night's first step; NULL: settings */
    const struct tb_power_cfg *pc;
    volatile sig_atomic_t *stop;
    size_t steps, steps_done;
    bool learned;
    double idle_w, idle_ci;           /* this step's idle, for the dynamic figures */
};

/* What a rerun on another night adds: learned once a night from this host's and board's
 * earlier logs, before this run's own rows exist (its log is a hidden part file until the
 * end), within a limit (the driver's test knob shortens it) and while no signal stops it. */
static void learn(struct tb_energy *e, const struct tb_energy_start *st,
                  struct tb_energy_said *said)
{
    const struct tb_power_cfg *pc = st->pc;
    char line[512];
    double limit = fmin(TB_RERUN_LEARN_S, tb_watch_seconds(TB_WATCH_CALL));
    e->rerun = tb_rerun_learn_bounded(st->log_dir, st->host ? st->host : "",
                                      st->host_id ? st->host_id : "", st->board,
                                      tb_images_sha256, limit, st->stop, line, sizeof(line));
    e->learned = true;
    char prior[320];
    tb_rerun_settings_said(pc, prior, sizeof(prior));
    snprintf(said->rerun, sizeof(said->rerun), "%.340s; device %.96s; %.290s", line,
             st->device_id && st->device_id[0] ? st->device_id : "by its name (unidentified "
             "logs of its name alone)", prior);
}

/* The night's time, said once at its start (after the first idle): every mode step's
 * timing, energy and idles, and the warming. */
static void announce(struct tb_energy *e, const struct tb_energy_start *st,
                     struct tb_energy_said *said)
{
    size_t energy = 0, steps = e->steps ? e->steps : 1;
    double step = st->timing_s;
    for (size_t i = 0; i < st->sizes; i++) {
        step += tb_meter_plan_size_s(e->m, st->size_points[i], st->size_ref[i]);
        energy += st->size_points[i];
    }
    double night = tb_meter_plan_s(e->m, step, steps);
    tb_meter_announce(e->m, night);
    said->plan_s = night;
    if (st->quiet)
        return;
    char how[96] = "";
    if (steps > 1)
        snprintf(how, sizeof(how), " in each of %zu mode steps", steps);
    note("power: sensor updates every %s; energy of %zu point(s)%s (power.points = %s), "
         "interleaved with the copy: about %.0f s in all, the warming (%d s) and every idle "
         "included", said->cadence, energy, how, st->pc->points, night, st->pc->settle_s);
}

void tb_energy_begin(struct tb_energy **ep, const struct tb_energy_start *st,
                     struct tb_energy_said *said)
{
    struct tb_energy *e = *ep;
    if (!e) {
        if (!(e = calloc(1, sizeof(*e))) || !(e->m = tb_meter_new(st->sampler, st->pc,
                                                                  st->stop))) {
            free(e);
            return;
        }
        e->pc = st->pc;
        e->stop = st->stop;
        e->steps = st->steps;
        *ep = e;
    }
    if (!e->steps_done && !e->learned)
        learn(e, st, said);
    if (e->steps_done)   /* a later mode step: its limit, read again by the run, planned */
        tb_meter_step(e->m);
    tb_meter_judge_clock(e->m, st->judge_clock);
    said->idle_w = tb_meter_idle(e->m, &said->idle_ci, said->idle_why, sizeof(said->idle_why));
    e->idle_w = said->idle_w;
    e->idle_ci = said->idle_ci;
    tb_meter_cadence_line(e->m, said->cadence, sizeof(said->cadence));
    if (tb_meter_announced(e->m, NULL) <= 0)
        announce(e, st, said);
    else
        said->plan_s = tb_meter_announced(e->m, NULL);
    if (!st->warm || st->pc->settle_s <= 0 || *st->stop || e->steps_done)
        return;   /* warming once a night: a later step's device was under load just now */
    if (!st->quiet)
        note("power: warming the device under %s for %d s", st->warm_what, st->pc->settle_s);
    said->settle_secs = tb_meter_warm(e->m, st->warm, 0, st->warm_what, said->settle,
                                      sizeof(said->settle));
    if (!st->quiet && said->settle[0])
        note("power: warmed %s", said->settle);
}

void tb_energy_size(struct tb_energy *e, const struct tb_meter_load *ld, size_t n, size_t ref,
                    const struct tb_log_rec *keys, int64_t deadline_ns,
                    struct tb_meter_result *out)
{
    struct tb_rerun_sd *between = calloc(n ? n : 1, sizeof(*between));
    if (e && between) {
        for (size_t k = 0; k < n; k++)
            tb_rerun_sd(e->rerun, &keys[k], e->pc, &between[k]);
        tb_meter_size(e->m, ld, n, ref, e->idle_w, e->idle_ci, deadline_ns, between, out);
    }
    free(between);
}

/* The power_cadence line, the night's plan (plan.h) as it was settled: the cadence as said,
 * the rails, which is the total and the GPU's, what the source reads, the stopping rule's
 * two widths, and the enforced power limit a block at 98% of is capped (meter.c), with
 * where it came from. */
static void cadence_line(const struct tb_energy *e, struct tb_csvlog *log,
                         const struct tb_energy_said *said)
{
    const struct tb_power_cfg *pc = e->pc;
    const struct tb_energy_plan *plan = tb_meter_plan(e->m);
    const struct tb_power_rails *rails = &plan->rails;
    const struct tb_power_cadence *c = &plan->cadence;
    char list[TB_POWER_MAX_RAILS * (TB_RAIL_NAME + 2)] = "";
    for (int i = 0; i < rails->n; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof(list) - len, "%s%s", i ? " " : "", rails->name[i]);
    }
    const struct tb_power_device *d = &plan->device;
    char limit[256];
    if (isfinite(d->limit_w))
        snprintf(limit, sizeof(limit), "%.1f W (%s); a block at %.0f%% of it or more is "
                 "capped", d->limit_w, d->limit_how, 100 * TB_METER_AT_LIMIT);
    else
        snprintf(limit, sizeof(limit), "%s", d->limit_how[0] ? d->limit_how : "not known");
    char cal[1024];
    tb_meter_selfcal_line(e->m, cal, sizeof(cal));
    tb_csvlog_meta(log, TB_META(power_cadence), "%s%s%s; rails: %s; total: %s; gpu: %s; "
                   "scope: %s; target_rel_ci %.3g, max_rel_ci %.3g; power limit: %s",
                   said->cadence, cal[0] ? "; " : "", cal, list[0] ? list : "none", pc->total_rail[0] ? pc->total_rail
                   : rails->n ? rails->name[0] : "none", pc->gpu_rail[0] ? pc->gpu_rail : "none",
                   c->scope[0] ? c->scope : "the source's rails", pc->target_rel_ci,
                   pc->max_rel_ci, limit);
}

void tb_energy_end(struct tb_energy *e, struct tb_csvlog *log, struct tb_energy_said *said)
{
    if (!e)
        return;
    if (!*e->stop)
        said->idle_after_w = tb_meter_idle(e->m, &said->idle_after_ci, NULL, 0);
    cadence_line(e, log, said);
    tb_csvlog_meta(log, TB_META(power_idle), "before %.3f W +- %.3f, after %.3f W +- "
                   "%.3f, drift %+.3f W%s%s", said->idle_w, said->idle_ci, said->idle_after_w,
                   said->idle_after_ci, said->idle_after_w - said->idle_w,
                   said->idle_why[0] ? "; " : "", said->idle_why);
    if (said->settle[0])
        tb_csvlog_meta(log, TB_META(power_settle), "%s", said->settle);
    if (said->rerun[0])
        tb_csvlog_meta(log, TB_META(power_rerun), "%s", said->rerun);
    double since, announced = tb_meter_announced(e->m, &since);
    size_t steps = e->steps ? e->steps : 1;
    e->steps_done++;
    tb_csvlog_meta(log, TB_META(power_plan), "announced about %.0f s at the start (%zu "
                   "mode step(s): timing, energy, every idle and the warming); took %.0f s "
                   "with %zu of %zu step(s) run (the warming %.0f s)", announced, steps, since,
                   e->steps_done, steps, said->settle_secs);
}

void tb_energy_free(struct tb_energy *e)
{
    if (!e)
        return;
    tb_meter_free(e->m);
    tb_rerun_free(e->rerun);
    free(e);
}
