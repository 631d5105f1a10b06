/* lock.c: see lock.h. The default lock sits in a folder only its user can write (root's in
 * /run/transpose-bench, a user's in its state folder), and a lock file another
 * user owns, or holds, is refused as what it is: any local user could else keep every night
 * out (#58: the lock once sat in /tmp, and a stranger's file there was honoured). A user's
 * is in its state folder, never $XDG_RUNTIME_DIR: cron sets no XDG_RUNTIME_DIR, so a night
 * from cron and a run by hand of the same user would take two locks and both run. Whatever
 * the path holds is never followed, waited on or opened for writing. The file is never
 * written at all (no pid in it, no truncation, no chmod): a hard link to it changes nothing.
 * Who holds it comes from /proc/locks: a run holds it exclusive, so a shared hold is someone
 * keeping the runs out, said as such (exit 2, never the 75 of "another run is going"). */
#include "lib/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
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

/* root's folder: /run is root's and only root's to write (the FHS's runtime data) */
#define LOCK_ROOT_DIR "/run/transpose-bench"

struct tb_lock { int fd; };

/* A user's name for messages ("?" when the password database has none). */
static const char *user_name(unsigned uid)
{
    struct passwd *pw = getpwuid((uid_t)uid);
    return pw && pw->pw_name ? pw->pw_name : "?";
}

/* The folder's levels from the first missing one down, each made with mode. 0 or -errno. */
static int dir_make(const char *dir, mode_t mode)
{
    char at[PATH_MAX];
    tb_strlcpy(at, dir, sizeof(at));
    for (char *q = strchr(at + 1, '/');; q = strchr(q + 1, '/')) {
        if (q)
            *q = '\0';
        if (mkdir(at, mode) < 0 && errno != EEXIST) {
            int e = errno;
            error("cannot make the lock folder '%s': %s (set TB_LOCK_FILE to a file of your "
                  "own)", at, strerror(e));
            return -e;
        }
        if (!q)
            return 0;
        *q = '/';
    }
}

/* dir a folder (not a link) of this user's that no one else may write: 0, or TB_LOCK_BAD
 * or -errno after a message. */
