/* probe_run.c: the probe's measuring half: the source (polled through the sampler thread,
 * every few ms), the backend's copy as the load, the five spans on tb_now_ns's clock, the
 * fit and what it is set beside (the source's own claim from sysfs). Not here: options,
 * files, the kept result (probecmd.c). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/probe_internal.h"
#include "lib/clock.h"
#include "lib/util.h"

int tb_probe_total_index(const struct tb_power_rails *r, const char *want)
{
    if (!strcmp(want, "sum"))
        return -2;
    if (!want[0])
        return r->n > 0 ? 0 : -1;
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->name[i], want))
            return i;
    return -1;
}

int tb_probe_source(struct probe *p)
{
    const struct tb_power_cfg *pc = &p->cfg.board.power;
    char why[512] = "";
    p->ops = tb_power_pick(pc->source, pc, why, sizeof why);
    if (!p->ops)
        return error("probe-power: %s", why);
    if (p->ops->flags & TB_POWER_NOTHING)
        return error("probe-power: no power source on board '%s'%s%s (power.source; see "
                     "'transpose-bench list')", p->cfg.board.name, why[0] ? ": " : "", why);
    if (p->ops->flags & TB_POWER_OWN_PACE)
        return error("probe-power: power source '%s' cannot be polled every %.0f ms: "
                     "a child prints its readings at its own interval; the probe reads the "
                     "INA3221 rails in sysfs (--set power.source=ina3221)", p->ops->name,
                     p->poll_ms);
    size_t cap = (size_t)(60000 / p->poll_ms) + 64;
    if (tb_sampler_start(&p->s, p->ops, pc, (int)p->poll_ms, cap, why, sizeof why) < 0) {
        p->s = NULL;
        return error("probe-power: power source '%s' cannot start: %s", p->ops->name, why);
    }
    p->claim = *tb_sampler_cadence(p->s);
    if (tb_power_cadence_counter(&p->claim))
        return error("probe-power: power source '%s' gives an energy counter, not a power "
                     "reading: the probe fits a reading sensor (the INA3221 rails)",
                     p->ops->name);
    const struct tb_power_rails *r = tb_sampler_rails(p->s);
    if ((p->total = tb_probe_total_index(r, pc->total_rail)) == -1)
        return error("probe-power: power.total_rail '%s' is not a rail of source '%s' (it "
                     "has %d)", pc->total_rail, p->ops->name, r->n);
    tb_strlcpy(p->rail, p->total == -2 ? "sum of rails" : r->name[p->total], sizeof p->rail);
    /* a sensor sysfs says is slow gets spans of 4 of its intervals, within the 60 s */
    if (!p->span_given && p->claim.period_ms > 0 && isfinite(p->claim.period_ms))
        p->span_s = fmin(10, fmax(p->span_s, 4 * p->claim.period_ms / 1000));
    return 0;
}

int tb_probe_device(struct probe *p)
{
    char why[1024] = "";
    int index = 0, probe_rc = 0, rc;
    if (p->borrowed)   /* a night's device, open: its copy as the load */
        goto load;
    if (tb_backend_select(p->device, &p->be, &index, why, sizeof why, &probe_rc) < 0)
        return error("probe-power: --device '%s': expected auto, cpu, cuda or cuda:N",
                     p->device);
    if (!(p->be_st = tb_backend_new(p->be)))
        return error("probe-power: %s", strerror(ENOMEM));
    rc = p->be->open(p->be_st, index, &p->dev, why, sizeof why);
    if (rc)
        return error("probe-power: cannot open the %s backend: %s", p->be->name, why);
    p->opened = true;
load:
    p->k = tb_kernel_copy_ref(p->be->id);
    size_t bytes = (size_t)p->rows * (size_t)p->cols * 4;
    p->l = (struct tb_launch){ NULL, NULL, p->rows, p->cols, 32, 8, 4, 0, 0, NULL };
    void *in = NULL, *out = NULL;
    if (!p->k || (rc = p->be->alloc(p->be_st, bytes, &in)) ||
        (rc = p->be->alloc(p->be_st, bytes, &out)) ||
        (rc = p->be->fill_pattern(p->be_st, in, (size_t)p->rows * (size_t)p->cols, 4, 48))) {
        if (in)
            p->be->free(p->be_st, in);
        return error("probe-power: the copy's %ldx%ld buffers on %s: %s", p->rows, p->cols,
                     p->dev.name, p->k ? p->be->errstr(p->be_st, rc) : "no copy kernel");
    }
    p->l.in = in, p->l.out = out;
    if (p->be->watch && !p->borrowed)
        p->be->watch(p->be_st, p->stop);   /* a CPU copy stops soon after a signal */
    double ms = 0;
    for (int i = 0; i < 2 && rc == 0; i++)   /* the first warms */
        rc = p->be->timed(p->be_st, p->k, &p->l, &ms);
    if (rc)
        return error("probe-power: the copy on %s: %s", p->dev.name,
                     p->be->errstr(p->be_st, rc));
    p->launch_ms = ms > 0 ? ms : 1e-3;
    return 0;
}

