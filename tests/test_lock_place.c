/* test_lock_place.c: where the run lock lives and whose it must be (#58 item 1): the
 * default in a folder only its user can write (root's place tried in a scratch folder of
 * this user's, as root's /run/transpose-bench would be root's; a user's state folder), a
 * lock file or a holder of another user's refused with a message naming it and its owner
 * (exit 2), exit 75 only for a run of this user's. The parts that need
 * another uid (a file owned by nobody, a holder that is nobody) run as root only and are
 * skipped otherwise. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/lock.h"

#define NOBODY 65534u

static int guard(void **state)
{
    alarm(60);
    return th_test_setup(state);
}
#define LOCK_TEST(f) cmocka_unit_test_setup_teardown(f, guard, th_test_teardown)

static struct stat stat_of(const char *p)
{
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    return st;
}

/* The lock's message for path, which must hold every one of want (NULL-ended). */
static int acquire_says(struct tb_lock **l, const char *const *want)
{
    th_stderr_begin();
    int rc = tb_lock_acquire(NULL, l);
    char *err = th_stderr_end();
    for (size_t i = 0; want[i]; i++)
        if (!strstr(err, want[i]))
            th_fail("wanted '%s' in: %s", want[i], err);
    if (strstr(err, "uid -1"))
        th_fail("a uid it cannot know said as -1: %s", err);
    free(err);
    return rc;
}

/* Root's place: the folder made 0755 and the lock in it; a folder others may write, a link
 * or a file there in its place: refused, naming the folder and its mode. */
static void test_root_place_made_and_checked(void **state)
{
    const char *d = th_scratch();
    char dir[600], buf[PATH_MAX], want[700];
    snprintf(dir, sizeof(dir), "%s/run-tb", d);
    assert_int_equal(tb_lock_default(dir, false, buf, sizeof(buf)), 0);
    assert_int_equal(access(dir, F_OK), -1);   /* asking the path makes nothing */
    mode_t old = umask(022);
    assert_int_equal(tb_lock_default(dir, true, buf, sizeof(buf)), 0);
    umask(old);
    snprintf(want, sizeof(want), "%s/lock", dir);
    assert_string_equal(buf, want);
    struct stat st = stat_of(dir);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0755);
    assert_int_equal(st.st_uid, geteuid());
    /* writable by others: someone else could take the lock's name first */
    assert_int_equal(chmod(dir, 01777), 0);
    th_stderr_begin();
    assert_int_equal(tb_lock_default(dir, true, buf, sizeof(buf)), TB_LOCK_BAD);
    char *err = th_stderr_end();
    th_must_have(err, dir);
    th_must_have(err, "mode 1777");
    free(err);
    /* a link in the folder's place, to a folder of this user's: not followed */
    char real[600];
    snprintf(real, sizeof(real), "%s/elsewhere", d);
    assert_int_equal(rename(dir, real), 0);
    assert_int_equal(chmod(real, 0755), 0);
    assert_int_equal(symlink(real, dir), 0);
    th_stderr_begin();
    assert_int_equal(tb_lock_default(dir, true, buf, sizeof(buf)), TB_LOCK_BAD);
    err = th_stderr_end();
    th_must_have(err, "a symbolic link");
    free(err);
    if (geteuid() != 0)
        return;   /* a folder of another user's needs root to make */
    assert_int_equal(unlink(dir), 0);
    assert_int_equal(chown(real, NOBODY, NOBODY), 0);
    assert_int_equal(rename(real, dir), 0);
    th_stderr_begin();
    assert_int_equal(tb_lock_default(dir, true, buf, sizeof(buf)), TB_LOCK_BAD);
    err = th_stderr_end();
    th_must_have(err, "of uid 65534");
    free(err);
}

/* A user's place: the state folder, made 0700 level by level, whatever $XDG_RUNTIME_DIR
 * says (cron sets none: a night from cron and a run by hand must take one lock);
 * tb_lock_path names the file the lock takes. A level others may write: refused. */
static void test_user_place_is_the_state_folder(void **state)
{
    const char *d = th_scratch();
    char run[600], st_home[600], buf[PATH_MAX], want[PATH_MAX];
    snprintf(run, sizeof(run), "%s/xdg-run", d);
    snprintf(st_home, sizeof(st_home), "%s/home/.state", d);
    assert_int_equal(mkdir(run, 0700), 0);
    unsetenv("TB_LOCK_FILE");
    setenv("XDG_RUNTIME_DIR", run, 1);
    setenv("XDG_STATE_HOME", st_home, 1);
    assert_int_equal(tb_lock_default(NULL, true, buf, sizeof(buf)), 0);
    snprintf(want, sizeof(want), "%s/transpose-bench/lock", st_home);
    assert_string_equal(buf, want);
    if (geteuid() != 0)
        assert_string_equal(tb_lock_path(), want);   /* root's own is /run's */
    assert_int_equal(stat_of(st_home).st_mode & 0777, 0700);
    /* without XDG_STATE_HOME: the home's .local/state */
    unsetenv("XDG_STATE_HOME");
    char home[600];
    snprintf(home, sizeof(home), "%s/home", d);
    setenv("HOME", home, 1);
    assert_int_equal(tb_lock_default(NULL, false, buf, sizeof(buf)), 0);
    snprintf(want, sizeof(want), "%s/.local/state/transpose-bench/lock", home);
    assert_string_equal(buf, want);
    /* the state folder's own level writable by others: refused */
    setenv("XDG_STATE_HOME", st_home, 1);
    char tbdir[700];
    snprintf(tbdir, sizeof(tbdir), "%s/transpose-bench", st_home);
    assert_int_equal(chmod(tbdir, 0777), 0);
    th_stderr_begin();
    assert_int_equal(tb_lock_default(NULL, true, buf, sizeof(buf)), TB_LOCK_BAD);
    char *err = th_stderr_end();
    th_must_have(err, tbdir);
    th_must_have(err, "mode 0777");
    free(err);
}

