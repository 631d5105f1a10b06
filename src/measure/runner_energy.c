/* runner_energy.c: the runner's side of energy, through energy's door (energy/door.h) and
 * nothing else of src/energy/: it gives the door a way to keep the device busy with any
 * point of a size (back-to-back launches, a sync every chunk), picks the points whose energy
 * is measured (power.points) and says what the step will run (for the night's plan), and
 * copies the figures into the rows. It computes no power figure and writes no power line:
 * energy does, and decides what is withheld. */
#include "measure/runner_energy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy/door.h"
#include "power/power.h"
#include "lib/clock.h"
#include "lib/util.h"
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

/* The step's plan for the door: its timing's seconds (each point its stopping rule's least
 * time, verification aside) and, per size, the points measured for energy and whether the
 * copy is among them. Arrays of n (a size per point at most); NULL without memory. */
static size_t step_plan(const struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                        size_t *count, bool *ref, double *timing_s)
{
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    bool all = !strcmp(ctx->cfg->board.power.points, "all");
    size_t run = 0, sizes = 0;
    for (size_t i = 0; i < n;) {   /* a size at a time: its points are consecutive */
        size_t j = i;
        count[sizes] = 0;
        ref[sizes] = false;
        for (; j < n && pts[j].size_index == pts[i].size_index; j++) {
            run += !pts[j].skip;
            if (energy_planned(pts, j, all)) {
                count[sizes]++;
                ref[sizes] |= (pts[j].k->flags & TB_KF_COPY_REF) != 0;
            }
        }
        sizes++;
        i = j;
    }
    *timing_s = (double)run * fmin(s->max_time_ms, fmax(s->min_time_ms, 1.0)) * 1e-3;
    return sizes;
}

void tb_rn_power_begin(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                       struct tb_point_buffers *buf, struct tb_runner_result *res)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    size_t *count = calloc(n ? n : 1, sizeof(*count));
    bool *ref = calloc(n ? n : 1, sizeof(*ref));
    if (!count || !ref)
        goto done;
    struct tb_energy_start st = {
        .sampler = ctx->sampler, .pc = pc, .stop = ctx->stop,
        .judge_clock = strcmp(ctx->be->name, "cpu") != 0, .quiet = ctx->quiet,
        .log_dir = ctx->cfg->sweep.out_dir, .host = ctx->host, .host_id = ctx->host_id,
        .board = ctx->cfg->board.name, .device_id = ctx->device_id,
        .size_points = count, .size_ref = ref, .steps = ctx->steps,
    };
    st.sizes = step_plan(ctx, pts, n, count, ref, &st.timing_s);
    /* the warming's load: the first point to run, its buffers filled (a night's first
     * step only: a later step's device was under load just now) */
    const struct tb_point *p = NULL;
    for (size_t i = 0; i < n && !p; i++)
        p = pts[i].skip ? NULL : &pts[i];
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    double moved = 0, median = 1.0;
    struct energy_load el = { ctx, buf, &p, &moved, &median, 0 };
    struct tb_meter_load ld = { load_point, &el, load_errstr };
    char what[160] = "";
    if (p && pc->settle_s > 0 && !*ctx->stop && !ctx->steps_done) {
        size_t cnt = (size_t)p->rows * (size_t)p->cols, bytes = cnt * (size_t)s->elem_size;
        if (!tb_point_buffers_get(ctx->be, ctx->be_st, buf, p->rows, p->cols, bytes,
                                  s->verify) &&
            !ctx->be->fill_pattern(ctx->be_st, buf->in, cnt, s->elem_size, ctx->seed)) {
            moved = p->k->bytes_factor * (double)bytes;
            snprintf(what, sizeof(what), "%s %ldx%ld", p->k->name, p->rows, p->cols);
            st.warm = &ld;
            st.warm_what = what;
        }
    }
    tb_energy_begin(&ctx->energy, &st, &res->energy);
done:
    free(count);
    free(ref);
}

void tb_rn_power_end(struct tb_runner_ctx *ctx, struct tb_runner_result *res)
{
    tb_energy_end(ctx->energy, ctx->log, &res->energy);
    ctx->steps_done++;
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

/* The meter's figures into the row: copied by name (log/energy_figures.h's list, each
 * named and in the unit of its column), none computed or renamed here. */
static void power_fields(struct tb_runner_ctx *ctx, const struct tb_meter_result *m,
                         const struct tb_runner_result *res, struct tb_rn_out *o)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    const struct tb_power_rails *rails = tb_sampler_rails(ctx->sampler);
    struct tb_row *r = &o->row;
    r->power_source = tb_sampler_source(ctx->sampler);
    r->rail_total = pc->total_rail[0] ? pc->total_rail : rails->n ? rails->name[0] : NULL;
    r->rail_gpu = pc->gpu_rail[0] ? pc->gpu_rail : NULL;
    r->power_idle_w = res->energy.idle_w;   /* the run's, not the point's: the door's */
#define TB_RN_FIGURE(name, keep, max) r->name = m->name;
    TB_ENERGY_FIGURES(TB_RN_FIGURE)
#undef TB_RN_FIGURE
    o->emc_mhz = m->emc_clock_mhz;
    tb_strlcpy(o->block_figures, m->block_figures, sizeof(o->block_figures));
    r->block_figures = o->block_figures;
    tb_strlcpy(o->power_note, m->power_note, sizeof(o->power_note));
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
    struct tb_log_rec *keys = calloc(g ? g : 1, sizeof(*keys));
    int rc = 0;
    if (!idx || !pts || !moved || !med || !out || !keys || !ctx->energy)
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
        /* the row as a reader reads it: whose earlier runs teach its spread */
        tb_log_rec_from_row(&grp[j].o.row, &keys[n]);
        tb_strlcpy(keys[n].device_id, ctx->device_id ? ctx->device_id : "",
                   sizeof(keys[n].device_id));
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
    tb_energy_size(ctx->energy, &ld, n, ref, keys, ctx->deadline_ns, out);
    for (size_t k = 0; k < n; k++)
        power_fields(ctx, &out[k], res, &grp[idx[k]].o);
    rc = el.rc;
done:
    free(idx);
    free(pts);
    free(moved);
    free(med);
    free(out);
    free(keys);
    return rc;
}
