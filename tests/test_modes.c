/* test_modes.c: the power-mode sweep's switcher (src/jetson/modes_switch.c, modes_state.c,
 * modes_restore.c) on fake roots of real boards' releases (modes_boards.h), through
 * tests/fake-nvpmodel.sh: switches that hold, are refused, ask for a reboot or report
 * success while the clocks never follow (an uncapped mode's included); caps, by the cap
 * writer and sudo's tee; the state file written before the first change, restored at the
 * end and after a run that died, and refused when it is a link or a FIFO. Tables and plans:
 * test_modes_plan.c. */
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

/* ---- tables ------------------------------------------------------------------------ */

/* ---- switching ---------------------------------------------------------------------- */

static void test_switch_verify_restore(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char log[PATH_MAX], why[512], what[1024];
    snprintf(log, sizeof(log), "%s/calls", r);
    setenv("FAKE_NVPM_LOG", log, 1);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), 0);
    /* the state file holds the board as found, before any change */
    struct tb_mode_state st;
    char *text = slurp(getenv("TB_MODE_STATE"));
    assert_non_null(text);
    assert_int_equal(tb_modes_state_parse(text, &st), 0);
    free(text);
    assert_int_equal(st.mode_id, 2);
    th_assert_close(st.gpu_max_hz, 1020e6, 0);
    assert_int_equal(st.pid, (long)getpid());
    struct tb_mode_outcome o;
    struct tb_mode_step s15 = { 0, "15W", 0, 0 }, s7 = { 3, "7W", 0, 0 };
    assert_int_equal(tb_modes_apply(&m, &s15, &o), 0);
    assert_int_equal(o.result, TB_MODE_OK);
    th_assert_close(o.gpu_max_mhz, 612, 1e-9);
    th_assert_close(o.emc_cap_mhz, 2133, 1e-9);
    /* a GPU cap under the mode's: max_freq written and read back */
    struct tb_mode_step s7cap = { 3, "7W", 306, 0 };
    assert_int_equal(tb_modes_apply(&m, &s7cap, &o), 0);
    th_assert_close(o.gpu_max_mhz, 306, 1e-9);
    assert_int_equal(status_mode(r), 3);
    assert_int_equal(tb_modes_apply(&m, &s7, &o), 0);
    th_assert_close(o.gpu_max_mhz, 408, 1e-9);
    /* restored: mode, GPU max and EMC cap as found; the state file gone */
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    assert_non_null(strstr(what, "mode MAXN_SUPER (2)"));
    assert_int_equal(status_mode(r), 2);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    th_assert_close(read_mhz(r, EMC_TOP), 3199, 0);
    assert_false(exists(getenv("TB_MODE_STATE")));
    text = slurp(log);
    assert_string_equal(text, "-m 0\n-m 3\n-m 3\n-m 2\n");
    free(text);
    tb_modes_close(&m);
}

/* The Nano's 5W (R32) caps the GPU at 640 MHz, which devfreq keeps as its next clock, and
 * the EMC at 1600 MHz; an EMC cap asked on top reads back (as root: the file is root's). */
static void test_nano_emc_cap(void **state)
{
    (void)state;
    const char *gpu = "/sys/devices/gpu.0/devfreq/57000000.gpu";
    const char *r = release_root(R32_NANO, 0);
    char why[512], what[1024], p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/max_freq", gpu);
    th_assert_close(read_mhz(r, p), 921.6, 1e-9);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    struct tb_mode_step s = { 1, "5W", 0, 1200 };
    assert_int_equal(tb_modes_apply(&m, &s, &o), 0);
    th_assert_close(o.gpu_max_mhz, 691.2, 1e-9);
    th_assert_close(o.emc_cap_mhz, 1200, 1e-9);
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    assert_int_equal(status_mode(r), 0);
    th_assert_close(read_mhz(r, p), 921.6, 1e-9);
    th_assert_close(read_mhz(r, EMC_CAP), 0, 0);
    tb_modes_close(&m);
}

