/* csvlog.c: see csvlog.h. Sync-flushing each row costs a few hundred bytes of
 * compression ratio per row; a sweep point takes far longer than that write. */
#include "csvlog.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util.h"

const struct tb_column tb_columns[] = {
#define X(name, kind, fmt, unit, doc) { #name, #kind[0], fmt, unit, doc, offsetof(struct tb_row, name) },
    TB_LOG_COLUMNS(X)
#undef X
};
const size_t tb_n_columns = ARRAY_SIZE(tb_columns);

struct tb_csvlog {
    gzFile gz;
    int fd;
    int keep_fd;      /* a second descriptor: the log can be copied out if its directory goes */
    char path[PATH_MAX], tmp[PATH_MAX];
    long rows;
    int err;          /* first write error, -errno */
};

void tb_row_init(struct tb_row *r)
{
    memset(r, 0, sizeof(*r));
    for (size_t i = 0; i < tb_n_columns; i++)
        if (tb_columns[i].kind == 'D')
            *(double *)((char *)r + tb_columns[i].off) = NAN;
}

static size_t put_text(char *buf, size_t n, size_t len, const char *s)
{
    bool quote = strpbrk(s, ",\"\n\r") != NULL;
    if (quote && len < n)
        buf[len++] = '"';
    for (; *s && len + 2 < n; s++) {
        char ch = *s == '#' ? '%' : (*s == '\n' || *s == '\r') ? ' ' : *s;
        if (ch == '"')
            buf[len++] = '"';
        buf[len++] = ch;
    }
    if (quote && len < n)
        buf[len++] = '"';
    return len;
}

/* The formats are string literals of log_columns.h, checked by eye there. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void tb_row_format(const struct tb_row *r, char *buf, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < tb_n_columns && len + 1 < n; i++) {
        const struct tb_column *c = &tb_columns[i];
        const char *p = (const char *)r + c->off;
        if (i)
            buf[len++] = ',';
        if (c->kind == 'S') {
            const char *s = *(const char *const *)p;
            if (s)
                len = put_text(buf, n, len, s);
        } else if (c->kind == 'I') {
            len += (size_t)snprintf(buf + len, n - len, c->fmt, *(const long long *)p);
        } else {
            double v = *(const double *)p;
            if (!isnan(v) && !isinf(v))
                len += (size_t)snprintf(buf + len, n - len, c->fmt, v);
        }
        if (len >= n)
            len = n - 1;
    }
    buf[len < n ? len : n - 1] = '\0';
}
#pragma GCC diagnostic pop

void tb_header_format(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < tb_n_columns && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "", tb_columns[i].name);
}

static int write_error(struct tb_csvlog *l)
{
    if (!l->err) {
        int zerr = 0;
        const char *zmsg = gzerror(l->gz, &zerr);
        l->err = errno ? -errno : -EIO;
        error("cannot write log '%s': %s", l->tmp,
              zerr == Z_ERRNO || !zmsg || !*zmsg ? strerror(-l->err) : zmsg);
    }
    return l->err;
}

static int put_line(struct tb_csvlog *l, const char *s, bool sync)
{
    if (l->err)
        return l->err;
    errno = 0;
    if (gzputs(l->gz, s) < 0 || gzputc(l->gz, '\n') < 0 || gzflush(l->gz, Z_SYNC_FLUSH) != Z_OK)
        return write_error(l);
    if (sync && fdatasync(l->fd) < 0 && errno != EINVAL && errno != EROFS)
        return write_error(l);
    return 0;
}

int tb_csvlog_open(struct tb_csvlog **out, const char *dir, const char *name, int gzip_level)
{
    struct tb_csvlog *l = calloc(1, sizeof(*l));
    if (!l)
        return -ENOMEM;
    snprintf(l->path, sizeof(l->path), "%s/%s", dir, name);
    snprintf(l->tmp, sizeof(l->tmp), "%s/.%s.part", dir, name);
    l->fd = open(l->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (l->fd < 0) {
        int e = errno;
        error("cannot create log '%s': %s", l->tmp, strerror(e));
        free(l);
        return -e;
    }
    l->keep_fd = fcntl(l->fd, F_DUPFD_CLOEXEC, 0);
    char mode[8];
    snprintf(mode, sizeof(mode), "wb%d", gzip_level);
    l->gz = gzdopen(l->fd, mode);
    if (!l->gz) {
        error("cannot start gzip stream on '%s'", l->tmp);
        close(l->fd);
        unlink(l->tmp);
        free(l);
        return -ENOMEM;
    }
    *out = l;
    return 0;
}

int tb_csvlog_meta(struct tb_csvlog *l, const char *key, const char *fmt, ...)
{
    char val[4096], line[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof(val), fmt, ap);
    va_end(ap);
    for (char *p = val; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    snprintf(line, sizeof(line), "# %s: %s", key, val);
    return put_line(l, line, false);
}

int tb_csvlog_header(struct tb_csvlog *l)
{
    char buf[4096];
    tb_header_format(buf, sizeof(buf));
    return put_line(l, buf, true);
}

int tb_csvlog_row(struct tb_csvlog *l, const struct tb_row *r)
{
    char buf[8192];
    tb_row_format(r, buf, sizeof(buf));
    int rc = put_line(l, buf, true);
    if (rc == 0)
        l->rows++;
    return rc;
}

/* The directory was removed while the log was open: the file lives on through keep_fd,
 * so make the directory again and copy the finished log to its final name. */
