/* sensor_model.h: what a power source's reading is, in one place: its kind (an
 * exponential average, a boxcar, a point sample, a part-time energy counter, a mean),
 * its constants per rail and where they came from (the driver's sysfs files, else the
 * documented default of the source's own rows, struct tb_sensor_doc). The meter
 * (src/energy/meter.c) picks its blocks and its arithmetic by it; the log's
 * `# power_cadence:` line says it.
 * Not here: reading a sensor (one file per source), the arithmetic (energy.c). */
#ifndef TB_SENSOR_MODEL_H
#define TB_SENSOR_MODEL_H

#include <stddef.h>

#define TB_SENSOR_MAX_RAILS 16

enum tb_sensor_kind {
    TB_SENSOR_UNKNOWN = 0,   /* a source that does not say: blocks of whole updates */
    TB_SENSOR_BOXCAR,        /* a mean over tau_ms that changes at its end */
    TB_SENSOR_EMA,           /* r' = (P - r) / tau: the INA3221's averaging (SBOS576) */
    TB_SENSOR_POINT,         /* each read one conversion: a moment, no average */
    TB_SENSOR_COUNTER,       /* an energy counter summing sampled power every period_ms */
    TB_SENSOR_MEAN,          /* a sliding mean over tau_ms (NVML's power reading) */
};

struct tb_sensor_model {
    enum tb_sensor_kind kind;
    double tau_ms[TB_SENSOR_MAX_RAILS];   /* EMA: each rail's chip's time constant;
                                           * BOXCAR, MEAN: the span averaged; 0: none */
    double read_ms;          /* the register is read by another program this often
                                (tegrastats' interval), not at our poll; 0: at our poll */
    double period_ms;        /* COUNTER: the counter's period */
    double window_ms;        /* COUNTER: the part of each period its power is sampled */
    char from[1024];         /* where the kind and each constant came from */
};

/* One documented model of a source's reading: its key, kind and constants, and the
 * documents they rest on. Each source keeps its rows in its own file, ended by a row whose
 * key is NULL, and its row of the source table points at them (tb_power_ops.models). */
struct tb_sensor_doc {
    const char *key;         /* "ina3221-hwmon", "tegrastats", "nvml-energy", ... */
    enum tb_sensor_kind kind;
    double tau_ms, period_ms, window_ms;   /* as struct tb_sensor_model's */
    const char *doc;         /* where the kind and each constant came from */
};

/* The documented model of key among rows (ended by a NULL key) for rails rails, into m: its
 * kind, its constants on every rail and, in m->from, the source it rests on. -1 (m
 * UNKNOWN) for a key the rows lack. tb_power_model_documented (power.h) looks a key up
 * among every source's rows. */
int tb_sensor_model_documented(const struct tb_sensor_doc *rows, const char *key, int rails,
                               struct tb_sensor_model *m);
/* Rails [first, first + count) belong to a chip whose time constant the driver says:
 * tau_ms on them, and what says it appended to m->from. */
void tb_sensor_model_set_tau(struct tb_sensor_model *m, int first, int count, double tau_ms,
                             const char *said);
/* The time constant of the INA3221's average from what hwmon says: the datasheet's
 * recursion r_k = r_(k-1) + (x_k - r_(k-1)) / N, one step a conversion cycle (SBOS576,
 * "Averaging function"; update_interval = N cycles, Linux hwmon/ina3221.rst), has the step
 * response 1 - (1 - 1/N)^k after k cycles: that of the continuous average r' = (P - r) /
 * tau at the cycles' ends for tau = -cycle / ln(1 - 1/N), about update_interval x (1 -
 * 1/(2N)) (429.6 ms for 512 samples and 430 ms; 419.1 for 64 and 422.4). The inversion
 * reads the polled readings as that continuous average. samples <= 0 (not said): N taken
 * as large, tau = update_interval; 1: no average, 0. */
double tb_sensor_model_hwmon_tau_ms(double update_interval_ms, long samples);
/* What the board's own probe measured (`probe-power`'s kept result) in place of what sysfs
 * or the table said: it measured this board, so it outranks both. kind and tau_ms go on the
 * rails of the chip the probe read (those whose constant before equals rail's; rail < 0:
 * every rail); from becomes "from probe FILE (DATE)", then what the constant was before and
 * where it came from (before: "sysfs", "the documented default"), and whether the probe
 * agrees with it (within TB_SENSOR_PROBE_AGREE) or DISAGREES, with both numbers. Returns the
 * relative difference probe / before - 1 (NAN where there was no constant before). */
#define TB_SENSOR_PROBE_AGREE 0.10
double tb_sensor_model_probed(struct tb_sensor_model *m, int rails, int rail,
                              enum tb_sensor_kind kind, double tau_ms, const char *file,
                              const char *date, const char *before);
/* The time constant of rail (EMA), 0 where it has none. */
double tb_sensor_model_tau_ms(const struct tb_sensor_model *m, int rail);
/* The largest time constant over rails [0, rails). */
double tb_sensor_model_max_tau_ms(const struct tb_sensor_model *m, int rails);
const char *tb_sensor_kind_name(enum tb_sensor_kind k);
/* One line of the model for the log: "ema, tau 430 ms (VDD_IN) [from]". */
void tb_sensor_model_line(const struct tb_sensor_model *m, int rails, char *line, size_t n);

#endif
