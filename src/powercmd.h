/* powercmd.h: `transpose-bench power`: sample the board's source and print the readings,
 * so a board can be checked before nightly runs are scheduled on it. */
#ifndef TB_POWERCMD_H
#define TB_POWERCMD_H

#include <stdbool.h>
#include <stdio.h>

struct tb_power_cfg;

/* Returns an exit code: 0, 1 when the source cannot start or fails. */
int tb_power_command(const struct tb_power_cfg *pc, const char *board, double seconds, bool csv,
                     FILE *out);

#endif
