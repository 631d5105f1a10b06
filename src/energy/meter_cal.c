/* meter_cal.c: a night that calibrates its own sensor (issue #57). An averaging sensor's
 * constants come from what the board says (update_interval, or a kept probe result), and
 * a board may run another: the device tree's averaging, a second chip with its own, a dead
 * time no file states. Every switch of the size's interleaved load is a step of the power,
 * so after its cycles each rail's time constant and dead time are fitted to the size's own
 * switches (selfcal.c), the board's word the prior; every block is inverted again with them,
 * from the first poll past its switch plus the dead time; and each figure's interval
 * carries what the cycles do not average: the constants' uncertainty through the inversion,
 * the register's step, the model's floor. Not here: the blocks (meter.c, meter_ema.c), the
 * fit's arithmetic (selfcal.c). */
#include "energy/meter.h"
#include "energy/meter_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy/energy.h"

/* How far the board's word may be off, relative sd: update_interval against what the chip
 * runs (the R32 driver's macro against the device tree's 430 ms, claims 0.8-1.25 of the
 * truth in issue #57), a kept probe result against a night (the probe's fit within 3%). */
#define PRIOR_CLAIM_REL 0.10
#define PRIOR_PROBE_REL 0.03

/* The fewest changes between readings that can show a register's step (rail_series). */
#define TB_METER_LSB_MIN_CHANGES 5

/* One rail's readings over the size: each at its own stamp (t: when the rail was read,
 * tb_power_rail_t_ns), and the stamp of its poll (pt: what the blocks' spans are in). */
struct series {
    int64_t *t, *pt;
    double *v;
    size_t n;
    double lsb;                   /* the register's step: the smallest change between
                                   * readings where every change is a whole number of it */
};

void tb_meter_note_switch(struct tb_meter *m, size_t i, int64_t t0)
{
    if (m->sw_n > 0 && m->sw_point == i)
        return;
    if (m->sw_n == m->sw_cap) {
        size_t cap = m->sw_cap ? 2 * m->sw_cap : 64;
        int64_t *p = realloc(m->sw, cap * sizeof(*p));
        if (!p) {   /* the switches so far forgotten: the fit starts at the next */
            m->sw_n = 0;
            return;
        }
        m->sw = p;
        m->sw_cap = cap;
    }
    m->sw[m->sw_n++] = t0;
    m->sw_point = i;
}

double tb_meter_tau_used(const struct tb_meter *m, int rail, double *delay_ms)
{
    bool inv = tb_meter_inverts(m) && rail >= 0 && rail < m->plan.rails.n;
    if (delay_ms)
        *delay_ms = inv ? m->delay_used_ms : NAN;
    if (!inv)
        return NAN;
    return m->cal_steps > 0 && m->cal[rail].tau_ms > 0
           ? m->cal[rail].tau_ms : tb_sensor_model_tau_ms(&m->plan.cadence.model, rail);
}

/* Rail r's readings in w[0..n) into se (malloc'd): 0, or -1. */
static int rail_series(const struct tb_power_sample *w, size_t n, int r, struct series *se)
{
    se->t = malloc((n ? n : 1) * sizeof(*se->t));
    se->pt = malloc((n ? n : 1) * sizeof(*se->pt));
    se->v = malloc((n ? n : 1) * sizeof(*se->v));
    se->n = 0;
    se->lsb = INFINITY;
    if (!se->t || !se->pt || !se->v)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (isfinite(w[i].rail_mw[r])) {
            double v = w[i].rail_mw[r];
            if (se->n > 0 && v != se->v[se->n - 1])
                se->lsb = fmin(se->lsb, fabs(v - se->v[se->n - 1]));
            se->t[se->n] = tb_power_rail_t_ns(&w[i], r);
            se->pt[se->n] = w[i].t_ns;
            se->v[se->n++] = v;
        }
    /* a register's step shows as every change a whole number of the smallest; a smooth
     * reading's smallest change is only its slowest moment (the tail of a swing), no step.
     * Five changes at least, and two sizes among them: where reads block (two chips polled
     * every 1100 ms after a lead-in of 5 tau) a stepped reading may change once a switch,
     * between the copy's level and the kernel's, and every change is then the switch's own
     * size, a whole number of itself by construction (issue #57: a "step" of 16% of the copy
     * for a register of 2%). One size is no evidence of a step: none is counted. */
    size_t whole = 0, changes = 0, multiple = 0;
    for (size_t i = 1; isfinite(se->lsb) && se->lsb > 0 && i < se->n; i++) {
        double d = fabs(se->v[i] - se->v[i - 1]) / se->lsb;
        if (d > 0) {
            changes++;
            whole += fabs(d - round(d)) < 0.02;
            multiple += fabs(d - round(d)) < 0.02 && round(d) >= 2;
        }
    }
    if (!isfinite(se->lsb) || changes < TB_METER_LSB_MIN_CHANGES || whole < changes * 9 / 10 ||
        multiple == 0)
        se->lsb = 0;
    return 0;
}

