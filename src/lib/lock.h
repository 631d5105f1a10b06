/* lock.h: one run at a time per user. flock() on a lock file: the kernel drops it when
 * the holder dies, so a stale file from a crashed run never blocks the next night. The file
 * ($TB_LOCK_FILE, else a default only its user can create: tb_lock_default) is only ever
 * locked, never written: who holds it comes from /proc/locks. */
#ifndef TB_LOCK_H
#define TB_LOCK_H

#include <stdbool.h>
#include <stddef.h>

enum { TB_LOCK_HELD = 1, TB_LOCK_BAD = 2 };

struct tb_lock;

/* 0 when acquired; TB_LOCK_HELD (message printed, naming the holder's pid and uid) when
 * another process of this user's holds it exclusive, as a run does; TB_LOCK_BAD (message
 * printed) when the file is another user's (named, with its uid), when a process of another
 * user's holds it, when a process holds it shared (no run does: someone keeping the runs
 * out), when the lock path is not a plain file (a symbolic link, never followed; a FIFO, a
 * directory, a device) or when the default's folder is not this user's alone; -errno on
 * another failure. The file is opened read-only and never written or chmod'ed; one this
 * call creates is mode 0600 (no other user may open it to hold it). */
int tb_lock_acquire(const char *dir_unused, struct tb_lock **out);
void tb_lock_release(struct tb_lock *l);
/* The lock file's path: $TB_LOCK_FILE, else tb_lock_default's choice for this process
 * (root: /run/transpose-bench/lock); "" when there is none (no home folder). */
const char *tb_lock_path(void);

/* The default lock's path into buf. root_dir non-NULL: root's place, root_dir/lock (root's
 * root_dir is /run/transpose-bench). NULL: a user's, in its state folder (the same under cron
 * and by hand, as $XDG_RUNTIME_DIR is not: cron sets none), $XDG_STATE_HOME/transpose-bench/
 * lock or ~/.local/state/transpose-bench/lock (the mode state file's folder). When
 * make: the folder made (root_dir 0755, the state folder's levels 0700) and checked: a
 * folder, not a link, this user's, writable by no one else. 0, or TB_LOCK_BAD after a
 * message naming the folder (its owner, its mode), or -errno after one. */
int tb_lock_default(const char *root_dir, bool make, char *buf, size_t n);

#endif
