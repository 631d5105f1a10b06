/* runner.c: see runner.h. Order per point: fresh input, poisoned output, one checked
 * launch, warm-up, timed repetitions until the stopping rule holds, then (with a power
 * source) a window of back-to-back launches that the sampler's readings are integrated
 * over. Buffers are kept while the size stays the same. */
#include "measure/runner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/ceiling.h"
#include "log/log_meta.h"
#include "pattern.h"
#include "power/power.h"
#include "jetson/throttle.h"
#include "lib/stats.h"
#include "lib/util.h"

#define THROTTLE_FRACTION 0.85

struct buffers {
    long rows, cols;
    void *in, *out;
    void *host;           /* download target for verification */
    size_t bytes;
};

static void buffers_free(const struct tb_backend *be, void *st, struct buffers *b)
{
    if (b->in)
        be->free(st, b->in);
    if (b->out)
        be->free(st, b->out);
    free(b->host);
    memset(b, 0, sizeof(*b));
}

/* Allocates input and output for a size, unless they are already there. */
static int buffers_get(const struct tb_backend *be, void *st, struct buffers *b, long rows,
                       long cols, size_t bytes, bool verify)
{
    if (b->in && b->rows == rows && b->cols == cols && (!verify || b->host))
        return 0;
    buffers_free(be, st, b);
    int rc = be->alloc(st, bytes, &b->in);
    if (rc == 0)
        rc = be->alloc(st, bytes, &b->out);
    if (rc == 0 && verify && !(b->host = malloc(bytes)))
        rc = -ENOMEM;
    if (rc) {
        buffers_free(be, st, b);
        return rc;
    }
    b->rows = rows;
    b->cols = cols;
    b->bytes = bytes;
    return 0;
}

/* Compares out with what the pattern says each element must be: out[c][r] = in[r][c]
 * (copy kernels: out[r][c] = in[r][c]), element by element, bit for bit. The expected
 * value is recomputed from the pattern, so no copy of the input is kept. Rows are split
 * among threads: a 16384 x 16384 check on one core would take longer than its timing. */
struct verify_job {
    const unsigned char *out;
    long rows, cols, r0, r1;
    int elem;
    uint64_t seed;
    bool copy;
    const volatile sig_atomic_t *stop;
    size_t bad;
    long bad_r, bad_c;
    pthread_t thread;
};

static void *verify_rows(void *arg)
{
    struct verify_job *j = arg;
    j->bad_r = -1;
    for (long r = j->r0; r < j->r1 && !*j->stop; r++)
        for (long c = 0; c < j->cols; c++) {
            uint64_t src = (uint64_t)r * (uint64_t)j->cols + (uint64_t)c;
            uint64_t dst = j->copy ? src : (uint64_t)c * (uint64_t)j->rows + (uint64_t)r;
            unsigned char want[8];
            tb_pattern_value(want, j->elem, j->seed, src);
            if (memcmp(j->out + dst * (uint64_t)j->elem, want, (size_t)j->elem)) {
                if (j->bad_r < 0) {
                    j->bad_r = r;
                    j->bad_c = c;
                }
                j->bad++;
            }
        }
    return NULL;
}

static size_t verify_output(const void *out, long rows, long cols, int elem, uint64_t seed,
                            bool copy, const volatile sig_atomic_t *stop, char *note, size_t n)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long nt = (double)rows * (double)cols < 1e6 ? 1 : cores < 1 ? 1 : cores > 32 ? 32 : cores;
    if (nt > rows)
        nt = rows;
    struct verify_job jobs[32];
    for (long t = 0; t < nt; t++) {
        jobs[t] = (struct verify_job){ out, rows, cols, rows * t / nt, rows * (t + 1) / nt,
                                       elem, seed, copy, stop, 0, -1, -1, 0 };
        if (nt == 1 || pthread_create(&jobs[t].thread, NULL, verify_rows, &jobs[t]) != 0) {
            verify_rows(&jobs[t]);
            jobs[t].thread = 0;
        }
    }
    size_t bad = 0;
    for (long t = 0; t < nt; t++) {
        if (jobs[t].thread)
            pthread_join(jobs[t].thread, NULL);
        if (jobs[t].bad && !bad)
            snprintf(note, n, "first wrong element: output (%ld, %ld) from input (%ld, %ld)",
                     copy ? jobs[t].bad_r : jobs[t].bad_c, copy ? jobs[t].bad_c : jobs[t].bad_r,
                     jobs[t].bad_r, jobs[t].bad_c);
        bad += jobs[t].bad;
    }
    return bad;
}

/* ---- power ------------------------------------------------------------------------ */

static void sleep_ms(double ms)
{
    int64_t end = tb_now_ns() + (int64_t)(ms * 1e6);
    while (tb_sleep_until_ns(end) == -EINTR)
        ;
}

/* Idle baseline: nothing runs for idle_ms, and longer until the window holds min_readings
 * sensor updates (capped: a source that never changes gives up after a minute); the first
 * idle also settles the sensor's cadence (window.c). The total rail's mean power, and the
 * half-width of its 95% interval in *ci. */
#define IDLE_CAP_MS 60000.0
static double measure_idle(struct tb_runner_ctx *ctx, double *ci)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    *ci = NAN;
    if (!ctx->sampler || pc->idle_ms <= 0)
        return NAN;
    int64_t t0 = tb_now_ns();
    double waited = 0, want = pc->idle_ms;
    while (!*ctx->stop && waited < IDLE_CAP_MS && !tb_sampler_failed(ctx->sampler)) {
        double step = fmin(250.0, want - waited);
        if (step > 0) {
            sleep_ms(step);
            waited = (double)(tb_now_ns() - t0) * 1e-6;
            continue;
        }
        size_t got = tb_power_updates_in(ctx->sampler, pc, t0, tb_now_ns());
        if (got >= (size_t)pc->min_readings + 1)
            break;
        want = waited + 250.0;   /* not yet enough updates: a little longer */
    }
    int64_t t1 = tb_now_ns();
    tb_power_learn_cadence(ctx->sampler, pc, t0, t1);
    sleep_ms(tb_power_settle_ms(ctx->sampler));
    struct tb_power_figures f;
    tb_power_over(ctx->sampler, pc, t0, t1, &f);
    *ci = f.total_w_ci;
    return f.total_w;
}

