/* runner_energy.c: the runner's side of energy. It gives the meter (src/energy/meter.c) a
 * way to keep the device busy with any point of a size (back-to-back launches, a sync every
 * chunk), picks the points whose energy is measured (power.points), and copies the meter's
 * figures into the rows. It computes no power figure: the meter does, and decides what is
 * withheld. */
#include "measure/runner_energy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy/meter.h"
#include "energy/rerun.h"
#include "power/power.h"
#include "lib/clock.h"
#include "lib/util.h"
#include "lib/watchdog.h"
#include "lib/version.h"
#include "log/log_meta.h"
#include "log/logread.h"
#include "log/outcome.h"

/* Launches per sync for about 20 ms of work, from a launch's time in ms. */
static long sync_chunk(double ms_per_launch)
{
    return (long)(20.0 / (ms_per_launch > 0 ? ms_per_launch : 1e-3)) + 1;
}

struct energy_load {
    struct tb_runner_ctx *ctx;
    struct tb_point_buffers *buf;
    const struct tb_point **p;
    double *moved, *median_ms;
    int rc;                       /* the backend error that ended a load; 0 */
};

/* Back-to-back launches of point i until end (tb_now_ns) or a signal, a sync after every
 * chunk of about 20 ms; the fake clock counts the work as the timing measured it (launches x
 * median, x tb_clock_work_scale), so a busy machine's preemptions never stretch a block. */
static int load_point(void *arg, size_t i, int64_t end, double *bytes)
{
    struct energy_load *el = arg;
    struct tb_runner_ctx *ctx = el->ctx;
    const struct tb_point *p = el->p[i];
    struct tb_launch l = { el->buf->in, el->buf->out, p->rows, p->cols, p->bx, p->by,
                           ctx->cfg->sweep.elem_size, 0, 0, NULL };
    double work_ms = el->median_ms[i] > 0 ? el->median_ms[i] * tb_clock_work_scale() : 1e-3;
    long chunk = sync_chunk(work_ms), launches = 0;
    int rc = 0;
    do {
        for (long k = 0; k < chunk && !rc; k++)
            rc = ctx->be->launch(ctx->be_st, p->k, &l);
        if (!rc)
            rc = ctx->be->sync(ctx->be_st);
        if (rc)
            break;
        launches += chunk;
        tb_clock_spend_ns((int64_t)((double)chunk * work_ms * 1e6));
    } while (tb_now_ns() < end && !*ctx->stop);
    *bytes = (double)launches * el->moved[i];
    if (rc)
        el->rc = rc;
    return rc;
}

static int load_errstr(void *arg, int rc, char *buf, size_t n)
{
    struct energy_load *el = arg;
    snprintf(buf, n, "%s", el->ctx->be->errstr(el->ctx->be_st, rc));
    return 0;
}

/* ---- before and after the sweep ------------------------------------------------------ */

/* Whether point j is one whose energy is measured, for the plan: the fastest block of each
 * kernel and size is not known before timing, so one a kernel and size (power.points =
 * fastest): the first of them. */
static bool energy_planned(const struct tb_point *pts, size_t j, bool all)
{
    if (pts[j].skip)
        return false;
    for (size_t i = 0; i < j && !all; i++)
        if (!pts[i].skip && pts[i].k == pts[j].k && pts[i].size_index == pts[j].size_index)
            return false;
    return true;
}

/* A step's planned seconds: timing (each point its stopping rule's least time,
 * verification aside) and each size's energy as the meter plans it; *energy gets the
 * points measured for energy. */
static double step_plan_s(const struct tb_runner_ctx *ctx, const struct tb_point *pts,
                          size_t n, const struct tb_meter *m, size_t *energy)
{
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    bool all = !strcmp(ctx->cfg->board.power.points, "all");
    size_t run = 0;
    double secs = 0;
    *energy = 0;
    for (size_t i = 0; i < n;) {   /* a size at a time: its points are consecutive */
        size_t count = 0, j = i;
        bool ref = false;
        for (; j < n && pts[j].size_index == pts[i].size_index; j++) {
            run += !pts[j].skip;
            if (energy_planned(pts, j, all)) {
                count++;
                ref |= (pts[j].k->flags & TB_KF_COPY_REF) != 0;
            }
        }
        secs += tb_meter_plan_size_s(m, count, ref);
        *energy += count;
        i = j;
    }
    return secs + (double)run * fmin(s->max_time_ms, fmax(s->min_time_ms, 1.0)) * 1e-3;
}

/* The night's time, said once at its start (after the first idle): every mode step's
 * timing, energy and idles, and the warming. */
