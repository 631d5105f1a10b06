/* read_hang_hook.h: safeio's weak test hook (tb_safeio_test_read, safeio_internal.h) made to
 * hang a file's read as a wedged driver's read hangs (test machinery only): a reader about
 * to read PATH blocks while a FIFO PATH.hang exists, in the open of it, until a writer comes
 * (read_unhang). It runs in a reader process forked long before, so it reads no state of the
 * test, only the tree. Shared by test_safeio.c and test_ina3221.c. */
#ifndef TB_TESTS_READ_HANG_HOOK_H
#define TB_TESTS_READ_HANG_HOOK_H

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tb_safeio_test_read(const char *path);
void tb_safeio_test_read(const char *path)
{
    char fifo[PATH_MAX + 8];
    size_t len = strlen(path);
    if (len >= PATH_MAX)
        return;
    memcpy(fifo, path, len);
    memcpy(fifo + len, ".hang", 6);
    int fd = open(fifo, O_RDONLY | O_CLOEXEC);   /* ENOENT at once where there is none */
    if (fd >= 0)
        close(fd);
}

/* path's reads hang from now on (a FIFO path.hang): 0, or -1. */
static inline int read_hang(const char *path)
{
    char fifo[2 * PATH_MAX];
    snprintf(fifo, sizeof(fifo), "%s.hang", path);
    return mkfifo(fifo, 0600);
}

/* Lets every read hung on path go, and later ones through (the FIFO gone). */
static inline void read_unhang(const char *path)
{
    char fifo[2 * PATH_MAX];
    snprintf(fifo, sizeof(fifo), "%s.hang", path);
    int fd = open(fifo, O_WRONLY | O_NONBLOCK);
    unlink(fifo);
    if (fd >= 0)
        close(fd);
}

#endif
