/* child.c: see child.h. The holder is forked from a process that has threads (the sampler):
 * between fork and exec it makes system calls only, on text formatted before the fork. It
 * is a child subreaper, so what its command leaves behind comes back to it to be reaped. */
#include "jetson/child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log/csvlog.h"
#include "lib/util.h"
#include "lib/watchdog.h"

extern char **environ;

#define CMD_TIMEOUT_S 30.0
#define POLL_NS (20 * 1000000L)

/* What the holder tells the run on its status pipe. */
struct held {
    int status;        /* waitpid's status of the command */
    int timed_out;     /* killed at the deadline */
    int leftovers;     /* its process group outlived it: killed */
};

double tb_child_limit_s(void)
{
    double s = tb_watch_seconds(TB_WATCH_CALL);
    return s < CMD_TIMEOUT_S ? s : CMD_TIMEOUT_S;
}

double tb_child_settle_limit_s(void)
{
    const char *e = getenv("TB_SETTLE_TIMEOUT_S");
    char *end = NULL;
    double s = tb_child_limit_s(), v = e && *e ? strtod(e, &end) : 0;
    return end && !*end && v > 0 && v < s ? v : s;
}

/* cmd's words and extra into argv (at most 19), argv[0] resolved through PATH into exe. */
static int split(const char *cmd, const char *const *extra, char *words, size_t wn,
                 char **argv, char *exe, size_t en)
{
    tb_strlcpy(words, cmd, wn);
    int argc = 0;
    for (char *s = strtok(words, " \t"); s && argc < 12; s = strtok(NULL, " \t"))
        argv[argc++] = s;
    for (const char *const *x = extra; x && *x && argc < 19; x++)
        argv[argc++] = (char *)*x;
    argv[argc] = NULL;
    if (!argc)
        return -ENOENT;
    if (strchr(argv[0], '/')) {
        tb_strlcpy(exe, argv[0], en);
        return 0;
    }
    const char *path = getenv("PATH");
    char dirs[4096];
    tb_strlcpy(dirs, path && *path ? path : "/usr/bin:/bin", sizeof(dirs));
    for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save))
        if (snprintf(exe, en, "%s/%s", d, argv[0]) < (int)en && access(exe, X_OK) == 0)
            return 0;
    return -ENOENT;
}

/* n as decimal into buf (async-signal-safe); its length. */
static size_t put_num(char *buf, long n)
{
    char tmp[24];
    size_t k = 0, len = 0;
    do
        tmp[k++] = (char)('0' + n % 10);
    while ((n /= 10) > 0 && k < sizeof(tmp));
    while (k)
        buf[len++] = tmp[--k];
    return len;
}

/* What /proc/PID/stat says of a process (proc(5)): field 3 its state, 4 its parent, 5 its
 * process group, 22 its start (clock ticks since boot). */
struct pstat {
    char state;
    long ppid, pgid;
    unsigned long long start;
};

/* pid's /proc/PID/stat into ps; false when there is no such process. System calls and a
 * hand parse only: the holder calls it between fork and exec. */
static bool proc_stat(long pid, struct pstat *ps)
{
    char path[40] = "/proc/", buf[1024];
    size_t len = 6;
    len += put_num(path + len, pid);
    memcpy(path + len, "/stat", 6);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    ssize_t k = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (k <= 0)
        return false;
    buf[k] = '\0';
    const char *c = NULL;
    for (const char *q = buf; *q; q++)
        if (*q == ')')
            c = q;   /* the last ')': a command's name may hold one */
    if (!c)
        return false;
    int field = 2;   /* after ") ": field 3 */
    unsigned long long v = 0;
    memset(ps, 0, sizeof(*ps));
    for (const char *q = c + 1; *q && field <= 22; q++) {
        if (*q == ' ') {
            field++;
            v = 0;
            continue;
        }
        if (field == 3)
            ps->state = *q;
        if (*q >= '0' && *q <= '9')
            v = v * 10 + (unsigned long long)(*q - '0');
        if (q[1] == ' ' || q[1] == '\0') {
            if (field == 4)
                ps->ppid = (long)v;
            else if (field == 5)
                ps->pgid = (long)v;
            else if (field == 22)
                ps->start = v;
        }
    }
    return ps->start > 0;
}

