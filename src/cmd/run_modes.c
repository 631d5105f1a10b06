/* run_modes.c: see run_modes.h. The outer loop of a mode sweep, around the runner's: a step
 * labelled, switched (jetson/modes_switch.c), logged as a mode_step line, its points run, its rows
 * added to the run's; then the board put back. Not the switching itself, and not when a run
 * ends (run.c). */
#include "cmd/run_modes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/log_meta.h"
#include "lib/util.h"

void tb_run_modes_plan(struct tb_run_modes *m, const struct tb_sweep_cfg *sw, bool tune,
                       struct tb_diag *d)
{
    const char *mode_at = sw->n_power_modes ? sw->power_modes_at.text
                          : sw->n_gpu_max_mhz ? sw->gpu_max_mhz_at.text
                          : sw->n_emc_max_mhz ? sw->emc_max_mhz_at.text : NULL;
    /* tune finds blocks in the mode the board is in: a mode sweep's steps would be mixed
     * into one best block per size, and its tuned file would switch modes every night */
    if (d->n == 0 && tune && mode_at)
        tb_diag_add(d, "%s: tune measures the board in the mode it is in and never "
                    "switches it: remove sweep.power_modes, sweep.gpu_max_mhz and "
                    "sweep.emc_max_mhz (to tune a mode, switch to it, then tune)", mode_at);
    if (d->n == 0) {   /* a mode sweep on a desktop: exit 2, nothing changed */
        const struct tb_mode_axes ax = {
            .power_modes = sw->power_modes, .n_power_modes = sw->n_power_modes,
            .power_modes_at = sw->power_modes_at.text,
            .gpu_max_mhz = sw->gpu_max_mhz, .n_gpu_max_mhz = sw->n_gpu_max_mhz,
            .gpu_max_mhz_at = sw->gpu_max_mhz_at.text,
            .emc_max_mhz = sw->emc_max_mhz, .n_emc_max_mhz = sw->n_emc_max_mhz,
            .emc_max_mhz_at = sw->emc_max_mhz_at.text,
        };
        tb_modes_plan(&ax, NULL, &m->steps, &m->nsteps, d);
    }
}

void tb_run_modes_recover(const struct tb_run_modes *m, struct tb_csvlog *log)
{
    char what[2048];
    int rc = tb_modes_recover(NULL, what, sizeof(what));
    if (rc == 0)
        return;
    tb_csvlog_meta(log, TB_META(modes_restored), "%s", what);
    if (rc < 0)
        warning("power modes: %s", what);
    else if (!m->quiet)
        note("power modes: %s", what);
}

void tb_run_modes_restore(struct tb_run_modes *m, struct tb_csvlog *log)
{
    if (!m->open)
        return;
    char what[2048];
    int rc = tb_modes_restore(&m->modes, what, sizeof(what));
    if (log)
        tb_csvlog_meta(log, TB_META(modes_restored), "%s", what);
    if (rc < 0) {
        error("power modes: %s", what);
        m->not_restored = true;
    } else if (!m->quiet) {
        note("power modes: %s", what);
    }
    tb_modes_close(&m->modes);
    m->open = false;
}

/* One step's result added to the run's: counts, flags and rows; the idle power and the
 * cadence of the first step measured (each step's are in its own metadata lines). */
static void merge_result(struct tb_runner_result *all, struct tb_runner_result *one, bool first)
{
    if (first) {
        struct tb_log_rec *rows = all->rows;
        size_t n = all->n_rows;
        *all = *one;
        all->rows = rows;
        all->n_rows = n;
    } else {
        all->ok += one->ok;
        all->skipped += one->skipped;
        all->failed += one->failed;
        all->verify_failed += one->verify_failed;
        all->not_run += one->not_run;
        all->interrupted |= one->interrupted;
        all->aborted |= one->aborted;
        all->log_failed |= one->log_failed;
    }
    struct tb_log_rec *rows = one->n_rows ? realloc(all->rows, (all->n_rows + one->n_rows) *
                                                    sizeof(*rows)) : NULL;
    if (rows) {   /* none: a step interrupted before its first row */
        memcpy(rows + all->n_rows, one->rows, one->n_rows * sizeof(*rows));
        all->rows = rows;
        all->n_rows += one->n_rows;
    }
    tb_runner_result_free(one);
}

/* The step's mode as its rows carry it (found: the mode the board was in), and its label
 * for the log and the terminal: "step 2 of 4, mode 15W (0), GPU cap 612 MHz asked". */
