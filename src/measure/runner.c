/* runner.c: see runner.h. Order per point: fresh input, poisoned output, one checked
 * launch, warm-up, timed repetitions until the stopping rule holds. With a power source,
 * a size's points wait for its energy (runner_energy.h: the energy half gives the meter
 * their load; it calls nothing here) and are written together. Buffers (point_buffers.c)
 * are kept while the size stays the same. */
#include "measure/runner.h"
#include "measure/runner_energy.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/ceiling.h"
#include "measure/point_buffers.h"
#include "energy/door.h"
#include "log/log_meta.h"
#include "pattern.h"
#include "power/power.h"
#include "log/outcome.h"
#include "lib/stats.h"
#include "lib/util.h"

#define THROTTLE_FRACTION 0.85

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
static const char *fits(const struct tb_device_info *dev, size_t bytes)
{
    if (!dev->l2_bytes)
        return "";
    return 2 * bytes <= dev->l2_bytes ? "yes" : "no";
}

/* Fresh input, poisoned output, the checked launch and its verification, the warm-up.
 * Returns 0, or the backend error (or -EINTR) that ended it, with *step saying where. */
static int prepare_point(struct tb_runner_ctx *ctx, const struct tb_point *p,
                         struct tb_point_buffers *buf, struct tb_launch *l, uint64_t seed,
                         struct tb_rn_out *o, const char **step)
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

/* The repetitions' times against the wall time they took: a timer whose sum is longer than
 * the wall clock lies (a bimodal GPU timer, 1e-6 and 1e6 ms, gave ok rows with a 500 s
 * median from 0.09 s). The row is an error that says so; true when it is. */
#define TIMER_SLACK_MS 1.0
static bool timer_lies(const struct tb_stats *st, double wall_ms, struct tb_rn_out *o)
{
    double sum = st->mean * (double)st->n;
    if (!(sum > 1.25 * wall_ms + TIMER_SLACK_MS) && isfinite(sum) && st->min >= 0)
        return false;
    o->row.status = TB_STATUS_ERROR;
    o->row.reps = (long long)st->n;
    snprintf(o->note, sizeof(o->note), "the timer says %.6g ms over %zu repetitions (min %.3g, "
             "max %.3g ms), which took %.3g ms of wall time: the timer is not to be trusted",
             sum, st->n, st->min, st->max, wall_ms);
    return true;
}

/* Timed repetitions until the stopping rule holds, then the row's timing, bandwidth and clock
 * figures. *median_ms gets the median; 1 when a signal stopped it (the row says so). */
static int time_point(struct tb_runner_ctx *ctx, const struct tb_point *p, struct tb_launch *l,
                      double moved, double copy_gbps, double start_clock, struct tb_rn_out *o,
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
    int64_t t_start = tb_now_ns(), wall0 = tb_real_now_ns();
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
    double wall_ms = (double)(tb_real_now_ns() - wall0) * 1e-6;
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
    if (timer_lies(&st, wall_ms, o))
        return 0;
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

/* The ceiling the point is judged against: the live EMC clock of its energy blocks, else
 * the run's (nvpmodel cap or board file; in a mode step, the EMC cap read back when lower);
 * frac_peak follows it. */
static void judge_ceiling(const struct tb_runner_ctx *ctx, const struct tb_ceiling *run,
                          struct tb_rn_out *o)
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
static void judge_throttle(struct tb_runner_ctx *ctx, struct tb_rn_out *o)
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
    if (end.unread[0]) {   /* a zone the scan could not read: max_temp_c may miss it */
        size_t len = strlen(o->note);
        snprintf(o->note + len, sizeof(o->note) - len, "%sthermal zones unread (max_temp_c "
                 "without them; the thermal_unread line names them)", len ? "; " : "");
    }
}

/* One point: buffers, check, timing; a failure is recorded in the row (status and the step
 * it failed in), a signal as "interrupted". Returns 0, or the backend error that ended it
 * (the row says which). pe gets the launch's time and bytes, for the energy blocks. */