/* Rail se's inverted energy (mJ) over [start, end] with time constant tau (ms), its
 * trapezoid's end correction made. Under a block's constant power P the reading is P plus
 * an exponential swing, whose integral is tau x (r(start) - r(end)); the trapezoid of an
 * exponential read every h is x coth x times its integral, x = h / (2 tau) (the sum of a
 * geometric series), so the trapezoid misses tau (x coth x - 1) (r(end) - r(start)). Its
 * first term, h^2 / (12 tau) (r(end) - r(start)), is Euler-Maclaurin's -h^2 / 12 x
 * (r'(end) - r'(start)) with r' = (P - r) / tau: 0.0125% of a block at 430 ms, polls of
 * 50 ms and a 5 W step of 15 (meter-sim at zero noise: ratio 1.5 read -0.023% without
 * it), where the rest is 1e-6 of it; where reads block (JetPack 5: polls of 430-550 ms on
 * 344 ms) the first term alone left -0.022% at ratio 0.8 (meter-sim, zero noise, 200
 * nights, 22% covered). */
static double rail_mj(const struct series *se, double tau, int64_t start, int64_t end)
{
    size_t inside = 0;
    double mj = tb_energy_inverted_mj(se->t, se->v, se->n, start, end, tau, &inside);
    double span_ms = (double)(end - start) * 1e-6;
    /* start and end are readings of the rail (rail_block_w), so the stretch is inside + 1
     * polls: the sum holds for one interval as for many, two readings a block included
     * (two chips read 430 ms each are polled every 1100 ms, three readings a block: -0.163%
     * on a 537.5 ms chip without it, test_three_readings_a_block_corrected) */
    if (!isfinite(mj) || !(tau > 0) || !(span_ms > 0))
        return mj;
    double h = span_ms / (double)(inside + 1), x = h / (2 * tau),
           ra = tb_energy_interp(se->t, se->v, se->n, start),
           rb = tb_energy_interp(se->t, se->v, se->n, end);
    /* x coth x - 1, by its series where x is small (x^2 / 3 - x^4 / 45: the division
     * would lose the digits) */
    double c = x < 1e-2 ? x * x / 3 - x * x * x * x / 45 : x / tanh(x) - 1;
    mj += tau * c * (rb - ra) * 1e-3;   /* ms x mW = uJ */
    /* a register with a step q reads its level L once the swing is within q / 2 of it:
     * from then on the swing's last half step, (q / 2) e^(-t / tau), is counted as L, and
     * the inversion's tau x change takes L for the reading at the end, together tau q / 2
     * too much where the swing rises, too little where it falls, however far into that
     * half step the block ends. Only where the block's end reads its level (within q / 2
     * of the block's power); a swing still a step or more away rounds either way. */
    double p_mw = mj / span_ms * 1e3;
    if (se->lsb > 0 && fabs(rb - ra) >= se->lsb && fabs(p_mw - rb) < se->lsb / 2)
        mj -= copysign(tau * se->lsb / 2, rb - ra) * 1e-3;
    return mj;
}

/* Rail se's mean power (W) over a block whose span of polls is [ta, tb], inverted with tau:
 * from its first reading of a poll in the span that was read at or after the switch plus the
 * dead time (from, by the rail's own stamp), to its reading of the span's last poll. The
 * load is constant inside a block, so each rail's own stretch gives its power, however the
 * rails' stamps differ from each other and from their poll's (issue #57: two chips read
 * 430 ms each, the poll stamped when its last rail was read, by ina3221.c as by meter-sim:
 * the first chip's readings 430 ms before their poll's). NAN where nothing is left. */
