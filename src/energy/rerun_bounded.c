/* rerun_bounded.c: the learner within a time limit. Its logs are read in the log folder,
 * which may hold a file whose open or read never returns (a stuck FUSE or network mount);
 * every open there is already non-blocking and of regular files only (a FIFO is refused at
 * once), but a stuck file system can hold any call. So the learning runs on a thread of its
 * own, and the night's start waits for it within a limit and while no signal asks to stop:
 * past either it goes on with the board file's settings, and the thread is left to end
 * when its call returns (it then frees what it learnt). Not here: what is learnt (rerun.c). */
#include "energy/rerun.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"

/* Tests: called on the learner's thread before it reads (a stuck file system's stand-in);
 * a test program defines its own, the shipped tool has this empty one. */
void tb_rerun_test_stall(void);
__attribute__((weak)) void tb_rerun_test_stall(void)
{
}

struct job {
    pthread_mutex_t mu;
    pthread_cond_t cv;               /* CLOCK_MONOTONIC */
    int refs;                        /* the waiter's and the thread's */
    bool done;
    char *dir, *host, *host_id, *board, *images;
    struct tb_rerun *r;
    char line[512];
};

static void job_free(struct job *j)
{
    if (j->r)
        tb_rerun_free(j->r);
    free(j->dir);
    free(j->host);
    free(j->host_id);
    free(j->board);
    free(j->images);
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->mu);
    free(j);
}

static void release(struct job *j)
{
    pthread_mutex_lock(&j->mu);
    bool last = --j->refs == 0;
    pthread_mutex_unlock(&j->mu);
    if (last)
        job_free(j);
}

static void *learner(void *arg)
{
    struct job *j = arg;
    tb_rerun_test_stall();
    struct tb_rerun *r = tb_rerun_learn(j->dir, j->host, j->host_id, j->board, j->images,
                                        j->line, sizeof(j->line));
    if (!r)
        snprintf(j->line, sizeof(j->line), "out of memory: the board file's settings alone");
    pthread_mutex_lock(&j->mu);
    j->r = r;
    j->done = true;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    release(j);
    return NULL;
}

static struct job *job_new(const char *dir, const char *host, const char *host_id,
                           const char *board, const char *images)
{
    struct job *j = calloc(1, sizeof(*j));
    if (!j)
        return NULL;
    pthread_mutex_init(&j->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&j->cv, &ca);
    pthread_condattr_destroy(&ca);
    j->refs = 2;
    j->dir = strdup(dir);
    j->host = strdup(host);
    j->host_id = strdup(host_id);
    j->board = strdup(board);
    j->images = strdup(images);
    if (!j->dir || !j->host || !j->host_id || !j->board || !j->images) {
        job_free(j);
        return NULL;
    }
    return j;
}

/* Waits for j within limit_s of real time, in slices of 50 ms so that a stop is seen.
 * true: done (j->mu held). */
static bool wait_for(struct job *j, double limit_s, volatile sig_atomic_t *stop)
{
    struct timespec end, now;
    clock_gettime(CLOCK_MONOTONIC, &end);
    double whole = (double)(long)limit_s;
    end.tv_sec += (time_t)whole;
    end.tv_nsec += (long)((limit_s - whole) * 1e9);
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&j->mu);
    while (!j->done && !(stop && *stop)) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
            break;
        now.tv_nsec += 50000000L;
        if (now.tv_nsec >= 1000000000L) {
            now.tv_sec++;
            now.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&j->cv, &j->mu, &now);
    }
    if (j->done)
        return true;
    pthread_mutex_unlock(&j->mu);
    return false;
}

struct tb_rerun *tb_rerun_learn_bounded(const char *dir, const char *host, const char *host_id,
                                        const char *board, const char *images, double limit_s,
                                        volatile sig_atomic_t *stop, char *line, size_t n)
{
    struct job *j = job_new(dir, host, host_id, board, images);
    pthread_t t;
    sigset_t all, old;   /* signals go to the threads that act on them, never to this one */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = j ? pthread_create(&t, NULL, learner, j) : ENOMEM;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        if (j)
            job_free(j);
        snprintf(line, n, "cannot start the learner: %s: the board file's settings alone",
                 strerror(rc));
        return NULL;
    }
    pthread_detach(t);
    if (!wait_for(j, limit_s, stop)) {
        snprintf(line, n, "the earlier logs in '%s' were not read within %.0f s%s (a file "
                 "whose open or read does not return?): the board file's settings alone",
                 dir, limit_s, stop && *stop ? " (stopped by a signal)" : "");
        release(j);
        return NULL;
    }
    struct tb_rerun *r = j->r;
    j->r = NULL;
    tb_strlcpy(line, j->line, n);
    pthread_mutex_unlock(&j->mu);
    release(j);
    return r;
}
