/* openmetrics.c: see openmetrics.h. The text format's rules (prometheus.io, "Exposition
 * formats", text format 0.0.4, and the OpenMetrics 1.0 specification): all samples of a
 * family together after its # HELP and # TYPE lines; label values in double quotes with
 * backslash, double quote and line feed escaped; numbers as Go's ParseFloat reads them; a
 * sample may end with a timestamp, which the textfile collector refuses, so none here. */
#include "format/openmetrics.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "lib/util.h"

/* The length of the valid UTF-8 sequence at p (RFC 3629: no overlong form, no surrogate,
 * nothing past U+10FFFF), 0 when the byte at p starts none. */
static size_t utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
        return 0;
    return n;
}

/* A label value: the three escapes the format has; other control bytes (a log's text is
 * hostile) as a space, never a broken line; a byte of no valid UTF-8 as U+FFFD. */
static void put_value(FILE *out, const char *v)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p;) {
        size_t n = utf8_len(p);
        if (n == 0) {
            fputs("\xef\xbf\xbd", out);   /* U+FFFD, the replacement character */
            p++;
            continue;
        }
        if (n > 1)
            fwrite(p, 1, n, out);
        else if (*p == '\\')
            fputs("\\\\", out);
        else if (*p == '"')
            fputs("\\\"", out);
        else if (*p == '\n')
            fputs("\\n", out);
        else
            fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, out);
        p += n;
    }
    fputc('"', out);
}

static void put_label(FILE *out, bool *first, const char *name, const char *v)
{
    fputs(*first ? "{" : ",", out);
    *first = false;
    fprintf(out, "%s=", name);
    put_value(out, v);
}

/* A number: 12 digits (the log has fewer); the format spells infinities +Inf and -Inf. */
static void put_number(FILE *out, double v)
{
    if (isnan(v))
        fputs("NaN", out);
    else if (isinf(v))
        fputs(v > 0 ? "+Inf" : "-Inf", out);
    else
        fprintf(out, "%.12g", v);
}

