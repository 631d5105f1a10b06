/* logread.c: see logread.h. What each line of a log means: metadata, the header (columns
 * found by name), rows range-checked. The bytes (plain or gzip, bounded) are logbytes.c's,
 * which hands each line to this file's line callback. */
#include "log/logread.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log/csvlog.h"
#include "log/logbytes.h"
#include "log/log_meta.h"
#include "format/table.h"
#include "lib/stats.h"
#include "lib/buildclock.h"
#include "lib/util.h"

/* each read column is a column of the log's table: a rename there cannot leave the reader
 * looking for a name no log has */
#define TB_LR_IS_COLUMN(n, req) \
    _Static_assert(offsetof(struct tb_row, n) < sizeof(struct tb_row), #n);
TB_LOGREAD_COLUMNS(TB_LR_IS_COLUMN)
#define TB_LR_NAME(n, req) #n,
static const char *const wanted[TB_LR_N] = { TB_LOGREAD_COLUMNS(TB_LR_NAME) };
#define TB_LR_REQ(n, req) req,
static const bool required[TB_LR_N] = { TB_LOGREAD_COLUMNS(TB_LR_REQ) };

enum { MAX_SAID = 10 /* impossible rows named per log; then a count */ };

void tb_logset_init(struct tb_logset *s, const char *who)
{
    memset(s, 0, sizeof(*s));
    s->max_rows_per_log = TB_LOGREAD_MAX_ROWS_PER_LOG;
    s->max_rows = TB_LOGREAD_MAX_ROWS;
    s->max_bytes_per_log = TB_LOGREAD_MAX_BYTES_PER_LOG;
    s->who = who;
}

void tb_logset_free(struct tb_logset *s)
{
    free(s->v);
    free(s->logs);
    s->v = NULL;
    s->logs = NULL;
    s->n = s->cap = s->nlogs = s->logs_cap = 0;
}

int tb_csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return -1;
        if (*p == '"') {
            char *out = ++p;
            fields[n++] = out;
            for (;;) {
                if (*p == '\0')
                    return -1;   /* unterminated quote */
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            *out = '\0';
            if (*p == ',') {
                p++;
                continue;
            }
            return *p ? -1 : n;
        }
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            return n;
        *comma = '\0';
        p = comma + 1;
    }
}


/* ---- one log's state while it is read ------------------------------------------------ */

enum { MAX_FIELDS = 256 };

struct reader {
    struct tb_logset *s;
    struct tb_log_info *info;
    const char *path;
    int col[TB_LR_N];
    int nhead, format;
    bool have_header, ended, capped;
    long lineno, impossible, unknown_outcome;
    long after_end, other_run;   /* rows after the end line; rows naming another run */
    long bad_df;                 /* rows whose energy_ratio_df is no degrees (ratio_df) */
    char welch_id[208];          /* the run id ci95_welch last dated, and its answer: */
    bool welch;                  /* once a log, not once a row (#59: 200,000 rows) */
    char *fields[MAX_FIELDS];
};

/* Counts a problem of the log set; returns -1. */
static int problem(struct reader *rd)
{
    rd->s->problems++;
    return -1;
}

double tb_log_number(const char *s)
{
    double v;
    return s && tb_parse_number(s, -DBL_MAX, false, DBL_MAX, &v) == 0 ? v : NAN;
}

static double num(const char *s)
{
    return tb_log_number(s);
}

/* A secondary figure that cannot be (non-finite, negative, -0, absurd): no reading. */
static double plausible(double v, double max, bool *bad)
{
    if (isnan(v))
        return v;
    if (!isfinite(v) || signbit(v) || v > max) {
        *bad = true;
        return NAN;
    }
    return v;
}

/* The night and host a run_id names (HOST_BOARD_STAMP[-N]); a stamp that cannot be true (in
 * the future beyond the skew, before 2020: util.h) gives no night, and *why says so. */