/* The power clock of the run, said before the sweep (the user learns how long it takes)
 * and kept in the log: the sensor's cadence and how it was known, the window it sizes. */
static void say_cadence(struct tb_runner_ctx *ctx, size_t points, struct tb_runner_result *res)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    const struct tb_power_cadence *c = tb_sampler_cadence(ctx->sampler);
    res->window_ms = tb_power_window_ms(ctx->sampler, pc);
    if (isnan(c->period_ms))
        snprintf(res->cadence, sizeof(res->cadence), "not known (%s): windows of %.0f ms as "
                 "power.window_ms says; each row counts its own updates",
                 c->how[0] ? c->how : "no change seen while idle", res->window_ms);
    else
        snprintf(res->cadence, sizeof(res->cadence), "%.0f ms (%s: %s); windows of %.0f ms "
                 "for %d readings", c->period_ms, c->how, c->detail, res->window_ms,
                 pc->min_readings);
    if (!ctx->quiet)
        note("power: sensor updates every %s; %zu points x %d rounds: at least %.0f s of power "
             "windows", res->cadence, points, pc->rounds,
             (double)points * pc->rounds * res->window_ms * 1e-3);
}

/* The cadence, rails and scope, and the idle power before and after, as metadata lines
 * after the rows (beside the sampler's own), so a reader a week later knows what stands
 * behind every watt. */
static void log_power_run(struct tb_runner_ctx *ctx, const struct tb_runner_result *res)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    const struct tb_power_rails *rails = tb_sampler_rails(ctx->sampler);
    const struct tb_power_cadence *c = tb_sampler_cadence(ctx->sampler);
    char list[TB_POWER_MAX_RAILS * (TB_RAIL_NAME + 2)] = "";
    for (int i = 0; i < rails->n; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof(list) - len, "%s%s", i ? " " : "", rails->name[i]);
    }
    tb_csvlog_meta(ctx->log, TB_META(power_cadence), "%s; rails: %s; total: %s; gpu: %s; "
                   "scope: %s; min_readings %d, max_rel_ci %.3g", res->cadence,
                   list[0] ? list : "none", pc->total_rail[0] ? pc->total_rail
                   : rails->n ? rails->name[0] : "none", pc->gpu_rail[0] ? pc->gpu_rail : "none",
                   c->scope[0] ? c->scope : "the source's rails", pc->min_readings,
                   pc->max_rel_ci);
    tb_csvlog_meta(ctx->log, TB_META(power_idle), "before %.3f W +- %.3f, after %.3f W +- "
                   "%.3f, drift %+.3f W", res->idle_w, res->idle_ci, res->idle_after_w,
                   res->idle_after_ci, res->idle_after_w - res->idle_w);
    if (res->settle[0])
        tb_csvlog_meta(ctx->log, TB_META(power_settle), "%s", res->settle);
}

/* ---- one point -------------------------------------------------------------------- */

struct point_out {
    struct tb_row row;
    char note[512];
    char power_note[320];
    char round_figures[256];
    double emc_mhz;               /* the EMC clock read in the power window; NAN: none */
    struct tb_throttle_snap start;   /* boards' throttle counters at the point's start */
    char cause[128];
};

/* A point's power rounds while its group is measured: the first from run_point, the rest
 * spread over the group (power_rounds). */
struct pending_power {
    struct tb_power_round round[TB_POWER_MAX_ROUNDS];
    int n;                        /* rounds measured; 0: no power for this point */
    double moved, median_ms;
    uint64_t seed;
};

/* Why this row's power figures are missing or partial: a source that went silent over
 * the window, readings dropped as absurd meanwhile, or what the window module said (too
 * few updates, too wide an interval). "" when they are whole. */
static void power_health(struct tb_runner_ctx *ctx, const struct tb_power_figures *f,
                         struct point_out *o)
{
    struct tb_sampler_health h;
    tb_sampler_health(ctx->sampler, &h);
    char why[sizeof(o->power_note)];
    if (tb_power_silent(ctx->sampler, why, sizeof(why)))
        snprintf(o->power_note, sizeof(o->power_note), "%s", why);
    else if (h.dropped > ctx->dropped_seen)
        snprintf(o->power_note, sizeof(o->power_note), "%llu reading(s) outside 0..%.0f W "
                 "dropped during the window", h.dropped - ctx->dropped_seen,
                 ctx->cfg->board.power.max_power_w);
    else if (f->why[0])
        snprintf(o->power_note, sizeof(o->power_note), "%s", f->why);
    else if (f->samples == 0)
        snprintf(o->power_note, sizeof(o->power_note), "no reading inside the window");
    ctx->dropped_seen = h.dropped;
}

static const char *fits(const struct tb_device_info *dev, size_t bytes)
{
    if (!dev->l2_bytes)
        return "";
    return 2 * bytes <= dev->l2_bytes ? "yes" : "no";
}

/* Fresh input, poisoned output, the checked launch and its verification, the warm-up.
 * Returns 0, or the backend error (or -EINTR) that ended it, with *step saying where. */