static void step_label(const struct tb_mode_step *s, size_t i, size_t n, const char *found,
                       char *mode, size_t mn, char *label, size_t ln)
{
    if (s->mode_id >= 0)
        snprintf(mode, mn, "%s (%d)", s->mode_name, s->mode_id);
    else
        tb_strlcpy(mode, found, mn);
    int len = snprintf(label, ln, "step %zu of %zu, mode %s", i + 1, n,
                       s->mode_id >= 0 ? mode : "as found");
    if (s->gpu_cap_mhz > 0)
        len += snprintf(label + len, ln - (size_t)len, ", GPU cap %.0f MHz asked",
                        s->gpu_cap_mhz);
    if (s->emc_cap_mhz > 0)
        snprintf(label + len, ln - (size_t)len, ", EMC cap %.0f MHz asked", s->emc_cap_mhz);
}

void tb_run_modes_sweep(struct tb_run_modes *m, struct tb_runner_ctx *ctx,
                        const struct tb_point *pts, size_t npts, struct tb_runner_result *res)
{
    char why[1024];
    const char *found = ctx->power_mode;
    double found_mhz = ctx->max_clock_mhz;
    bool first = true;
    memset(res, 0, sizeof(*res));
    res->energy.idle_w = res->energy.idle_after_w = NAN;
    if (tb_modes_open(&m->modes, NULL, why, sizeof(why)) < 0 ||
        tb_modes_save(&m->modes, m->steps, m->nsteps, why, sizeof(why)) < 0) {
        tb_modes_close(&m->modes);
        tb_csvlog_meta(ctx->log, TB_META(mode_step), "none run: %s; no mode or clock was "
                       "changed", why);
        error("power modes: %s; no mode or clock was changed", why);
        m->not_run = true;
        return;
    }
    m->open = true;
    ctx->steps = m->nsteps;   /* the time the run announces holds every step */
    for (size_t i = 0; i < m->nsteps && !*ctx->stop; i++) {
        const struct tb_mode_step *s = &m->steps[i];
        char mode[80], label[200];
        step_label(s, i, m->nsteps, found, mode, sizeof(mode), label, sizeof(label));
        struct tb_mode_outcome o;
        if (tb_modes_apply(&m->modes, s, &o) < 0) {
            tb_csvlog_meta(ctx->log, TB_META(mode_step), "%s: skipped, %s: %s", label,
                           tb_modes_result_name(o.result), o.why);
            warning("%s: skipped: %s", label, o.why);
            m->skipped++;
            continue;
        }
        tb_csvlog_meta(ctx->log, TB_META(mode_step), "%s: %s", label, o.read);
        if (!m->quiet)
            note("%s", label);
        if (ctx->sampler)   /* a limit set per mode (the INA3221's warning limit) */
            tb_sampler_reidentify(ctx->sampler);
        struct tb_runner_step rs = { s->gpu_cap_mhz, s->emc_cap_mhz, o.emc_cap_mhz };
        ctx->power_mode = mode;
        ctx->max_clock_mhz = isfinite(o.gpu_max_mhz) ? o.gpu_max_mhz : found_mhz;
        ctx->step = &rs;
        struct tb_runner_result one;
        tb_runner_sweep(ctx, pts, npts, &one);
        ctx->step = NULL;
        bool stop = one.aborted || one.log_failed;
        merge_result(res, &one, first);
        first = false;
        if (stop)
            break;
    }
    ctx->power_mode = found;
    ctx->max_clock_mhz = found_mhz;
    tb_run_modes_restore(m, ctx->log);
}

void tb_run_modes_how(const struct tb_run_modes *m, char *how, size_t n)
{
    size_t len = strlen(how);
    /* never changed and not put back are two mornings: the first left the board as found */
    if (m->not_run)
        snprintf(how + len, n - len, "; power modes not changed, none of %zu mode steps run "
                 "(mode_step says why)", m->nsteps);
    else if (m->not_restored || m->skipped)
        snprintf(how + len, n - len, "%s; %zu of %zu mode steps skipped (mode_step lines say "
                 "why)", m->not_restored ? "; power modes NOT all restored (modes_restored "
                 "says what)" : "", m->skipped, m->nsteps);
}

const char *tb_run_modes_nothing(const struct tb_run_modes *m)
{
    if (m->not_run)
        return "no power mode or clock could be changed (the log's mode_step line says why)";
    if (m->nsteps && m->skipped == m->nsteps)
        return "every mode step was skipped (the log's mode_step lines say why)";
    return NULL;
}

bool tb_run_modes_failed(const struct tb_run_modes *m)
{
    return m->not_run || m->not_restored;
}

void tb_run_modes_free(struct tb_run_modes *m)
{
    free(m->steps);
    m->steps = NULL;
    m->nsteps = 0;
}
