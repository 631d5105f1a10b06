/* test_e2e.c: the real binary, end to end, on the CPU backend: a sweep read back from its
 * gz log; bad input exiting 2 with no log; a second run against a held lock; signals
 * during a sweep; a full disk; power from a fake tegrastats, a fake NVML and a fake
 * sysfs tree through `run` and `power`; compare on logs the tool wrote; element aliases
 * logged by their canonical name. Each test runs in the fixture of helpers.h (TH_TEST):
 * scratch directories, run outputs and the environment are undone after it. */
#include "helpers.h"

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

static char lockfile[PATH_MAX];

static int setup(void **state)
{
    snprintf(lockfile, sizeof(lockfile), "/tmp/tb-test-lock-%ld", (long)getpid());
    setenv("TB_LOCK_FILE", lockfile, 1);
    return 0;
}

static int teardown(void **state)
{
    unlink(lockfile);
    return 0;
}

/* Small, fast sweep options for the CPU. */
#define FAST "--device cpu -b boards/generic.cfg --set power.source=none " \
             "--set sweep.stop.min_time_ms=5 --set sweep.stop.min_reps=3 --set sweep.warmup=1"

static char *only_log(const char *dir)
{
    char *p = th_find_one(dir, ".csv.gz");
    assert_non_null(p);
    return p;
}

/* Lines of a log that are data rows (not comments, not the header). */
static int data_rows(const char *text, const char **header)
{
    int n = 0;
    *header = NULL;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (*p == '#' || *p == '\n')
            continue;
        if (!*header)
            *header = p;
        else
            n++;
    }
    return n;
}

