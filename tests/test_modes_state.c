/* test_modes_state.c: the power-mode sweep's state file (src/jetson/modes_state.c,
 * modes_restore.c) on fake roots of real boards' releases (modes_boards.h): written before
 * the first change, the board restored after a run that died, a leftover temporary replaced;
 * refused when it is a link, a hard link, a FIFO or of an odd form; hold files and state
 * folders of other users; a stale record or an unknown boot that spares a stranger's process.
 * Switching itself: test_modes.c. */
#include "helpers.h"
#include "modes_boards.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/diag.h"
#include "jetson/child.h"
#include "jetson/modes.h"
#include "lib/util.h"

#define slurp mb_slurp
#define read_mhz mb_mhz
#define status_mode mb_mode
#define exists mb_exists

/* A file at the name a temporary of this pid once had (STATE.<pid>.tmp: a dead run's, or,
 * as root, one another user planted at every pid's name in a shared sticky folder that
 * TB_MODE_STATE names) blocks no night's sweep and is neither read nor touched: the
 * temporary's name is mkstemp's, which nobody can take first (#40, #50). */
static void test_leftover_temporary_replaced(void **state)
{
    (void)state;
    super_root(-1);
    char why[512], what[1024], tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", getenv("TB_MODE_STATE"), (long)getpid());
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs("pid 1\nmode 3\n", f);
    fclose(f);
    if (geteuid() == 0)
        assert_int_equal(chown(tmp, 65534, 65534), 0);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    if (tb_modes_save(&m, NULL, 0, why, sizeof(why)) != 0)
        th_fail("save beside a file at a temporary's old name: %s", why);
    char *text = slurp(getenv("TB_MODE_STATE"));
    assert_non_null(strstr(text, "\nmode 1\n"));
    free(text);
    text = slurp(tmp);
    assert_string_equal(text, "pid 1\nmode 3\n");
    free(text);
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    assert_non_null(strstr(what, "nothing changed"));
    assert_false(exists(getenv("TB_MODE_STATE")));
    assert_true(exists(tmp));   /* not ours to remove */
    tb_modes_close(&m);
}

/* A state path that is a second link to a file of this user's (planted in a shared sticky
 * folder where fs.protected_hardlinks is 0; here a file of the user's own holding "mode 3")
 * is no state file: `restore` refuses it and changes nothing, a night's save refuses it too;
 * both names left alone (#50). */
static void test_state_hard_link_refused(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char why[512], what[1024], other[PATH_MAX];
    free(th_write(r, "etc/kept", "pid 1\nmode 3\n"));
    snprintf(other, sizeof(other), "%s/etc/kept", r);
    assert_int_equal(link(other, getenv("TB_MODE_STATE")), 0);
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), -1);
    if (!strstr(what, "more than one link"))
        th_fail("recover of a linked state file: '%s'", what);
    assert_int_equal(status_mode(r), 2);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    if (tb_modes_save(&m, NULL, 0, why, sizeof(why)) >= 0 || !strstr(why, "more than one link"))
        th_fail("save over a linked state file: '%s'", why);
    tb_modes_close(&m);
    assert_true(exists(other));
    assert_true(exists(getenv("TB_MODE_STATE")));
}

/* A run killed after its first change: the next run (or `restore`) finds the state file,
 * puts the board back and removes it. */
static void test_recover_after_kill(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char why[512], what[1024];
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), 0);   /* nothing to do */
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    struct tb_mode_step s = { 3, "7W", 306, 0 };
    assert_int_equal(tb_modes_apply(&m, &s, &o), 0);
    tb_modes_close(&m);   /* "killed": nothing restored */
    assert_int_equal(status_mode(r), 3);
    /* a second save refuses to overwrite the first's state */
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), -EEXIST);
    tb_modes_close(&m);
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), 1);
    assert_non_null(strstr(what, "died with the board changed"));
    assert_non_null(strstr(what, "MAXN_SUPER (2)"));
    assert_int_equal(status_mode(r), 2);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    assert_false(exists(getenv("TB_MODE_STATE")));
}