/* pid's start (0 when there is no such process). */
static unsigned long long proc_start(long pid)
{
    struct pstat ps;
    return proc_stat(pid, &ps) ? ps.start : 0;
}

/* The holder's record in the hold file: "holder PID START\ngroup PGID START\nboot ID\n":
 * each process with its start time (/proc/PID/stat field 22) and the boot it ran in, so
 * that a record left by a power cut or a reboot, whose numbers another process may have by
 * now, is never taken for ours (tb_child_settle). */
static void record(int fd, pid_t holder, pid_t group, const char *boot)
{
    char buf[160];
    unsigned long long hs = proc_start(holder), gs = proc_start(group);
    size_t len = 7;
    memcpy(buf, "holder ", 7);
    len += put_num(buf + len, holder);
    buf[len++] = ' ';
    len += put_num(buf + len, (long)hs);
    memcpy(buf + len, "\ngroup ", 7);
    len += 7;
    len += put_num(buf + len, group);
    buf[len++] = ' ';
    len += put_num(buf + len, (long)gs);
    memcpy(buf + len, "\nboot ", 6);
    len += 6;
    for (const char *b = boot; *b && len + 2 < sizeof(buf); b++)
        buf[len++] = *b;
    buf[len++] = '\n';
    if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, len, 0) < 0)
        return;
}

/* Every descriptor but 0-2 and keep (-1 ends it) closed: the holder outlives the run and
 * must hold none of its files or pipes (a log, the run's lock, a sampler's pipe). By
 * getdents64 on /proc/self/fd: no allocation between fork and exec. */