static void from_run_id(const char *run_id, char *night, size_t nn, char *host, size_t hn,
                        const char **why)
{
    char name[NAME_MAX + 16], h[64];
    time_t t;
    struct tm tm;
    snprintf(name, sizeof(name), "%.200s.csv.gz", run_id);
    if (tb_log_name_parse(name, h, sizeof(h), NULL, 0, &t) && gmtime_r(&t, &tm)) {
        const char *bad = tb_time_implausible((long long)t, (long long)time(NULL));
        if (why)
            *why = bad;
        if (!bad)
            strftime(night, nn, "%Y-%m-%d", &tm);
        if (host && !host[0])
            tb_strlcpy(host, h, hn);
        return;
    }
    /* HOST_BOARD_YYYYMMDDTHHMMSSZ[-N] whose date cannot be (month 13, 31 February) */
    const char *u = strrchr(run_id, '_');
    if (why && u && strlen(u + 1) >= 16 && u[9] == 'T' && u[16] == 'Z' &&
        strspn(u + 1, "0123456789") == 8 && strspn(u + 10, "0123456789") == 6)
        *why = "with an impossible date";
}

/* A row without energy_ratio_df whose run started before #57's energy_ratio_ci95 reached
 * main (TB_LOG_CI95_RESIDUAL_SINCE), by its log's run_id (else the row's): its t was
 * Welch-Satterthwaite's (logread.h). A run_id that names no time: today's definition. */
static bool ci95_welch(struct reader *rd, const char *row_run_id)
{
    const char *id = rd->info->run_id[0] ? rd->info->run_id : row_run_id ? row_run_id : "";
    if (rd->welch_id[0] && !strcmp(id, rd->welch_id))
        return rd->welch;
    char name[NAME_MAX + 16];
    time_t t;
    snprintf(name, sizeof(name), "%.200s.csv.gz", id);
    rd->welch = tb_log_name_parse(name, NULL, 0, NULL, 0, &t) &&
                (long long)t < TB_LOG_CI95_RESIDUAL_SINCE;
    tb_strlcpy(rd->welch_id, id, sizeof(rd->welch_id));
    return rd->welch;
}

/* energy_ratio_df as the meter writes it: whole degrees from 1 to TB_LOG_RATIO_DF_MAX (one
 * that is not whole, within those, is read as it is). Any other text (1e6, 0.5, 0, -3, nan,
 * inf, abc) is no figure: t(0.5) would be read as t(1) (tb_t95_df's floor) and 1e6 as the
 * normal's 1.96, each silently misweighing the row's own variance in the rerun learner;
 * said once per log, the row read by its log's start as a log without the column
 * (tb_rerun_row_df). An empty field is none (the copy's row, a row without an interval). */
static void ratio_df(struct reader *rd, struct tb_log_rec *r)
{
    int c = rd->col[TB_LR_energy_ratio_df];
    const char *t = c >= 0 ? rd->fields[c] : "";
    double v = num(t);
    if (!t[0] || (v >= 1 && v <= TB_LOG_RATIO_DF_MAX))
        return;
    r->energy_ratio_df = NAN;
    if (rd->bad_df++)
        return;
    char a[64];
    warning("%s: %s:%ld: column %d 'energy_ratio_df': '%s' is not a number of degrees from 1 "
            "to %d; such rows are read by the log's start (Welch-Satterthwaite's degrees "
            "before 2026-12-07T21:05:54Z, one kernel's 2n - 2 and 2n - 3 after)", rd->s->who,
            rd->path, rd->lineno, c + 1, tb_table_clean(a, sizeof(a), t), TB_LOG_RATIO_DF_MAX);
}

/* Says once per log that its stamp cannot be true; its rows get no night. */
static void flag_time(struct reader *rd, const char *run_id, const char *bad)
{
    if (!bad || rd->info->bad_time[0])
        return;
    tb_strlcpy(rd->info->bad_time, bad, sizeof(rd->info->bad_time));
    warning("%s: %s:%ld: run '%s' is stamped %s: flagged, its rows left out of nights, "
            "baselines and bands", rd->s->who, rd->path, rd->lineno, run_id, bad);
}

/* A row's night and run: the log's own (its `# run_id:` line), never what a row says (a
 * row's run_id put it in another night's history); a row naming another run is said once.
 * Logs without the line (older ones) date a row by its run_id. */
