/* test_modes.c: the power-mode sweep's switcher (src/jetson/modes.c) on fake roots built from
 * nvpmodel tables shaped like real boards' (tests/fixtures/modes/, the Orin Nano Super's in
 * tests/fixtures/nvpmodel/), through tests/fake-nvpmodel.sh: tables read, plans made and
 * refused, switches that hold, are refused, ask for a reboot or report success while the
 * clocks never follow; caps; the state file written before the first change, restored at
 * the end and after a run that died, and refused when it is a link or a FIFO. */
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
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
#include "jetson/modes.h"
#include "lib/util.h"

#define SUPER "nvpmodel/orin-nano-super.conf"
#define SUPER_GPU "/sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu"
#define EMC_CAP "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 18);
    size_t n = fread(buf, 1, (1 << 18) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A board's root in th_scratch(): its nvpmodel.conf, its GPU devfreq node (frequencies up
 * to top_hz), its EMC cap file, and the fake nvpmodel's first switch to mode. The
 * environment points the switcher at it (TB_ROOT, TB_NVPMODEL, TB_MODE_STATE). */
static const char *board_root(const char *conf, const char *gpu_dir, const char *freqs, int mode)
{
    const char *r = th_scratch();
    char *text = slurp(th_fixture(conf)), p[PATH_MAX];
    assert_non_null(text);
    free(th_write(r, "etc/nvpmodel.conf", text));
    free(text);
    free(th_write(r, "var/lib/nvpmodel/status", "pmode:0000\n"));
    snprintf(p, sizeof(p), "%s/available_frequencies", gpu_dir + 1);
    free(th_write(r, p, freqs));
    snprintf(p, sizeof(p), "%s/max_freq", gpu_dir + 1);
    free(th_write(r, p, "0\n"));
    free(th_write(r, EMC_CAP + 1, "0\n"));
    setenv("TB_ROOT", r, 1);
    char *fake = realpath("tests/fake-nvpmodel.sh", NULL);
    assert_non_null(fake);
    setenv("TB_NVPMODEL", fake, 1);
    free(fake);
    snprintf(p, sizeof(p), "%s/modes.state", r);
    setenv("TB_MODE_STATE", p, 1);
    setenv("TB_MODE_SETTLE_MS", "400", 1);
    unsetenv("FAKE_NVPM_FAULT");
    unsetenv("FAKE_NVPM_CHILD");
    unsetenv("TB_DRIVER_TIMEOUT_S");
    unsetenv("TB_CAP_WRITER");
    unsetenv("FAKE_CAP_FAULT");
    unsetenv("FAKE_CAP_LOG");
    unsetenv("FAKE_NVPM_LOG");
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "tests/fake-nvpmodel.sh -m %d >/dev/null", mode);
    assert_int_equal(system(cmd), 0);
    return r;
}

static const char *super_root(int mode)
{
    return board_root(SUPER, SUPER_GPU, "306000000 408000000 612000000 918000000 1020000000\n",
                      mode);
}

static double read_mhz(const char *root, const char *abs)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s%s", root, abs);
    char *t = slurp(p);
    assert_non_null(t);
    double v = atof(t) / 1e6;
    free(t);
    return v;
}

static int status_mode(const char *root)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/var/lib/nvpmodel/status", root);
    char *t = slurp(p);
    assert_non_null(t);
    int m = atoi(t + 6);
    free(t);
    return m;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* ---- tables ------------------------------------------------------------------------ */

static void test_tables_of_real_boards(void **state)
{
    (void)state;
    struct { const char *conf; size_t n; const char *name; int id; double gpu, emc;
             const char *gpu_path; } cases[] = {
        { "modes/nano.conf", 2, "5W", 1, 640, 1600,
          "/sys/devices/57000000.gpu/devfreq/57000000.gpu/max_freq" },
        { "modes/nano.conf", 2, "MAXN", 0, 0, 0, NULL },
        { SUPER, 4, "15W", 0, 612, 2133, SUPER_GPU "/max_freq" },
        { SUPER, 4, "25W", 1, 918, 3199, NULL },
        { SUPER, 4, "MAXN_SUPER", 2, 0, 0, NULL },
        { SUPER, 4, "7W", 3, 408, 2133, NULL },
        { "modes/agx-orin.conf", 4, "MODE_15W", 1, 420.75, 2133, SUPER_GPU "/max_freq" },
        { "modes/agx-orin.conf", 4, "MODE_50W", 3, 828.75, 3199, NULL },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = slurp(th_fixture(cases[i].conf)), why[256];
        assert_non_null(text);
        struct tb_mode_table t;
        assert_int_equal(tb_modes_table_parse(text, &t, why, sizeof(why)), 0);
        assert_int_equal(t.n, cases[i].n);
        const struct tb_mode_def *m = tb_modes_find(&t, cases[i].name);
        assert_non_null(m);
        assert_int_equal(m->id, cases[i].id);
        assert_ptr_equal(tb_modes_find(&t, (char[8]){ (char)('0' + cases[i].id), 0 }), m);
        th_assert_close(m->gpu_cap_mhz, cases[i].gpu, 1e-9);
        th_assert_close(m->emc_cap_mhz, cases[i].emc, 1e-9);
        if (cases[i].gpu_path)
            assert_string_equal(t.gpu_max_path, cases[i].gpu_path);
        assert_string_equal(t.emc_cap_path, EMC_CAP);
        assert_null(tb_modes_find(&t, "15w"));
        tb_modes_table_free(&t);
        free(text);
    }
    struct tb_mode_table t;
    char why[256];
    assert_int_equal(tb_modes_table_parse("# nothing\n", &t, why, sizeof(why)), -ENOENT);
    assert_non_null(strstr(why, "no POWER_MODEL"));
    tb_modes_table_free(&t);
}

