/* lock.c: see lock.h. The lock sits in a world-writable directory (/tmp), where anyone
 * may have left a link, a FIFO or a directory at its path: none is followed, waited on or
 * written; an existing file's mode is never changed. */
#include "lib/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

struct tb_lock { int fd; };

const char *tb_lock_path(void)
{
    const char *p = getenv("TB_LOCK_FILE");
    return p && *p ? p : "/tmp/transpose-bench.lock";
}

/* Opens the lock file without following a link and without blocking (a FIFO opened for
 * reading and writing does not block; O_NONBLOCK keeps a device's open from waiting);
 * *created when this call made it. 0 with *fdp, TB_LOCK_BAD or -errno after a message. */
static int lock_open(const char *path, bool *created, int *fdp)
{
    int flags = O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int fd = open(path, flags | O_CREAT | O_EXCL, 0666);
    *created = fd >= 0;
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
        error("cannot open lock file '%s': %s (set TB_LOCK_FILE to a writable path)", path,
              strerror(e));
        return -e;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
        bool reg = S_ISREG(st.st_mode);
        error("lock file '%s' is %s: not used (remove it, or set TB_LOCK_FILE to a plain "
              "file's path)", path, !reg ? (S_ISFIFO(st.st_mode) ? "a FIFO" : "not a plain file")
              : "a file with other hard links, never written");
        close(fd);
        return TB_LOCK_BAD;
    }
    *fdp = fd;
    return 0;
}

int tb_lock_acquire(const char *dir_unused, struct tb_lock **out)
{
    const char *path = tb_lock_path();
    bool created;
    int fd = -1, rc = lock_open(path, &created, &fd);
    if (rc)
        return rc;
    /* the lock's descriptor is a plain file's: reads and writes never wait */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        if (e == EWOULDBLOCK) {
            char buf[32] = "";
            ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
            buf[n > 0 ? n : 0] = '\0';
            buf[strcspn(buf, "\n")] = '\0';
            error("another transpose-bench run (pid %s) holds '%s'; not starting a second one",
                  buf[0] ? buf : "unknown", path);
            close(fd);
            return TB_LOCK_HELD;
        }
        error("cannot lock '%s': %s", path, strerror(e));
        close(fd);
        return -e;
    }
    if (created)
        fchmod(fd, 0666); /* ours, just made: let other users' runs take it later */
    char pid[32];
    int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)len, 0) != len)
        warning("cannot write the pid into '%s'", path);
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
    if (ftruncate(l->fd, 0) < 0) {
        /* harmless: the next holder overwrites the pid */
    }
    flock(l->fd, LOCK_UN);
    close(l->fd);
    free(l);
}
