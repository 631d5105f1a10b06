/* recover.c: a dead run's temporary log (its `.part`) made a whole log by the next run of
 * the same host and board: the identity inside decides whose it is, never its name's
 * spelling; a live run's file is left alone. Not here: writing a log (csvlog.c). */
#include "log/csvlog.h"
#include "log/csvlog_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "log/log_meta.h"
#include "lib/bounded.h"
#include "lib/util.h"

/* The most a dead run's temporary file may hold, compressed and read back: far past any
 * real sweep's log (~300 bytes a row), short of a gzip bomb filling the disk. */
#define RECOVER_MAX_IN ((off_t)1 << 30)
#define RECOVER_MAX_OUT ((long long)1 << 30)

/* Opens a dead run's temporary file for reading only when it is what a run leaves: a
 * regular file of our own with no other name. A link (to a root-only file, to /dev/zero),
 * a FIFO, a device or a hard link is never read (it would leak into a world-readable log,
 * or hang the nightly run while it holds the lock) and never removed: said and left. */
static int part_open(const char *src)
{
    int fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP)
            warning("'%s' is a symbolic link, not a run's log: not followed, left alone", src);
        else if (errno != ENOENT)
            warning("cannot recover '%s': %s", src, strerror(errno));
        return -1;
    }
    struct stat st;
    const char *bad = fstat(fd, &st) < 0 ? strerror(errno) : !S_ISREG(st.st_mode) ?
                      (S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file") :
                      st.st_nlink != 1 ? "a file with other hard links" :
                      st.st_uid != geteuid() ? "another user's file" :
                      st.st_size > RECOVER_MAX_IN ? "larger than any run's log (1 GiB)" : NULL;
    if (bad) {
        warning("'%s' is %s, not a run's log: not read, left alone", src, bad);
        close(fd);
        return -1;
    }
    return fd;
}

/* The identity a log states in its metadata (host, board name, machine-id), exactly as
 * logged: what decides whether a dead run's file is this host's and board's, never the
 * spelling of its file name (lab_nano and lab-nano share one). */
struct identity {
    char host[256], board[256], machine_id[64];
    bool have_host, have_board;
};

static void identity_line(struct identity *id, const char *line)
{
    const char *v;
    if ((v = tb_meta_value(line, TB_META_host))) {
        tb_strlcpy(id->host, v, sizeof(id->host));
        id->have_host = true;
    } else if ((v = tb_meta_value(line, TB_META_machine_id))) {
        tb_strlcpy(id->machine_id, v, sizeof(id->machine_id));
    } else if ((v = tb_meta_value(line, TB_META_board))) {
        /* "NAME, peak X GB/s[, has a GPU]": the name is what stands before the last ", peak " */
        const char *cut = NULL;
        for (const char *p = v; (p = strstr(p, ", peak ")); p++)
            cut = p;
        snprintf(id->board, sizeof(id->board), "%.*s", (int)(cut ? cut - v : (long)strlen(v)), v);
        id->have_board = true;
    }
}

/* Reads the metadata lines at the head of a dead run's file (up to the CSV header) into id.
 * The identity lines come right after the preamble, so a run that died before writing them
 * wrote nothing else either. */
static void part_identity(int fd, struct identity *id)
{
    memset(id, 0, sizeof(*id));
    int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    gzFile gz = dup_fd >= 0 ? gzdopen(dup_fd, "rb") : NULL;
    if (!gz) {
        if (dup_fd >= 0)
            close(dup_fd);
        return;
    }
    char line[4400];
    for (int i = 0; i < 64 && gzgets(gz, line, sizeof(line)); i++) {
        if (line[0] != '#')
            break;
        line[strcspn(line, "\n")] = '\0';
        identity_line(id, line);
    }
    gzclose(gz);
    lseek(fd, 0, SEEK_SET);
}

/* Whether path is a whole log (its gzip stream read to its end, an end line in it): what a
 * recovery interrupted after giving the final name left. */
static bool whole_log(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return false;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > RECOVER_MAX_IN) {
        close(fd);
        return false;
    }
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        return false;
    }
    char line[4400];
    bool end = false;
    long long total = 0;
    while (gzgets(gz, line, sizeof(line)) && (total += (long long)strlen(line)) < RECOVER_MAX_OUT)
        end = tb_meta_value(line, TB_META_end) != NULL;
    int zerr = 0;
    gzerror(gz, &zerr);
    bool ok = gzeof(gz) && zerr == Z_OK && end;
    gzclose(gz);
    return ok;
}

/* Copies what zlib can read of a dead run's temporary file (its last gzip member has no
 * trailer: rows were flushed, never finished) into a new whole log, with an end line. A
 * last line the crash cut short is never a row: dropped and counted in the end line. The
 * copy is made under a temporary name (O_EXCL, never through a link), synced, given the
 * final name with link(2) (never over a file), the directory synced, and only then is the
 * dead run's file removed: a recovery killed at any step is finished by the next run. */