static double rail_block_w(const struct series *se, double tau, int64_t from, int64_t ta,
                           int64_t tb)
{
    size_t a = 0, b = 0;
    bool got = false;
    for (size_t i = 0; i < se->n && se->pt[i] <= tb; i++) {
        if (!got && se->pt[i] >= ta && se->t[i] >= from) {
            a = i;
            got = true;
        }
        b = i;
    }
    /* a block whose first readings the sampler's ring no longer holds keeps its figure */
    if (!got || b <= a || se->pt[0] > ta)
        return NAN;
    int64_t start = se->t[a], end = se->t[b];
    return rail_mj(se, tau, start, end) / ((double)(end - start) * 1e-6);
}

/* One block's J per byte inverted with tau[0..count) over the rails se[0..count), each rail
 * over its own readings (rail_block_w) from its switch plus the dead time d_ms. NAN where
 * nothing is left. */
static double block_jpb(const struct series *se, int count, const double *tau, int64_t sw,
                        int64_t ta, int64_t tb, double rate, double d_ms)
{
    int64_t from = sw + (int64_t)(d_ms * 1e6);
    if (!(rate > 0))
        return NAN;
    double w = 0;
    for (int r = 0; r < count; r++)
        w += rail_block_w(&se[r], tau[r], from, ta, tb);
    return w / rate;
}

/* The tracks' figures inverted again: each block's J per byte (jpb), each paired ratio's
 * copy blocks' (side; NAN: none) and the copy's J per byte beside it (around; NAN: the
 * track's own kept, where a side past the copy's track kept no span), each track's mean
 * figure (mean). */
struct refig {
    double (*jpb)[TB_METER_MAX_CYCLES];
    double (*side)[TB_METER_MAX_CYCLES][2];
    double (*around)[TB_METER_MAX_CYCLES];
    double *mean;
};

static int refig_alloc(struct refig *f, size_t n)
{
    size_t k = n ? n : 1;
    f->jpb = malloc(k * sizeof(*f->jpb));
    f->side = malloc(k * sizeof(*f->side));
    f->around = malloc(k * sizeof(*f->around));
    f->mean = malloc(k * sizeof(*f->mean));
    return f->jpb && f->side && f->around && f->mean ? 0 : -1;
}

static void refig_free(struct refig *f)
{
    free(f->jpb);
    free(f->side);
    free(f->around);
    free(f->mean);
}

/* Side s of t's ratio k with the copy's track's blocks as refigured (jr): a block of that
 * track by its index; one past it (-2) inverted here with tau from the span the ratio kept
 * of it, as the track's own are (a switch, a span and a rate each copy block of the size has
 * alike), else NAN (a track built by hand keeps none; so does a span the ring lost). */
static double side_jpb(const struct tb_meter_track *t, int k, int s, const double *jr,
                       const struct series *se, int count, const double *tau, double d_ms)
{
    short c = t->cb[k][s];
    if (c >= 0)
        return jr[c];
    if (c != -2 || !(t->cta[k][s] > 0))
        return NAN;
    return block_jpb(se, count, tau, t->csw[k][s], t->cta[k][s], t->ctb[k][s], t->crate[k][s],
                     d_ms);
}

/* Track j's ratios' copy sides and around into f (the copy's track ref refigured already). */
static void refigure_sides(const struct tb_meter_track *tr, size_t j, size_t ref,
                           const struct series *se, int count, const double *tau, double d_ms,
                           struct refig *f)
{
    for (int k = 0; k < tr[j].n; k++) {
        double v[2];
        bool lost = false;
        for (int s = 0; s < 2; s++) {
            v[s] = side_jpb(&tr[j], k, s, f->jpb[ref], se, count, tau, d_ms);
            lost |= tr[j].cb[k][s] == -2 && !isfinite(v[s]);
            f->side[j][k][s] = v[s];
        }
        f->around[j][k] = lost ? NAN : isnan(v[0]) ? v[1] : isnan(v[1]) ? v[0]
                          : 0.5 * (v[0] + v[1]);
    }
}

