/* safeio_reader.c: what a reader process of safeio.c does with a request, beyond reading
 * one descriptor: a file opened as tb_safeio_read opens it, read to EOF or a bound, the
 * answer sent whole; and the files a sampler's kept reads keep open (tb_safeio_kept_reads,
 * safeio_kept.c), checked against their paths before each read. Async-signal-safe calls
 * only, no allocation, no stdio: it runs in processes forked from one with threads. Not
 * here: how readers are made, handed out or given up (safeio.c), or the caller's side. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/safeio.h"
#include "lib/safeio_internal.h"

/* tb_safeio_read's open, without words (the caller words it): an O_PATH look first (no open
 * of a FIFO or a device, whose open alone may block or act), then the same inode reopened
 * through /proc/self/fd. */
int tb_sio_open_regular(const char *path, int flags, struct answer *a)
{
    int nofollow = flags & TB_SAFEIO_LINK_OK ? 0 : O_NOFOLLOW;
    int pfd = open(path, O_PATH | O_CLOEXEC | nofollow);
    if (pfd < 0) {
        a->stage = ST_OPEN;
        a->err = errno;
        return -1;
    }
    struct stat st;
    int e = fstat(pfd, &st) < 0 ? errno : 0;
    if (e || !S_ISREG(st.st_mode)) {
        a->err = e;
        /* O_PATH | O_NOFOLLOW opens a link itself */
        a->stage = e ? ST_STAT : S_ISLNK(st.st_mode) ? ST_LINK : ST_KIND;
        a->mode = e ? 0 : (uint32_t)st.st_mode;
        close(pfd);
        return -1;
    }
    char proc[32] = "/proc/self/fd/", *p = proc + 14;
    char digits[12];
    int nd = 0;
    for (int v = pfd; nd == 0 || v; v /= 10)
        digits[nd++] = (char)('0' + v % 10);
    while (nd)
        *p++ = digits[--nd];
    *p = '\0';
    int fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ENOENT)   /* no /proc: the plain open, still without links */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | nofollow);
    a->err = errno;
    close(pfd);
    if (fd < 0)
        a->stage = ST_REOPEN;
    return fd;
}

/* Reads to EOF or cap; a non-blocking descriptor (a pipe in a test) is polled. */
void tb_sio_read_all(int fd, char *buf, struct answer *a, uint32_t cap)
{
    while (a->got < cap) {
        ssize_t r = read(fd, buf + a->got, cap - a->got);
        if (r > 0) {
            a->got += (uint32_t)r;
            continue;
        }
        if (r == 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN) {
            struct pollfd p = { fd, POLLIN, 0 };
            poll(&p, 1, -1);
            continue;
        }
        a->stage = ST_READ;
        a->err = errno;
        break;
    }
}

bool tb_sio_send_all(int sock, const void *p, size_t n)
{
    while (n) {
        ssize_t w = send(sock, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p = (const char *)p + w;
        n -= (size_t)w;
    }
    return true;
}

/* ---- in a reader ---------------------------------------------------------------------- */

/* The files a reader keeps open: the path, and the file it named when opened (device and
 * inode), so that a path that names another file now (replaced, or a link) is seen. */
static struct kept {
    int fd;                       /* -1: a free slot */
    dev_t dev;
    ino_t ino;
    char path[PATH_MAX];
} kept[TB_SAFEIO_KEPT_MAX];
static unsigned kept_next;       /* the slot taken next when all are in use */
static int kept_ready;

static void kept_drop(struct kept *k)
{
    if (k->fd >= 0)
        close(k->fd);
    k->fd = -1;
    k->path[0] = '\0';
}

static struct kept *kept_find(const char *path)
{
    if (!kept_ready) {
        for (int i = 0; i < TB_SAFEIO_KEPT_MAX; i++)
            kept[i].fd = -1;
        kept_ready = 1;
    }
    for (int i = 0; i < TB_SAFEIO_KEPT_MAX; i++)
        if (kept[i].fd >= 0 && !strcmp(kept[i].path, path))
            return &kept[i];
    return NULL;
}

/* path opened as tb_safeio_read opens it (no link, a regular file), kept: its slot, or NULL
 * with a saying why. */
static struct kept *kept_open(const char *path, struct answer *a)
{
    struct stat st;
    int fd = tb_sio_open_regular(path, 0, a);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) < 0) {
        a->stage = ST_STAT;
        a->err = errno;
        close(fd);
        return NULL;
    }
    struct kept *k = NULL;
    for (int i = 0; i < TB_SAFEIO_KEPT_MAX && !k; i++)
        if (kept[i].fd < 0)
            k = &kept[i];
    if (!k) {   /* all in use: the oldest taken (a reader serves one sampler, mostly) */
        k = &kept[kept_next++ % TB_SAFEIO_KEPT_MAX];
        kept_drop(k);
    }
    size_t len = strlen(path);
    memcpy(k->path, path, len + 1);   /* < PATH_MAX: it came in a request's path */
    k->fd = fd, k->dev = st.st_dev, k->ino = st.st_ino;
    return k;
}

