/* retention.h: removes old logs of this tool from the log directory, by count and by age.
 * A log is a candidate only when what it says of itself (its host, machine-id and board
 * lines) is exactly this run's: other hosts' and boards' logs, whatever their names spell,
 * logs that cannot be read, and anything else are never touched. Not here: which name a
 * log gets (csvlog.h), what a dead run left (csvlog.c's recovery). */
#ifndef TB_RETENTION_H
#define TB_RETENTION_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>

/* Whose a log is, as its metadata says. */
struct tb_log_identity {
    bool has_host;
    char host[256];
    char machine_id[64];      /* "" when the log has none */
    char board_line[512];     /* the "# board:" value: "NAME, peak X GB/s[, has a GPU]" */
};

/* Reads path's identity from its first metadata lines (gzip or plain; no link followed,
 * regular files only, at most 64 KiB). 0, or -errno (-ENOENT: no host or board line). */
int tb_log_identity(const char *path, struct tb_log_identity *id);
/* Exact match: host and machine-id ("" for none) as logged, and the board line of board. */
bool tb_log_identity_is(const struct tb_log_identity *id, const char *host, const char *machine_id,
                        const char *board);

/* One of a folder's logs, as tb_logs_ours lists them. */
struct tb_log_entry {
    char name[NAME_MAX + 1];  /* its file name in the folder */
    time_t stamp;             /* the start its name spells */
    bool plausible;           /* a stamp neither in the future nor before 2020 */
};

/* The logs in dir whose metadata says they are host's (machine_id as logged: "" for none)
 * and board's, but skip_base (a file name; NULL: none): newest first, an implausible stamp
 * after every plausible one. *out holds them (free it). The count, or -errno when dir
 * cannot be opened (*out NULL). */
long tb_logs_ours(const char *dir, const char *host, const char *machine_id, const char *board,
                  const char *skip_base, struct tb_log_entry **out);

/* Of the logs in dir whose identity is that of keep_path (the log this run just wrote, of
 * host and board: nothing is removed when it does not say so), keeps the newest keep_logs
 * counting keep_path (0: all) and removes those older than keep_days days (0: never);
 * never removes keep_path. A log stamped in the future or before 2020 counts as the oldest
 * and is never removed for its age. Returns how many went. */
int tb_retention_apply(const char *dir, const char *host, const char *board, int keep_logs,
                       int keep_days, const char *keep_path);

/* tb_retention_apply on a thread of its own (retention_bounded.c), waited for within
 * limit_s of the tool's clock (lib/clock.h) and while *stop (NULL: none) is 0: a log in the
 * folder whose open or read never returns (a stuck FUSE or network mount) or a signal never
 * holds the night's end (#58: a stuck earlier log kept a finished night, its lock held, for
 * ever). Nothing is started when *stop is already set. Returns how many logs went, or -1
 * after a warning (not done in time, stopped, no thread): the rest is left for the next
 * night; the thread, if left, ends when its call returns. */
#define TB_RETENTION_LIMIT_S 30.0
int tb_retention_apply_bounded(const char *dir, const char *host, const char *board,
                               int keep_logs, int keep_days, const char *keep_path,
                               double limit_s, const volatile sig_atomic_t *stop);

#endif
