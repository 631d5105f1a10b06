/* test_e2e.c: the real binary, end to end, on the CPU backend: a sweep read back from its
 * gz log; element aliases logged by their canonical name; bad input exiting 2 with no log,
 * before the device opens; the machine-id read bounded; --quiet and progress only on a
 * terminal; a second run against a held lock. The logs' survival (signals, a full disk,
 * retention) is test_e2e_logs's, power through run and power test_e2e_power's, the other
 * commands test_e2e_commands's. Each test runs in the fixture of helpers.h (TH_TEST):
 * scratch directories, run outputs and the environment are undone after it. */
#include "e2e.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "measure/backend.h"
#include "log/csvlog.h"
#include "lib/util.h"

static void test_sweep_to_log(void **state)
{
    char *out;
    char *text = th_run_log("run " FAST " --sizes 64x64,31x33 --blocks 16x16,32x8 -o %s", 0, true,
                            &out, NULL);
    assert_non_null(strstr(out, "31 x 33"));
    assert_non_null(strstr(out, "log: "));
    assert_non_null(strstr(text, "# transpose-bench: "));
    assert_non_null(strstr(text, "# config: sweep.sizes = ( [64, 64], [31, 33] );"));
    assert_non_null(strstr(text, "# end: complete, 8 rows"));
    const char *header;
    assert_int_equal(th_data_rows(text, &header), 8); /* per size: copy_row, naive_row, blocked x2 */
    char v[256];
    for (int i = 0; i < 8; i++) {
        const char *row = th_row_at(header, i);
        assert_int_equal(th_field(header, row, "verified", v, sizeof(v)), 0);
        assert_string_equal(v, "ok");
        assert_int_equal(th_field(header, row, "status", v, sizeof(v)), 0);
        assert_string_equal(v, "ok");
        assert_int_equal(th_field(header, row, "backend", v, sizeof(v)), 0);
        assert_string_equal(v, "cpu");
        assert_int_equal(th_field(header, row, "gbps", v, sizeof(v)), 0);
        assert_true(atof(v) > 0);
        assert_int_equal(th_field(header, row, "reps", v, sizeof(v)), 0);
        assert_true(atoi(v) >= 3);
        assert_int_equal(th_field(header, row, "power_total_w", v, sizeof(v)), 0);
        assert_string_equal(v, "");               /* no source: empty, not zero */
        assert_int_equal(th_field(header, row, "power_samples", v, sizeof(v)), 0);
        assert_string_equal(v, "");
    }
    assert_int_equal(th_field(header, th_row_at(header, 0), "kernel", v, sizeof(v)), 0);
    assert_string_equal(v, "copy_row");
    assert_int_equal(th_field(header, th_row_at(header, 0), "frac_copy", v, sizeof(v)), 0);
    assert_string_equal(v, "1.0000");
    assert_int_equal(th_field(header, th_row_at(header, 7), "rows", v, sizeof(v)), 0);
    assert_string_equal(v, "31");
    assert_int_equal(th_field(header, th_row_at(header, 7), "block_x", v, sizeof(v)), 0);
    assert_string_equal(v, "32");
    assert_int_equal(th_field(header, th_row_at(header, 7), "grid_x", v, sizeof(v)), 0);
    assert_string_equal(v, "2");                  /* 33 columns in 32-wide tiles */
    free(text);
    free(out);
}

/* sweep.element=f32 and =float are one series: both logged as float, 4 bytes. */
static void test_element_alias_logged_canonical(void **state)
{
    const char *names[] = { "f32", "float" };
    for (int i = 0; i < 2; i++) {
        char args[256];
        snprintf(args, sizeof(args), "run " FAST " --sizes 16x16 --blocks 8x8 --kernels blocked "
                 "--set sweep.element=%s --quiet -o %%s", names[i]);
        char *text = th_keep(th_run_log(args, 0, true, NULL, NULL));
        assert_non_null(strstr(text, "# config: sweep.element = \"float\";"));
        const char *header;
        assert_int_equal(th_data_rows(text, &header), 2);   /* copy_row and blocked */
        char v[64];
        for (int r = 0; r < 2; r++) {
            assert_int_equal(th_field(header, th_row_at(header, r), "elem", v, sizeof(v)), 0);
            assert_string_equal(v, "float");
            assert_int_equal(th_field(header, th_row_at(header, r), "elem_bytes", v, sizeof(v)), 0);
            assert_string_equal(v, "4");
        }
    }
}

/* The fixture restores the environment: what one test sets, the next does not see. */
static void test_env_set_in_a_test(void **state)
{
    setenv("TB_TEST_LEAK_PROBE", "1", 1);
    setenv("TB_LOCK_FILE", "/nonexistent/lock", 1);   /* changed, not only added */
}

static void test_env_restored_after_it(void **state)
{
    assert_null(getenv("TB_TEST_LEAK_PROBE"));
    assert_string_equal(getenv("TB_LOCK_FILE"), th_lock_file());
}

