/* run_summary.h: what a run prints on stdout at its end (not with --quiet): per size, each
 * point's figures through the table writer, the idle power, the counts and the log's name.
 * The log holds everything; this is the morning's glance at it. */
#ifndef TB_RUN_SUMMARY_H
#define TB_RUN_SUMMARY_H

#include <signal.h>
#include <stdbool.h>

#include "format/openmetrics.h"
#include "measure/runner.h"

/* Prints res's rows (with_power: the GB/s per W column; with_modes: each row's power mode
 * and caps; with_best: after each size, a `best` row, the fastest transpose of the size that
 * counts, naming in its `chosen` column the kernel it is), then power_source's idle power when measured (NULL: no source), the counts and
 * log_path (NULL: no log was written). 0, or -1 when stdout could not take it (a full disk),
 * said on stderr. */
int tb_run_summary(const struct tb_runner_result *res, const char *power_source,
                   bool with_modes, bool with_best, const char *log_path);

/* run --metrics (output.metrics_file): checks the file against lib/outfile.h's rule and
 * the files the run reads (the sweep and board files and the lock, by name and by inode;
 * an existing file that is no metrics file of ours, as an @included sweep file), and that
 * its folder is there and writable, before anything runs (NULL or "": none); 0, or -1
 * said (the run's exit 2). */
int tb_run_metrics_check(const char *path, const char *sweep_path, const char *board_path);

/* Writes the night's headline figures to cfg's metrics file (none: nothing) for Prometheus
 * (format/openmetrics.h): one series per kernel, size, element and mode-sweep step, from
 * its fastest row that counts (tb_log_usable); the night's board (cfg's), host, end line,
 * whether it ended well (ok), its time (res's start to now) and its counts; and, where the
 * night's log was written (log_path; NULL or "": none), each of its series' regression state
 * as history judges it over the earlier logs of the board in its folder
 * (report/alarm_night.h). Those logs are read on a thread of their own, waited for
 * TB_METRICS_STATE_LIMIT_S (TB_DRIVER_TIMEOUT_S when shorter) by the tool's clock and not at all once *stop (the signal
 * handler's flag; NULL: none) is set: past either (an earlier log whose open never
 * returns: a stuck FUSE or network mount) the file is written without the state and says
 * why (transpose_bench_regression_state_missing), as stderr does. 0, or -1 after an error
 * naming the file. */
#define TB_METRICS_STATE_LIMIT_S 30.0
struct tb_config;
/* device, device_id: the night's device (its name, and its own identity, "" none), labels
 * of the night's families as of its series. */
int tb_run_metrics(const struct tb_config *cfg, const char *host, const char *device,
                   const char *device_id, const char *end, bool ok,
                   const struct tb_runner_result *res, const char *log_path,
                   const volatile sig_atomic_t *stop);

#endif
