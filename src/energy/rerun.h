/* rerun.h: what a rerun on another night adds to a point's energy intervals. A run's cycles
 * see the noise inside it; a rerun also lands wherever that night's state of the board puts
 * it: on the lent H100 and H200s runs of one card differed by 0.2-0.6% in the ratio and
 * 0.3-1% in J/GB, while each run's cycles agreed to 0.1-0.3% (doc/power.md). That
 * run-to-run spread, a relative standard deviation, is learned from this host's and board's
 * earlier logs in the log folder (the same kernel images, point, device and operating step):
 * their figures' spread beyond what their own cycles explain, pulled toward the board file's
 * power.rerun_ratio_sd and power.rerun_abs_sd, which count as TB_RERUN_PRIOR_RUNS runs, and
 * those settings alone until two earlier runs are there.
 * Not here: the intervals themselves (meter_figures.c combines them). */
#ifndef TB_RERUN_H
#define TB_RERUN_H

#include <stddef.h>

#include "power/power.h"

#define TB_RERUN_PRIOR_RUNS 2     /* the settings' weight, in runs */
#define TB_RERUN_MAX_FACTOR 5.0   /* a learned spread is at most this times the setting */
#define TB_RERUN_MAX_LOGS 60      /* the newest logs of the folder read */
#define TB_RERUN_MAX_RUNS 30      /* the newest earlier runs of a point used */
#define TB_RERUN_MAX_ROWS_PER_LOG 20000   /* rows read of one log, and of all */
#define TB_RERUN_MAX_ROWS 100000
#define TB_RERUN_MAX_BYTES_PER_LOG (32ULL << 20)   /* uncompressed: 20000 rows of 1.6 kB */
#define TB_RERUN_MAX_BYTES (128ULL << 20)          /* of all: no more logs read past it */

struct tb_log_rec;

/* A point's run-to-run spread: relative sds of its energy ratio and of its J per byte. */
struct tb_rerun_sd {
    double ratio, abs;
    int runs;                     /* earlier runs they were learned from (0: the settings) */
};

struct tb_rerun;

/* Reads the newest TB_RERUN_MAX_LOGS logs in dir whose metadata says they are host's
 * (host_id: its machine-id, "" none) and board's, and keeps those that ran the kernel
 * images of sha256 images (their images_sha256 line: a new build's kernels move their
 * ratios, which is no night's spread; a log from before the line is left out too), until
 * TB_RERUN_MAX_ROWS rows or TB_RERUN_MAX_BYTES bytes are read (the older ones are not opened;
 * line says how many; a bound cuts a log silently). A log whose metadata cannot be read is
 * not one of them (as for retention); a damaged one keeps the rows before the damage, said
 * on stderr; a folder that cannot be opened gives a table without runs. NULL only without
 * memory. line (n bytes)
 * says what was read and kept, for the log's power_rerun line. */
struct tb_rerun *tb_rerun_learn(const char *dir, const char *host, const char *host_id,
                                const char *board, const char *images, char *line, size_t n);
void tb_rerun_free(struct tb_rerun *r);

/* Point me's spread (me: its row as tb_log_rec_from_row reads it; r NULL: none learned): of
 * the earlier runs in the logs kept (this host's and board's by their metadata) whose row
 * has its device, board, kernel, element, size, block and operating step (tb_log_step_cmp),
 * a usable result with an energy ratio, J per byte and the cycles' interval, not
 * power-capped, the newest TB_RERUN_MAX_RUNS, one row a run (a log kept under a second
 * name, the same run_id, once). With m such runs (m >= 2), newest first:
 *   v = (median over successive runs of |ln(x[i+1] / x[i])| / (0.6745 sqrt 2))^2;
 *   ratio:  s2 = max(0, v - the median of each run's own variance of its mean, from its
 *           cycles' interval and cycles), sd = sqrt((k p^2 + (m-1) s2) / (k + m - 1));
 *   abs:    the same without the subtraction (its logged interval holds this term);
 * k = TB_RERUN_PRIOR_RUNS, p the setting, sd at most TB_RERUN_MAX_FACTOR x p. Fewer than
 * 2: the settings, runs 0. */
void tb_rerun_sd(const struct tb_rerun *r, const struct tb_log_rec *me,
                 const struct tb_power_cfg *pc, struct tb_rerun_sd *out);

#endif
