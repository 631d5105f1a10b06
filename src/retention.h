/* retention.h: removes old logs of this tool from the log directory, by count and by
 * age. Only files named like this tool's logs (HOST_BOARD_YYYYMMDDTHHMMSSZ.csv.gz) are
 * candidates; anything else in the directory is never touched. */
#ifndef TB_RETENTION_H
#define TB_RETENTION_H

#include <stdbool.h>
#include <time.h>

/* True when name is one of this tool's log names; *stamp gets its UTC time. */
bool tb_retention_is_log(const char *name, time_t *stamp);
/* Keeps the newest keep_logs logs (0: all) and removes those older than keep_days days
 * (0: never); never removes keep_path. Returns how many files were removed. */
int tb_retention_apply(const char *dir, int keep_logs, int keep_days, const char *keep_path);

#endif
