/* retention_bounded.c: retention within a time limit. Its reads and removals are in the log
 * folder, which may hold a file whose open or read never returns (a stuck FUSE or network
 * mount: every open there is non-blocking and of regular files only, but a stuck file system
 * can hold any call). So retention runs on a thread of its own (lib/bounded.h), and the
 * night's end waits for it within a limit and while no signal asks to stop; past either, the
 * night ends and the thread is left to end when its call returns. Not here: what is removed
 * (retention.c). */
#include "log/retention.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bounded.h"
#include "lib/util.h"

/* Tests: called on retention's thread before it reads (a stuck file system's stand-in); a
 * test program defines its own, the shipped tool has this empty one. */
void tb_retention_test_stall(void);
__attribute__((weak)) void tb_retention_test_stall(void)
{
}

struct job {
    int removed;
    int keep_logs, keep_days;
    char *dir, *host, *board, *keep_path;
};

static void job_free(void *arg)
{
    struct job *j = arg;
    free(j->dir);
    free(j->host);
    free(j->board);
    free(j->keep_path);
    free(j);
}

static void worker(void *arg)
{
    struct job *j = arg;
    tb_retention_test_stall();
    j->removed = tb_retention_apply(j->dir, j->host, j->board, j->keep_logs, j->keep_days,
                                    j->keep_path);
}

static struct job *job_new(const char *dir, const char *host, const char *board,
                           int keep_logs, int keep_days, const char *keep_path)
{
    struct job *j = calloc(1, sizeof(*j));
    if (!j)
        return NULL;
    j->keep_logs = keep_logs;
    j->keep_days = keep_days;
    j->dir = strdup(dir);
    j->host = strdup(host);
    j->board = strdup(board);
    j->keep_path = keep_path ? strdup(keep_path) : NULL;
    if (!j->dir || !j->host || !j->board || (keep_path && !j->keep_path)) {
        job_free(j);
        return NULL;
    }
    return j;
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
    int rc = j ? tb_bounded_call(worker, j, job_free, limit_s, stop) : -ENOMEM;
    char how[128];
    if (rc == -ETIMEDOUT || rc == -EINTR)
        warning("log retention in '%s': not done %s: left for the next night", dir,
                tb_bounded_why(rc, limit_s, how, sizeof(how)));
    else if (rc < 0)
        warning("log retention: cannot start its thread: %s: no log removed", strerror(-rc));
    if (rc < 0)
        return -1;
    int removed = j->removed;
    job_free(j);
    return removed;
}
