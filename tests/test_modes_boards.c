/* test_modes_boards.c: a night's mode sweep on fake roots of three L4T releases laid out and
 * permissioned as L4T lays them out (modes_boards.h: a Nano on R32, a Xavier NX on R35, an
 * Orin Nano Super on R36), run as the normal user doc/power.md sets up (nobody here, its
 * sudo a stand-in that asks this test, running as root, to run what the documented sudoers
 * lines allow: the nvpmodel line only, or nvpmodel and the tee lines) and as root: every mode
 * measured, each step's ceiling from what the board says, the board and the state file as
 * found at the end; SIGKILL at each step of a switch and of a restore; an nvpmodel that
 * leaves a child behind; a dead run's temporary in the state folder. Needs root (to be
 * nobody and to own the 0660 files); skipped otherwise. */
#include "helpers.h"
#include "modes_boards.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "jetson/modes.h"
#include "lib/util.h"

/* ---- sudo for nobody: a broker thread of this (root) test -------------------------- */

struct broker {
    char root[PATH_MAX], dir[PATH_MAX], nvpm[PATH_MAX];
    enum release rel;
    bool tee;                 /* the sudoers set-up has the tee lines too */
    char hold_hz[32];         /* FAKE_EMC_HOLD_HZ for the nvpmodel it runs; "" none */
    pthread_t thread;
    int fd;
};

