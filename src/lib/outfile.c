/* outfile.c: see outfile.h. The rule is judged on what is at the name (lstat: a link is a
 * name we replace, never follow) and on what the name says; the temporary is our own file,
 * so nothing is ever written through anything found at the name. */
#include "lib/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Whether an existing file starts like a log: a gzip stream, or a log's first line. */
static bool looks_like_log(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return false;
    char head[20] = "";
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof(head)) : 0;
    close(fd);
    return (n >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b) ||
           (n >= 17 && !memcmp(head, "# transpose-bench", 17));
}

/* The name with its folder resolved (links and dots in the folder), for telling two names
 * of one file apart from two files; the name as given where the folder cannot be. */
static void canonical(const char *path, char *out, size_t n)
{
    char a[PATH_MAX], b[PATH_MAX], dir[PATH_MAX];
    tb_strlcpy(a, path, sizeof(a));
    tb_strlcpy(b, path, sizeof(b));
    if (realpath(dirname(a), dir))
        snprintf(out, n, "%s/%s", dir, basename(b));
    else
        tb_strlcpy(out, path, n);
}

/* Whether a and b name one file: the same name, the same folder and last name, or (both
 * existing) one inode. */
static bool same_file(const char *a, const char *b)
{
    char ca[2 * PATH_MAX], cb[2 * PATH_MAX];
    struct stat sa, sb;
    if (!strcmp(a, b))
        return true;
    canonical(a, ca, sizeof(ca));
    canonical(b, cb, sizeof(cb));
    if (!strcmp(ca, cb))
        return true;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static const char *kind(mode_t m)
{
    return S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ?
           "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket" :
           "not a regular file";
}

/* What is at the name now: 0, or -1 after the error. */
static int check_target(const char *who, const char *out)
{
    struct stat st;
    if (lstat(out, &st) != 0)
        return 0;   /* a free name */
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return error("%s: the output '%s' exists and is %s: refused (only a regular file "
                     "is ever replaced)", who, out, kind(st.st_mode));
    if (looks_like_log(out))
        return error("%s: the output '%s' is an existing log: refused (a log is never "
                     "overwritten)", who, out);
    return 0;
}

static int check_one(const char *who, const char *out, const char *const *in, size_t nin)
{
    if (!out[0])
        return error("%s: an empty output name: refused", who);
    for (const char *c = out; *c; c++)   /* as -o: a name is one line, no terminal codes */
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return error("%s: the output name has a control character (a newline, a tab...): "
                         "refused: give another name", who);
    for (size_t i = 0; i < nin; i++)
        if (in[i] && same_file(out, in[i]))
            return error("%s: the output '%s' is one of the files it reads: refused (an "
                         "output never replaces an input; a glob such as *.csv.gz right after "
                         "an output option takes the first log as the output)", who, out);
    if (ends_with(out, ".csv.gz") || ends_with(out, ".csv") || ends_with(out, ".gz") ||
        ends_with(out, ".part"))
        return error("%s: the output '%s' has a log's name: refused (a page ends .html, a "
                     "plot .svg or .png, a tuned sweep .cfg)", who, out);
    return check_target(who, out);
}

int tb_outfile_check(const char *who, const char *const *outs, size_t nout,
                     const char *const *inputs, size_t nin)
{
    for (size_t i = 0; i < nout; i++) {
        if (!outs[i])
            continue;
        if (check_one(who, outs[i], inputs, nin) < 0)
            return -1;
        for (size_t j = 0; j < i; j++)
            if (outs[j] && same_file(outs[i], outs[j]))
                return error("%s: two outputs name one file '%s': refused (one would "
                             "replace the other)", who, outs[i]);
    }
    return 0;
}

int tb_outfile_tmp(const char *path, char *tmp, size_t tmp_n)
{
    /* six random letters (mkostemps: O_CREAT | O_EXCL, so never through a link): nobody can
     * plant a file at the name beforehand; ".part", which readers of a folder skip (our log
     * readers; node_exporter's textfile collector reads *.prom only) */
    int n = snprintf(tmp, tmp_n, "%s.XXXXXX.part", path);
    if (n < 0 || (size_t)n >= tmp_n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkostemps(tmp, 5, O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* mkostemps makes it 0600; others read what we write (a collector's own user), as
     * open(0644) under the umask gave. umask is read by setting it back at once. */
    mode_t mask = umask(022);
    umask(mask);
    if (fchmod(fd, 0644 & ~mask) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);   /* ours, made above */
        errno = e;
        return -1;
    }
    return fd;
}

int tb_outfile_commit(const char *who, const char *tmp, const char *path)
{
    if (check_target(who, path) < 0) {
        unlink(tmp);   /* our own temporary */
        return -1;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);   /* our own temporary */
        return error("%s: cannot write '%s': %s", who, path, strerror(e));
    }
    return 0;
}
