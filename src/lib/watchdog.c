/* watchdog.c: see watchdog.h. The thread sleeps on a condition variable with a CLOCK_MONOTONIC
 * deadline (a wall clock that jumps moves nothing), waking every 50 ms while a call is
 * bracketed to see a stop signal. The ending runs with the mutex held, so a main thread that
 * returns from its call at the last moment waits in tb_watch_end until the process exits:
 * the log is never written by two threads. */
#include "lib/watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static bool started;
static pthread_t wd_thread;        /* the watchdog's own: its ending never brackets a call */
static tb_watch_ending ending;
static void *ending_ctx;
static const volatile sig_atomic_t *stop_flag;
static const char *call_what;      /* NULL: no call bracketed */
static double call_limit_s;
static struct timespec call_deadline;

static void now_plus(struct timespec *ts, double s)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    long long ns = ts->tv_nsec + (long long)((s - (double)(long long)s) * 1e9);
    ts->tv_sec += (time_t)s + (time_t)(ns / 1000000000LL);
    ts->tv_nsec = (long)(ns % 1000000000LL);
}

static bool passed(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static void *watch_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        struct timespec wake;
        now_plus(&wake, call_what ? 0.05 : 1.0);
        pthread_cond_timedwait(&cv, &mu, &wake);
        if (!call_what)
            continue;
        char what[512];
        int sig = stop_flag ? *stop_flag : 0;
        if (sig)
            snprintf(what, sizeof(what), "interrupted by %s while the CUDA driver was in %s",
                     strsignal(sig), call_what);
        else if (passed(&call_deadline))
            snprintf(what, sizeof(what), "the CUDA driver did not return from %s within %.0f s",
                     call_what, call_limit_s);
        else
            continue;
        /* the mutex stays held: the main thread never leaves its call's bracket */
        if (ending)
            ending(ending_ctx, what, sig);
        else
            error("%s", what);
        fflush(stdout);
        _exit(1);
    }
    return NULL;
}

static void start(void)
{
    if (started)
        return;
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&cv, &a);
    pthread_condattr_destroy(&a);
    pthread_attr_t ta;
    pthread_attr_init(&ta);
    pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&ta, 1 << 20);
    /* the thread takes no signal: they go to the main thread, whose handlers set the flag */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    started = pthread_create(&wd_thread, &ta, watch_thread, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&ta);
    if (!started)
        warning("cannot start the watchdog thread: driver calls run without a deadline");
}

void tb_watchdog_set(tb_watch_ending fn, void *ctx, const volatile sig_atomic_t *stop)
{
    pthread_mutex_lock(&mu);
    start();
    ending = fn;
    ending_ctx = ctx;
    stop_flag = stop;
    pthread_mutex_unlock(&mu);
}

double tb_watch_seconds(enum tb_watch_kind kind)
{
    const char *e = getenv("TB_DRIVER_TIMEOUT_S");
    char *end;
    double v = e && *e ? strtod(e, &end) : 0;
    if (e && *e && *end == '\0' && v > 0 && v <= 86400)
        return v;
    return kind == TB_WATCH_LOAD ? 600 : 120;
}

/* Whether the caller is the watchdog's thread (in its ending, which holds the mutex: a
 * bracket there would wait on itself for ever). */
static bool on_watchdog(void)
{
    return __atomic_load_n(&started, __ATOMIC_ACQUIRE) && pthread_equal(pthread_self(), wd_thread);
}

void tb_watch_begin(const char *what, enum tb_watch_kind kind)
{
    if (on_watchdog())
        return;
    pthread_mutex_lock(&mu);
    start();
    call_what = what;
    call_limit_s = tb_watch_seconds(kind);
    now_plus(&call_deadline, call_limit_s);
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

void tb_watch_end(void)
{
    if (on_watchdog())
        return;
    pthread_mutex_lock(&mu);
    call_what = NULL;
    pthread_mutex_unlock(&mu);
}