/* Every block of the tracks inverted with tau, the copy blocks past the copy's track
 * beside them, into f: the new J per byte (the old where none), then each track's mean
 * figure: a paired track's mean ratio to the copy's blocks beside it, the others' mean J
 * per byte. */
static void refigure(const struct tb_meter_track *tr, size_t n, size_t ref,
                     const struct series *se, int count, const double *tau, double d_ms,
                     struct refig *f)
{
    for (size_t j = 0; j < n; j++)
        for (int k = 0; k < tr[j].n; k++) {
            double x = block_jpb(se, count, tau, tr[j].sw[k], tr[j].ta[k], tr[j].tb[k],
                                 tr[j].rate[k], d_ms);
            f->jpb[j][k] = isfinite(x) ? x : tr[j].jpb[k];
        }
    for (size_t j = 0; j < n; j++) {
        bool paired = ref < n && j != ref;
        if (paired)
            refigure_sides(tr, j, ref, se, count, tau, d_ms, f);
        double sum = 0;
        int got = 0;
        for (int k = 0; k < tr[j].n; k++) {
            double x = f->jpb[j][k];
            if (paired)
                x /= isfinite(f->around[j][k]) ? f->around[j][k] : tr[j].around[k];
            if (isfinite(x)) {
                sum += x;
                got++;
            }
        }
        f->mean[j] = got ? sum / got : NAN;
    }
}

/* The new figures written into the tracks: J per byte, power, and a paired track's ratio,
 * the copy's J per byte beside it and that of each side past the copy's track (issue #57:
 * before 2026-12-08 those ratios kept the constants from before the calibration). */
static void write_back(struct tb_meter_track *tr, size_t n, size_t ref, const struct refig *f)
{
    for (size_t j = 0; j < n; j++)
        for (int k = 0; k < tr[j].n; k++) {
            tr[j].jpb[k] = f->jpb[j][k];
            tr[j].w[k] = f->jpb[j][k] * tr[j].rate[k];
        }
    for (size_t j = 0; j < n && ref < n; j++)
        for (int k = 0; k < tr[j].n && j != ref; k++) {
            double around = f->around[j][k];
            if (!isfinite(around))
                continue;
            tr[j].around[k] = around;
            tr[j].ratio[k] = tr[j].jpb[k] / around;
            for (int s = 0; s < 2; s++)
                if (tr[j].cb[k][s] == -2)
                    tr[j].cj[k][s] = f->side[j][k][s];
        }
}

/* Rail r's fit over the size's switches, the night's pooled estimate (or the board's word)
 * its prior; into m->cal_size[r]. */
static void fit_rail(struct tb_meter *m, int r, const struct series *se, const int64_t *bnd,
                     size_t k)
{
    const struct tb_sensor_model *md = &m->plan.cadence.model;
    double said = tb_sensor_model_tau_ms(md, r);
    bool probed = strstr(md->from, "from probe") != NULL;
    struct tb_selfcal_in in = { se->t, se->v, se->n, bnd, k, said,
                                probed ? PRIOR_PROBE_REL : PRIOR_CLAIM_REL };
    if (m->cal_steps > 0 && m->cal[r].tau_ms > 0) {   /* the night's earlier sizes */
        in.tau_prior_ms = m->cal[r].tau_ms;
        in.tau_prior_rel_sd = m->cal[r].tau_sd_ms / m->cal[r].tau_ms;
    }
    struct tb_selfcal c;   /* the prior where the fit cannot run (out of memory, no tau) */
    tb_selfcal_fit(&in, &c);
    if (c.steps < TB_SELFCAL_MIN_STEPS && m->cal_steps > 0) {   /* the earlier sizes' */
        c.delay_ms = m->cal[r].delay_ms;
        c.delay_sd_ms = m->cal[r].delay_sd_ms;
    }
    m->cal_size[r] = c;
    m->cal_prior_ms[r] = said;
}

/* What the cycles do not average, per track: each rail's constant one sd off moves its mean
 * figure by d_r (all refigured, 1.96 x their root sum of squares), the register's step
 * (TB_METER_LSB_SHARE of it over the copy's power: the swing's last readings round the same
 * way every block) and the model's floor; the relative 95% half-width. */
