/* format/openmetrics.h: a night's headline figures in the Prometheus text format that
 * node_exporter's textfile collector reads (and OpenMetrics' "# EOF" at its end): one gauge
 * family per figure, in base units (bytes per second, joules per byte, seconds), no
 * timestamps (the collector refuses them). The caller picks the figures (one series per
 * kernel, size, element and power-mode step); this file only writes them. Not a general
 * metrics library: no counters, no histograms. */
#ifndef TB_FORMAT_OPENMETRICS_H
#define TB_FORMAT_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One series: its labels, then its figures as the log has them (NAN: none, no sample). The
 * device (its name, and its own identity where the log has one: two GPUs of one model in one
 * host are two series) is a label of every series. */
struct tb_om_series {
    const char *device, *device_id;   /* "" (or NULL) none */
    const char *kernel, *elem;
    const char *power_mode;       /* nvpmodel's mode, "" off a Jetson */
    long rows, cols;
    double gpu_cap_mhz, emc_cap_mhz;   /* a mode sweep's caps asked; NAN none */
    double gbps;                  /* GB/s (1e9 bytes per second) */
    double frac_copy;             /* of the copy kernel's GB/s beside it */
    double energy_ratio, energy_ratio_lo, energy_ratio_hi;   /* and its 95% interval */
    double j_per_gb;              /* joules per GB (1e9 bytes) */
};

struct tb_om_alarm;

/* The night as a whole. */
struct tb_om_night {
    const char *board, *host;
    const char *device, *device_id;   /* the night's device, as its series carry it ("" or */
                                      /* NULL: none): two nights of one host on two GPUs */
                                      /* are two series of each night family too */
    const char *end;              /* the log's end line ("complete", "interrupted by ...") */
    bool ok;                      /* the run's exit status is 0 */
    double seconds;               /* the night's time, start of the sweep to its end */
    size_t ok_points, failed_points, verify_failed_points, skipped_points;
    const struct tb_om_alarm *alarms;   /* the regression alarm's state of the night's series */
    size_t nalarms;                     /* (tb_openmetrics_alarms_write's families; 0 none) */
    const char *alarms_missing;         /* why the state could not be read (NULL: it was, */
                                        /* or not asked): transpose_bench_regression_state_missing */
};

/* Writes the document to out; 0, or -1 when out took an error (errno set). Label values are
 * escaped as the format asks (backslash, double quote, line feed), any other control byte
 * written as a space, and a byte that is not part of valid UTF-8 (a board or mode name in
 * another encoding) as U+FFFD: the format is UTF-8, and one bad byte makes the whole file
 * unreadable to Prometheus. */
int tb_openmetrics_write(FILE *out, const struct tb_om_night *night,
                         const struct tb_om_series *s, size_t n);

/* The same into path: our own temporary beside it, renamed into place (lib/outfile.h's rule),
 * so a collector reading the folder never sees half a file. 0, or -1 after an error naming
 * the file. */
int tb_openmetrics_file(const char *who, const char *path, const struct tb_om_night *night,
                        const struct tb_om_series *s, size_t n);

/* ---- history's regression alarm (report/history_alarm.h) ---- */

/* A series as history knows it: every label of it. */
struct tb_om_key {
    const char *board, *host, *device, *device_id, *kernel, *elem, *power_mode;
    long rows, cols;
    double gpu_cap_mhz, emc_cap_mhz;   /* NAN none: no label */
};

/* One series' state for one figure ("gbps", "energy_ratio", "j_per_gb"). */
struct tb_om_alarm {
    struct tb_om_key key;
    const char *figure;
    bool regressed;               /* its latest change is a regression */
    double change_ratio;          /* that change (-0.031: 3.1% less); NAN none: no sample */
    double change_ci95_ratio;     /* its 95% interval's half-width */
    double began_seconds;         /* its first night, 00:00 UTC, in seconds since 1970 */
};

/* transpose_bench_regression{...,figure=} 1/0 for every series, the change, its interval and
 * the night it began for each regressed one; then "# EOF". 0, or -1 (errno set). */
int tb_openmetrics_alarms_write(FILE *out, const struct tb_om_alarm *a, size_t n);
/* The same into path, as tb_openmetrics_file. */
int tb_openmetrics_alarms_file(const char *who, const char *path, const struct tb_om_alarm *a,
                               size_t n);

#endif