static int run_point(struct tb_runner_ctx *ctx, const struct tb_point *p,
                     struct tb_point_buffers *buf, double copy_gbps, double start_clock,
                     struct tb_rn_pending *pe)
{
    struct tb_rn_out *o = &pe->o;
    size_t index = pe->index;
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
    int rc = tb_point_buffers_get(be, ctx->be_st, buf, p->rows, p->cols, bytes, s->verify);
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
    pe->moved = moved;
    pe->median_ms = median_ms;
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
                         const struct tb_rn_out *o, struct tb_point_buffers *buf,
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
    tb_point_buffers_free(ctx->be, ctx->be_st, buf);
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
                       struct tb_rn_out *o, struct tb_runner_result *res)
{
    o->row.status = TB_STATUS_SKIPPED;
    snprintf(o->note, sizeof(o->note), "%s", p->why);
    if (!ctx->quiet)
        note("skipping %s %ldx%ld block %dx%d: %s", p->k->name, p->rows, p->cols, p->bx, p->by,
             p->why);
    res->skipped++;
}

/* ---- sizes --------------------------------------------------------------------------
 * With a power source, a size's points are checked and timed, then the meter measures the
 * energy of those power.points picks in interleaved blocks, then the size's rows are
 * written, in order. A signal writes what the size has (power_note says what the blocks
 * measured); a SIGKILL loses at most the size being measured (doc/reliability.md). Without
 * power each row is written at once. */
/* One point checked and timed. Returns -1 when the device is lost for good (the sweep
 * stops after writing its size), else 0. */
static int first_pass(struct tb_runner_ctx *ctx, struct tb_rn_pending *pe,
                      struct tb_point_buffers *buf, double *copy_gbps, double clock0,
                      struct tb_runner_result *res)
{
    const struct tb_point *p = pe->p;
    struct tb_rn_out *o = &pe->o;
    struct tb_row *r = &o->row;
    row_start(ctx, p, r);
    o->emc_mhz = NAN;
    int rc = 0;
    if (p->skip) {
        skip_point(ctx, p, o, res);
    } else {
        tb_throttle_snap(NULL, &o->start);
        rc = run_point(ctx, p, buf, *copy_gbps, clock0, pe);
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
    } else if (!p->skip && r->status == TB_STATUS_ERROR) {
        res->failed++;   /* a timer that lies (time_point) */
        error("point %zu (%s %ldx%ld block %dx%d): %s", pe->index + 1, p->k->name, p->rows,
              p->cols, p->bx, p->by, o->note);
    } else if (!p->skip && !interrupted) {
        res->ok++;
    }
    return 0;
}

/* The size's rows, in order, judged against the ceiling; an interrupted point's row is not
 * written (its note said so on stderr). -1 when the log cannot be written. */