static void announce(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                     struct tb_runner_result *res)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    size_t energy, steps = ctx->steps ? ctx->steps : 1;
    double step = step_plan_s(ctx, pts, n, ctx->meter, &energy);
    double night = tb_meter_plan_s(ctx->meter, step, steps);
    tb_meter_announce(ctx->meter, night);
    res->plan_s = night;
    if (ctx->quiet)
        return;
    char how[96] = "";
    if (steps > 1)
        snprintf(how, sizeof(how), " in each of %zu mode steps", steps);
    note("power: sensor updates every %s; energy of %zu point(s)%s (power.points = %s), "
         "interleaved with the copy: about %.0f s in all, the warming (%d s) and every idle "
         "included", res->cadence, energy, how, pc->points, night, pc->settle_s);
}

/* What a rerun on another night adds: learned once a night from this host's and board's
 * earlier logs, before this run's own rows exist (its log is a hidden part file until the
 * end); res->rerun says it, logged with the other power lines at the end. */
static void learn_rerun(struct tb_runner_ctx *ctx, struct tb_runner_result *res)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    char line[512];
    /* within a limit (the driver's test knob shortens it) and while no signal stops it */
    double limit = fmin(TB_RERUN_LEARN_S, tb_watch_seconds(TB_WATCH_CALL));
    ctx->rerun = tb_rerun_learn_bounded(ctx->cfg->sweep.out_dir, ctx->host ? ctx->host : "",
                                        ctx->host_id ? ctx->host_id : "", ctx->cfg->board.name,
                                        tb_images_sha256, limit, ctx->stop, line, sizeof(line));
    snprintf(res->rerun, sizeof(res->rerun), "%s; device %.96s; power.rerun_ratio_sd %.2f%%, "
             "power.rerun_abs_sd %.2f%% (each counts as %d differences while fewer than %d "
             "are pooled)", line, ctx->device_id && ctx->device_id[0] ? ctx->device_id
             : "by its name", 100 * pc->rerun_ratio_sd, 100 * pc->rerun_abs_sd,
             TB_RERUN_PRIOR_RUNS, TB_RERUN_POOL_MIN);
}

void tb_rn_power_begin(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                       struct tb_point_buffers *buf, struct tb_runner_result *res)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    if (!ctx->meter && !(ctx->meter = tb_meter_new(ctx->sampler, pc, ctx->stop)))
        return;
    if (!ctx->steps_done && !ctx->rerun)
        learn_rerun(ctx, res);
    tb_meter_judge_clock(ctx->meter, strcmp(ctx->be->name, "cpu") != 0);
    res->idle_w = tb_meter_idle(ctx->meter, &res->idle_ci, res->idle_why,
                                sizeof(res->idle_why));
    tb_meter_cadence_line(ctx->meter, res->cadence, sizeof(res->cadence));
    res->t_start_ns = tb_now_ns();
    if (tb_meter_announced(ctx->meter, NULL) <= 0)
        announce(ctx, pts, n, res);
    else
        res->plan_s = tb_meter_announced(ctx->meter, NULL);
    const struct tb_point *p = NULL;
    for (size_t i = 0; i < n && !p; i++)
        p = pts[i].skip ? NULL : &pts[i];
    if (!p || pc->settle_s <= 0 || *ctx->stop || ctx->steps_done)
        return;   /* warming once a night: a later step's device was under load just now */
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    size_t count = (size_t)p->rows * (size_t)p->cols, bytes = count * (size_t)s->elem_size;
    if (tb_point_buffers_get(ctx->be, ctx->be_st, buf, p->rows, p->cols, bytes, s->verify) ||
        ctx->be->fill_pattern(ctx->be_st, buf->in, count, s->elem_size, ctx->seed))
        return;
    double moved = p->k->bytes_factor * (double)bytes, median = 1.0;
    struct energy_load el = { ctx, buf, &p, &moved, &median, 0 };
    struct tb_meter_load ld = { load_point, &el, load_errstr };
    char what[160];
    snprintf(what, sizeof(what), "%s %ldx%ld", p->k->name, p->rows, p->cols);
    if (!ctx->quiet)
        note("power: warming the device under %s for %d s", what, pc->settle_s);
    res->settle_secs = tb_meter_warm(ctx->meter, &ld, 0, what, res->settle, sizeof(res->settle));
    if (!ctx->quiet && res->settle[0])
        note("power: warmed %s", res->settle);
}

