/* safeio.c: see safeio.h. The deadline needs a second thread: poll() says a regular file
 * is always readable, and a sysfs read blocks inside the driver (an INA3221 behind a wedged
 * I2C bus) where no signal or timeout of ours reaches it. So reads run on worker threads
 * kept in a small pool (no thread or allocation per read, as the sampler needs); a read
 * that misses its deadline leaves its worker behind, which frees itself if the read ever
 * returns. A child process would work too, but forking a process that holds a CUDA context
 * and a sampler thread ten times a second costs far more than a parked thread. */
#include "lib/safeio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

/* Healthy workers (idle or busy, not given up) at most, and given-up ones still stuck: a
 * stuck file costs its own worker, never one that a healthy sensor needs, and past
 * MAX_STUCK stuck readers a read fails at once rather than pile up threads. */
#define MAX_WORKERS 8
#define MAX_STUCK 32

struct worker {
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* CLOCK_MONOTONIC */
    bool busy, abandoned;
    int fd;                     /* the worker's own descriptor; it closes it */
    char path[PATH_MAX];        /* a path job: opened by the worker (the open and the
                                 * lookup under the deadline too); "" for an fd job */
    int flags;
    char key[PATH_MAX];         /* what is read (path, or the caller's name for an fd) */
    char why[PATH_MAX + 256];   /* the open's failure, for a path job */
    size_t cap, got;            /* read at most cap bytes (one past the caller's bound) */
    int err;                    /* 0 or errno of the open or read */
    struct worker *next;        /* in the idle pool, or in the stuck list */
    char buf[TB_SAFEIO_MAX + 1];
};

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct worker *pool;     /* idle workers */
static struct worker *stuck;    /* given-up workers whose read has not returned */
static unsigned live, n_stuck;  /* workers alive (all kinds), and of them stuck */
static atomic_uint abandoned_n;

unsigned tb_safeio_abandoned(void) { return atomic_load(&abandoned_n); }

unsigned tb_safeio_stuck(void)
{
    pthread_mutex_lock(&pool_mu);
    unsigned n = n_stuck;
    pthread_mutex_unlock(&pool_mu);
    return n;
}

static void worker_free(struct worker *w)
{
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

static int open_regular(const char *path, int flags, char *why, size_t why_n);

/* The job itself: the open (a path job), then the read to EOF or cap. A non-blocking
 * descriptor (a pipe in a test) is polled in short steps so that a given-up worker notices
 * and ends. */
static void worker_read(struct worker *w)
{
    w->got = 0;
    w->err = 0;
    w->why[0] = '\0';
    if (w->path[0]) {
        int fd = open_regular(w->path, w->flags, w->why, sizeof(w->why));
        if (fd < 0) {
            w->err = -fd;
            return;
        }
        w->fd = fd;
    }
    while (w->got < w->cap) {
        ssize_t r = read(w->fd, w->buf + w->got, w->cap - w->got);
        if (r > 0) {
            w->got += (size_t)r;
            continue;
        }
        if (r == 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN) {
            pthread_mutex_lock(&w->mu);
            bool gone = w->abandoned;
            pthread_mutex_unlock(&w->mu);
            if (gone)
                break;
            struct pollfd p = { w->fd, POLLIN, 0 };
            poll(&p, 1, 50);
            continue;
        }
        w->err = errno;
        break;
    }
    close(w->fd);
    w->fd = -1;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->busy)
            pthread_cond_wait(&w->cv, &w->mu);
        pthread_mutex_unlock(&w->mu);
        worker_read(w);
        pthread_mutex_lock(&w->mu);
        w->busy = false;
        if (w->abandoned) {     /* the caller left: the stuck list is the only other holder */
            pthread_mutex_unlock(&w->mu);
            pthread_mutex_lock(&pool_mu);
            for (struct worker **pp = &stuck; *pp; pp = &(*pp)->next)
                if (*pp == w) {
                    *pp = w->next;
                    break;
                }
            n_stuck--;
            live--;
            pthread_mutex_unlock(&pool_mu);
            worker_free(w);
            return NULL;
        }
        pthread_cond_broadcast(&w->cv);
    }
}

