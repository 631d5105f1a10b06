/* stall_hook.h: a tool's weak test hook held as a stuck mount holds an open (test machinery
 * only): while stall_on, the calling thread blocks in the open of the FIFO stall_fifo until a
 * writer comes, first setting *stop_on_entry (a signal's flag) when given; entered and left
 * count the calls; unstall lets them go. Shared by test_csvlog.c (recovery),
 * test_metrics_stuck.c (the regression state) and test_retention.c (retention). */
#ifndef TB_TESTS_STALL_HOOK_H
#define TB_TESTS_STALL_HOOK_H

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

static char stall_fifo[PATH_MAX];
static atomic_bool stall_on;
static atomic_int entered, left;
static volatile sig_atomic_t *stop_on_entry;

static void stall_here(void)
{
    atomic_fetch_add(&entered, 1);
    if (atomic_load(&stall_on)) {
        if (stop_on_entry)
            *stop_on_entry = SIGTERM;
        int fd = open(stall_fifo, O_RDONLY);   /* blocks until a writer comes */
        if (fd >= 0)
            close(fd);
    }
    atomic_fetch_add(&left, 1);
}

/* Lets every stalled thread go: a writer's open meets the readers waiting (none: ENXIO). */
static inline void unstall(void)
{
    int fd = open(stall_fifo, O_WRONLY | O_NONBLOCK);
    if (fd >= 0)
        close(fd);
}

#endif