static void row_night(struct reader *rd, const char *run_id, struct tb_log_rec *r)
{
    const char *bad = NULL;
    from_run_id(run_id, r->night, sizeof(r->night), r->host, sizeof(r->host), &bad);
    if (!rd->info->run_id[0]) {
        flag_time(rd, run_id, bad);
        r->bad_time = bad != NULL;
        return;
    }
    tb_strlcpy(r->night, rd->info->night, sizeof(r->night));
    r->bad_time = rd->info->bad_time[0] != '\0';
    if (strcmp(run_id, rd->info->run_id) && !rd->other_run++) {
        char a[160], b[160];
        warning("%s: %s:%ld: a row of run '%s' in the log of run '%s': dated by the log",
                rd->s->who, rd->path, rd->lineno, tb_table_clean(a, sizeof(a), run_id),
                tb_table_clean(b, sizeof(b), rd->info->run_id));
    }
}

static void metadata(struct reader *rd, const char *line)
{
    struct tb_log_info *in = rd->info;
    const char *v;
    if ((v = tb_meta_value(line, TB_META_log_format))) {   /* the readers' one parser: no */
        double f = tb_log_number(v);                        /* undefined %d overflow, no hex */
        rd->format = !(f >= 0) ? 0 : f > 1000000 ? 1000000 : (int)f;
    }
    if ((v = tb_meta_value(line, TB_META_end))) {
        rd->ended = true;
        tb_strlcpy(in->end, v, sizeof(in->end));
        in->failed = !strncmp(v, "failed: the GPU", 15) || !strncmp(v, "failed: nothing measured", 24) ||
                     !strncmp(v, "failed: no point to run", 23);
    } else if ((v = tb_meta_value(line, TB_META_run_id))) {
        tb_strlcpy(in->run_id, v, sizeof(in->run_id));
        const char *bad = NULL;
        from_run_id(v, in->night, sizeof(in->night), in->host, sizeof(in->host), &bad);
        flag_time(rd, v, bad);   /* no night: no place in a baseline, a band or "latest" */
    } else if ((v = tb_meta_value(line, TB_META_clock)) &&
               tb_build_clock_floor(v, in->clock_floor, sizeof(in->clock_floor))) {
        in->night[0] = '\0';   /* a reset clock's stamp is no night (#58) */
        flag_time(rd, in->run_id, "before the tool that wrote it was built (a reset clock)");
    } else if ((v = tb_meta_value(line, TB_META_mode_step)) && strstr(v, ": skipped, ")) {
        size_t len = strlen(in->skipped);   /* a step the front will lack, and why */
        if (len + 3 < sizeof(in->skipped))
            snprintf(in->skipped + len, sizeof(in->skipped) - len, "%s%s", len ? "; " : "", v);
        in->steps_skipped++;
    } else if ((v = tb_meta_value(line, TB_META_host))) {
        tb_strlcpy(in->host, v, sizeof(in->host));
    } else if ((v = tb_meta_value(line, TB_META_machine_id))) {
        tb_strlcpy(in->host_id, v, sizeof(in->host_id));
    } else if ((v = tb_meta_value(line, TB_META_device_id))) {
        tb_strlcpy(in->device_id, v, sizeof(in->device_id));
    } else if ((v = tb_meta_value(line, TB_META_device))) {
        tb_strlcpy(in->device, v, sizeof(in->device));
    } else if ((v = tb_meta_value(line, TB_META_images_sha256))) {
        tb_strlcpy(in->images, v, sizeof(in->images));
    } else if ((v = tb_meta_value(line, TB_META_board))) {
        const char *peak = NULL;   /* NAME, peak X GB/s: a name may hold a comma */
        for (const char *q = strstr(v, ", peak "); q; q = strstr(q + 1, ", peak "))
            peak = q;
        snprintf(in->board, sizeof(in->board), "%.*s", (int)(peak ? (size_t)(peak - v)
                 : strcspn(v, ",")), v);
    }
}

/* The fields of a CSV line (commas outside quotes, plus one). */
static long csv_count(const char *line)
{
    long n = 1;
    bool quoted = false;
    for (const char *p = line; *p; p++)
        if (*p == '"')
            quoted = !quoted;   /* a doubled quote toggles twice */
        else if (*p == ',' && !quoted)
            n++;
    return n;
}