/* Back-to-back copies until end, a sync every ~20 ms of work; under the fake clock the
 * work counts as the timing measured it (as the meter's load does, runner_energy.c), spent
 * a poll at a time: the fake clock counts work as done when its time is over, so a chunk
 * spent whole would reach a sensor that watches it (tests' simulated chips) a chunk late, a
 * dead time the board does not have (400 ms and more where a loaded machine timed one
 * launch slow: the probe then fitted a delay at its search range's edge). On the real clock
 * spending is nothing. */
static int load_until(struct probe *p, int64_t end)
{
    double work_ms = p->launch_ms * tb_clock_work_scale();
    long chunk = (long)(20.0 / work_ms) + 1;
    int64_t slice = (int64_t)(p->poll_ms * 1e6);
    while (tb_now_ns() < end && !*p->stop) {
        int rc = 0;
        for (long i = 0; i < chunk && rc == 0; i++)
            rc = p->be->launch(p->be_st, p->k, &p->l);
        if (rc == 0)
            rc = p->be->sync(p->be_st);
        if (rc && !*p->stop)
            return error("probe-power: the copy on %s: %s", p->dev.name,
                         p->be->errstr(p->be_st, rc));
        for (int64_t owed = (int64_t)((double)chunk * work_ms * 1e6); owed > 0 && !*p->stop;
             owed -= slice)
            tb_clock_spend_ns(owed < slice ? owed : slice);
    }
    return 0;
}

/* Rail idx's reading in W (-2: the sum of the rails). */
static double rail_w(const struct probe *p, const struct tb_power_sample *s, int idx)
{
    const struct tb_power_rails *r = tb_sampler_rails(p->s);
    if (idx >= 0)
        return s->rail_mw[idx] * 1e-3;
    double sum = 0;
    for (int i = 0; i < r->n; i++)
        if (!isnan(s->rail_mw[i]))
            sum += s->rail_mw[i];
    return sum * 1e-3;
}

/* The readings of [t0, t1] of rail idx as ms since the start and W, into *t and *w
 * (malloc, replacing theirs); how many. */
static size_t collect_rail(struct probe *p, int64_t t1, int idx, double **t, double **w)
{
    size_t n = 0, k = 0;
    struct tb_power_sample *smp = tb_sampler_window(p->s, p->t0_ns, t1, 0, &n);
    free(*t);
    free(*w);
    *t = malloc((n + 1) * sizeof **t);
    *w = malloc((n + 1) * sizeof **w);
    for (size_t i = 0; smp && *t && *w && i < n; i++) {
        double v = rail_w(p, &smp[i], idx);
        double ti = (double)(tb_power_rail_t_ns(&smp[i], idx) - p->t0_ns) * 1e-6;
        if (isfinite(v) && (k == 0 || ti > (*t)[k - 1]))
            (*t)[k] = ti, (*w)[k++] = v;
    }
    free(smp);
    return k;
}

/* The readings of [t0, t1] of the total as ms since the start and W; how many. */
static size_t collect(struct probe *p, int64_t t1)
{
    p->t1_ns = t1;
    return p->n = collect_rail(p, t1, p->total, &p->t_ms, &p->w);
}

/* The spans in units of --seconds (stepfit.h says why these). */
static const double SPANS[5] = TB_STEPFIT_SPANS;

