/* lock.c: see lock.h. */
#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

struct tb_lock { int fd; };

const char *tb_lock_path(void)
{
    const char *p = getenv("TB_LOCK_FILE");
    return p && *p ? p : "/tmp/transpose-bench.lock";
}

int tb_lock_acquire(const char *dir_unused, struct tb_lock **out)
{
    const char *path = tb_lock_path();
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        int e = errno;
        error("cannot open lock file '%s': %s (set TB_LOCK_FILE to a writable path)", path,
              strerror(e));
        return -e;
    }
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
    fchmod(fd, 0666); /* let other users' runs take it later */
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
