/* logread.h: reading transpose-bench logs back (gzip or plain, any tool version: columns are
 * found by name in the header), for compare, history and the reports. Hostile files are
 * bounded: regular files only, opened without blocking, rows and bytes capped per log and in
 * all, a damaged gzip keeps what was read before the damage (the bytes into lines:
 * logbytes.h). Not here: what the commands make of the rows (compare.c, history.c,
 * report.c). */
#ifndef TB_LOGREAD_H
#define TB_LOGREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "log/energy_figures.h"
#include "log/outcome.h"

struct tb_row;

/* THE columns the reader takes from a log, X(name of log_columns.h, required): the enum,
 * the names looked up in the header and the required set all follow from this one list.
 * Every energy figure the record keeps (energy_figures.h) is among them: the reader parses
 * it as TB_LR_<its name>, so one missing here does not compile. */
#define TB_LOGREAD_COLUMNS(X) \
    X(board, true) X(device, false) X(kernel, true) X(rows, true) X(cols, true) \
    X(block_x, false) X(block_y, false) X(gbps, true) X(frac_peak, false) X(frac_copy, false) \
    X(gbps_per_w, false) X(rel_sem, false) X(status, false) X(verified, false) X(elem, false) \
    X(power_mode, false) X(run_id, false) X(host, false) X(gbps_per_w_ci95, false) \
    X(j_per_gb, false) X(j_per_gb_ci95, false) X(dyn_pj_per_byte, false) \
    X(dyn_pj_per_byte_ci95, false) X(throttle_cause, false) X(peak_gbps, false) \
    X(gpu_cap_asked_mhz, false) X(emc_cap_asked_mhz, false) X(power_note, false) \
    X(energy_ratio, false) X(energy_ratio_ci95, false) X(gpu_temp_c, false) \
    X(power_capped_blocks, false) X(power_cycles, false) X(energy_ratio_rerun_ci95, false) \
    X(energy_ratio_df, false) X(energy_ratio_sys_ci95, false)

enum tb_logread_col {
#define TB_LR_ENUM(name, req) TB_LR_##name,
    TB_LOGREAD_COLUMNS(TB_LR_ENUM)
#undef TB_LR_ENUM
    TB_LR_N
};

/* Above this many GB/s (100 TB/s, some 30 times the fastest HBM of 2026) or this many times
 * the board's peak (past anything a cache explains, which the `suspect` status covers), a
 * figure is impossible: flagged, never shown or drawn as a result. */
#define TB_LOGREAD_MAX_GBPS 1e5
#define TB_LOGREAD_MAX_FRAC_PEAK 10.0
/* Below this many GB/s (1 MB/s; the log's "0.00" is below it) no transpose of any size on
 * any board runs: a timer gone wrong (1e-300 GB/s once printed as 0.0 among best points). */
#define TB_LOGREAD_MIN_GBPS 1e-3

/* The one rule for a bandwidth that cannot be: not a number is no figure (a point not
 * measured); otherwise it is impossible outside [TB_LOGREAD_MIN_GBPS, TB_LOGREAD_MAX_GBPS]. */
bool tb_log_gbps_impossible(double gbps);

/* THE reading of a number in a log, for every reader (rows, metadata): tb_parse_number's
 * syntax (util.h: the one compare's --threshold uses), decimal digits with an optional sign,
 * fraction and exponent; NAN for an empty field and for text that is no decimal number
 * (hexadecimal "0x10", which strtod reads as 16, "inf", "nan", blanks, trailing text). */
double tb_log_number(const char *s);
/* A count read from a log (power_cycles): v cut to whole where it is 1..max, else 0 (none,
 * or no count that can be). */
int tb_log_count(double v, double max);