static int prepare_point(struct tb_runner_ctx *ctx, const struct tb_point *p, struct buffers *buf,
                       struct tb_launch *l, uint64_t seed, struct point_out *o, const char **step)
{
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    const struct tb_backend *be = ctx->be;
    void *dev = ctx->be_st;
    struct tb_row *r = &o->row;
    size_t count = (size_t)p->rows * (size_t)p->cols, bytes = count * (size_t)s->elem_size;
    int rc;
    *step = "filling the input";
    if ((rc = be->fill_pattern(dev, buf->in, count, s->elem_size, seed)))
        return rc;
    r->verified = TB_VERIFIED_NA;
    if (s->verify) {
        *step = "poisoning the output";
        if ((rc = be->fill_bytes(dev, buf->out, 0xFF, bytes)))
            return rc;
        *step = "the checked launch";
        if ((rc = be->launch(dev, p->k, l)) || (rc = be->sync(dev)))
            return rc;
        *step = "reading the output back";
        if ((rc = be->download(dev, buf->host, buf->out, bytes)))
            return rc;
        *step = "the check";
        char vnote[200] = "";
        size_t bad = verify_output(buf->host, p->rows, p->cols, s->elem_size, seed,
                                   p->k->flags & TB_KF_COPY, ctx->stop, vnote, sizeof(vnote));
        if (*ctx->stop)
            return -EINTR;
        r->verified = bad ? TB_VERIFIED_FAIL : TB_VERIFIED_OK;
        if (bad)
            snprintf(o->note, sizeof(o->note), "%zu of %zu elements wrong, %s", bad, count, vnote);
    }
    *step = "the warm-up";
    for (int i = 0; i < s->warmup; i++)
        if ((rc = be->launch(dev, p->k, l)))
            return rc;
    if ((rc = be->sync(dev)))
        return rc;
    r->grid_x = l->grid_x;
    r->grid_y = l->grid_y;
    return 0;
}

/* Timed repetitions until the stopping rule holds, then the row's timing, bandwidth and clock
 * figures. *median_ms gets the median; 1 when a signal stopped it (the row says so). */
static int time_point(struct tb_runner_ctx *ctx, const struct tb_point *p, struct tb_launch *l,
                      double moved, double copy_gbps, double start_clock, struct point_out *o,
                      double *median_ms, const char **step)
{
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    const struct tb_backend *be = ctx->be;
    void *dev = ctx->be_st;
    struct tb_row *r = &o->row;
    struct tb_stop_rule rule = { s->min_reps, s->max_reps, s->min_time_ms, s->max_time_ms,
                                 s->rel_spread };
    *step = "allocating the timing array";
    double *times = malloc((size_t)s->max_reps * sizeof(double));
    if (!times)
        return -ENOMEM;
    struct tb_running run = { 0 };
    enum tb_stop why = TB_GO_ON;
    double clk0 = NAN, clk1 = NAN;
    be->sm_clock_mhz(dev, &clk0);
    int64_t t_start = tb_now_ns();
    *step = "a timed repetition";
    bool cold = !strcmp(s->cache, "cold");
    int rc = 0;
    while (why == TB_GO_ON && !*ctx->stop) {
        double ms;
        if ((cold && (rc = be->flush_cache(dev))) || (rc = be->timed(dev, p->k, l, &ms)))
            break;
        times[run.n] = ms;
        tb_running_add(&run, ms);
        why = tb_stop_check(&rule, &run, (double)(tb_now_ns() - t_start) * 1e-6);
    }
    be->sm_clock_mhz(dev, &clk1);
    struct tb_stats st;
    if (!rc)
        tb_stats_compute(times, run.n, &st);
    free(times);
    if (rc)
        return rc;
    if (*ctx->stop && why == TB_GO_ON) {
        r->status = TB_STATUS_INTERRUPTED;
        snprintf(o->note, sizeof(o->note), "stopped by a signal after %zu repetitions", st.n);
        return 1;
    }
    *median_ms = st.median;
    r->reps = (long long)st.n;
    r->stop = tb_stop_name(why);
    r->time_ms_median = st.median;
    r->time_ms_min = st.min;
    r->time_ms_max = st.max;
    r->time_ms_mean = st.mean;
    r->time_ms_stddev = st.stddev;
    r->rel_sem = st.rel_sem;
    r->gbps = tb_gbps(moved, st.median);
    double peak = ctx->cfg->board.peak_gbps;
    r->frac_peak = peak > 0 ? r->gbps / peak : NAN;
    r->frac_copy = (p->k->flags & TB_KF_COPY_REF) ? 1.0 : tb_ratio(r->gbps, copy_gbps);
    if (!isnan(clk0) && !isnan(clk1))
        r->sm_clock_mhz = 0.5 * (clk0 + clk1);
    else
        r->sm_clock_mhz = isnan(clk0) ? clk1 : clk0;
    if (!isnan(r->sm_clock_mhz) && !isnan(start_clock))
        r->throttled = r->sm_clock_mhz < THROTTLE_FRACTION * start_clock ? "yes" : "no";
    r->status = TB_STATUS_OK;
    if (peak > 0 && r->gbps > peak) {
        bool cached = !strcmp(r->fits_cache, "yes");
        size_t len = strlen(o->note);
        snprintf(o->note + len, sizeof(o->note) - len, "%s%.0f GB/s is above the board's peak of "
                 "%.0f GB/s%s", len ? "; " : "", r->gbps, peak,
                 cached ? " (the matrices fit in cache)" : ": suspect, check board.peak_gbps");
        r->status = TB_STATUS_SUSPECT;
    }
    return 0;
}

/* The energy figures per byte and per GB/s of a point's rounds, with their intervals: GB/s
 * per W and J/GB carry the rounds' interval of GB/s per W (the windows' own where wider);
 * the power its own; the dynamic figure adds the idle interval. */
static void per_byte(struct tb_row *r, const struct tb_power_point *pp, double idle_ci)
{
    double wgbps = pp->bytes / pp->secs / 1e9, rel = pp->gbps_per_w_rel;
    r->power_total_w_ci95 = pp->total_w_ci;
    r->gbps_per_w = tb_ratio(wgbps, r->power_total_w);
    r->gbps_per_w_ci95 = r->gbps_per_w * rel;
    r->gbps_per_w_gpu = tb_ratio(wgbps, r->power_gpu_w);
    r->j_per_gb = tb_ratio(r->power_total_w, wgbps);
    r->j_per_gb_ci95 = r->j_per_gb * rel;
    double above = r->power_total_w - r->power_idle_w;
    r->dyn_pj_per_byte = pp->bytes > 0 ? above * pp->secs / pp->bytes * 1e12 : NAN;
    r->dyn_pj_per_byte_ci95 = hypot(pp->total_w_ci, idle_ci) * pp->secs / pp->bytes * 1e12;
}