/* Row i (0-based) after the header. */
static const char *row_at(const char *header, int i)
{
    const char *p = strchr(header, '\n') + 1;
    for (int k = 0; k < i; p = strchr(p, '\n') + 1)
        if (*p != '#')
            k++;
    while (*p == '#')
        p = strchr(p, '\n') + 1;
    return p;
}

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
    assert_int_equal(data_rows(text, &header), 8); /* per size: copy_row, naive_row, blocked x2 */
    char v[256];
    for (int i = 0; i < 8; i++) {
        const char *row = row_at(header, i);
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
    assert_int_equal(th_field(header, row_at(header, 0), "kernel", v, sizeof(v)), 0);
    assert_string_equal(v, "copy_row");
    assert_int_equal(th_field(header, row_at(header, 0), "frac_copy", v, sizeof(v)), 0);
    assert_string_equal(v, "1.0000");
    assert_int_equal(th_field(header, row_at(header, 7), "rows", v, sizeof(v)), 0);
    assert_string_equal(v, "31");
    assert_int_equal(th_field(header, row_at(header, 7), "block_x", v, sizeof(v)), 0);
    assert_string_equal(v, "32");
    assert_int_equal(th_field(header, row_at(header, 7), "grid_x", v, sizeof(v)), 0);
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
        assert_int_equal(data_rows(text, &header), 2);   /* copy_row and blocked */
        char v[64];
        for (int r = 0; r < 2; r++) {
            assert_int_equal(th_field(header, row_at(header, r), "elem", v, sizeof(v)), 0);
            assert_string_equal(v, "float");
            assert_int_equal(th_field(header, row_at(header, r), "elem_bytes", v, sizeof(v)), 0);
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
    assert_string_equal(getenv("TB_LOCK_FILE"), lockfile);
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
    char *log = only_log(logs);
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
    int fd = open(lockfile, O_RDWR | O_CREAT, 0666);
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

static pid_t spawn(const char *args)
{
    const char *bin = getenv("TB_BIN");
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "exec %s %s >/dev/null%s", bin ? bin : "./transpose-bench",
             args, strstr(args, "2>") ? "" : " 2>&1");
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Waits until the log (or its .part) in dir holds at least rows data rows. */
static char *wait_rows(const char *dir, int rows, double seconds)
{
    for (int i = 0; i < (int)(seconds * 20); i++) {
        char *p = th_find_one(dir, ".part");
        if (p) {
            char *text = th_read_gz(p);
            const char *h;
            if (text && data_rows(text, &h) >= rows) {
                free(text);
                return p;
            }
            free(text);
            free(p);
        }
        usleep(50000);
    }
    return NULL;
}

#define SLOW "--device cpu -b boards/generic.cfg --set power.source=none --sizes 256x256 " \
             "--blocks 8x8,16x16,32x32,64x64,4x4,2x2 --set sweep.stop.min_time_ms=400 " \
             "--set sweep.stop.rel_spread=0 --set sweep.stop.max_time_ms=500"

static void test_signals_close_the_log(void **state)
{
    const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
    const char *names[] = { "Terminated", "Interrupt", "Hangup" };
    for (int s = 0; s < 3; s++) {
        const char *dir = th_scratch();
        char args[1024];
        snprintf(args, sizeof(args), "run " SLOW " -o %s", dir);
        pid_t pid = spawn(args);
        char *part = wait_rows(dir, 2, 20);
        assert_non_null(part);
        free(part);
        kill(pid, sigs[s]);
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 1);
        assert_null(th_find_one(dir, ".part"));
        char *log = only_log(dir);
        char *text = th_read_gz(log);
        char want[64];
        snprintf(want, sizeof(want), "# end: interrupted by %s,", names[s]);
        assert_non_null(strstr(text, want));
        const char *header;
        int rows = data_rows(text, &header);
        assert_true(rows >= 2 && rows < 8);
        char v[64];
        for (int i = 0; i < rows; i++) {       /* every row written is a whole, good row */
            assert_int_equal(th_field(header, row_at(header, i), "status", v, sizeof(v)), 0);
            assert_string_equal(v, "ok");
        }
        free(text);
        free(log);
    }
}

static void test_sigkill_leaves_readable_rows(void **state)
{
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run " SLOW " -o %s", dir);
    pid_t pid = spawn(args);
    char *part = wait_rows(dir, 2, 20);
    assert_non_null(part);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    char *text = th_read_gz(part);          /* as zcat would: every synced row is there */
    const char *header;
    assert_true(data_rows(text, &header) >= 2);
    assert_null(strstr(text, "# end:"));
    assert_null(th_find_one(dir, ".csv.gz")); /* no file with the final name */
    free(text);
    free(part);
}

static void test_full_disk_keeps_earlier_logs(void **state)
{
    const char *dir = th_scratch();
    char args[2048];
    /* an earlier night's log, and a file size limit that the new log will hit */
    char *old = th_write(dir, "vm_generic_20260101T000000Z.csv.gz", "earlier log\n");
    const char *bin = getenv("TB_BIN");
    snprintf(args, sizeof(args), "sh -c 'ulimit -f 2; exec %s run " FAST " --sizes 16x16,8x8 "
             "--blocks 4x4,2x2,1x1,8x8,16x16 -o %s' >/dev/null 2>/tmp/tb-fsz-%ld", bin ? bin :
             "./transpose-bench", dir, (long)getpid());
    int st = system(args);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    char errpath[64];
    snprintf(errpath, sizeof(errpath), "/tmp/tb-fsz-%ld", (long)getpid());
    char *e = th_read_gz(errpath);
    assert_non_null(strstr(e, "cannot write log"));
    assert_non_null(strstr(e, "File too large"));
    free(e);
    unlink(errpath);
    char *t = th_read_gz(old);
    assert_string_equal(t, "earlier log\n");
    free(t);
    free(old);
    /* a log directory that cannot be made (a file is in the way) */
    char *blocker = th_write(dir, "notadir", "x");
    snprintf(args, sizeof(args), "run " FAST " --sizes 16x16 -o %s/sub", blocker);
    assert_int_equal(th_runf("%s", args), 1);
    assert_non_null(strstr(th_err(), "cannot create log directory"));
    free(blocker);
}

static void test_log_dir_removed_mid_run(void **state)
{
    const char *dir = th_scratch();
    char args[3 * PATH_MAX], logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    snprintf(args, sizeof(args), "run " SLOW " -o %s 2>%s/err", logs, dir);
    pid_t pid = spawn(args);
    char *part = wait_rows(logs, 2, 20);
    assert_non_null(part);
    free(part);
    th_rmtree(logs);                            /* someone cleans up during the run */
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char errp[PATH_MAX];
    snprintf(errp, sizeof(errp), "%s/err", dir);
    char *err = th_read_gz(errp);
    assert_non_null(strstr(err, "vanished during the run: recreated it"));
    free(err);
    char *log = only_log(logs);                 /* every row, in a whole log */
    char *text = th_read_gz(log);
    const char *header;
    assert_int_equal(data_rows(text, &header), 8);
    assert_non_null(strstr(text, "# end: complete, 8 rows"));
    free(text);
    free(log);
}

/* Retention removes this host's old logs of this board, and nothing else: not other
 * hosts' logs (pulled back from boards into one folder), not other boards', not files
 * that only look like logs, not files whose names are ours but whose metadata says another
 * host or board (whose a log is comes from inside it). */
static void test_retention_only_own_logs(void **state)
{
    const char *dir = th_scratch();
    char args[1024], host[128] = "host";
    gethostname(host, sizeof(host) - 1);
    char raw[128];
    tb_strlcpy(raw, host, sizeof(raw));
    tb_log_name_part(host, sizeof(host));
    /* a real log of this host and board, as the template of the old ones */
    snprintf(args, sizeof(args), "run " FAST " --sizes 8x8 -o %s/first", dir);
    assert_int_equal(th_runf("%s", args), 0);
    char first[PATH_MAX];
    snprintf(first, sizeof(first), "%s/first", dir);
    char *log = th_find_one(first, ".csv.gz");
    assert_non_null(log);
    char *text = th_read_gz(log);
    assert_non_null(text);
    char hostline[300], *other_host = NULL, *other_board = NULL;
    snprintf(hostline, sizeof(hostline), "# host: %s\n", raw);
    const char *hl = strstr(text, hostline), *bl = strstr(text, "# board: generic,");
    assert_non_null(hl);
    assert_non_null(bl);
    assert_int_not_equal(asprintf(&other_host, "%.*s# host: jetson1%s\n%s", (int)(hl - text), text,
                                  raw, hl + strlen(hostline)), -1);
    assert_int_not_equal(asprintf(&other_board, "%.*s# board: jetson-nano,%s", (int)(bl - text),
                                  text, bl + strlen("# board: generic,")), -1);
    char names[10][300];
    snprintf(names[0], 300, "%s_generic_20200101T000000Z.csv.gz", host);
    snprintf(names[1], 300, "%s_generic_20200102T000000Z.csv.gz", host);
    snprintf(names[2], 300, "%s_generic_20200103T000000Z-2.csv.gz", host);
    snprintf(names[3], 300, "notes.txt");
    snprintf(names[4], 300, "results.csv.gz");
    snprintf(names[5], 300, "%s_generic_2020.csv.gz", host);
    snprintf(names[6], 300, "jetson1%s_generic_20200101T000000Z.csv.gz", host);  /* another host */
    snprintf(names[7], 300, "%s_jetson-nano_20200101T000000Z.csv.gz", host);     /* another board */
    snprintf(names[8], 300, "%s_generic_20200101T010000Z.csv.gz", host);   /* ours by name only */
    snprintf(names[9], 300, "%s_generic_20200101T020000Z.csv.gz", host);
    for (int i = 0; i < 10; i++)
        free(th_write(dir, names[i], i <= 2 || i == 5 ? text : i == 6 || i == 8 ? other_host
                                     : i == 7 || i == 9 ? other_board : "x\n"));
    snprintf(args, sizeof(args), "run " FAST " --sizes 8x8 --set output.keep_logs=2 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 0);
    char p[PATH_MAX];
    /* the new log and the newest old one stay; others of ours go; nothing else is touched */
    snprintf(p, sizeof(p), "%s/%s", dir, names[2]);
    assert_int_equal(access(p, F_OK), 0);
    snprintf(p, sizeof(p), "%s/%s", dir, names[1]);
    assert_int_equal(access(p, F_OK), -1);
    snprintf(p, sizeof(p), "%s/%s", dir, names[0]);
    assert_int_equal(access(p, F_OK), -1);
    for (int i = 3; i < 10; i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
        assert_int_equal(access(p, F_OK), 0);
    }
    assert_int_equal(th_count_files(dir), 10);   /* 8 left, the new log, the folder first */
    free(other_host);
    free(other_board);
    free(text);
    free(log);
}

/* A board file that replays a fixture through the fake tegrastats; no warming before the
 * sweep (settle_s = 0: the warming is test_power_*'s, and its load is real work). */
static char *tegra_board(const char *dir, const char *extra)
{
    char text[PATH_MAX + 1024], cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(text, sizeof(text),
             "board = { name = \"orin-nano-replay\"; peak_gbps = 68.0; };\n"
             "power = { source = \"tegrastats\"; interval_ms = 100; window_ms = 700; "
             "min_readings = 2; max_rel_ci = 10.0; "
             "idle_ms = 400; settle_s = 0; total_rail = \"VDD_IN\"; gpu_rail = \"VDD_CPU_GPU_CV\";\n"
             "  tegrastats = { command = \"%s/tests/fake-tegrastats.sh\"; }; %s };\n",
             cwd, extra);
    return th_write(dir, "board.cfg", text);
}

static void test_tegrastats_through_run(void **state)
{
    setenv("TB_FAKE_CLOCK", "1", 1);   /* the run keeps virtual time: no real sleep */
    const char *dir = th_scratch();
    char *out, args[2048];
    setenv("TB_FAKE_TEGRASTATS_FILE", th_fixture("tegrastats/orin-nano-jp6.txt"), 1);
    char *board = tegra_board(dir, "");
    /* one round (test_power_rounds has the rounds): its windows' load is real work */
    snprintf(args, sizeof(args), "run --device cpu -b %s --sizes 128x128 --kernels blocked "
             "--blocks 16x16 --set sweep.stop.min_time_ms=5 --set power.rounds=1 -o %%s", board);
    char *text = th_run_log(args, 0, true, &out, NULL);
    assert_non_null(strstr(out, "GB/s/W"));
    assert_non_null(strstr(out, "idle power"));
    const char *header;
    assert_int_equal(data_rows(text, &header), 2);
    char v[64];
    for (int i = 0; i < 2; i++) {
        const char *row = row_at(header, i);
        th_field(header, row, "power_source", v, sizeof(v));
        assert_string_equal(v, "tegrastats");
        th_field(header, row, "power_total_w", v, sizeof(v));
        /* VDD_IN cycles through 12.479, 4.824, 5.251 and 16.321 W */
        assert_true(atof(v) >= 4.8 && atof(v) <= 16.4);
        th_field(header, row, "power_gpu_w", v, sizeof(v));
        assert_true(atof(v) >= 0.5 && atof(v) <= 7.2);
        th_field(header, row, "power_samples", v, sizeof(v));
        assert_true(atoi(v) >= 3);
        th_field(header, row, "rail_total", v, sizeof(v));
        assert_string_equal(v, "VDD_IN");
        th_field(header, row, "rail_gpu", v, sizeof(v));
        assert_string_equal(v, "VDD_CPU_GPU_CV");
        th_field(header, row, "gbps_per_w", v, sizeof(v));
        assert_true(atof(v) > 0);
        th_field(header, row, "power_idle_w", v, sizeof(v));
        assert_true(atof(v) >= 4.8 && atof(v) <= 16.4);
        th_field(header, row, "gpu_temp_c", v, sizeof(v));
        assert_true(atof(v) >= 49 && atof(v) <= 59);
        double temp = atof(v);   /* the range at which the absolute figures hold */
        assert_int_equal(th_field(header, row, "gpu_temp_min_c", v, sizeof(v)), 0);
        assert_true(v[0] && atof(v) >= 49 && atof(v) <= temp);
        assert_int_equal(th_field(header, row, "gpu_temp_max_c", v, sizeof(v)), 0);
        assert_true(v[0] && atof(v) >= temp && atof(v) <= 59);
    }
    assert_non_null(strstr(text, "# sampler: "));
    free(text);
    free(board);
    free(out);
}

static void test_tegrastats_dies_mid_run(void **state)
{
    setenv("TB_FAKE_CLOCK", "1", 1);   /* the run keeps virtual time: no real sleep */
    const char *dir = th_scratch();
    char args[2048];
    setenv("TB_FAKE_TEGRASTATS_FILE", th_fixture("tegrastats/nano-jp4.txt"), 1);
    setenv("TB_FAKE_TEGRASTATS_EXIT", "1", 1);       /* one pass of 4 lines, then exit */
    setenv("TB_FAKE_TEGRASTATS_GARBAGE", "1", 1);
    char *board = tegra_board(dir, "");
    snprintf(args, sizeof(args), "run --device cpu -b %s --sizes 64x64 --kernels blocked "
             "--blocks 4x4,8x8,16x16,32x32 --set sweep.stop.min_time_ms=5 "
             "--set power.total_rail=POM_5V_IN -o %%s", board);
    char *err;
    char *text = th_run_log(args, 0, true, NULL, &err);   /* the sweep goes on */
    const char *w = strstr(err, "power source 'tegrastats' failed");
    assert_non_null(w);
    assert_null(strstr(w + 1, "power source 'tegrastats' failed"));   /* said once */
    const char *header;
    int rows = data_rows(text, &header);
    assert_int_equal(rows, 5);
    char v[64];
    th_field(header, row_at(header, rows - 1), "power_total_w", v, sizeof(v));
    assert_string_equal(v, "");                       /* rows after the failure: no figures */
    th_field(header, row_at(header, rows - 1), "status", v, sizeof(v));
    assert_string_equal(v, "ok");
    free(text);
    free(board);
    free(err);
}

static void test_power_command_csv(void **state)
{
    setenv("TB_FAKE_CLOCK", "1", 1);   /* the run keeps virtual time: no real sleep */
    const char *dir = th_scratch();
    char args[2048];
    setenv("TB_FAKE_TEGRASTATS_FILE", th_fixture("tegrastats/tx2-jp-unknown.txt"), 1);
    char *board = tegra_board(dir, "");
    snprintf(args, sizeof(args), "power -b %s --seconds 1.2 --format csv", board);
    assert_int_equal(th_runf("%s", args), 0);
    assert_true(!strncmp(th_out(), "elapsed_s,source,rail,power_mw\n", 31));
    /* the first TX2 line's rails in the order tegrastats prints them */
    const char *r = strchr(th_out(), '\n') + 1;
    const char *order[] = { "VDD_SYS_GPU", "VDD_SYS_SOC", "VDD_4V0_WIFI", "VDD_IN", "VDD_SYS_CPU",
                            "VDD_SYS_DDR" };
    const char *vals[] = { "152", "687", "0", "3056", "152", "883" };
    for (int i = 0; i < 6; i++) {
        char want[64];
        snprintf(want, sizeof(want), ",tegrastats,%s,%s\n", order[i], vals[i]);
        const char *hit = strstr(r, want);
        if (!hit)
            th_fail("missing %s in\n%s", want, th_out());
        r = hit + 1;
    }
    int lines = 0;
    for (const char *p = th_out(); *p; p++)
        lines += *p == '\n';
    assert_true(lines >= 1 + 6 * 5);   /* >= 5 samples in 1.2 s at 100 ms */
    free(board);
}

static void test_power_command_ina3221_tree(void **state)
{
    setenv("TB_FAKE_CLOCK", "1", 1);   /* the run keeps virtual time: no real sleep */
    const char *dir = th_scratch();
    char args[2048], text[1024];
    assert_true(th_build_sysfs(dir, "ina3221/nano.txt", 0) > 0);
    snprintf(text, sizeof(text), "board = { name = \"nano\"; };\npower = { source = \"ina3221\"; "
             "interval_ms = 100; sysfs_root = \"%s\"; };\n", dir);
    char *board = th_write(dir, "board.cfg", text);
    snprintf(args, sizeof(args), "power -b %s --seconds 0.5 --format csv", board);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_out(), ",ina3221,POM_5V_IN,1022\n"));
    assert_non_null(strstr(th_out(), ",ina3221,POM_5V_CPU,204\n"));
    /* the table form, and auto picking ina3221 from the same tree */
    snprintf(text, sizeof(text), "board = { name = \"nano\"; };\npower = { source = \"auto\"; "
             "interval_ms = 100; sysfs_root = \"%s\"; };\n", dir);
    free(board);
    board = th_write(dir, "board.cfg", text);
    snprintf(args, sizeof(args), "power -b %s --seconds 0.3", board);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_out(), "source ina3221"));
    assert_non_null(strstr(th_out(), "POM_5V_IN"));
    free(board);
}

