/* tune.h: the autotuner's output: from the rows a tuning run measured, each kernel's
 * fastest block per size among the rows that count (tb_log_usable), written as a sweep file
 * (sweep.points) that `run -c` takes. The search itself is an ordinary run over candidate
 * blocks with a deadline: runcmd.c sets the candidates and the budget (tune.seconds), run.c
 * measures them and calls tb_tune_write at its end. Not here: measuring anything. */
#ifndef TB_TUNE_H
#define TB_TUNE_H

#include <stddef.h>

#include "config/config.h"
#include "measure/runner.h"

/* Writes the tuned sweep to path: a new temporary beside it (O_EXCL, no link followed),
 * then renamed over path. Every other sweep setting of cfg is written through the config
 * dump. Returns the number of points written, or -1 with the error printed (nothing written
 * when no row counts). */
int tb_tune_write(const char *path, const struct tb_config *cfg, const struct tb_runner_result *res,
                  const char *device, const char *log_path, size_t measured, size_t total);

/* The tuned file's default path: conf/tuned-<board>-<element>.cfg (conf/ as board.c finds
 * it, when writable; else the log directory), the element by its canonical name (config
 * made it so), so f32 and float tune into one file. One file per board and element type:
 * the best block of a kernel differs by type; `run -c` takes it with its sweep.element. */
void tb_tune_default_path(const struct tb_config *cfg, char *out, size_t n);
/* The tuned file: out_opt (--out) when given, else the default path. */
void tb_tune_path(const struct tb_config *cfg, const char *out_opt, char *out, size_t n);
/* That file by the rule of every output that is not a log (lib/outfile.h): never over the
 * sweep or board file read, a log, a device or a FIFO. 0, or -1 with the error printed. */
int tb_tune_check_out(const struct tb_config *cfg, const char *out_opt, const char *sweep_path,
                      const char *board_path);

#endif