/* The state file a link or a FIFO: refused, nothing followed or blocked on, left alone. */
static void test_state_link_fifo(void **state)
{
    (void)state;
    const char *r = super_root(2);
    const char *sp = getenv("TB_MODE_STATE");
    char why[512], what[1024], target[PATH_MAX];
    snprintf(target, sizeof(target), "%s/victim", r);
    free(th_write(r, "victim", "precious\n"));
    assert_int_equal(symlink(target, sp), 0);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), -ELOOP);
    assert_non_null(strstr(why, "symbolic link: refused, not followed"));
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), -1);
    assert_non_null(strstr(what, "symbolic link"));
    char *t = slurp(target);
    assert_string_equal(t, "precious\n");
    free(t);
    assert_int_equal(unlink(sp), 0);
    assert_int_equal(mkfifo(sp, 0600), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "a FIFO"));
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), -1);
    assert_non_null(strstr(what, "a FIFO"));
    assert_true(exists(sp));
    assert_int_equal(status_mode(r), 2);   /* nothing changed */
    tb_modes_close(&m);
}

/* State files that must not be restored from: one naming a mode the board's nvpmodel.conf
 * lacks, and one with no mode or clock at all (each left alone, with what to do), and the
 * state of a live run that took another lock file (restoring it would change the board
 * under that run's rows). */
static void test_recover_refuses_odd_state(void **state)
{
    (void)state;
    const char *r = super_root(2);
    const char *sp = getenv("TB_MODE_STATE");
    char what[1024], log[PATH_MAX];
    snprintf(log, sizeof(log), "%s/calls", r);
    setenv("FAKE_NVPM_LOG", log, 1);
    FILE *f = fopen(sp, "w");
    assert_non_null(f);
    fputs("pid 1\nmode 99\ngpu_max_hz 1\n", f);
    fclose(f);
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), -1);
    assert_non_null(strstr(what, "names mode 99, which the board's nvpmodel.conf lacks"));
    f = fopen(sp, "w");
    assert_non_null(f);
    fputs("\x01\x02 garbage\n", f);
    fclose(f);
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), -1);
    assert_non_null(strstr(what, "holds no mode or clock: left alone (see the board's mode with "
                                 "nvpmodel -q"));
    assert_true(exists(sp));
    if (geteuid() == 0) {   /* another user's (the nightly user's, seen by root): whose restore */
        assert_int_equal(chown(sp, 65534, 65534), 0);
        assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), -1);
        if (!strstr(what, "belongs to uid 65534") ||
            !strstr(what, "that user's `transpose-bench restore` puts its board back") ||
            strstr(what, "remove it"))
            th_fail("another user's: '%s'", what);
    }
    assert_false(exists(log));
    assert_int_equal(unlink(sp), 0);
    assert_int_equal(status_mode(r), 2);
}


/* The files in dir whose names begin with prefix, counted. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int k = 0;
    while ((e = readdir(d)))
        k += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return k;
}

/* A night leaves no hold record behind, and another user's files beside the state file (a
 * STATE.child of root's night seen by the cron user, or one planted by anyone: here
 * nobody's) neither block the sweep nor are touched: the run's hold file is a name of its
 * own (STATE.child.XXXXXX), removed with the state file once the board is as found (#50). */
static void test_hold_files_of_others(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char why[512], what[1024], planted[PATH_MAX + 16], dir[PATH_MAX];
    snprintf(planted, sizeof(planted), "%s.child", getenv("TB_MODE_STATE"));
    snprintf(dir, sizeof(dir), "%s/var/tmp", r);
    bool other = geteuid() == 0;
    if (other) {
        free(th_write(r, "var/tmp/modes.state.child", "holder 1\ngroup 1\n"));
        assert_int_equal(chown(planted, 65534, 65534), 0);
    }
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    struct tb_mode_step s = { 0, "15W", 612, 0 };
    assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    if (tb_modes_apply(&m, &s, &o) != 0)
        th_fail("a step beside another user's hold file: %s", o.why);
    assert_int_equal(status_mode(r), 0);
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    tb_modes_close(&m);
    assert_int_equal(status_mode(r), 2);
    /* nothing of the night's left; the other user's file left alone */
    assert_int_equal(count_prefixed(dir, "modes.state"), other ? 1 : 0);
    if (other) {
        struct stat st;
        assert_int_equal(lstat(planted, &st), 0);
        assert_int_equal(st.st_uid, 65534);
    }
}