static void test_nvml_energy_through_run(void **state)
{
    char lib[PATH_MAX];
    const char *b = getenv("TB_BUILD");
    snprintf(lib, sizeof(lib), "%s/tests/libfake-nvml.so", b ? b : "build");
    setenv("TB_NVML_LIB", lib, 1);
    char *text = th_run_log("run --device cpu -b boards/desktop-nvml.cfg --sizes 128x128 "
                            "--kernels blocked --blocks 16x16 --set sweep.stop.min_time_ms=5 "
                            "--set power.idle_ms=300 --set power.budget_s=2 "
                            "--set power.settle_s=0 -o %s", 0, true,
                            NULL, NULL);
    const char *header;
    assert_int_equal(data_rows(text, &header), 2);
    char v[64], e[64], c[64], g[64];
    const char *row = row_at(header, 1);
    th_field(header, row, "power_total_w", v, sizeof(v));
    th_assert_close(atof(v), 100.0, 1.0);   /* from the counter, not the lagging reading */
    th_field(header, row, "energy_j", e, sizeof(e));
    th_field(header, row, "energy_counter_j", c, sizeof(c));
    th_field(header, row, "window_ms", v, sizeof(v));
    double secs = atof(v) / 1000;
    th_assert_close(atof(e), 60.0 * secs, 0.01 * atof(e));     /* trapezoid of 60 W */
    th_assert_close(atof(c), 100.0 * secs, 0.02 * atof(c));    /* the counter's 100 W */
    /* the absolute figures from the ratio to the copy (test_power_meter has their truth):
     * GB/s per W and J/GB are one figure, with an interval each */
    th_field(header, row, "gbps_per_w", g, sizeof(g));
    th_field(header, row, "j_per_gb", v, sizeof(v));
    th_assert_close(atof(g) * atof(v), 1.0, 0.002);
    th_field(header, row, "energy_ratio", v, sizeof(v));
    assert_true(atof(v) > 0);
    th_field(header, row, "energy_ratio_ci95", v, sizeof(v));
    assert_true(v[0] != 0);
    th_field(header, row, "gpu_clock_mhz", v, sizeof(v));
    assert_string_equal(v, "1500");
    /* the desktop's run conditions, and throttled judged against NVML's max SM clock */
    assert_non_null(strstr(text, "# gpu_conditions: SM clock 1500 MHz, max 1980 MHz, power limit "
                                 "700 W, 60 C (from nvml)\n"));
    th_field(header, row, "gpu_max_mhz", v, sizeof(v));
    assert_string_equal(v, "1980");
    free(text);
}

