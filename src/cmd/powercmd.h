/* powercmd.h: `transpose-bench power`, its command line and its work: sample the board's
 * source and print the readings, so a board can be checked before nightly runs are
 * scheduled on it. */
#ifndef TB_POWERCMD_H
#define TB_POWERCMD_H

#include <stdbool.h>
#include <stdio.h>

#include "format/table.h"
#include "lib/cli.h"

struct tb_power_cfg;

/* Prints one row per rail per reading (elapsed_s, source, rail, power_mw) in format f; the
 * terminal and markdown tables add the source's GPU load, clocks, temperature and energy on
 * each reading's first row. Returns an exit code: 0, 1 when the source cannot start or
 * fails, or the output cannot be written. */
int tb_power_command(const struct tb_power_cfg *pc, const char *board, double seconds,
                     enum tb_format f, FILE *out);

/* The command: `power [-b BOARD.cfg] [--set KEY=VAL]... [--seconds S] [--format F]`, its
 * options parsed by the rows of tb_power_usage; an exit code (2 for a usage or board file
 * problem, said with the others in one pass). */
int tb_power_main(int argc, char **argv);
extern const struct tb_usage tb_power_usage;

#endif
