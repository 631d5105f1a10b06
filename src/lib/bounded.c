/* bounded.c: see bounded.h. The waiter and the thread share a small job; whichever of them
 * is last frees it, and whether arg goes back to the caller or to drop is settled by one
 * exchange of its state: the thread's "returned" or the waiter's "given up", first wins. */
#include "lib/bounded.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/clock.h"

enum { RUNNING, RETURNED, GIVEN_UP };

struct job {
    atomic_int refs;                 /* the waiter's and the thread's */
    atomic_int state;
    void (*fn)(void *arg);
    void (*drop)(void *arg);
    void *arg;
};

static void release(struct job *j)
{
    if (atomic_fetch_sub(&j->refs, 1) == 1)
        free(j);
}

static void *worker(void *p)
{
    struct job *j = p;
    (void)tb_now_ns();   /* known to the fake clock: time moves while this waits, not runs */
    j->fn(j->arg);
    if (atomic_exchange(&j->state, RETURNED) == GIVEN_UP && j->drop)
        j->drop(j->arg);   /* the waiter left: the argument is this thread's */
    tb_clock_leave();
    release(j);
    return NULL;
}

/* Waits for j by the tool's clock, in slices of 50 ms (a signal cuts one short). */
static void wait_for(struct job *j, double limit_s, const volatile sig_atomic_t *stop)
{
    int64_t end = tb_now_ns() + (int64_t)(limit_s * 1e9);
    while (atomic_load(&j->state) == RUNNING && !(stop && *stop) && tb_now_ns() < end)
        tb_sleep_ns(50 * 1000 * 1000);
}

int tb_bounded_call(void (*fn)(void *arg), void *arg, void (*drop)(void *arg), double limit_s,
                    const volatile sig_atomic_t *stop)
{
    struct job *j = stop && *stop ? NULL : calloc(1, sizeof(*j));
    if (!j) {
        if (drop)
            drop(arg);
        return stop && *stop ? -EINTR : -ENOMEM;
    }
    atomic_init(&j->refs, 2);
    atomic_init(&j->state, RUNNING);
    j->fn = fn;
    j->drop = drop;
    j->arg = arg;
    pthread_t t;
    sigset_t all, old;   /* signals go to the threads that act on them, never to this one */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    tb_clock_join();     /* no time passes before it runs (lib/clock.h) */
    int rc = pthread_create(&t, NULL, worker, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        tb_clock_leave();
        free(j);
        if (drop)
            drop(arg);
        return -rc;
    }
    pthread_detach(t);
    wait_for(j, limit_s, stop);
    int expect = RUNNING;
    bool given_up = atomic_compare_exchange_strong(&j->state, &expect, GIVEN_UP);
    rc = !given_up ? 0 : stop && *stop ? -EINTR : -ETIMEDOUT;
    release(j);
    return rc;
}

const char *tb_bounded_why(int rc, double limit_s, char *buf, size_t n)
{
    if (rc == -EINTR)
        snprintf(buf, n, "before a signal asked the run to end");
    else
        snprintf(buf, n, "within %.0f s (a file whose open or read does not return?)", limit_s);
    return buf;
}