/* make install into a DESTDIR; the installed binary, run from elsewhere, finds its files. */
static void test_install_and_uninstall(void **state)
{
    const char *dir = th_scratch();
    char cmd[4 * PATH_MAX], bin[PATH_MAX], runner[64] = "";
    const char *b = getenv("TB_BIN");
    const char *sp = b ? strrchr(b, ' ') : NULL;       /* "qemu-aarch64 /path/bin" */
    snprintf(bin, sizeof(bin), "%s", sp ? sp + 1 : b ? b : "./transpose-bench");
    if (sp)
        snprintf(runner, sizeof(runner), "%.*s ", (int)(sp - b), b);
    /* -o: install the binary under test as it is, never rebuild it (it may be aarch64) */
    snprintf(cmd, sizeof(cmd), "make -s -o %s install BIN=%s DESTDIR=%s PREFIX=/opt/tb "
             ">/dev/null 2>&1", bin, bin, dir);
    assert_int_equal(system(cmd), 0);
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/opt/tb/share/man/man1/transpose-bench.1", dir);
    assert_int_equal(access(p, R_OK), 0);
    snprintf(p, sizeof(p), "%s/opt/tb/share/transpose-bench/boards/jetson-nano.cfg", dir);
    assert_int_equal(access(p, R_OK), 0);
    /* from / : conf/default.cfg and boards/ must come from the installed share directory */
    snprintf(cmd, sizeof(cmd), "cd / && %s%s/opt/tb/bin/transpose-bench run --device cpu "
             "--sizes 8x8 --set power.source=none --set sweep.stop.min_time_ms=1 -q -o %s/logs "
             "&& %s%s/opt/tb/bin/transpose-bench list -b jetson-nano | grep -q 'board .jetson-nano'",
             runner, dir, dir, runner, dir);
    assert_int_equal(system(cmd), 0);
    char logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    char *log = only_log(logs);
    free(log);
    snprintf(cmd, sizeof(cmd), "make -s uninstall DESTDIR=%s PREFIX=/opt/tb >/dev/null 2>&1", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(p, sizeof(p), "%s/opt/tb/bin/transpose-bench", dir);
    assert_int_equal(access(p, F_OK), -1);
    snprintf(p, sizeof(p), "%s/opt/tb/share/transpose-bench", dir);
    assert_int_equal(access(p, F_OK), -1);
}

static void test_tune_writes_a_sweep_run_takes(void **state)
{
    const char *dir = th_scratch();
    char args[3 * PATH_MAX], tuned[PATH_MAX];
    snprintf(tuned, sizeof(tuned), "%s/tuned.cfg", dir);
    snprintf(args, sizeof(args), "tune " FAST " --sizes 64x64,31x33 --blocks 4x4,8x8,16x16 "
             "-o %s/logs --out %s", dir, tuned);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_err(), "tune: measured 10 of 10 candidate points (100%)"));
    char *text = th_read_gz(tuned);
    /* one best block per kernel and size; blocked's is one of the candidates */
    const char *p = strstr(text, "{ kernel = \"blocked\"; size = [ 64, 64 ]; block = [ ");
    assert_non_null(p);
    assert_null(strstr(p + 1, "{ kernel = \"blocked\"; size = [ 64, 64 ]"));
    int bx = atoi(p + strlen("{ kernel = \"blocked\"; size = [ 64, 64 ]; block = [ "));
    assert_true(bx == 4 || bx == 8 || bx == 16);
    free(text);
    /* the nightly run measures exactly those points */
    snprintf(args, sizeof(args), "run --device cpu -b boards/generic.cfg --set power.source=none "
             "-c %s --set sweep.stop.min_time_ms=1 -o %s/run", tuned, dir);
    assert_int_equal(th_runf("%s", args), 0);
    char runs[PATH_MAX];
    snprintf(runs, sizeof(runs), "%s/run", dir);
    char *log = only_log(runs);
    char *t2 = th_read_gz(log);
    const char *header;
    assert_int_equal(data_rows(t2, &header), 6);   /* copy_row, naive_row, blocked per size */
    free(t2);
    free(log);
    /* per element type: a u8 search writes a u8 sweep, whose run measures bytes */
    snprintf(args, sizeof(args), "tune " FAST " --sizes 31x33 --blocks 4x4,8x8 "
             "--set sweep.element=u8 -o %s/logs3 --out %s/t8.cfg", dir, dir);
    assert_int_equal(th_runf("%s", args), 0);
    char t8[PATH_MAX + 16];
    snprintf(t8, sizeof(t8), "%s/t8.cfg", dir);
    text = th_read_gz(t8);
    assert_non_null(strstr(text, "element = \"u8\";"));
    free(text);
    snprintf(args, sizeof(args), "run --device cpu -b boards/generic.cfg --set power.source=none "
             "-c %s --set sweep.stop.min_time_ms=1 -o %s/run8", t8, dir);
    assert_int_equal(th_runf("%s", args), 0);
    snprintf(runs, sizeof(runs), "%s/run8", dir);
    log = only_log(runs);
    t2 = th_read_gz(log);
    assert_non_null(strstr(t2, ",blocked,u8,1,31,33,"));
    free(t2);
    free(log);
    /* a budget that ends the search early says how much it covered */
    snprintf(args, sizeof(args), "tune --device cpu -b boards/generic.cfg --set power.source=none "
             "--sizes 256x256 --set sweep.stop.min_time_ms=400 --seconds 1 -o %s/logs2 "
             "--out %s/t2.cfg", dir, dir);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_err(), "candidate points ("));
    assert_null(strstr(th_err(), "(100%)"));
}

