/* rerun.c: see rerun.h. The earlier runs come from the logs themselves, read as compare and
 * history read them (bounded, hostile files survived), so a board's nights teach its own
 * spread without a file of their own to keep or lose. */
#include "energy/rerun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "log/logread.h"
#include "log/retention.h"

struct tb_rerun {
    struct tb_logset set;
    size_t *start;                /* log k's rows: set.v[start[k] .. start[k + 1]) */
    bool *kept;                   /* log k ran these kernel images */
    char (*run_id)[128];          /* log k's run_id ("" none) */
    size_t nlogs;
};

struct tb_rerun *tb_rerun_learn(const char *dir, const char *host, const char *host_id,
                                const char *board, const char *images, char *line, size_t n)
{
    struct tb_rerun *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    tb_logset_init(&r->set, "rerun");
    /* read at every night's start, on a Nano too: a tune run's thousands of rows are not
     * what a point's nights are, and 100000 rows are about 75 MB */
    r->set.max_rows_per_log = TB_RERUN_MAX_ROWS_PER_LOG;
    r->set.max_rows = TB_RERUN_MAX_ROWS;
    r->set.max_bytes_per_log = TB_RERUN_MAX_BYTES_PER_LOG;   /* a gzip bomb: not 1 GB a log */
    r->set.bounds_quiet = true;   /* a tune log past them, every night: the line says so */
    struct tb_log_entry *v = NULL;
    long got = tb_logs_ours(dir, host, host_id, board, NULL, &v);
    if (got < 0) {
        snprintf(line, n, "cannot open '%s': %s: the board file's settings alone", dir,
                 strerror((int)-got));
        return r;
    }
    size_t take = (size_t)got < TB_RERUN_MAX_LOGS ? (size_t)got : TB_RERUN_MAX_LOGS;
    r->kept = calloc(take + 1, sizeof(*r->kept));
    r->start = calloc(take + 1, sizeof(*r->start));
    r->run_id = calloc(take + 1, sizeof(*r->run_id));
    if (!r->kept || !r->start || !r->run_id) {
        free(v);
        tb_rerun_free(r);
        return NULL;
    }
    size_t kept = 0, k = 0;
    /* past the bounds, an older log could add nothing but a message of its own */
    for (; k < take && r->set.n < r->set.max_rows && r->set.bytes_read < TB_RERUN_MAX_BYTES;
         k++) {
        char path[8192];
        snprintf(path, sizeof(path), "%s/%s", dir, v[k].name);
        r->start[k] = r->set.n;
        size_t before = r->set.nlogs;
        tb_logread(&r->set, path);
        r->start[k + 1] = r->set.n;
        r->kept[k] = r->set.nlogs > before &&
                     !strcmp(r->set.logs[r->set.nlogs - 1].images, images);
        if (r->set.nlogs > before)
            memcpy(r->run_id[k], r->set.logs[before].run_id, sizeof(r->run_id[k]));
        kept += r->kept[k];
        r->nlogs = k + 1;
    }
    free(v);
    int len = snprintf(line, n, "%zu earlier log(s) of this host and board read in '%s' (the "
                       "newest %d at most), %zu of them of these kernel images (sha256 "
                       "%.12s...)", r->nlogs, dir, TB_RERUN_MAX_LOGS, kept, images);
    if (k < take && len >= 0 && (size_t)len < n)
        snprintf(line + len, n - (size_t)len, "; %zu older one(s) not read, %zu rows or %llu MB "
                 "read already", take - k, (size_t)TB_RERUN_MAX_ROWS, TB_RERUN_MAX_BYTES >> 20);
    return r;
}

void tb_rerun_free(struct tb_rerun *r)
{
    if (!r)
        return;
    tb_logset_free(&r->set);
    free(r->start);
    free(r->kept);
    free(r->run_id);
    free(r);
}

static bool same_point(const struct tb_log_rec *a, const struct tb_log_rec *me)
{
    return !strcmp(a->device, me->device) && !strcmp(a->board, me->board) &&
           !strcmp(a->kernel, me->kernel) && !strcmp(a->elem, me->elem) &&
           a->rows == me->rows && a->cols == me->cols && a->bx == me->bx && a->by == me->by &&
           !tb_log_step_cmp(a, me);
}

