/* sensor_model.c: the few functions that fill and say what a power source's reading is.
 * The documented models themselves are rows of each source's own file, reached through its
 * row of the source table (tb_power_ops.models, sources.c); a source's cadence op starts
 * from its row and replaces a constant where its driver exposes it (hwmon's
 * update_interval). Not here: reading any file (the sources do), the meter's arithmetic. */
#include "power/sensor_model.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int tb_sensor_model_documented(const struct tb_sensor_doc *rows, const char *key, int rails,
                               struct tb_sensor_model *m)
{
    memset(m, 0, sizeof(*m));
    for (const struct tb_sensor_doc *d = rows; d && d->key; d++) {
        if (strcmp(d->key, key))
            continue;
        m->kind = d->kind;
        for (int r = 0; r < rails && r < TB_SENSOR_MAX_RAILS; r++)
            m->tau_ms[r] = d->tau_ms;
        m->period_ms = d->period_ms;
        m->window_ms = d->window_ms;
        snprintf(m->from, sizeof(m->from), "%s", d->doc);
        return 0;
    }
    return -1;
}

void tb_sensor_model_set_tau(struct tb_sensor_model *m, int first, int count, double tau_ms,
                             const char *said)
{
    for (int r = first; r < first + count && r < TB_SENSOR_MAX_RAILS; r++)
        if (r >= 0)
            m->tau_ms[r] = tau_ms;
    size_t len = strlen(m->from);
    if (said && len < sizeof(m->from))
        snprintf(m->from + len, sizeof(m->from) - len, "; %s", said);
}

double tb_sensor_model_probed(struct tb_sensor_model *m, int rails, int rail,
                              enum tb_sensor_kind kind, double tau_ms, const char *file,
                              const char *date, const char *before)
{
    if (rails > TB_SENSOR_MAX_RAILS)
        rails = TB_SENSOR_MAX_RAILS;
    bool had = m->kind == TB_SENSOR_EMA || m->kind == TB_SENSOR_BOXCAR ||
               m->kind == TB_SENSOR_MEAN;
    double old = had && rail < rails ? tb_sensor_model_tau_ms(m, rail < 0 ? 0 : rail) : 0;
    double was[TB_SENSOR_MAX_RAILS];
    memcpy(was, m->tau_ms, sizeof(was));
    for (int r = 0; r < rails; r++)   /* the probed chip's rails: one constant before */
        if (rail < 0 || rail >= rails || was[r] == was[rail])
            m->tau_ms[r] = kind == TB_SENSOR_POINT ? 0 : tau_ms;
    enum tb_sensor_kind old_kind = m->kind;
    m->kind = kind;
    int len = snprintf(m->from, sizeof(m->from), "from probe %s (%s)", file, date);
    double rel = old > 0 ? (kind == TB_SENSOR_POINT ? -1 : tau_ms / old - 1) : NAN;
    if (len < 0 || (size_t)len >= sizeof(m->from) || isnan(rel))
        return rel;
    const char *who = before && before[0] ? before : "the model before";
    if (fabs(rel) <= TB_SENSOR_PROBE_AGREE && kind == old_kind)
        snprintf(m->from + len, sizeof(m->from) - (size_t)len, "; %s said %s %.0f ms: agrees "
                 "(%+.0f%%)", who, tb_sensor_kind_name(old_kind), old, 100 * rel);
    else
        snprintf(m->from + len, sizeof(m->from) - (size_t)len, "; %s said %s %.0f ms: the "
                 "probe DISAGREES (%s %.0f ms, %+.0f%%)", who, tb_sensor_kind_name(old_kind),
                 old, tb_sensor_kind_name(kind), kind == TB_SENSOR_POINT ? 0 : tau_ms,
                 100 * rel);
    return rel;
}

double tb_sensor_model_hwmon_tau_ms(double update_interval_ms, long samples)
{
    if (samples <= 0)
        return update_interval_ms;
    if (samples == 1)
        return 0;
    double cycle = update_interval_ms / (double)samples;
    return -cycle / log1p(-1.0 / (double)samples);
}

double tb_sensor_model_tau_ms(const struct tb_sensor_model *m, int rail)
{
    if (rail < 0 || rail >= TB_SENSOR_MAX_RAILS)
        return 0;
    double t = m->tau_ms[rail];
    return isfinite(t) && t > 0 ? t : 0;
}

double tb_sensor_model_max_tau_ms(const struct tb_sensor_model *m, int rails)
{
    double t = 0;
    for (int r = 0; r < rails && r < TB_SENSOR_MAX_RAILS; r++)
        t = fmax(t, tb_sensor_model_tau_ms(m, r));
    return t;
}

const char *tb_sensor_kind_name(enum tb_sensor_kind k)
{
    static const char *const names[] = { "unknown", "boxcar", "ema", "point", "counter", "mean" };
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

void tb_sensor_model_line(const struct tb_sensor_model *m, int rails, char *line, size_t n)
{
    size_t len = (size_t)snprintf(line, n, "%s", tb_sensor_kind_name(m->kind));
    if (m->kind == TB_SENSOR_COUNTER && len < n)
        len += (size_t)snprintf(line + len, n - len, ", period %.0f ms, sampled %.0f ms of it",
                                m->period_ms, m->window_ms);
    if ((m->kind == TB_SENSOR_EMA || m->kind == TB_SENSOR_BOXCAR ||
         m->kind == TB_SENSOR_MEAN) && len < n) {
        bool same = true;   /* one constant for all, or each rail's */
        for (int r = 1; r < rails && r < TB_SENSOR_MAX_RAILS; r++)
            same &= m->tau_ms[r] == m->tau_ms[0];
        len += (size_t)snprintf(line + len, n - len, ", tau");
        for (int r = 0; r < (same ? 1 : rails) && r < TB_SENSOR_MAX_RAILS && len < n; r++)
            len += (size_t)snprintf(line + len, n - len, "%s%.0f", r ? "/" : " ",
                                    tb_sensor_model_tau_ms(m, r));
        if (len < n)
            len += (size_t)snprintf(line + len, n - len, " ms%s", same ? "" : " by rail");
    }
    if (m->read_ms > 0 && len < n)
        len += (size_t)snprintf(line + len, n - len, ", read every %.0f ms by the source",
                                m->read_ms);
    if (m->from[0] && len < n)
        snprintf(line + len, n - len, " (%s)", m->from);
}
