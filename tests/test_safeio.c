/* test_safeio.c: the bounded reader fed what a hostile or broken system tree holds: a FIFO
 * nobody writes to, a link to /dev/zero, a device, a directory, a file past the bound, and a
 * read that never returns (a pipe with a silent writer, standing in for a wedged sensor).
 * Each must come back with its error; alarm() turns a hang into a failed test. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/safeio.h"
#include "lib/clock.h"
#include "read_hang_hook.h"

static int guard(void **state)
{
    alarm(60);   /* a hang is a failure, not a stuck suite */
    return 0;
}

static void test_regular_file_read(void **state)
{
    char *d = th_tmpdir(), *p = th_write(d, "model", "NVIDIA Jetson Nano Developer Kit\n");
    char buf[128], why[512];
    size_t len = 0;
    assert_int_equal(tb_safeio_read(p, buf, sizeof(buf), &len, 0, 0, why, sizeof(why)), 0);
    assert_string_equal(buf, "NVIDIA Jetson Nano Developer Kit\n");
    assert_int_equal(len, strlen(buf));
    assert_int_equal(tb_safeio_line(p, buf, sizeof(buf), 0, why, sizeof(why)), 0);
    assert_string_equal(buf, "NVIDIA Jetson Nano Developer Kit");
    /* a procfs file says size 0 (sysfs says 4096): the size is never trusted, EOF is */
    assert_int_equal(tb_safeio_read("/proc/self/status", buf, sizeof(buf), &len, 0, 0, why,
                                     sizeof(why)), -EFBIG);
    assert_int_equal(len, sizeof(buf) - 1);
    assert_int_equal(strncmp(buf, "Name:", 5), 0);
    free(p);
    th_rmtree(d);
    free(d);
}

static void test_fifo_is_refused_not_waited_on(void **state)
{
    char *d = th_tmpdir(), path[512], buf[64], why[512];
    snprintf(path, sizeof(path), "%s/model", d);
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(tb_safeio_read(path, buf, sizeof(buf), NULL, 0, 0, why, sizeof(why)),
                     -EINVAL);
    assert_non_null(strstr(why, "a FIFO"));
    assert_non_null(strstr(why, path));
    /* even where a link is allowed, the FIFO behind it is refused */
    char lnk[600];
    snprintf(lnk, sizeof(lnk), "%s/nvpmodel.conf", d);
    assert_int_equal(symlink(path, lnk), 0);
    assert_int_equal(tb_safeio_read(lnk, buf, sizeof(buf), NULL, TB_SAFEIO_LINK_OK, 0, why,
                                    sizeof(why)), -EINVAL);
    th_rmtree(d);
    free(d);
}

static void test_links_devices_and_directories(void **state)
{
    char *d = th_tmpdir(), *target = th_write(d, "secret", "root only\n");
    char lnk[512], zero[512], buf[64], why[512];
    snprintf(lnk, sizeof(lnk), "%s/model", d);
    snprintf(zero, sizeof(zero), "%s/temp", d);
    assert_int_equal(symlink(target, lnk), 0);
    assert_int_equal(symlink("/dev/zero", zero), 0);
    assert_int_equal(tb_safeio_read(lnk, buf, sizeof(buf), NULL, 0, 0, why, sizeof(why)), -ELOOP);
    assert_non_null(strstr(why, "symbolic link"));
    assert_string_equal(buf, "");
    assert_int_equal(tb_safeio_read(zero, buf, sizeof(buf), NULL, 0, 0, why, sizeof(why)), -ELOOP);
    /* an allowed link is followed to a regular file, never to a device */
    assert_int_equal(tb_safeio_read(lnk, buf, sizeof(buf), NULL, TB_SAFEIO_LINK_OK, 0, why,
                                    sizeof(why)), 0);
    assert_string_equal(buf, "root only\n");
    assert_int_equal(tb_safeio_read(zero, buf, sizeof(buf), NULL, TB_SAFEIO_LINK_OK, 0, why,
                                    sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "character device"));
    assert_int_equal(tb_safeio_read("/dev/zero", buf, sizeof(buf), NULL, 0, 0, why, sizeof(why)),
                     -EINVAL);
    assert_int_equal(tb_safeio_read(d, buf, sizeof(buf), NULL, 0, 0, why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "a directory"));
    char missing[600];
    snprintf(missing, sizeof(missing), "%s/nothing", d);
    assert_int_equal(tb_safeio_read(missing, buf, sizeof(buf), NULL, 0, 0, why, sizeof(why)),
                     -ENOENT);
    free(target);
    th_rmtree(d);
    free(d);
}

