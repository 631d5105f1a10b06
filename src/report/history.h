/* history.h: `transpose-bench history`: each series' best result per night, in time order,
 * with changes beyond the nights' noise flagged (history.c states the rule). */
#ifndef TB_HISTORY_H
#define TB_HISTORY_H

#include "lib/cli.h"

/* argv[0] is "history"; options and logs follow. Returns the exit code. */
int tb_history_main(int argc, char **argv);
/* history's usage: its option rows are the parser's (cli.h); `history --help` and `help
 * history` are main.c's, whose command table prints this. */
extern const struct tb_usage tb_history_usage;

#endif