/* The default taken with no TB_LOCK_FILE: no longer /tmp's name, which any user could
 * create first (#58 item 1); the file made 0600, so no other user can open it to hold it. */
static void test_default_lock_is_private(void **state)
{
    if (geteuid() == 0)
        skip();   /* root's default is /run/transpose-bench: not a test's to make */
    const char *d = th_scratch();
    char st_home[600], want[700];
    snprintf(st_home, sizeof(st_home), "%s/state", d);
    unsetenv("TB_LOCK_FILE");
    setenv("XDG_STATE_HOME", st_home, 1);
    snprintf(want, sizeof(want), "%s/transpose-bench/lock", st_home);
    assert_string_equal(tb_lock_path(), want);
    struct tb_lock *l = NULL;
    assert_int_equal(tb_lock_acquire(NULL, &l), 0);
    assert_int_equal(stat_of(want).st_mode & 07777, 0600);
    tb_lock_release(l);
}

/* A plain file of another user's at the lock path (a stranger's in a sticky /tmp, or a
 * TB_LOCK_FILE pointing there): refused, naming the file and its owner; the run exits 2,
 * never the 75 of "another run is going". */
static void test_lock_file_of_another_user(void **state)
{
    if (geteuid() != 0)
        skip();   /* a file of another user's needs root to make */
    const char *d = th_scratch();
    char lock[600], logs[600];
    snprintf(lock, sizeof(lock), "%s/transpose-bench.lock", d);
    snprintf(logs, sizeof(logs), "%s/logs", d);
    free(th_write(d, "transpose-bench.lock", ""));
    assert_int_equal(chown(lock, NOBODY, NOBODY), 0);
    assert_int_equal(chmod(lock, 0644), 0);
    setenv("TB_LOCK_FILE", lock, 1);
    struct tb_lock *l = NULL;
    const char *want[] = { lock, "owned by uid 65534", NULL };
    assert_int_equal(acquire_says(&l, want), TB_LOCK_BAD);
    assert_int_equal(th_runf("run --device cpu --set power.source=none --sizes 16x16 "
                             "-b boards/generic.cfg -o %s", logs), 2);
    th_must_have(th_err(), "owned by uid 65534");
    assert_int_equal(th_count_files(logs), 0);
}

/* A holder: a child that opens the file, then, as root, becomes another user before it
 * takes the lock exclusive. Its pid on *pid; the pipe's write end on *go (closing it ends
 * the holder). */
static void hold_as(const char *lock, unsigned uid, pid_t *pid, int *go)
{
    int g[2], ready[2];
    assert_int_equal(pipe(g), 0);
    assert_int_equal(pipe(ready), 0);
    *pid = fork();
    assert_true(*pid >= 0);
    if (*pid == 0) {
        close(g[1]);
        close(ready[0]);
        int fd = open(lock, O_RDONLY | O_CREAT, 0600);
        bool ok = fd >= 0 && (uid == geteuid() || setresuid(uid, uid, uid) == 0) &&
                  flock(fd, LOCK_EX) == 0;
        char c = ok ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1 || read(g[0], &c, 1) < 0)
            _exit(1);
        _exit(0);
    }
    close(g[0]);
    close(ready[1]);
    char c = 0;
    assert_int_equal(read(ready[0], &c, 1), 1);
    assert_int_equal(c, 'y');
    close(ready[0]);
    *go = g[1];
}

static void end_holder(pid_t pid, int go)
{
    close(go);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
}

/* Our own file held exclusive by another user's process (root opened it, then became that
 * user): no run of ours, exit 2 with the holder's pid and uid; held by a process of ours:
 * a run, TB_LOCK_HELD (75), its pid and uid said. */
static void test_holder_of_another_user_is_no_run(void **state)
{
    const char *d = th_scratch();
    char lock[600], want_pid[64], want_uid[64];
    snprintf(lock, sizeof(lock), "%s/lock", d);
    setenv("TB_LOCK_FILE", lock, 1);
    pid_t pid;
    int go;
    struct tb_lock *l = NULL;
    hold_as(lock, geteuid(), &pid, &go);
    snprintf(want_pid, sizeof(want_pid), "run (pid %ld,", (long)pid);
    snprintf(want_uid, sizeof(want_uid), "uid %u", (unsigned)geteuid());
    const char *mine[] = { want_pid, want_uid, lock, NULL };
    int rc = acquire_says(&l, mine);
    end_holder(pid, go);
    assert_int_equal(rc, TB_LOCK_HELD);
    if (geteuid() != 0)
        return;   /* a holder of another user's needs root to make */
    hold_as(lock, NOBODY, &pid, &go);
    snprintf(want_pid, sizeof(want_pid), "pid %ld, uid 65534", (long)pid);
    const char *theirs[] = { want_pid, "another user's process", NULL };
    rc = acquire_says(&l, theirs);
    end_holder(pid, go);
    assert_int_equal(rc, TB_LOCK_BAD);
}

int main(void)
{
    th_own_lock("lock_place");
    const struct CMUnitTest tests[] = {
        LOCK_TEST(test_root_place_made_and_checked),
        LOCK_TEST(test_user_place_is_the_state_folder),
        LOCK_TEST(test_default_lock_is_private),
        LOCK_TEST(test_lock_file_of_another_user),
        LOCK_TEST(test_holder_of_another_user_is_no_run),
    };
    return cmocka_run_group_tests_name("lock_place", tests, NULL, NULL);
}
