/* retention.h: removes old logs of this tool from the log directory, by count and by
 * age. Only this host's logs of this board (HOST_BOARD_YYYYMMDDTHHMMSSZ[-N].csv.gz) are
 * candidates: other hosts' and boards' logs, and anything else, are never touched. */
#ifndef TB_RETENTION_H
#define TB_RETENTION_H


/* Of host's logs of board in dir, keeps the newest keep_logs (0: all) and removes those
 * older than keep_days days (0: never); never removes keep_path. Returns how many went. */
int tb_retention_apply(const char *dir, const char *host, const char *board, int keep_logs,
                       int keep_days, const char *keep_path);

#endif
