/* fake_clock.c: the fake clock of lib/clock.h, test machinery linked only into the test
 * programs and the test-only executable (build/tests/transpose-bench-hooks), never into the
 * shipped tool. A small discrete-event scheduler: the sleepers' wake times in one array
 * under one mutex; time advances to the earliest of them when all joined threads sleep, or
 * after the grace when one of them is busy elsewhere. It is on when TB_FAKE_CLOCK=1 is in
 * the environment at the first use of the clock (tb_clock_test_hook), or from
 * tb_clock_fake() (fake_clock.h) before any thread starts. */
#include "lib/clock.h"
#include "fake_clock.h"

#include <errno.h>
#include <poll.h>
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
#define MAX_WAITERS 8
#define PENDING_MAX_NS 2000000000LL

static struct {
    bool on;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t now;                  /* virtual ns */
    int joined, sleeping, holds;
    int pending;                  /* threads joined that have not called the clock yet */
    pthread_t waited[MAX_WAITERS];   /* tb_clock_thread_join: the thread each waiter waits
                                      * for, the waiter counted among the sleeping */
    bool waiting[MAX_WAITERS];
    pthread_t left[MAX_SEEN];     /* threads that left, until one of that id calls the clock */
    int left_next;
    long graces;                  /* times the grace moved time (tb_fake_clock_graces) */
    int64_t pending_since;        /* real ns of the last join */
    int64_t wake[MAX_SLEEPERS];   /* 0: slot free */
    pid_t seen[MAX_SEEN];         /* threads that called the fake clock (0: free) */
} fk = { .mu = PTHREAD_MUTEX_INITIALIZER, .joined = 1 };

static __thread pid_t my_tid;
static __thread int my_wait = -1;   /* this thread's slot in fk.waited while it counts */
static atomic_int entering;   /* threads waiting for fk.mu: about to read or wait on the clock */

/* fk.mu, counted while waited for: a thread blocked on the clock's own lock is not blocked
 * elsewhere, and time must not move under it (another_runs). */
static void fk_lock(void)
{
    atomic_fetch_add(&entering, 1);
    pthread_mutex_lock(&fk.mu);
    atomic_fetch_sub(&entering, 1);
}

long tb_fake_clock_grace_ms(void)
{
    static atomic_long grace;   /* 0: not read yet (the environment does not change) */
    long g = atomic_load(&grace);
    if (!g) {
        const char *e = getenv("TB_FAKE_CLOCK_GRACE_MS");
        g = e ? atol(e) : 0;
        g = g >= 1 && g <= 5000 ? g : TB_CLOCK_GRACE_MS;
        atomic_store(&grace, g);
    }
    return g;
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


/* Under fk.mu: this thread among those seen, so that the grace can ask whether it runs. */
static void seen_me(void)
{
    if (my_tid)
        return;
    my_tid = (pid_t)syscall(SYS_gettid);
    if (my_tid != getpid() && fk.pending > 0)   /* a thread joined for it has started */
        fk.pending--;
    for (int i = 0; i < MAX_SEEN; i++)   /* an id that left before is this thread's now */
        if (fk.left[i] && pthread_equal(fk.left[i], pthread_self()))
            fk.left[i] = 0;
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

static int64_t fake_now_ns(void)
{
    fk_lock();
    seen_me();
    int64_t t = fk.now;
    pthread_mutex_unlock(&fk.mu);
    return t;
}

/* Under fk.mu: when every joined thread sleeps (or force), time jumps to the earliest wake;
 * whether it moved. */
static bool advance(bool force)
{
    if (fk.sleeping == 0 || fk.holds > 0 || (!force && fk.sleeping < fk.joined))
        return false;
    int64_t first = 0;
    for (int i = 0; i < MAX_SLEEPERS; i++)
        if (fk.wake[i] && (!first || fk.wake[i] < first))
            first = fk.wake[i];
    if (first <= fk.now)
        return false;
    fk.now = first;
    pthread_cond_broadcast(&fk.cv);
    return true;
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
        const long grace = tb_fake_clock_grace_ms();
        dl.tv_sec += grace / 1000;
        dl.tv_nsec += grace % 1000 * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_nsec -= 1000000000L;
            dl.tv_sec++;
        }
        /* a joined thread is busy elsewhere (blocked, not running): time moves anyway */
        if (pthread_cond_timedwait(&fk.cv, &fk.mu, &dl) == ETIMEDOUT && fk.now < t &&
            !another_runs() && advance(true))
            fk.graces++;
    }
    fk.wake[slot] = 0;
    fk.sleeping--;
    pthread_mutex_unlock(&fk.mu);
    return 0;
}

static double fake_work_scale(void)
{
    const char *e = getenv("TB_FAKE_CLOCK_WORK");
    double k = e ? atof(e) : 1.0;
    return k >= 1.0 ? k : 1.0;
}

static atomic_llong spent;

static void fake_spend_ns(int64_t ns)
{
    if (ns > 0) {
        fake_sleep_until(fake_now_ns() + ns);
        atomic_fetch_add(&spent, (long long)ns);
    }
}

