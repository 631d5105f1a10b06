/* run_summary.h: what a run prints on stdout at its end (not with --quiet): per size, each
 * point's figures through the table writer, the idle power, the counts and the log's name.
 * The log holds everything; this is the morning's glance at it. */
#ifndef TB_RUN_SUMMARY_H
#define TB_RUN_SUMMARY_H

#include <stdbool.h>

#include "measure/runner.h"

/* Prints res's rows (with_power: the GB/s per W column; with_modes: each row's power mode
 * and caps; with_best: after each size, a `best` row, the fastest transpose of the size that
 * counts, naming in its `chosen` column the kernel it is), then power_source's idle power when measured (NULL: no source), the counts and
 * log_path (NULL: no log was written). 0, or -1 when stdout could not take it (a full disk),
 * said on stderr. */
int tb_run_summary(const struct tb_runner_result *res, const char *power_source,
                   bool with_modes, bool with_best, const char *log_path);

#endif