static int header(struct reader *rd, char *line)
{
    long count = csv_count(line);
    rd->nhead = tb_csv_split(line, rd->fields, MAX_FIELDS);
    if (rd->nhead < 0) {   /* said as what it is, not as "no 'board' column" */
        if (count > MAX_FIELDS)
            error("%s: %s:%ld: the header has %ld columns, more than the %d a log may have: "
                  "not read", rd->s->who, rd->path, rd->lineno, count, MAX_FIELDS);
        else
            error("%s: %s:%ld: the header is no CSV line (a quote not closed): not read",
                  rd->s->who, rd->path, rd->lineno);
        return problem(rd);
    }
    /* a column twice (two gbps: the last was taken, 99,999 GB/s) is no log of ours */
    for (int i = 0; i < rd->nhead; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(rd->fields[i], rd->fields[j])) {
                error("%s: %s:%ld: column '%s' twice (fields %d and %d): not read (a log has "
                      "each column once)", rd->s->who, rd->path, rd->lineno, rd->fields[i],
                      j + 1, i + 1);
                return problem(rd);
            }
    for (int c = 0; c < TB_LR_N; c++) {
        rd->col[c] = -1;
        for (int i = 0; i < rd->nhead; i++)
            if (!strcmp(rd->fields[i], wanted[c]))
                rd->col[c] = i;
        if (rd->col[c] < 0 && required[c]) {
            error("%s: %s:%ld: not a transpose-bench log (no '%s' column)", rd->s->who, rd->path,
                  rd->lineno, wanted[c]);
            return problem(rd);
        }
    }
    if (rd->format > TB_LOG_FORMAT)
        warning("%s: %s: log format %d is newer than this tool's %d; reading the columns it "
                "knows", rd->s->who, rd->path, rd->format, TB_LOG_FORMAT);
    rd->have_header = true;
    return 0;
}