/* dst exists: a recovery that died after naming the log (whole: finish it, 0) or something
 * else at the name (both left alone, -1). in_fd is closed either way. */
static int recover_named(const char *dir, const char *src, const char *dst, const char *tmp,
                         const struct stat *st, int in_fd)
{
    close(in_fd);
    if (S_ISREG(st->st_mode) && whole_log(dst)) {
        if (unlink(src) == 0 || errno == ENOENT) {
            unlink(tmp);
            tb_csvlog_sync_dir(dir);
            warning("finished the recovery of '%s': '%s' was already whole", src, dst);
            return 0;
        }
        return -1;
    }
    warning("cannot recover '%s': '%s' exists and is not its whole log: both left alone",
            src, dst);
    return -1;
}

/* The whole lines of in to out, counting the rows after the header; *partial when the
 * last line was cut short (never written), *cut past RECOVER_MAX_OUT. 1 ok, 0 a failure. */
static int copy_lines(gzFile in, gzFile out, long *rows, bool *partial, bool *cut)
{
    char buf[65536];
    char *line = NULL;   /* the line being read: written only once its newline is seen */
    size_t len = 0, cap = 0;
    long long total = 0;
    bool header = false;
    int n, ok = out != NULL;
    while (ok && (n = gzread(in, buf, sizeof(buf))) > 0) {
        if ((total += n) > RECOVER_MAX_OUT) {
            *cut = true;   /* a bomb, not rows: the source stays for a person to look at */
            break;
        }
        for (int i = 0; ok && i < n; i++) {
            if (len + 1 >= cap) {
                size_t ncap = cap ? cap * 2 : 4096;
                char *p = realloc(line, ncap);
                if (!p) {
                    ok = 0;
                    break;
                }
                line = p;
                cap = ncap;
            }
            line[len++] = buf[i];
            if (buf[i] != '\n')
                continue;
            if (line[0] != '#') {
                if (header)
                    (*rows)++;
                header = true;
            }
            ok = gzwrite(out, line, (unsigned)len) == (int)len;
            len = 0;
        }
    }
    *partial = len > 0;   /* the crash's last line, cut short: never a row */
    free(line);
    return ok;
}

static int recover_one(const char *dir, const char *part, const char *run_id, long pid,
                       int in_fd)
{
    char src[PATH_MAX], dst[PATH_MAX], tmp[PATH_MAX];
    snprintf(src, sizeof(src), "%s/%s", dir, part);
    snprintf(dst, sizeof(dst), "%s/%s.csv.gz", dir, run_id);
    snprintf(tmp, sizeof(tmp), "%s/.%s.csv.gz.recovering", dir, run_id);
    struct stat st;
    if (lstat(dst, &st) == 0)
        return recover_named(dir, src, dst, tmp, &st, in_fd);
    /* a temporary of an interrupted recovery: ours (this name is made by nothing else),
     * never whole until named; made again from the start */
    if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode))
        unlink(tmp);
    gzFile in = gzdopen(in_fd, "rb");
    if (!in) {
        close(in_fd);
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        warning("cannot recover '%s' through '%s': %s", src, tmp, strerror(errno));
        gzclose(in);
        return -1;
    }
    gzFile out = gzdopen(fd, "wb6");
    long rows = 0;
    bool partial = false, cut = false;
    int ok = copy_lines(in, out, &rows, &partial, &cut);
    if (ok)
        ok = gzprintf(out, "# end: recovered, the run (pid %ld) died before closing its log, "
                      "%ld rows%s%s\n", pid, rows, partial ? "; 1 partial line dropped" : "",
                      cut ? "; cut at 1 GiB of text, the rest stays in its temporary file" : "")
             > 0;
    if (out) {
        ok = gzflush(out, Z_FINISH) == Z_OK && ok;
        ok = fsync(fd) == 0 && ok;
        ok = gzclose(out) == Z_OK && ok;
    } else {
        close(fd);
    }
    gzclose(in);
    if (!ok || link(tmp, dst) < 0) {
        if (ok)
            warning("cannot recover '%s' as '%s': %s", src, dst, strerror(errno));
        unlink(tmp);
        return -1;
    }
    tb_csvlog_sync_dir(dir);
    if (!cut)
        unlink(src);
    unlink(tmp);
    tb_csvlog_sync_dir(dir);
    warning("recovered '%s' (the run, pid %ld, died): %ld rows%s in '%s'", src, pid, rows,
            partial ? " (its cut last line dropped)" : "", dst);
    return 0;
}

/* Whether the run that writes the file open at fd lives: its pid is alive and holds the file
 * open (a run keeps its .part open to its end). A pid alive without it is another process
 * that took the dead run's number (every night's .part was skipped, silently, while it
 * lived): said, and the file recovered. Without /proc, a live pid is taken as the run. */