/* A hold file name that is a second link to a file of this user's (planted where the dead
 * run's hold file was, or at the STATE.child of /var/tmp that an older version used:
 * `ln /etc/shadow NAME` where fs.protected_hardlinks is 0, as on kernels that lack it): the
 * restore and the command's holder refuse it, never empty or write the file it names; the
 * board is left for a restore once the name is removed (#50). */
static void test_hold_file_hard_link_refused(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char why[512], what[1024], hold[PATH_MAX], precious[PATH_MAX];
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    struct tb_mode_step s = { 0, "15W", 0, 0 };
    assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    assert_int_equal(tb_modes_apply(&m, &s, &o), 0);
    tb_strlcpy(hold, m.state.hold, sizeof(hold));
    tb_modes_close(&m);   /* "killed": the board left in 15W */
    free(th_write(r, "etc/precious", "root:secret:19000:0:99999:7:::\n"));
    snprintf(precious, sizeof(precious), "%s/etc/precious", r);
    assert_int_equal(unlink(hold), 0);
    assert_int_equal(link(precious, hold), 0);
    int k = tb_child_settle(hold, "", why, sizeof(why));
    if (k != -EPERM || !strstr(why, "more than one link"))
        th_fail("settle of a linked hold file: %d '%s'", k, why);
    char out[300];
    const char *extra[] = { "x", NULL };
    k = tb_child_run("true", extra, NULL, hold, "", out, sizeof(out));
    if (k != -EBUSY || !strstr(out, "more than one link"))
        th_fail("a command under a linked hold file: %d '%s'", k, out);
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), -1);
    char *t = slurp(precious);
    assert_non_null(t);
    assert_string_equal(t, "root:secret:19000:0:99999:7:::\n");
    free(t);
    assert_int_equal(status_mode(r), 0);   /* nothing changed through it */
    assert_true(exists(getenv("TB_MODE_STATE")));
    assert_int_equal(unlink(hold), 0);     /* the admin removes the name */
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), 1);
    assert_int_equal(status_mode(r), 2);
}

/* Root's run with a TB_MODE_STATE in another user's folder (`sudo -E` keeping a user's
 * environment): that user could turn a folder of the path into a link to /etc during the
 * night, and the end's removal of "the state file" would remove /etc's file of that name.
 * Such a folder is refused before anything is written; root's file elsewhere is never
 * removed. Likewise an XDG_STATE_HOME everyone may write, for a user (#50). */