static int copy_out(struct tb_csvlog *l)
{
    char dir[PATH_MAX];
    tb_strlcpy(dir, l->path, sizeof(dir));
    char *slash = strrchr(dir, '/');
    if (!slash || l->keep_fd < 0)
        return -1;
    *slash = '\0';
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return -1;
    int out = open(l->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0)
        return -1;
    char buf[65536];
    off_t off = 0;
    ssize_t n;
    while ((n = pread(l->keep_fd, buf, sizeof(buf), off)) > 0) {
        if (write(out, buf, (size_t)n) != n) {
            close(out);
            unlink(l->path);
            return -1;
        }
        off += n;
    }
    int rc = n < 0 || fsync(out) < 0 ? -1 : 0;
    close(out);
    if (rc)
        unlink(l->path);
    return rc;
}

int tb_csvlog_close(struct tb_csvlog *l, const char *how)
{
    int rc = 0;
    if (!l)
        return 0;
    if (!l->err) {
        char line[512];
        snprintf(line, sizeof(line), "# end: %s, %ld rows", how, l->rows);
        put_line(l, line, false);
        if (!l->err && (gzflush(l->gz, Z_FINISH) != Z_OK ||
                        (fdatasync(l->fd) < 0 && errno != EINVAL && errno != EROFS)))
            write_error(l);
    }
    errno = 0;
    int zrc = gzclose(l->gz); /* closes fd */
    if (zrc != Z_OK && !l->err)
        rc = write_error(l);
    if (l->err)
        rc = l->err;
    if (rc == 0 && rename(l->tmp, l->path) < 0) {
        int e = errno;
        if (e == ENOENT && copy_out(l) == 0) {
            warning("log directory of '%s' vanished during the run: recreated it and wrote the "
                    "whole log again", l->path);
        } else {
            rc = -e;
            error("cannot rename log '%s' to '%s': %s", l->tmp, l->path, strerror(e));
        }
    }
    if (rc)
        note("the rows written so far stay in '%s' (zcat reads them)", l->tmp);
    if (l->keep_fd >= 0)
        close(l->keep_fd);
    free(l);
    return rc;
}

const char *tb_csvlog_path(const struct tb_csvlog *l) { return l->path; }
const char *tb_csvlog_tmp_path(const struct tb_csvlog *l) { return l->tmp; }
long tb_csvlog_rows(const struct tb_csvlog *l) { return l->rows; }
