/* csvlog.c: see csvlog.h. Sync-flushing each row costs a few hundred bytes of
 * compression ratio per row; a sweep point takes far longer than that write. */
#include "log/csvlog.h"
#include "log/csvlog_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "log/energy_figures.h"
#include "log/log_meta.h"
#include "lib/util.h"

const struct tb_column tb_columns[] = {
#define X(name, kind, fmt, unit, doc) { #name, TB_CKIND_##kind, fmt, unit, doc, offsetof(struct tb_row, name) },
    TB_LOG_COLUMNS(X)
#undef X
};
const size_t tb_n_columns = ARRAY_SIZE(tb_columns);

/* each energy figure is a number column of the row, by its name: the meter's result and the
 * reader's record hold them as doubles of that name (energy_figures.h) */
#define TB_FIGURE_IS_NUMBER(name, keep, max) \
    _Static_assert(_Generic(((struct tb_row *)0)->name, double: 1, default: 0), \
                   #name ": an energy figure that is no number column of the log");
TB_ENERGY_FIGURES(TB_FIGURE_IS_NUMBER)
#undef TB_FIGURE_IS_NUMBER

const struct tb_meta_key tb_meta_keys[TB_META_N] = {
#define X(id, key, when, doc) { key, when, doc },
    TB_LOG_META(X)
#undef X
};

const char *tb_meta_value(const char *line, enum tb_meta id)
{
    const char *key = tb_meta_keys[id].key;
    size_t n = strlen(key);
    if (line[0] != '#' || line[1] != ' ' || strncmp(line + 2, key, n) || line[2 + n] != ':')
        return NULL;
    line += 3 + n;
    return *line == ' ' ? line + 1 : line;
}

int tb_meta_known(const char *key)
{
    for (size_t i = 0; i < TB_META_N; i++)
        if (!strcmp(tb_meta_keys[i].key, key))
            return 1;
    return 0;
}

struct tb_csvlog {
    gzFile gz;
    int fd;
    int keep_fd;      /* a second descriptor: the log can be copied out if its directory goes */
    char path[PATH_MAX], tmp[PATH_MAX];
    char run_id[NAME_MAX + 1];
    char started[32];  /* ISO UTC of the stamp */
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

/* Every text field of a row (kernel, note, power_note, ...: a JIT log's bytes among them):
 * quoted as RFC 4180 says, '#' never starting a metadata line, no line break, and valid
 * UTF-8: a byte that starts no valid sequence becomes U+FFFD (DuckDB refused a log whose
 * note held a JIT log's raw bytes). The data is otherwise kept as it is. */
static size_t put_text(char *buf, size_t n, size_t len, const char *s)
{
    bool quote = strpbrk(s, ",\"\n\r") != NULL;
    if (quote && len < n)
        buf[len++] = '"';
    while (*s && len + 5 < n) {
        uint32_t cp;
        int k = tb_utf8_at((const unsigned char *)s, &cp);
        if (k > 1) {   /* a whole valid sequence, as it is */
            memcpy(buf + len, s, (size_t)k);
            len += (size_t)k;
            s += k;
            continue;
        }
        if (k == 0) {   /* no UTF-8: U+FFFD */
            memcpy(buf + len, "\xef\xbf\xbd", 3);
            len += 3;
            s++;
            continue;
        }
        char ch = *s == '#' ? '%' : (*s == '\n' || *s == '\r') ? ' ' : *s;
        s++;
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
        } else if (c->kind == 'O') {
            len = put_text(buf, n, len, tb_status_name(*(const enum tb_status *)p));
        } else if (c->kind == 'V') {
            len = put_text(buf, n, len, tb_verified_name(*(const enum tb_verified *)p));
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

/* ".RUNID.csv.gz.PID.part": the run_id and pid of a run's temporary file. */
bool tb_csvlog_part_parse(const char *name, char *run_id, size_t n, long *pid)
{
    size_t len = strlen(name);
    if (name[0] != '.' || len < 6 || strcmp(name + len - 5, ".part"))
        return false;
    const char *dot = name + len - 5;
    const char *p = dot;
    while (p > name && isdigit((unsigned char)p[-1]))
        p--;
    if (p == dot || p - name < 9 || strncmp(p - 8, ".csv.gz.", 8))
        return false;
    *pid = strtol(p, NULL, 10);
    snprintf(run_id, n, "%.*s", (int)(p - 8 - (name + 1)), name + 1);
    return true;
}

/* Whether some run's temporary file for run_id is in dir. */
static bool part_exists(const char *dir, const char *run_id)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    char id[NAME_MAX + 1];
    long pid;
    while (!found && (e = readdir(d)))
        found = tb_csvlog_part_parse(e->d_name, id, sizeof(id), &pid) && !strcmp(id, run_id);
    closedir(d);
    return found;
}

void tb_log_name_part(char *s, size_t n)
{
    /* one spelling per name (util.h): a name any shell, rsync pattern or CSV field takes as
     * it is, and two names never one spelling (lab_nano and lab-nano once shared one, and
     * one's retention took the other's logs) */
    char src[256];
    tb_strlcpy(src, s, sizeof(src));
    tb_name_part(s, n, src);
}

bool tb_log_name_parse(const char *name, char *host, size_t hn, char *board, size_t bn,
                       time_t *stamp)
{
    static const char suffix[] = ".csv.gz";
    size_t len = strlen(name), sl = sizeof(suffix) - 1;
    if (name[0] == '.' || len <= sl || strcmp(name + len - sl, suffix))
        return false;
    len -= sl;
    /* an optional -N after the stamp's Z */
    size_t end = len;
    while (end > 0 && isdigit((unsigned char)name[end - 1]))
        end--;
    if (end < len && end > 0 && name[end - 1] == '-')
        len = end - 1;
    if (len < 16 + 4 || name[len - 1] != 'Z')
        return false;
    const char *s = name + len - 16;   /* YYYYMMDDTHHMMSSZ */
    if (s[-1] != '_' || s[8] != 'T')
        return false;
    for (int i = 0; i < 15; i++)
        if (i != 8 && !isdigit((unsigned char)s[i]))
            return false;
    const char *u1 = strchr(name, '_');
    if (!u1 || u1 >= s - 1)
        return false; /* needs host_board_ */
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (sscanf(s, "%4d%2d%2dT%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec) != 6)
        return false;
    /* a date that cannot be (month 13, 31 February, hour 24) is no stamp: timegm would
     * quietly move it to another day */
    static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > mdays[tm.tm_mon - 1] ||
        (tm.tm_mon == 2 && tm.tm_mday == 29 &&
         !(tm.tm_year % 4 == 0 && (tm.tm_year % 100 != 0 || tm.tm_year % 400 == 0))) ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    if (stamp)
        *stamp = timegm(&tm);
    if (host)
        snprintf(host, hn, "%.*s", (int)(u1 - name), name);
    if (board)
        snprintf(board, bn, "%.*s", (int)(s - 1 - (u1 + 1)), u1 + 1);
    return true;
}

int tb_csvlog_open(struct tb_csvlog **out, const char *dir, const char *host, const char *board,
                   int gzip_level)
{
    struct tb_csvlog *l = calloc(1, sizeof(*l));
    if (!l)
        return -ENOMEM;
    char h[128], b[128], stamp[32];
    tb_strlcpy(h, host, sizeof(h));
    tb_strlcpy(b, board, sizeof(b));
    tb_log_name_part(h, sizeof(h));
    tb_log_name_part(b, sizeof(b));
    tb_utc_stamp(stamp, sizeof(stamp), false);
    tb_utc_stamp(l->started, sizeof(l->started), true);
    /* the first free name of this second: no log and no run's temporary file holds it (a
     * run's .part is created with O_EXCL, so two runs never take the same one) */
    for (int seq = 1; seq < 10000; seq++) {
        if (seq == 1)
            snprintf(l->run_id, sizeof(l->run_id), "%.100s_%.100s_%s", h, b, stamp);
        else
            snprintf(l->run_id, sizeof(l->run_id), "%.100s_%.100s_%s-%d", h, b, stamp, seq);
        snprintf(l->path, sizeof(l->path), "%s/%s.csv.gz", dir, l->run_id);
        struct stat st;   /* lstat: a link (dangling too) holds the name as a file does */
        if (lstat(l->path, &st) == 0 || part_exists(dir, l->run_id))
            continue;
        snprintf(l->tmp, sizeof(l->tmp), "%s/.%s.csv.gz.%ld.part", dir, l->run_id, (long)getpid());
        l->fd = open(l->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (l->fd >= 0 || errno != EEXIST)
            break;
    }
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

const char *tb_csvlog_run_id(const struct tb_csvlog *l) { return l->run_id; }

int tb_csvlog_preamble(struct tb_csvlog *l, const char *version)
{
    int rc = tb_csvlog_meta(l, TB_META(transpose_bench), "%s", version);
    if (!rc)
        rc = tb_csvlog_meta(l, TB_META(log_format), "%d", TB_LOG_FORMAT);
    if (!rc)
        rc = tb_csvlog_meta(l, TB_META(run_id), "%s", l->run_id);
    if (!rc)
        rc = tb_csvlog_meta(l, TB_META(started_utc), "%s", l->started);
    return rc;
}

void tb_csvlog_clean(char *s, size_t cap)
{
    /* the one rule for hostile text (util.c: controls, bytes that are no UTF-8, invisible
     * format characters named), C0 controls first made spaces so that a newline never
     * starts a second metadata line */
    for (char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    if (!tb_text_needs_clean(s))
        return;
    char *tmp = malloc(cap);
    if (!tmp) {
        for (unsigned char *p = (unsigned char *)s; *p; p++)
            if (*p >= 0x7f)
                *p = '?';
        return;
    }
    tb_text_clean(tmp, cap, s, false);
    memcpy(s, tmp, strlen(tmp) + 1);
    free(tmp);
}

int tb_csvlog_meta(struct tb_csvlog *l, const char *key, const char *fmt, ...)
{
    char val[4096], line[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof(val), fmt, ap);
    va_end(ap);
    tb_csvlog_clean(val, sizeof(val));
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

/* Gives tmp the name path unless a file has it: link(2) fails rather than replace, where
 * rename(2) would not (and renameat2's RENAME_NOREPLACE is newer than glibc 2.27). On a file
 * system without hard links (vfat), a rename after checking that the name is free. */
static int give_name(const char *tmp, const char *path)
{
    if (link(tmp, path) == 0)
        return unlink(tmp) < 0 && errno != ENOENT ? -1 : 0;
    if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != EXDEV)
        return -1;
    struct stat st;
    if (lstat(path, &st) == 0) {   /* a file, or a link: never replaced, never written through */
        errno = EEXIST;
        return -1;
    }
    return rename(tmp, path);
}


int tb_csvlog_close(struct tb_csvlog *l, const char *how)
{
    int rc = 0;
    if (!l)
        return 0;
    if (!l->err) {
        char why[2048], line[2200];   /* line: the key, why and the count fit */
        tb_strlcpy(why, how, sizeof(why));
        tb_csvlog_clean(why, sizeof(why));   /* a driver's text or a path never adds a line of its own */
        snprintf(line, sizeof(line), "# %s: %s, %ld rows", TB_META(end), why, l->rows);
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
    if (rc == 0 && give_name(l->tmp, l->path) < 0) {
        int e = errno;
        if (e == ENOENT && copy_out(l) == 0) {
            warning("log directory of '%s' vanished during the run: recreated it and wrote the "
                    "whole log again", l->path);
        } else {
            rc = -e;
            error("cannot give log '%s' its name '%s': %s", l->tmp, l->path, strerror(e));
        }
    }
    if (rc == 0) {   /* the name itself survives a power cut */
        char dir[PATH_MAX];
        tb_strlcpy(dir, l->path, sizeof(dir));
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = '\0';
            tb_csvlog_sync_dir(dir);
        }
    }
    if (rc && l->rows == 0)   /* a full disk: "rows stay in" a file that held none (#58) */
        note("no row could be written: '%s' holds none (a full disk?)", l->tmp);
    else if (rc)
        note("the %ld rows written so far stay in '%s' (zcat reads them)", l->rows, l->tmp);
    if (l->keep_fd >= 0)
        close(l->keep_fd);
    free(l);
    return rc;
}

const char *tb_csvlog_path(const struct tb_csvlog *l) { return l->path; }
const char *tb_csvlog_tmp_path(const struct tb_csvlog *l) { return l->tmp; }

/* Syncs a directory, so that a name given or removed in it survives a power cut. */
void tb_csvlog_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}
