/* logbytes.h: a log file's bytes, plain or gzip, into whole lines handed to a callback, with
 * the bounds checked as bytes arrive (a line's length, the bytes a log may inflate to); a
 * damaged or cut gzip stream gives every line before the damage. Used by logread.c, which
 * gives a line its meaning; nothing here knows what a line says. */
#ifndef TB_LOGBYTES_H
#define TB_LOGBYTES_H

#include <stdbool.h>

#define TB_LOGBYTES_MAX_LINE 65536   /* a longer line is skipped, said */

struct tb_logbytes {
    /* in */
    const char *who, *path;          /* for messages: "compare: a.csv.gz:4: ..." */
    unsigned long long max_bytes;    /* uncompressed bytes read at most */
    bool bounds_quiet;               /* that bound reached is counted, not said */
    /* One whole line (no newline; lineno counts from 1, skipped lines too); < 0: read no
     * further (not a log, a bound of the caller's reached). An empty line is counted, never
     * handed over (no line of a log says anything by being empty). */
    int (*line)(void *arg, long lineno, char *line);
    long (*rows)(void *arg);         /* the rows kept so far, for "using the N rows before it" */
    void *arg;
    /* out */
    long lineno;                     /* lines read */
    unsigned long long bytes;        /* uncompressed bytes read */
    int problems;                    /* problems said (each on stderr as it came) */
};

/* Opens a log: a regular file, without blocking (a FIFO or a device as a log would hang a
 * read, /dev/zero never ends); a link is followed (the user named it) to a regular file.
 * The descriptor, or -errno after saying why. */
int tb_logbytes_open(const char *who, const char *path);
/* Reads fd to its end, or to a bound or a stop, line by line into lb->line. 0, or -1 after
 * saying what went wrong (the lines before it were handed over). */
int tb_logbytes_read(struct tb_logbytes *lb, int fd);

#endif