static int dir_check(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) < 0) {
        int e = errno;
        error("cannot use the lock folder '%s': %s (set TB_LOCK_FILE to a file of your own)",
              dir, strerror(e));
        return -e;
    }
    if (S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH)))
        return 0;
    error("lock folder '%s' is %s of uid %u (%s), mode %04o: not a folder of this user's "
          "(uid %u) that only it may write, so another user could hold the lock; not used, "
          "not starting (remove it, or set TB_LOCK_FILE to a file of your own)", dir,
          S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a folder"
          : "not a folder", (unsigned)st.st_uid, user_name(st.st_uid),
          (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
    return TB_LOCK_BAD;
}

int tb_lock_default(const char *root_dir, bool make, char *buf, size_t n)
{
    char dir[PATH_MAX];
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    struct passwd *pw = NULL;
    mode_t mode = 0700;
    if (root_dir) {
        tb_strlcpy(dir, root_dir, sizeof(dir));
        mode = 0755;   /* others may look (restore's liveness probe), never write */
    } else if (state && state[0] == '/')
        snprintf(dir, sizeof(dir), "%s/transpose-bench", state);
    else if ((home && home[0] == '/') ||
             ((pw = getpwuid(geteuid())) && (home = pw->pw_dir) && home[0] == '/'))
        snprintf(dir, sizeof(dir), "%s/.local/state/transpose-bench", home);
    else {
        if (make)
            error("no folder for the lock: HOME is unset (set TB_LOCK_FILE to a file of your "
                  "own)");
        return -EINVAL;
    }
    if ((size_t)snprintf(buf, n, "%s/lock", dir) >= n) {
        if (make)
            error("lock folder '%s': the path is too long (set TB_LOCK_FILE)", dir);
        return -ENAMETOOLONG;
    }
    if (!make)
        return 0;
    int rc = dir_make(dir, mode);
    return rc ? rc : dir_check(dir);
}

const char *tb_lock_path(void)
{
    static char buf[PATH_MAX];
    const char *p = getenv("TB_LOCK_FILE");
    if (p && *p)
        return p;
    if (tb_lock_default(geteuid() == 0 ? LOCK_ROOT_DIR : NULL, false, buf, sizeof(buf)) < 0)
        buf[0] = '\0';
    return buf;
}

/* Opens the lock file for reading only (flock needs no more), without following a link
 * and without blocking (O_NONBLOCK keeps a FIFO's or a device's open from waiting). A file
 * this call creates is mode 0600: no other user can open it, so none can hold it. A file
 * another user owns is refused: its owner may hold it, or let anyone hold it. 0 with *fdp,
 * TB_LOCK_BAD or -errno after a message. */
static int lock_open(const char *path, int *fdp)
{
    int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int fd = open(path, flags | O_CREAT | O_EXCL, 0600);
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
    if (st.st_uid != geteuid()) {
        error("lock file '%s' is owned by uid %u (%s), not by this user (uid %u): another "
              "user's file is never this run's lock (its owner could keep every run out); "
              "not starting (remove it, or set TB_LOCK_FILE to a file of your own)", path,
              (unsigned)st.st_uid, user_name(st.st_uid), (unsigned)geteuid());
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

/* The effective uid of process pid, from /proc/PID/status's Uid line (the folder's owner
 * is root's for a process that changed its uids and is not dumpable); false unknown. */
static bool holder_uid(long pid, unsigned *uid)
{
    char path[48], line[256];
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    FILE *f = pid > 0 ? fopen(path, "re") : NULL;
    bool found = false;
    unsigned real;
    while (f && !found && fgets(line, sizeof(line), f))
        found = sscanf(line, "Uid: %u %u", &real, uid) == 2;
    if (f)
        fclose(f);
    return found;
}

/* Another process holds the lock: a run of this user's (exclusive: TB_LOCK_HELD), or not
 * (shared, or another user's process: TB_LOCK_BAD). A holder /proc/locks does not name
 * (another pid namespace) is said without a pid or uid it cannot know (never "uid -1"). */
static int held(int fd, const char *path)
{
    long pid;
    bool shared;
    lock_holder(fd, &pid, &shared);
    char who[96] = "a process /proc/locks does not name (another pid namespace?)";
    unsigned uid = 0;
    bool known = holder_uid(pid, &uid);
    if (pid)
        snprintf(who, sizeof(who), "pid %ld", pid);
    if (known)
        snprintf(who + strlen(who), sizeof(who) - strlen(who), ", uid %u (%s)", uid,
                 user_name(uid));
    if (shared) {
        error("'%s' is held shared by %s: no transpose-bench run holds it so (a run holds it "
              "exclusive): that process keeps every run out; not starting (end it, or set "
              "TB_LOCK_FILE to a path of your own)", path, who);
        return TB_LOCK_BAD;
    }
    if (known && uid != (unsigned)geteuid()) {
        error("'%s' is held by %s, another user's process: no run of this user's (uid %u); "
              "not starting (end it, or set TB_LOCK_FILE to a path of your own)", path, who,
              (unsigned)geteuid());
        return TB_LOCK_BAD;
    }
    error("another transpose-bench run (%s) holds '%s'; not starting a second one", who, path);
    return TB_LOCK_HELD;
}

int tb_lock_acquire(const char *dir_unused, struct tb_lock **out)
{
    char def[PATH_MAX];
    const char *path = getenv("TB_LOCK_FILE");
    int fd = -1, rc = 0;
    if (!path || !*path) {
        rc = tb_lock_default(geteuid() == 0 ? LOCK_ROOT_DIR : NULL, true, def, sizeof(def));
        path = def;
    }
    if (rc || (rc = lock_open(path, &fd)))
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
