/* sensor_model.c: THE table of what each power source's reading is, with the documents
 * each row rests on, and the few functions that fill and say a model. A source's cadence
 * op starts from its row and replaces a constant where its driver exposes it (hwmon's
 * update_interval). Not here: reading any file (the sources do), the meter's arithmetic. */
#include "power/sensor_model.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct row {
    const char *key;
    enum tb_sensor_kind kind;
    double tau_ms, period_ms, window_ms;
    const char *doc;
} rows[] = {
    /* TI SBOS576, "Averaging function": after each conversion cycle the chip adds
     * (sample - register) / AVG to its output register, an exponential average of time
     * constant AVG x cycle; Linux Documentation/hwmon/ina3221.rst: update_interval =
     * channels x samples x (bus + shunt conversion time), that same product. L4T's
     * nvpower.sh sets 3 x 512 x (140 + 140 us) = 430 ms on Xavier and Orin. */
    { "ina3221-hwmon", TB_SENSOR_EMA, 429.6, 0, 0,
      "INA3221 averaging (TI SBOS576 'Averaging function'), tau = update_interval x "
      "(1 - 1/(2 samples)) (Linux hwmon/ina3221.rst); documented default 429.6 ms (L4T "
      "nvpower.sh: 512 samples, 430 ms)" },
    /* The R32 ina3221x IIO driver runs the same chip; in continuous mode it averages 64
     * conversions of about 6.6 ms cycles (the sensor issue's reading of the L4T R32
     * driver: about 422 ms); no board here has confirmed it. */
    { "ina3221x-continuous", TB_SENSOR_EMA, 419.1, 0, 0,
      "INA3221 averaging (TI SBOS576), ina3221x continuous mode: 64 samples of 6.6 ms "
      "cycles, tau 419 ms (documented default, not confirmed on a board)" },
    { "ina3221x-triggered", TB_SENSOR_POINT, 0, 0, 0,
      "ina3221x triggered mode: each read one conversion, no averaging" },
    /* tegrastats on JetPack 5/6 reads the hwmon chips' registers, at its own interval */
    { "tegrastats", TB_SENSOR_EMA, 429.6, 0, 0,
      "tegrastats reads the INA3221 registers (TI SBOS576 averaging) at its interval; "
      "documented default tau 429.6 ms (L4T nvpower.sh: 512 samples, 430 ms)" },
    /* Yang et al., "Accurate and Convenient Energy Measurements for GPUs", SC24: on the
     * A100 and H100 the power behind the counter is sampled 25 ms of every 100 ms */
    { "nvml-energy", TB_SENSOR_COUNTER, 0, 100, 25,
      "nvmlDeviceGetTotalEnergyConsumption: sampled 25 ms of every 100 ms on A100/H100 "
      "(Yang et al., SC24)" },
    { "nvml-power", TB_SENSOR_MEAN, 1000, 0, 0,
      "nvmlDeviceGetPowerUsage: a 1 s mean on Ampere and newer (NVML reference)" },
};

int tb_sensor_model_documented(const char *key, int rails, struct tb_sensor_model *m)
{
    memset(m, 0, sizeof(*m));
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (strcmp(rows[i].key, key))
            continue;
        m->kind = rows[i].kind;
        for (int r = 0; r < rails && r < TB_SENSOR_MAX_RAILS; r++)
            m->tau_ms[r] = rows[i].tau_ms;
        m->period_ms = rows[i].period_ms;
        m->window_ms = rows[i].window_ms;
        snprintf(m->from, sizeof(m->from), "%s", rows[i].doc);
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
