/* history.h: `transpose-bench history`: each series' best result per night, in time order,
 * with changes beyond the nights' noise flagged (history.c states the rule). */
#ifndef TB_HISTORY_H
#define TB_HISTORY_H

/* argv[0] is "history"; options and logs follow. `history --help` is main.c's (its command
 * table prints tb_history_usage). Returns the exit code. */
int tb_history_main(int argc, char **argv);
extern const char tb_history_usage[];

#endif
