/* runner.c: see runner.h. Order per point: fresh input, poisoned output, one checked
 * launch, warm-up, timed repetitions until the stopping rule holds, then (with a power
 * source) a window of back-to-back launches that the sampler's readings are integrated
 * over. Buffers are kept while the size stays the same. */
#include "runner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ceiling.h"
#include "log_meta.h"
#include "pattern.h"
#include "power/power.h"
#include "power/throttle.h"
#include "stats.h"
#include "util.h"

#define THROTTLE_FRACTION 0.85

struct buffers {
    long rows, cols;
    void *in, *out;
    void *host;           /* download target for verification */
    size_t bytes;
};

static void buffers_free(const struct tb_backend *be, struct buffers *b)
{
    if (b->in)
        be->free(b->in);
    if (b->out)
        be->free(b->out);
    free(b->host);
    memset(b, 0, sizeof(*b));
}

/* Allocates input and output for a size, unless they are already there. */
static int buffers_get(const struct tb_backend *be, struct buffers *b, long rows, long cols,
                       size_t bytes, bool verify)
{
    if (b->in && b->rows == rows && b->cols == cols && (!verify || b->host))
        return 0;
    buffers_free(be, b);
    int rc = be->alloc(bytes, &b->in);
    if (rc == 0)
        rc = be->alloc(bytes, &b->out);
    if (rc == 0 && verify && !(b->host = malloc(bytes)))
        rc = -ENOMEM;
    if (rc) {
        buffers_free(be, b);
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
    struct timespec ts = { (time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
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
    while (!*ctx->stop && waited < IDLE_CAP_MS) {
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
    if (!tb_quiet)
        note("power: sensor updates every %s; %zu points: at least %.0f s of power windows",
             res->cadence, points, (double)points * res->window_ms * 1e-3);
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
}

/* ---- one point -------------------------------------------------------------------- */

struct point_out {
    struct tb_row row;
    char note[512];
    char power_note[160];
    double emc_mhz;               /* the EMC clock read in the power window; NAN: none */
    struct tb_throttle_snap start;   /* boards' throttle counters at the point's start */
    char cause[128];
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
    struct tb_row *r = &o->row;
    size_t count = (size_t)p->rows * (size_t)p->cols, bytes = count * (size_t)s->elem_size;
    int rc;
    *step = "filling the input";
    if ((rc = be->fill_pattern(buf->in, count, s->elem_size, seed)))
        return rc;
    r->verified = TB_VERIFIED_NA;
    if (s->verify) {
        *step = "poisoning the output";
        if ((rc = be->fill_bytes(buf->out, 0xFF, bytes)))
            return rc;
        *step = "the checked launch";
        if ((rc = be->launch(p->k, l)) || (rc = be->sync()))
            return rc;
        *step = "reading the output back";
        if ((rc = be->download(buf->host, buf->out, bytes)))
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
        if ((rc = be->launch(p->k, l)))
            return rc;
    if ((rc = be->sync()))
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
    be->sm_clock_mhz(&clk0);
    int64_t t_start = tb_now_ns();
    *step = "a timed repetition";
    bool cold = !strcmp(s->cache, "cold");
    int rc = 0;
    while (why == TB_GO_ON && !*ctx->stop) {
        double ms;
        if ((cold && (rc = be->flush_cache())) || (rc = be->timed(p->k, l, &ms)))
            break;
        times[run.n] = ms;
        tb_running_add(&run, ms);
        why = tb_stop_check(&rule, &run, (double)(tb_now_ns() - t_start) * 1e-6);
    }
    be->sm_clock_mhz(&clk1);
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

/* The energy figures per byte and per GB/s of a window, with their intervals: every one
 * scales with the window's power, so its relative interval is the power's (the timing and
 * the bytes are exact by comparison); the dynamic figure adds the idle interval. */
static void per_byte(struct tb_row *r, const struct tb_power_figures *f, double secs,
                     double idle_ci)
{
    double wgbps = r->window_bytes / secs / 1e9, rel = f->total_w_ci / r->power_total_w;
    r->power_total_w_ci95 = f->total_w_ci;
    r->gbps_per_w = tb_ratio(wgbps, r->power_total_w);
    r->gbps_per_w_ci95 = r->gbps_per_w * rel;
    r->gbps_per_w_gpu = tb_ratio(wgbps, r->power_gpu_w);
    r->j_per_gb = tb_ratio(r->power_total_w, wgbps);
    r->j_per_gb_ci95 = r->j_per_gb * rel;
    double above = r->power_total_w - r->power_idle_w;
    r->dyn_pj_per_byte = r->window_bytes > 0 ? above * secs / r->window_bytes * 1e12 : NAN;
    r->dyn_pj_per_byte_ci95 = hypot(f->total_w_ci, idle_ci) * secs / r->window_bytes * 1e12;
}

/* The power window: back-to-back launches for as long as the sensor's cadence asks
 * (window.c), timed by the host clock around syncs, and the power module's figures for it. */
static int power_window(struct tb_runner_ctx *ctx, const struct tb_point *p, struct tb_launch *l,
                        double moved, double median_ms, const struct tb_runner_result *res,
                        struct point_out *o, const char **step)
{
    const struct tb_power_cfg *pc = &ctx->cfg->board.power;
    const struct tb_backend *be = ctx->be;
    struct tb_row *r = &o->row;
    long chunk = (long)(20.0 / (median_ms > 0 ? median_ms : 1e-3)) + 1;   /* a sync every 20 ms */
    long launches = 0;
    int rc;
    *step = "the power window";
    int64_t t0 = tb_now_ns(), deadline = t0 + (int64_t)(res->window_ms * 1e6);
    while (tb_now_ns() < deadline && !*ctx->stop) {
        for (long i = 0; i < chunk; i++)
            if ((rc = be->launch(p->k, l)))
                return rc;
        launches += chunk;
        if ((rc = be->sync()))
            return rc;
    }
    int64_t t1 = tb_now_ns();
    sleep_ms(tb_power_settle_ms(ctx->sampler));   /* the reading that closes the window */
    struct tb_power_figures f;
    tb_power_over(ctx->sampler, pc, t0, t1, &f);
    double secs = (double)(t1 - t0) * 1e-9;
    r->window_ms = secs * 1e3;
    r->window_bytes = moved * (double)launches;
    r->power_source = tb_sampler_source(ctx->sampler);
    const struct tb_power_rails *rails = tb_sampler_rails(ctx->sampler);
    r->rail_total = pc->total_rail[0] ? pc->total_rail : rails->n ? rails->name[0] : NULL;
    r->rail_gpu = pc->gpu_rail[0] ? pc->gpu_rail : NULL;
    r->power_total_w = f.total_w;
    r->power_gpu_w = f.gpu_w;
    r->power_idle_w = res->idle_w;
    r->energy_j = f.energy_j;
    r->energy_counter_j = f.energy_counter_j;
    r->power_samples = (double)f.samples;
    r->power_updates = (double)f.updates;
    r->gpu_temp_c = f.gpu_temp_c;
    r->gpu_clock_mhz = f.gpu_clock_mhz;
    r->emc_clock_mhz = f.emc_clock_mhz;
    o->emc_mhz = f.emc_clock_mhz;
    power_health(ctx, &f, o);
    r->power_note = o->power_note;
    per_byte(r, &f, secs, res->idle_ci);
    return 0;
}

/* The ceiling the point is judged against: the live EMC clock of its window, else the
 * run's (nvpmodel cap or board file); frac_peak follows it. */
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
                     struct point_out *o, size_t index)
{
    const struct tb_sweep_cfg *s = &ctx->cfg->sweep;
    const struct tb_backend *be = ctx->be;
    struct tb_row *r = &o->row;
    size_t bytes = (size_t)p->rows * (size_t)p->cols * (size_t)s->elem_size;
    double moved = p->k->bytes_factor * (double)bytes;
    r->bytes = (long long)moved;
    r->fits_cache = fits(ctx->dev, bytes);
    r->cache = s->cache;
    const char *step = "allocating the matrices";
    int rc = buffers_get(be, buf, p->rows, p->cols, bytes, s->verify);
    if (rc) {
        snprintf(o->note, sizeof(o->note), "allocating 2 x %zu bytes: %s", bytes, be->errstr(rc));
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
    if (!rc && ctx->sampler && !tb_sampler_failed(ctx->sampler) && !*ctx->stop)
        rc = power_window(ctx, p, &l, moved, median_ms, res, o, &step);
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
             be->errstr(rc));
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

static double start_clock(const struct tb_backend *be)
{
    double best = NAN;
    for (int i = 0; i < 3; i++) {
        double mhz = NAN;
        be->sm_clock_mhz(&mhz);
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
    buffers_free(ctx->be, buf);
    int rrc = ctx->be->recover();
    if (rrc != 0) {
        /* CUDA documents illegal-address and similar errors as sticky: only a new
         * process gets a working context (seen on the H100, doc/reliability.md) */
        error("the device could not be recovered (reset: %s); stopping the sweep: "
              "the log keeps every completed row, and the next run starts afresh",
              ctx->be->errstr(rrc));
        res->aborted = true;
        return -1;
    }
    note("device reset; going on with the next point");
    return 0;
}

/* A point a rule excludes: a row that says why, and a note unless quiet. */
static void skip_point(const struct tb_point *p, struct point_out *o, struct tb_runner_result *res)
{
    o->row.status = TB_STATUS_SKIPPED;
    snprintf(o->note, sizeof(o->note), "%s", p->why);
    if (!tb_quiet)
        note("skipping %s %ldx%ld block %dx%d: %s", p->k->name, p->rows, p->cols, p->bx, p->by,
             p->why);
    res->skipped++;
}

int tb_runner_sweep(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                    struct tb_runner_result *res)
{
    memset(res, 0, sizeof(*res));
    struct buffers buf = { 0 };
    double copy_gbps = NAN;
    size_t copy_size = (size_t)-1;
    if (ctx->be->watch)
        ctx->be->watch(ctx->stop);
    double clock0 = !isnan(ctx->max_clock_mhz) && ctx->max_clock_mhz > 0 ? ctx->max_clock_mhz
                                                                        : start_clock(ctx->be);
    struct tb_ceiling ceiling;
    tb_ceiling_read(&ctx->cfg->board, NULL, &ceiling);
    res->idle_w = measure_idle(ctx, &res->idle_ci);
    res->idle_after_w = res->idle_after_ci = NAN;
    if (ctx->sampler)
        say_cadence(ctx, n, res);
    double t_begin = tb_now_s();
    size_t done = 0;
    for (size_t i = 0; i < n && !*ctx->stop; i++) {
        const struct tb_point *p = &pts[i];
        if (ctx->deadline_ns && tb_now_ns() > ctx->deadline_ns) {
            res->not_run = n - i;
            break;
        }
        struct point_out o;
        memset(&o, 0, sizeof(o));
        struct tb_row *r = &o.row;
        row_start(ctx, p, r);
        if (p->size_index != copy_size) {
            copy_gbps = NAN;
            copy_size = p->size_index;
        }
        progress(ctx, done, n, p, tb_now_s() - t_begin);
        int rc = 0;
        o.emc_mhz = NAN;
        if (p->skip) {
            skip_point(p, &o, res);
        } else {
            tb_throttle_snap(NULL, &o.start);
            rc = run_point(ctx, p, &buf, copy_gbps, clock0, res, &o, i);
            if ((p->k->flags & TB_KF_COPY_REF) && rc == 0)
                copy_gbps = r->gbps;
            judge_ceiling(ctx, &ceiling, &o);
            judge_throttle(ctx, &o);
        }
        char utc[32];
        r->note = o.note;
        tb_utc_stamp(utc, sizeof(utc), true);
        r->utc = utc;
        bool interrupted = r->status == TB_STATUS_INTERRUPTED;
        if (!interrupted) {
            if (tb_csvlog_row(ctx->log, r) < 0) {
                res->log_failed = true;
                break;
            }
            summary_add(res, r);
        }
        if (rc) {
            if (after_failure(ctx, p, i, rc, &o, &buf, res) < 0)
                break;
        } else if (!p->skip && tb_outcome_wrong(r->status, r->verified)) {
            res->verify_failed++;
            error("point %zu (%s %ldx%ld block %dx%d): verification failed: %s", i + 1,
                  p->k->name, p->rows, p->cols, p->bx, p->by, o.note);
        } else if (!p->skip && !interrupted) {
            res->ok++;
        }
        res->interrupted |= interrupted;
        done++;
    }
    if (*ctx->stop)
        res->interrupted = true;
    if (ctx->progress)
        fprintf(stderr, "\r\033[K");
    buffers_free(ctx->be, &buf);
    if (!res->log_failed)
        tb_csvlog_meta(ctx->log, TB_META(ceiling), "%.1f GB/s (%s): %s", ceiling.gbps,
                       ceiling.source, ceiling.why);
    if (ctx->sampler && !res->log_failed) {
        if (!*ctx->stop)
            res->idle_after_w = measure_idle(ctx, &res->idle_after_ci);
        log_power_run(ctx, res);
    }
    return 0;
}

void tb_runner_result_free(struct tb_runner_result *res)
{
    free(res->rows);
    res->rows = NULL;
    res->n_rows = 0;
}