/* Each fault: its class and reason, and the board restored after it. */
static void test_faults(void **state)
{
    (void)state;
    struct { const char *fault; int id; enum tb_mode_result want; const char *why; } cases[] = {
        { "refuse:1", 1, TB_MODE_REFUSED, "Permission denied" },
        { "reboot:1", 1, TB_MODE_REBOOT, "needs a reboot" },
        { "ignore:3", 3, TB_MODE_NOT_FOLLOWED, "status names mode 2, not 3" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *r = super_root(2);
        char why[512], what[1024];
        setenv("FAKE_NVPM_FAULT", cases[i].fault, 1);
        struct tb_modes m;
        assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
        assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), 0);
        struct tb_mode_outcome o;
        struct tb_mode_step s = { cases[i].id, "x", 0, 0 };
        assert_int_equal(tb_modes_apply(&m, &s, &o), -1);
        assert_int_equal(o.result, cases[i].want);
        if (!strstr(o.why, cases[i].why))
            th_fail("%s: '%s' lacks '%s'", cases[i].fault, o.why, cases[i].why);
        assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
        assert_int_equal(status_mode(r), 2);
        tb_modes_close(&m);
    }
    /* a cap the user may not write: refused with the command's words, the board restored */
    const char *r = super_root(2);
    char why[512], what[1024];
    char *writer = realpath("tests/fake-cap-writer.sh", NULL);
    assert_non_null(writer);
    setenv("TB_CAP_WRITER", writer, 1);
    free(writer);
    setenv("FAKE_CAP_FAULT", "refuse", 1);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    struct tb_mode_step s = { 0, "15W", 306, 0 };
    assert_int_equal(tb_modes_apply(&m, &s, &o), -1);
    assert_int_equal(o.result, TB_MODE_CAP_REFUSED);
    if (!strstr(o.why, "GPU cap 306 MHz") || !strstr(o.why, "a password is required") ||
        !strstr(o.why, "doc/power.md"))
        th_fail("refused cap: '%s'", o.why);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 612, 1e-9);   /* the mode's, unchanged */
    unsetenv("FAKE_CAP_FAULT");
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    assert_int_equal(status_mode(r), 2);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    tb_modes_close(&m);
}

/* Caps through the cap writer ($TB_CAP_WRITER: what `sudo -n /usr/bin/tee PATH` does for a
 * user with the sudoers line): each cap written by one call naming the exact file, the value
 * on stdin, and restored by the same route. */
