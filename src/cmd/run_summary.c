/* run_summary.c: see run_summary.h. A point that does not count as a result (tb_log_usable:
 * wrong output, not measured) shows no figures here; the log keeps them. Text from a row
 * (a kernel, a status) goes through the table writer, so it never puts a control character
 * on the terminal. */
#include "cmd/run_summary.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "format/table.h"
#include "report/alarm_night.h"
#include "lib/bounded.h"
#include "lib/clock.h"
#include "lib/lock.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "lib/watchdog.h"

/* The fastest row that counts among rows [from, to) of one size, of a transpose (not a
 * copy, not a vendor's): the `best` row's; NULL when none counts. */
static const struct tb_log_rec *fastest(const struct tb_runner_result *res, size_t from, size_t to)
{
    const struct tb_log_rec *b = NULL;
    for (size_t i = from; i < to; i++) {
        const struct tb_log_rec *s = &res->rows[i];
        const struct tb_kernel *k = tb_kernel_find(s->kernel, TB_BACKEND_CUDA);
        if (!k)
            k = tb_kernel_find(s->kernel, TB_BACKEND_CPU);
        if (k && !(k->flags & (TB_KF_COPY | TB_KF_VENDOR)) && tb_log_usable(s) &&
            isfinite(s->gbps) && (!b || s->gbps > b->gbps))
            b = s;
    }
    return b;
}

/* One point's row; `chosen`: the kernel a `best` row names, NULL for a point's own row. */
static void point_row(struct tb_table *t, const struct tb_log_rec *s, const char *chosen)
{
    bool counts = tb_log_usable(s);
    char blk[24] = "-";
    if (s->bx)
        snprintf(blk, sizeof(blk), "%dx%d", s->bx, s->by);
    /* GB/s as the log holds it (2 decimals), then shown with 1: compare, reading the
     * log, shows the same figure (rounding the raw value once gave 2.9 here, 3.0 there) */
    double gbps = counts && isfinite(s->gbps) ? round(s->gbps * 100) / 100 : NAN;
    struct tb_cell c[] = { TB_TEXT(s->power_mode), TB_NUM(s->gpu_cap_mhz),
                           TB_NUM(s->emc_cap_mhz), TB_TEXT(chosen ? "best" : s->kernel),
                           TB_TEXT(chosen ? chosen : ""), TB_TEXT(blk), TB_NUM(gbps),
                           TB_NUM(counts ? s->frac_copy : NAN),
                           TB_NUM(counts ? s->frac_peak : NAN),
                           TB_NUM(counts ? s->gbps_per_w : NAN),
                           TB_TEXT(tb_verified_name(s->verified)),
                           TB_TEXT(tb_status_name(s->status)) };
    tb_table_row(t, c);
}

/* Per size, each point's figures; with_best: then the size's `best` row (--kernels best). */
static void print_points(const struct tb_runner_result *res, bool with_power, bool with_modes,
                         bool with_best)
{
    struct tb_table_col cols[] = {
        /* a mode sweep's rows of one point, one per step: which is which */
        { .name = "power_mode", .head = "power mode", .kind = 'S', .width = 16, .cut = true,
          .data_only = !with_modes },
        { .name = "gpu_cap_asked_mhz", .head = "GPU cap", .kind = 'N', .dec = 0, .width = 7,
          .data_only = !with_modes },
        { .name = "emc_cap_asked_mhz", .head = "EMC cap", .kind = 'N', .dec = 0, .width = 7,
          .data_only = !with_modes },
        { .name = "kernel", .head = "kernel", .kind = 'S', .width = 16 },
        { .name = "chosen", .head = "chosen", .kind = 'S', .width = 10, .data_only = !with_best },
        { .name = "block", .head = "block", .kind = 'S', .width = 9 },
        { .name = "gbps", .head = "GB/s", .kind = 'N', .dec = 1, .width = 10 },
        { .name = "frac_copy", .head = "of copy", .kind = 'N', .dec = 3, .width = 8 },
        { .name = "frac_peak", .head = "of peak", .kind = 'N', .dec = 3, .width = 8 },
        { .name = "gbps_per_w", .head = "GB/s/W", .kind = 'N', .dec = 3, .width = 8,
          .data_only = !with_power },
        { .name = "verified", .head = "verified", .kind = 'S', .width = 8 },
        { .name = "status", .head = "status", .kind = 'S' },
    };
    struct tb_doc d;
    struct tb_table t;
    tb_doc_begin(&d, stdout, TB_FMT_TABLE, "run");
    tb_table_begin(&t, &d, "points", "", cols, ARRAY_SIZE(cols));
    size_t from = 0;
    for (size_t i = 0; i < res->n_rows; i++) {
        const struct tb_log_rec *s = &res->rows[i];
        if (i == 0 || s->rows != res->rows[i - 1].rows || s->cols != res->rows[i - 1].cols) {
            char h[64];
            snprintf(h, sizeof(h), "%ld x %ld", s->rows, s->cols);
            tb_table_section(&t, h);
            from = i;
        }
        point_row(&t, s, NULL);
        bool last = i + 1 == res->n_rows || res->rows[i + 1].rows != s->rows ||
                    res->rows[i + 1].cols != s->cols;
        const struct tb_log_rec *b = with_best && last ? fastest(res, from, i + 1) : NULL;
        if (b)
            point_row(&t, b, b->kernel);
    }
    tb_table_end(&t);
    tb_doc_end(&d);
}