/* ---- plans ------------------------------------------------------------------------- */

static void sweep_axes(struct tb_mode_axes *ax, char **modes, size_t nm, long *gpu, size_t ng)
{
    memset(ax, 0, sizeof(*ax));
    ax->power_modes = modes;
    ax->n_power_modes = nm;
    ax->gpu_max_mhz = gpu;
    ax->n_gpu_max_mhz = ng;
    ax->power_modes_at = "s.cfg:4";
    ax->gpu_max_mhz_at = "s.cfg:5";
    ax->emc_max_mhz_at = "s.cfg:6";
}

static void test_plan(void **state)
{
    (void)state;
    const char *r = super_root(2);
    struct tb_mode_axes ax;
    struct tb_mode_step *steps;
    size_t n;
    struct tb_diag d = { 0 };
    /* the default sweep: no axis, no step, nothing read */
    sweep_axes(&ax, NULL, 0, NULL, 0);
    assert_int_equal(tb_modes_plan(&ax, r, &steps, &n, &d), 0);
    assert_int_equal(n, 0);
    /* names and ids, times two GPU caps */
    char *modes[] = { "25W", "0", "7W" };
    long caps[] = { 300, 400 };
    sweep_axes(&ax, modes, 3, caps, 2);
    assert_int_equal(tb_modes_plan(&ax, r, &steps, &n, &d), 0);
    assert_int_equal(n, 6);
    assert_int_equal(steps[0].mode_id, 1);
    assert_string_equal(steps[0].mode_name, "25W");
    th_assert_close(steps[1].gpu_cap_mhz, 400, 0);
    assert_int_equal(steps[2].mode_id, 0);
    assert_string_equal(steps[2].mode_name, "15W");
    assert_int_equal(steps[5].mode_id, 3);
    free(steps);
    /* a name the table lacks: FILE:LINE and the nearest name */
    char *bad[] = { "15w", "MAXN" };
    sweep_axes(&ax, bad, 2, NULL, 0);
    assert_int_equal(tb_modes_plan(&ax, r, &steps, &n, &d), 2);
    assert_non_null(strstr(d.msgs[0], "s.cfg:4: 'sweep.power_modes': nvpmodel.conf has no mode "
                                      "'15w' (did you mean '15W'?)"));
    assert_non_null(strstr(d.msgs[1], "'MAXN'"));
    assert_null(steps);
    tb_diag_free(&d);
    /* a desktop: no nvpmodel.conf, a clear error before anything runs */
    const char *desk = th_scratch();
    sweep_axes(&ax, modes, 1, NULL, 0);
    assert_int_equal(tb_modes_plan(&ax, desk, &steps, &n, &d), 1);
    assert_non_null(strstr(d.msgs[0], "s.cfg:4: the power-mode sweep needs a Jetson's nvpmodel"));
    assert_non_null(strstr(d.msgs[0], "never changed"));
    tb_diag_free(&d);
    sweep_axes(&ax, NULL, 0, caps, 1);
    assert_int_equal(tb_modes_plan(&ax, desk, &steps, &n, &d), 1);
    assert_non_null(strstr(d.msgs[0], "s.cfg:5: "));
    tb_diag_free(&d);
}

static bool has_msg(const struct tb_diag *d, const char *want)
{
    for (size_t i = 0; i < d->n; i++)
        if (strstr(d->msgs[i], want))
            return true;
    return false;
}

/* What the board cannot do is a FILE:LINE error before anything runs (exit 2), never a step
 * skipped at 3 a.m.: one mode twice (by name and by id), one cap twice, a GPU cap above the
 * GPU's highest clock or between two of its clocks, a cap file nvpmodel.conf names that the
 * kernel does not have. */