static bool writer_alive(long pid, int fd, const char *src)
{
    if (pid <= 0 || pid > INT_MAX || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
        return false;
    struct stat mine, st;
    char dir[64], path[128];
    snprintf(dir, sizeof(dir), "/proc/%ld/fd", pid);
    DIR *d = fstat(fd, &mine) == 0 ? opendir(dir) : NULL;
    if (!d && errno == ENOENT && access("/proc/self/fd", F_OK) != 0)
        return true;
    bool open_there = false;
    for (struct dirent *e; d && !open_there && (e = readdir(d));) {
        snprintf(path, sizeof(path), "%s/%.40s", dir, e->d_name);
        open_there = e->d_name[0] != '.' && stat(path, &st) == 0 &&
                     st.st_dev == mine.st_dev && st.st_ino == mine.st_ino;
    }
    if (d)
        closedir(d);
    if (!open_there)
        warning("'%s': its run's pid %ld is alive but does not hold the file (another process "
                "took the number): the run is dead, its log recovered", src, pid);
    return open_there;
}

int tb_csvlog_recover(const char *dir, const char *host, const char *board,
                      const char *machine_id)
{
    char h[128], b[128];
    tb_strlcpy(h, host, sizeof(h));
    tb_strlcpy(b, board, sizeof(b));
    tb_log_name_part(h, sizeof(h));
    tb_log_name_part(b, sizeof(b));
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char id[NAME_MAX + 1], lh[128], lb[128], name[NAME_MAX + 16];
        long pid;
        if (!tb_csvlog_part_parse(e->d_name, id, sizeof(id), &pid))
            continue;
        snprintf(name, sizeof(name), "%s.csv.gz", id);
        if (!tb_log_name_parse(name, lh, sizeof(lh), lb, sizeof(lb), NULL) || strcmp(lh, h) ||
            strcmp(lb, b))
            continue;   /* another host's or board's: its pid means nothing here */
        if (pid == getpid())
            continue;   /* this run's own */
        char src[PATH_MAX];
        snprintf(src, sizeof(src), "%s/%s", dir, e->d_name);
        int fd = part_open(src);
        if (fd < 0)
            continue;
        if (writer_alive(pid, fd, src)) {
            close(fd);
            continue;
        }
        /* the name's spelling only narrows the search: the identity inside decides */
        struct identity idy;
        part_identity(fd, &idy);
        if (!idy.have_host || !idy.have_board || strcmp(idy.host, host) ||
            strcmp(idy.board, board) || strcmp(idy.machine_id, machine_id ? machine_id : "")) {
            close(fd);
            continue;   /* another host's or board's whose names are spelt alike: not ours */
        }
        n += recover_one(dir, e->d_name, id, pid, fd) == 0;
    }
    closedir(d);
    return n;
}

/* Tests: called on recovery's thread before it reads (a stuck file system's stand-in); a
 * test program defines its own, the shipped tool has this empty one. */
void tb_recover_test_stall(void);
__attribute__((weak)) void tb_recover_test_stall(void)
{
}

struct recover_job {
    char *dir, *host, *board, *machine_id;
    int n;                           /* how many recovered */
};

static void recover_job_free(void *arg)
{
    struct recover_job *j = arg;
    free(j->dir);
    free(j->host);
    free(j->board);
    free(j->machine_id);
    free(j);
}

static void recover_job_run(void *arg)
{
    struct recover_job *j = arg;
    tb_recover_test_stall();
    j->n = tb_csvlog_recover(j->dir, j->host, j->board, j->machine_id);
}

int tb_csvlog_recover_bounded(const char *dir, const char *host, const char *board,
                              const char *machine_id, double limit_s,
                              const volatile sig_atomic_t *stop)
{
    struct recover_job *j = calloc(1, sizeof(*j));
    if (j) {
        j->dir = strdup(dir);
        j->host = strdup(host);
        j->board = strdup(board);
        j->machine_id = strdup(machine_id ? machine_id : "");
    }
    if (!j || !j->dir || !j->host || !j->board || !j->machine_id) {
        if (j)
            recover_job_free(j);
        warning("'%s': dead runs' logs not recovered (out of memory): left for a later night",
                dir);
        return -1;
    }
    int rc = tb_bounded_call(recover_job_run, j, recover_job_free, limit_s, stop);
    char how[128];
    if (rc == -ETIMEDOUT || rc == -EINTR)
        warning("'%s': dead runs' logs (.part) not recovered %s: left as they are for a later "
                "night; this night goes on", dir, tb_bounded_why(rc, limit_s, how, sizeof(how)));
    else if (rc < 0)
        warning("'%s': dead runs' logs not recovered (cannot start a thread: %s): left for a "
                "later night", dir, strerror(-rc));
    if (rc < 0)
        return -1;
    int n = j->n;
    recover_job_free(j);
    return n;
}