static void test_state_folder_of_another_user(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    const char *r = super_root(2);
    char why[512], what[1024], home[PATH_MAX], sp[PATH_MAX + 32], cmd[4 * PATH_MAX];
    snprintf(home, sizeof(home), "%s/home/alice", r);
    free(th_write(home, "d/.keep", ""));
    free(th_write(r, "etc/modes.state", "root's own file of that name\n"));
    snprintf(cmd, sizeof(cmd), "chown -R 65534:65534 '%s' && chmod -R 0755 '%s'", home, home);
    assert_int_equal(system(cmd), 0);
    snprintf(sp, sizeof(sp), "%s/d/modes.state", home);
    setenv("TB_MODE_STATE", sp, 1);
    struct tb_modes m;
    int rc = tb_modes_open(&m, NULL, why, sizeof(why));
    if (rc == 0) {   /* the night, and alice's swap of d for a link to /etc under it */
        struct tb_mode_step s = { 0, "15W", 0, 0 };
        struct tb_mode_outcome o;
        if (tb_modes_save(&m, &s, 1, why, sizeof(why)) == 0) {
            tb_modes_apply(&m, &s, &o);
            snprintf(cmd, sizeof(cmd), "mv '%s/d' '%s/d.old' && ln -s '%s/etc' '%s/d'", home,
                     home, r, home);
            assert_int_equal(system(cmd), 0);
            tb_modes_restore(&m, what, sizeof(what));
        }
    }
    tb_modes_close(&m);
    char etc[PATH_MAX];
    snprintf(etc, sizeof(etc), "%s/etc/modes.state", r);
    if (!exists(etc))
        th_fail("root's %s was removed through another user's folder", etc);
    if (rc != -EPERM || !strstr(why, "state folder") || !strstr(why, "uid 65534"))
        th_fail("open with another user's state folder: %d '%s'", rc, why);
    assert_int_equal(status_mode(r), 2);   /* nothing changed */
    assert_int_equal(tb_modes_recover(NULL, what, sizeof(what)), -1);
    assert_non_null(strstr(what, "uid 65534"));
    /* a user's XDG_STATE_HOME in a folder everyone writes (not sticky) */
    unsetenv("TB_MODE_STATE");
    char xdg[PATH_MAX];
    snprintf(xdg, sizeof(xdg), "%s/shared", r);
    assert_int_equal(mkdir(xdg, 0777), 0);
    assert_int_equal(chmod(xdg, 0777), 0);
    setenv("XDG_STATE_HOME", xdg, 1);
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
            _exit(99);
        struct tb_modes u;
        char w[512] = "";
        struct tb_mode_step s = { 0, "15W", 0, 0 };
        int k = tb_modes_open(&u, NULL, w, sizeof(w));
        if (k == 0)
            k = tb_modes_save(&u, &s, 1, w, sizeof(w));
        snprintf(w + strlen(w), sizeof(w) - strlen(w), " [%d]", k);
        _exit(write(fd[1], w, strlen(w) + 1) > 0 ? 0 : 1);
    }
    close(fd[1]);
    char got[512] = "";
    assert_true(read(fd[0], got, sizeof(got)) > 0);
    close(fd[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    unsetenv("XDG_STATE_HOME");
    if (!strstr(got, "writable by others") || !strstr(got, "[-1]"))
        th_fail("a user's state under a folder everyone writes: '%s'", got);
}

/* Root's TB_MODE_STATE through a sticky folder everyone writes (/var/tmp/night/modes.state)
 * where another user put a link named "night" to a folder of root's (/etc) before the folder
 * was made: the link's target is root's and writable by no one else, yet the link is that
 * user's, who chose where root's state goes: a root file of the state's name holding a mode
 * line would be "restored" from and removed. A link on the path of another user's is
 * refused; root's file left alone (#50). */
static void test_state_path_link_of_another_user(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    const char *r = super_root(2);
    char what[1024], link_at[PATH_MAX], etc[PATH_MAX], sp[PATH_MAX + 32];
    free(th_write(r, "etc/modes.state", "# root's own file of that name\nmode 3\n"));
    snprintf(etc, sizeof(etc), "%s/etc", r);
    snprintf(link_at, sizeof(link_at), "%s/var/tmp/night", r);
    assert_int_equal(symlink(etc, link_at), 0);
    assert_int_equal(lchown(link_at, 65534, 65534), 0);
    snprintf(sp, sizeof(sp), "%s/modes.state", link_at);
    setenv("TB_MODE_STATE", sp, 1);
    int rc = tb_modes_recover(NULL, what, sizeof(what));
    snprintf(sp, sizeof(sp), "%s/modes.state", etc);
    if (!exists(sp))
        th_fail("root's %s removed through another user's link (%d): %s", sp, rc, what);
    assert_int_equal(status_mode(r), 2);
    if (rc != -1 || !strstr(what, "link") || !strstr(what, "uid 65534"))
        th_fail("recover through another user's link: %d '%s'", rc, what);
}

/* The state file's path: an absolute TB_MODE_STATE as given, a relative one refused (a
 * `restore` from another folder would look elsewhere), and without it each user's own:
 * root's in /var/lib, a user's under its home, never one name in a folder everyone writes
 * (#50). */
static void test_state_path_per_user(void **state)
{
    (void)state;
    char p[PATH_MAX], why[512];
    setenv("TB_MODE_STATE", "modes.state", 1);
    assert_int_equal(tb_modes_state_file(p, sizeof(p), why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "TB_MODE_STATE 'modes.state' is not an absolute path"));
    struct tb_modes m;
    super_root(2);
    setenv("TB_MODE_STATE", "rel/modes.state", 1);
    assert_true(tb_modes_open(&m, NULL, why, sizeof(why)) < 0);
    tb_modes_close(&m);
    assert_int_equal(tb_modes_recover(NULL, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "not an absolute path"));
    unsetenv("TB_MODE_STATE");
    unsetenv("XDG_STATE_HOME");
    if (geteuid() != 0)
        return;
    assert_int_equal(tb_modes_state_file(p, sizeof(p), why, sizeof(why)), 1);
    assert_string_equal(p, "/var/lib/transpose-bench/modes.state");
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {   /* the cron user: its own file, under its home */
        if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
            _exit(99);
        setenv("HOME", "/home/night", 1);
        char q[2 * PATH_MAX + 2] = "";
        tb_modes_state_file(q, PATH_MAX, why, sizeof(why));
        unsetenv("HOME");   /* cron without HOME: the password database's */
        size_t l = strlen(q);
        q[l++] = '|';
        tb_modes_state_file(q + l, PATH_MAX, why, sizeof(why));
        _exit(write(fd[1], q, strlen(q) + 1) > 0 ? 0 : 1);
    }
    close(fd[1]);
    char got[2 * PATH_MAX + 2] = "", want[2 * PATH_MAX + 2];
    assert_true(read(fd[0], got, sizeof(got)) > 0);
    close(fd[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    struct passwd *pw = getpwuid(65534);
    assert_non_null(pw);
    snprintf(want, sizeof(want), "/home/night/.local/state/transpose-bench/modes.state|"
             "%s/.local/state/transpose-bench/modes.state", pw->pw_dir);
    assert_string_equal(got, want);
    /* root under `sudo` keeping a user's HOME, or with a user's XDG_STATE_HOME: its own */
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", "/home/night", 1);
    setenv("XDG_STATE_HOME", "/home/night/.state", 1);
    int d = tb_modes_state_file(p, sizeof(p), why, sizeof(why));
    unsetenv("XDG_STATE_HOME");
    if (home)
        setenv("HOME", home, 1);
    else
        unsetenv("HOME");
    free(home);
    assert_int_equal(d, 1);
    assert_string_equal(p, "/var/lib/transpose-bench/modes.state");
}

/* A stranger's process group, our own child here: its number and pid. */
static pid_t stranger(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        for (;;)
            pause();
    }
    setpgid(pid, pid);
    return pid;
}

/* A stale hold record whose group number is a stranger's now (a record from before a power
 * cut; a number the kernel gave to another process since): `restore` signals nothing, says
 * what it found, and puts the board back. Once with this boot's id and another start time,
 * once with the stranger's own start time from another boot (#50). */
static void test_stale_record_spares_a_stranger(void **state)
{
    (void)state;
    for (int reboot = 0; reboot <= 1; reboot++) {
        const char *r = super_root(2);
        char why[512], hold[PATH_MAX], rec[256], stat_path[64];
        free(th_write(r, "proc/sys/kernel/random/boot_id",
                      "5a1c0a3e-9a4b-4a51-9c1e-0d7b6a0c2f11\n"));
        struct tb_modes m;
        assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
        struct tb_mode_step s = { 0, "15W", 0, 0 };
        assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
        struct tb_mode_outcome o;
        assert_int_equal(tb_modes_apply(&m, &s, &o), 0);
        tb_strlcpy(hold, m.state.hold, sizeof(hold));
        tb_modes_close(&m);   /* "killed": the board left in 15W */
        pid_t pid = stranger();
        snprintf(stat_path, sizeof(stat_path), "/proc/%ld/stat", (long)pid);
        char *t = slurp(stat_path);
        assert_non_null(t);
        unsigned long long start = 0;
        const char *c = strrchr(t, ')');
        for (int f = 2; c && *c; c++)   /* field 22: its start */
            if (*c == ' ' && ++f == 22)
                start = strtoull(c + 1, NULL, 10);
        free(t);
        assert_true(start > 0);
        snprintf(rec, sizeof(rec), "holder %ld %llu\ngroup %ld %llu\nboot %s\n", (long)pid,
                 reboot ? start : start + 1000, (long)pid, reboot ? start : start + 1000,
                 reboot ? "0d9b8b1e-1111-4c2d-8e3f-2a4b5c6d7e8f"
                        : "5a1c0a3e-9a4b-4a51-9c1e-0d7b6a0c2f11");
        FILE *f = fopen(hold, "w");
        assert_non_null(f);
        fputs(rec, f);
        fclose(f);
        setenv("TB_SETTLE_TIMEOUT_S", "1", 1);   /* a limit that would pass, were it waited */
        int rc = th_runf("restore");
        unsetenv("TB_SETTLE_TIMEOUT_S");
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        kill(pid, SIGKILL);   /* our own child */
        waitpid(pid, &st, 0);
        if (w != 0)
            th_fail("reboot %d: the stranger was signalled: %s", reboot, th_err());
        const char *said = reboot ? "of another boot" : "not proven ours, left alone, nothing "
                                                         "signalled";
        if (rc != 0 || !strstr(th_err(), said) || !strstr(th_err(), "restored"))
            th_fail("reboot %d: restore exit %d: %s", reboot, rc, th_err());
        assert_int_equal(status_mode(r), 2);
        assert_false(exists(hold));
    }
}

/* The stranger's own pid and start tick (as one of an earlier boot could have, where the
 * same early-boot order gives the same numbers) in a record of another boot, while the
 * boot id of this boot cannot be read where the run looks (a root without the file): the
 * record cannot be proven ours, so nothing is signalled, whether the run reads the kernel's
 * boot id in its place (`restore`) or knows none at all (tb_child_settle with none) (#50). */
static void test_unknown_boot_spares_a_stranger(void **state)
{
    (void)state;
    for (int direct = 0; direct <= 1; direct++) {
        super_root(2);
        char why[512], hold[PATH_MAX], rec[256], stat_path[64];
        struct tb_modes m;
        assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
        struct tb_mode_step s = { 0, "15W", 0, 0 };
        assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
        struct tb_mode_outcome o;
        assert_int_equal(tb_modes_apply(&m, &s, &o), 0);
        tb_strlcpy(hold, m.state.hold, sizeof(hold));
        tb_modes_close(&m);
        pid_t pid = stranger();
        snprintf(stat_path, sizeof(stat_path), "/proc/%ld/stat", (long)pid);
        char *t = slurp(stat_path);
        assert_non_null(t);
        unsigned long long start = 0;
        const char *c = strrchr(t, ')');
        for (int f = 2; c && *c; c++)
            if (*c == ' ' && ++f == 22)
                start = strtoull(c + 1, NULL, 10);
        free(t);
        snprintf(rec, sizeof(rec), "holder %ld %llu\ngroup %ld %llu\nboot "
                 "0d9b8b1e-1111-4c2d-8e3f-2a4b5c6d7e8f\n", (long)pid, start, (long)pid, start);
        FILE *f = fopen(hold, "w");
        assert_non_null(f);
        fputs(rec, f);
        fclose(f);
        setenv("TB_SETTLE_TIMEOUT_S", "1", 1);
        int rc = direct ? tb_child_settle(hold, "", why, sizeof(why)) : th_runf("restore");
        unsetenv("TB_SETTLE_TIMEOUT_S");
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        kill(pid, SIGKILL);   /* our own child */
        waitpid(pid, &st, 0);
        const char *said = direct ? why : th_err();
        if (w != 0)
            th_fail("direct %d: the stranger was signalled (%d): %s", direct, rc, said);
        if (rc != (direct ? 3 : 0) || !strstr(said, "nothing signalled"))
            th_fail("direct %d: %d: %s", direct, rc, said);
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    tb_clock_fake(0);   /* settling after a switch sleeps virtual time */
    th_own_lock("modes");   /* per process, removed at its exit */
    const struct CMUnitTest tests[] = {
        TH_TEST(test_leftover_temporary_replaced),
        TH_TEST(test_recover_after_kill),
        TH_TEST(test_state_hard_link_refused),
        TH_TEST(test_state_link_fifo),
        TH_TEST(test_recover_refuses_odd_state),
        TH_TEST(test_hold_files_of_others),
        TH_TEST(test_hold_file_hard_link_refused),
        TH_TEST(test_state_folder_of_another_user),
        TH_TEST(test_state_path_link_of_another_user),
        TH_TEST(test_state_path_per_user),
        TH_TEST(test_stale_record_spares_a_stranger),
        TH_TEST(test_unknown_boot_spares_a_stranger),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