/* An idle worker from the pool, or a new one; NULL with errno EBUSY (key is still stuck
 * from an earlier read: it gets no second worker), EAGAIN (too many stuck, or every healthy
 * worker busy) or another error. */
static struct worker *worker_get(const char *key)
{
    pthread_mutex_lock(&pool_mu);
    for (struct worker *s = stuck; s; s = s->next)
        if (!strcmp(s->key, key)) {
            pthread_mutex_unlock(&pool_mu);
            errno = EBUSY;
            return NULL;
        }
    if (n_stuck >= MAX_STUCK) {
        pthread_mutex_unlock(&pool_mu);
        errno = EAGAIN;
        return NULL;
    }
    struct worker *w = pool;
    if (w) {
        pool = w->next;
        pthread_mutex_unlock(&pool_mu);
        return w;
    }
    if (live - n_stuck >= MAX_WORKERS) {
        pthread_mutex_unlock(&pool_mu);
        errno = EAGAIN;
        return NULL;
    }
    live++;
    pthread_mutex_unlock(&pool_mu);
    w = calloc(1, sizeof(*w));
    pthread_condattr_t ca;
    pthread_attr_t ta;
    pthread_t t;
    int rc = w ? 0 : ENOMEM;
    if (!rc) {
        pthread_mutex_init(&w->mu, NULL);
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&w->cv, &ca);
        pthread_condattr_destroy(&ca);
        w->fd = -1;
        pthread_attr_init(&ta);
        pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&ta, 64 * 1024);
        /* the workers take no signal: a handler's flag is the main thread's to see */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        rc = pthread_create(&t, &ta, worker_main, w);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&ta);
        if (rc)
            worker_free(w);
    }
    if (rc) {
        pthread_mutex_lock(&pool_mu);
        live--;
        pthread_mutex_unlock(&pool_mu);
        errno = rc;
        return NULL;
    }
    return w;
}

static void worker_put(struct worker *w)
{
    pthread_mutex_lock(&pool_mu);
    w->next = pool;
    pool = w;
    pthread_mutex_unlock(&pool_mu);
}