/* Back-to-back launches of p's kernel until end (CLOCK_MONOTONIC ns) or a signal, a sync
 * after every chunk; *launches counts them. 0 or the backend error. */
static int load_until(struct tb_runner_ctx *ctx, const struct tb_point *p, struct tb_launch *l,
                      int64_t end, long chunk, long *launches)
{
    int rc;
    while (tb_now_ns() < end && !*ctx->stop) {
        int64_t r0 = tb_real_now_ns();
        for (long i = 0; i < chunk; i++)
            if ((rc = ctx->be->launch(ctx->be_st, p->k, l)))
                return rc;
        *launches += chunk;
        if ((rc = ctx->be->sync(ctx->be_st)))
            return rc;
        tb_clock_spend_ns(tb_real_now_ns() - r0);   /* the fake clock counts the work */
    }
    return 0;
}

/* Launches per sync for about 20 ms of work, from a launch's time in ms. */
static long sync_chunk(double ms_per_launch)
{
    return (long)(20.0 / (ms_per_launch > 0 ? ms_per_launch : 1e-3)) + 1;
}

/* The power of [t0, t1] once the reading that closes it has come, judged without
 * power.max_rel_ci: a round or a warming block; the point's rounds are judged together
 * (rounds.c). */
static void window_power(struct tb_runner_ctx *ctx, int64_t t0, int64_t t1,
                         struct tb_power_figures *f)
{
    struct tb_power_cfg loose = ctx->cfg->board.power;
    loose.max_rel_ci = INFINITY;
    sleep_ms(tb_power_settle_ms(ctx->sampler));
    tb_power_over(ctx->sampler, &loose, t0, t1, f);
}

/* One power window (a round): back-to-back launches for as long as the sensor's cadence
 * asks (window.c), timed by the host clock around syncs, and its figures judged without
 * power.max_rel_ci (the point's rounds together are judged: rounds.c). */
static int power_window(struct tb_runner_ctx *ctx, const struct tb_point *p, struct tb_launch *l,
                        double moved, double median_ms, const struct tb_runner_result *res,
                        struct point_out *o, struct tb_power_round *round, const char **step)
{
    long chunk = sync_chunk(median_ms);
    long launches = 0;
    int rc;
    *step = "the power window";
    int64_t t0 = tb_now_ns();
    if ((rc = load_until(ctx, p, l, t0 + (int64_t)(res->window_ms * 1e6), chunk, &launches)))
        return rc;
    int64_t t1 = tb_now_ns();
    window_power(ctx, t0, t1, &round->f);
    round->secs = (double)(t1 - t0) * 1e-9;
    round->bytes = moved * (double)launches;
    if (!o->power_note[0])
        power_health(ctx, &round->f, o);
    return 0;
}

/* Each round's power and window GB/s, as the column round_figures says them. */
static void round_figures(const struct tb_power_round *r, int n, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "W");
    for (int k = 0; k < n && len < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, " %.1f", r[k].f.total_w);
    if (len < cap)
        len += (size_t)snprintf(out + len, cap - len, "; GB/s");
    for (int k = 0; k < n && len < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, " %.4g",
                                r[k].secs > 0 ? r[k].bytes / r[k].secs / 1e9 : NAN);
}

/* The row's power fields from the point's rounds (rounds.c combines them). */
static void power_fields(struct tb_runner_ctx *ctx, const struct tb_power_round *rounds, int n,
                         int planned, const struct tb_runner_result *res, struct point_out *o)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    struct tb_row *r = &o->row;
    struct tb_power_point pp;
    tb_power_rounds(rounds, n, pc, &pp);
    r->window_ms = pp.secs * 1e3;
    r->window_bytes = pp.bytes;
    r->power_source = tb_sampler_source(ctx->sampler);
    const struct tb_power_rails *rails = tb_sampler_rails(ctx->sampler);
    r->rail_total = pc->total_rail[0] ? pc->total_rail : rails->n ? rails->name[0] : NULL;
    r->rail_gpu = pc->gpu_rail[0] ? pc->gpu_rail : NULL;
    r->power_total_w = pp.total_w;
    r->power_gpu_w = pp.gpu_w;
    r->power_idle_w = res->idle_w;
    r->energy_j = pp.energy_j;
    r->energy_counter_j = pp.energy_counter_j;
    r->power_samples = (double)pp.samples;
    r->power_updates = (double)pp.updates;
    r->power_rounds = pp.rounds;
    round_figures(rounds, n, o->round_figures, sizeof(o->round_figures));
    r->round_figures = o->round_figures;
    r->gpu_temp_c = pp.gpu_temp_c;
    r->gpu_clock_mhz = pp.gpu_clock_mhz;
    r->emc_clock_mhz = pp.emc_clock_mhz;
    o->emc_mhz = pp.emc_clock_mhz;
    if (pp.withheld && o->power_note[0] && strcmp(o->power_note, pp.why)) {
        /* what the source did (silent, absurd readings) first, then the rule's verdict */
        size_t len = strlen(o->power_note);
        snprintf(o->power_note + len, sizeof(o->power_note) - len, "; %s", pp.why);
    } else if (pp.withheld) {
        snprintf(o->power_note, sizeof(o->power_note), "%s", pp.why);
    }
    else if (pp.rounds < planned && !o->power_note[0])
        snprintf(o->power_note, sizeof(o->power_note), "%d of %d power rounds%s", pp.rounds,
                 planned, *ctx->stop ? " (stopped by a signal)" : "");
    r->power_note = o->power_note;
    if (pp.rounds > 0)
        per_byte(r, &pp, res->idle_ci);
}

/* The ceiling the point is judged against: the live EMC clock of its window, else the
 * run's (nvpmodel cap or board file; in a mode step, the EMC cap read back when lower);
 * frac_peak follows it. */