static void test_size_bound(void **state)
{
    char *d = th_tmpdir(), big[4096];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    char *p = th_write(d, "available_frequencies", big), buf[100], why[512];
    size_t len;
    assert_int_equal(tb_safeio_read(p, buf, sizeof(buf), &len, 0, 0, why, sizeof(why)), -EFBIG);
    assert_int_equal(len, 99);
    assert_int_equal(strlen(buf), 99);
    assert_non_null(strstr(why, "longer than 99 bytes"));
    /* a first line is what tb_safeio_line wants: a long file is not its error */
    assert_int_equal(tb_safeio_line(p, buf, sizeof(buf), 0, why, sizeof(why)), 0);
    free(p);
    th_rmtree(d);
    free(d);
}

/* A read that blocks (a pipe whose writer is alive and silent, as a wedged sensor's read
 * is) is given up at the deadline; the worker left behind ends once the read returns, and
 * later reads still work. */
static void test_stuck_read_gives_up(void **state)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    char buf[64], why[512];
    unsigned before = tb_safeio_abandoned();
    assert_int_equal(tb_safeio_read_fd(p[0], "in1_input", buf, sizeof(buf), NULL, 100, why,
                                       sizeof(why)), -ETIMEDOUT);
    assert_non_null(strstr(why, "in1_input"));
    assert_non_null(strstr(why, "did not finish"));
    assert_int_equal(tb_safeio_abandoned(), before + 1);
    close(p[1]);   /* the stuck read returns (EOF): its worker frees itself */
    close(p[0]);
    char *d = th_tmpdir(), *f = th_write(d, "in1_input", "5080\n");
    assert_int_equal(tb_safeio_read(f, buf, sizeof(buf), NULL, 0, 0, why, sizeof(why)), 0);
    assert_string_equal(buf, "5080\n");
    free(f);
    th_rmtree(d);
    free(d);
}

/* Sensors that never answer cannot pile up threads: past a cap of stuck readers (each
 * file its own), a read fails at once with the reason. */
static void test_stuck_readers_are_capped(void **state)
{
    int p[64][2], n = 0, rc = 0;
    char buf[16], why[512];
    for (; n < 64; n++) {
        char what[32];
        snprintf(what, sizeof(what), "temp%d", n);
        assert_int_equal(pipe(p[n]), 0);
        rc = tb_safeio_read_fd(p[n][0], what, buf, sizeof(buf), NULL, 20, why, sizeof(why));
        assert_int_equal(rc, -ETIMEDOUT);
        if (strstr(why, "too many"))
            break;
    }
    assert_true(n < 64);   /* the cap was met before 64 stuck reads */
    assert_true(tb_safeio_stuck() >= 8);
    for (int i = 0; i <= n && i < 64; i++) {
        close(p[i][1]);
        close(p[i][0]);
    }
}

/* A stuck file costs its own worker, never the pool: nine files stuck at once (more than
 * the healthy workers) leave a healthy rail readable; a stuck file read again fails at once
 * without a second worker, until its first read returns. */