int tb_probe_measure(struct probe *p)
{
    p->t0_ns = tb_now_ns();
    int64_t end = p->t0_ns;
    for (int seg = 0; seg < 5; seg++) {
        /* a span from where the last one really ended: a load whose last launch ran past
         * its span's end (one launch longer than a span: a slow device, or the fake clock
         * scaling a launch timed on a loaded machine) leaves the next idle span whole and
         * the edges in order, where a fixed schedule had left it none */
        int64_t now = tb_now_ns();
        if (end < now)
            end = now;
        end += (int64_t)(SPANS[seg] * p->span_s * 1e9);
        if (seg % 2 == 0) {
            while (tb_now_ns() < end && !*p->stop)
                tb_sleep_until_ns(end);
        } else {
            p->edge_ms[seg - 1] = (double)(tb_now_ns() - p->t0_ns) * 1e-6;
            if (load_until(p, end) < 0)
                return -1;
            p->edge_ms[seg] = (double)(tb_now_ns() - p->t0_ns) * 1e-6;
        }
        if (*p->stop)
            return error("probe-power: stopped by signal %d: nothing kept", (int)*p->stop);
        if (tb_sampler_failed(p->s))
            return error("probe-power: power source '%s' failed: %s", p->ops->name,
                         tb_sampler_why(p->s));
        /* after the first span: a source that does not give a reading every poll or two
         * is not worth the rest */
        size_t got = seg == 0 ? collect(p, tb_now_ns()) : 0;
        if (seg == 0 && (double)got < p->span_s * 1000 / p->poll_ms / 2)
            return error("probe-power: power source '%s' gave %zu readings in %.1f s: the "
                         "probe needs one every %.0f ms", p->ops->name, got, p->span_s,
                         p->poll_ms);
    }
    collect(p, tb_now_ns());
    return 0;
}

/* Each rail by itself (each INA3221 channel averages by itself; an AGX board's total sums
 * two chips of different constants, whose blend fits neither): its fit, or model NULL and
 * why into p->rail_why where its readings held no step (a rail the copy does not load). */
static void fit_rails(struct probe *p, struct tb_stepfit *fit)
{
    const struct tb_power_rails *r = tb_sampler_rails(p->s);
    double *t = NULL, *w = NULL;
    fit->nrails = r->n < TB_STEPFIT_MAX_RAILS ? r->n : TB_STEPFIT_MAX_RAILS;
    for (int i = 0; i < fit->nrails; i++) {
        struct tb_stepfit_rail *fr = &fit->rail[i];
        struct tb_stepfit one;
        size_t n = collect_rail(p, p->t1_ns, i, &t, &w);
        tb_strlcpy(fr->name, r->name[i], sizeof fr->name);
        fr->model = NULL, fr->tau_ms = 0, fr->delay_ms = 0;
        if (tb_stepfit(t, w, n, p->edge_ms, 4, &one, p->rail_why[i],
                       sizeof p->rail_why[i]) == 0)
            fr->model = one.model, fr->tau_ms = one.tau_ms, fr->delay_ms = one.delay_ms;
    }
    free(t);
    free(w);
}

int tb_probe_fit(struct probe *p, struct tb_stepfit *fit)
{
    char why[512];
    int rc = tb_stepfit(p->t_ms, p->w, p->n, p->edge_ms, 4, fit, why, sizeof why);
    if (rc < 0)
        return error("probe-power: %zu readings of '%s' could not be fitted: %s", p->n,
                     p->rail, why);
    fit_rails(p, fit);
    return 0;
}

void tb_probe_release(struct probe *p)
{
    if (p->s)
        tb_sampler_stop(p->s, NULL);
    p->s = NULL;
    if (p->opened || p->borrowed) {
        if (p->l.in)
            p->be->free(p->be_st, (void *)p->l.in);
        if (p->l.out)
            p->be->free(p->be_st, p->l.out);
    }
    if (p->opened)
        p->be->close(p->be_st);
    if (!p->borrowed)
        free(p->be_st);
    p->l.in = NULL, p->l.out = NULL;
    free(p->t_ms);
    free(p->w);
    p->be_st = NULL, p->t_ms = NULL, p->w = NULL, p->opened = false;
}