static void test_plan_refuses_what_the_board_cannot(void **state)
{
    (void)state;
    const char *r = super_root(2);
    struct tb_mode_axes ax;
    struct tb_mode_step *steps;
    size_t n;
    struct tb_diag d = { 0 };
    char *twice[] = { "15W", "25W", "0" };
    sweep_axes(&ax, twice, 3, NULL, 0);
    assert_int_equal(tb_modes_plan(&ax, r, &steps, &n, &d), 1);
    assert_non_null(strstr(d.msgs[0], "s.cfg:4: 'sweep.power_modes': entries 1 ('15W') and 3 "
                                      "('0') are both mode 15W (0)"));
    assert_null(steps);
    tb_diag_free(&d);
    char *one[] = { "MAXN_SUPER" };
    long gpu[] = { 612, 5000, 700, 612 };
    sweep_axes(&ax, one, 1, gpu, 4);
    assert_int_equal(tb_modes_plan(&ax, r, &steps, &n, &d), 3);
    if (!has_msg(&d, "s.cfg:5: 'sweep.gpu_max_mhz': 5000 MHz is above the GPU's highest clock, "
                     "1020 MHz (its available_frequencies: 306 408 612 918 1020 MHz)") ||
        !has_msg(&d, "s.cfg:5: 'sweep.gpu_max_mhz': 700 MHz is not a clock of the GPU") ||
        !has_msg(&d, "s.cfg:5: 'sweep.gpu_max_mhz': 612 MHz is named twice (entries 1 and 4)"))
        th_fail("caps: %s | %s | %s", d.msgs[0], d.msgs[1], d.msgs[2]);
    assert_null(steps);
    tb_diag_free(&d);
    long emc[] = { 2133 };
    sweep_axes(&ax, one, 1, NULL, 0);
    ax.emc_max_mhz = emc;
    ax.n_emc_max_mhz = 1;
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s%s", r, EMC_CAP);
    assert_int_equal(unlink(p), 0);   /* a kernel without the nvpmodel EMC cap */
    snprintf(p, sizeof(p), "%s%s/max_freq", r, SUPER_GPU);
    assert_int_equal(unlink(p), 0);
    long ok_gpu[] = { 612 };
    ax.gpu_max_mhz = ok_gpu;
    ax.n_gpu_max_mhz = 1;
    assert_int_equal(tb_modes_plan(&ax, r, &steps, &n, &d), 2);
    if (!has_msg(&d, "s.cfg:6: 'sweep.emc_max_mhz': the EMC cap file nvpmodel.conf names is not "
                     "there") ||
        !has_msg(&d, "s.cfg:5: 'sweep.gpu_max_mhz': the GPU max_freq file nvpmodel.conf names "
                     "is not there"))
        th_fail("files: %s | %s", d.msgs[0], d.msgs[1]);
    tb_diag_free(&d);
}

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
    th_assert_close(read_mhz(r, EMC_CAP), 0, 0);
    assert_false(exists(getenv("TB_MODE_STATE")));
    text = slurp(log);
    assert_string_equal(text, "-m 0\n-m 3\n-m 3\n-m 2\n");
    free(text);
    tb_modes_close(&m);
}

/* The Nano's 5W caps the EMC at 1600 MHz; an EMC cap asked on top reads back. */
static void test_nano_emc_cap(void **state)
{
    (void)state;
    const char *gpu = "/sys/devices/57000000.gpu/devfreq/57000000.gpu";
    const char *r = board_root("modes/nano.conf", gpu, "76800000 460800000 640000000 921600000\n",
                               0);
    char why[512], what[1024], p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/max_freq", gpu);
    th_assert_close(read_mhz(r, p), 921.6, 1e-9);
    struct tb_modes m;
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    struct tb_mode_step s = { 1, "5W", 0, 1200 };
    assert_int_equal(tb_modes_apply(&m, &s, &o), 0);
    th_assert_close(o.gpu_max_mhz, 640, 1e-9);
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
    assert_int_equal(tb_modes_open(&m, NULL, why, sizeof(why)), 0);
    assert_int_equal(tb_modes_save(&m, NULL, 0, why, sizeof(why)), 0);
    struct tb_mode_outcome o;
    struct tb_mode_step s = { 1, "25W", 612, 2133 };
    assert_int_equal(tb_modes_apply(&m, &s, &o), 0);
    th_assert_close(o.gpu_max_mhz, 612, 1e-9);
    th_assert_close(o.emc_cap_mhz, 2133, 1e-9);
    assert_int_equal(tb_modes_restore(&m, what, sizeof(what)), 0);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    th_assert_close(read_mhz(r, EMC_CAP), 0, 0);
    snprintf(want, sizeof(want), "%s%s/max_freq 612000000\n%s%s 2133000000\n"
             "%s%s/max_freq 1020000000\n%s%s 0\n", r, SUPER_GPU, r, EMC_CAP, r, SUPER_GPU,
             r, EMC_CAP);
    char *text = slurp(log);
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
        snprintf(p, sizeof(p), "%s%s", r, EMC_CAP);
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

/* ---- end to end: the real binary, the CPU backend, a sensor whose watts follow the mode -- */

#define HWMON "sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1"

struct sensor {
    const char *root;
    atomic_int stop;
    pthread_t thread;
};

/* The tool's process, found by the root its command line names; 0 while none runs. */
static pid_t tool_pid(const char *root)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && (e = readdir(d)) && !found) {
        char p[300], buf[4096];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(p, sizeof(p), "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* argv[0] the tool itself, not its shell; or argv[1] under qemu-aarch64 (cross-test:
         * the sensor saw no tool there, and the dynamic watts were noise) */
        bool tool = false;
        for (size_t a = 0, k = 0; a < n && k < 2 && !tool; a += strlen(buf + a) + 1, k++) {
            const char *base = strrchr(buf + a, '/');
            tool = !strcmp(base ? base + 1 : buf + a, "transpose-bench") &&
                   (k == 0 || strstr(buf, "qemu"));
        }
        for (size_t i = 0; i < n; i++)
            buf[i] = buf[i] ? buf[i] : ' ';
        if (tool && strstr(buf, " run ") && strstr(buf, root))
            found = (pid_t)atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return found;
}