static int write_group(struct tb_runner_ctx *ctx, struct tb_rn_pending *grp, size_t g,
                       const struct tb_ceiling *ceiling, struct tb_runner_result *res)
{
    for (size_t j = 0; j < g; j++) {
        struct tb_rn_pending *pe = &grp[j];
        struct tb_row *r = &pe->o.row;
        if (!pe->p->skip && r->power_cycles > 0)
            judge_throttle(ctx, &pe->o);   /* again: its energy blocks too */
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

/* The energy of a size's points, and what a load that failed cost: a context lost for good
 * ends the sweep (-1). */
static int size_energy(struct tb_runner_ctx *ctx, struct tb_rn_pending *grp, size_t g,
                       struct tb_point_buffers *buf, struct tb_runner_result *res)
{
    int rc = tb_rn_power_size(ctx, grp, g, buf, res);
    if (!rc || *ctx->stop)
        return 0;
    error("energy blocks of %ldx%ld: %s", grp[0].p->rows, grp[0].p->cols,
          ctx->be->errstr(ctx->be_st, rc));
    if (!ctx->be->is_fatal(rc))
        return 0;
    buf->in = buf->out = NULL;   /* gone with the context */
    tb_point_buffers_free(ctx->be, ctx->be_st, buf);
    if (ctx->be->recover(ctx->be_st) == 0)
        return 0;
    res->aborted = true;
    return -1;
}

/* The points of one size from pts[i] on (a group of one without power): checked, timed,
 * their energy measured, their rows written. Returns the next index; sw->stop set when
 * the device is lost, the deadline passed or the log failed. */
struct sweep_state {
    double clock0, copy_gbps;     /* the start's clock; the copy's GB/s at this size */
    size_t copy_size;             /* the size copy_gbps is of */
    bool stop;                    /* the device lost, the deadline passed, the log failed */
};

static size_t one_size(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n, size_t i,
                       struct tb_rn_pending *grp, struct tb_point_buffers *buf,
                       const struct tb_ceiling *ceiling, struct tb_runner_result *res,
                       struct sweep_state *sw)
{
    bool *stop_sweep = &sw->stop;
    size_t g = 0, first = i;
    if (pts[i].size_index != sw->copy_size) {
        sw->copy_gbps = NAN;
        sw->copy_size = pts[i].size_index;
    }
    while (i < n && !*ctx->stop && !*stop_sweep) {
        const struct tb_point *p = &pts[i];
        if (p->size_index != pts[first].size_index || (!ctx->sampler && g))
            break;
        if (ctx->deadline_ns && tb_now_ns() > ctx->deadline_ns) {
            res->not_run = n - i;
            *stop_sweep = true;
            break;
        }
        progress(ctx, i, n, p, tb_now_s() - res->t_begin_s);
        struct tb_rn_pending *pe = &grp[g++];
        memset(pe, 0, sizeof(*pe));
        pe->p = p;
        pe->index = i++;
        if (first_pass(ctx, pe, buf, &sw->copy_gbps, sw->clock0, res) < 0) {
            res->not_run = n - i;   /* the end line counts what the loss cost */
            *stop_sweep = true;
        }
    }
    if (!*stop_sweep && ctx->energy && size_energy(ctx, grp, g, buf, res) < 0) {
        res->not_run = n - i;
        *stop_sweep = true;
    }
    if (write_group(ctx, grp, g, ceiling, res) < 0)
        *stop_sweep = true;
    return i;
}

/* Points of the largest size: the rows a size holds until its energy is measured. */
static size_t largest_size(const struct tb_point *pts, size_t n)
{
    size_t most = 1, run = 0;
    for (size_t i = 0; i < n; i++) {
        run = i && pts[i].size_index == pts[i - 1].size_index ? run + 1 : 1;
        most = run > most ? run : most;
    }
    return most;
}

void tb_runner_sweep(struct tb_runner_ctx *ctx, const struct tb_point *pts, size_t n,
                     struct tb_runner_result *res)
{
    memset(res, 0, sizeof(*res));
    res->energy.idle_w = res->energy.idle_ci = NAN;
    res->energy.idle_after_w = res->energy.idle_after_ci = NAN;
    struct tb_point_buffers buf = { 0 };
    struct tb_rn_pending *grp = calloc(ctx->sampler ? largest_size(pts, n) : 1, sizeof(*grp));
    if (!grp) {
        error("out of memory for the sweep's points of one size");
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
    if (ctx->step) {   /* a cap asked whose file this user may not read: the cap written */
        bool unread = isnan(ctx->step->emc_cap_mhz) && ctx->step->emc_cap_asked_mhz > 0;
        tb_ceiling_step_cap(&ctx->cfg->board, unread ? ctx->step->emc_cap_asked_mhz
                            : ctx->step->emc_cap_mhz, unread ? TB_STEP_CAP_ASKED_UNREAD
                            : ctx->step->emc_cap_asked_mhz > 0, &ceiling);
    }
    if (!res->t_start_ns)   /* the night's start: its first sweep's (a mode sweep's step 1) */
        res->t_start_ns = tb_now_ns();
    if (ctx->sampler)
        tb_rn_power_begin(ctx, pts, n, &buf, res);
    res->t_begin_s = tb_now_s();
    size_t i = 0;
    struct sweep_state sw = { clock0, NAN, (size_t)-1, false };
    while (i < n && !*ctx->stop && !sw.stop)
        i = one_size(ctx, pts, n, i, grp, &buf, &ceiling, res, &sw);
    free(grp);
    if (*ctx->stop)
        res->interrupted = true;
    if (ctx->progress)
        fprintf(stderr, "\r\033[K");
    tb_point_buffers_free(ctx->be, ctx->be_st, &buf);
    if (!res->log_failed)
        tb_csvlog_meta(ctx->log, TB_META(ceiling), "%.1f GB/s (%s): %s", ceiling.gbps,
                       ceiling.source, ceiling.why);
    if (ctx->sampler && !res->log_failed)
        tb_rn_power_end(ctx, res);
}

void tb_runner_ctx_end(struct tb_runner_ctx *ctx)
{
    tb_energy_free(ctx->energy);
    ctx->energy = NULL;
}

void tb_runner_result_free(struct tb_runner_result *res)
{
    free(res->rows);
    res->rows = NULL;
    res->n_rows = 0;
}