/* One row as the commands use it. */
struct tb_log_rec {
    char board[64], device[128], kernel[32];
    char host[64];                  /* the host that ran it */
    char host_id[40];               /* its machine-id ("" in logs from before it was logged) */
    char device_id[48];             /* the device's own (log_meta.h's device_id; "" none) */
    char elem[8], power_mode[64];   /* element type; nvpmodel mode ("" off a Jetson) */
    char night[12];                 /* the run's UTC date from its run_id; "" unknown, or a
                                     * stamp that cannot be (future, before 2020: util.h) */
    long rows, cols;
    int bx, by;
    double gbps, frac_peak, frac_copy, rel_sem;
    /* The energy figures the reader keeps (energy_figures.h's POS, SIGNED and COUNT ones:
     * energy_ratio and its energy_ratio_ci95 (the cycles', its t's degrees energy_ratio_df,
     * with the systematic part energy_ratio_sys_ci95) and
     * energy_ratio_rerun_ci95 (where a rerun on another night lands), gbps_per_w, j_per_gb,
     * dyn_pj_per_byte and their _ci95, power_cycles, gpu_temp_c), named and meant as their log
     * columns; NAN none (power_cycles 0). One fallback: in logs from before
     * energy_ratio_rerun_ci95 its field holds energy_ratio_ci95, then defined as where a rerun
     * lands (logread.c, figures). */
#define TB_LOG_REC_FIGURE(name, keep, max) TB_FIG_FIELD_##keep(name)
    TB_ENERGY_FIGURES(TB_LOG_REC_FIGURE)
#undef TB_LOG_REC_FIGURE
    bool power_capped;              /* no column: its energy blocks were power-capped (its
                                     * power_capped_blocks half its power_cycles or more:
                                     * tb_power_capped_majority): judged by j_per_gb */
    double peak_gbps;               /* the ceiling the row was judged against; NAN unknown */
    double gpu_cap_mhz, emc_cap_mhz;   /* the mode sweep's caps asked; NAN none */
    char throttle_cause[64];        /* why it may have run slower; "" none seen */
    char power_note[128];           /* why its power figures are missing or partial ("" none
                                     * said; cut at this length): compare --pareto's reason */
    enum tb_status status;          /* NONE in logs from before the column */
    enum tb_verified verified;      /* NA in logs from before the column */
    bool outcome_unknown;           /* status or verified text that is no value: never counts */
    bool impossible;                /* gbps non-finite, negative or beyond the limits above */
    bool bad_time;                  /* its run's stamp cannot be true: never a baseline */
    bool failed_night;              /* in a log that ended "nothing measured": never counts */
    bool ci95_welch;                /* no energy_ratio_df and its log started before #57's
                                     * energy_ratio_ci95 reached main (TB_LOG_CI95_RESIDUAL_
                                     * SINCE): its t at Welch-Satterthwaite's degrees, the
                                     * rerun learner reads it so (rerun.c, tb_rerun_row_df) */
};

/* When #57's energy_ratio_ci95 (the blocks' residual, t at 2n - 2 below 6 cycles and 2n - 3
 * from 6 for one kernel) reached main: 2026-12-07T21:05:54Z, the merge 4a3c141 of branch
 * cyc57 (git log --first-parent main), in seconds of the epoch. A log started before it took
 * that t at the Welch-Satterthwaite degrees of s_r^2 / n + D s_c^2. */
#define TB_LOG_CI95_RESIDUAL_SINCE 1796677554LL

/* One log as a whole: what a failed night is shown by. */
struct tb_log_info {
    const char *path;               /* as given (not copied) */
    char run_id[128], host[64], host_id[40], board[64], night[12];
    char device[128], device_id[48];   /* its device and device_id lines ("" none) */
    char images[72];                /* the images_sha256 line ("" in logs from before it) */
    char end[256];                  /* the "# end:" line's text; "" when none */
    char skipped[512];              /* a mode sweep's skipped steps ("# mode_step: ...:
                                     * skipped, ..." lines, "; " between; cut): "" none */
    int steps_skipped;              /* how many */
    char bad_time[64];              /* why its stamp cannot be true (its night is ""); "" */
    char clock_floor[12];           /* a reset clock's night (its `# clock:` line, buildclock.h):
                                     * the run is no older than this date; "" none */
    bool failed;                    /* the run ended failed before measuring (GPU unusable) */
    bool readable;                  /* a log at all (header, or a failed night's metadata) */
    long rows;                      /* rows kept */
};