/* Runs one job (fd >= 0: read it; else open path and read it) within the deadline. */
static int run_job(int fd, const char *path, int flags, const char *what, char *buf, size_t n,
                   size_t *len, int deadline_ms, char *why, size_t why_n)
{
    if (len)
        *len = 0;
    if (n == 0 || n - 1 > TB_SAFEIO_MAX) {
        snprintf(why, why_n, "reading '%s': buffer of %zu bytes out of range", what, n);
        return -EINVAL;
    }
    buf[0] = '\0';
    if (deadline_ms <= 0)
        deadline_ms = TB_SAFEIO_DEADLINE_MS;
    if (path && strlen(path) >= PATH_MAX) {
        snprintf(why, why_n, "cannot open '%.200s...': %s", path, strerror(ENAMETOOLONG));
        return -ENAMETOOLONG;
    }
    struct worker *w = worker_get(what);
    if (!w) {
        int e = errno;
        snprintf(why, why_n, "cannot read '%s': %s", what, e == EBUSY ?
                 "still stuck in an earlier read, given up (a sensor or driver that never "
                 "answers): not tried again while it is" : e == EAGAIN ?
                 "too many earlier reads are stuck (a sensor or driver that never answers)"
                 : strerror(e));
        return e == EAGAIN || e == EBUSY ? -ETIMEDOUT : -e;
    }
    int dup_fd = -1;
    if (!path && (dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
        int e = errno;
        worker_put(w);
        snprintf(why, why_n, "cannot read '%s': %s", what, strerror(e));
        return -e;
    }
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += deadline_ms / 1000;
    end.tv_nsec += (long)(deadline_ms % 1000) * 1000000L;
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->mu);
    w->fd = dup_fd;
    tb_strlcpy(w->path, path ? path : "", sizeof(w->path));
    tb_strlcpy(w->key, what, sizeof(w->key));
    w->flags = flags;
    w->cap = n;   /* one byte past the bound: tells a longer file from one that fits */
    w->busy = true;
    pthread_cond_broadcast(&w->cv);
    while (w->busy)
        if (pthread_cond_timedwait(&w->cv, &w->mu, &end) == ETIMEDOUT && w->busy) {
            w->abandoned = true;   /* the worker frees itself when the read returns */
            pthread_mutex_lock(&pool_mu);
            w->next = stuck;
            stuck = w;
            n_stuck++;
            pthread_mutex_unlock(&pool_mu);
            pthread_mutex_unlock(&w->mu);
            atomic_fetch_add(&abandoned_n, 1);
            snprintf(why, why_n, "%s '%s' did not finish within %d ms (a stuck driver "
                     "or sensor?): given up", path ? "opening and reading" : "reading", what,
                     deadline_ms);
            return -ETIMEDOUT;
        }
    int err = w->err;
    size_t got = w->got;
    if (err && w->why[0])
        tb_strlcpy(why, w->why, why_n);
    else if (err)
        snprintf(why, why_n, "cannot read '%s': %s", what, strerror(err));
    memcpy(buf, w->buf, got < n ? got : n - 1);
    pthread_mutex_unlock(&w->mu);
    worker_put(w);
    if (err)
        return -err;
    size_t keep = got < n ? got : n - 1;
    buf[keep] = '\0';
    if (len)
        *len = keep;
    if (got >= n) {
        snprintf(why, why_n, "'%s' is longer than %zu bytes: not read whole", what, n - 1);
        return -EFBIG;
    }
    return 0;
}

int tb_safeio_read_fd(int fd, const char *what, char *buf, size_t n, size_t *len,
                      int deadline_ms, char *why, size_t why_n)
{
    return run_job(fd, NULL, 0, what, buf, n, len, deadline_ms, why, why_n);
}

static const char *kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ?
           "a block device" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket" :
           "not a regular file";
}

/* Opens path for reading only once it is known to be a regular file: an O_PATH look
 * first (no open of a FIFO or a device, whose open alone may block or act), then the
 * same inode reopened through /proc/self/fd. */
static int open_regular(const char *path, int flags, char *why, size_t why_n)
{
    int nofollow = flags & TB_SAFEIO_LINK_OK ? 0 : O_NOFOLLOW;
    int pfd = open(path, O_PATH | O_CLOEXEC | nofollow);
    if (pfd < 0) {
        int e = errno;
        snprintf(why, why_n, "cannot open '%s': %s", path, strerror(e));
        return -e;
    }
    struct stat st;
    int e = fstat(pfd, &st) < 0 ? errno : 0;
    if (e || !S_ISREG(st.st_mode)) {
        bool lnk = !e && S_ISLNK(st.st_mode);   /* O_PATH | O_NOFOLLOW opens the link itself */
        if (lnk)
            snprintf(why, why_n, "'%s' is a symbolic link where a file is expected: not "
                     "followed", path);
        else if (e)
            snprintf(why, why_n, "cannot stat '%s': %s", path, strerror(e));
        else
            snprintf(why, why_n, "'%s' is %s, not a regular file: not read", path,
                     kind(st.st_mode));
        close(pfd);
        return lnk ? -ELOOP : e ? -e : -EINVAL;
    }
    char proc[64];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
    int fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ENOENT)   /* no /proc: the plain open, still without links */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | nofollow);
    e = errno;
    close(pfd);
    if (fd < 0) {
        snprintf(why, why_n, "cannot open '%s': %s", path, strerror(e));
        return -e;
    }
    return fd;
}

int tb_safeio_read(const char *path, char *buf, size_t n, size_t *len, int flags,
                   int deadline_ms, char *why, size_t why_n)
{
    if (len)
        *len = 0;
    if (n)
        buf[0] = '\0';
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