static int push(struct tb_logset *s, const struct tb_log_rec *x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        struct tb_log_rec *v = realloc(s->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = *x;
    return 0;
}

/* A figure that may be below 0: NAN for none and beyond +-max. */
static double within(double v, double max)
{
    return isfinite(v) && fabs(v) <= max ? v : NAN;
}

/* *fig dropped when column ci of the row holds text but ci (its reading) is none. */
static void with_interval(const struct reader *rd, double *fig, double ci, int col)
{
    const char *t = rd->col[col] >= 0 ? rd->fields[rd->col[col]] : NULL;
    if (t && t[0] && isnan(ci))
        *fig = NAN;
}

/* The figures of a row, range-checked before converting: a double out of long's range is
 * undefined (found by fuzz_compare); impossible bandwidths are flagged. */
static void figures(struct reader *rd, struct tb_log_rec *r)
{
#define NUM(c) (rd->col[c] >= 0 ? num(rd->fields[rd->col[c]]) : NAN)
    double rows = NUM(TB_LR_rows), cols = NUM(TB_LR_cols);
    double bx = NUM(TB_LR_block_x), by = NUM(TB_LR_block_y);
    r->rows = rows >= 1 && rows <= 1e13 ? (long)rows : 0;
    r->cols = cols >= 1 && cols <= 1e13 ? (long)cols : 0;
    r->bx = bx >= 0 && bx <= 1e6 ? (int)bx : 0;
    r->by = by >= 0 && by <= 1e6 ? (int)by : 0;
    r->gbps = NUM(TB_LR_gbps);
    bool bad = false;
    r->frac_peak = plausible(NUM(TB_LR_frac_peak), TB_LOGREAD_MAX_FRAC_PEAK, &bad);
    /* a gbps field that holds text which is no decimal number ("0x10", "inf") is no missing
     * figure: the row is impossible, as one out of range is */
    const char *g = rd->col[TB_LR_gbps] >= 0 ? rd->fields[rd->col[TB_LR_gbps]] : NULL;
    r->impossible = bad || tb_log_gbps_impossible(r->gbps) || (g && g[0] && isnan(r->gbps));
    bad = false;   /* the others: a figure that cannot be is no figure, the row stays */
    r->frac_copy = plausible(NUM(TB_LR_frac_copy), 1e3, &bad);
    r->rel_sem = plausible(NUM(TB_LR_rel_sem), 1e3, &bad);
    /* the energy figures kept, each from its column by its name and rule (energy_figures.h;
     * a kept figure the reader's column list lacks does not compile) */
#define TB_LR_KEEP_NO(name, max)
#define TB_LR_KEEP_POS(name, max) r->name = plausible(NUM(TB_LR_##name), max, &bad);
#define TB_LR_KEEP_SIGNED(name, max) r->name = within(NUM(TB_LR_##name), max);
#define TB_LR_KEEP_COUNT(name, max) r->name = tb_log_count(NUM(TB_LR_##name), max);
#define TB_LR_KEEP(name, keep, max) TB_LR_KEEP_##keep(name, max)
    TB_ENERGY_FIGURES(TB_LR_KEEP)
#undef TB_LR_KEEP
#undef TB_LR_KEEP_NO
#undef TB_LR_KEEP_POS
#undef TB_LR_KEEP_SIGNED
#undef TB_LR_KEEP_COUNT
    /* a log from before the rerun interval (2026-11-28): its energy_ratio_ci95 was then
     * defined as where a rerun of as many cycles lands, the interval to compare reruns by */
    if (isnan(r->energy_ratio_rerun_ci95))
        r->energy_ratio_rerun_ci95 = r->energy_ratio_ci95;
    r->power_capped = tb_power_capped_majority(NUM(TB_LR_power_capped_blocks),
                                               NUM(TB_LR_power_cycles));
    r->peak_gbps = plausible(NUM(TB_LR_peak_gbps), TB_LOGREAD_MAX_GBPS, &bad);
    r->gpu_cap_mhz = plausible(NUM(TB_LR_gpu_cap_asked_mhz), 1e5, &bad);
    r->emc_cap_mhz = plausible(NUM(TB_LR_emc_cap_asked_mhz), 1e5, &bad);
    /* a figure and its 95% interval are one measurement: an interval given that cannot be
     * (negative, -0, absurd, no number) takes its figure with it (1e-300 GB/s per W with a
     * -1e308 interval was shown as 0.000) */
    with_interval(rd, &r->gbps_per_w, r->gbps_per_w_ci95, TB_LR_gbps_per_w_ci95);
    with_interval(rd, &r->j_per_gb, r->j_per_gb_ci95, TB_LR_j_per_gb_ci95);
    with_interval(rd, &r->energy_ratio, r->energy_ratio_ci95, TB_LR_energy_ratio_ci95);
    with_interval(rd, &r->dyn_pj_per_byte, r->dyn_pj_per_byte_ci95,
                  TB_LR_dyn_pj_per_byte_ci95);
#undef NUM
}

/* status and verified: a text that is no value (a hand edit, a newer tool) never counts. */
static void outcome(struct reader *rd, struct tb_log_rec *r)
{
    const char *st = rd->col[TB_LR_status] >= 0 ? rd->fields[rd->col[TB_LR_status]] : "";
    const char *ve = rd->col[TB_LR_verified] >= 0 ? rd->fields[rd->col[TB_LR_verified]] : "";
    if (!ve[0])
        ve = "n/a";   /* no column, or a point never checked (older logs' skipped rows) */
    r->status = TB_STATUS_NONE;
    r->verified = TB_VERIFIED_NA;
    if (!tb_status_parse(st, &r->status) || !tb_verified_parse(ve, &r->verified)) {
        r->outcome_unknown = true;
        if (rd->unknown_outcome++ < MAX_SAID)
            warning("%s: %s:%ld: %s %ldx%ld: status or verified is not a value this tool "
                    "writes; the row is not counted as a result", rd->s->who, rd->path,
                    rd->lineno, r->kernel, r->rows, r->cols);
    }
}

static void row(struct reader *rd, char *line)
{
    struct tb_logset *s = rd->s;
    long count = csv_count(line);
    int nf = tb_csv_split(line, rd->fields, MAX_FIELDS);
    if (nf != rd->nhead) {   /* nf -1: too many to split, or a quote not closed (#58: "-1") */
        if (nf >= 0 || count > MAX_FIELDS)
            error("%s: %s:%ld: %ld fields where the header has %d; row skipped", s->who,
                  rd->path, rd->lineno, nf >= 0 ? (long)nf : count, rd->nhead);
        else
            error("%s: %s:%ld: no CSV line (a quote not closed); row skipped", s->who,
                  rd->path, rd->lineno);
        problem(rd);
        return;
    }
    struct tb_log_rec r;
    memset(&r, 0, sizeof(r));
#define STR(c, dst) tb_strlcpy(dst, rd->col[c] >= 0 ? rd->fields[rd->col[c]] : "", sizeof(dst))
    STR(TB_LR_board, r.board);
    STR(TB_LR_device, r.device);
    STR(TB_LR_kernel, r.kernel);
    STR(TB_LR_elem, r.elem);
    STR(TB_LR_power_mode, r.power_mode);
    STR(TB_LR_host, r.host);
    STR(TB_LR_throttle_cause, r.throttle_cause);
    STR(TB_LR_power_note, r.power_note);
#undef STR
    if (!r.elem[0])
        tb_strlcpy(r.elem, "float", sizeof(r.elem));   /* logs from before element types */
    if (rd->col[TB_LR_run_id] >= 0)
        row_night(rd, rd->fields[rd->col[TB_LR_run_id]], &r);
    tb_strlcpy(r.host_id, rd->info->host_id, sizeof(r.host_id));
    tb_strlcpy(r.device_id, rd->info->device_id, sizeof(r.device_id));
    figures(rd, &r);
    ratio_df(rd, &r);
    r.ci95_welch = isnan(r.energy_ratio_df) &&
                   ci95_welch(rd, rd->col[TB_LR_run_id] >= 0 ? rd->fields[rd->col[TB_LR_run_id]]
                                                             : NULL);
    if (r.rows <= 0 || r.cols <= 0 || !r.kernel[0]) {
        error("%s: %s:%ld: row without a kernel or size; skipped", s->who, rd->path, rd->lineno);
        problem(rd);
        return;
    }
    outcome(rd, &r);
    if (r.impossible && rd->impossible++ < MAX_SAID) {   /* the log's text, cleaned */
        char k[256], g[256];
        warning("%s: %s:%ld: %s %ldx%ld: impossible figures (gbps '%s'); flagged, not shown "
                "as a result", s->who, rd->path, rd->lineno, tb_table_clean(k, sizeof(k), r.kernel),
                r.rows, r.cols, tb_table_clean(g, sizeof(g), rd->col[TB_LR_gbps] >= 0 ?
                                               rd->fields[rd->col[TB_LR_gbps]] : ""));
    }
    if ((size_t)rd->info->rows >= s->max_rows_per_log || s->n >= s->max_rows) {
        if (!rd->capped && !s->bounds_quiet)
            error("%s: %s:%ld: more than %zu rows %s; the rows from here on are not read", s->who,
                  rd->path, rd->lineno, (size_t)rd->info->rows >= s->max_rows_per_log
                  ? s->max_rows_per_log : s->max_rows,
                  (size_t)rd->info->rows >= s->max_rows_per_log ? "in one log" : "in all logs");
        if (!rd->capped)
            problem(rd);
        rd->capped = true;
        return;
    }
    if (push(s, &r) == 0)
        rd->info->rows++;
    else if (!rd->capped) {
        error("%s: %s:%ld: out of memory; the rows from here on are not read", s->who, rd->path,
              rd->lineno);
        problem(rd);
        rd->capped = true;
    }
}

/* One whole line (no newline). -1 when the file is no log. */
static int line(struct reader *rd, char *l)
{
    if (!l[0])
        return 0;   /* first: a bomb of empty lines costs a test each, no more */
    if (rd->lineno == 1 && !strncmp(l, "\xef\xbb\xbf", 3))
        l += 3;   /* a log saved by a Windows editor: its byte-order mark is no text */
    l[strcspn(l, "\r")] = '\0';
    if (l[0] == '#') {
        metadata(rd, l);
        return 0;
    }
    if (!l[0])
        return 0;   /* a line of "\r" alone */
    if (!rd->have_header)
        return header(rd, l);
    if (rd->ended) {   /* the end line is a log's last word: a row after it was added later */
        if (!rd->after_end++)
            error("%s: %s:%ld: a row after the end line: not read (nor any after it)",
                  rd->s->who, rd->path, rd->lineno);
        if (rd->after_end == 1)
            problem(rd);
        return 0;
    }
    if (!rd->capped)
        row(rd, l);
    return 0;
}

/* logbytes.c's line callback: lineno is the line's number. -1 when the file is no log or a
 * bound is reached (said): read no further. */
static int on_line(void *arg, long lineno, char *l)
{
    struct reader *rd = arg;
    rd->lineno = lineno;
    return line(rd, l) < 0 || rd->capped ? -1 : 0;
}

static long rows_so_far(void *arg)
{
    return ((struct reader *)arg)->info->rows;
}

static struct tb_log_info *new_info(struct tb_logset *s, const char *path)
{
    if (s->nlogs == s->logs_cap) {
        size_t cap = s->logs_cap ? s->logs_cap * 2 : 16;
        struct tb_log_info *v = realloc(s->logs, cap * sizeof(*v));
        if (!v)
            return NULL;
        s->logs = v;
        s->logs_cap = cap;
    }
    struct tb_log_info *in = &s->logs[s->nlogs++];
    memset(in, 0, sizeof(*in));
    in->path = path;
    return in;
}

/* A log whose end line says nothing was measured (the GPU could not be used, nothing
 * measured, no point to run) holds no result: rows in it were added (a forged or joined
 * file) and are never counted (a failed night's row was a best point). A run that failed
 * mid-sweep ("the GPU hung") keeps the rows it measured before. */
static void rows_of_a_failed_night(struct reader *rd, size_t first)
{
    const char *end = rd->info->end;
    if (first >= rd->s->n || (strncmp(end, "failed: the GPU cannot be used", 30) &&
                              strncmp(end, "failed: nothing measured", 24) &&
                              strncmp(end, "failed: no point to run", 23)))
        return;
    for (size_t i = first; i < rd->s->n; i++)
        rd->s->v[i].failed_night = true;
    char e[200];
    warning("%s: %s: %zu row%s in a log that ended '%s': not counted as results",
            rd->s->who, rd->path, rd->s->n - first, rd->s->n - first == 1 ? "" : "s",
            tb_table_clean(e, sizeof(e), end));
}

int tb_logread(struct tb_logset *s, const char *path)
{
    struct tb_log_info *info = new_info(s, path);
    if (!info) {
        s->problems++;
        error("%s: out of memory reading '%s'", s->who, path);
        return -ENOMEM;
    }
    int fd = tb_logbytes_open(s->who, path);
    if (fd < 0) {
        s->problems++;
        return fd;
    }
    struct reader rd = { .s = s, .info = info, .path = path };
    struct tb_logbytes lb = {
        .who = s->who, .path = path, .max_bytes = s->max_bytes_per_log,
        .bounds_quiet = s->bounds_quiet, .line = on_line, .rows = rows_so_far, .arg = &rd,
    };
    size_t first = s->n;
    int rc = tb_logbytes_read(&lb, fd);
    close(fd);
    s->bytes_read += lb.bytes;
    s->problems += lb.problems;
    rows_of_a_failed_night(&rd, first);
    /* a log with no header line: a failed night's from before every log had one, or a run
     * killed while its power source started (recovered, 0 rows): its metadata says it all */
    info->readable = rd.have_header || (info->run_id[0] && rd.ended);
    if (!info->board[0] && s->n > 0 && info->rows > 0)
        tb_strlcpy(info->board, s->v[s->n - 1].board, sizeof(info->board));
    if (!info->readable) {
        if (rc == 0) {
            error("%s: %s: not a transpose-bench log (no header line)", s->who, path);
            s->problems++;
        }
        return -EINVAL;
    }
    if (rd.impossible > MAX_SAID)
        warning("%s: %s: %ld rows with impossible figures in all (the first %d named above)",
                s->who, path, rd.impossible, MAX_SAID);
    if (rc == 0 && rd.have_header && !rd.ended)
        warning("%s: %s: no end marker (run interrupted or still running); using its %ld rows",
                s->who, path, info->rows);
    return (int)info->rows;
}