/* A lock path's folder (lstat: not a link) is this user's and no one else's: a lock at a name
 * under /tmp derived from the pid (as the tests' locks were) is a link any user can plant
 * for root's open(O_CREAT) to follow; the group's lock (th_lock_setup) and a suite's own
 * (th_own_lock) are in th_own_dir's mkdtemp folder. */
static void lock_folder_private(const char *lock)
{
    char dir[PATH_MAX];
    tb_strlcpy(dir, lock, sizeof(dir));
    char *slash = strrchr(dir, '/');
    assert_non_null(slash);
    *slash = '\0';
    struct stat st;
    assert_int_equal(lstat(dir, &st), 0);
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
        th_fail("lock '%s': its folder is mode %04o of uid %u, not a folder only uid %u may use",
                lock, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)geteuid());
}

static void test_test_locks_in_a_private_folder(void **state)
{
    lock_folder_private(th_lock_file());
    th_own_lock("probe");   /* the teardown puts TB_LOCK_FILE back */
    lock_folder_private(getenv("TB_LOCK_FILE"));
    assert_string_not_equal(getenv("TB_LOCK_FILE"), th_lock_file());
}

/* Configuration problems are reported before the device opens: a fake GPU that records
 * each context made sees none for a bad sweep (not even cuInit: the lock comes first); a
 * block above the device's limit, which needs the driver's answer, is found after cuInit
 * and still before any context (the control: the trace can fill). */