static void close_others(const int *keep, size_t nkeep)
{
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    for (int pass = 0; pass < 64; pass++) {
        char buf[4096];
        int fds[512];
        size_t nf = 0;
        lseek(dir, 0, SEEK_SET);
        long got;
        while ((got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
            for (long off = 0; off < got; ) {
                struct { uint64_t ino; int64_t off; unsigned short len; unsigned char type;
                         char name[]; } *e = (void *)(buf + off);
                int fd = 0;
                for (const char *c = e->name; *c >= '0' && *c <= '9'; c++)
                    fd = fd * 10 + (*c - '0');
                bool kept = fd <= 2 || fd == dir || e->name[0] < '0' || e->name[0] > '9';
                for (size_t k = 0; k < nkeep && !kept; k++)
                    kept = keep[k] == fd;
                if (!kept && nf < 512)
                    fds[nf++] = fd;
                off += e->len;
            }
        for (size_t i = 0; i < nf; i++)
            close(fds[i]);
        if (!nf)
            break;
    }
    close(dir);
}

/* The holder's living children killed, one by one from /proc (parent == self, when self is
 * given): what left the command's group (setsid, a session of its own) came to the holder, a
 * subreaper, when its parent ended; and the living members of group counted (when given).
 * How many lived. getdents64 and system calls only (between fork and exec). */
static int kill_children(pid_t self, pid_t group)
{
    int live = 0;
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char buf[4096];
    long got;
    while (dir >= 0 && (got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
        for (long off = 0; off < got; ) {
            struct { uint64_t ino; int64_t off; unsigned short len; unsigned char type;
                     char name[]; } *e = (void *)(buf + off);
            long pid = 0;
            for (const char *c = e->name; *c >= '0' && *c <= '9'; c++)
                pid = pid * 10 + (*c - '0');
            struct pstat ps;
            if (pid > 1 && proc_stat(pid, &ps) && ps.state != 'Z' && ps.state != 'X' &&
                ((self && ps.ppid == self) || (group && ps.pgid == group))) {
                live++;
                if (self && ps.ppid == self)
                    kill((pid_t)pid, SIGKILL);
            }
            off += e->len;
        }
    if (dir >= 0)
        close(dir);
    return live;
}

/* The command's group, killed, until none of it runs (2 s at most): where the holder is no
 * subreaper (an emulator's kernel), a member that left its parent is init's to reap, and the
 * kill alone returns before it is gone, its files (a FIFO it would switch the board by)
 * still open. */
static void group_gone(pid_t group)
{
    for (int k = 0; k < 100 && kill_children(0, group) > 0; k++)
        nanosleep(&(struct timespec){ 0, POLL_NS }, NULL);
}

/* Every descendant of the command reaped, none left to change the board after the run
 * judged it: those still running killed (a child that left the group would switch later,
 * unseen). 0 none was left, 1 some were (killed), 2 some could not be killed in 2 s
 * (another user's: root's children under sudo), left running. */
static int reap_all(const sigset_t *chld)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int left = 0;
    for (;;) {
        pid_t w = waitpid(-1, NULL, WNOHANG);
        if (w > 0 || (w < 0 && errno == EINTR))
            continue;
        if (w < 0)
            return left;   /* ECHILD: nothing of the command is left */
        left = 1;
        kill_children(getpid(), 0);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec > 2)
            return 2;
        sigtimedwait(chld, NULL, &(struct timespec){ 0, POLL_NS });
    }
}

/* The command itself, in its own process group: never returns. */
static void command(const char *exe, char **argv, int in_fd, int out_fd, const sigset_t *was)
{
    setpgid(0, 0);
    int null = in_fd < 0 ? open("/dev/null", O_RDONLY) : in_fd;
    if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
        _exit(127);
    sigprocmask(SIG_SETMASK, was, NULL);
    execve(exe, argv, environ);
    _exit(127);
}

/* The holder: starts the command, waits for it up to limit_ns, kills it (and what of its
 * group is left) and reaps everything it started; its findings to st_fd. Never returns. */
static void holder(const char *exe, char **argv, int in_fd, int out_fd, int st_fd, int hold_fd,
                   const char *boot, int64_t limit_ns, const sigset_t *was)
{
    struct held h = { 0, 0, 0 };
    setpgid(0, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    int keep[] = { in_fd, out_fd, st_fd, hold_fd };
    close_others(keep, 4);
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &dfl, NULL);   /* the run's handlers are not ours; SIGKILL's fails */
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    pid_t gc = fork();
    if (gc == 0)
        command(exe, argv, in_fd, out_fd, was);
    if (gc < 0)
        _exit(126);
    setpgid(gc, gc);   /* before record: the group is named before anything can look */
    if (hold_fd >= 0)
        record(hold_fd, getpid(), gc, boot);
    close(out_fd);
    if (in_fd >= 0)
        close(in_fd);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (waitpid(gc, &h.status, WNOHANG) == gc)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t left = limit_ns - ((int64_t)(now.tv_sec - t0.tv_sec) * 1000000000 +
                                   (now.tv_nsec - t0.tv_nsec));
        if (left <= 0) {
            h.timed_out = 1;
            kill(-gc, SIGKILL);
            kill(gc, SIGKILL);   /* a group we may not signal whole (sudo's root child) */
            while (waitpid(gc, &h.status, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        struct timespec ts = { left / 1000000000, left % 1000000000 };
        if (ts.tv_sec > 0 || ts.tv_nsec > POLL_NS)
            ts = (struct timespec){ 0, POLL_NS };   /* SIGCHLD may come before the wait */
        sigtimedwait(&chld, NULL, &ts);
    }
    if (kill(-gc, 0) == 0) {   /* its group lives on: a detached child would switch later */
        h.leftovers = 1;
        kill(-gc, SIGKILL);
        group_gone(gc);
    }
    int rest = reap_all(&chld);   /* and what left the group, come to us */
    h.leftovers = rest > h.leftovers ? rest : h.leftovers;
    if (hold_fd >= 0 && ftruncate(hold_fd, 0) < 0)
        _exit(124);   /* a stale group in the file would be waited for in vain */
    if (write(st_fd, &h, sizeof(h)) < 0)
        _exit(125);
    _exit(0);
}

/* Reads the command's output into out (one line) until the holder reports or deadline_ns;
 * the holder's findings into h. false when the holder never reported. */
static bool collect(int out_fd, int st_fd, int64_t deadline_ns, char *out, size_t n,
                    struct held *h)
{
    size_t len = 0;
    bool got = false, out_open = true;
    while (!got) {
        int left = (int)((deadline_ns - tb_real_now_ns()) / 1000000);
        if (left <= 0)
            break;
        struct pollfd pf[2] = { { .fd = st_fd, .events = POLLIN },
                                { .fd = out_open ? out_fd : -1, .events = POLLIN } };
        int pr = poll(pf, 2, left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            break;
        char buf[512];
        if (pf[1].revents) {
            ssize_t k = read(out_fd, buf, sizeof(buf));
            out_open = k > 0 || (k < 0 && errno == EINTR);
            for (ssize_t i = 0; i < k && len + 1 < n; i++)
                out[len++] = buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t' ? ' ' : buf[i];
        }
        if (pf[0].revents) {
            ssize_t k = read(st_fd, h, sizeof(*h));
            if (k == (ssize_t)sizeof(*h))
                got = true;
            else if (k == 0 || (k < 0 && errno != EINTR))
                break;   /* the holder died without a word */
        }
    }
    out[len] = '\0';
    return got;
}

/* Whether an open hold file is ours to write and empty: a regular file of this user with
 * one link. A second link is a name for another file (`ln /etc/shadow NAME`, where
 * fs.protected_hardlinks is 0), which emptying the record would destroy. */
static bool hold_owned(const struct stat *st)
{
    return S_ISREG(st->st_mode) && st->st_uid == geteuid() && st->st_nlink == 1;
}

/* The hold file opened for the holder, locked (anything of a previous holder settled
 * first); -1 with why in out when it cannot be. */
static int open_hold(const char *hold, const char *boot, char *out, size_t n)
{
    char why[PATH_MAX + 200];
    if (tb_child_settle(hold, boot, why, sizeof(why)) < 0) {
        tb_strlcpy(out, why, n);
        return -1;
    }
    /* O_CREAT without O_EXCL: the name may be planted between the settle and here; the
     * file opened is checked again, before anything is written to it */
    int fd = open(hold, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !hold_owned(&st) || flock(fd, LOCK_EX | LOCK_NB)) {
        snprintf(out, n, "cannot take the hold file '%s': %s", hold,
                 fd < 0 ? strerror(errno) : "not a regular file of this user with one link, "
                 "or held");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* The input to the command's stdin: a few bytes, which the pipe holds (never blocking); a
 * command gone already gives EPIPE, not a SIGPIPE death. */
static void feed(int fd, const char *input)
{
    sigset_t pipe_sig, was;
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, &was);
    if (write(fd, input, strlen(input)) < 0 && errno == EPIPE)
        sigtimedwait(&pipe_sig, NULL, &(struct timespec){ 0, 0 });
    pthread_sigmask(SIG_SETMASK, &was, NULL);
}

/* The command's result from the holder's findings, out completed. */
static int result(const char *cmd, const char *const *extra, const struct held *h, bool got,
                  char *out, size_t n)
{
    const char *a1 = extra && extra[0] ? extra[0] : NULL, *a2 = a1 ? extra[1] : NULL;
    if (!got || h->timed_out) {
        snprintf(out, n, "'%s%s%s%s%s' did not finish in %g s: killed", cmd, a1 ? " " : "",
                 a1 ? a1 : "", a2 ? " " : "", a2 ? a2 : "", tb_child_limit_s());
        return 128 + SIGKILL;
    }
    tb_csvlog_clean(out, n);
    size_t len = strlen(out);
    if (h->leftovers && len + 1 < n)
        snprintf(out + len, n - len, "%sit left processes running, %s (a later switch "
                 "would have changed the board unseen)", len ? "; " : "", h->leftovers == 2 ?
                 "some of which could not be killed (another user's)" : "killed");
    int st = h->status;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int tb_child_run(const char *cmd, const char *const *extra, const char *input, const char *hold,
                 const char *boot, char *out, size_t n)
{
    char words[1024], exe[PATH_MAX], *argv[20];
    out[0] = '\0';
    int rc = split(cmd, extra, words, sizeof(words), argv, exe, sizeof(exe));
    if (rc < 0) {
        snprintf(out, n, "cannot run '%s': %s", cmd, strerror(-rc));
        return rc;
    }
    int hold_fd = hold ? open_hold(hold, boot, out, n) : -1;
    if (hold && hold_fd < 0)
        return -EBUSY;
    int p[2], st[2], in[2] = { -1, -1 };
    if (pipe2(p, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0 ||
        (input && pipe2(in, O_CLOEXEC) < 0)) {
        int e = errno;
        snprintf(out, n, "pipe: %s", strerror(e));
        if (hold_fd >= 0)
            close(hold_fd);
        return -e;
    }
    int64_t limit_ns = (int64_t)(tb_child_limit_s() * 1e9);
    sigset_t all, was;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &was);   /* no handler of ours runs in the holder */
    pid_t pid = fork();
    if (pid == 0)
        holder(exe, argv, in[0], p[1], st[1], hold_fd, boot ? boot : "", limit_ns, &was);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    close(p[1]);
    close(st[1]);
    if (in[0] >= 0)
        close(in[0]);
    if (hold_fd >= 0)
        close(hold_fd);   /* the holder's copy keeps the lock */
    if (pid > 0 && input)
        feed(in[1], input);
    if (in[1] >= 0)
        close(in[1]);
    if (pid < 0) {
        close(p[0]);
        close(st[0]);
        snprintf(out, n, "cannot run '%s': %s", argv[0], strerror(e));
        return -e;
    }
    struct held h = { 0, 0, 0 };
    bool got = collect(p[0], st[0], tb_real_now_ns() + limit_ns + 5 * (int64_t)1000000000, out,
                       n, &h);
    close(p[0]);
    close(st[0]);
    if (!got)
        kill(-pid, SIGKILL);   /* the holder itself stuck: what it holds is settled later */
    int hs;
    while (waitpid(pid, &hs, 0) < 0 && errno == EINTR)
        ;
    return result(cmd, extra, &h, got, out, n);
}

/* ---- settling what a run (dead or alive) left running ------------------------------ */

/* Whether a live (not zombie) process is in group pgid, by /proc. */
static bool group_alive(long pgid)
{
    if (pgid <= 1 || kill(-(pid_t)pgid, 0) < 0)
        return false;
    DIR *d = opendir("/proc");
    struct dirent *e;
    bool alive = false;
    while (d && !alive && (e = readdir(d))) {
        char p[300], buf[512], state;
        long grp;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(p, sizeof(p), "/proc/%s/stat", e->d_name);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        ssize_t k = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (k <= 0)
            continue;
        buf[k] = '\0';
        const char *c = strrchr(buf, ')');
        if (c && sscanf(c + 1, " %c %*d %ld", &state, &grp) == 2)
            alive = grp == pgid && state != 'Z' && state != 'X';
    }
    if (d)
        closedir(d);
    return alive;
}

/* A hold file's record (0 and "" where absent: a record of an older version has no starts
 * and no boot). */
struct hold_rec {
    long holder, group;
    unsigned long long holder_start, group_start;
    char boot[64];
};

static void read_record(int fd, struct hold_rec *r)
{
    char buf[256];
    ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);
    memset(r, 0, sizeof(*r));
    if (k <= 0)
        return;
    buf[k] = '\0';
    const char *h = strstr(buf, "holder "), *g = strstr(buf, "group "), *b = strstr(buf, "boot ");
    if (h)
        sscanf(h + 7, "%ld %llu", &r->holder, &r->holder_start);
    if (g)
        sscanf(g + 6, "%ld %llu", &r->group, &r->group_start);
    if (b)
        sscanf(b + 5, "%63s", r->boot);
}

/* Whether process pid is the one a record names: alive, started when the record says, in
 * this boot. A number from before a reboot, or one the kernel gave to another process since
 * (its start differs), is not; nor is a record without a start (nothing proves it). */
static bool proven(long pid, unsigned long long start)
{
    struct pstat ps;
    return pid > 1 && start > 0 && proc_stat(pid, &ps) && ps.start == start &&
           ps.state != 'Z' && ps.state != 'X';
}

static void nap(void)
{
    nanosleep(&(struct timespec){ 0, POLL_NS }, NULL);   /* a real process: the real clock */
}

/* Until deadline_ns: the lock taken, or false. */
static bool lock_by(int fd, int64_t deadline_ns)
{
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return true;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return false;
        if (tb_real_now_ns() >= deadline_ns)
            return false;
        nap();
    }
}

/* The record's command group (its holder dead or done): waited for while it is proven ours
 * and alive, killed past the deadline; one that is not proven ours is never signalled and
 * never waited for (its number is another process's now, or nothing says whose it is).
 * rc so far in, rc out; why said. */
static int settle_group(const struct hold_rec *r, int rc, int64_t deadline, char *why, size_t n)
{
    if (!group_alive(r->group)) {
        if (rc)
            snprintf(why, n, "a command of a run (process group %ld) was still changing the "
                     "board: %s", r->group, rc == 2 ? "killed at its deadline" : "waited for");
        return rc;
    }
    if (!proven(r->group, r->group_start)) {
        bool other = proc_start(r->group) > 0;
        snprintf(why, n, "the hold record names process group %ld (started at tick %llu), "
                 "which %s: not proven ours, left alone, nothing signalled", r->group,
                 r->group_start, !r->group_start ? "lives, but no start and boot id to "
                 "compare (a boot id unreadable, or a record of an older version)" : other ?
                 "is another process's now (its first process started at another tick)" :
                 "lives on without its first process (nothing proves it ours)");
        return 3;
    }
    while (group_alive(r->group) && proven(r->group, r->group_start) &&
           tb_real_now_ns() < deadline) {
        rc = rc ? rc : 1;   /* its holder gone (killed), its command not */
        nap();
    }
    if (group_alive(r->group) && proven(r->group, r->group_start)) {
        kill(-(pid_t)r->group, SIGKILL);
        rc = 2;
    }
    if (rc)
        snprintf(why, n, "a command of a run (process group %ld, proven ours by its start "
                 "and boot) was still changing the board: %s", r->group,
                 rc == 2 ? "killed at its deadline" : "waited for");
    return rc;
}

int tb_child_settle(const char *hold, const char *boot, char *why, size_t n)
{
    why[0] = '\0';
    int fd = open(hold, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        int e = errno;
        snprintf(why, n, "hold file '%s': %s (remove it if it is no file of ours)", hold,
                 e == ELOOP ? "a symbolic link, not followed" : strerror(e));
        return -e;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !hold_owned(&st)) {
        close(fd);
        snprintf(why, n, "hold file '%s' is not a regular file of this user with one link "
                 "(another user's, or more than one link: a name for another file, which "
                 "would be emptied): refused, nothing written", hold);
        return -EPERM;
    }
    int64_t limit = (int64_t)(tb_child_settle_limit_s() * 1e9), t0 = tb_real_now_ns();
    struct hold_rec r;
    read_record(fd, &r);   /* before any wait: a holder that ends empties it */
    int rc = 0;
    if (!r.boot[0] || !boot || !boot[0])   /* boots not compared: a start proves nothing */
        r.holder_start = r.group_start = 0;
    if (r.boot[0] && boot && boot[0] && strcmp(r.boot, boot)) {
        /* a record from another boot: nothing of it runs; its numbers may be anyone's */
        snprintf(why, n, "the hold record names process group %ld of another boot (boot id "
                 "%.36s, now %.36s): nothing of it runs since the reboot; left alone, nothing "
                 "signalled", r.group, r.boot, boot);
        rc = 3;
    } else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {   /* a holder still runs: a run's nvpmodel */
        rc = 1;
        if (!lock_by(fd, t0 + limit)) {
            bool g = proven(r.group, r.group_start), h = proven(r.holder, r.holder_start);
            if (g)
                kill(-(pid_t)r.group, SIGKILL);
            if (h)
                kill(-(pid_t)r.holder, SIGKILL);
            rc = g || h ? 2 : 3;
            lock_by(fd, tb_real_now_ns() + 2 * (int64_t)1000000000);
        }
        if (rc == 3)
            snprintf(why, n, "the hold file is held past its deadline by processes not "
                     "proven ours (holder %ld, group %ld): left alone, nothing signalled",
                     r.holder, r.group);
        else
            rc = settle_group(&r, rc, t0 + limit, why, n);
    } else {
        rc = settle_group(&r, rc, t0 + limit, why, n);
    }
    if (ftruncate(fd, 0) < 0)
        rc = rc ? rc : 0;
    close(fd);
    return rc;
}