static void systematic(struct tb_meter *m, struct tb_meter_track *tr, size_t n, size_t ref,
                       const struct series *se, int first, int count, const double *tau,
                       double d_ms, const double *mean0)
{
    struct refig tmp;
    bool ok = refig_alloc(&tmp, n) == 0;
    double *ss = calloc(n ? n : 1, sizeof(*ss));
    double lsb2 = 0;
    for (int r = 0; r < count; r++)
        lsb2 += se[r].lsb * se[r].lsb;
    for (int r = 0; ok && ss && r < count; r++) {
        double t2[TB_SENSOR_MAX_RAILS];
        memcpy(t2, tau, (size_t)count * sizeof(*t2));
        /* a constant fitted to this size's own steps moves with the levels it was fitted
         * with, and part of its error is in the cycles' spread already: TB_METER_TAU_SHARE
         * of its sd counts; a constant the steps could not fit is the prior's, all of it */
        const struct tb_selfcal *c = &m->cal_size[first + r];
        double sd = c->tau_sd_ms * (c->steps >= TB_SELFCAL_MIN_STEPS ? TB_METER_TAU_SHARE : 1);
        if (!(sd > 0))
            continue;
        t2[r] += sd;
        refigure(tr, n, ref, se, count, t2, d_ms, &tmp);
        for (size_t j = 0; j < n; j++)
            if (isfinite(tmp.mean[j]) && isfinite(mean0[j]))
                ss[j] += (tmp.mean[j] - mean0[j]) * (tmp.mean[j] - mean0[j]);
    }
    for (size_t j = 0; j < n; j++) {
        double p_mw = 0;   /* the level the step is judged against: the copy's, or its own */
        const struct tb_meter_track *lv = ref < n ? &tr[ref] : &tr[j];
        for (int k = 0; k < lv->n; k++)
            p_mw += lv->w[k] * 1e3 / lv->n;
        double tau_rel = ss ? 1.96 * sqrt(ss[j]) / fabs(mean0[j]) : 0,
               lsb_rel = p_mw > 0 ? TB_METER_LSB_SHARE * sqrt(lsb2) / p_mw : 0;
        double *part = tr[j].sys_part;
        part[TB_METER_CI_TAU] = isfinite(tau_rel) ? tau_rel : 0;
        part[TB_METER_CI_LSB] = lsb_rel;
        part[TB_METER_CI_FLOOR] = TB_METER_MODEL_FLOOR;
        tr[j].sys_rel = hypot(hypot(part[TB_METER_CI_TAU], lsb_rel), TB_METER_MODEL_FLOOR);
    }
    refig_free(&tmp);
    free(ss);
}

/* The fits, the blocks inverted again and the systematic terms, over the rails' series;
 * final: the size's fit becomes the night's (the prior of its next size). */
static void calibrate_with(struct tb_meter *m, struct tb_meter_track *tr, size_t n, size_t ref,
                           const struct series *se, int first, int count, const int64_t *bnd,
                           bool final)
{
    double tau[TB_SENSOR_MAX_RAILS], d_hi = 0;
    int steps = 0;
    for (int r = 0; r < count; r++) {
        fit_rail(m, first + r, &se[r], bnd, m->sw_n + 1);
        const struct tb_selfcal *c = &m->cal_size[first + r];
        tau[r] = c->tau_ms;
        d_hi = fmax(d_hi, c->delay_ms + 2 * (isfinite(c->delay_sd_ms) ? c->delay_sd_ms : 0));
        steps = c->steps > steps ? c->steps : steps;
    }
    m->delay_used_ms = d_hi;
    if (final) {
        memcpy(&m->cal[first], &m->cal_size[first], (size_t)count * sizeof(m->cal[0]));
        m->cal_steps += steps;
        m->cal_sizes++;
    }
    struct refig f;
    if (refig_alloc(&f, n) == 0) {
        refigure(tr, n, ref, se, count, tau, d_hi, &f);
        write_back(tr, n, ref, &f);
        systematic(m, tr, n, ref, se, first, count, tau, d_hi, f.mean);
    }
    refig_free(&f);
}