static void test_stuck_file_costs_its_own_worker(void **state)
{
    int p[9][2];
    char buf[64], why[512];
    for (int i = 0; i < 400 && tb_safeio_stuck(); i++)   /* the last test's, ending */
        usleep(10000);
    assert_int_equal(tb_safeio_stuck(), 0);
    for (int i = 0; i < 9; i++) {
        char what[32];
        snprintf(what, sizeof(what), "in%d_input", i);
        assert_int_equal(pipe(p[i]), 0);   /* blocking: the worker really hangs in read */
        assert_int_equal(tb_safeio_read_fd(p[i][0], what, buf, sizeof(buf), NULL, 20, why,
                                           sizeof(why)), -ETIMEDOUT);
        assert_non_null(strstr(why, "did not finish"));
    }
    unsigned before = tb_safeio_abandoned();
    assert_int_equal(tb_safeio_read_fd(p[0][0], "in0_input", buf, sizeof(buf), NULL, 60000,
                                       why, sizeof(why)), -ETIMEDOUT);
    assert_non_null(strstr(why, "still stuck"));
    assert_int_equal(tb_safeio_abandoned(), before);   /* no second worker was given */
    char *d = th_tmpdir(), *f = th_write(d, "curr1_input", "1200\n");
    assert_int_equal(tb_safeio_read(f, buf, sizeof(buf), NULL, 0, 0, why, sizeof(why)), 0);
    assert_string_equal(buf, "1200\n");
    /* once the stuck read returns, the file is read again */
    assert_int_equal(write(p[0][1], "77\n", 3), 3);
    close(p[0][1]);
    int rc = -ETIMEDOUT;
    for (int i = 0; i < 200 && rc == -ETIMEDOUT; i++) {   /* its worker ends in its own time */
        usleep(10000);
        int q[2];
        assert_int_equal(pipe(q), 0);
        assert_int_equal(write(q[1], "5\n", 2), 2);
        close(q[1]);
        rc = tb_safeio_read_fd(q[0], "in0_input", buf, sizeof(buf), NULL, 2000, why,
                               sizeof(why));
        close(q[0]);
    }
    assert_int_equal(rc, 0);
    assert_string_equal(buf, "5\n");
    for (int i = 1; i < 9; i++)
        close(p[i][1]);
    for (int i = 0; i < 9; i++)
        close(p[i][0]);
    free(f);
    th_rmtree(d);
    free(d);
}

static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* A read given up at its deadline leaves no thread of this process behind: a thread stuck
 * in the kernel (a wedged sensor's read, an open stuck in a lookup) keeps the whole process
 * from being reaped, SIGKILL and exit() included, until the read returns. The read is in
 * another process, and a lock the run took before it is free once the run has ended. */
static void test_stuck_read_leaves_no_thread_and_no_descriptor(void **state)
{
    char *d = th_tmpdir(), *lock = th_write(d, "lock", "");
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {   /* a fresh process (this test runs first): no reader made before the lock */
        int fd = open(lock, O_RDWR);
        char buf[16], why[256];
        int before = threads_now();
        int rc = fd >= 0 && flock(fd, LOCK_EX) == 0 ?
                 tb_safeio_read_fd(p[0], "temp0", buf, sizeof(buf), NULL, 50, why, sizeof(why))
                 : 0;
        int ok = rc == -ETIMEDOUT && threads_now() == before;
        free(lock);   /* the parent's copies: freed here too, or valgrind calls them lost */
        free(d);
        _exit(ok ? 0 : 1);
    }
    int st = -1;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    int fd = open(lock, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);   /* no reader kept it */
    close(fd);
    close(p[1]);   /* the stuck reader's read returns: it ends */
    close(p[0]);
    free(lock);
    th_rmtree(d);
    free(d);
}

/* How many of the pipes' read ends (by inode) some other process holds: a reader of a batch
 * holds its job's descriptor from the moment the job is handed to it. */
static int pipes_held_elsewhere(const ino_t *ino, int n)
{
    int held = 0;
    bool seen[16] = { false };
    DIR *proc = opendir("/proc");
    struct dirent *e;
    while (proc && (e = readdir(proc))) {
        char dir[300], link[600], to[64];
        if (atoi(e->d_name) <= 0 || atoi(e->d_name) == getpid())
            continue;
        snprintf(dir, sizeof(dir), "/proc/%s/fd", e->d_name);
        DIR *fds = opendir(dir);
        struct dirent *f;
        while (fds && (f = readdir(fds))) {
            snprintf(link, sizeof(link), "%s/%s", dir, f->d_name);
            ssize_t l = readlink(link, to, sizeof(to) - 1);
            if (l <= 0)
                continue;
            to[l] = '\0';
            for (int i = 0; i < n; i++)
                if (!seen[i] && strtoull(to + (strncmp(to, "pipe:[", 6) ? 0 : 6), NULL, 10) ==
                    ino[i] && !strncmp(to, "pipe:[", 6)) {
                    seen[i] = true;
                    held++;
                }
        }
        if (fds)
            closedir(fds);
    }
    if (proc)
        closedir(proc);
    return held;
}

struct answerer {
    int (*p)[2];
    const ino_t *ino;
    int n;
    bool all_held;
};

/* Answers every pipe once all of them are being read at the same time; if that never comes
 * (20 s), ends them without an answer. */
static void *answer_when_all_held(void *arg)
{
    struct answerer *a = arg;
    for (int tries = 0; tries < 2000 && !a->all_held; tries++) {
        a->all_held = pipes_held_elsewhere(a->ino, a->n) == a->n;
        if (!a->all_held)
            usleep(10000);   /* a bound on the wait only: the answer needs no timing */
    }
    for (int i = 0; i < a->n; i++) {   /* a line, then EOF: a sysfs file's whole */
        if (a->all_held && write(a->p[i][1], "41\n", 3) != 3)
            a->all_held = false;
        close(a->p[i][1]);
    }
    return NULL;
}

/* A batch (a scan of thermal zones) sends every read before it waits: eight reads that
 * block until all eight are under way at once all come back, and so does a file after them.
 * Read one after the other, the first waits for an answer that comes only once the eighth
 * has started: never (the answerer gives up after 20 s, and the test fails). */
static void test_batch_reads_all_at_once(void **state)
{
    int p[8][2];
    ino_t ino[8];
    char buf[9][16];
    struct tb_safeio_job job[9];
    char *d = th_tmpdir(), *f = th_write(d, "temp", "53343\n");
    for (int i = 0; i < 8; i++) {
        struct stat st;
        assert_int_equal(pipe(p[i]), 0);
        assert_int_equal(fstat(p[i][0], &st), 0);
        ino[i] = st.st_ino;
        job[i] = (struct tb_safeio_job){ .fd = p[i][0], .what = "zone type", .buf = buf[i],
                                         .n = sizeof(buf[i]) };
    }
    job[8] = (struct tb_safeio_job){ .path = f, .buf = buf[8], .n = sizeof(buf[8]) };
    struct answerer a = { p, ino, 8, false };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, answer_when_all_held, &a), 0);
    tb_safeio_lines(job, 9, 60000);
    pthread_join(t, NULL);
    assert_true(a.all_held);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(job[i].rc, 0);
        assert_string_equal(buf[i], "41");   /* the first line, without its newline */
        close(p[i][0]);
    }
    assert_int_equal(job[8].rc, 0);
    assert_string_equal(buf[8], "53343");
    free(f);
    th_rmtree(d);
    free(d);
}