static void test_board_detection(void **state)
{
    const char *dir = th_scratch();
    char args[2048];
    /* the device tree ends its string with a NUL */
    char *m = th_write(dir, "proc/device-tree/model", "NVIDIA Jetson Orin Nano Developer Kit");
    snprintf(args, sizeof(args), "run --device cpu --sizes 8x8 --set power.source=none "
             "--set power.sysfs_root=%s --set sweep.stop.min_time_ms=1 -o %s/logs", dir, dir);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_err(), "board file 'boards/jetson-orin-nano.cfg': model "
                                "'NVIDIA Jetson Orin Nano Developer Kit' matches 'Orin Nano'"));
    assert_non_null(strstr(th_out(), "of peak"));
    free(m);
}

/* Rewrites a log with gbps of one kernel scaled, as a baseline from a faster night. The
 * field is found by its column index (its text may also occur inside another field). */
/* A copy of a log with kernel's gbps scaled by factor and every row's rel_sem set to 0.1%:
 * a baseline whose verdicts depend on the planted change alone, never on how loaded the
 * machine was when the real log was measured. Fields before gbps are unquoted in our rows. */
static void scaled_copy(const char *src, const char *dst, const char *kernel, double factor)
{
    char *text = th_read_gz(src);
    gzFile out = gzopen(dst, "wb");
    int gcol = -1, scol = -1;
    const char *header = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') {
            gzprintf(out, "%s\n", line);
            continue;
        }
        if (!header) {
            header = line;
            int i = 0;
            for (const char *p = line; p; p = strchr(p, ','), p = p ? p + 1 : NULL, i++) {
                if (!strncmp(p, "gbps,", 5))
                    gcol = i;
                if (!strncmp(p, "rel_sem,", 8))
                    scol = i;
            }
            gzprintf(out, "%s\n", line);
            continue;
        }
        char k[64], row[8192] = "";
        bool scale = th_field(header, line, "kernel", k, sizeof(k)) == 0 && !strcmp(k, kernel);
        const char *p = line;
        size_t len = 0;
        for (int i = 0; p; i++) {
            const char *end = i < gcol ? strchr(p, ',') : NULL;
            if (i == scol)
                len += (size_t)snprintf(row + len, sizeof(row) - len, "0.001,");
            else if (i == gcol)
                len += (size_t)snprintf(row + len, sizeof(row) - len, "%.2f%s",
                                        atof(p) * (scale ? factor : 1.0), strchr(p, ','));
            else if (i < gcol)
                len += (size_t)snprintf(row + len, sizeof(row) - len, "%.*s,", (int)(end - p), p);
            p = i < gcol ? end + 1 : NULL;
        }
        gzprintf(out, "%s\n", row);
    }
    gzclose(out);
    free(text);
}