void tb_rn_power_end(struct tb_runner_ctx *ctx, struct tb_runner_result *res)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    if (!ctx->meter)
        return;
    if (!*ctx->stop)
        res->idle_after_w = tb_meter_idle(ctx->meter, &res->idle_after_ci, NULL, 0);
    const struct tb_power_rails *rails = tb_sampler_rails(ctx->sampler);
    const struct tb_power_cadence *c = tb_sampler_cadence(ctx->sampler);
    char list[TB_POWER_MAX_RAILS * (TB_RAIL_NAME + 2)] = "";
    for (int i = 0; i < rails->n; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof(list) - len, "%s%s", i ? " " : "", rails->name[i]);
    }
    tb_csvlog_meta(ctx->log, TB_META(power_cadence), "%s; rails: %s; total: %s; gpu: %s; "
                   "scope: %s; target_rel_ci %.3g, max_rel_ci %.3g", res->cadence,
                   list[0] ? list : "none", pc->total_rail[0] ? pc->total_rail
                   : rails->n ? rails->name[0] : "none", pc->gpu_rail[0] ? pc->gpu_rail : "none",
                   c->scope[0] ? c->scope : "the source's rails", pc->target_rel_ci,
                   pc->max_rel_ci);
    tb_csvlog_meta(ctx->log, TB_META(power_idle), "before %.3f W +- %.3f, after %.3f W +- "
                   "%.3f, drift %+.3f W%s%s", res->idle_w, res->idle_ci, res->idle_after_w,
                   res->idle_after_ci, res->idle_after_w - res->idle_w,
                   res->idle_why[0] ? "; " : "", res->idle_why);
    if (res->settle[0])
        tb_csvlog_meta(ctx->log, TB_META(power_settle), "%s", res->settle);
    if (res->rerun[0])
        tb_csvlog_meta(ctx->log, TB_META(power_rerun), "%s", res->rerun);
    double since, said = tb_meter_announced(ctx->meter, &since);
    size_t steps = ctx->steps ? ctx->steps : 1;
    ctx->steps_done++;
    tb_csvlog_meta(ctx->log, TB_META(power_plan), "announced about %.0f s at the start (%zu "
                   "mode step(s): timing, energy, every idle and the warming); took %.0f s "
                   "with %zu of %zu step(s) run (the warming %.0f s)", said, steps, since,
                   ctx->steps_done, steps, res->settle_secs);
}

/* ---- a size ---------------------------------------------------------------------------- */

static bool is_result(const struct tb_rn_pending *pe)
{
    const struct tb_row *r = &pe->o.row;
    return !pe->p->skip && tb_outcome_counts(r->status, r->verified) && r->gbps > 0;
}

/* Whether a timed point's energy is measured: a result (ok, suspect), and with power.points
 * = fastest the highest GB/s of its kernel among the size's points. */
static bool energy_wanted(const struct tb_runner_ctx *ctx, const struct tb_rn_pending *grp,
                          size_t g, size_t j)
{
    if (!is_result(&grp[j]))
        return false;
    if (!strcmp(ctx->cfg->board.power.points, "all"))
        return true;
    double mine = grp[j].o.row.gbps;
    for (size_t i = 0; i < g; i++)
        if (i != j && grp[i].p->k == grp[j].p->k && is_result(&grp[i]) &&
            (grp[i].o.row.gbps > mine || (grp[i].o.row.gbps == mine && i < j)))
            return false;
    return true;
}

/* The meter's figures into the row: copied, none computed here. */
static void power_fields(struct tb_runner_ctx *ctx, const struct tb_meter_result *m,
                         const struct tb_runner_result *res, struct tb_rn_out *o)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    const struct tb_power_rails *rails = tb_sampler_rails(ctx->sampler);
    struct tb_row *r = &o->row;
    r->power_source = tb_sampler_source(ctx->sampler);
    r->rail_total = pc->total_rail[0] ? pc->total_rail : rails->n ? rails->name[0] : NULL;
    r->rail_gpu = pc->gpu_rail[0] ? pc->gpu_rail : NULL;
    r->power_idle_w = res->idle_w;
    r->window_ms = m->secs * 1e3;
    r->window_bytes = m->bytes;
    r->power_total_w = m->total_w;
    r->power_total_w_ci95 = m->total_w_ci;
    r->power_gpu_w = m->gpu_w;
    r->energy_j = m->energy_j;
    r->energy_counter_j = m->energy_counter_j;
    r->energy_ratio = m->ratio;
    r->energy_ratio_ci95 = m->ratio_ci;
    r->energy_ratio_rerun_ci95 = m->ratio_rerun_ci;
    r->rerun_ratio_sd = m->rerun.ratio;
    r->rerun_abs_sd = m->rerun.abs;
    r->rerun_runs = m->rerun.runs >= 0 ? m->rerun.runs : NAN;
    r->gbps_per_w = m->gbps_per_w;
    r->gbps_per_w_ci95 = m->gbps_per_w_ci;
    r->gbps_per_w_gpu = m->gbps_per_w_gpu;
    r->j_per_gb = m->j_per_gb;
    r->j_per_gb_ci95 = m->j_per_gb_ci;
    r->dyn_pj_per_byte = m->dyn_pj;
    r->dyn_pj_per_byte_ci95 = m->dyn_pj_ci;
    r->power_samples = (double)m->samples;
    r->power_updates = (double)m->updates;
    r->power_cycles = m->cycles;
    r->power_capped_blocks = m->capped_blocks;
    r->gpu_temp_c = m->temp_c;
    r->gpu_temp_min_c = m->temp_lo_c;
    r->gpu_temp_max_c = m->temp_hi_c;
    r->mem_temp_min_c = m->mem_temp_lo_c;
    r->mem_temp_max_c = m->mem_temp_hi_c;
    r->gpu_clock_mhz = m->gpu_clock_mhz;
    r->emc_clock_mhz = m->emc_clock_mhz;
    o->emc_mhz = m->emc_clock_mhz;
    tb_strlcpy(o->blocks, m->blocks, sizeof(o->blocks));
    r->block_figures = o->blocks;
    tb_strlcpy(o->power_note, m->note, sizeof(o->power_note));
    r->power_note = o->power_note;
}

