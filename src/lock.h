/* lock.h: one run at a time per machine. flock() on a lock file: the kernel drops it
 * when the holder dies, so a stale file from a crashed run never blocks the next night.
 * The file ($TB_LOCK_FILE, default /tmp/transpose-bench.lock) holds the holder's pid. */
#ifndef TB_LOCK_H
#define TB_LOCK_H

enum { TB_LOCK_HELD = 1 };

struct tb_lock;

/* 0 when acquired; TB_LOCK_HELD (message printed, naming the pid) when another run has
 * it; -errno on another failure (message printed). */
int tb_lock_acquire(const char *dir_unused, struct tb_lock **out);
void tb_lock_release(struct tb_lock *l);
const char *tb_lock_path(void);

#endif