/* Runs argv as root with input on stdin; its output into out, its status returned. */
static int broker_exec(struct broker *b, char *const argv[], const char *input, char *out,
                       size_t n)
{
    int in[2], o[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(o), 0);
    char env_root[PATH_MAX + 16], env_hold[64];
    snprintf(env_root, sizeof(env_root), "TB_ROOT=%s", b->root);
    snprintf(env_hold, sizeof(env_hold), "FAKE_EMC_HOLD_HZ=%s", b->hold_hz);
    char *envp[] = { env_root, "PATH=/usr/bin:/bin", b->hold_hz[0] ? env_hold : NULL, NULL };
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(o[1], 1);
        dup2(o[1], 2);
        close(in[1]);
        close(o[0]);
        execve(argv[0], argv, envp);
        _exit(127);
    }
    close(in[0]);
    close(o[1]);
    if (write(in[1], input, strlen(input)) < 0)
        (void)0;
    close(in[1]);
    ssize_t k, len = 0;
    while ((k = read(o[0], out + len, n - 1 - (size_t)len)) > 0)
        len += k;
    out[len] = '\0';
    close(o[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* One request of the fake sudo: "RESP\tINPUT\tARGS"; answered "OUTPUT\nrc=N" on RESP. */
static void broker_serve(struct broker *b, char *line)
{
    char *resp = strtok(line, "\t"), *input = strtok(NULL, "\t"), *args = strtok(NULL, "\n");
    if (!resp || !input || !args)
        return;
    char *argv[8] = { 0 }, words[PATH_MAX * 2], out[1024] = "", log[PATH_MAX + 16];
    tb_strlcpy(words, args, sizeof(words));
    int argc = 0;
    for (char *s = strtok(words, " "); s && argc < 7; s = strtok(NULL, " "))
        argv[argc++] = s;
    const struct layout *l = &layouts[b->rel];
    char gpu[2 * PATH_MAX], emc[2 * PATH_MAX];
    snprintf(gpu, sizeof(gpu), "%s%s/max_freq", b->root, l->gpu_dir);
    snprintf(emc, sizeof(emc), "%s%s", b->root, l->emc);
    int rc = 1;
    bool ok = false;
    if (argc == 3 && !strcmp(argv[0], "/usr/sbin/nvpmodel") && !strcmp(argv[1], "-m")) {
        char *run[] = { "/bin/sh", b->nvpm, "-m", argv[2], NULL };
        rc = broker_exec(b, run, "", out, sizeof(out));
        ok = true;
    } else if (argc == 2 && !strcmp(argv[0], "/usr/bin/tee") && b->tee &&
               (!strcmp(argv[1], gpu) || !strcmp(argv[1], emc))) {
        char *run[] = { "/usr/bin/tee", argv[1], NULL };
        char value[64];
        snprintf(value, sizeof(value), "%s\n", input);
        rc = broker_exec(b, run, value, out, sizeof(out));
        ok = true;
    } else {
        snprintf(out, sizeof(out), "sudo: a password is required\n");
    }
    snprintf(log, sizeof(log), "%s/sudo.log", b->dir);
    FILE *f = fopen(log, "a");
    if (f) {
        fprintf(f, "%s %s\n", ok ? "ran" : "refused", args + (strstr(args, b->root) ? 0 : 0));
        fclose(f);
    }
    int fd = open(resp, O_WRONLY);
    if (fd >= 0) {
        dprintf(fd, "%src=%d", out, rc);
        close(fd);
    }
}

static void *broker_main(void *arg)
{
    struct broker *b = arg;
    FILE *f = fdopen(b->fd, "r");
    char line[3 * PATH_MAX];
    while (f && fgets(line, sizeof(line), f) && strcmp(line, "QUIT\n"))
        broker_serve(b, line);
    if (f)
        fclose(f);
    return NULL;
}

/* The broker for root r (release rel), its sudo in r/bin. */
static void broker_start(struct broker *b, const char *r, enum release rel, bool tee)
{
    memset(b, 0, sizeof(*b));
    tb_strlcpy(b->root, r, sizeof(b->root));
    snprintf(b->dir, sizeof(b->dir), "%s/var/tmp/sudo", r);
    b->rel = rel;
    b->tee = tee;
    char *fake = realpath("tests/fake-nvpmodel.sh", NULL), p[PATH_MAX + 16], script[3 * PATH_MAX];
    assert_non_null(fake);
    tb_strlcpy(b->nvpm, fake, sizeof(b->nvpm));
    free(fake);
    const char *hold = getenv("FAKE_EMC_HOLD_HZ");
    tb_strlcpy(b->hold_hz, hold ? hold : "", sizeof(b->hold_hz));
    assert_int_equal(mkdir(b->dir, 01777), 0);
    assert_int_equal(chmod(b->dir, 01777), 0);
    snprintf(p, sizeof(p), "%s/req", b->dir);
    assert_int_equal(mkfifo(p, 0622), 0);
    assert_int_equal(chmod(p, 0622), 0);
    b->fd = open(p, O_RDWR | O_CLOEXEC);
    assert_true(b->fd >= 0);
    snprintf(script, sizeof(script),
             "#!/bin/sh\n# sudo for the test's nobody: the test, root, runs what the sudoers "
             "set-up allows\n[ \"$1\" = -n ] && shift\nv=$(cat)\nresp=%s/resp.$$\n"
             "mkfifo -m 600 \"$resp\" || exit 1\nprintf '%%s\\t%%s\\t%%s\\n' \"$resp\" "
             "\"${v:--}\" \"$*\" > %s/req\nout=$(cat \"$resp\")\nrm -f \"$resp\"\n"
             "rc=${out##*rc=}\nprintf '%%s' \"${out%%rc=*}\"\nexit \"$rc\"\n", b->dir, b->dir);
    free(th_write(r, "bin/sudo", script));
    snprintf(p, sizeof(p), "%s/bin/sudo", r);
    assert_int_equal(chmod(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/bin", r);
    assert_int_equal(chmod(p, 0755), 0);
    assert_int_equal(pthread_create(&b->thread, NULL, broker_main, b), 0);
}

static void broker_stop(struct broker *b)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof(p), "%s/req", b->dir);
    int fd = open(p, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "QUIT\n", 5), 5);
    close(fd);
    pthread_join(b->thread, NULL);
}

/* ---- a night ------------------------------------------------------------------------- */

/* What nobody runs, carried where nobody can reach it: the binary, boards/ and conf/ copied
 * into r/tb (r is a+rX, as modes_boards.h leaves it), so that a checkout under a private
 * folder (mode 0700, as `mktemp -d` or /root make it) runs these nights too (#50). The
 * folder it runs in; NULL (the test skipped, saying why) when nobody cannot reach even r. */
static char nobody_runner[PATH_MAX];   /* "" or cross-test's "qemu-aarch64 " */

static const char *carry_for_nobody(const char *r)
{
    static char dir[PATH_MAX];
    char cmd[8 * PATH_MAX], path[PATH_MAX];
    th_bin_split(nobody_runner, sizeof(nobody_runner), path, sizeof(path));
    snprintf(dir, sizeof(dir), "%s/tb", r);
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s/transpose-bench' && cp -R boards "
             "conf '%s/' && chmod -R a+rX '%s'", dir, path, dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    return dir;
}

/* The tool run as nobody (uid 65534) with args, its sudo first on PATH, TB_NVPMODEL unset:
 * `sudo -n /usr/sbin/nvpmodel` as doc/power.md sets it up; from its carried copy (in that
 * folder, whose boards/ the -b names find). Its exit; stderr into err. */
static int run_as_nobody(const char *r, const char *args, char **err)
{
    char cmd[6 * PATH_MAX], e[PATH_MAX + 16];
    const char *dir = carry_for_nobody(r);
    snprintf(e, sizeof(e), "%s/var/tmp/err", r);
    snprintf(cmd, sizeof(cmd), "%s%s/transpose-bench %s >/dev/null 2>%s </dev/null",
             nobody_runner, dir, args, e);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char path[PATH_MAX + 32], lock[PATH_MAX];
        if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
            _exit(99);
        if (chdir(dir) < 0)
            _exit(98);   /* a private folder above the scratch (TMPDIR): said below */
        snprintf(path, sizeof(path), "%s/bin:/usr/bin:/bin", r);
        snprintf(lock, sizeof(lock), "%s/var/tmp/lock", r);
        setenv("PATH", path, 1);
        setenv("TB_LOCK_FILE", lock, 1);
        unsetenv("TB_NVPMODEL");
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 98) {
        fprintf(stderr, "skipped: nobody cannot reach '%s' (a private folder above the "
                "scratch folder: set TMPDIR to one everyone may enter)\n", dir);
        skip();
    }
    *err = th_keep(mb_slurp(e));
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The board's three readings as a line: "mode N, GPU X, EMC Y" (EMC as the file reads). */
static void board_now(const char *r, enum release rel, char *buf, size_t n)
{
    char gpu[PATH_MAX];
    snprintf(gpu, sizeof(gpu), "%s/max_freq", layouts[rel].gpu_dir);
    snprintf(buf, n, "mode %d, GPU %.2f, EMC %.0f", mb_mode(r), mb_mhz(r, gpu),
             mb_mhz(r, layouts[rel].emc));
}

/* The log's text (the one log under dir). */
static char *log_text(const char *r, const char *dir)
{
    char d[PATH_MAX];
    snprintf(d, sizeof(d), "%s/%s", r, dir);
    return th_keep(th_read_gz(th_keep(th_find_one(d, ".csv.gz"))));
}

/* The n-th row's (from 0) cell of col. */
static const char *cell(const char *text, int n, const char *col)
{
    static char v[4][128];
    static int k;
    k = (k + 1) % 4;
    const char *h = strstr(text, "\nrun_id,") + 1, *row = h;
    for (int i = 0; i <= n; i++)
        do
            row = strchr(row, '\n') + 1;
        while (row[0] == '#');
    if (th_field(h, row, col, v[k], sizeof(v[k])) < 0)
        th_fail("no column '%s'", col);
    return v[k];
}

/* A night's sweep of modes on rel's root: "run ... -o ROOT/logs" as nobody (or root). */
static int night(enum release rel, const char *r, const char *modes, const char *extra, bool as_root, char **err)
{
    char args[3 * PATH_MAX], logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", r);
    mkdir(logs, 0777);
    assert_int_equal(chmod(logs, 0777), 0);
    snprintf(args, sizeof(args), "run --device cpu -b %s --sizes 64x64 --kernels copy_row "
             "--set sweep.stop.min_time_ms=1 --set 'sweep.power_modes=%s'%s "
             "--set power.sysfs_root=%s -o %s", layouts[rel].board, modes, extra, r,
             logs);
    if (!as_root)
        return run_as_nobody(r, args, err);
    int rc = th_runf("%s", args);
    *err = th_keep(strdup(th_err()));
    return rc;
}

/* One step's mode_step line (its text after "# mode_step: step I of N, mode "); NULL. */
static const char *step_line(const char *text, int i, int n)
{
    char want[64];
    snprintf(want, sizeof(want), "# mode_step: step %d of %d, mode ", i, n);
    const char *p = strstr(text, want);
    return p ? p + strlen(want) : NULL;
}

/* The documented normal user's night on each release (the nvpmodel sudoers line only):
 * every mode measured, its ceiling from the board (the mode's EMC cap, or R36's top rate),
 * R32/R35's root-only EMC cap said unverified with its file and reason (never "never
 * followed"), the board and the state file as found after, and no tee run. */
static void test_normal_user_nights(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    struct { enum release rel; const char *modes, *names[3]; int n; double peak[3]; } nights[] = {
        { R32_NANO, "[\"5W\", \"MAXN\"]", { "5W (1)", "MAXN (0)" }, 2, { 25.6, 25.6 } },
        { R35_XAVIER_NX, "[\"MODE_15W_6CORE\", \"MODE_20W_6CORE\", \"MODE_10W_DESKTOP\"]",
          { "MODE_15W_6CORE (2)", "MODE_20W_6CORE (8)", "MODE_10W_DESKTOP (5)" }, 3,
          { 51.2, 59.7, 51.2 } },
        { R36_SUPER, "[\"15W\", \"MAXN_SUPER\", \"25W\"]",
          { "15W (0)", "MAXN_SUPER (2)", "25W (1)" }, 3, { 68.3, 102.4, 102.4 } },
    };
    for (size_t k = 0; k < sizeof(nights) / sizeof(nights[0]); k++) {
        enum release rel = nights[k].rel;
        const char *r = release_root(rel, -1);
        char before[200], after[200], *err, sp[PATH_MAX + 32];
        board_now(r, rel, before, sizeof(before));
        struct broker b;
        broker_start(&b, r, rel, false);
        int rc = night(rel, r, nights[k].modes, "", false, &err);
        broker_stop(&b);
        if (rc != 0)
            th_fail("release %d: exit %d: %s", (int)rel, rc, err);
        char *text = log_text(r, "logs");
        for (int i = 0; i < nights[k].n; i++) {
            const char *l = step_line(text, i + 1, nights[k].n);
            if (!l || strncmp(l, nights[k].names[i], strlen(nights[k].names[i])) ||
                strncmp(l + strlen(nights[k].names[i]), ": GPU max ", 10))
                th_fail("release %d step %d: '%.300s'", (int)rel, i + 1, l ? l : text);
            bool root_only = rel != R36_SUPER;
            const char *eol = strchr(l, '\n');
            const char *unv = strstr(l, "; unverified: EMC cap (cannot open '");
            if (root_only != (unv && unv < eol && strstr(unv, "Permission denied") < eol))
                th_fail("release %d step %d unverified: '%.*s'", (int)rel, i + 1,
                        (int)(eol - l), l);
            assert_string_equal(cell(text, i, "power_mode"), nights[k].names[i]);
            th_assert_close(atof(cell(text, i, "peak_gbps")), nights[k].peak[i], 0.05);
        }
        assert_null(strstr(text, "never followed"));
        assert_null(strstr(text, "NOT"));
        board_now(r, rel, after, sizeof(after));
        assert_string_equal(after, before);
        snprintf(sp, sizeof(sp), "%s/var/tmp/modes.state", r);
        assert_false(mb_exists(sp));
        char lp[PATH_MAX + 16];
        snprintf(lp, sizeof(lp), "%s/sudo.log", b.dir);
        char *log = th_keep(mb_slurp(lp));
        assert_non_null(log);
        assert_null(strstr(log, "tee"));   /* no cap asked: none written, none put back */
        assert_non_null(strstr(log, "ran /usr/sbin/nvpmodel -m"));
    }
}

/* The same night as root: nothing unverified, the same end. */
static void test_root_night(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    const char *r = release_root(R35_XAVIER_NX, -1);
    char before[200], after[200], *err;
    board_now(r, R35_XAVIER_NX, before, sizeof(before));
    int rc = night(R35_XAVIER_NX, r, "[\"MODE_20W_2CORE\", \"MODE_10W_2CORE\"]", "", true,
                   &err);
    if (rc != 0)
        th_fail("exit %d: %s", rc, err);
    char *text = log_text(r, "logs");
    assert_non_null(strstr(text, "mode MODE_20W_2CORE (6): GPU max 1109 MHz, EMC cap 1866 MHz "
                                 "read after it settled\n"));
    assert_null(strstr(text, "unverified"));
    board_now(r, R35_XAVIER_NX, after, sizeof(after));
    assert_string_equal(after, before);
}

/* Caps, as a normal user: with the tee lines each cap goes through `sudo -n tee` of the
 * exact file nvpmodel writes (R36: MAX_FREQ_KNEXT) and nothing is tee'd back (the mode
 * switched back puts its caps back); with the nvpmodel line only, each step is refused
 * with sudo's words, and the board is as found either way. An Orin whose firmware holds
 * the EMC at 2133 MHz in MAXN_SUPER (R36.4.3) is judged against 68.3 GB/s, not 102.4. */
static void test_normal_user_caps(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    for (int tee = 1; tee >= 0; tee--) {
        const char *r = release_root(R36_SUPER, -1);
        char before[200], after[200], *err, lp[PATH_MAX + 16];
        setenv("FAKE_EMC_HOLD_HZ", "2133000000", 1);   /* the firmware's, from boot */
        assert_int_equal(system("tests/fake-nvpmodel.sh -m 1 >/dev/null"), 0);
        board_now(r, R36_SUPER, before, sizeof(before));
        struct broker b;
        broker_start(&b, r, R36_SUPER, tee);
        int rc = night(R36_SUPER, r, "[\"25W\", \"MAXN_SUPER\"]",
                       " --set 'sweep.gpu_max_mhz=[612]'", false, &err);
        broker_stop(&b);
        unsetenv("FAKE_EMC_HOLD_HZ");
        char *text = log_text(r, "logs");
        snprintf(lp, sizeof(lp), "%s/sudo.log", b.dir);
        char *log = th_keep(mb_slurp(lp));
        if (tee) {
            if (rc != 0)
                th_fail("tee: exit %d: %s", rc, err);
            th_assert_close(atof(cell(text, 0, "gpu_max_mhz")), 612, 0);
            th_assert_close(atof(cell(text, 1, "peak_gbps")), 68.3, 0.05);
            const char *t = log;
            int tees = 0;
            while ((t = strstr(t, "ran /usr/bin/tee ")) && ++tees)
                t++;
            assert_int_equal(tees, 2);
            assert_non_null(strstr(log, "17000000.gpu/devfreq_dev/max_freq"));
        } else {
            assert_int_equal(rc, 1);
            assert_non_null(strstr(text, "skipped, cap refused: GPU cap 612 MHz"));
            assert_non_null(strstr(text, "a password is required"));
        }
        board_now(r, R36_SUPER, after, sizeof(after));
        assert_string_equal(after, before);
    }
}

/* Whether a process is gone (no /proc entry, or a zombie nobody reaped yet). */
static bool gone(long pid)
{
    char p[64];
    snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
    char *t = mb_slurp(p);
    if (!t)
        return true;
    const char *c = strrchr(t, ')');
    bool z = c && c[1] == ' ' && (c[2] == 'Z' || c[2] == 'X');
    free(t);
    return z;
}

/* The tool in the background (our own child): a sweep of modes on r. */
static pid_t spawn_night(const char *r, const char *modes)
{
    char args[3 * PATH_MAX];
    snprintf(args, sizeof(args), "run --device cpu -b boards/jetson-orin-nano.cfg "
             "--sizes 64x64 --kernels copy_row --set sweep.stop.min_time_ms=1 "
             "--set 'sweep.power_modes=%s' --set power.sysfs_root=%s -o %s/logs", modes, r, r);
    return mb_spawn_tool(args);
}

/* SIGKILL at each step of a switch and of a restore: before nvpmodel wrote anything, half
 * way (the status file written, the clocks not), and in the restore's own nvpmodel. The
 * killed run's nvpmodel lives on in its own process group, blocked; `restore` waits for
 * it, kills it at its deadline (1 s here), reads the board and puts it back: nothing is
 * changed after restore said so, and no state file outlives the board as found. */
static void test_sigkill_at_each_step(void **state)
{
    (void)state;
    struct { const char *fault, *modes; } stages[] = {
        { "pause:0:start", "[\"15W\", \"7W\"]" },
        { "pause:0:mid", "[\"15W\", \"7W\"]" },
        { "pause:1:mid", "[\"15W\"]" },   /* the restore's nvpmodel -m 1 */
    };
    for (size_t k = 0; k < sizeof(stages) / sizeof(stages[0]); k++) {
        const char *r = release_root(R36_SUPER, -1);
        char before[200], after[200], notify[PATH_MAX], gate[PATH_MAX], sp[PATH_MAX];
        board_now(r, R36_SUPER, before, sizeof(before));
        snprintf(notify, sizeof(notify), "%s/var/tmp/notify", r);
        snprintf(gate, sizeof(gate), "%s/var/tmp/gate", r);
        snprintf(sp, sizeof(sp), "%s/var/tmp/modes.state", r);
        assert_int_equal(mkfifo(notify, 0600), 0);
        assert_int_equal(mkfifo(gate, 0600), 0);
        setenv("FAKE_NVPM_FAULT", stages[k].fault, 1);
        setenv("FAKE_NVPM_NOTIFY", notify, 1);
        setenv("FAKE_NVPM_GATE", gate, 1);
        pid_t pid = spawn_night(r, stages[k].modes);
        char *said = mb_slurp(notify);   /* blocks until nvpmodel is caught */
        assert_non_null(said);
        long nvpm = atol(said);
        free(said);
        assert_int_equal(kill(pid, SIGKILL), 0);   /* our own child */
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(mb_exists(sp));
        assert_false(gone(nvpm));                   /* nvpmodel outlived the run */
        unsetenv("FAKE_NVPM_FAULT");
        setenv("TB_SETTLE_TIMEOUT_S", "1", 1);
        int rc = th_runf("restore");
        unsetenv("TB_SETTLE_TIMEOUT_S");
        /* the group it found, never "process group 0" (#50): "(process group N)" where the
         * kill before this settle left it gone, "(process group N, proven ours ...)" where a
         * loaded machine had not yet ended it (SIGKILL takes effect when the process next
         * runs) and the settle killed it again: both right, the second failed this test
         * under load */
        char group[64];
        snprintf(group, sizeof(group), "(process group %ld", nvpm);
        const char *g = strstr(th_err(), group);
        if (g)
            g += strlen(group);
        if (rc != 0 || !strstr(th_err(), "killed at its deadline") || !g ||
            (*g != ')' && *g != ','))
            th_fail("stage %s: restore exit %d: %s", stages[k].fault, rc, th_err());
        assert_true(gone(nvpm));
        int fd = open(gate, O_WRONLY | O_NONBLOCK);   /* nobody left to switch later */
        assert_true(fd < 0 && errno == ENXIO);
        board_now(r, R36_SUPER, after, sizeof(after));
        if (strcmp(after, before))
            th_fail("stage %s: board '%s', found '%s'", stages[k].fault, after, before);
        assert_false(mb_exists(sp));
        unsetenv("FAKE_NVPM_NOTIFY");
        unsetenv("FAKE_NVPM_GATE");
    }
}

/* An nvpmodel that exits refusing while a child of its own would switch later: the child is
 * killed with its process group, so the board cannot change under the night unseen. */
static void test_detached_child_killed(void **state)
{
    (void)state;
    const char *r = release_root(R36_SUPER, -1);
    char gate[PATH_MAX], why[512], what[1024];
    snprintf(gate, sizeof(gate), "%s/var/tmp/gate", r);
    assert_int_equal(mkfifo(gate, 0600), 0);
    setenv("FAKE_NVPM_GATE", gate, 1);
    setenv("FAKE_NVPM_FAULT", "detach:0", 1);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    struct tb_mode_step s = { 0, "15W", 0, 0 };
    assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    assert_int_equal(tb_modes_apply(&m, &s, &o), -1);
    assert_int_equal(o.result, TB_MODE_REFUSED);
    if (!strstr(o.why, "it left processes running, killed"))
        th_fail("detached: '%s'", o.why);
    int fd = open(gate, O_WRONLY | O_NONBLOCK);
    assert_true(fd < 0 && errno == ENXIO);   /* the child is gone: nothing switches later */
    assert_int_equal(mb_mode(r), 1);
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    tb_modes_close(&m);
}

/* A root night, then the cron user's on the same shared state path: the root night leaves
 * no hold record or state file behind, so the user's night sweeps its modes and its
 * `restore` finds nothing to put back (a root night blocked every later user's, #50). */
static void test_root_then_user_night(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    const char *r = release_root(R32_NANO, -1);
    char before[200], after[200], *err, dir[PATH_MAX];
    board_now(r, R32_NANO, before, sizeof(before));
    int rc = night(R32_NANO, r, "[\"5W\", \"MAXN\"]", "", true, &err);
    if (rc != 0)
        th_fail("root: exit %d: %s", rc, err);
    snprintf(dir, sizeof(dir), "%s/var/tmp", r);
    struct broker b;
    broker_start(&b, r, R32_NANO, false);
    rc = night(R32_NANO, r, "[\"5W\", \"MAXN\"]", "", false, &err);
    broker_stop(&b);
    if (rc != 0)
        th_fail("the user's night after root's: exit %d: %s", rc, err);
    board_now(r, R32_NANO, after, sizeof(after));
    assert_string_equal(after, before);
    rc = run_as_nobody(r, "restore", &err);
    if (rc != 0 || !strstr(err, "nothing to restore"))
        th_fail("the user's restore: exit %d: %s", rc, err);
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)); )
        if (!strncmp(e->d_name, "modes.state", 11))
            th_fail("left behind: '%s'", e->d_name);
    closedir(d);
}