static void test_caps_through_writer(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char why[512], what[1024], log[PATH_MAX], want[2 * PATH_MAX];
    snprintf(log, sizeof(log), "%s/cap-calls", r);
    setenv("FAKE_CAP_LOG", log, 1);
    char *writer = realpath("tests/fake-cap-writer.sh", NULL);
    assert_non_null(writer);
    setenv("TB_CAP_WRITER", writer, 1);
    free(writer);
    struct tb_modes m;
    struct tb_mode_step s = { 1, "25W", 612, 2133 };
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    assert_int_equal(tb_modes_apply(&m, &s, &o), 0);
    th_assert_close(o.gpu_max_mhz, 612, 1e-9);
    th_assert_close(o.emc_cap_mhz, 2133, 1e-9);
    /* the mode switched back puts its own caps back: no cap is written twice */
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    th_assert_close(read_mhz(r, EMC_TOP), 3199, 0);
    snprintf(want, sizeof(want), "%s%s/max_freq 612000000\n%s%s 2133000000\n", r, SUPER_GPU,
             r, EMC_TOP);
    char *text = slurp(log);
    assert_non_null(text);
    assert_string_equal(text, want);
    free(text);
    /* caps alone: written back by the writer, as they were written */
    assert_int_equal(unlink(log), 0);
    struct tb_mode_step c = { -1, "", 612, 2133 };
    assert_int_equal(tb_modes_save(&m, &c, 1, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_apply(&m, &c, &o), 0);
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    th_assert_close(read_mhz(r, EMC_TOP), 3199, 0);
    snprintf(want, sizeof(want), "%s%s/max_freq 612000000\n%s%s 2133000000\n"
             "%s%s/max_freq 1020000000\n%s%s 3199000000\n", r, SUPER_GPU, r, EMC_TOP, r,
             SUPER_GPU, r, EMC_TOP);
    text = slurp(log);
    assert_non_null(text);
    assert_string_equal(text, want);
    free(text);
    tb_modes_close(&m);
}

/* A user who may not write the cap file, with no $TB_CAP_WRITER: the cap goes through
 * `sudo -n /usr/bin/tee PATH` (a fake sudo first on PATH here, refusing as sudo does without
 * the sudoers line). As root the test drops to nobody in a child to be that user. */
static void test_cap_falls_back_to_sudo_tee(void **state)
{
    (void)state;
    const char *runner = getenv("TB_RUNNER");
    if (runner && *runner)
        skip();   /* cross-test: qemu-user aborts in a forked child that spawns (the native
                   * suites, plain, SAN, valgrind and CUDA=0, run it) */
    const char *r = super_root(2);
    char why[512], bin[PATH_MAX], log[PATH_MAX], path[PATH_MAX + 64];
    snprintf(bin, sizeof(bin), "%s/bin", r);
    snprintf(log, sizeof(log), "%s/sudo-calls", r);
    free(th_write(r, "bin/sudo", "#!/bin/sh\nv=$(cat)\necho \"$* <- $v\" >> \"$SUDO_LOG\"\n"
                  "echo 'sudo: a password is required'\nexit 1\n"));
    snprintf(path, sizeof(path), "%s/sudo", bin);
    assert_int_equal(chmod(path, 0755), 0);
    char *cmd = calloc(1, 4 * PATH_MAX);
    assert_non_null(cmd);
    snprintf(cmd, 4 * PATH_MAX, "chmod -R a+rX '%s' && touch '%s' && chmod 666 '%s'", r, log, log);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    snprintf(path, sizeof(path), "%s%s/max_freq", r, SUPER_GPU);
    assert_int_equal(chmod(path, 0444), 0);   /* not nobody's, nor a user's, to write */
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
            _exit(3);
        char p[PATH_MAX + 16];
        snprintf(p, sizeof(p), "%s:/usr/bin:/bin", bin);
        setenv("PATH", p, 1);
        setenv("SUDO_LOG", log, 1);
        struct tb_mode_outcome o;
        struct tb_mode_step s = { -1, "as found", 306, 0 };   /* a cap alone, no switch */
        int rc = tb_modes_apply(&m, &s, &o);
        _exit(rc == -1 && o.result == TB_MODE_CAP_REFUSED &&
              strstr(o.why, "sudo -n /usr/bin/tee") && strstr(o.why, "password is required")
              ? 0 : (fprintf(stderr, "cap step: rc %d, '%s'\n", rc, o.why), 4));
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char *text = slurp(log), want[2 * PATH_MAX + 64];
    assert_non_null(text);
    snprintf(want, sizeof(want), "-n /usr/bin/tee %s <- 306000000\n", path);
    assert_string_equal(text, want);
    free(text);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    chmod(path, 0644);
    tb_modes_close(&m);
}

/* Whether a process is gone: no /proc entry, or a zombie (dead, not yet reaped by whoever
 * adopted it). */
static bool process_gone(long pid)
{
    char p[64];
    snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
    char *t = slurp(p);
    if (!t)
        return true;
    const char *c = strrchr(t, ')');
    bool zombie = c && c[1] == ' ' && c[2] == 'Z';
    free(t);
    return zombie;
}

/* An nvpmodel that never returns: killed at the deadline with what it started (its own
 * process group), the step refused saying so, and the board restored after. */
static void test_hung_nvpmodel_killed(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char why[512], what[1024], child[PATH_MAX];
    snprintf(child, sizeof(child), "%s/child.pid", r);
    setenv("FAKE_NVPM_CHILD", child, 1);
    setenv("FAKE_NVPM_FAULT", "hang:0", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "1", 1);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    struct tb_mode_step s = { 0, "15W", 0, 0 };
    assert_int_equal(tb_modes_apply(&m, &s, &o), -1);
    assert_int_equal(o.result, TB_MODE_REFUSED);
    if (!strstr(o.why, "-m 0' did not finish in 1 s: killed"))
        th_fail("hung nvpmodel: '%s'", o.why);
    char *text = slurp(child);
    assert_non_null(text);
    long pid = atol(text);
    free(text);
    assert_true(pid > 1);
    bool gone = false;   /* SIGKILL is delivered at once; the wait is for a loaded machine */
    for (int i = 0; i < 100 && !(gone = process_gone(pid)); i++)
        nanosleep(&(struct timespec){ 0, 100 * 1000000L }, NULL);
    if (!gone)
        th_fail("nvpmodel's child %ld outlived it", pid);
    unsetenv("FAKE_NVPM_FAULT");
    unsetenv("TB_DRIVER_TIMEOUT_S");
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    assert_int_equal(status_mode(r), 2);
    tb_modes_close(&m);
}

/* A switch into an uncapped mode (MAXN_SUPER: GPU MAX_FREQ -1) whose clocks stay at the last
 * mode's is caught: max_freq must read the top of the GPU's table, or the rows labelled
 * MAXN_SUPER would be measured at 15W's 612 MHz. The board is put back after. */
static void test_uncapped_mode_checked(void **state)
{
    (void)state;
    const char *r = super_root(0);
    char why[512], what[1024];
    setenv("FAKE_NVPM_FAULT", "status:2", 1);   /* the status file follows, the clocks not */
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    struct tb_mode_step s = { 2, "MAXN_SUPER", 0, 0 };
    assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    assert_int_equal(tb_modes_apply(&m, &s, &o), -1);
    assert_int_equal(o.result, TB_MODE_NOT_FOLLOWED);
    if (!strstr(o.why, "GPU max_freq reads 612 MHz, not 1020 (the top of its table: the mode "
                       "is uncapped)"))
        th_fail("uncapped: '%s'", o.why);
    unsetenv("FAKE_NVPM_FAULT");
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    assert_int_equal(status_mode(r), 0);
    assert_false(exists(getenv("TB_MODE_STATE")));
    tb_modes_close(&m);
}

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

/* A mode nobody can read (no status file, or one nvpmodel did not write): a sweep that
 * switches modes is refused before any change, since "restoring" would switch to nothing
 * and leave the board in the sweep's last mode; a sweep of caps alone may go on. */
static void test_unreadable_mode_refused(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char why[512], p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/var/lib/nvpmodel/status", r);
    assert_int_equal(unlink(p), 0);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    struct tb_mode_step s15 = { 0, "15W", 0, 0 }, cap = { -1, "", 612, 0 };
    assert_int_equal(tb_modes_save(&m, &s15, 1, why, sizeof(why)), -EIO);
    if (!strstr(why, "cannot read the board's power mode") || !strstr(why, "put back"))
        th_fail("'%s'", why);
    assert_false(exists(getenv("TB_MODE_STATE")));
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), -EIO);
    assert_int_equal(tb_modes_save(&m, &cap, 1, why, sizeof(why)), 0);
    tb_modes_close(&m);
}

