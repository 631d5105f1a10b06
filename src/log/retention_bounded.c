/* retention_bounded.c: retention within a time limit. Its reads and removals are in the log
 * folder, which may hold a file whose open or read never returns (a stuck FUSE or network
 * mount: every open there is non-blocking and of regular files only, but a stuck file system
 * can hold any call). So retention runs on a thread of its own, and the night's end waits
 * for it within a limit and while no signal asks to stop; past either, the night ends and the
 * thread is left to end when its call returns. Not here: what is removed (retention.c). */
#include "log/retention.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/util.h"

/* Tests: called on retention's thread before it reads (a stuck file system's stand-in); a
 * test program defines its own, the shipped tool has this empty one. */
void tb_retention_test_stall(void);
__attribute__((weak)) void tb_retention_test_stall(void)
{
}

struct job {
    atomic_int refs;                 /* the waiter's and the thread's */
    atomic_bool done;
    int removed;
    int keep_logs, keep_days;
    char *dir, *host, *board, *keep_path;
};

static void release(struct job *j)
{
    if (atomic_fetch_sub(&j->refs, 1) != 1)
        return;
    free(j->dir);
    free(j->host);
    free(j->board);
    free(j->keep_path);
    free(j);
}

static void *worker(void *arg)
{
    struct job *j = arg;
    (void)tb_now_ns();   /* known to the fake clock: time moves while this waits, not runs */
    tb_retention_test_stall();
    j->removed = tb_retention_apply(j->dir, j->host, j->board, j->keep_logs, j->keep_days,
                                    j->keep_path);
    atomic_store(&j->done, true);
    tb_clock_leave();
    release(j);
    return NULL;
}

static struct job *job_new(const char *dir, const char *host, const char *board,
                           int keep_logs, int keep_days, const char *keep_path)
{
    struct job *j = calloc(1, sizeof(*j));
    if (!j)
        return NULL;
    atomic_init(&j->refs, 2);
    atomic_init(&j->done, false);
    j->keep_logs = keep_logs;
    j->keep_days = keep_days;
    j->dir = strdup(dir);
    j->host = strdup(host);
    j->board = strdup(board);
    j->keep_path = keep_path ? strdup(keep_path) : NULL;
    if (!j->dir || !j->host || !j->board || (keep_path && !j->keep_path)) {
        atomic_store(&j->refs, 1);
        release(j);
        return NULL;
    }
    return j;
}

/* Waits for j by the tool's clock, in slices of 50 ms (a signal cuts one short): true once
 * done. */
static bool wait_for(struct job *j, double limit_s, const volatile sig_atomic_t *stop)
{
    int64_t end = tb_now_ns() + (int64_t)(limit_s * 1e9);
    while (!atomic_load(&j->done) && !(stop && *stop) && tb_now_ns() < end)
        tb_sleep_ns(50 * 1000 * 1000);
    return atomic_load(&j->done);
}

int tb_retention_apply_bounded(const char *dir, const char *host, const char *board,
                               int keep_logs, int keep_days, const char *keep_path,
                               double limit_s, const volatile sig_atomic_t *stop)
{
    if (keep_logs <= 0 && keep_days <= 0)
        return 0;
    if (stop && *stop) {
        warning("log retention: not done (a signal asked the run to end): left for the next "
                "night");
        return -1;
    }
    struct job *j = job_new(dir, host, board, keep_logs, keep_days, keep_path);
    pthread_t t;
    sigset_t all, old;   /* signals go to the threads that act on them, never to this one */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (j)
        tb_clock_join();   /* no time passes before it runs (lib/clock.h) */
    int rc = j ? pthread_create(&t, NULL, worker, j) : ENOMEM;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        if (j) {
            tb_clock_leave();
            atomic_store(&j->refs, 1);
            release(j);
        }
        warning("log retention: cannot start its thread: %s: no log removed", strerror(rc));
        return -1;
    }
    pthread_detach(t);
    bool done = wait_for(j, limit_s, stop);
    int removed = done ? j->removed : -1;
    if (!done)
        warning("log retention in '%s': not done within %.0f s%s (a log whose open or read "
                "does not return?): left for the next night", dir, limit_s,
                stop && *stop ? " (stopped by a signal)" : "");
    release(j);
    return removed;
}