static void judge_ceiling(const struct tb_runner_ctx *ctx, const struct tb_ceiling *run,
                          struct point_out *o)
{
    struct tb_row *r = &o->row;
    struct tb_ceiling c;
    tb_ceiling_window(&ctx->cfg->board, run, o->emc_mhz, &c);
    if (c.gbps <= 0)
        return;
    r->peak_gbps = c.gbps;
    r->peak_source = c.source;
    r->frac_peak = isnan(r->gbps) ? NAN : r->gbps / c.gbps;
}

/* Why the point may have run slower: the board's counters, zones, clocks and mode between
 * its start and end (throttle.c), or on a desktop NVML's clock-event reasons at its end. */
static void judge_throttle(struct tb_runner_ctx *ctx, struct point_out *o)
{
    struct tb_row *r = &o->row;
    struct tb_throttle_snap end;
    struct tb_throttle_diff d;
    tb_throttle_snap(NULL, &end);
    tb_throttle_diff(&o->start, &end, TB_THROTTLE_HOT_C, &d);
    tb_strlcpy(o->cause, d.cause, sizeof(o->cause));
    unsigned long long mask;
    if (!o->cause[0] && ctx->sampler && tb_sampler_clock_reasons(ctx->sampler, &mask) == 0 &&
        tb_throttle_nvml_throttled(mask))
        tb_throttle_nvml_cause(mask, o->cause, sizeof(o->cause));
    r->throttle_cause = o->cause;
    r->oc_events = d.oc_total >= 0 ? (double)d.oc_total : NAN;
    r->max_temp_c = d.max_temp_c;
    if (o->cause[0])
        r->throttled = "yes";
}

/* One point: buffers, check, timing, power; a failure is recorded in the row (status and the
 * step it failed in), a signal as "interrupted". Returns 0, or the backend error that ended
 * it (the row says which). */
static int run_point(struct tb_runner_ctx *ctx, const struct tb_point *p, struct buffers *buf,
                     double copy_gbps, double start_clock, const struct tb_runner_result *res,
                     struct point_out *o, size_t index, struct pending_power *pw)
{
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    const struct tb_backend *be = ctx->be;
    void *dev = ctx->be_st;
    struct tb_row *r = &o->row;
    size_t bytes = (size_t)p->rows * (size_t)p->cols * (size_t)s->elem_size;
    double moved = p->k->bytes_factor * (double)bytes;
    r->bytes = (long long)moved;
    r->fits_cache = fits(ctx->dev, bytes);
    r->cache = s->cache;
    const char *step = "allocating the matrices";
    int rc = buffers_get(be, ctx->be_st, buf, p->rows, p->cols, bytes, s->verify);
    if (rc) {
        snprintf(o->note, sizeof(o->note), "allocating 2 x %zu bytes: %s", bytes, be->errstr(dev, rc));
        r->status = be->is_oom(rc) ? TB_STATUS_OOM : TB_STATUS_ERROR;
        return rc;
    }
    struct tb_launch l = { buf->in, buf->out, p->rows, p->cols, p->bx, p->by, s->elem_size,
                           0, 0, NULL };
    uint64_t seed = ctx->seed ^ (0x9E3779B97F4A7C15ULL * (index + 1));
    double median_ms = 0;
    rc = prepare_point(ctx, p, buf, &l, seed, o, &step);
    if (!rc)
        rc = time_point(ctx, p, &l, moved, copy_gbps, start_clock, o, &median_ms, &step);
    if (rc == 1)
        return 0;   /* interrupted between repetitions: the row says so */
    if (!rc && ctx->sampler && tb_sampler_failed(ctx->sampler)) {
        /* the measurement goes on; each row after says power was lost, and why */
        snprintf(o->power_note, sizeof(o->power_note), "power source '%s' lost: %s",
                 tb_sampler_source(ctx->sampler), tb_sampler_why(ctx->sampler));
        r->power_note = o->power_note;
    } else if (!rc && ctx->sampler && !*ctx->stop) {
        rc = power_window(ctx, p, &l, moved, median_ms, res, o, &pw->round[0], &step);
        pw->n = rc ? 0 : 1;
        pw->moved = moved;
        pw->median_ms = median_ms;
        pw->seed = seed;
    }
    if (!rc)
        return 0;
    if (*ctx->stop) {
        r->status = TB_STATUS_INTERRUPTED;
        snprintf(o->note, sizeof(o->note), "stopped by a signal during %s", step);
        return 0;
    }
    r->status = be->is_oom(rc) ? TB_STATUS_OOM : TB_STATUS_ERROR;
    size_t len = strlen(o->note);
    snprintf(o->note + len, sizeof(o->note) - len, "%s%s: %s", len ? "; " : "", step,
             be->errstr(dev, rc));
    return rc;
}

/* ---- the sweep -------------------------------------------------------------------- */

static void progress(struct tb_runner_ctx *ctx, size_t done, size_t total, const struct tb_point *p,
                     double elapsed_s)
{
    if (!ctx->progress)
        return;
    char eta[32] = "?";
    if (done > 0) {
        double left = elapsed_s / (double)done * (double)(total - done);
        snprintf(eta, sizeof(eta), "%dm%02ds", (int)left / 60, (int)left % 60);
    }
    fprintf(stderr, "\r\033[K[%zu/%zu] %s %ldx%ld", done + 1, total, p->k->name, p->rows, p->cols);
    if (p->bx)
        fprintf(stderr, " block %dx%d", p->bx, p->by);
    fprintf(stderr, "  (%s left)", eta);
}

static void summary_add(struct tb_runner_result *res, const struct tb_row *r)
{
    struct tb_log_rec *rows = realloc(res->rows, (res->n_rows + 1) * sizeof(*rows));
    if (!rows)
        return;
    res->rows = rows;
    tb_log_rec_from_row(r, &rows[res->n_rows++]);
}

static double start_clock(const struct tb_backend *be, void *st)
{
    double best = NAN;
    for (int i = 0; i < 3; i++) {
        double mhz = NAN;
        be->sm_clock_mhz(st, &mhz);
        if (!isnan(mhz) && (isnan(best) || mhz > best))
            best = mhz;
    }
    return best;
}