/* A row whose figures can teach the spread: a result, the ratio with its cycles' interval,
 * J per byte, two cycles or more, and not held at the power limit (its ratio follows the
 * card's temperature: cap_note in meter_figures.c). */
static bool teaches(const struct tb_log_rec *a)
{
    return tb_log_usable(a) && !a->failed_night && !a->bad_time && a->energy_ratio > 0 &&
           isfinite(a->energy_ratio) && isfinite(a->energy_ratio_cycles_ci) &&
           a->j_per_gb > 0 && isfinite(a->j_per_gb) && a->power_cycles >= 2 && !a->power_capped;
}

/* The relative variance between runs of v[0..m) (newest first), from the differences of
 * successive runs (tb_sd_of_steps): one odd night moves two differences and a step of the
 * board (a new JetPack, a firmware) one, so with several runs neither moves the median,
 * where a mean square would carry either for 30 nights (a ratio of 9000 once made the sd
 * 0.8). Relative differences as logarithms: an odd night's is large, never undefined. */
static double step_var(const double *v, int m)
{
    double d[TB_RERUN_MAX_RUNS];
    for (int i = 0; i + 1 < m; i++)
        d[i] = log(v[i + 1] / v[i]);
    double s = tb_sd_of_steps(d, (size_t)m - 1);
    return s * s;
}

/* The learned variance s2 (of m runs) pulled toward the setting p, which counts as
 * TB_RERUN_PRIOR_RUNS, and never past TB_RERUN_MAX_FACTOR x p: two runs, one of them odd,
 * have no median to leave it out by. */
static double pulled(double p, double s2, int m)
{
    double sd = sqrt((TB_RERUN_PRIOR_RUNS * p * p + (m - 1) * s2) / (TB_RERUN_PRIOR_RUNS + m - 1));
    return fmin(sd, TB_RERUN_MAX_FACTOR * p);
}

/* Log k is a copy of a newer one read (the same run_id: a log kept under a second name): one
 * run, not two, or its copy alone would count as the two runs a spread needs. */
static bool a_copy(const struct tb_rerun *r, size_t k)
{
    const char *id = r->run_id[k];
    for (size_t j = 0; id[0] && j < k; j++)
        if (!strcmp(r->run_id[j], id))
            return true;
    return false;
}

void tb_rerun_sd(const struct tb_rerun *r, const struct tb_log_rec *me,
                 const struct tb_power_cfg *pc, struct tb_rerun_sd *out)
{
    out->ratio = pc->rerun_ratio_sd;
    out->abs = pc->rerun_abs_sd;
    out->runs = 0;
    double ratio[TB_RERUN_MAX_RUNS], jpb[TB_RERUN_MAX_RUNS], own[TB_RERUN_MAX_RUNS];
    int m = 0;
    for (size_t k = 0; r && k < r->nlogs && m < TB_RERUN_MAX_RUNS; k++) {
        if (!r->kept[k] || a_copy(r, k))
            continue;
        for (size_t i = r->start[k]; i < r->start[k + 1]; i++) {
            const struct tb_log_rec *a = &r->set.v[i];
            if (!same_point(a, me) || !teaches(a))
                continue;
            /* its cycles' interval is t x s x sqrt(2/n): its mean's own variance from it */
            double t = tb_t95((size_t)a->power_cycles - 1);
            double se = a->energy_ratio_cycles_ci / a->energy_ratio / (t * sqrt(2.0));
            own[m] = se * se;
            ratio[m] = a->energy_ratio;
            jpb[m++] = a->j_per_gb;
            break;   /* one row a run */
        }
    }
    if (m < 2)
        return;
    /* the runs' own share by its median too: one run of wide cycles cancels nothing */
    out->ratio = pulled(pc->rerun_ratio_sd, fmax(0.0, step_var(ratio, m) - tb_median(own, (size_t)m)), m);
    out->abs = pulled(pc->rerun_abs_sd, step_var(jpb, m), m);
    out->runs = m;
}