void tb_meter_calibrate(struct tb_meter *m, struct tb_meter_track *tr, size_t n, size_t ref,
                        bool final)
{
    int first = 0, count = tb_power_total_rails(&m->plan, &first);
    /* a register another program reads at its own interval (tegrastats' line every second
     * against 430 ms: a staircase, no swing) leaves the board's word standing; our own polls,
     * however coarse for the plain trapezoid, see every step */
    if (!tb_meter_inverts(m) || m->plan.cadence.model.read_ms > 0 || !tr ||
        m->sw_n < 3 || count <= 0 || count > TB_SENSOR_MAX_RAILS)
        return;
    int64_t margin = (int64_t)(2e6 * tb_power_plan_poll_ms(&m->plan, m->pc));
    struct tb_power_span sp;
    tb_energy_plan_read(&m->plan, m->sw[0], m->sw_end, margin, &sp);
    struct tb_power_sample *w = sp.w;
    size_t ns = sp.n;
    int64_t *bnd = malloc((m->sw_n + 1) * sizeof(*bnd));
    struct series se[TB_SENSOR_MAX_RAILS];
    memset(se, 0, sizeof(se));
    bool ok = w && bnd && ns >= 8;
    for (int r = 0; ok && r < count; r++)
        ok = rail_series(w, ns, first + r, &se[r]) == 0 && se[r].n >= 8;
    if (ok) {
        memcpy(bnd, m->sw, m->sw_n * sizeof(*bnd));
        bnd[m->sw_n] = m->sw_end;
        calibrate_with(m, tr, n, ref, se, first, count, bnd, final);
    }
    for (int r = 0; r < count; r++) {
        free(se[r].t);
        free(se[r].pt);
        free(se[r].v);
    }
    free(bnd);
    tb_power_span_free(&sp);
}

void tb_meter_selfcal_line(const struct tb_meter *m, char *line, size_t n)
{
    line[0] = 0;
    int first = 0, count = tb_power_total_rails(&m->plan, &first);
    if (!m->cal_sizes || count <= 0 || count > TB_SENSOR_MAX_RAILS)
        return;
    const struct tb_sensor_model *md = &m->plan.cadence.model;
    const char *said = strstr(md->from, "from probe") ? "a kept probe result, +-3%"
                       : "update_interval or the documented default, +-10%";
    size_t len = (size_t)snprintf(line, n, "self-calibrated from the night's own load steps "
                                  "(%d over %d size(s); prior: %s):", m->cal_steps,
                                  m->cal_sizes, said);
    for (int r = first; r < first + count && len < n; r++) {
        const struct tb_selfcal *c = &m->cal[r];
        if (c->steps < TB_SELFCAL_MIN_STEPS)
            len += (size_t)snprintf(line + len, n - len, " %s tau %.1f +- %.1f ms (too few "
                                    "steps: the board's word)", m->plan.rails.name[r],
                                    c->tau_ms, c->tau_sd_ms);
        else if (c->at_bound)   /* the bound found, not the chip: no sd, no estimate */
            len += (size_t)snprintf(line + len, n - len, " %s tau %.1f ms, dead time %.1f ms: "
                                    "at the search bound (not identified; what fits the "
                                    "readings as stamped, not the chip's constants);",
                                    m->plan.rails.name[r], c->tau_ms, c->delay_ms);
        else
            len += (size_t)snprintf(line + len, n - len, " %s tau %.1f +- %.1f ms (said %.1f, "
                                    "%+.1f%%), dead time %.1f +- %.1f ms;",
                                    m->plan.rails.name[r], c->tau_ms, c->tau_sd_ms,
                                    m->cal_prior_ms[r], 100 * (c->tau_ms / m->cal_prior_ms[r] - 1),
                                    c->delay_ms, c->delay_sd_ms);
    }
    if (len < n)
        snprintf(line + len, n - len, " every block inverted with these, from its switch + "
                 "%.1f ms; each interval carries their uncertainty, the register's step where "
                 "the readings show one, and a model floor of %.3f%%", m->delay_used_ms,
                 100 * TB_METER_MODEL_FLOOR);
}
