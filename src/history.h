/* history.h: `transpose-bench history`: each series' best result per night, in time order,
 * with changes beyond the nights' noise flagged (history.c states the rule). */
#ifndef TB_HISTORY_H
#define TB_HISTORY_H

int tb_history_main(int argc, char **argv);

#endif
