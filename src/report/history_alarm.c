/* history_alarm.c: see history_alarm.h. Each figure is scanned over the nights that have it
 * (an energy figure is missing on nights without a power source); its changes are mapped back
 * to the series' nights. Not here: the rule (alarm.c). */
#include "report/history_alarm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

/* Two caps asked, NAN (none asked) after every cap (tb_log_step_cmp). */
int tb_history_series_cmp(const struct tb_log_rec *x, const struct tb_log_rec *y)
{
    int c;
    if ((c = strcmp(x->board, y->board)) ||
        (c = tb_log_host_cmp(x->host, x->host_id, y->host, y->host_id)) ||
        (c = strcmp(x->device, y->device)) || (c = strcmp(x->device_id, y->device_id)) ||
        (c = strcmp(x->kernel, y->kernel)) || (c = strcmp(x->elem, y->elem)) ||
        (c = tb_log_step_cmp(x, y)))
        return c;
    if (x->rows != y->rows)
        return x->rows < y->rows ? -1 : 1;
    return (x->cols > y->cols) - (x->cols < y->cols);
}

int tb_history_night_cmp(const void *a, const void *b)
{
    const struct tb_log_rec *x = a, *y = b;
    int c;
    if ((c = tb_history_series_cmp(x, y)) || (c = strcmp(x->night, y->night)))
        return c;
    return (x->gbps < y->gbps) - (x->gbps > y->gbps);   /* best first */
}

static const char *const fig_names[TB_HFIG_N] = { "gbps", "energy_ratio", "j_per_gb" };
static const char *const fig_text[TB_HFIG_N] = { "GB/s", "energy ratio", "J/GB" };

const char *tb_hfig_name(enum tb_hfig f) { return fig_names[f]; }

bool tb_hfig_adverse(enum tb_hfig f, int dir) { return f == TB_HFIG_GBPS ? dir < 0 : dir > 0; }

static double fig_of(const struct tb_log_rec *r, enum tb_hfig f)
{
    return f == TB_HFIG_GBPS ? r->gbps : f == TB_HFIG_RATIO ? r->energy_ratio : r->j_per_gb;
}

/* One figure: its nights' values into x (idx: their night), scanned, mapped back. */
static int one_figure(const struct tb_log_rec *const *n, size_t count, enum tb_hfig f,
                      struct tb_series_alarm *sa, double *x, size_t *idx, double *lv,
                      unsigned char *st)
{
    size_t m = 0;
    for (size_t i = 0; i < count; i++) {
        double v = fig_of(n[i], f);
        if (isfinite(v) && v > 0) {
            x[m] = v;
            idx[m++] = i;
        }
    }
    sa->nights[f] = m;
    if (tb_alarm_scan(x, m, NULL, &sa->a[f], lv, st) < 0)
        return -1;
    for (size_t c = 0; c < sa->a[f].nch; c++) {
        sa->a[f].ch[c].begin = idx[sa->a[f].ch[c].begin];
        sa->a[f].ch[c].found = idx[sa->a[f].ch[c].found];
    }
    return 0;
}

int tb_history_alarm(const struct tb_log_rec *const *n, size_t count, struct tb_series_alarm *sa,
                     double *level, unsigned char *night)
{
    memset(sa, 0, sizeof(*sa));
    size_t c = count ? count : 1;
    double *x = malloc(2 * c * sizeof(*x));
    size_t *idx = malloc(c * sizeof(*idx));
    unsigned char *st = malloc(c);
    int rc = x && idx && st ? 0 : error("history: out of memory for %zu nights", count);
    for (int f = 0; f < TB_HFIG_N && rc == 0; f++) {
        double *lv = x + c;
        rc = one_figure(n, count, (enum tb_hfig)f, sa, x, idx, lv, st);
        if (rc < 0)
            error("history: out of memory for %zu nights", count);
        for (size_t j = 0; rc == 0 && f == TB_HFIG_GBPS && j < sa->nights[f]; j++) {
            if (level)   /* every usable row has GB/s: night j is night idx[j] */
                level[idx[j]] = lv[j];
            if (night)
                night[idx[j]] = st[j];
        }
    }
    free(x);
    free(idx);
    free(st);
    return rc;
}

bool tb_series_regressed(const struct tb_series_alarm *sa, enum tb_hfig f)
{
    const struct tb_alarm_change *c = tb_alarm_latest(&sa->a[f]);
    return c && tb_hfig_adverse(f, c->dir);
}

void tb_history_alarm_note(const struct tb_series_alarm *sa, const struct tb_log_rec *const *n,
                           size_t i, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int f = TB_HFIG_RATIO; f < TB_HFIG_N; f++)
        for (size_t c = 0; c < sa->a[f].nch; c++) {
            const struct tb_alarm_change *ch = &sa->a[f].ch[c];
            if (ch->begin != i || k >= len)
                continue;
            k += (size_t)snprintf(buf + k, len - k, "%s%s %+.1f%% +- %.1f%% from here (flagged "
                                  "%s)", k ? "; " : "", fig_text[f], ch->change_pct,
                                  ch->ci95_pct, n[ch->found]->night);
        }
}