/* One path's bytes into buf, a saying how it went. The kept descriptor is read again from
 * its start, which runs the attribute's show again (Linux fs/kernfs/file.c, above
 * kernfs_generic_poll, fs/sysfs/file.c's sysfs_poll before 3.14: "close and re-open the
 * file, or seek to 0 and read again"), only while the path still names its file, as lstat
 * sees the path, never following a link;
 * otherwise (gone: ENOENT; replaced, or a link now: opened again, and refused as
 * tb_safeio_read refuses it) and where its read fails (a driver unbound: ENODEV), the path
 * is opened again, once. */
static void kept_read(const char *path, char *buf, uint32_t cap, struct answer *a)
{
    struct stat st;
    tb_safeio_test_read(path);
    struct kept *k = kept_find(path);
    if (k && (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
              st.st_dev != k->dev || st.st_ino != k->ino)) {
        kept_drop(k);
        k = NULL;
    }
    for (int tries = 0; tries < 2; tries++) {
        bool fresh = !k;
        *a = (struct answer){ 0 };
        if (!k && !(k = kept_open(path, a)))
            return;
        if (lseek(k->fd, 0, SEEK_SET) == 0) {
            tb_sio_read_all(k->fd, buf, a, cap);
        } else {
            a->stage = ST_READ;
            a->err = errno;
        }
        if (a->stage == ST_OK || fresh)
            return;
        kept_drop(k);   /* a kept descriptor that fails: the path once more */
        k = NULL;
    }
}

__attribute__((weak)) void tb_safeio_test_read(const char *path)
{
    (void)path;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The answers of one request, sent as one reply where they fit: the caller wakes once; but
 * each at once after a read slower than TB_SIO_KEPT_SLOW_NS, whose caller waits file by
 * file. */
static char reply[64 * 1024];

bool tb_sio_serve_kept(int sock, const struct request *rq, char *buf)
{
    const char *p = rq->path, *end = rq->path + sizeof(rq->path);
    size_t used = 0;
    for (int i = 0; i < rq->count && i < TB_SAFEIO_KEPT_MAX; i++) {
        struct answer a = { 0 };
        uint32_t cap = rq->caps[i] <= TB_SAFEIO_MAX + 1 ? rq->caps[i] : TB_SAFEIO_MAX + 1;
        cap = cap ? cap : 1;
        size_t len = strnlen(p, (size_t)(end - p));
        if (p + len >= end) {   /* a request cut short: no path */
            a.stage = ST_OPEN;
            a.err = EINVAL;
        } else {
            int64_t t0 = mono_ns();
            kept_read(p, buf, cap, &a);
            a.end_ns = mono_ns();
            a.ns = a.end_ns - t0;
            p += len + 1;
        }
        uint32_t keep = a.got < cap ? a.got : cap - 1;
        if (used + sizeof(a) + keep > sizeof(reply)) {   /* full: what is there, then this */
            if (!tb_sio_send_all(sock, reply, used))
                return false;
            used = 0;
        }
        if (sizeof(a) + keep > sizeof(reply)) {
            if (!tb_sio_send_all(sock, &a, sizeof(a)) || !tb_sio_send_all(sock, buf, keep))
                return false;
            continue;
        }
        memcpy(reply + used, &a, sizeof(a));
        memcpy(reply + used + sizeof(a), buf, keep);
        used += sizeof(a) + keep;
        if (a.ns > TB_SIO_KEPT_SLOW_NS) {   /* a driver that waits for a conversion: answered now */
            if (!tb_sio_send_all(sock, reply, used))
                return false;
            used = 0;
        }
    }
    return used == 0 || tb_sio_send_all(sock, reply, used);
}