/* A sweep of caps alone, for a user whose sudoers line names the cap files only: the caps go
 * back without nvpmodel (which is never run, and would be refused), at the end and after a
 * kill; the restore line names what came back, no "nan" for a clock never read. */
static void test_caps_alone_restored_without_nvpmodel(void **state)
{
    (void)state;
    for (int killed = 0; killed < 2; killed++) {
        const char *r = super_root(2);
        char why[512], what[1024], log[PATH_MAX], p[PATH_MAX];
        snprintf(log, sizeof(log), "%s/calls", r);
        setenv("FAKE_NVPM_LOG", log, 1);
        setenv("FAKE_NVPM_FAULT", "refuse:0 refuse:1 refuse:2 refuse:3", 1);
        snprintf(p, sizeof(p), "%s%s", r, EMC_TOP);
        assert_int_equal(unlink(p), 0);   /* no EMC cap here: nothing of it to restore */
        struct tb_modes m;
        assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
        struct tb_mode_step s = { -1, "", 612, 0 };
        assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
        struct tb_mode_outcome o;
        assert_int_equal(tb_modes_apply(&m, &s, &o), 0);
        th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 612, 0);
        int rc;
        if (killed) {
            tb_modes_close(&m);
            rc = tb_modes_recover(NULL, what, sizeof(what));
            assert_int_equal(rc, 1);
        } else {
            rc = tb_modes_restore(&m, what, sizeof(what));
            assert_int_equal(rc, 0);
            tb_modes_close(&m);
        }
        if (!strstr(what, "GPU max 1020 MHz restored (a sweep of caps alone") || strstr(what, "nan"))
            th_fail("killed %d: '%s'", killed, what);
        th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
        assert_false(exists(getenv("TB_MODE_STATE")));
        assert_false(exists(log));   /* nvpmodel never ran */
        unsetenv("FAKE_NVPM_LOG");
    }
}