/* The median of the figure get() over up to 3 nights before b; NAN none. */
static double before_median(const struct tb_log_rec *const *n, size_t b,
                            double (*get)(const struct tb_log_rec *))
{
    double v[3];
    size_t k = 0;
    for (size_t j = b > 3 ? b - 3 : 0; j < b; j++)
        if (isfinite(get(n[j])))
            v[k++] = get(n[j]);
    return k ? (k == 1 ? v[0] : k == 2 ? (v[0] + v[1]) / 2
               : fmax(fmin(v[0], v[1]), fmin(fmax(v[0], v[1]), v[2]))) : NAN;
}

static double temp_of(const struct tb_log_rec *r) { return r->gpu_temp_c; }
static double peak_of(const struct tb_log_rec *r) { return r->peak_gbps; }

/* The images_sha256 line of the log of r's night ("" none found). */
static const char *images_of(const struct tb_logset *s, const struct tb_log_rec *r)
{
    for (size_t i = 0; s && i < s->nlogs; i++) {
        const struct tb_log_info *l = &s->logs[i];
        if (!strcmp(l->night, r->night) && !strcmp(l->board, r->board) &&
            !tb_log_host_cmp(l->host, l->host_id, r->host, r->host_id) && l->images[0])
            return l->images;
    }
    return "";
}

void tb_history_alarm_conditions(const struct tb_log_rec *const *n, size_t b,
                                 const struct tb_logset *s, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    if (b == 0)
        return;
    const char *was = images_of(s, n[b - 1]), *now = images_of(s, n[b]);
    if (was[0] && now[0] && strcmp(was, now))
        k += (size_t)snprintf(buf, len, "kernel images %.12s -> %.12s", was, now);
    double t0 = before_median(n, b, temp_of), p0 = before_median(n, b, peak_of);
    if (k < len && fabs(n[b]->gpu_temp_c - t0) >= 2)   /* NAN: no temperature logged */
        k += (size_t)snprintf(buf + k, len - k, "%sGPU %.0f -> %.0f C", k ? ", " : "", t0,
                              n[b]->gpu_temp_c);
    if (k < len && fabs(n[b]->peak_gbps / p0 - 1) > 0.01)
        k += (size_t)snprintf(buf + k, len - k, "%sceiling %.1f -> %.1f GB/s", k ? ", " : "",
                              p0, n[b]->peak_gbps);
    if (k < len && n[b]->throttle_cause[0] && strcmp(n[b]->throttle_cause, n[b - 1]->throttle_cause))
        k += (size_t)snprintf(buf + k, len - k, "%sthrottled: %s", k ? ", " : "",
                              n[b]->throttle_cause);
    if (k < len && n[b]->power_capped != n[b - 1]->power_capped)
        snprintf(buf + k, len - k, "%s%s", k ? ", " : "",
                 n[b]->power_capped ? "power-capped" : "no longer power-capped");
}

/* Seconds since 1970 of a "YYYY-MM-DD" night at 00:00 UTC (days from the civil date, as
 * Howard Hinnant's days_from_civil); NAN when it is no such date. */
static double night_seconds(const char *night)
{
    int y, m, d;
    if (sscanf(night, "%4d-%2d-%2d", &y, &m, &d) != 3 || m < 1 || m > 12 || d < 1 || d > 31)
        return NAN;
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (double)(era * 146097 + doe - 719468) * 86400.0;
}

size_t tb_history_alarm_metrics(const struct tb_series_alarm *sa,
                                const struct tb_log_rec *const *n, struct tb_om_alarm *om)
{
    const struct tb_log_rec *r = n[0];
    size_t k = 0;
    for (int f = 0; f < TB_HFIG_N; f++) {
        if (!sa->nights[f])
            continue;
        const struct tb_alarm_change *c = tb_alarm_latest(&sa->a[f]);
        bool bad = c && tb_hfig_adverse((enum tb_hfig)f, c->dir);
        om[k++] = (struct tb_om_alarm){
            .key = { .board = r->board, .host = r->host, .device = r->device,
                     .device_id = r->device_id, .kernel = r->kernel, .elem = r->elem,
                     .power_mode = r->power_mode, .rows = r->rows, .cols = r->cols,
                     .gpu_cap_mhz = r->gpu_cap_mhz, .emc_cap_mhz = r->emc_cap_mhz },
            .figure = fig_names[f], .regressed = bad,
            .change_ratio = bad ? c->change_pct / 100 : NAN,
            .change_ci95_ratio = bad ? c->ci95_pct / 100 : NAN,
            .began_seconds = bad ? night_seconds(n[c->begin]->night) : NAN,
        };
    }
    return k;
}
