/* logread_internal.h: what logread.c (a line's meaning) and logbytes.c (the bytes, plain
 * or gzip, bounded) share while one log is read. Private to src/log/'s reader. */
#ifndef TB_LOGREAD_INTERNAL_H
#define TB_LOGREAD_INTERNAL_H

#include <stdbool.h>

#include "log/logread.h"

enum { MAX_FIELDS = 256 };

/* One log's state while it is read. */
struct reader {
    struct tb_logset *s;
    struct tb_log_info *info;
    const char *path;
    int col[TB_LR_N];
    int nhead, format;
    bool have_header, ended, capped;
    long lineno, impossible, unknown_outcome;
    long after_end, other_run;   /* rows after the end line; rows naming another run */
    char *fields[MAX_FIELDS];
};

/* Counts a problem of the log set; returns -1. */
int tb_logread_problem(struct reader *rd);
/* One whole line (no newline). Returns -1 when the file is no log (stop reading). */
int tb_logread_line(struct reader *rd, char *l);
/* Opens a log: a regular file, without blocking; the descriptor, or -errno after saying
 * why. */
int tb_logread_open(struct tb_logset *s, const char *path);
/* Reads fd to its end (or a bound) line by line into tb_logread_line; 0, or -1 after saying
 * what went wrong (the rows read before it are kept). */
int tb_logread_pump(struct reader *rd, int fd);

#endif