static void test_compare_plot(void **state)
{
    const char *dir = th_scratch();
    char args[3 * PATH_MAX];
    /* logs from two "boards": the CPU run here and the recorded H100 one */
    snprintf(args, sizeof(args), "run " FAST " --sizes 64x64 --blocks 8x8,16x16 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 0);
    char *log = only_log(dir);
    char svg[PATH_MAX];
    snprintf(svg, sizeof(svg), "%s/plot.svg", dir);
    snprintf(args, sizeof(args), "compare %s %s --plot %s", log,
             th_fixture("logs/h100-bench-subset.csv.gz"), svg);
    int rc = th_runf("%s", args);
    assert_non_null(strstr(th_out(), "64 x 64"));       /* the tables, with or without gnuplot */
    assert_non_null(strstr(th_out(), "8192 x 8192"));
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        assert_int_equal(rc, 0);
        char *text = th_read_gz(svg);
        assert_non_null(text);
        assert_non_null(strstr(text, "<svg"));
        /* the charts of the page: each size, its boards, and the board that lacks it */
        assert_non_null(strstr(text, "8192x8192 float. Not measured at this size: generic: "
                                     "Fraction of memcpy (same board, same size)"));
        assert_non_null(strstr(text, "64x64 float. Not measured at this size: h100-sxm: Best GB/s"));
        assert_non_null(strstr(text, "8192x8192 float. Not measured at this size: generic: "
                                     "Fraction of the board's peak bandwidth"));
        assert_non_null(strstr(text, "fill=\"#ffffff\""));   /* opaque white, not transparent */
        assert_non_null(strstr(text, "cublas_geam"));      /* a kernel, as a tick label */
        free(text);
    } else {
        assert_int_equal(rc, 1);
        assert_non_null(strstr(th_err(), "sudo apt-get install gnuplot-nox"));
    }
    snprintf(args, sizeof(args), "compare %s --plot %s/plot.pdf", log, dir);
    assert_int_equal(th_runf("%s", args), 1);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        /* a place no picture can be written (even by root): exit 1, the file named */
        snprintf(args, sizeof(args), "compare %s --plot /proc/tb-none/plot.svg", log);
        assert_int_equal(th_runf("%s", args), 1);
        assert_non_null(strstr(th_err(), "/proc/tb-none/plot.svg"));
    }
    free(log);
}