int tb_run_summary(const struct tb_runner_result *res, const char *power_source,
                   bool with_modes, bool with_best, const char *log_path)
{
    print_points(res, power_source != NULL, with_modes, with_best);
    if (power_source && !isnan(res->energy.idle_w))
        printf("\nidle power %.2f W (%s)\n", res->energy.idle_w, power_source);
    printf("\n%zu ok, %zu failed, %zu verification failures, %zu skipped\n", res->ok,
           res->failed, res->verify_failed, res->skipped);
    if (log_path)
        printf("log: %s\n", log_path);
    if (fflush(stdout) != 0 || ferror(stdout)) {   /* a summary lost to a full disk */
        error("cannot write the summary: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

/* ---- run --metrics: the night's headline figures for Prometheus ---------------------- */

static bool same_num(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

/* One series per kernel, size, element and mode-sweep step (its mode and caps). */
static bool same_series(const struct tb_log_rec *a, const struct tb_log_rec *b)
{
    return !strcmp(a->kernel, b->kernel) && a->rows == b->rows && a->cols == b->cols &&
           !strcmp(a->elem, b->elem) && !strcmp(a->power_mode, b->power_mode) &&
           same_num(a->gpu_cap_mhz, b->gpu_cap_mhz) && same_num(a->emc_cap_mhz, b->emc_cap_mhz);
}

static struct tb_om_series om_series(const struct tb_log_rec *r)
{
    bool ci = isfinite(r->energy_ratio) && isfinite(r->energy_ratio_rerun_ci95);
    return (struct tb_om_series){
        .device = r->device, .device_id = r->device_id, .kernel = r->kernel, .elem = r->elem, .power_mode = r->power_mode,
        .rows = r->rows, .cols = r->cols,
        .gpu_cap_mhz = r->gpu_cap_mhz, .emc_cap_mhz = r->emc_cap_mhz,
        .gbps = r->gbps, .frac_copy = r->frac_copy, .energy_ratio = r->energy_ratio,
        .energy_ratio_lo = ci ? r->energy_ratio - r->energy_ratio_rerun_ci95 : NAN,
        .energy_ratio_hi = ci ? r->energy_ratio + r->energy_ratio_rerun_ci95 : NAN,
        .j_per_gb = r->j_per_gb,
    };
}

/* An existing file at the metrics name that holds something and does not start as this
 * tool's metrics do (openmetrics.c: "# HELP transpose_bench_"): a file of someone's, such as
 * a sweep file the night's sweep @includes, which the run reads and never replaces (#58). */
static bool foreign_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return false;   /* free, or a link (a name replaced, never followed) */
    static const char ours[] = "# HELP transpose_bench_";
    char head[sizeof(ours)] = "";
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof(ours) - 1)
                                                           : 0;
    close(fd);
    return n > 0 && ((size_t)n < sizeof(ours) - 1 || memcmp(head, ours, sizeof(ours) - 1));
}

/* The metrics file's folder: there and a folder this user may write, or -1 said (found at
 * the start, exit 2, not after the night, #58). */
static int metrics_dir_ok(const char *path)
{
    char dir[PATH_MAX];
    tb_strlcpy(dir, path, sizeof(dir));
    char *slash = strrchr(dir, '/');
    if (!slash)
        tb_strlcpy(dir, ".", sizeof(dir));
    else
        slash[slash == dir] = '\0';
    struct stat st;
    if (stat(dir, &st) < 0)
        return error("run: --metrics '%s': its folder '%s': %s: refused before the run (make "
                     "the folder first)", path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return error("run: --metrics '%s': '%s' is not a folder: refused before the run",
                     path, dir);
    if (access(dir, W_OK | X_OK) < 0)
        return error("run: --metrics '%s': cannot write in its folder '%s': %s: refused "
                     "before the run", path, dir, strerror(errno));
    /* the write itself, tried: access() says yes to root where no file can be made (procfs:
     * --metrics /proc/self/fd/1 passed and failed only after the night, #58); our own
     * temporary, made as the file will be (lib/outfile.h) and removed at once */
    char tmp[PATH_MAX + 16];
    int fd = tb_outfile_tmp(path, tmp, sizeof(tmp));
    if (fd < 0)
        return error("run: --metrics '%s': cannot make a file in its folder '%s': %s: "
                     "refused before the run", path, dir, strerror(errno));
    close(fd);
    unlink(tmp);
    return 0;
}

int tb_run_metrics_check(const char *path, const char *sweep_path, const char *board_path)
{
    if (!path || !path[0])
        return 0;
    const char *lock = tb_lock_path();
    const char *ins[] = { sweep_path, board_path, lock[0] ? lock : NULL };
    if (tb_outfile_check("run", &path, 1, ins, ARRAY_SIZE(ins)) < 0)
        return -1;
    if (foreign_file(path))
        return error("run: --metrics '%s' is an existing file that is no metrics file of this "
                     "tool's (its first line is not '# HELP transpose_bench_...'): refused (it "
                     "may be a file the run reads, a sweep file it @includes; give another "
                     "name)", path);
    return metrics_dir_ok(path);
}

/* Tests: called on the regression state's thread before it reads (a stuck file system's
 * stand-in); a test program defines its own, the shipped tool has this empty one. */
void tb_metrics_test_stall(void);
__attribute__((weak)) void tb_metrics_test_stall(void)
{
}

struct state_job {
    char *log_path, *board;
    struct tb_alarm_night *an;
    char why[PATH_MAX + 128];
};

static void state_job_free(void *arg)
{
    struct state_job *j = arg;
    tb_alarm_night_free(j->an);
    free(j->log_path);
    free(j->board);
    free(j);
}

static void state_job_run(void *arg)
{
    struct state_job *j = arg;
    tb_metrics_test_stall();
    j->an = tb_alarm_night(j->log_path, j->board, j->why, sizeof(j->why));
}

/* The regression state of log_path's series, read within the limit and while no signal
 * asks to stop (NULL: none, or not read: why says, else it is ""). */
static struct tb_alarm_night *state_bounded(const char *log_path, const char *board, char *why,
                                            size_t n, const volatile sig_atomic_t *stop)
{
    struct state_job *j = calloc(1, sizeof(*j));
    if (j) {
        j->log_path = strdup(log_path);
        j->board = strdup(board);
    }
    if (!j || !j->log_path || !j->board) {
        if (j)
            state_job_free(j);
        snprintf(why, n, "out of memory");
        return NULL;
    }
    double limit = fmin(TB_METRICS_STATE_LIMIT_S, tb_watch_seconds(TB_WATCH_CALL));
    int rc = tb_bounded_call(state_job_run, j, state_job_free, limit, stop);
    char how[128];
    if (rc == -ETIMEDOUT || rc == -EINTR) {
        snprintf(why, n, "the earlier logs in the folder of '%.*s' were not read %s", 1024,
                 log_path, tb_bounded_why(rc, limit, how, sizeof(how)));
        return NULL;
    }
    if (rc < 0) {
        snprintf(why, n, "cannot start a thread: %s", strerror(-rc));
        return NULL;
    }
    struct tb_alarm_night *an = j->an;
    j->an = NULL;
    tb_strlcpy(why, j->why, n);
    state_job_free(j);
    return an;
}

int tb_run_metrics(const struct tb_config *cfg, const char *host, const char *device,
                   const char *device_id, const char *end, bool ok,
                   const struct tb_runner_result *res, const char *log_path,
                   const volatile sig_atomic_t *stop)
{
    const char *path = cfg->sweep.metrics_file, *board = cfg->board.name;
    if (!path || !path[0])
        return 0;
    struct tb_om_night night = {
        .board = board, .host = host, .device = device, .device_id = device_id,
        .end = end, .ok = ok,
        .seconds = (double)(tb_now_ns() - res->t_start_ns) / 1e9,
        .ok_points = res->ok, .failed_points = res->failed,
        .verify_failed_points = res->verify_failed, .skipped_points = res->skipped,
    };
    /* each series' best row: the highest GB/s among the rows that count (tb_log_usable),
     * the block shape compare calls best; its energy figures are that row's */
    const struct tb_log_rec **best = calloc(res->n_rows + 1, sizeof(*best));
    struct tb_om_series *s = calloc(res->n_rows + 1, sizeof(*s));
    size_t n = 0;
    if (!best || !s) {
        free(best);
        free(s);
        return error("run: cannot write '%s': out of memory", path);
    }
    for (size_t i = 0; i < res->n_rows; i++) {
        const struct tb_log_rec *r = &res->rows[i];
        if (!tb_log_usable(r))
            continue;
        size_t j = 0;
        while (j < n && !same_series(best[j], r))
            j++;
        if (j == n)
            best[n++] = r;
        else if (r->gbps > best[j]->gbps)
            best[j] = r;
    }
    for (size_t j = 0; j < n; j++)
        s[j] = om_series(best[j]);
    char why[PATH_MAX + 128] = "";
    struct tb_alarm_night *an = log_path && log_path[0]
                                ? state_bounded(log_path, board, why, sizeof(why), stop) : NULL;
    if (why[0])   /* the figures are written still; the state is missing, and said */
        warning("run: --metrics: no regression state: %s", why);
    night.alarms = tb_alarm_night_states(an, &night.nalarms);
    night.alarms_missing = why[0] ? why : NULL;
    int rc = tb_openmetrics_file("run", path, &night, s, n);
    tb_alarm_night_free(an);
    free(best);
    free(s);
    return rc;
}