static void family(FILE *out, const char *name, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* The night's labels, then a series' own. */
static void night_labels(FILE *out, bool *first, const struct tb_om_night *n)
{
    put_label(out, first, "board", n->board);
    put_label(out, first, "host", n->host);
}

/* The night families' labels: the night's and its device's (a series carries its own device
 * in key_labels), so that two nights of one host on two GPUs, each with its own file in the
 * collector's folder, are not one series twice (node_exporter refuses the duplicate). */
static void night_device_labels(FILE *out, bool *first, const struct tb_om_night *n)
{
    night_labels(out, first, n);
    put_label(out, first, "device", n->device ? n->device : "");
    if (n->device_id && n->device_id[0])
        put_label(out, first, "device_id", n->device_id);
}

/* A series' labels after the board's and host's: the device, the point, its mode step. */
static void key_labels(FILE *out, bool *first, const struct tb_om_key *k)
{
    char num[32];
    put_label(out, first, "device", k->device);
    if (k->device_id && k->device_id[0])   /* two GPUs of one model in one host */
        put_label(out, first, "device_id", k->device_id);
    put_label(out, first, "kernel", k->kernel);
    snprintf(num, sizeof(num), "%ld", k->rows);
    put_label(out, first, "rows", num);
    snprintf(num, sizeof(num), "%ld", k->cols);
    put_label(out, first, "cols", num);
    put_label(out, first, "element", k->elem);
    put_label(out, first, "power_mode", k->power_mode);
    /* a mode sweep's caps: a label only when asked, so that other nights' series keep
     * their label set */
    if (isfinite(k->gpu_cap_mhz)) {
        snprintf(num, sizeof(num), "%.0f", k->gpu_cap_mhz);
        put_label(out, first, "gpu_cap_mhz", num);
    }
    if (isfinite(k->emc_cap_mhz)) {
        snprintf(num, sizeof(num), "%.0f", k->emc_cap_mhz);
        put_label(out, first, "emc_cap_mhz", num);
    }
}

static void series_labels(FILE *out, const struct tb_om_night *n, const struct tb_om_series *s)
{
    bool first = true;
    struct tb_om_key k = { n->board, n->host, s->device, s->device_id, s->kernel, s->elem,
                           s->power_mode, s->rows, s->cols, s->gpu_cap_mhz, s->emc_cap_mhz };
    night_labels(out, &first, n);
    key_labels(out, &first, &k);
    fputs("} ", out);
}

/* The per-series families: which figure, in which base unit. */
enum om_fig { FIG_BPS, FIG_COPY, FIG_RATIO, FIG_RATIO_LO, FIG_RATIO_HI, FIG_J_PER_B };
static const struct {
    enum om_fig fig;
    const char *name, *help;
} figures[] = {
    { FIG_BPS, "transpose_bench_bandwidth_bytes_per_second",
      "Effective bandwidth of the best block shape (bytes read and written per second)." },
    { FIG_COPY, "transpose_bench_copy_ratio",
      "That bandwidth over the copy kernel's at the same size (1 = as fast as a copy)." },
    { FIG_RATIO, "transpose_bench_energy_ratio",
      "Energy per byte over the copy kernel's beside it (1 = as cheap as a copy)." },
    { FIG_RATIO_LO, "transpose_bench_energy_ratio_lower",
      "Lower bound of the energy ratio's 95% interval." },
    { FIG_RATIO_HI, "transpose_bench_energy_ratio_upper",
      "Upper bound of the energy ratio's 95% interval." },
    { FIG_J_PER_B, "transpose_bench_energy_joules_per_byte",
      "GPU energy per byte moved (joules per byte)." },
};

static double figure(const struct tb_om_series *s, enum om_fig f)
{
    switch (f) {
    case FIG_BPS: return s->gbps * 1e9;
    case FIG_COPY: return s->frac_copy;
    case FIG_RATIO: return s->energy_ratio;
    case FIG_RATIO_LO: return s->energy_ratio_lo;
    case FIG_RATIO_HI: return s->energy_ratio_hi;
    case FIG_J_PER_B: return s->j_per_gb / 1e9;
    }
    return NAN;
}

static void night_families(FILE *out, const struct tb_om_night *n)
{
    bool first = true;
    family(out, "transpose_bench_night_duration_seconds",
           "The night's time, the sweep's start to its end.");
    fputs("transpose_bench_night_duration_seconds", out);
    night_device_labels(out, &first, n);
    fputs("} ", out);
    put_number(out, n->seconds);
    fputc('\n', out);
    family(out, "transpose_bench_night_ok",
           "1 when the night ended well (exit 0), else 0; end: the log's end line.");
    first = true;
    fputs("transpose_bench_night_ok", out);
    night_device_labels(out, &first, n);
    put_label(out, &first, "end", n->end);
    fprintf(out, "} %d\n", n->ok ? 1 : 0);
    family(out, "transpose_bench_points", "Points of the night by result.");
    const struct { const char *result; size_t count; } pts[] = {
        { "ok", n->ok_points }, { "failed", n->failed_points },
        { "verify_failed", n->verify_failed_points }, { "skipped", n->skipped_points },
    };
    for (size_t i = 0; i < ARRAY_SIZE(pts); i++) {
        first = true;
        fputs("transpose_bench_points", out);
        night_device_labels(out, &first, n);
        put_label(out, &first, "result", pts[i].result);
        fprintf(out, "} %zu\n", pts[i].count);
    }
}

static void alarm_families_write(FILE *out, const struct tb_om_alarm *a, size_t n);

int tb_openmetrics_write(FILE *out, const struct tb_om_night *night,
                         const struct tb_om_series *s, size_t n)
{
    for (size_t f = 0; f < ARRAY_SIZE(figures); f++) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            double v = figure(&s[i], figures[f].fig);
            if (!isfinite(v))
                continue;   /* no figure, no sample (a family without one is left out) */
            if (!any)
                family(out, figures[f].name, figures[f].help);
            any = true;
            fputs(figures[f].name, out);
            series_labels(out, night, &s[i]);
            put_number(out, v);
            fputc('\n', out);
        }
    }
    night_families(out, night);
    if (night->alarms_missing) {   /* no transpose_bench_regression* series: said why */
        bool first = true;
        family(out, "transpose_bench_regression_state_missing",
               "1: the night's regression state was not read (reason says why), so the "
               "file has no transpose_bench_regression series.");
        fputs("transpose_bench_regression_state_missing", out);
        night_device_labels(out, &first, night);
        put_label(out, &first, "reason", night->alarms_missing);
        fputs("} 1\n", out);
    }
    alarm_families_write(out, night->alarms, night->nalarms);
    fputs("# EOF\n", out);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* What a file holds: a night's figures, or history's alarms. */
