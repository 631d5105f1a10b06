/* logbytes.c: see logbytes.h. The gzip stream is inflated here, not
 * through gzgets: zlib's gzread drops the whole chunk it was inflating when the stream turns
 * out damaged (a bit flip in the trailer lost every row of a small log), where inflate()
 * hands over every byte it produced before the error. The bounds are checked as bytes
 * arrive, so a gzip bomb stops at the cap with a message instead of filling memory. */
#include "log/logbytes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/util.h"

/* ---- the bytes: plain or gzip, bounded ------------------------------------------------ */

struct lines {
    char *buf;
    size_t len;
    bool skipping;       /* inside a line longer than the bound */
    unsigned long long bytes;
};

/* A problem said: counted; -1. */
static int problem(struct tb_logbytes *lb)
{
    lb->problems++;
    return -1;
}

/* Appends a piece of a line (no newline in it) to ls, up to the longest line kept; past it
 * the line is skipped, said once. */
static void piece(struct tb_logbytes *lb, struct lines *ls, const char *p, size_t n)
{
    if (ls->skipping)
        return;
    size_t room = TB_LOGBYTES_MAX_LINE - 1 - ls->len;   /* ls->len + 1 < MAX_LINE kept */
    size_t take = n < room ? n : room;
    memcpy(ls->buf + ls->len, p, take);
    ls->len += take;
    if (n > room) {
        ls->skipping = true;
        error("%s: %s:%ld: line longer than %d bytes; skipped", lb->who, lb->path,
              lb->lineno + 1, TB_LOGBYTES_MAX_LINE);
        problem(lb);
    }
}

/* Past a run of empty lines from p (p[0] is a newline), eight bytes a step: each one
 * counted in *lineno. */
static const char *blank_run(const char *p, const char *end, long *lineno)
{
    static const char eight[8] = { '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n' };
    uint64_t all, w;
    memcpy(&all, eight, 8);
    const char *q = p;
    while (end - q >= 8 && (memcpy(&w, q, 8), w == all))
        q += 8;
    while (q < end && *q == '\n')
        q++;
    *lineno += (long)(q - p);
    return q;
}

/* Feeds n bytes; -1 when the line callback says stop or the byte bound is reached. The
 * lines are found with memchr and copied whole, empty ones counted eight at a time (a byte
 * at a time, a bomb of 128 MB of empty
 * lines cost the learner 40 s under valgrind, #59). */
static int feed(struct tb_logbytes *lb, struct lines *ls, const char *p, size_t n)
{
    bool over = ls->bytes + n > lb->max_bytes;
    if (over)   /* the lines up to the bound count; the rest is not read */
        n = (size_t)(lb->max_bytes - ls->bytes);
    ls->bytes += n;
    lb->bytes += n;
    const char *end = p + n;
    while (p < end) {
        if (ls->len == 0 && *p == '\n') {   /* empty lines: counted, not passed on */
            p = blank_run(p, end, &lb->lineno);
            continue;
        }
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        piece(lb, ls, p, (size_t)((nl ? nl : end) - p));
        if (!nl)
            break;
        p = nl + 1;
        ls->buf[ls->len] = '\0';
        lb->lineno++;
        if (!ls->skipping && lb->line(lb->arg, lb->lineno, ls->buf) < 0)
            return -1;   /* no log, or a bound reached (said): the rest is not inflated */
        ls->len = 0;
        ls->skipping = false;
    }
    if (over) {
        ls->len = 0;   /* a line cut by the bound is no row */
        if (!lb->bounds_quiet)
            error("%s: %s:%ld: more than %llu bytes uncompressed; the rest is not read",
                  lb->who, lb->path, lb->lineno, lb->max_bytes);
        return problem(lb);
    }
    return 0;
}

/* Reads and inflates fd into lines; 0, or -1 after saying what went wrong (the rows read
 * before it are kept). */
static int pump(struct tb_logbytes *lb, struct lines *ls, int fd)
{
    unsigned char in[16384], out[65536];
    z_stream z;
    memset(&z, 0, sizeof(z));
    bool gz = false, started = false, done = false;
    int rc = 0;
    ssize_t got;
    while (rc == 0 && (got = read(fd, in, sizeof(in))) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            error("%s: %s: read error after line %ld: %s", lb->who, lb->path, lb->lineno,
                  strerror(errno));
            rc = problem(lb);
            break;
        }
        if (!started) {
            started = true;
            gz = got >= 2 && in[0] == 0x1f && in[1] == 0x8b;
            if (gz && inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
                error("%s: %s: out of memory", lb->who, lb->path);
                return problem(lb);
            }
        }
        if (!gz) {
            rc = feed(lb, ls, (const char *)in, (size_t)got);
            continue;
        }
        z.next_in = in;
        z.avail_in = (uInt)got;
        while (rc == 0 && z.avail_in > 0) {
            if (done) {   /* another gzip member after a whole one (cat a.gz b.gz) */
                inflateReset(&z);
                done = false;
            }
            z.next_out = out;
            z.avail_out = sizeof(out);
            int zr = inflate(&z, Z_NO_FLUSH);
            /* what inflate produced counts even when it then found damage */
            rc = feed(lb, ls, (const char *)out, sizeof(out) - z.avail_out);
            if (rc == 0 && zr == Z_STREAM_END)
                done = true;
            else if (rc == 0 && zr != Z_OK && zr != Z_BUF_ERROR) {
                error("%s: %s: unreadable after line %ld (damaged gzip data: %s); using the %ld "
                      "rows before it", lb->who, lb->path, lb->lineno,
                      z.msg ? z.msg : "inflate error", lb->rows(lb->arg));
                rc = problem(lb);
            }
        }
    }
    if (gz && rc == 0 && !done) {
        error("%s: %s: unreadable after line %ld (the gzip stream is cut short: a run still "
              "going, or a truncated copy); using the %ld rows before it", lb->who, lb->path,
              lb->lineno, lb->rows(lb->arg));
        rc = problem(lb);
    }
    if (gz)
        inflateEnd(&z);
    if (rc == 0 && ls->len > 0 && !ls->skipping) {   /* a last line without its newline */
        ls->buf[ls->len] = '\0';
        lb->line(lb->arg, ++lb->lineno, ls->buf);
    }
    return rc;
}

/* Opens a log: a regular file, without blocking (a FIFO or a device as a log would hang a
 * read, /dev/zero never ends). A link given on the command line is followed (the user named
 * it), but what it names must be a regular file too. */
int tb_logbytes_open(const char *who, const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        error("%s: cannot open '%s': %s", who, path, strerror(e));
        return -e;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        int e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        error("%s: '%s' is not a regular file (a %s): not a log", who, path,
              S_ISDIR(st.st_mode) ? "directory" : S_ISFIFO(st.st_mode) ? "FIFO"
              : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device" : "special file");
        close(fd);
        return -e;
    }
    return fd;
}

int tb_logbytes_read(struct tb_logbytes *lb, int fd)
{
    struct lines ls = { .buf = malloc(TB_LOGBYTES_MAX_LINE) };
    if (!ls.buf) {
        error("%s: out of memory reading '%s'", lb->who, lb->path);
        return problem(lb);
    }
    int rc = pump(lb, &ls, fd);
    free(ls.buf);
    return rc;
}