static void test_compare_on_real_logs(void **state)
{
    const char *dir = th_scratch();
    char args[3 * PATH_MAX];
    snprintf(args, sizeof(args), "run " FAST " --sizes 64x64,32x48 --blocks 8x8,16x16 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 0);
    char *log = only_log(dir);
    snprintf(args, sizeof(args), "compare %s", log);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_out(), "64 x 64"));
    assert_non_null(strstr(th_out(), "32 x 48"));
    assert_non_null(strstr(th_out(), "blocked"));
    assert_non_null(strstr(th_out(), "best GB/s"));
    snprintf(args, sizeof(args), "compare --format markdown %s", log);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_out(), "| kernel | board | element | power mode | device | best GB/s |"));
    snprintf(args, sizeof(args), "compare --format csv %s", log);
    assert_int_equal(th_runf("%s", args), 0);
    assert_true(!strncmp(th_out(), "rows,cols,kernel,board,device,gbps,", 35));

    /* against itself: every point the same */
    snprintf(args, sizeof(args), "compare %s --baseline %s", log, log);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_out(), "8 points compared, 0 regressed"));
    assert_null(strstr(th_out(), "slower"));
    /* a baseline where blocked ran twice as fast: a regression, exit 1 (both sides with a
     * fixed small spread, so the verdicts depend on the planted change alone) */
    char base[PATH_MAX], now[PATH_MAX];
    snprintf(base, sizeof(base), "%s/base.csv.gz", dir);
    snprintf(now, sizeof(now), "%s/now.csv.gz", dir);
    scaled_copy(log, base, "blocked", 2.0);
    scaled_copy(log, now, "blocked", 1.0);
    snprintf(args, sizeof(args), "compare %s --baseline %s --threshold 10", now, base);
    assert_int_equal(th_runf("%s", args), 1);
    assert_non_null(strstr(th_out(), "slower REGRESSION"));
    assert_non_null(strstr(th_out(), "4 regressed beyond 10.0%"));

    /* a truncated gzip: an error naming the file, and the rows before the cut still used */
    char cut[PATH_MAX];
    snprintf(cut, sizeof(cut), "%s/cut.csv.gz", dir);
    FILE *in = fopen(log, "rb"), *o = fopen(cut, "wb");
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *buf = malloc((size_t)size);
    assert_int_equal(fread(buf, 1, (size_t)size, in), (size_t)size);
    fwrite(buf, 1, (size_t)(size - 40), o); /* the end marker and gzip trailer go */
    fclose(in);
    fclose(o);
    free(buf);
    /* a log from a newer tool version: read by column names, with a warning */
    char newer[PATH_MAX];
    snprintf(newer, sizeof(newer), "%s/newer.csv", dir);
    char *lt = th_read_gz(log);
    char *fmt = strstr(lt, "# log_format: 1");
    assert_non_null(fmt);
    fmt[strlen("# log_format: ")] = '7';
    free(th_write(dir, "newer.csv", lt));
    free(lt);
    snprintf(args, sizeof(args), "compare %s", newer);
    assert_int_equal(th_runf("%s", args), 0);
    assert_non_null(strstr(th_err(), "newer.csv: log format 7 is newer than this tool's 1; reading the "
                                "columns it knows"));
    assert_non_null(strstr(th_out(), "64 x 64"));
    char *notlog = th_write(dir, "notes.txt", "hello,world\n1,2\n");
    snprintf(args, sizeof(args), "compare %s %s", cut, notlog);
    assert_int_equal(th_runf("%s", args), 1);
    assert_non_null(strstr(th_err(), "cut.csv.gz: unreadable after line"));
    assert_non_null(strstr(th_err(), "notes.txt:1: not a transpose-bench log (no 'board' column)"));
    assert_non_null(strstr(th_out(), "64 x 64"));
    free(notlog);
    free(log);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_sweep_to_log),
        TH_TEST(test_element_alias_logged_canonical),
        TH_TEST(test_env_set_in_a_test),
        TH_TEST(test_env_restored_after_it),
        TH_TEST(test_config_errors_before_the_device),
        TH_TEST(test_bad_config_exits_2_without_log),
        TH_TEST(test_quiet_prints_nothing),
        TH_TEST(test_machine_id_read_bounded),
        TH_TEST(test_progress_only_on_a_terminal),
        TH_TEST(test_lock_held_exits_75),
        TH_TEST(test_signals_close_the_log),
        TH_TEST(test_sigkill_leaves_readable_rows),
        TH_TEST(test_full_disk_keeps_earlier_logs),
        TH_TEST(test_log_dir_removed_mid_run),
        TH_TEST(test_retention_only_own_logs),
        TH_TEST(test_tegrastats_through_run),
        TH_TEST(test_tegrastats_dies_mid_run),
        TH_TEST(test_power_command_csv),
        TH_TEST(test_power_command_ina3221_tree),
        TH_TEST(test_nvml_energy_through_run),
        TH_TEST(test_board_detection),
        TH_TEST(test_install_and_uninstall),
        TH_TEST(test_tune_writes_a_sweep_run_takes),
        TH_TEST(test_compare_on_real_logs),
        TH_TEST(test_compare_plot),
    };
    return cmocka_run_group_tests_name("e2e", tests, setup, teardown);
}