struct om_doc {
    const struct tb_om_night *night;
    const struct tb_om_series *s;
    const struct tb_om_alarm *a;
    size_t n;
};

static int doc_write(FILE *f, const struct om_doc *d)
{
    return d->night ? tb_openmetrics_write(f, d->night, d->s, d->n)
                    : tb_openmetrics_alarms_write(f, d->a, d->n);
}

static int doc_file(const char *who, const char *path, const struct om_doc *d)
{
    char tmp[PATH_MAX + 32];
    int fd = tb_outfile_tmp(path, tmp, sizeof(tmp));
    if (fd < 0)
        return error("%s: cannot write '%s': %s", who, path, strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);   /* ours, made above */
        return error("%s: cannot write '%s': %s", who, path, strerror(e));
    }
    int rc = doc_write(f, d);
    int e = errno ? errno : EIO;
    /* on the disk before the rename: a crash never leaves the name holding half a file */
    if (rc == 0 && fsync(fileno(f)) < 0) {
        rc = -1;
        e = errno;
    }
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0) {
        unlink(tmp);   /* ours */
        return error("%s: cannot write '%s': %s", who, path, strerror(e));
    }
    return tb_outfile_commit(who, tmp, path);
}

int tb_openmetrics_file(const char *who, const char *path, const struct tb_om_night *night,
                        const struct tb_om_series *s, size_t n)
{
    struct om_doc d = { night, s, NULL, n };
    return doc_file(who, path, &d);
}

/* ---- history's alarms ---- */

static const struct {
    const char *name, *help;
} alarm_families[] = {
    { "transpose_bench_regression",
      "1 while the series' latest sustained change (history's CUSUM alarm) is a regression: "
      "less GB/s, or more energy; else 0." },
    { "transpose_bench_regression_change_ratio",
      "That change over the level before it (-0.031: 3.1% less; x100 for percent)." },
    { "transpose_bench_regression_change_ci95_ratio",
      "Half-width of that change's 95% interval (a ratio, as the change)." },
    { "transpose_bench_regression_began_timestamp_seconds",
      "The night the change began, 00:00 UTC, in seconds since 1970." },
};

static double alarm_value(const struct tb_om_alarm *a, size_t f)
{
    return f == 0 ? (a->regressed ? 1 : 0) : f == 1 ? a->change_ratio
           : f == 2 ? a->change_ci95_ratio : a->began_seconds;
}

static void alarm_families_write(FILE *out, const struct tb_om_alarm *a, size_t n)
{
    for (size_t f = 0; f < ARRAY_SIZE(alarm_families); f++) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            double v = alarm_value(&a[i], f);
            if (!isfinite(v))
                continue;
            if (!any)
                family(out, alarm_families[f].name, alarm_families[f].help);
            any = true;
            bool first = true;
            fputs(alarm_families[f].name, out);
            put_label(out, &first, "board", a[i].key.board);
            put_label(out, &first, "host", a[i].key.host);
            key_labels(out, &first, &a[i].key);
            put_label(out, &first, "figure", a[i].figure);
            fputs("} ", out);
            put_number(out, v);
            fputc('\n', out);
        }
    }
}

int tb_openmetrics_alarms_write(FILE *out, const struct tb_om_alarm *a, size_t n)
{
    alarm_families_write(out, a, n);
    fputs("# EOF\n", out);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

int tb_openmetrics_alarms_file(const char *who, const char *path, const struct tb_om_alarm *a,
                               size_t n)
{
    struct om_doc d = { NULL, NULL, a, n };
    return doc_file(who, path, &d);
}