/* Rows of points timed but not measured for energy, and why. */
static void not_measured(struct tb_runner_ctx *ctx, struct tb_rn_out *o, const char *why)
{
    o->row.power_source = tb_sampler_source(ctx->sampler);
    tb_strlcpy(o->power_note, why, sizeof(o->power_note));
    o->row.power_note = o->power_note;
}

int tb_rn_power_size(struct tb_runner_ctx *ctx, struct tb_rn_pending *grp, size_t g,
                     struct tb_point_buffers *buf, struct tb_runner_result *res)
{
    size_t *idx = calloc(g ? g : 1, sizeof(*idx)), n = 0, ref = SIZE_MAX;
    const struct tb_point **pts = calloc(g ? g : 1, sizeof(*pts));
    double *moved = calloc(g ? g : 1, sizeof(double)), *med = calloc(g ? g : 1, sizeof(double));
    struct tb_meter_result *out = calloc(g ? g : 1, sizeof(*out));
    struct tb_rerun_sd *between = calloc(g ? g : 1, sizeof(*between));
    int rc = 0;
    if (!idx || !pts || !moved || !med || !out || !between || !ctx->meter)
        goto done;
    for (size_t j = 0; j < g; j++) {
        if (!energy_wanted(ctx, grp, g, j)) {
            if (is_result(&grp[j]))
                not_measured(ctx, &grp[j].o, "energy not measured: another block of this kernel "
                             "was faster (power.points = fastest)");
            continue;
        }
        if (grp[j].p->k->flags & TB_KF_COPY_REF)
            ref = n;
        struct tb_log_rec me;   /* the row as a reader reads it: the learner's key */
        tb_log_rec_from_row(&grp[j].o.row, &me);
        tb_strlcpy(me.device_id, ctx->device_id ? ctx->device_id : "", sizeof(me.device_id));
        tb_rerun_sd(ctx->rerun, &me, &ctx->cfg->board.power, &between[n]);
        pts[n] = grp[j].p;
        moved[n] = grp[j].moved;
        med[n] = grp[j].median_ms;
        idx[n++] = j;
    }
    if (*ctx->stop)
        for (size_t k = 0; k < n; k++)
            not_measured(ctx, &grp[idx[k]].o, "energy not measured: stopped by a signal before "
                         "the size's energy blocks");
    const struct tb_point *p0 = n ? pts[0] : NULL;
    size_t bytes = p0 ? (size_t)p0->rows * (size_t)p0->cols * (size_t)ctx->cfg->sweep.elem_size : 0;
    if (!n || *ctx->stop || tb_point_buffers_get(ctx->be, ctx->be_st, buf, p0->rows, p0->cols,
                                              bytes, false))
        goto done;
    struct energy_load el = { ctx, buf, pts, moved, med, 0 };
    struct tb_meter_load ld = { load_point, &el, load_errstr };
    tb_meter_size(ctx->meter, &ld, n, ref, res->idle_w, res->idle_ci, ctx->deadline_ns, between,
                  out);
    for (size_t k = 0; k < n; k++)
        power_fields(ctx, &out[k], res, &grp[idx[k]].o);
    rc = el.rc;
done:
    free(idx);
    free(pts);
    free(moved);
    free(med);
    free(out);
    free(between);
    return rc;
}