/* A cap above the mode's own would lift the mode's clock, not cap it: the step is skipped
 * before anything runs or is written (the mode found, for a step of caps alone). */
static void test_cap_above_the_modes_own(void **state)
{
    (void)state;
    const char *r = super_root(0);   /* 15W: GPU 612, EMC 2133 */
    char why[512], what[1024], log[PATH_MAX];
    snprintf(log, sizeof(log), "%s/calls", r);
    setenv("FAKE_NVPM_LOG", log, 1);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    struct tb_mode_step s[] = { { 3, "7W", 612, 0 }, { -1, "", 918, 0 }, { 0, "15W", 0, 3199 } };
    const char *want[] = { "GPU cap 612 MHz is above mode 7W (3)'s own 408 MHz",
                           "GPU cap 918 MHz is above mode 15W (0)'s own 612 MHz",
                           "EMC cap 3199 MHz is above mode 15W (0)'s own 2133 MHz" };
    assert_int_equal(tb_modes_save(&m, s, 3, why, sizeof(why)), 0);
    for (int i = 0; i < 3; i++) {
        struct tb_mode_outcome o;
        assert_int_equal(tb_modes_apply(&m, &s[i], &o), -1);
        assert_int_equal(o.result, TB_MODE_CAP_REFUSED);
        if (!strstr(o.why, want[i]) || !strstr(o.why, "lift"))
            th_fail("step %d: '%s'", i, o.why);
    }
    assert_false(exists(log));   /* no switch, no cap written */
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 612, 0);
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    assert_non_null(strstr(what, "nothing changed"));
    tb_modes_close(&m);
}

/* A mode that needs a reboot: nvpmodel may have recorded it for the next boot, so the saved
 * mode is set again at once (a power cut before the end must not boot into it). */
