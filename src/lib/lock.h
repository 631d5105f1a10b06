/* lock.h: one run at a time per machine. flock() on a lock file: the kernel drops it
 * when the holder dies, so a stale file from a crashed run never blocks the next night.
 * The file ($TB_LOCK_FILE, default /tmp/transpose-bench.lock) is only ever locked, never
 * written: who holds it comes from /proc/locks. */
#ifndef TB_LOCK_H
#define TB_LOCK_H

enum { TB_LOCK_HELD = 1, TB_LOCK_BAD = 2 };

struct tb_lock;

/* 0 when acquired; TB_LOCK_HELD (message printed, naming the holder's pid and uid) when
 * another process holds it exclusive, as a run does; TB_LOCK_BAD (message printed) when a
 * process holds it shared (no run does: someone keeping the runs out) or the lock path is
 * not a plain file: a symbolic link (never followed), a FIFO, a directory, a device; -errno
 * on another failure. The file is opened read-only and never written or chmod'ed; one this
 * call creates is mode 0644. */
int tb_lock_acquire(const char *dir_unused, struct tb_lock **out);
void tb_lock_release(struct tb_lock *l);
const char *tb_lock_path(void);

#endif
