/* clock.c: see clock.h. The fake clock is a small discrete-event scheduler: the sleepers'
 * wake times in one array under one mutex; time advances to the earliest of them when all
 * joined threads sleep, or after the grace when one of them is busy elsewhere. */
#include "lib/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_SLEEPERS 64
#define MAX_SEEN 64
#define PENDING_MAX_NS 2000000000LL

static struct {
    bool on;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t now;                  /* virtual ns */
    int joined, sleeping, holds;
    int pending;                  /* threads joined that have not called the clock yet */
    int64_t pending_since;        /* real ns of the last join */
    int64_t wake[MAX_SLEEPERS];   /* 0: slot free */
    pid_t seen[MAX_SEEN];         /* threads that called the fake clock (0: free) */
} fk = { .mu = PTHREAD_MUTEX_INITIALIZER, .joined = 1 };

static __thread pid_t my_tid;
static atomic_int entering;   /* threads waiting for fk.mu: about to read or wait on the clock */

/* fk.mu, counted while waited for: a thread blocked on the clock's own lock is not blocked
 * elsewhere, and time must not move under it (another_runs). */
static void fk_lock(void)
{
    atomic_fetch_add(&entering, 1);
    pthread_mutex_lock(&fk.mu);
    atomic_fetch_sub(&entering, 1);
}

static pthread_once_t env_once = PTHREAD_ONCE_INIT;

int64_t tb_real_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fake_start(int64_t start_ns)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&fk.cv, &ca);
    pthread_condattr_destroy(&ca);
    fk.now = start_ns > 0 ? start_ns : tb_real_now_ns();
    fk.on = true;
}

static void from_env(void)
{
    const char *e = getenv("TB_FAKE_CLOCK");
    if (e && *e && strcmp(e, "0") != 0)
        fake_start(0);
}

bool tb_clock_is_fake(void)
{
    pthread_once(&env_once, from_env);
    return fk.on;
}

void tb_clock_fake(int64_t start_ns)
{
    pthread_once(&env_once, from_env);
    if (!fk.on)
        fake_start(start_ns);
}

/* Under fk.mu: this thread among those seen, so that the grace can ask whether it runs. */
static void seen_me(void)
{
    if (my_tid)
        return;
    my_tid = (pid_t)syscall(SYS_gettid);
    if (my_tid != getpid() && fk.pending > 0)   /* a thread joined for it has started */
        fk.pending--;
    for (int i = 0; i < MAX_SEEN; i++)
        if (!fk.seen[i]) {
            fk.seen[i] = my_tid;
            return;
        }
}

/* Whether thread tid runs or waits for a CPU (state R); a thread gone is forgotten. */
static bool running(pid_t *tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", (long)*tid);
    FILE *f = fopen(path, "r");
    if (!f) {
        *tid = 0;
        return false;
    }
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');   /* "tid (comm) S ...": comm may hold anything */
    return paren && paren[1] == ' ' && paren[2] == 'R';
}

/* Under fk.mu: whether another thread that keeps this clock is at work on a CPU now (the
 * grace must not move time under a thread that is only slow to be scheduled). */
static bool another_runs(void)
{
    if (atomic_load(&entering) > 0)
        return true;
    /* a thread joined but not started yet (a slow start under valgrind): not for long */
    if (fk.pending > 0 && tb_real_now_ns() - fk.pending_since < PENDING_MAX_NS)
        return true;
    for (int i = 0; i < MAX_SEEN; i++)
        if (fk.seen[i] && fk.seen[i] != my_tid && running(&fk.seen[i]))
            return true;
    return false;
}

int64_t tb_now_ns(void)
{
    if (!tb_clock_is_fake())
        return tb_real_now_ns();
    fk_lock();
    seen_me();
    int64_t t = fk.now;
    pthread_mutex_unlock(&fk.mu);
    return t;
}

double tb_now_s(void)
{
    return (double)tb_now_ns() * 1e-9;
}