static void test_reboot_mode_undone_at_once(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char why[512], what[1024], log[PATH_MAX];
    snprintf(log, sizeof(log), "%s/calls", r);
    setenv("FAKE_NVPM_LOG", log, 1);
    setenv("FAKE_NVPM_FAULT", "reboot:1", 1);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    struct tb_mode_step s = { 1, "25W", 0, 0 };
    assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    assert_int_equal(tb_modes_apply(&m, &s, &o), -1);
    assert_int_equal(o.result, TB_MODE_REBOOT);
    assert_non_null(strstr(o.why, "mode 2 set again at once"));
    char *text = slurp(log);
    assert_string_equal(text, "-m 1\n-m 2\n");   /* before the next step or the end */
    free(text);
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
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
        setenv("TB_DRIVER_TIMEOUT_S", "1", 1);   /* a limit that would pass, were it waited */
        int rc = th_runf("restore");
        unsetenv("TB_DRIVER_TIMEOUT_S");
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
        setenv("TB_DRIVER_TIMEOUT_S", "1", 1);
        int rc = direct ? tb_child_settle(hold, "", why, sizeof(why)) : th_runf("restore");
        unsetenv("TB_DRIVER_TIMEOUT_S");
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

/* A cap one devfreq step below the clock found (the Xavier NX's 1058.25 MHz under 1109.25:
 * within 5%) is put back to the very clock found, and the restore says "restored", never
 * "as found"; after a run that died too (#50). */
static void test_restore_exact_clock(void **state)
{
    (void)state;
    for (int killed = 0; killed < 2; killed++) {
        const char *r = release_root(R35_XAVIER_NX, 0);
        char why[512], what[1024], gpu[PATH_MAX];
        snprintf(gpu, sizeof(gpu), "%s/max_freq", layouts[R35_XAVIER_NX].gpu_dir);
        th_assert_close(read_mhz(r, gpu), 1109.25, 0.001);
        struct tb_modes m;
        assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
        struct tb_mode_step s = { -1, "", 1058.25, 0 };
        assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
        struct tb_mode_outcome o;
        if (tb_modes_apply(&m, &s, &o) != 0)
            th_fail("cap 1058.25: %s", o.why);
        th_assert_close(read_mhz(r, gpu), 1058.25, 0.001);
        int rc;
        if (killed) {
            tb_modes_close(&m);
            rc = tb_modes_recover(NULL, what, sizeof(what)) == 1 ? 0 : -1;
        } else {
            rc = tb_modes_restore(&m, what, sizeof(what));
            tb_modes_close(&m);
        }
        if (rc != 0 || !strstr(what, "GPU max 1109 MHz") || !strstr(what, " restored (") ||
            strstr(what, "as found"))
            th_fail("killed %d: '%s'", killed, what);
        th_assert_close(read_mhz(r, gpu), 1109.25, 0.001);
        assert_false(exists(getenv("TB_MODE_STATE")));
    }
}

/* A cap file that reads but holds no clock ("banana") after the cap was written: the step is
 * a failed check (cap refused, saying what the file holds), never measured as "unverified";
 * the board put back once the file reads again (#50). */
static void test_banana_cap_is_a_failed_check(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char why[512], what[1024];
    char *writer = realpath("tests/fake-cap-writer.sh", NULL);
    assert_non_null(writer);
    setenv("TB_CAP_WRITER", writer, 1);
    free(writer);
    setenv("FAKE_CAP_FAULT", "banana", 1);
    struct tb_modes m;
    struct tb_mode_step s = { -1, "", 612, 0 };
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    if (tb_modes_apply(&m, &s, &o) != -1 || o.result != TB_MODE_CAP_REFUSED ||
        !strstr(o.why, "max_freq' holds 'banana', not a clock in Hz") ||
        strstr(o.read, "unverified"))
        th_fail("banana: result %d: '%s' read '%s'", (int)o.result, o.why, o.read);
    unsetenv("FAKE_CAP_FAULT");
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    tb_modes_close(&m);
    unsetenv("TB_CAP_WRITER");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    tb_clock_fake(0);   /* settling after a switch sleeps virtual time */
    char lock[64];
    snprintf(lock, sizeof(lock), "/tmp/tb-test-modes-lock-%ld", (long)getpid());
    setenv("TB_LOCK_FILE", lock, 1);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_caps_through_writer),
        TH_TEST(test_cap_falls_back_to_sudo_tee),
        TH_TEST(test_switch_verify_restore),
        TH_TEST(test_nano_emc_cap),
        TH_TEST(test_faults),
        TH_TEST(test_hung_nvpmodel_killed),
        TH_TEST(test_uncapped_mode_checked),
        TH_TEST(test_leftover_temporary_replaced),
        TH_TEST(test_recover_after_kill),
        TH_TEST(test_state_hard_link_refused),
        TH_TEST(test_state_link_fifo),
        TH_TEST(test_unreadable_mode_refused),
        TH_TEST(test_caps_alone_restored_without_nvpmodel),
        TH_TEST(test_cap_above_the_modes_own),
        TH_TEST(test_reboot_mode_undone_at_once),
        TH_TEST(test_recover_refuses_odd_state),
        TH_TEST(test_hold_files_of_others),
        TH_TEST(test_hold_file_hard_link_refused),
        TH_TEST(test_state_folder_of_another_user),
        TH_TEST(test_state_path_link_of_another_user),
        TH_TEST(test_state_path_per_user),
        TH_TEST(test_stale_record_spares_a_stranger),
        TH_TEST(test_unknown_boot_spares_a_stranger),
        TH_TEST(test_restore_exact_clock),
        TH_TEST(test_banana_cap_is_a_failed_check),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(lock);
    return rc;
}