/* The row's fields that come from the run and the point, before it is measured. */
static void row_start(const struct tb_runner_ctx *ctx, const struct tb_point *p, struct tb_row *r)
{
    tb_row_init(r);
    r->run_id = ctx->run_id;
    r->host = ctx->host;
    r->board = ctx->cfg->board.name;
    r->device = ctx->dev->name;
    r->backend = ctx->be->name;
    r->kernel = p->k->name;
    r->elem = ctx->cfg->sweep.element;
    r->elem_bytes = ctx->cfg->sweep.elem_size;
    r->rows = p->rows;
    r->cols = p->cols;
    r->block_x = p->bx;
    r->block_y = p->by;
    r->power_mode = ctx->power_mode;
    r->gpu_max_mhz = ctx->max_clock_mhz;
    if (ctx->step) {
        r->gpu_cap_asked_mhz = ctx->step->gpu_cap_asked_mhz > 0 ? ctx->step->gpu_cap_asked_mhz : NAN;
        r->emc_cap_asked_mhz = ctx->step->emc_cap_asked_mhz > 0 ? ctx->step->emc_cap_asked_mhz : NAN;
        r->emc_cap_mhz = ctx->step->emc_cap_mhz;
    }
}

/* A point that ended with backend error rc: said, and a broken context recovered. Returns
 * -1 when the device cannot be recovered (the sweep stops), else 0. */
static int after_failure(struct tb_runner_ctx *ctx, const struct tb_point *p, size_t i, int rc,
                         const struct point_out *o, struct buffers *buf,
                         struct tb_runner_result *res)
{
    res->failed++;
    if (ctx->progress)
        fputc('\n', stderr);
    error("point %zu (%s %ldx%ld block %dx%d): %s", i + 1, p->k->name, p->rows, p->cols, p->bx,
          p->by, o->note);
    if (!ctx->be->is_fatal(rc))
        return 0;
    buf->in = buf->out = NULL; /* gone with the context */
    buffers_free(ctx->be, ctx->be_st, buf);
    int rrc = ctx->be->recover(ctx->be_st);
    if (rrc != 0) {
        /* CUDA documents illegal-address and similar errors as sticky: only a new
         * process gets a working context (seen on the H100, doc/reliability.md) */
        error("the device could not be recovered (reset: %s); stopping the sweep: "
              "the log keeps every completed row, and the next run starts afresh",
              ctx->be->errstr(ctx->be_st, rrc));
        res->aborted = true;
        return -1;
    }
    note("device reset; going on with the next point");
    return 0;
}

/* A point a rule excludes: a row that says why, and a note unless quiet. */
static void skip_point(const struct tb_runner_ctx *ctx, const struct tb_point *p,
                       struct point_out *o, struct tb_runner_result *res)
{
    o->row.status = TB_STATUS_SKIPPED;
    snprintf(o->note, sizeof(o->note), "%s", p->why);
    if (!ctx->quiet)
        note("skipping %s %ldx%ld block %dx%d: %s", p->k->name, p->rows, p->cols, p->bx, p->by,
             p->why);
    res->skipped++;
}

/* ---- groups and rounds -------------------------------------------------------------
 * Points are measured in groups of up to ROUND_GROUP points of one size: each point is
 * checked, timed and given its first power window as before; then the group's points get
 * their further power rounds in turn, each round on freshly allocated buffers; then the
 * group's rows are written, in order. A signal writes what the group has (fewer rounds,
 * said in power_note); a SIGKILL loses at most the group's rows (doc/reliability.md).
 * Without power (or with one round) a group is one point: each row is written at once. */
#define ROUND_GROUP 8

struct pending {
    const struct tb_point *p;
    size_t index;
    struct point_out o;
    struct pending_power pw;
    char utc[32];
};

/* The first pass over one point: check, time, first power window. Returns -1 when the
 * device is lost for good (the sweep stops after writing its group), else 0. */
static int first_pass(struct tb_runner_ctx *ctx, struct pending *pe, struct buffers *buf,
                      double *copy_gbps, double clock0, struct tb_runner_result *res)
{
    const struct tb_point *p = pe->p;
    struct point_out *o = &pe->o;
    struct tb_row *r = &o->row;
    row_start(ctx, p, r);
    o->emc_mhz = NAN;
    int rc = 0;
    if (p->skip) {
        skip_point(ctx, p, o, res);
    } else {
        tb_throttle_snap(NULL, &o->start);
        rc = run_point(ctx, p, buf, *copy_gbps, clock0, res, o, pe->index, &pe->pw);
        if ((p->k->flags & TB_KF_COPY_REF) && rc == 0)
            *copy_gbps = r->gbps;
        judge_throttle(ctx, o);
    }
    tb_utc_stamp(pe->utc, sizeof(pe->utc), true);
    bool interrupted = r->status == TB_STATUS_INTERRUPTED;
    res->interrupted |= interrupted;
    if (rc)
        return after_failure(ctx, p, pe->index, rc, o, buf, res);
    if (!p->skip && tb_outcome_wrong(r->status, r->verified)) {
        res->verify_failed++;
        error("point %zu (%s %ldx%ld block %dx%d): verification failed: %s", pe->index + 1,
              p->k->name, p->rows, p->cols, p->bx, p->by, o->note);
    } else if (!p->skip && !interrupted) {
        res->ok++;
    }
    return 0;
}

/* One further power round of a point: its input filled again (the new buffers), the
 * warm-up, the window. */
