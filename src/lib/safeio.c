/* safeio.c: see safeio.h. The deadline needs a second flow of control: poll() says a regular
 * file is always readable, and a sysfs read blocks inside the driver (an INA3221 behind a
 * wedged I2C bus, an open stuck in a lookup) where no signal or timeout of ours reaches it.
 * A thread stuck there is still part of this process, and Linux reaps no process before
 * every thread of it has left the kernel: SIGKILL and exit() alike wait (a zombie for as
 * long as the read hangs). So the reads run in reader processes, kept in a small pool and
 * reused (no fork per read, as the sampler needs); a read past its deadline leaves its
 * reader behind, never a thread of ours, so this process exits on time whatever a reader
 * waits on. The readers are forked by one small spawner process, itself forked at the first
 * read (before a sweep's buffers exist), so no reader shares, and copies on write, the
 * pages of a big CPU point. Not here: what a caller does with a failed read. */
#include "lib/safeio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/safeio_internal.h"
#include "lib/util.h"

/* Healthy readers (idle or busy, not given up) at most, and given-up ones still stuck: a
 * stuck file costs its own reader, never one that a healthy sensor needs, and past
 * MAX_STUCK stuck readers a read fails at once rather than pile up processes. */
#define MAX_WORKERS 8
/* Idle readers kept for the next read: enough for a board's scan of thermal zones (type and
 * temp of a dozen zones, tb_safeio_lines) without a fork per snapshot, which tripled its cost. */
#define MAX_IDLE 32
#define MAX_STUCK 32

struct worker {
    int sock;                   /* our end of the reader's socket */
    char key[PATH_MAX];         /* what it reads now (path, or the caller's name for an fd) */
    struct worker *next;        /* in the idle pool, or in the stuck list */
    bool batch;                 /* taken for a batch (counted in busy[1]) */
};

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct worker *pool;     /* idle readers */
static struct worker *stuck;    /* given-up readers whose read has not returned */
static unsigned healthy, n_stuck;   /* healthy: idle or busy, not given up */
static unsigned busy[2];        /* busy readers: single reads, a batch's */
static int spawner = -1;        /* our end of the spawner's socket */
static atomic_uint abandoned_n;

unsigned tb_safeio_abandoned(void) { return atomic_load(&abandoned_n); }

/* ---- in the spawner and the readers: async-signal-safe calls only (forked from a process
 * with threads), no allocation, no stdio, _exit ---------------------------------------- */

/* Closes every descriptor but keep: no reader holds the run's lock, its log, a pipe whose
 * EOF someone waits for (tegrastats', cron's stdout), or anything else of ours. */
static void close_all_but(int keep)
{
    static char dents[8192];
    static int fds[4096];
    int n = 0, d = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    long got;
    while (d >= 0 && (got = syscall(SYS_getdents64, d, dents, sizeof(dents))) > 0)
        for (long off = 0; off < got;) {
            struct dirent64 *e = (struct dirent64 *)(dents + off);
            int fd = 0;
            const char *p = e->d_name;
            for (; *p >= '0' && *p <= '9' && fd < 1 << 24; p++)
                fd = fd * 10 + (*p - '0');
            if (p != e->d_name && !*p && n < (int)(sizeof(fds) / sizeof(*fds)))
                fds[n++] = fd;
            off += e->d_reclen;
        }
    for (int i = 0; i < n; i++)
        if (fds[i] != keep && fds[i] != d)
            close(fds[i]);
    if (d >= 0)
        close(d);
    else
        for (int fd = 0; fd < 1024; fd++)   /* no /proc: the usual range */
            if (fd != keep)
                close(fd);
}

/* A forked helper's start: it dies with its parent, takes no signal meant for the run
 * (the terminal's ^C goes to the whole group) and runs no handler of the run's. */
