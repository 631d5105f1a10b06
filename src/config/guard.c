/* config/guard.c: what libconfig 1.5 (JetPack 4) cannot guard itself. It opens files
 * with fopen (a FIFO blocks it forever), follows @include with no size limit and no hook
 * (config_set_include_func is 1.7+), and wraps integer literals past 32 bits. So the text
 * of a file is read here, bounded and without blocking, and every @include target is
 * checked to be a regular file and counted against the same 1 MiB before libconfig opens
 * it; an @include is read from the including file's folder (include_target). Not here:
 * parsing (libconfig), what the settings mean (config.c). */
#include "config/config.h"
#include "config/internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

/* libconfig 1.5 (JetPack 4, Debian 12) reads an integer literal outside 32 bits without an
 * L suffix as a wrapped 32-bit value (4294967297 becomes 1). This scan of the text finds
 * such literals before libconfig does, so they are refused with their line, never used. */
void tb_config_check_wraps(const char *text, const char *where, bool has_lines, struct tb_diag *d)
{
    int line = 1;
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            line++;
            p++;
        } else if (*p == '"') {                                  /* a string */
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
                else if (*p == '\n')
                    line++;
            if (*p)
                p++;
        } else if (*p == '#' || (*p == '/' && p[1] == '/')) {   /* a line comment */
            while (*p && *p != '\n')
                p++;
        } else if (*p == '/' && p[1] == '*') {                  /* a block comment */
            for (p += 2; *p && !(*p == '*' && p[1] == '/'); p++)
                line += *p == '\n';
            p += *p ? 2 : 0;
        } else if (isdigit((unsigned char)*p) &&
                   (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.'))) {
            const char *start = p;
            bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
            p += hex ? 2 : 0;
            while (isxdigit((unsigned char)*p) && (hex || isdigit((unsigned char)*p)))
                p++;
            bool fp = !hex && (*p == '.' || *p == 'e' || *p == 'E');
            bool wide = *p == 'L';
            if (fp) {
                while (isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+')
                    p++;
                continue;
            }
            errno = 0;
            unsigned long long v = strtoull(start, NULL, hex ? 16 : 10);
            bool neg = start > text && start[-1] == '-';
            if (!wide && (errno == ERANGE || v > (neg ? 2147483648ULL : 2147483647ULL))) {
                if (has_lines)
                    tb_diag_add(d, "%s:%d: the integer %s%.*s does not fit in 32 bits; libconfig 1.5 "
                                "would wrap it: write %s%.*sL if you mean it", where, line,
                                neg ? "-" : "", (int)(p - start), start, neg ? "-" : "",
                                (int)(p - start), start);
                else
                    tb_diag_add(d, "%s: the integer %s%.*s does not fit in 32 bits; libconfig 1.5 "
                                "would wrap it: write %s%.*sL if you mean it", where,
                                neg ? "-" : "", (int)(p - start), start, neg ? "-" : "",
                                (int)(p - start), start);
            }
            while (isalnum((unsigned char)*p))
                p++;
        } else {
            p++;
        }
    }
}

/* Opens path without blocking (a FIFO with no writer would block open and read) and reads
 * it whole if it is a regular file of at most *budget bytes; *budget shrinks by its size.
 * by: "" for the file itself, else "FILE:LINE: @include " of the line that names it. */
/* The bytes of path, a regular file of at most *budget bytes, NUL-terminated in *buf (*n
 * bytes). 0, or -1 with the problem added to d. */