static int next_round(struct tb_runner_ctx *ctx, struct pending *pe, struct buffers *buf,
                      const struct tb_runner_result *res, const char **step)
{
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    const struct tb_backend *be = ctx->be;
    const struct tb_point *p = pe->p;
    size_t count = (size_t)p->rows * (size_t)p->cols;
    struct tb_launch l = { buf->in, buf->out, p->rows, p->cols, p->bx, p->by, s->elem_size,
                           0, 0, NULL };
    int rc;
    *step = "filling the input";
    if ((rc = be->fill_pattern(ctx->be_st, buf->in, count, s->elem_size, pe->pw.seed)))
        return rc;
    *step = "the warm-up";
    for (int i = 0; i < s->warmup; i++)
        if ((rc = be->launch(ctx->be_st, p->k, &l)))
            return rc;
    if ((rc = be->sync(ctx->be_st)))
        return rc;
    /* the first round follows the point's timed repetitions, a load of up to seconds; the
     * others follow an allocation and idle gaps, after which an H100 drew 3-9% less for the
     * same GB/s (clocks and voltage ramping back): each gets a window's load first */
    long lead = 0, chunk = sync_chunk(pe->pw.median_ms);
    if ((rc = load_until(ctx, p, &l, tb_now_ns() + (int64_t)(res->window_ms * 1e6), chunk,
                         &lead)))
        return rc;
    return power_window(ctx, p, &l, pe->pw.moved, pe->pw.median_ms, res, &pe->o,
                        &pe->pw.round[pe->pw.n], step);
}

/* The group's further rounds: each on buffers allocated afresh (another placement, as a
 * rerun would get). A failed round ends that point's rounds (said in its note); a device
 * lost for good ends them all. */
static void more_rounds(struct tb_runner_ctx *ctx, struct pending *grp, size_t g,
                        struct buffers *buf, struct tb_runner_result *res)
{
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    int planned = ctx->cfg->board.power.rounds;
    for (int k = 1; k < planned && !*ctx->stop && !res->aborted; k++) {
        buffers_free(ctx->be, ctx->be_st, buf);
        for (size_t j = 0; j < g && !*ctx->stop && !res->aborted; j++) {
            struct pending *pe = &grp[j];
            if (pe->pw.n != k)
                continue;
            const struct tb_point *p = pe->p;
            size_t bytes = (size_t)p->rows * (size_t)p->cols * (size_t)s->elem_size;
            const char *step = "allocating the matrices";
            int rc = buffers_get(ctx->be, ctx->be_st, buf, p->rows, p->cols, bytes, false);
            if (!rc)
                rc = next_round(ctx, pe, buf, res, &step);
            if (!rc) {
                pe->pw.n++;
                continue;
            }
            if (*ctx->stop)
                break;
            size_t len = strlen(pe->o.note);
            snprintf(pe->o.note + len, sizeof(pe->o.note) - len, "%spower round %d, %s: %s",
                     len ? "; " : "", k + 1, step, ctx->be->errstr(ctx->be_st, rc));
            if (ctx->be->is_fatal(rc) && after_failure(ctx, p, pe->index, rc, &pe->o, buf,
                                                      res) < 0)
                return;
        }
    }
}

/* The group's rows, in order: power from the rounds, the ceiling; the interrupted point's
 * row is not written (its note said so on stderr). -1 when the log cannot be written. */
static int write_group(struct tb_runner_ctx *ctx, struct pending *grp, size_t g,
                       const struct tb_ceiling *ceiling, struct tb_runner_result *res)
{
    int planned = ctx->cfg->board.power.rounds;
    for (size_t j = 0; j < g; j++) {
        struct pending *pe = &grp[j];
        struct tb_row *r = &pe->o.row;
        if (pe->pw.n > 0)
            power_fields(ctx, pe->pw.round, pe->pw.n, planned, res, &pe->o);
        if (!pe->p->skip)
            judge_ceiling(ctx, ceiling, &pe->o);
        r->note = pe->o.note;
        r->utc = pe->utc;
        if (r->status == TB_STATUS_INTERRUPTED)
            continue;
        if (tb_csvlog_row(ctx->log, r) < 0) {
            res->log_failed = true;
            return -1;
        }
        summary_add(res, r);
    }
    return 0;
}

/* ---- warming ------------------------------------------------------------------------
 * A GPU's power climbs as it warms (leakage): an H100 under memcpy drew 501 W at 50 C and
 * 522 W at 62 C a minute later. Rounds measured while it climbs disagree, and so would a
 * rerun. Before the sweep, the first point's kernel runs back to back in blocks of a window
 * (5 s at least) until two successive blocks' mean powers differ by at most settle_rel (or
 * by less than their own intervals: a noisy sensor cannot show a smaller climb), or until
 * power.settle_s has passed; the log says which. */
#define SETTLE_BLOCK_MIN_MS 5000.0

struct settle_state {
    double first, prev, prev_ci, change;
    int blocks;
    bool steady;
};

/* One block of load; its mean power judged against the previous block's. 0, a backend
 * error, or 1 when the block had no power reading. */
static int settle_block(struct tb_runner_ctx *ctx, const struct tb_point *p, struct tb_launch *l,
                        int64_t end, long *chunk, struct settle_state *st)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    int64_t t0 = tb_now_ns();
    long launches = 0;
    int rc = load_until(ctx, p, l, end, *chunk, &launches);
    if (rc)
        return rc;
    int64_t t1 = tb_now_ns();
    if (launches > 0)   /* from now on, at the rate this block measured */
        *chunk = sync_chunk((double)(t1 - t0) * 1e-6 / (double)launches);
    struct tb_power_figures f;
    window_power(ctx, t0, t1, &f);
    if (!isfinite(f.total_w) || f.total_w <= 0)
        return 1;
    if (!st->blocks++)
        st->first = f.total_w;
    else {
        st->change = (f.total_w - st->prev) / f.total_w;
        double ci = hypot(isfinite(f.total_w_ci) ? f.total_w_ci : 0,
                          isfinite(st->prev_ci) ? st->prev_ci : 0);
        st->steady = fabs(st->change) <= pc->settle_rel || fabs(f.total_w - st->prev) < ci;
    }
    st->prev = f.total_w;
    st->prev_ci = f.total_w_ci;
    return 0;
}

