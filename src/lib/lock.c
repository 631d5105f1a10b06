/* lock.c: see lock.h. The lock sits in a world-writable directory (/tmp), where anyone
 * may have left a link, a FIFO or a directory at its path: none is followed, waited on or
 * opened for writing. The file is never written at all (no pid in it, no truncation, no
 * chmod): a hard link to it, or it hard-linked elsewhere by another user, changes nothing
 * (it once made every run exit 2), and no file reached through it is ever changed. Who holds
 * it comes from /proc/locks: a run holds it exclusive, so a shared hold is someone keeping
 * the runs out, said as such (exit 2, never the 75 of "another run is going"). */
#include "lib/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

struct tb_lock { int fd; };

const char *tb_lock_path(void)
{
    const char *p = getenv("TB_LOCK_FILE");
    return p && *p ? p : "/tmp/transpose-bench.lock";
}

/* Opens the lock file for reading only (flock needs no more), without following a link
 * and without blocking (O_NONBLOCK keeps a FIFO's or a device's open from waiting). A file
 * this call creates is mode 0644: every user's run can open it to lock it, none can write
 * it. 0 with *fdp, TB_LOCK_BAD or -errno after a message. */
static int lock_open(const char *path, int *fdp)
{
    int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int fd = open(path, flags | O_CREAT | O_EXCL, 0644);
    if (fd < 0 && errno == EEXIST)
        fd = open(path, flags);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP || e == EISDIR || e == ENXIO || e == EEXIST) {
            error("lock file '%s' is %s: not used (remove it, or set TB_LOCK_FILE to a "
                  "plain file's path)", path, e == ELOOP ? "a symbolic link, never followed"
                  : e == EISDIR ? "a directory" : "not a plain file");
            return TB_LOCK_BAD;
        }
        error("cannot open lock file '%s': %s (set TB_LOCK_FILE to a readable path)", path,
              strerror(e));
        return -e;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        error("lock file '%s' is %s: not used (remove it, or set TB_LOCK_FILE to a plain "
              "file's path)", path, S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ?
              "a directory" : "not a plain file");
        close(fd);
        return TB_LOCK_BAD;
    }
    *fdp = fd;
    return 0;
}

/* The flock held on fd's file by another process, from /proc/locks: its pid (0 unknown) and
 * whether it is shared. */
static void lock_holder(int fd, long *pid, bool *shared)
{
    *pid = 0;
    *shared = false;
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 ? fopen("/proc/locks", "re") : NULL;
    char line[256], kind[16], mode[16];
    unsigned maj, min;
    unsigned long long ino;
    long p;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "%*[^:]: %15s %*s %15s %ld %x:%x:%llu", kind, mode, &p, &maj, &min,
                   &ino) == 6 && !strcmp(kind, "FLOCK") && ino == (unsigned long long)st.st_ino &&
            maj == major(st.st_dev) && min == minor(st.st_dev) && p != (long)getpid()) {
            *pid = p;
            *shared |= !strcmp(mode, "READ");
        }
    if (f)
        fclose(f);
}

/* Another process holds the lock: a run (exclusive: TB_LOCK_HELD), or not (shared). */
static int held(int fd, const char *path)
{
    long pid;
    bool shared;
    lock_holder(fd, &pid, &shared);
    char who[64] = "unknown";
    if (pid)
        snprintf(who, sizeof(who), "%ld", pid);
    struct stat ps;
    char proc[48];
    snprintf(proc, sizeof(proc), "/proc/%ld", pid);
    long uid = pid && stat(proc, &ps) == 0 ? (long)ps.st_uid : -1;
    if (shared) {
        error("'%s' is held shared by pid %s (uid %ld): no transpose-bench run holds it so "
              "(a run holds it exclusive): that process keeps every run out; not starting "
              "(end it, or set TB_LOCK_FILE to a path of your own)", path, who, uid);
        return TB_LOCK_BAD;
    }
    error("another transpose-bench run (pid %s, uid %ld) holds '%s'; not starting a second "
          "one", who, uid, path);
    return TB_LOCK_HELD;
}

int tb_lock_acquire(const char *dir_unused, struct tb_lock **out)
{
    const char *path = tb_lock_path();
    int fd = -1, rc = lock_open(path, &fd);
    if (rc)
        return rc;
    /* restore's liveness probe (jetson/modes_restore.c) holds a run's lock shared briefly: a shared
     * hold is judged only when it lasts (three tries over some 40 ms) */
    int e = 0;
    for (int tries = 0;; tries++) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            e = 0;
            break;
        }
        long pid;
        bool shared;
        if ((e = errno) != EWOULDBLOCK || tries == 2)
            break;
        lock_holder(fd, &pid, &shared);
        if (!shared)
            break;
        nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
    }
    if (e) {
        rc = e == EWOULDBLOCK ? held(fd, path) : -e;
        if (e != EWOULDBLOCK)
            error("cannot lock '%s': %s", path, strerror(e));
        close(fd);
        return rc;
    }
    struct tb_lock *l = malloc(sizeof(*l));
    if (!l) {
        close(fd);
        return -ENOMEM;
    }
    l->fd = fd;
    *out = l;
    return 0;
}

void tb_lock_release(struct tb_lock *l)
{
    if (!l)
        return;
    flock(l->fd, LOCK_UN);
    close(l->fd);
    free(l);
}