static int64_t fake_spent_ns(void)
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
    fk_lock();
    fk_count_locked(count, delta);
}

/* Under fk.mu: the thread leaving is remembered (a join of it that comes later must not
 * count its caller as asleep: nothing would wake it), and whoever waits for it is no longer
 * asleep: once it is gone the waiter runs again, and time must not move on under it while
 * its pthread_join returns. */
static void left_now(void)
{
    fk.left[fk.left_next] = pthread_self();
    fk.left_next = (fk.left_next + 1) % MAX_SEEN;
    for (int i = 0; i < MAX_WAITERS; i++)
        if (fk.waiting[i] && pthread_equal(fk.waited[i], pthread_self())) {
            fk.waiting[i] = false;
            fk.sleeping--;
        }
}

/* tb_clock_thread_join: the caller asleep, without a wake of its own, until th leaves, so
 * that th moves time as it sleeps as though the caller slept too. Not when th has left
 * already (or an id like it did: then the grace, as a plain join), nor with every slot
 * taken. */
static void fake_wait_begin(pthread_t th)
{
    fk_lock();
    seen_me();
    for (int i = 0; i < MAX_SEEN; i++)
        if (fk.left[i] && pthread_equal(fk.left[i], th)) {
            pthread_mutex_unlock(&fk.mu);
            return;
        }
    for (int i = 0; i < MAX_WAITERS && my_wait < 0; i++)
        if (!fk.waiting[i]) {
            fk.waiting[i] = true;
            fk.waited[i] = th;
            my_wait = i;
        }
    fk_count_locked(&fk.sleeping, my_wait >= 0);
}

static void fake_wait_end(void)
{
    fk_lock();
    if (my_wait >= 0 && fk.waiting[my_wait]) {   /* th never left by the clock */
        fk.waiting[my_wait] = false;
        fk.sleeping--;
    }
    my_wait = -1;
    pthread_mutex_unlock(&fk.mu);
}

static void fake_join(void)
{
    fk_lock();
    fk.pending++;
    fk.pending_since = tb_real_now_ns();
    fk_count_locked(&fk.joined, 1);
}

/* By the thread as it ends, or by its creator when it could not start (then, or when the
 * thread never called the clock, it is no longer awaited). */
static void fake_leave(void)
{
    fk_lock();
    if (fk.pending > 0 && (!my_tid || my_tid == getpid()))
        fk.pending--;
    left_now();
    fk_count_locked(&fk.joined, -1);
}

static void fake_hold(void)
{
    fk_count(&fk.holds, 1);
}

static void fake_release(void)
{
    fk_count(&fk.holds, -1);
}

/* A child's next line, one per sample (lib/clock.h: a child's output), waited for while the
 * clock holds still, for TB_CLOCK_CHILD_WAIT_MS at most and not at all while the child is
 * silent; -EPIPE when it is gone with no line left. */
static int fake_child_lines(struct tb_child_lines *cl)
{
    int64_t deadline = tb_real_now_ns() + (int64_t)TB_CLOCK_CHILD_WAIT_MS * 1000000;
    int rc = 0;
    fake_hold();
    while (!*cl->have_new) {
        if (cl->take_line(cl->arg))
            continue;   /* a line that is no reading: the next one */
        cl->drop_if_full(cl->arg);
        ssize_t got = cl->read_some(cl->arg);
        if (got < 0) {
            rc = -EPIPE;
            break;
        }
        if (got > 0)
            continue;
        if (*cl->silent || tb_real_now_ns() >= deadline) {
            *cl->silent = true;
            break;
        }
        struct pollfd p = { cl->fd, POLLIN, 0 };
        poll(&p, 1, 10);
    }
    if (*cl->have_new)
        *cl->silent = false;
    fake_release();
    return rc;
}

static const struct tb_clock_ops fake_ops = {
    .now_ns = fake_now_ns, .sleep_until_ns = fake_sleep_until, .spend_ns = fake_spend_ns,
    .spent_ns = fake_spent_ns, .join = fake_join, .leave = fake_leave, .wait_begin = fake_wait_begin,
    .wait_end = fake_wait_end, .hold = fake_hold,
    .release = fake_release, .work_scale = fake_work_scale, .child_lines = fake_child_lines,
};

/* Asked by lib/clock.c once, at the first use of the clock. */
const struct tb_clock_ops *tb_clock_test_hook(void)
{
    const char *e = getenv("TB_FAKE_CLOCK");
    if (!e || !*e || strcmp(e, "0") == 0)
        return NULL;
    fake_start(0);
    return &fake_ops;
}

long tb_fake_clock_graces(void)
{
    fk_lock();
    long n = fk.graces;
    pthread_mutex_unlock(&fk.mu);
    return n;
}

void tb_clock_fake(int64_t start_ns)
{
    if (tb_clock_is_fake())
        return;
    fake_start(start_ns);
    tb_clock_install(&fake_ops);
}