static void settle(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                   struct buffers *buf, struct tb_runner_result *res)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    const struct tb_point *p = NULL;
    for (size_t i = 0; i < n && !p; i++)
        p = pts[i].skip ? NULL : &pts[i];
    if (!ctx->sampler || pc->settle_s <= 0 || !p || *ctx->stop)
        return;
    size_t count = (size_t)p->rows * (size_t)p->cols, bytes = count * (size_t)s->elem_size;
    int rc = buffers_get(ctx->be, ctx->be_st, buf, p->rows, p->cols, bytes, s->verify);
    if (!rc)
        rc = ctx->be->fill_pattern(ctx->be_st, buf->in, count, s->elem_size, ctx->seed);
    struct tb_launch l = { buf->in, buf->out, p->rows, p->cols, p->bx, p->by, s->elem_size,
                           0, 0, NULL };
    if (!ctx->quiet)
        note("power: warming the device under %s %ldx%ld until its power stops climbing (at "
             "most %d s)", p->k->name, p->rows, p->cols, pc->settle_s);
    double block_ms = fmax(res->window_ms, SETTLE_BLOCK_MIN_MS);
    int64_t t_start = tb_now_ns(), limit = t_start + (int64_t)pc->settle_s * 1000000000LL;
    struct settle_state st = { NAN, NAN, NAN, NAN, 0, false };
    long chunk = 1;
    while (!rc && !st.steady && !*ctx->stop && tb_now_ns() < limit) {
        int64_t end = tb_now_ns() + (int64_t)(block_ms * 1e6);
        rc = settle_block(ctx, p, &l, end < limit ? end : limit, &chunk, &st);
    }
    double secs = (double)(tb_now_ns() - t_start) * 1e-9;
    const char *how = st.steady ? "steady" : *ctx->stop ? "stopped by a signal"
                      : rc == 1 ? "no power reading" : rc ? ctx->be->errstr(ctx->be_st, rc)
                      : "not steady when power.settle_s ended";
    snprintf(res->settle, sizeof(res->settle), "%.0f s under %s %ldx%ld in blocks of %.1f s: "
             "%.1f W -> %.1f W, last change %+.2f%% (power.settle_rel %.2f%%): %s", secs,
             p->k->name, p->rows, p->cols, block_ms * 1e-3, st.first, st.prev,
             100 * st.change, 100 * pc->settle_rel, how);
    if (!ctx->quiet)
        note("power: warmed %s", res->settle);
}

void tb_runner_sweep(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                     struct tb_runner_result *res)
{
    memset(res, 0, sizeof(*res));
    struct buffers buf = { 0 };
    double copy_gbps = NAN;
    size_t copy_size = (size_t)-1;
    struct pending *grp = calloc(ROUND_GROUP, sizeof(*grp));
    if (!grp) {
        error("out of memory for the sweep's group of points");
        res->aborted = true;
        return;
    }
    if (ctx->be->watch)
        ctx->be->watch(ctx->be_st, ctx->stop);
    double clock0 = !isnan(ctx->max_clock_mhz) && ctx->max_clock_mhz > 0 ? ctx->max_clock_mhz
                                                                        : start_clock(ctx->be, ctx->be_st);
    struct tb_ceiling ceiling;
    tb_ceiling_read(&ctx->cfg->board, NULL, &ceiling);
    /* a step's EMC cap bounds its memory, whatever the mode's table says; read as it
     * settled, since a normal user has no live EMC clock to show it (#31 review) */
    if (ctx->step)
        tb_ceiling_step_cap(&ctx->cfg->board, ctx->step->emc_cap_mhz,
                            ctx->step->emc_cap_asked_mhz > 0, &ceiling);
    res->idle_w = measure_idle(ctx, &res->idle_ci);
    res->idle_after_w = res->idle_after_ci = NAN;
    if (ctx->sampler) {
        say_cadence(ctx, n, res);
        settle(ctx, pts, n, &buf, res);
    }
    double t_begin = tb_now_s();
    size_t i = 0, group = ctx->sampler && ctx->cfg->board.power.rounds > 1 ? ROUND_GROUP : 1;
    bool stop_sweep = false;
    while (i < n && !*ctx->stop && !stop_sweep) {
        size_t g = 0;
        while (i < n && g < group && !*ctx->stop && !stop_sweep) {
            const struct tb_point *p = &pts[i];
            if (g && p->size_index != grp[0].p->size_index)
                break;
            if (ctx->deadline_ns && tb_now_ns() > ctx->deadline_ns) {
                res->not_run = n - i;
                stop_sweep = true;
                break;
            }
            if (p->size_index != copy_size) {
                copy_gbps = NAN;
                copy_size = p->size_index;
            }
            progress(ctx, i, n, p, tb_now_s() - t_begin);
            struct pending *pe = &grp[g++];
            memset(pe, 0, sizeof(*pe));
            pe->p = p;
            pe->index = i++;
            if (first_pass(ctx, pe, &buf, &copy_gbps, clock0, res) < 0) {
                res->not_run = n - i;   /* the end line counts what the loss cost */
                stop_sweep = true;
            }
        }
        if (!stop_sweep && ctx->sampler)
            more_rounds(ctx, grp, g, &buf, res);
        if (res->aborted && !stop_sweep) {
            res->not_run = n - i;   /* the device was lost in the rounds */
            stop_sweep = true;
        }
        if (write_group(ctx, grp, g, &ceiling, res) < 0)
            break;
    }
    free(grp);
    if (*ctx->stop)
        res->interrupted = true;
    if (ctx->progress)
        fprintf(stderr, "\r\033[K");
    buffers_free(ctx->be, ctx->be_st, &buf);
    if (!res->log_failed)
        tb_csvlog_meta(ctx->log, TB_META(ceiling), "%.1f GB/s (%s): %s", ceiling.gbps,
                       ceiling.source, ceiling.why);
    if (ctx->sampler && !res->log_failed) {
        if (!*ctx->stop)
            res->idle_after_w = measure_idle(ctx, &res->idle_after_ci);
        log_power_run(ctx, res);
    }
}

void tb_runner_result_free(struct tb_runner_result *res)
{
    free(res->rows);
    res->rows = NULL;
    res->n_rows = 0;
}