static long cpu_ticks(pid_t pid)
{
    char p[64], buf[1024];
    snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(p, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *c = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    if (!c || sscanf(c + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (long)(ut + st);
}

/* The INA3221 as a mode would make it: every 50 ms (update_interval 50) a new VDD_IN mean of
 * the mode's idle watts plus its dynamic watts times how busy the tool was over the last
 * 100 ms (its CPU time: the CPU backend's kernel is what works). 15W: 3.0 + 1.0 W, 25W:
 * 3.5 + 2.0 W, MAXN_SUPER: 4.0 + 3.5 W. */
static void *sensor_main(void *arg)
{
    struct sensor *s = arg;
    static const double idle_w[] = { 3.0, 3.5, 4.0, 2.8 }, dyn_w[] = { 1.0, 2.0, 3.5, 0.6 };
    long hz = sysconf(_SC_CLK_TCK), last[2] = { -1, -1 };
    pid_t pid = 0;
    for (int i = 0; !atomic_load(&s->stop); i++) {
        if (!pid)
            pid = tool_pid(s->root);
        long t = pid ? cpu_ticks(pid) : -1;
        if (t < 0)
            pid = 0;
        double busy = t >= 0 && last[i % 2] >= 0 ? (double)(t - last[i % 2]) / (0.1 * (double)hz) : 0;
        busy = busy < 0 ? 0 : busy > 1 ? 1 : busy;
        last[i % 2] = t;
        char p[PATH_MAX], text[64];
        snprintf(p, sizeof(p), "%s/var/lib/nvpmodel/status", s->root);
        char *st = slurp(p);
        int mode = st && strlen(st) > 9 ? atoi(st + 6) : 2;
        free(st);
        mode = mode >= 0 && mode < 4 ? mode : 2;
        double w = idle_w[mode] + dyn_w[mode] * busy;
        snprintf(text, sizeof(text), "%.0f\n", w / 5.048 * 1000 + (i % 2 ? 2 : -2));
        free(th_write(s->root, HWMON "/curr1_input.new", text));
        char a[PATH_MAX], b[PATH_MAX];
        snprintf(a, sizeof(a), "%s/" HWMON "/curr1_input.new", s->root);
        snprintf(b, sizeof(b), "%s/" HWMON "/curr1_input", s->root);
        rename(a, b);
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* An Orin Nano Super in MAXN_SUPER with its INA3221 (updating every 50 ms) and model. */
static const char *super_board(void)
{
    const char *r = super_root(2);
    assert_true(th_build_sysfs(r, "ina3221/orin-nano.txt", 1) > 10);
    free(th_write(r, HWMON "/update_interval", "50\n"));
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    return r;
}

static char *csv_col(const char *h, const char *row, const char *col)
{
    static char v[8][256];
    static int k;
    k = (k + 1) % 8;
    if (th_field(h, row, col, v[k], sizeof(v[k])) < 0)
        th_fail("no column '%s'", col);
    return v[k];
}

/* Three modes swept in one night: each row carries its mode and clocks, the board ends in
 * the mode it started in, and compare --pareto finds the front and its knee: the 15W mode,
 * whose dynamic watts are lowest for the CPU's unchanged GB/s, is on it and is the knee or
 * left of it; every point off the front is dominated by one on it. */
static void test_e2e_three_modes_pareto(void **state)
{
    (void)state;
    const char *r = super_board();
    struct sensor s = { .root = r };
    assert_int_equal(pthread_create(&s.thread, NULL, sensor_main, &s), 0);
    char logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", r);
    /* every step here settles: a long limit costs nothing, and under the sanitizers on a
     * busy machine 400 ms was too short for the fake nvpmodel (a step skipped, in CI) */
    setenv("TB_MODE_SETTLE_MS", "20000", 1);
    int rc = th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 512x512 "
                     "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                     "--set 'sweep.power_modes=[\"15W\", \"25W\", \"MAXN_SUPER\"]' "
                     "--set power.interval_ms=10 --set power.window_ms=100 "
                     "--set power.idle_ms=100 --set power.max_rel_ci=0.5 "
                     /* one round, no warming: this is about the modes and their front; a
                      * CPU copy's GB/s moves between rounds (60% under qemu) */
                     "--set power.rounds=1 --set power.settle_s=0 "
                     "--set power.sysfs_root=%s -o %s", r, logs);
    atomic_store(&s.stop, 1);
    pthread_join(s.thread, NULL);
    if (rc != 0)
        th_fail("run exit %d: %s", rc, th_err());
    /* the summary names each row's step: three rows of one point are told apart */
    if (!strstr(th_out(), "power mode") || !strstr(th_out(), "15W (0)") ||
        !strstr(th_out(), "MAXN_SUPER (2)"))
        th_fail("summary without the steps:\n%s", th_out());
    assert_int_equal(status_mode(r), 2);
    th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
    char *log = th_keep(th_find_one(logs, ".csv.gz"));
    char *text = th_keep(th_read_gz(log));
    assert_non_null(strstr(text, "# mode_step: step 1 of 3, mode 15W (0): GPU max 612 MHz, "
                                 "EMC cap 2133 MHz read after it settled"));
    assert_non_null(strstr(text, "# modes_restored: mode MAXN_SUPER (2), GPU max 1020 MHz"));
    const char *h = strstr(text, "\nrun_id,") + 1, *row = h;
    const char *want_mode[] = { "15W (0)", "25W (1)", "MAXN_SUPER (2)" };
    double want_gpu[] = { 612, 918, 1020 }, dyn[3];
    for (int i = 0; i < 3; i++) {
        do
            row = strchr(row, '\n') + 1;
        while (row[0] == '#');
        assert_string_equal(csv_col(h, row, "power_mode"), want_mode[i]);
        th_assert_close(atof(csv_col(h, row, "gpu_max_mhz")), want_gpu[i], 0);
        assert_string_equal(csv_col(h, row, "gpu_cap_asked_mhz"), "");
        dyn[i] = atof(csv_col(h, row, "dyn_pj_per_byte"));
        if (!csv_col(h, row, "dyn_pj_per_byte")[0])
            th_fail("row %d has no dynamic energy: %s", i, csv_col(h, row, "power_note"));
    }
    if (!(dyn[0] < dyn[1] && dyn[1] < dyn[2]))
        th_fail("dynamic pJ/B not in the modes' order: %g %g %g", dyn[0], dyn[1], dyn[2]);


    rc = th_runf("compare --pareto --format csv %s", log);
    if (rc != 0)
        th_fail("compare exit %d: %s", rc, th_err());
    const char *out = th_out(), *ph = out, *pr = out;
    double x[3], y[3];
    char front[3][8], knee[3][8], mode[3][64];
    for (int i = 0; i < 3; i++) {
        pr = strchr(pr, '\n');
        assert_non_null(pr);
        pr++;
        tb_strlcpy(mode[i], csv_col(ph, pr, "power_mode"), sizeof(mode[i]));
        x[i] = atof(csv_col(ph, pr, "dyn_pj_per_byte"));
        y[i] = atof(csv_col(ph, pr, "gbps"));
        tb_strlcpy(front[i], csv_col(ph, pr, "front"), sizeof(front[i]));
        tb_strlcpy(knee[i], csv_col(ph, pr, "knee"), sizeof(knee[i]));
    }
    assert_null(strchr(strchr(pr, '\n') + 1, ','));   /* three operating points, no more */
    assert_string_equal(mode[0], "15W (0)");             /* the least energy: always on it */
    assert_string_equal(front[0], "yes");
    int knees = 0;
    for (int i = 0; i < 3; i++) {
        knees += !strcmp(knee[i], "knee");
        if (!strcmp(knee[i], "knee"))
            assert_string_equal(front[i], "yes");
        if (!strcmp(front[i], "no")) {   /* dominated: some front point moves more for less */
            bool dom = false;
            for (int j = 0; j < 3; j++)
                dom |= !strcmp(front[j], "yes") && x[j] <= x[i] && y[j] >= y[i];
            assert_true(dom);
        }
        if (i && !strcmp(front[i], "yes"))   /* along the front, more energy buys more GB/s */
            assert_true(x[i] > x[i - 1] && y[i] > y[i - 1]);
    }
    assert_int_equal(knees, 1);
    rc = th_runf("compare --pareto --format json %s", log);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(th_out(), "\"pareto\": ["));
    assert_non_null(strstr(th_out(), "\"knee\": \"knee\""));
    /* the page: one chart of the front, every point above zero drawn (a dynamic energy at
     * or below idle has no place on the axis: under qemu the fake's watts, which follow the
     * tool's CPU time, once put the least-energy mode there), the knee ringed and named
     * where it is drawn; its table row always */
    char page[PATH_MAX];
    snprintf(page, sizeof(page), "%s/front.html", r);
    rc = th_runf("compare --pareto --html %s %s", page, log);
    if (rc != 0)
        th_fail("compare --pareto --html exit %d: %s", rc, th_err());
    char *html = th_keep(th_read_gz(page));
    assert_non_null(strstr(html, "GB/s against dynamic energy per byte"));
    assert_non_null(strstr(html, "15W (0)"));
    assert_null(strstr(html, "block -"));   /* copy_row takes no block: its label says none */
    size_t dots = 0, above = 0;
    double knee_x = NAN;
    for (int i = 0; i < 3; i++) {
        above += x[i] > 0;
        if (!strcmp(knee[i], "knee"))
            knee_x = x[i];
    }
    for (const char *q = html; (q = strstr(q, "r=\"4\"")); q++)
        dots++;
    assert_int_equal(dots, above);
    if (knee_x > 0) {
        assert_non_null(strstr(html, " (knee)</text>"));
        assert_non_null(strstr(html, "r=\"9\" fill=\"none\""));   /* the ring */
    }
    assert_non_null(strstr(html, "yes, the knee"));
}

/* The tool started in the background (TB_BIN as th_run has it), its output dropped: a long
 * two-step mode sweep of one slow point on root r, logs in logs. Returns its pid. */
static pid_t spawn_sweep(const char *r, const char *modes, const char *logs)
{
    const char *bin = getenv("TB_BIN");
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof(cmd), "exec %s run --device cpu -b boards/jetson-orin-nano.cfg "
             "--sizes 256x256 --kernels copy_row --set sweep.stop.min_time_ms=20000 "
             "--set sweep.stop.max_time_ms=20000 --set sweep.stop.max_reps=10000000 "
             "--set 'sweep.power_modes=%s' --set power.sysfs_root=%s -o %s >/dev/null 2>&1",
             bin && *bin ? bin : "./transpose-bench", modes, r, logs);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* A run SIGKILLed mid-sweep leaves the board in another mode and its state file: the next
 * run puts it back and says so in its log; `restore` does the same on its own. */
static void test_killed_run_restored(void **state)
{
    (void)state;
    const char *r = super_root(2);
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    const char *sp = getenv("TB_MODE_STATE");
    for (int round = 0; round < 2; round++) {
        char logs[PATH_MAX];
        snprintf(logs, sizeof(logs), "%s/logs%d", r, round);
        pid_t pid = spawn_sweep(r, "[\"7W\", \"15W\"]", logs);
        /* until the first step took: the state file written, the board in 7W */
        for (int i = 0; i < 300 && !(exists(sp) && status_mode(r) == 3); i++) {
            struct timespec ts = { 0, 50 * 1000000L };
            nanosleep(&ts, NULL);
        }
        assert_true(exists(sp));
        assert_int_equal(status_mode(r), 3);
        assert_int_equal(kill(pid, SIGKILL), 0);   /* our own child */
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st));
        assert_int_equal(status_mode(r), 3);       /* nobody restored it */
        if (round == 0) {
            assert_int_equal(th_runf("restore"), 0);
            assert_non_null(strstr(th_err(), "died with the board changed"));
        } else {
            int rc = th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 64x64 "
                             "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                             "--set power.sysfs_root=%s -o %s/next", r, r);
            assert_int_equal(rc, 0);
            char dir[PATH_MAX];
            snprintf(dir, sizeof(dir), "%s/next", r);
            char *log = th_keep(th_find_one(dir, ".csv.gz"));
            char *text = th_keep(th_read_gz(log));
            if (!strstr(text, "# modes_restored: a run (pid "))
                th_fail("no modes_restored line:\n%.3000s", text);
            assert_non_null(strstr(text, "mode MAXN_SUPER (2), GPU max 1020 MHz"));
        }
        assert_int_equal(status_mode(r), 2);
        th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
        assert_false(exists(sp));
    }
    assert_int_equal(th_runf("restore"), 0);      /* nothing left: nothing to do */
    assert_non_null(strstr(th_err(), "nothing to restore"));
    /* @reboot's --quiet: nothing said when nothing is to do (cron mails what a job prints) */
    assert_int_equal(th_runf("restore --quiet"), 0);
    assert_string_equal(th_err(), "");
    assert_int_equal(th_runf("restore -q extra"), 2);
}

/* SIGINT, SIGTERM and SIGHUP mid-sweep: the run stops, puts the board back, and its log
 * says what was restored before its end line. */
static void test_signal_restores(void **state)
{
    (void)state;
    const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (int k = 0; k < 3; k++) {
        const char *r = super_root(2);
        free(th_write(r, "proc/device-tree/model",
                      "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
        char logs[PATH_MAX];
        snprintf(logs, sizeof(logs), "%s/logs", r);
        pid_t pid = spawn_sweep(r, "[\"15W\", \"7W\"]", logs);
        for (int i = 0; i < 300 && status_mode(r) != 0; i++) {
            struct timespec ts = { 0, 50 * 1000000L };
            nanosleep(&ts, NULL);
        }
        assert_int_equal(status_mode(r), 0);
        assert_int_equal(kill(pid, sigs[k]), 0);   /* our own child */
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
        assert_int_equal(status_mode(r), 2);
        th_assert_close(read_mhz(r, SUPER_GPU "/max_freq"), 1020, 0);
        assert_false(exists(getenv("TB_MODE_STATE")));
        char *log = th_keep(th_find_one(logs, ".csv.gz"));
        assert_non_null(log);
        char *text = th_keep(th_read_gz(log));
        const char *restored = strstr(text, "# modes_restored: mode MAXN_SUPER (2)");
        const char *end = strstr(text, "# end: interrupted by ");
        if (!restored || !end || restored > end)
            th_fail("signal %d: no restore before the end line:\n%.3000s", sigs[k], text);
        assert_null(strstr(text, "mode 7W (3)"));   /* the second step never started */
    }
}

/* A live sweep that took another lock file (another TB_LOCK_FILE; a /tmp cleaned under
 * it): `restore` must not put the board back under it (its rows would name a mode the board
 * is no longer in); the run restores its own changes when it ends. */
static void test_live_run_under_another_lock(void **state)
{
    (void)state;
    const char *r = super_root(2);
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    const char *sp = getenv("TB_MODE_STATE");
    char logs[PATH_MAX], other[PATH_MAX], mine[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", r);
    snprintf(other, sizeof(other), "%s/other.lock", r);
    tb_strlcpy(mine, getenv("TB_LOCK_FILE"), sizeof(mine));
    setenv("TB_LOCK_FILE", other, 1);
    pid_t pid = spawn_sweep(r, "[\"7W\", \"15W\"]", logs);
    setenv("TB_LOCK_FILE", mine, 1);
    for (int i = 0; i < 300 && !(exists(sp) && status_mode(r) == 3); i++) {
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
    int before = status_mode(r);
    int rc = th_runf("restore");
    int after = status_mode(r);
    bool kept = exists(sp);
    assert_int_equal(kill(pid, SIGTERM), 0);      /* our own child: it restores itself */
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);  /* before any check: never left running */
    assert_int_equal(before, 3);
    if (rc != 1 || !strstr(th_err(), "is a live run's (pid"))
        th_fail("restore under a live run: exit %d: %s", rc, th_err());
    assert_int_equal(after, 3);                   /* the live run's mode, untouched */
    assert_true(kept);
    assert_int_equal(status_mode(r), 2);
    assert_false(exists(sp));
}

/* Every mode refused: a failed night (exit 1) whose words point at the mode_step lines, not
 * at rows there are none of; a state file that is a link: no mode changed, and the end line
 * says so rather than "NOT restored". */
/* A night of 15W and 25W on an Orin Nano Super in MAXN_SUPER with the fake nvpmodel's faults
 * (FAKE_NVPM_FAULT's words), logs in ROOT/logs; the run's exit code. */
static int two_mode_night(const char **root, const char *faults)
{
    const char *r = *root = super_root(2);
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    setenv("FAKE_NVPM_FAULT", faults, 1);
    return th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 64x64 "
                   "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                   "--set 'sweep.power_modes=[\"15W\", \"25W\"]' "
                   "--set power.sysfs_root=%s -o %s/logs", r, r);
}

static void test_every_step_refused(void **state)
{
    (void)state;
    const char *r;
    int rc = two_mode_night(&r, "refuse:0 refuse:1");
    assert_int_equal(rc, 1);
    assert_non_null(strstr(th_err(), "nothing was measured: every mode step was skipped"));
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/logs", r);
    char *log = th_keep(th_find_one(dir, ".csv.gz"));
    char *text = th_keep(th_read_gz(log));
    assert_non_null(strstr(text, "2 of 2 mode steps skipped"));
    assert_null(strstr(text, "NOT all restored"));
    assert_int_equal(status_mode(r), 2);
    unsetenv("FAKE_NVPM_FAULT");
    assert_int_equal(symlink("/nonexistent", getenv("TB_MODE_STATE")), 0);
    rc = th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 64x64 "
                 "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                 "--set 'sweep.power_modes=[\"15W\"]' "
                 "--set power.sysfs_root=%s -o %s/logs2", r, r);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(th_err(), "no power mode or clock could be changed"));
    snprintf(dir, sizeof(dir), "%s/logs2", r);
    log = th_keep(th_find_one(dir, ".csv.gz"));
    text = th_keep(th_read_gz(log));
    assert_non_null(strstr(text, "power modes not changed, none of 1 mode steps run"));
    assert_null(strstr(text, "NOT all restored"));
    assert_int_equal(status_mode(r), 2);
}

/* tune never switches modes: a sweep file or --set asking modes or caps is refused naming
 * where, before anything runs (the board as found, no state file). */
static void test_tune_refuses_modes(void **state)
{
    (void)state;
    const char *r = super_root(2);
    char *cfg = th_write(r, "modes.cfg", "sweep = {\n  kernels = [\"copy_row\"];\n"
                                          "  gpu_max_mhz = [612];\n};\n");
    assert_int_equal(th_runf("tune --device cpu --sizes 64x64 -c %s", cfg), 2);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof(want), "%s:3: tune measures the board in the mode it is in", cfg);
    if (!strstr(th_err(), want))
        th_fail("tune with a cap: '%s' lacks '%s'", th_err(), want);
    assert_int_equal(th_runf("tune --device cpu --sizes 64x64 --kernels copy_row "
                             "--set 'sweep.power_modes=[\"15W\"]'"), 2);
    assert_non_null(strstr(th_err(), "--set sweep.power_modes"));
    assert_non_null(strstr(th_err(), "never switches it"));
    assert_int_equal(status_mode(r), 2);
    assert_false(exists(getenv("TB_MODE_STATE")));
    free(cfg);
}

