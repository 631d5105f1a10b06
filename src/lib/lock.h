/* lock.h: one run at a time per machine. flock() on a lock file: the kernel drops it
 * when the holder dies, so a stale file from a crashed run never blocks the next night.
 * The file ($TB_LOCK_FILE, default /tmp/transpose-bench.lock) holds the holder's pid. */
#ifndef TB_LOCK_H
#define TB_LOCK_H

enum { TB_LOCK_HELD = 1, TB_LOCK_BAD = 2 };

struct tb_lock;

/* 0 when acquired; TB_LOCK_HELD (message printed, naming the pid) when another run has
 * it; TB_LOCK_BAD (message printed) when the lock path is not a plain file of its own: a
 * symbolic link (never followed: its target is never truncated or chmod'ed), a FIFO, a
 * directory, a device, or a file with other hard links; -errno on another failure. Only a
 * file this call creates is made mode 0666; an existing one keeps its mode. */
int tb_lock_acquire(const char *dir_unused, struct tb_lock **out);
void tb_lock_release(struct tb_lock *l);
const char *tb_lock_path(void);

#endif