/* Reads that never return are given up together at the one deadline, each saying so; a file
 * after them is read; a FIFO's path is refused at once. */
static void test_batch_gives_up_at_one_deadline(void **state)
{
    int p[8][2];
    char buf[10][16];
    struct tb_safeio_job job[10];
    char *d = th_tmpdir(), *f = th_write(d, "temp", "61000\n"), fifo[600];
    snprintf(fifo, sizeof(fifo), "%s/type", d);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    unsigned before = tb_safeio_abandoned();
    for (int i = 0; i < 8; i++) {
        char what[32];
        assert_int_equal(pipe(p[i]), 0);
        snprintf(what, sizeof(what), "thermal_zone%d/type", i);
        job[i] = (struct tb_safeio_job){ .fd = p[i][0], .what = strdup(what), .buf = buf[i],
                                         .n = sizeof(buf[i]) };
    }
    job[8] = (struct tb_safeio_job){ .path = fifo, .buf = buf[8], .n = sizeof(buf[8]) };
    job[9] = (struct tb_safeio_job){ .path = f, .buf = buf[9], .n = sizeof(buf[9]) };
    tb_safeio_lines(job, 10, 100);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(job[i].rc, -ETIMEDOUT);
        assert_non_null(strstr(job[i].why, job[i].what));
        assert_non_null(strstr(job[i].why, "did not finish within 100 ms"));
        free((char *)job[i].what);
        close(p[i][1]);   /* the stuck reads return: their readers end */
        close(p[i][0]);
    }
    assert_int_equal(tb_safeio_abandoned(), before + 8);
    assert_int_equal(job[8].rc, -EINVAL);
    assert_non_null(strstr(job[8].why, "a FIFO"));
    assert_int_equal(job[9].rc, 0);
    assert_string_equal(buf[9], "61000");
    free(f);
    th_rmtree(d);
    free(d);
}