static int read_regular(const char *path, const char *kind, const char *by, size_t budget,
                        char **out, size_t *out_n, struct tb_diag *d)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        tb_diag_add(d, "%scannot read %s file '%s': %s", by, kind, path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    const char *not = S_ISDIR(st.st_mode) ? "is a directory" : S_ISFIFO(st.st_mode) ? "is a FIFO"
                      : S_ISREG(st.st_mode) ? NULL : "is a device or a socket";
    if (not) {
        tb_diag_add(d, "%s%s: %s, not a %s file", by, path, not, kind);
        close(fd);
        return -1;
    }
    char *buf = st.st_size <= (off_t)budget ? malloc(budget + 1) : NULL;
    size_t n = 0;
    ssize_t got = 0;
    while (buf && n <= budget && (got = read(fd, buf + n, budget + 1 - n)) > 0)
        n += (size_t)got;
    int e = errno;
    close(fd);
    if (!buf || n > budget) {   /* the file may have grown since fstat */
        tb_diag_add(d, "%s%s: %lld bytes is too large for a %s file (limit %d%s)", by, path,
                    buf ? (long long)n : (long long)st.st_size, kind, TB_CONFIG_MAX_BYTES,
                    by[0] || budget < TB_CONFIG_MAX_BYTES ? ", for a file and its @includes "
                    "together" : "");
        free(buf);
        return -1;
    }
    if (got < 0) {
        tb_diag_add(d, "%scannot read %s file '%s': %s", by, kind, path, strerror(e));
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *out_n = n;
    return 0;
}

/* A config file's text as libconfig will read it: UTF-16 and stray carriage returns or
 * byte-order marks refused at their line with the fix, CRLF as LF, a leading UTF-8 BOM
 * dropped (refused in an @include). 0 with *n updated, or -1 with the problem added. */
static int clean_text(const char *path, const char *by, const char *kind, char *buf, size_t *np,
                      struct tb_diag *d)
{
    size_t n = *np;
    /* files saved on Windows: UTF-16 (Notepad's "Unicode") is refused with the fix; a UTF-8
     * byte-order mark is dropped from the file itself, whose text libconfig is given, and
     * refused in an @include, which libconfig opens itself; CRLF line ends are read as LF */
    if (n >= 2 && (((unsigned char)buf[0] == 0xff && (unsigned char)buf[1] == 0xfe) ||
                   ((unsigned char)buf[0] == 0xfe && (unsigned char)buf[1] == 0xff))) {
        tb_diag_add(d, "%s%s:1: the file is UTF-16 text (saved as \"Unicode\" on Windows): "
                    "save it as UTF-8", by, path);
        free(buf);
        return -1;
    }
    if (n >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
        if (by[0]) {
            tb_diag_add(d, "%s%s:1: the file starts with a UTF-8 byte-order mark, which libconfig "
                        "cannot read in an @include: save it without one (sed -i '1s/^\\xEF\\xBB"
                        "\\xBF//' '%s')", by, path, path);
            free(buf);
            return -1;
        }
        memmove(buf, buf + 3, n - 2);
        n -= 3;
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (!(buf[i] == '\r' && i + 1 < n && buf[i + 1] == '\n'))
            buf[w++] = buf[i];
    buf[w] = '\0';
    n = w;
    /* what is left of Windows or old Mac editing, said at its line with the fix rather than
     * as libconfig's syntax error: a byte-order mark inside (two files joined), a carriage
     * return alone (old Mac line ends make the whole file one line) */
    int line = 1;
    for (size_t i = 0; i < n; i++) {
        line += buf[i] == '\n';
        const char *what = buf[i] == '\r' ? "a carriage return without a line feed (old Mac "
                           "line ends?): save the file with LF or CRLF line ends"
                           : i + 2 < n && !memcmp(buf + i, "\xef\xbb\xbf", 3) ? "a byte-order mark "
                           "(U+FEFF) inside the file (two files joined?): remove it" : NULL;
        if (what) {
            tb_diag_add(d, "%s%s:%d: %s", by, path, line, what);
            free(buf);
            return -1;
        }
    }
    if (memchr(buf, '\0', n)) {
        tb_diag_add(d, "%s%s: holds a NUL byte: not a %s file", by, path, kind);
        free(buf);
        return -1;
    }
    *np = n;
    return 0;
}

static int read_bounded(const char *path, const char *kind, const char *by, size_t *budget,
                        char **text, struct tb_diag *d)
{
    char *buf;
    size_t n;
    if (read_regular(path, kind, by, *budget, &buf, &n, d) < 0 ||
        clean_text(path, by, kind, buf, &n, d) < 0)
        return -1;
    *budget -= n;
    *text = buf;
    return 0;
}


/* Whether a block comment or a string is open at the end of the line [p, end), given the
 * state at its start: libconfig 1.5's scanner has both as states of their own (a string
 * may span lines, and "/" "*" inside one opens no comment), and an @include is seen only
 * outside both. */
static void scan_line_state(const char *p, const char *end, bool *in_comment, bool *in_string)
{
    for (const char *c = p; c < end; c++) {
        if (*in_string) {
            if (*c == '\\' && c + 1 < end)
                c++;
            else if (*c == '"')
                *in_string = false;
        } else if (*in_comment) {
            if (*c == '*' && c + 1 < end && c[1] == '/')
                *in_comment = false, c++;
        } else if (*c == '#' || (*c == '/' && c + 1 < end && c[1] == '/')) {
            break;
        } else if (*c == '/' && c + 1 < end && c[1] == '*') {
            *in_comment = true, c++;
        } else if (*c == '"') {
            *in_string = true;
        }
    }
}

/* The text handed to libconfig, built while the file itself (depth 0) is guarded: its
 * lines as they are, but for the names of @includes rewritten to where they are read. */
struct rewrite {
    char *buf;
    size_t n, cap;
    bool changed;
};

static int put(struct rewrite *rw, const char *s, size_t n)
{
    if (!rw)
        return 0;
    if (rw->n + n + 1 > rw->cap) {
        size_t cap = (rw->n + n + 1) * 2;
        char *b = realloc(rw->buf, cap);
        if (!b)
            return -1;
        rw->buf = b;
        rw->cap = cap;
    }
    memcpy(rw->buf + rw->n, s, n);
    rw->n += n;
    rw->buf[rw->n] = '\0';
    return 0;
}

/* Where an @include NAME on line of path is read, into out: as a reader expects, from the
 * including file's folder. libconfig 1.5 opens an @include from the working folder (its one
 * include_dir would be put before absolute names too), so in the file itself (depth 0),
 * whose text we hand libconfig, the name is rewritten to FOLDER/NAME; in an included file,
 * which libconfig reads itself, a relative name is taken only where that file's folder is
 * the working folder (the two readings agree), else refused: never the wrong file, silently.
 * 0, or -1 with the problem added. */
static int include_target(const char *path, int depth, const char *name, int line, char *out,
                          size_t n, struct tb_diag *d)
{
    char dir[PATH_MAX];
    tb_strlcpy(dir, path, sizeof(dir));
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir] = '\0';   /* "/x.cfg": the folder is "/" */
    const char *folder = slash ? dir : ".";
    struct stat a, b;
    if (name[0] == '/' || !slash || (depth > 0 && stat(folder, &a) == 0 && stat(".", &b) == 0 &&
                                      a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
        if (snprintf(out, n, "%s", name) < (int)n)
            return 0;
    } else if (depth == 0) {
        if (snprintf(out, n, "%s%s%s", folder, strcmp(folder, "/") ? "/" : "", name) < (int)n)
            return 0;
    } else {
        tb_diag_add(d, "%s:%d: @include \"%s\": libconfig 1.5 reads an @include inside an "
                    "included file from the working folder, not from that file's folder '%s': "
                    "name it by its absolute path, or include it from the first file", path,
                    line, name, folder);
        return -1;
    }
    tb_diag_add(d, "%s:%d: @include \"%s\": the path is too long", path, line, name);
    return -1;
}

/* The name as a libconfig string literal (quotes and backslashes escaped). */
static int put_name(struct rewrite *rw, const char *name)
{
    int rc = put(rw, "\"", 1);
    for (const char *c = name; *c && rc == 0; c++)
        rc = (*c == '"' || *c == '\\' ? put(rw, "\\", 1) : 0) || put(rw, c, 1) ? -1 : 0;
    return rc || put(rw, "\"", 1) ? -1 : 0;
}

static int guard_text(const char *path, const char *text, const char *kind, int depth,
                      size_t *budget, struct rewrite *rw, struct tb_diag *d);

/* One @include line's name (after "@include" and blanks, at q) read into name; *end: just
 * past its closing quote (or where the name stopped). */
static size_t include_name(const char *q, char *name, size_t n, const char **end)
{
    size_t k = 0;
    if (*q == '"')
        for (q++; *q && *q != '"' && *q != '\n' && k < n - 1; q++)
            name[k++] = *q == '\\' && q[1] && q[1] != '\n' ? *++q : *q;
    name[k] = '\0';
    *end = q + (*q == '"');
    return k;
}

/* The @include directives of text, as libconfig 1.5's scanner sees them: at the start of a
 * line (after blanks), outside block comments, a quoted name read from the including file's
 * folder (include_target). Each target is read and checked in turn; rw (the file itself
 * only) receives the text with the names rewritten. */
static int guard_includes(const char *path, const char *text, const char *kind, int depth,
                          size_t *budget, struct rewrite *rw, struct tb_diag *d)
{
    int line = 1, rc = 0;
    bool in_comment = false, in_string = false;
    for (const char *p = text; *p; line++) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *q = p, *from = p;   /* from: what is still to be copied into rw */
        while (!in_comment && (*q == ' ' || *q == '\t'))
            q++;
        /* inside a string too: libconfig would end the string at the name's quote (a syntax
         * error, nothing opened), and checking one file too many is harmless */
        if (!in_comment && !strncmp(q, "@include", 8) && (q[8] == ' ' || q[8] == '\t')) {
            for (q += 8; *q == ' ' || *q == '\t'; q++)
                ;
            char name[4096], by[4200], target[PATH_MAX];
            const char *after;
            size_t k = include_name(q, name, sizeof(name), &after);
            char *inc = NULL;
            if (k == 0 || depth >= TB_CONFIG_MAX_INCLUDE_DEPTH) {
                tb_diag_add(d, "%s:%d: %s", path, line, k ? "@include nested too deep (a loop?)"
                            : "@include names no file");
                rc = -1;
            } else if (include_target(path, depth, name, line, target, sizeof(target), d) < 0) {
                rc = -1;
            } else {
                snprintf(by, sizeof(by), "%s:%d: @include ", path, line);
                if (read_bounded(target, kind, by, budget, &inc, d) < 0 ||
                    guard_text(target, inc, kind, depth + 1, budget, NULL, d) < 0)
                    rc = -1;
                if (rw && strcmp(target, name)) {   /* the line up to the name, the target */
                    if (put(rw, p, (size_t)(q - p)) < 0 || put_name(rw, target) < 0)
                        rc = -1;
                    from = after;
                    rw->changed = true;
                }
            }
            free(inc);
        }
        if (put(rw, from, (size_t)(p + len - from) + (eol != NULL)) < 0)
            rc = -1;
        /* only whether a block comment or a string is open at the end of the line matters */
        scan_line_state(p, p + len, &in_comment, &in_string);
        if (!eol)
            break;
        p = eol + 1;
    }
    return rc;
}

static int guard_text(const char *path, const char *text, const char *kind, int depth,
                      size_t *budget, struct rewrite *rw, struct tb_diag *d)
{
    size_t before = d->n;
    tb_config_check_wraps(text, path, true, d);
    if (guard_includes(path, text, kind, depth, budget, rw, d) < 0)
        return -1;
    return d->n > before ? -1 : 0;
}

int tb_config_guard_file(const char *path, const char *kind, char **text, struct tb_diag *d)
{
    size_t budget = TB_CONFIG_MAX_BYTES;
    *text = NULL;
    if (read_bounded(path, kind, "", &budget, text, d) < 0)
        return -1;
    struct rewrite rw = { 0 };
    if (guard_text(path, *text, kind, 0, &budget, &rw, d) < 0) {
        free(*text);
        free(rw.buf);
        *text = NULL;
        return -1;
    }
    if (rw.changed) {   /* the names libconfig must open, from the file's own folder */
        free(*text);
        *text = rw.buf;
    } else {
        free(rw.buf);
    }
    return 0;
}