struct tb_logset {
    struct tb_log_rec *v;
    size_t n, cap;
    struct tb_log_info *logs;
    size_t nlogs, logs_cap;
    /* the bounds (tb_logset_init sets the defaults below; tests lower them) */
    size_t max_rows_per_log, max_rows;
    unsigned long long max_bytes_per_log;
    unsigned long long bytes_read;  /* uncompressed bytes read of all its logs */
    int problems;                   /* each one said on stderr, naming file and line */
    bool bounds_quiet;              /* a bound reached is counted, not said: the reader's own
                                     * choice of a little (the rerun learner, every night) */
    const char *who;                /* "compare": the prefix of its messages */
};

/* A tune run logs some thousands of rows and a year of nights some tens of thousands; a row
 * takes about 750 bytes here, so the total bound is about 375 MB, within a Nano's memory. */
#define TB_LOGREAD_MAX_ROWS_PER_LOG 200000
#define TB_LOGREAD_MAX_ROWS 500000
#define TB_LOGREAD_MAX_BYTES_PER_LOG (1ULL << 30)   /* decompressed */

void tb_logset_init(struct tb_logset *s, const char *who);
void tb_logset_free(struct tb_logset *s);
/* Reads one log into s: its rows, and its tb_log_info (always appended, readable or not).
 * Returns the rows added, or a negative errno when nothing could be read from it (not a
 * regular file, no log, unreadable). Every problem is said and counted in s->problems;
 * rows read before one are kept. */
int tb_logread(struct tb_logset *s, const char *path);

/* Rows of logs from before the machine-id was logged get the id of the one machine of their
 * host name that logged one; where several machines share the name they stay without (a
 * series of their own), never guessed. */
void tb_logset_fill_ids(struct tb_logset *s);

/* Rows of logs without a device_id line get the id of the one device of their host and
 * device name that logged one; where several did (two GPUs of one model) they stay without
 * (a series of their own), never guessed. */
void tb_logset_fill_device_ids(struct tb_logset *s);
/* Whether two rows ran on one device: their device_ids where both have one (two GPUs of
 * one model in one host, two boards of one host name, are two), else the device name. */
int tb_log_device_cmp(const struct tb_log_rec *x, const struct tb_log_rec *y);

/* Splits a CSV line in place (quotes handled); returns the field count, -1 when malformed. */
int tb_csv_split(char *line, char **fields, int max);
/* A row that counts as a result: possible figures, and tb_outcome_counts() (outcome.h). */
bool tb_log_usable(const struct tb_log_rec *r);
/* A row that measured but failed verification (or whose outcome text is no value): listed
 * apart by compare and history, which then exit non-zero. */
bool tb_log_wrong(const struct tb_log_rec *r);
/* The row just written, as a reader would read it back (the runner's summary and tune). */
void tb_log_rec_from_row(const struct tb_row *row, struct tb_log_rec *r);
/* Whether two rows (or logs) come from one host: the host name and, where both logs carry
 * one, the machine-id (cloned hostnames stay apart; old logs match by name). */
int tb_log_host_cmp(const char *host_a, const char *id_a, const char *host_b, const char *id_b);
/* The clock caps a mode sweep's step asked (tb_log_rec's gpu_cap_mhz, emc_cap_mhz; NAN: none
 * asked), as a series or an operating point is named by them: "GPU cap 612 MHz, EMC cap 2133
 * MHz", either alone, or "" when none was asked. Returns buf. */
const char *tb_log_caps_text(char *buf, size_t len, double gpu_cap_mhz, double emc_cap_mhz);

/* The operating step two rows ran in, compared: power mode, then the GPU and the EMC cap
 * asked (none after every cap). 0: the same step; compare and history key by it, so that a
 * capped night is never another night of the same mode uncapped. */
int tb_log_step_cmp(const struct tb_log_rec *x, const struct tb_log_rec *y);

#endif