/* Whether a process other than this one holds path open (a test's own file: a reader). */
static bool held_elsewhere(const char *path)
{
    char real[PATH_MAX];
    bool held = false;
    DIR *proc = realpath(path, real) ? opendir("/proc") : NULL;
    struct dirent *e;
    while (proc && !held && (e = readdir(proc))) {
        char dir[300], link[600], to[PATH_MAX];
        if (atoi(e->d_name) <= 0 || atoi(e->d_name) == getpid())
            continue;
        snprintf(dir, sizeof(dir), "/proc/%s/fd", e->d_name);
        DIR *fds = opendir(dir);
        struct dirent *f;
        while (fds && !held && (f = readdir(fds))) {
            snprintf(link, sizeof(link), "%s/%s", dir, f->d_name);
            ssize_t l = readlink(link, to, sizeof(to) - 1);
            held = l > 0 && (to[l] = '\0', !strcmp(to, real));
        }
        if (fds)
            closedir(fds);
    }
    if (proc)
        closedir(proc);
    return held;
}

/* Kept reads (a sampler's files, kept open by one reader between calls) read what the path
 * names now: a value written in place (through the descriptor the reader holds), a file
 * renamed over the old one; a path replaced by a FIFO is refused at once (never waited on),
 * one replaced by a link is not followed, one that is gone says so and one that is back is
 * read again; past TB_SAFEIO_KEPT_MAX files the rest are read one at a time, the same. */
static void test_kept_reads_follow_their_paths(void **state)
{
    enum { N = TB_SAFEIO_KEPT_MAX + 2 };
    char *d = th_tmpdir(), *f[N], buf[N][16], tmp[600];
    struct tb_safeio_job job[N];
    for (int i = 0; i < N; i++) {
        char name[32], text[32];
        snprintf(name, sizeof(name), "in%d_input", i);
        snprintf(text, sizeof(text), "%d\n", 5000 + i);
        f[i] = th_write(d, name, text);
        job[i] = (struct tb_safeio_job){ .path = f[i], .buf = buf[i], .n = sizeof(buf[i]) };
    }
    static const char *const step[] = { "as written", "in place", "renamed over", "a FIFO",
                                        "a link", "gone", "back" };
    for (int k = 0; k < 7; k++) {
        snprintf(tmp, sizeof(tmp), "%s/new", d);
        if (k == 1 || k == 6)
            free(th_write(d, "in0_input", "4016\n"));
        if (k == 2 || k == 4)
            free(th_write(d, "new", "4017\n"));
        if (k == 2)
            assert_int_equal(rename(tmp, f[0]), 0);
        if (k == 3)
            assert_int_equal(unlink(f[0]) || mkfifo(f[0], 0644), 0);
        if (k == 4)
            assert_int_equal(symlink(tmp, f[0]), 0);
        tb_safeio_kept_reads(job, N, 0);
        if (k == 0)   /* kept open by the reader: the next read in place goes through it */
            assert_true(held_elsewhere(f[0]));
        static const int rc[] = { 0, 0, 0, -EINVAL, -ELOOP, -ENOENT, 0 };
        if (job[0].rc != rc[k])
            th_fail("%s: rc %d (%s), not %d", step[k], job[0].rc, job[0].why, rc[k]);
        assert_string_equal(buf[0], k == 0 ? "5000\n" : k == 1 || k == 6 ? "4016\n" : k == 2
                            ? "4017\n" : "");
        th_must_have(job[0].why, k == 3 ? "is a FIFO, not a regular file" : k == 4 ?
                     "is a symbolic link where a file is expected: not followed" : k == 5 ?
                     "No such file or directory" : "");
        if (k == 3 || k == 4)
            assert_int_equal(unlink(f[0]), 0);   /* the FIFO, the link: gone next */
        for (int i = 1; i < N; i++) {   /* the others, kept or past the most, as written */
            assert_int_equal(job[i].rc, 0);
            assert_int_equal(atoi(buf[i]), 5000 + i);
        }
    }
    for (int i = 0; i < N; i++)
        free(f[i]);
    th_rmtree(d);
    free(d);
}

/* A kept read where a later file never answers: the answers read before it (held by the
 * reader to send together) still come, the timeout names the file that hung, a file after
 * it is read, and the reader given up is remembered under the hung file alone: the first
 * file reads again at once, and the next kept read fails the hung file at once (still stuck).
 * Each job timed, those read alone too, its end on CLOCK_MONOTONIC: at first in the order
 * read, the file after the hung one after the hung one's second deadline (#57: read alone,
 * 0); then the stuck one is read alone after the rest. */