static bool child_setup(pid_t parent, int keep)
{
    struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
    for (int s = 1; s < 65; s++)
        sigaction(s, &dfl, NULL);
    static const int quiet[] = { SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGPIPE, SIGTSTP };
    for (size_t i = 0; i < sizeof(quiet) / sizeof(*quiet); i++)
        sigaction(quiet[i], &ign, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        return false;   /* the parent is already gone */
    close_all_but(keep);
    return true;
}

/* Sends iov's bytes on sock, with fd (>= 0) passed along (SCM_RIGHTS); the bytes sent, or
 * -1. Async-signal-safe (the spawner uses it). */
static ssize_t send_with_fd(int sock, void *p, size_t n, int fd)
{
    char ctl[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { p, n };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (fd >= 0) {
        memset(ctl, 0, sizeof(ctl));
        m.msg_control = ctl;
        m.msg_controllen = sizeof(ctl);
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &fd, sizeof(int));
    }
    ssize_t w;
    while ((w = sendmsg(sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    return w;
}

/* One request (and the descriptor it may carry); false on EOF or an error. */
static bool recv_request(int sock, struct request *rq, int *fd)
{
    char ctl[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { rq, sizeof(*rq) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                        .msg_controllen = sizeof(ctl) };
    *fd = -1;
    ssize_t r;
    while ((r = recvmsg(sock, &m, MSG_WAITALL | MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    struct cmsghdr *c = r > 0 ? CMSG_FIRSTHDR(&m) : NULL;
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        memcpy(fd, CMSG_DATA(c), sizeof(int));
    return r == (ssize_t)sizeof(*rq);
}

/* A reader: one request at a time until its socket closes. */
static void reader_main(int sock)
{
    static char buf[TB_SAFEIO_MAX + 1];
    static struct request rq;
    int fd;
    while (recv_request(sock, &rq, &fd)) {
        struct answer a = { 0 };
        rq.path[sizeof(rq.path) - 1] = '\0';
        if (rq.has_fd == RQ_KEPT) {
            if (!tb_sio_serve_kept(sock, &rq, buf))
                break;
            continue;
        }
        if (rq.has_fd == RQ_PATH)
            tb_safeio_test_read(rq.path);
        if (rq.has_fd == RQ_PATH)
            fd = tb_sio_open_regular(rq.path, rq.flags, &a);
        if (fd >= 0) {
            tb_sio_read_all(fd, buf, &a, rq.cap <= sizeof(buf) ? rq.cap : (uint32_t)sizeof(buf));
            close(fd);
        } else if (rq.has_fd) {
            a.stage = ST_READ;
            a.err = EBADF;
        }
        uint32_t keep = a.got < rq.cap ? a.got : rq.cap - 1;
        if (!tb_sio_send_all(sock, &a, sizeof(a)) || !tb_sio_send_all(sock, buf, keep))
            break;
    }
    _exit(0);
}

/* The spawner: a byte asks for a reader; it answers with the reader's socket. Readers are
 * its children, reaped by the kernel (SIGCHLD ignored). */
static void spawner_main(int sock)
{
    struct sigaction ign = { .sa_handler = SIG_IGN };
    sigaction(SIGCHLD, &ign, NULL);
    char c;
    pid_t me = getpid();
    while (recv(sock, &c, 1, 0) == 1) {
        int sv[2] = { -1, -1 };
        int rc = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
        pid_t pid = rc == 0 ? fork() : -1;
        if (pid == 0) {
            if (child_setup(me, sv[1]))
                reader_main(sv[1]);
            _exit(0);
        }
        int32_t err = pid > 0 ? 0 : errno;
        bool sent = send_with_fd(sock, &err, sizeof(err), pid > 0 ? sv[0] : -1) ==
                    (ssize_t)sizeof(err);
        if (sv[0] >= 0) {
            close(sv[0]);
            close(sv[1]);
        }
        if (!sent)
            break;
    }
    _exit(0);
}

/* The spawner's start, in the child of fork. Every block of the process stays reachable
 * here: a pointer that was only in a callee-saved register at the fork (worker_get's new
 * reader, a caller's buffer) would be overwritten by the spawner's loop, and its block,
 * which this copy never frees, counted "definitely lost" by valgrind at the spawner's and
 * every reader's exit (each reader inherits the spawner's memory). setjmp stores those
 * registers in this frame, which lives as long as the spawner (the way conservative
 * collectors find their roots). */
static void spawner_child(pid_t parent, int sock)
{
    jmp_buf regs;   /* the callee-saved registers, in this frame */
    if (setjmp(regs) == 0 && child_setup(parent, sock))
        spawner_main(sock);
    _exit(0);
}

/* ---- in this process ------------------------------------------------------------------ */

/* The spawner, forked at the first read; -1 with errno. Called under pool_mu. */
static int spawner_start(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    pid_t me = getpid(), pid = fork();
    if (pid == 0)
        spawner_child(me, sv[1]);
    int e = errno;
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        errno = e;
        return -1;
    }
    /* not waited for: it ends when this process does (its socket closes); SIGCHLD's
     * default is to ignore, and a zombie of it is reaped by init after us */
    spawner = sv[0];
    return 0;
}

/* A new reader's socket from the spawner (started, or started again if it died). */
static int reader_new(void)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (spawner < 0 && spawner_start() < 0)
            return -1;
        char ctl[CMSG_SPACE(sizeof(int))], c = 'r';
        int32_t err = EIO;
        struct iovec iov = { &err, sizeof(err) };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                            .msg_controllen = sizeof(ctl) };
        if (send(spawner, &c, 1, MSG_NOSIGNAL) == 1 &&
            recvmsg(spawner, &m, MSG_CMSG_CLOEXEC) == (ssize_t)sizeof(err)) {
            struct cmsghdr *h = CMSG_FIRSTHDR(&m);
            int fd = -1;
            if (!err && h && h->cmsg_type == SCM_RIGHTS)
                memcpy(&fd, CMSG_DATA(h), sizeof(int));
            if (fd < 0)
                errno = err ? err : EIO;
            return fd;
        }
        close(spawner);   /* gone (killed?): one more, once */
        spawner = -1;
    }
    errno = EIO;
    return -1;
}

/* Given-up readers whose read has returned since (their answer, or their end, is there to
 * read): closed, which ends them. Under pool_mu. */
static void reap_stuck(void)
{
    for (struct worker **pp = &stuck; *pp;) {
        struct worker *w = *pp;
        struct pollfd p = { w->sock, POLLIN, 0 };
        if (poll(&p, 1, 0) > 0) {
            *pp = w->next;
            close(w->sock);
            free(w);
            n_stuck--;
        } else {
            pp = &w->next;
        }
    }
}

unsigned tb_safeio_stuck(void)
{
    pthread_mutex_lock(&pool_mu);
    reap_stuck();
    unsigned n = n_stuck;
    pthread_mutex_unlock(&pool_mu);
    return n;
}

/* An idle reader from the pool, or a new one; NULL with errno EBUSY (key is still stuck
 * from an earlier read: it gets no second reader), EAGAIN (too many stuck, or every reader of
 * its kind busy) or another error. A batch's readers (tb_safeio_lines: every read of a scan
 * at once) are counted apart, so a scan never takes the readers a sampler's rail needs. */
static struct worker *worker_get(const char *key, bool batch)
{
    pthread_mutex_lock(&pool_mu);
    reap_stuck();
    int e = 0;
    for (struct worker *s = stuck; s && !e; s = s->next)
        if (!strcmp(s->key, key))
            e = EBUSY;
    if (!e && n_stuck >= MAX_STUCK)
        e = EAGAIN;
    if (!e && busy[batch] >= (batch ? TB_SAFEIO_BATCH_MAX : MAX_WORKERS))
        e = EAGAIN;
    struct worker *w = e ? NULL : pool;
    if (w)
        pool = w->next;
    else if (!e && !(w = calloc(1, sizeof(*w))))
        e = ENOMEM;
    else if (!e && (w->sock = reader_new()) < 0) {
        e = errno;
        free(w);
        w = NULL;
    } else if (!e) {
        healthy++;
    }
    if (w) {
        tb_strlcpy(w->key, key, sizeof(w->key));
        w->batch = batch;
        busy[batch]++;
    }
    pthread_mutex_unlock(&pool_mu);
    errno = e;
    return w;
}

int tb_sio_sock(const struct worker *w) { return w->sock; }

bool tb_sio_key_stuck(const char *key)
{
    pthread_mutex_lock(&pool_mu);
    reap_stuck();
    bool found = false;
    for (struct worker *s = stuck; s && !found; s = s->next)
        found = !strcmp(s->key, key);
    pthread_mutex_unlock(&pool_mu);
    return found;
}

void tb_sio_rekey(struct worker *w, const char *key)
{
    pthread_mutex_lock(&pool_mu);
    tb_strlcpy(w->key, key, sizeof(w->key));
    pthread_mutex_unlock(&pool_mu);
}

/* A reader done with: back to the pool (MAX_IDLE idle at most: more of a batch's readers
 * end), or (given up, or broken) left to end. */
void tb_sio_put(struct worker *w, bool given_up, bool broken)
{
    pthread_mutex_lock(&pool_mu);
    busy[w->batch]--;
    if (given_up) {
        healthy--;
        w->next = stuck;
        stuck = w;
        n_stuck++;
    } else if (broken || healthy - busy[0] - busy[1] > MAX_IDLE) {
        healthy--;
        close(w->sock);
        free(w);
    } else {
        w->next = pool;
        pool = w;
    }
    pthread_mutex_unlock(&pool_mu);
}

int tb_sio_ms_left(const struct timespec *end)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms = (long long)(end->tv_sec - now.tv_sec) * 1000 +
                   (end->tv_nsec - now.tv_nsec) / 1000000;
    return ms < 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}

/* n bytes from the reader before end: 0, -ETIMEDOUT, or -EIO (it ended, or broke). */
static int recv_until(int sock, void *p, size_t n, const struct timespec *end)
{
    bool wait = false;   /* what has come is taken at once: a poll only where nothing has */
    while (n) {
        struct pollfd q = { sock, POLLIN, 0 };
        int r = wait ? poll(&q, 1, tb_sio_ms_left(end)) : 1;
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return -ETIMEDOUT;
        ssize_t got = r > 0 ? recv(sock, p, n, MSG_DONTWAIT) : -1;
        wait = got < 0 && errno == EAGAIN;
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            return -EIO;
        p = (char *)p + got;
        n -= (size_t)got;
    }
    return 0;
}

/* The request to the reader, with fd (>= 0) as its descriptor. */
static bool send_request(int sock, const struct request *rq, int fd)
{
    return send_with_fd(sock, (void *)rq, sizeof(*rq), fd) == (ssize_t)sizeof(*rq);
}

static const char *kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ?
           "a block device" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket" :
           "not a regular file";
}

/* The reader's answer in words; the negative errno to return. */
static int answer_words(const struct answer *a, const char *what, char *why, size_t why_n)
{
    switch (a->stage) {
    case ST_OK: return 0;
    case ST_LINK:
        snprintf(why, why_n, "'%s' is a symbolic link where a file is expected: not "
                 "followed", what);
        return -ELOOP;
    case ST_KIND:
        snprintf(why, why_n, "'%s' is %s, not a regular file: not read", what,
                 kind((mode_t)a->mode));
        return -EINVAL;
    case ST_STAT:
        snprintf(why, why_n, "cannot stat '%s': %s", what, strerror(a->err));
        return -a->err;
    case ST_READ:
        snprintf(why, why_n, "cannot read '%s': %s", what, strerror(a->err));
        return -a->err;
    default:
        snprintf(why, why_n, "cannot open '%s': %s", what, strerror(a->err));
        return -a->err;
    }
}

void tb_sio_deadline(struct timespec *end, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, end);
    end->tv_sec += ms / 1000;
    end->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (end->tv_nsec >= 1000000000L) {
        end->tv_sec++;
        end->tv_nsec -= 1000000000L;
    }
}

static int no_reader(const char *what, char *why, size_t why_n)
{
    int e = errno;
    snprintf(why, why_n, "cannot read '%s': %s", what, e == EBUSY ?
             "still stuck in an earlier read, given up (a sensor or driver that never "
             "answers): not tried again while it is" : e == EAGAIN ?
             "too many earlier reads are stuck (a sensor or driver that never answers)"
             : strerror(e));
    return e == EAGAIN || e == EBUSY ? -ETIMEDOUT : -e;
}

/* Checks a job (fd >= 0: read it; else open path and read it) and hands it to a reader:
 * the reader, or NULL with *rc and why filled. */
struct worker *tb_sio_send(int fd, const char *path, int flags, const char *what, size_t n,
                           bool batch, int *rc, char *why, size_t why_n)
{
    if (n == 0 || n - 1 > TB_SAFEIO_MAX) {
        snprintf(why, why_n, "reading '%s': buffer of %zu bytes out of range", what, n);
        *rc = -EINVAL;
        return NULL;
    }
    static struct request zero;
    struct request rq = zero;
    if (path && tb_strlcpy(rq.path, path, sizeof(rq.path)) >= sizeof(rq.path)) {
        snprintf(why, why_n, "cannot open '%.200s...': %s", path, strerror(ENAMETOOLONG));
        *rc = -ENAMETOOLONG;
        return NULL;
    }
    rq.has_fd = path ? RQ_PATH : RQ_FD;
    rq.flags = flags;
    rq.cap = (uint32_t)n;   /* one byte past the bound: tells a longer file from one that fits */
    return tb_sio_send_rq(&rq, path ? -1 : fd, what, batch, rc, why, why_n);
}

struct worker *tb_sio_send_rq(const struct request *rq, int fd, const char *key, bool batch,
                              int *rc, char *why, size_t why_n)
{
    struct worker *w = worker_get(key, batch);
    if (!w) {
        *rc = no_reader(key, why, why_n);
        return NULL;
    }
    if (!send_request(w->sock, rq, fd)) {
        tb_sio_put(w, false, true);
        snprintf(why, why_n, "cannot read '%s': its reader process ended", key);
        *rc = -EIO;
        return NULL;
    }
    return w;
}

int tb_sio_answer(struct worker *w, bool opened, const char *what, char *buf, size_t n,
                  size_t *len, struct answer *a, const struct timespec *end, int deadline_ms,
                  bool *transport, char *why, size_t why_n)
{
    int rc = recv_until(w->sock, a, sizeof(*a), end);
    uint32_t keep = rc == 0 ? (a->got < n ? a->got : (uint32_t)n - 1) : 0;
    if (rc == 0 && (a->got > n || (rc = recv_until(w->sock, buf, keep, end)) != 0))
        rc = rc ? rc : -EIO;
    *transport = rc != 0;
    if (rc == -ETIMEDOUT) {
        atomic_fetch_add(&abandoned_n, 1);
        snprintf(why, why_n, "%s '%s' did not finish within %d ms (a stuck driver or "
                 "sensor?): given up", opened ? "opening and reading" : "reading", what,
                 deadline_ms);
        return rc;
    }
    if (rc) {
        snprintf(why, why_n, "cannot read '%s': its reader process ended", what);
        return rc;
    }
    buf[keep] = '\0';
    if ((rc = answer_words(a, what, why, why_n)) != 0) {
        buf[0] = '\0';
        return rc;
    }
    if (len)
        *len = keep;
    if (a->got >= n) {
        snprintf(why, why_n, "'%s' is longer than %zu bytes: not read whole", what, n - 1);
        return -EFBIG;
    }
    return 0;
}

/* The answer to the job tb_sio_send gave w, by end; w back to the pool, or given up at end. */
int tb_sio_recv(struct worker *w, bool opened, const char *what, char *buf, size_t n,
                size_t *len, const struct timespec *end, int deadline_ms, char *why,
                size_t why_n)
{
    struct answer a;
    bool transport;
    int rc = tb_sio_answer(w, opened, what, buf, n, len, &a, end, deadline_ms, &transport, why,
                           why_n);
    tb_sio_put(w, transport && rc == -ETIMEDOUT, transport && rc != -ETIMEDOUT);
    return rc;
}

/* Runs one job (fd >= 0: read it; else open path and read it) within the deadline. */
static int run_job(int fd, const char *path, int flags, const char *what, char *buf, size_t n,
                   size_t *len, int deadline_ms, char *why, size_t why_n)
{
    if (len)
        *len = 0;
    if (n)
        buf[0] = '\0';
    if (deadline_ms <= 0)
        deadline_ms = TB_SAFEIO_DEADLINE_MS;
    int rc = 0;
    /* under the fake clock, time holds while a reader process answers: a busy machine's
     * slow answer is no wait of virtual time (lib/clock.h); nothing under the real clock */
    tb_clock_hold();
    struct worker *w = tb_sio_send(fd, path, flags, what, n, false, &rc, why, why_n);
    if (w) {
        struct timespec end;
        tb_sio_deadline(&end, deadline_ms);
        rc = tb_sio_recv(w, path != NULL, what, buf, n, len, &end, deadline_ms, why, why_n);
    }
    tb_clock_release();
    return rc;
}

int tb_safeio_read_fd(int fd, const char *what, char *buf, size_t n, size_t *len,
                      int deadline_ms, char *why, size_t why_n)
{
    return run_job(fd, NULL, 0, what, buf, n, len, deadline_ms, why, why_n);
}
int tb_safeio_read(const char *path, char *buf, size_t n, size_t *len, int flags,
                   int deadline_ms, char *why, size_t why_n)
{
    /* the lookup, the open and the read all on the worker, all under the deadline */
    return run_job(-1, path, flags, path, buf, n, len, deadline_ms, why, why_n);
}

int tb_safeio_line(const char *path, char *buf, size_t n, int flags, char *why, size_t why_n)
{
    int rc = tb_safeio_read(path, buf, n, NULL, flags, 0, why, why_n);
    if (rc < 0 && rc != -EFBIG)
        return rc;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

bool tb_lib_refused(const char *name, char *why, size_t n)
{
    struct stat st;
    if (!strchr(name, '/'))
        return false;
    if (stat(name, &st) < 0)
        return false;   /* dlopen says why in its own words */
    if (S_ISREG(st.st_mode))
        return false;
    snprintf(why, n, "%s, not a library", S_ISFIFO(st.st_mode) ? "a FIFO" :
             S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
             ? "a device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file");
    return true;
}