/* A step the sweep skipped is on no front: compare --pareto names it with its reason, in the
 * page's notes (table, markdown) or on stderr (CSV, JSON), so that a front missing a mode
 * never reads as if the mode had not been asked. */
static void test_pareto_names_skipped_steps(void **state)
{
    (void)state;
    const char *r;
    int rc = two_mode_night(&r, "refuse:1");
    unsetenv("FAKE_NVPM_FAULT");
    if (rc != 0)
        th_fail("run exit %d: %s", rc, th_err());
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/logs", r);
    char *log = th_keep(th_find_one(dir, ".csv.gz"));
    th_runf("compare --pareto %s", log);
    const char *want = "1 mode step skipped, on no front: step 2 of 2, mode 25W (1): skipped, "
                       "refused: mode 25W (1) refused: nvpmodel exit 1";
    if (!strstr(th_out(), want))
        th_fail("compare --pareto: '%s' lacks '%s'", th_out(), want);
    th_runf("compare --pareto --format csv %s", log);
    assert_null(strstr(th_out(), "skipped"));   /* the data stays data */
    assert_non_null(strstr(th_err(), want));
}

/* A mode sweep where nvpmodel is absent (a desktop): exit 2 before anything runs. */
static void test_desktop_refused(void **state)
{
    (void)state;
    const char *r = th_scratch();
    setenv("TB_ROOT", r, 1);
    int rc = th_runf("run --device cpu --sizes 64x64 --kernels copy_row "
                     "--set 'sweep.power_modes=[\"MAXN\"]' -o %s/logs", r);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(th_err(), "the power-mode sweep needs a Jetson's nvpmodel"));
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/logs", r);
    assert_false(exists(dir) && th_count_files(dir) > 0);
}