/* The mean reading over [a, b] ms. */
static double mean_in(const struct probe *p, double a, double b)
{
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->t_ms[i] >= a && p->t_ms[i] <= b)
            s += p->w[i], k++;
    return k ? s / (double)k : NAN;
}

static const char *agree(double got, double claimed)
{
    return fabs(got / claimed - 1) <= 0.10 ? "agrees" : "DISAGREES";
}

/* The fit beside what the source claims (hwmon update_interval: Linux's
 * Documentation/hwmon/ina3221.rst; TI SBOS576, "Averaging function", makes it the time
 * constant of an exponential average; the meter has assumed a mean over it that changes
 * once per interval). Where they disagree it says so, with both numbers. */
static void say_claim(const struct probe *p, const struct tb_stepfit *f, FILE *out)
{
    double P = p->claim.period_ms;
    if (!(P > 0) || strcmp(p->claim.how, "sysfs")) {
        fprintf(out, "sysfs: no update_interval to compare%s%s\n", p->claim.detail[0] ? ": " : "",
                p->claim.detail);
        return;
    }
    fprintf(out, "sysfs: %s\n", p->claim.detail);
    if (!strcmp(f->model, "point")) {
        fprintf(out, "  DISAGREES: no averaging seen (the step shows within one %.0f ms poll) "
                "though update_interval says %.0f ms\n", p->poll_ms, P);
        return;
    }
    bool ema = !strcmp(f->model, "ema");
    fprintf(out, "  %s: %s %.0f ms against update_interval %.0f ms (%+.0f%%)\n",
            agree(f->tau_ms, P), ema ? "tau" : "window", f->tau_ms, P, (f->tau_ms / P - 1) * 100);
    if (f->refresh_ms > 0)
        fprintf(out, "  %s: the reading changes every %.0f ms against update_interval %.0f ms\n",
                agree(f->refresh_ms, P), f->refresh_ms, P);
    else
        fprintf(out, "  DISAGREES: the reading changes at every poll, not once per "
                "update_interval (%.0f ms): update_interval is no refresh period here\n", P);
}

void tb_probe_say_head(const struct probe *p, FILE *out)
{
    double sp = p->span_s * 1000;
    fprintf(out, "probe-power: board %s, L4T %s, source %s, rail %s\n", p->cfg.board.name,
            p->l4t[0] ? p->l4t : "none", p->ops->name, p->rail);
    fprintf(out, "load: %s's %s, %ldx%ld x 4 B (%.3f ms a copy); spans of %.2f s: idle, "
            "load, idle, load, idle (x %.2f, %.2f, %.2f, %.2f, %.2f)\n", p->dev.name,
            p->k->name, p->rows, p->cols, p->launch_ms, p->span_s, SPANS[0], SPANS[1],
            SPANS[2], SPANS[3], SPANS[4]);
    fprintf(out, "readings: %zu, polled every %.0f ms; idle %.3f W, load %.3f W\n", p->n,
            p->poll_ms, mean_in(p, sp / 2, sp), mean_in(p, 1.5 * sp, 2 * sp));
    fflush(out);
}

void tb_probe_say(const struct probe *p, const struct tb_stepfit *f, FILE *out)
{
    fprintf(out, "fit: model=%s tau_ms=%.1f delay_ms=%.1f refresh_ms=%.1f rms_ema_w=%.4g "
            "rms_boxcar_w=%.4g\n", f->model, f->tau_ms, f->delay_ms, f->refresh_ms,
            f->rms_ema_w, f->rms_boxcar_w);
    say_claim(p, f, out);
    for (int i = 0; i < f->nrails; i++) {
        const struct tb_stepfit_rail *r = &f->rail[i];
        double claim = tb_sensor_model_tau_ms(&p->claim.model, i);
        if (!r->model) {
            fprintf(out, "rail %s: no fit: %s\n", r->name, p->rail_why[i]);
            continue;
        }
        fprintf(out, "rail %s: model=%s tau_ms=%.1f delay_ms=%.1f", r->name, r->model,
                r->tau_ms, r->delay_ms);
        if (claim > 0)
            fprintf(out, " (sysfs: tau %.1f ms, %s)", claim, agree(r->tau_ms, claim));
        fputc('\n', out);
    }
}