/* Under fk.mu: when every joined thread sleeps (or force), time jumps to the earliest wake. */
static void advance(bool force)
{
    if (fk.sleeping == 0 || fk.holds > 0 || (!force && fk.sleeping < fk.joined))
        return;
    int64_t first = 0;
    for (int i = 0; i < MAX_SLEEPERS; i++)
        if (fk.wake[i] && (!first || fk.wake[i] < first))
            first = fk.wake[i];
    if (first > fk.now) {
        fk.now = first;
        pthread_cond_broadcast(&fk.cv);
    }
}

static int fake_sleep_until(int64_t t)
{
    fk_lock();
    seen_me();
    if (t <= fk.now) {
        pthread_mutex_unlock(&fk.mu);
        return 0;
    }
    int slot = -1;
    for (int i = 0; i < MAX_SLEEPERS && slot < 0; i++)
        if (!fk.wake[i])
            slot = i;
    if (slot < 0) {   /* more sleepers than slots: time simply moves for this one */
        if (t > fk.now)
            fk.now = t;
        pthread_cond_broadcast(&fk.cv);
        pthread_mutex_unlock(&fk.mu);
        return 0;
    }
    fk.wake[slot] = t;
    fk.sleeping++;
    advance(false);
    while (fk.now < t) {
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_nsec += TB_CLOCK_GRACE_MS * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_nsec -= 1000000000L;
            dl.tv_sec++;
        }
        /* a joined thread is busy elsewhere (blocked, not running): time moves anyway */
        if (pthread_cond_timedwait(&fk.cv, &fk.mu, &dl) == ETIMEDOUT && fk.now < t &&
            !another_runs())
            advance(true);
    }
    fk.wake[slot] = 0;
    fk.sleeping--;
    pthread_mutex_unlock(&fk.mu);
    return 0;
}

int tb_sleep_until_ns(int64_t t_ns)
{
    if (tb_clock_is_fake())
        return fake_sleep_until(t_ns);
    struct timespec ts = { (time_t)(t_ns / 1000000000), (long)(t_ns % 1000000000) };
    int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    return rc == EINTR ? -EINTR : 0;
}

int tb_sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return 0;
    return tb_sleep_until_ns(tb_now_ns() + ns);
}

double tb_clock_work_scale(void)
{
    if (!tb_clock_is_fake())
        return 1.0;
    const char *e = getenv("TB_FAKE_CLOCK_WORK");
    double k = e ? atof(e) : 1.0;
    return k >= 1.0 ? k : 1.0;
}

static atomic_llong spent;

void tb_clock_spend_ns(int64_t ns)
{
    if (ns > 0 && tb_clock_is_fake()) {
        fake_sleep_until(tb_now_ns() + ns);
        atomic_fetch_add(&spent, (long long)ns);
    }
}

int64_t tb_clock_spent_ns(void)
{
    return (int64_t)atomic_load(&spent);
}

/* Under fk.mu (released here): one of fk's counts moved by delta, and time moves if that
 * lets it (a thread left, a hold released). */
static void fk_count_locked(int *count, int delta)
{
    *count += delta;
    advance(false);
    pthread_mutex_unlock(&fk.mu);
}

static void fk_count(int *count, int delta)
{
    if (!tb_clock_is_fake())
        return;
    fk_lock();
    fk_count_locked(count, delta);
}

void tb_clock_join(void)
{
    if (!tb_clock_is_fake())
        return;
    fk_lock();
    fk.pending++;
    fk.pending_since = tb_real_now_ns();
    fk_count_locked(&fk.joined, 1);
}

/* By the thread as it ends, or by its creator when it could not start (then, or when the
 * thread never called the clock, it is no longer awaited). */
void tb_clock_leave(void)
{
    if (!tb_clock_is_fake())
        return;
    fk_lock();
    if (fk.pending > 0 && (!my_tid || my_tid == getpid()))
        fk.pending--;
    fk_count_locked(&fk.joined, -1);
}

void tb_clock_hold(void)
{
    fk_count(&fk.holds, 1);
}

void tb_clock_release(void)
{
    fk_count(&fk.holds, -1);
}