/* Whether prctl(PR_SET_CHILD_SUBREAPER) works here, tried in a child of ours. */
static bool subreaper_works(void)
{
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        int v = 0;
        _exit(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 &&
              prctl(PR_GET_CHILD_SUBREAPER, &v, 0, 0, 0) == 0 && v == 1 ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(p, &st, 0), p);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* An nvpmodel that exits 0 at once while a child in a session of its own (out of its process
 * group) would switch the board later: the child is killed before the board is judged, so
 * nothing switches after the step's check or the restore's; the step's clocks never
 * followed, and the night restores a board that stays as found (#50). */
static void test_setsid_child_killed(void **state)
{
    (void)state;
    if (!subreaper_works()) {   /* qemu-user: prctl(PR_SET_CHILD_SUBREAPER) fails (EINVAL) */
        fprintf(stderr, "skipped: this kernel (or emulator) has no child subreaper, so a child "
                "that left nvpmodel's session is not ours to find; a board's kernel has it\n");
        skip();
    }
    const char *r = release_root(R36_SUPER, -1);
    char gate[PATH_MAX], why[512], what[1024];
    snprintf(gate, sizeof(gate), "%s/var/tmp/gate", r);
    assert_int_equal(mkfifo(gate, 0600), 0);
    setenv("FAKE_NVPM_GATE", gate, 1);
    setenv("FAKE_NVPM_FAULT", "setsid:0", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "2", 1);   /* were the child waited for, not for long */
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    struct tb_mode_step s = { 0, "15W", 0, 0 };
    assert_int_equal(tb_modes_save(&m, &s, 1, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    assert_int_equal(tb_modes_apply(&m, &s, &o), -1);
    int fd = open(gate, O_WRONLY | O_NONBLOCK);
    if (fd >= 0) {
        close(fd);
        th_fail("a child out of nvpmodel's group outlived it: '%s'", o.why);
    }
    assert_int_equal(errno, ENXIO);   /* no reader: nothing switches later */
    assert_int_equal(o.result, TB_MODE_NOT_FOLLOWED);
    assert_int_equal(mb_mode(r), 1);
    unsetenv("FAKE_NVPM_FAULT");
    unsetenv("TB_DRIVER_TIMEOUT_S");   /* restore's own commands keep their whole deadline */
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    tb_modes_close(&m);
    assert_int_equal(mb_mode(r), 1);
    assert_false(mb_exists(getenv("TB_MODE_STATE")));
}

/* EMC caps as the normal user doc/power.md sets up (the nvpmodel and tee lines) on R35, whose
 * EMC cap file is root's to read: with modes, and alone (where the cap found is the mode's
 * own, nvpmodel.conf's, as nvpmodel wrote it): each night runs, its rows judged against the
 * cap asked (1331 MHz on the Xavier NX's 128-bit LPDDR4x: 42.6 GB/s, not the mode's 51.2),
 * and the board as found at the end (#50). */
static void test_normal_user_emc_caps(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    for (int alone = 0; alone < 2; alone++) {
        const char *r = release_root(R35_XAVIER_NX, 2);
        char before[200], after[200], *err, args[3 * PATH_MAX], logs[PATH_MAX];
        board_now(r, R35_XAVIER_NX, before, sizeof(before));
        snprintf(logs, sizeof(logs), "%s/logs", r);
        mkdir(logs, 0777);
        assert_int_equal(chmod(logs, 0777), 0);
        snprintf(args, sizeof(args), "run --device cpu -b %s --sizes 64x64 --kernels copy_row "
                 "--set sweep.stop.min_time_ms=1 %s--set 'sweep.emc_max_mhz=[1331]' "
                 "--set power.sysfs_root=%s -o %s", layouts[R35_XAVIER_NX].board,
                 alone ? "" : "--set 'sweep.power_modes=[\"MODE_15W_6CORE\"]' ", r, logs);
        struct broker b;
        broker_start(&b, r, R35_XAVIER_NX, true);
        int rc = run_as_nobody(r, args, &err);
        broker_stop(&b);
        if (rc != 0)
            th_fail("alone %d: exit %d: %s", alone, rc, err);
        char *text = log_text(r, "logs");
        th_assert_close(atof(cell(text, 0, "peak_gbps")), 42.6, 0.05);
        assert_null(strstr(text, "NOT"));
        board_now(r, R35_XAVIER_NX, after, sizeof(after));
        assert_string_equal(after, before);
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    th_own_lock("modes-boards");   /* per process, removed at its exit */
    const struct CMUnitTest tests[] = {
        TH_TEST(test_normal_user_nights),
        TH_TEST(test_root_night),
        TH_TEST(test_root_then_user_night),
        TH_TEST(test_normal_user_caps),
        TH_TEST(test_normal_user_emc_caps),
        TH_TEST(test_sigkill_at_each_step),
        TH_TEST(test_detached_child_killed),
        TH_TEST(test_setsid_child_killed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
