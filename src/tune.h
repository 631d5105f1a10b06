/* tune.h: the autotuner's output: from the points a tuning run measured, each kernel's
 * fastest block per size, written as a sweep file (sweep.points) that `run -c` takes.
 * The search itself is an ordinary run over candidate blocks with a deadline (main.c). */
#ifndef TB_TUNE_H
#define TB_TUNE_H

#include <stddef.h>

#include "config/config.h"
#include "runner.h"

/* Writes the tuned sweep to path (via a temporary file and rename). The measurement
 * settings (warm-up, stopping rule, verification, cache) are copied from cfg. Returns the
 * number of points written, or -1 with the error printed. */
int tb_tune_write(const char *path, const struct tb_config *cfg, const struct tb_runner_result *res,
                  const char *device, const char *log_path, size_t measured, size_t total);

/* The tuned file's default path: conf/tuned-<board>-<element>.cfg (conf/ as board.c finds
 * it, when writable; else the log directory), the element by its canonical name (config
 * made it so), so f32 and float tune into one file. One file per board and element type:
 * the best block of a kernel differs by type; `run -c` takes it with its sweep.element. */
void tb_tune_default_path(const struct tb_config *cfg, char *out, size_t n);

#endif