static void test_kept_read_names_the_file_that_hung(void **state)
{
    char *d = th_tmpdir(), *f[3], buf[3][16];
    f[0] = th_write(d, "crit_alarm", "0\n");
    f[1] = th_write(d, "hang_input", "2\n");
    f[2] = th_write(d, "in3_input", "3\n");
    assert_int_equal(read_hang(f[1]), 0);
    struct tb_safeio_job job[3];
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 3; i++)
            job[i] = (struct tb_safeio_job){ .path = f[i], .buf = buf[i], .n = sizeof(buf[i]) };
        int64_t t0 = tb_real_now_ns();
        tb_safeio_kept_reads(job, 3, 1000);
        for (int i = 0; i < 3; i++)
            if (job[i].ns <= 0 || job[i].end_ns < t0 + job[i].ns ||
                job[i].end_ns > tb_real_now_ns() ||
                (k == 0 && i && job[i].end_ns < job[i - 1].end_ns))
                th_fail("round %d job %d: read %lld ns, ended %lld ns after the call", k, i,
                        job[i].ns, job[i].end_ns - t0);
        if (k == 0 && job[1].ns < 1000000000LL)   /* read alone: its own whole deadline */
            th_fail("the hung file read alone in %lld ns", job[1].ns);
        if (job[0].rc || job[2].rc)
            th_fail("round %d: %d (%s), %d (%s)", k, job[0].rc, job[0].why, job[2].rc,
                    job[2].why);
        assert_string_equal(buf[0], "0\n");
        assert_string_equal(buf[2], "3\n");
        assert_int_equal(job[1].rc, -ETIMEDOUT);
        th_must_have(job[1].why, f[1]);
        th_must_have(job[1].why, k == 0 ? "did not finish within 1000 ms" : "still stuck");
        char why[512];
        assert_int_equal(tb_safeio_read(f[0], buf[0], sizeof(buf[0]), NULL, 0, 1000, why,
                                        sizeof(why)), 0);
    }
    read_unhang(f[1]);
    for (int i = 0; i < 3; i++)
        free(f[i]);
    th_rmtree(d);
    free(d);
}

/* Kept reads of mixed sizes: each job read to its own n (a smaller one before it does not
 * cut a larger one short and put the answers out of step), -EFBIG past its own. */
static void test_kept_reads_of_mixed_sizes(void **state)
{
    char *d = th_tmpdir(), *f[3], small[4], big[64], tiny[4];
    f[0] = th_write(d, "a", "abcdef\n");
    f[1] = th_write(d, "b", "0123456789\n");
    f[2] = th_write(d, "c", "x\n");
    struct tb_safeio_job job[3] = {
        { .path = f[0], .buf = small, .n = sizeof(small) },
        { .path = f[1], .buf = big, .n = sizeof(big) },
        { .path = f[2], .buf = tiny, .n = sizeof(tiny) },
    };
    tb_safeio_kept_reads(job, 3, 0);
    assert_int_equal(job[0].rc, -EFBIG);
    th_must_have(job[0].why, "is longer than 3 bytes");
    if (job[1].rc || job[2].rc)
        th_fail("%d (%s), %d (%s)", job[1].rc, job[1].why, job[2].rc, job[2].why);
    assert_string_equal(big, "0123456789\n");
    assert_string_equal(tiny, "x\n");
    for (int i = 0; i < 3; i++)
        free(f[i]);
    th_rmtree(d);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* first: its child must start with no reader made yet */
        cmocka_unit_test_setup(test_stuck_read_leaves_no_thread_and_no_descriptor, guard),
        cmocka_unit_test_setup(test_regular_file_read, guard),
        cmocka_unit_test_setup(test_fifo_is_refused_not_waited_on, guard),
        cmocka_unit_test_setup(test_links_devices_and_directories, guard),
        cmocka_unit_test_setup(test_size_bound, guard),
        cmocka_unit_test_setup(test_stuck_read_gives_up, guard),
        cmocka_unit_test_setup(test_stuck_readers_are_capped, guard),
        cmocka_unit_test_setup(test_stuck_file_costs_its_own_worker, guard),
        cmocka_unit_test_setup(test_batch_reads_all_at_once, guard),
        cmocka_unit_test_setup(test_batch_gives_up_at_one_deadline, guard),
        cmocka_unit_test_setup(test_kept_reads_follow_their_paths, guard),
        cmocka_unit_test_setup(test_kept_read_names_the_file_that_hung, guard),
        cmocka_unit_test_setup(test_kept_reads_of_mixed_sizes, guard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