static void test_config_errors_before_the_device(void **state)
{
    if (!strncmp(tb_backend_cuda.images((char[1024]){ 0 }, 1024), "none", 4))
        skip();   /* without kernel images the GPU is never opened at all */
    const char *dir = th_scratch(), *b = getenv("TB_BUILD");
    char lib[2 * PATH_MAX], trace[PATH_MAX + 16], cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(lib, sizeof(lib), "%s/tests/libfake-cuda.so", b ? b : "build");
    if (lib[0] != '/')
        snprintf(lib, sizeof(lib), "%s/%s/tests/libfake-cuda.so", cwd, b ? b : "build");
    snprintf(trace, sizeof(trace), "%s/trace", dir);
    setenv("TB_CUDA_LIB", lib, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_TRACE", trace, 1);
#define ON_GPU "run --device cuda -b boards/generic.cfg --set power.source=none --sizes 64x64 "
    assert_int_equal(th_runf(ON_GPU "--set sweep.warmup=-1 --kernels tiledd -o %s/l", dir), 2);
    assert_non_null(strstr(th_err(), "'sweep.warmup' must be between 0 and 1000000, got -1"));
    assert_non_null(strstr(th_err(), "unknown kernel 'tiledd' (did you mean 'tiled'?)"));
    assert_int_equal(access(trace, F_OK), -1);             /* no context was made */
    assert_int_equal(th_runf(ON_GPU "--kernels tiled --blocks 64x32 -o %s/l", dir), 2);
    assert_non_null(strstr(th_err(), "block 64x32 has 2048 threads, above the device's limit "
                                      "of 1024"));
    char *t = th_read_gz(trace);
    assert_non_null(t);
    assert_string_equal(t, "init\n");
    free(t);
    assert_int_equal(th_count_files(dir), 1);              /* the trace: no log, no folder */
#undef ON_GPU
}

static void test_bad_config_exits_2_without_log(void **state)
{
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run " FAST " -c tests/fixtures/config/bad-many.cfg -o %s", dir);
    assert_int_equal(th_runf("%s", args), 2);
    /* every problem, in one pass */
    assert_non_null(strstr(th_err(), "bad-many.cfg:8: 'sweep.cache' must be one of warm,cold"));
    assert_non_null(strstr(th_err(), "bad-many.cfg:10: unknown setting 'sweep.stop.min_rep'"));
    assert_int_equal(th_count_files(dir), 0);
    snprintf(args, sizeof(args), "run " FAST " --kernels blokced --sizes 8x8 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 2);
    assert_non_null(strstr(th_err(), "transpose-bench: --kernels blokced: unknown kernel 'blokced' "
                                "(did you mean 'blocked'?)"));
    assert_int_equal(th_count_files(dir), 0);
    snprintf(args, sizeof(args), "run " FAST " --sizes 8x0 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 2);
    assert_non_null(strstr(th_err(), "--sizes 8x0: 'sweep.sizes' entry 1"));
    assert_int_equal(th_runf("run --device tpu"), 2);
    assert_non_null(strstr(th_err(), "--device 'tpu': expected auto, cpu, cuda or cuda:N"));
    assert_int_equal(th_runf("frobnicate"), 2);
}

/* The machine-id is read by the bounded reader: a relative link to D-Bus's copy under
 * TB_ROOT is followed, and a FIFO in its place neither hangs the run nor becomes an id. */
static void test_machine_id_read_bounded(void **state)
{
    const char *root = th_scratch();
    char p[1024], q[1024];
    const char *dirs[] = { "etc", "var", "var/lib", "var/lib/dbus" };
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
        assert_int_equal(mkdir(p, 0755), 0);
    }
    snprintf(p, sizeof(p), "%s/var/lib/dbus", root);
    free(th_write(p, "machine-id", "0123456789abcdef0123456789abcdef\n"));
    snprintf(p, sizeof(p), "%s/etc/machine-id", root);
    assert_int_equal(symlink("../var/lib/dbus/machine-id", p), 0);
    setenv("TB_ROOT", root, 1);
    char *text = th_run_log("run " FAST " --kernels naive_row --sizes 16x16 -o %s", 0, true,
                            NULL, NULL);
    assert_non_null(strstr(text, "\n# machine_id: 0123456789abcdef0123456789abcdef\n"));
    free(text);
    assert_int_equal(unlink(p), 0);
    snprintf(q, sizeof(q), "%s/var/lib/dbus/machine-id", root);
    assert_int_equal(unlink(q), 0);
    assert_int_equal(mkfifo(p, 0600), 0);
    text = th_run_log("run " FAST " --kernels naive_row --sizes 16x16 -o %s", 0, true, NULL, NULL);
    assert_null(strstr(text, "# machine_id:"));
    free(text);
}

static void test_quiet_prints_nothing(void **state)
{
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run " FAST " --sizes 16x16 --quiet -o %s", dir);
    assert_int_equal(th_runf("%s", args), 0);
    assert_string_equal(th_out(), "");
    assert_string_equal(th_err(), "");
}

/* Progress goes to a terminal, never into pipes or the log. `script` gives the run a pty. */
static void test_progress_only_on_a_terminal(void **state)
{
    if (system("command -v script >/dev/null 2>&1") != 0)
        th_fail("util-linux's script is needed to give the run a terminal");
    const char *dir = th_scratch();
    char cmd[4 * PATH_MAX], out[PATH_MAX];
    const char *bin = getenv("TB_BIN");
    snprintf(out, sizeof(out), "%s/tty.txt", dir);
    snprintf(cmd, sizeof(cmd), "script -qec '%s run " FAST " --sizes 64x64 --blocks 8x8,16x16 "
             "-o %s/logs' %s >/dev/null 2>&1", bin ? bin : "./transpose-bench", dir, out);
    assert_int_equal(system(cmd), 0);
    char *tty = th_read_gz(out);
    assert_non_null(strstr(tty, "[1/4] copy_row 64x64"));      /* points done of total */
    assert_non_null(strstr(tty, "[4/4] blocked 64x64 block 16x16"));
    assert_non_null(strstr(tty, " left)"));                    /* time left */
    char logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    char *log = th_only_log(logs);
    char *text = th_read_gz(log);
    assert_null(strstr(text, "[1/4]"));
    free(text);
    free(log);
    free(tty);
    /* a pipe: no progress */
    assert_int_equal(th_runf("run " FAST " --sizes 64x64 -o %s/logs2", dir), 0);
    assert_null(strstr(th_err(), "[1/"));
    assert_null(strstr(th_out(), "[1/"));
}

static void test_lock_held_exits_75(void **state)
{
    const char *dir = th_scratch();
    char args[1024];
    /* a second process holds the lock: this test process plays the first run */
    int fd = open(th_lock_file(), O_RDWR | O_CREAT, 0666);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    assert_true(ftruncate(fd, 0) == 0);
    char pid[32];
    int l = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    assert_int_equal(pwrite(fd, pid, (size_t)l, 0), l);
    snprintf(args, sizeof(args), "run " FAST " --sizes 16x16 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 75);
    char want[128];
    snprintf(want, sizeof(want), "another transpose-bench run (pid %ld, uid", (long)getpid());
    assert_non_null(strstr(th_err(), want));
    assert_int_equal(th_count_files(dir), 0);
    /* the holder dies (its flock goes with it): a stale file does not block */
    close(fd);
    assert_int_equal(th_runf("%s", args), 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_sweep_to_log),
        TH_TEST(test_element_alias_logged_canonical),
        TH_TEST(test_env_set_in_a_test),
        TH_TEST(test_env_restored_after_it),
        TH_TEST(test_test_locks_in_a_private_folder),
        TH_TEST(test_config_errors_before_the_device),
        TH_TEST(test_bad_config_exits_2_without_log),
        TH_TEST(test_quiet_prints_nothing),
        TH_TEST(test_machine_id_read_bounded),
        TH_TEST(test_progress_only_on_a_terminal),
        TH_TEST(test_lock_held_exits_75),
    };
    return cmocka_run_group_tests_name("e2e", tests, th_lock_setup, th_lock_teardown);
}
