/* rerun_bounded.c: the learner within a time limit. Its logs are read in the log folder,
 * which may hold a file whose open or read never returns (a stuck FUSE or network mount);
 * every open there is already non-blocking and of regular files only (a FIFO is refused at
 * once), but a stuck file system can hold any call. So the learning runs on a thread of its
 * own (lib/bounded.h), and the night's start waits for it within a limit by the tool's clock
 * and while no signal asks to stop: past either it goes on with the board file's settings,
 * and the thread is left to end when its call returns (it then frees what it learnt). Not
 * here: what is learnt (rerun.c). */
#include "energy/rerun.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bounded.h"
#include "lib/util.h"

/* Tests: called on the learner's thread before it reads (a stuck file system's stand-in);
 * a test program defines its own, the shipped tool has this empty one. */
void tb_rerun_test_stall(void);
__attribute__((weak)) void tb_rerun_test_stall(void)
{
}

struct job {
    char *dir, *host, *host_id, *board, *images;
    struct tb_rerun *r;
    char line[512];
};

static void job_free(void *arg)
{
    struct job *j = arg;
    if (j->r)
        tb_rerun_free(j->r);
    free(j->dir);
    free(j->host);
    free(j->host_id);
    free(j->board);
    free(j->images);
    free(j);
}

static void learner(void *arg)
{
    struct job *j = arg;
    tb_rerun_test_stall();
    j->r = tb_rerun_learn(j->dir, j->host, j->host_id, j->board, j->images, j->line,
                          sizeof(j->line));
    if (!j->r)
        snprintf(j->line, sizeof(j->line), "out of memory: the board file's settings alone");
}

static struct job *job_new(const char *dir, const char *host, const char *host_id,
                           const char *board, const char *images)
{
    struct job *j = calloc(1, sizeof(*j));
    if (!j)
        return NULL;
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

struct tb_rerun *tb_rerun_learn_bounded(const char *dir, const char *host, const char *host_id,
                                        const char *board, const char *images, double limit_s,
                                        volatile sig_atomic_t *stop, char *line, size_t n)
{
    struct job *j = job_new(dir, host, host_id, board, images);
    int rc = j ? tb_bounded_call(learner, j, job_free, limit_s, stop) : -ENOMEM;
    char how[128];
    if (rc == -ETIMEDOUT || rc == -EINTR) {
        snprintf(line, n, "the earlier logs in '%s' were not read %s: the board file's "
                 "settings alone", dir, tb_bounded_why(rc, limit_s, how, sizeof(how)));
        return NULL;
    }
    if (rc < 0) {
        snprintf(line, n, "cannot start the learner: %s: the board file's settings alone",
                 strerror(-rc));
        return NULL;
    }
    struct tb_rerun *r = j->r;
    j->r = NULL;
    tb_strlcpy(line, j->line, n);
    job_free(j);
    return r;
}