/* A step that asks an EMC cap is judged against that cap, read back after the step settled,
 * not against the mode's table: on one Orin Nano Super, 15W (EMC 2133 MHz in its table)
 * capped at 1600 MHz gets 1600/2133 of the uncapped 15W step's peak_gbps, frac_peak follows
 * it, and the step's ceiling line says where the rate came from. A normal user reads no live
 * EMC clock, so nothing else would show the cap (#31 review). */
static void test_emc_cap_step_ceiling(void **state)
{
    (void)state;
    const char *r = super_root(2);
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    const char *caps[] = { "", " --set 'sweep.emc_max_mhz=[1600]'" };
    const double cap_read[] = { 2133, 1600 };
    double peak[2];
    char ceiling[2][512];
    for (int k = 0; k < 2; k++) {
        char logs[PATH_MAX];
        snprintf(logs, sizeof(logs), "%s/logs%d", r, k);
        int rc = th_runf("run --device cpu -b boards/jetson-orin-nano.cfg --sizes 64x64 "
                         "--kernels copy_row --set sweep.stop.min_time_ms=1 "
                         "--set 'sweep.power_modes=[\"15W\"]'%s "
                         "--set power.sysfs_root=%s -o %s", caps[k], r, logs);
        if (rc != 0)
            th_fail("run %d exit %d: %s", k, rc, th_err());
        char *text = th_keep(th_read_gz(th_keep(th_find_one(logs, ".csv.gz"))));
        /* the step's own ceiling line: the first after its mode_step line */
        const char *step = strstr(text, "# mode_step: step 1 of 1, mode 15W (0)");
        if (!step)
            th_fail("run %d: no step that took:\n%.3000s", k, text);
        const char *line = strstr(step, "\n# ceiling: ");
        assert_non_null(line);
        line += strlen("\n# ceiling: ");
        size_t len = strcspn(line, "\n");
        snprintf(ceiling[k], sizeof(ceiling[k]), "%.*s", (int)(len < 511 ? len : 511), line);
        const char *h = strstr(text, "\nrun_id,") + 1, *row = h;
        do
            row = strchr(row, '\n') + 1;
        while (row[0] == '#');
        assert_string_equal(csv_col(h, row, "power_mode"), "15W (0)");
        th_assert_close(atof(csv_col(h, row, "emc_cap_mhz")), cap_read[k], 0);
        assert_string_equal(csv_col(h, row, "peak_source"), "nvpmodel EMC cap");
        peak[k] = atof(csv_col(h, row, "peak_gbps"));
        double gbps = atof(csv_col(h, row, "gbps")), frac = atof(csv_col(h, row, "frac_peak"));
        if (!(fabs(frac * peak[k] - gbps) <= 0.002 * gbps + 0.01))
            th_fail("run %d: frac_peak %g is not gbps %g / peak_gbps %g", k, frac, gbps, peak[k]);
    }
    th_assert_close(peak[0], 68.3, 0);
    th_assert_close(peak[1], peak[0] * 1600 / 2133, 0.1);   /* both rounded to 0.1 GB/s */
    if (!strstr(ceiling[0], "68.3 GB/s (nvpmodel EMC cap): ") ||
        !strstr(ceiling[0], "nvpmodel mode 15W (0) caps EMC at 2133 MHz") ||
        strstr(ceiling[0], "cap asked"))
        th_fail("uncapped step's ceiling: '%s'", ceiling[0]);
    if (strncmp(ceiling[1], "51.2 GB/s (nvpmodel EMC cap): EMC 1600 MHz: the cap asked "
                "(emc_max_mhz), read back after the step settled; without it 68.3 GB/s",
                strlen("51.2 GB/s (nvpmodel EMC cap): EMC 1600 MHz: the cap asked "
                       "(emc_max_mhz), read back after the step settled; without it 68.3 GB/s")))
        th_fail("capped step's ceiling: '%s'", ceiling[1]);
    assert_int_equal(status_mode(r), 2);        /* the board as found, the cap undone */
    th_assert_close(read_mhz(r, EMC_CAP), 0, 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    char lock[64];
    snprintf(lock, sizeof(lock), "/tmp/tb-test-modes-lock-%ld", (long)getpid());
    setenv("TB_LOCK_FILE", lock, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_of_real_boards),
        TH_TEST(test_caps_through_writer),
        TH_TEST(test_cap_falls_back_to_sudo_tee),
        TH_TEST(test_plan),
        TH_TEST(test_plan_refuses_what_the_board_cannot),
        TH_TEST(test_switch_verify_restore),
        TH_TEST(test_nano_emc_cap),
        TH_TEST(test_faults),
        TH_TEST(test_hung_nvpmodel_killed),
        TH_TEST(test_recover_after_kill),
        TH_TEST(test_state_link_fifo),
        TH_TEST(test_unreadable_mode_refused),
        TH_TEST(test_caps_alone_restored_without_nvpmodel),
        TH_TEST(test_cap_above_the_modes_own),
        TH_TEST(test_reboot_mode_undone_at_once),
        TH_TEST(test_recover_refuses_odd_state),
        TH_TEST(test_desktop_refused),
        TH_TEST(test_tune_refuses_modes),
        TH_TEST(test_pareto_names_skipped_steps),
        TH_TEST(test_killed_run_restored),
        TH_TEST(test_signal_restores),
        TH_TEST(test_live_run_under_another_lock),
        TH_TEST(test_every_step_refused),
        TH_TEST(test_e2e_three_modes_pareto),
        TH_TEST(test_emc_cap_step_ceiling),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(lock);
    return rc;
}
