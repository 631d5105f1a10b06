/* safeio_kept.c: tb_safeio_kept_reads (safeio.h), a sampler's files read together by one
 * reader of safeio.c, which keeps them open between calls: one round trip a reading where
 * one a file cost the INA3221 sampler most of its time (doc/power.md, "What the sampler
 * costs"). The reader's half (async-signal-safe: it runs in a process forked from one with
 * threads) and the caller's. Not here: how a reader is made or given up (safeio.c). */
#include "lib/safeio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/safeio_internal.h"

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
 * its start (Linux Documentation/filesystems/sysfs.rst: "seek to 0 and read again") only
 * while the path still names its file, as lstat sees the path, never following a link;
 * otherwise (gone: ENOENT; replaced, or a link now: opened again, and refused as
 * tb_safeio_read refuses it) and where its read fails (a driver unbound: ENODEV), the path
 * is opened again, once. */
static void kept_read(const char *path, char *buf, uint32_t cap, struct answer *a)
{
    struct stat st;
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

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The answers of one request, sent as one reply where they fit: the caller wakes once; but
 * each at once after a read slower than KEPT_SLOW_NS, whose caller waits file by file. */
#define KEPT_SLOW_NS 5000000
static char reply[64 * 1024];

bool tb_sio_serve_kept(int sock, const struct request *rq, char *buf)
{
    const char *p = rq->path, *end = rq->path + sizeof(rq->path);
    uint32_t cap = rq->cap <= TB_SAFEIO_MAX + 1 ? rq->cap : TB_SAFEIO_MAX + 1;
    size_t used = 0;
    for (int i = 0; i < rq->count; i++) {
        struct answer a = { 0 };
        size_t len = strnlen(p, (size_t)(end - p));
        if (p + len >= end) {   /* a request cut short: no path */
            a.stage = ST_OPEN;
            a.err = EINVAL;
        } else {
            int64_t t0 = mono_ns();
            kept_read(p, buf, cap, &a);
            a.ns = mono_ns() - t0;
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
        if (a.ns > KEPT_SLOW_NS) {   /* a driver that waits for a conversion: answered now */
            if (!tb_sio_send_all(sock, reply, used))
                return false;
            used = 0;
        }
    }
    return used == 0 || tb_sio_send_all(sock, reply, used);
}

/* ---- in this process ------------------------------------------------------------------ */

/* The jobs from first on that fit one request (TB_SAFEIO_KEPT_MAX, the paths' bytes), into
 * rq; how many. */
static int pack(struct tb_safeio_job *job, int n, struct request *rq)
{
    size_t used = 0;
    int k = 0;
    rq->cap = UINT32_MAX;
    for (; k < n && k < TB_SAFEIO_KEPT_MAX; k++) {
        size_t len = strlen(job[k].path);
        if (used + len + 1 > sizeof(rq->path) || job[k].n == 0 || job[k].n - 1 > TB_SAFEIO_MAX)
            break;
        memcpy(rq->path + used, job[k].path, len + 1);
        used += len + 1;
        rq->cap = job[k].n < rq->cap ? (uint32_t)job[k].n : rq->cap;
    }
    rq->count = k;
    return k;
}

void tb_safeio_kept_reads(struct tb_safeio_job *job, int n, int deadline_ms)
{
    static struct request zero;
    struct request rq = zero;
    if (deadline_ms <= 0)
        deadline_ms = TB_SAFEIO_DEADLINE_MS;
    rq.has_fd = RQ_KEPT;
    bool named = true;
    for (int i = 0; i < n; i++) {
        job[i].rc = 0, job[i].ns = 0, job[i].why[0] = '\0';
        if (job[i].n)
            job[i].buf[0] = '\0';
        named = named && job[i].path;
    }
    for (int i = 0; i < n && !named; i++) {
        job[i].rc = -EINVAL;
        snprintf(job[i].why, sizeof(job[i].why), "a kept read without a path: none read");
    }
    if (!named)
        return;
    int packed = n ? pack(job, n, &rq) : 0, rc = 0;
    tb_clock_hold();   /* as run_job: no virtual time passes while the reader answers */
    struct worker *w = packed ? tb_sio_send_rq(&rq, -1, job[0].path, false, &rc, job[0].why,
                                               sizeof(job[0].why)) : NULL;
    struct timespec end;
    tb_sio_deadline(&end, deadline_ms);
    bool transport = !w;
    for (int i = 0; i < packed; i++) {
        struct tb_safeio_job *j = &job[i];
        struct answer a = { 0 };
        if (transport) {   /* the reader failed: every job after it says why */
            j->rc = rc;
            if (i)
                memcpy(j->why, job[i - 1].why, sizeof(j->why));
            continue;
        }
        j->rc = rc = tb_sio_answer(w, true, j->path, j->buf, j->n, NULL, &a, &end, deadline_ms,
                                   &transport, j->why, sizeof(j->why));
        if (a.ns > KEPT_SLOW_NS)   /* answered alone: the next file's deadline from now */
            tb_sio_deadline(&end, deadline_ms);
        j->ns = a.ns;
        if (transport)
            tb_sio_put(w, rc == -ETIMEDOUT, rc != -ETIMEDOUT);
    }
    if (w && !transport)
        tb_sio_put(w, false, false);
    tb_clock_release();
    for (int i = packed; i < n; i++)   /* past one request: one at a time */
        job[i].rc = tb_safeio_read(job[i].path, job[i].buf, job[i].n, NULL, 0, deadline_ms,
                                   job[i].why, sizeof(job[i].why));
}
