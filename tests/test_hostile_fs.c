/* test_hostile_fs.c: what anyone may leave in /tmp, in the log folder or in a system tree,
 * fed to the lock, the recovery of dead runs' temporary files, board detection and the
 * run conditions: links (to a private file, to /dev/zero), FIFOs, directories and hard
 * links. Nothing is followed, waited on or written through; the binary exits, with the
 * reason. A hang fails the test (alarm here, `timeout` around the binary). */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "measure/backend.h"
#include "measure/board.h"
#include "config/config.h"
#include "log/csvlog.h"
#include "lib/lock.h"
#include "lib/util.h"

static char bin[PATH_MAX + 64];
static char real_bin[PATH_MAX];

/* The fixture's setup (TH_TEST) under an alarm: a hang fails the test. */
static int guard(void **state)
{
    alarm(120);
    return th_test_setup(state);
}
#define HOSTILE_TEST(f) cmocka_unit_test_setup_teardown(f, guard, th_test_teardown)

/* Small, fast CPU sweep options (the e2e suite's). */
#define FAST "--device cpu --set power.source=none --set sweep.stop.min_time_ms=5 " \
             "--set sweep.stop.min_reps=3 --set sweep.warmup=1 --sizes 16x16"

static mode_t mode_of(const char *p)
{
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    return st.st_mode & 07777;
}

/* ---- the lock ----------------------------------------------------------------------- */

static void test_lock_never_follows_a_link(void **state)
{
    const char *d = th_scratch();
    char *target = th_write(d, "precious", "keep me\n"), lock[600];
    assert_int_equal(chmod(target, 0600), 0);
    snprintf(lock, sizeof(lock), "%s/transpose-bench.lock", d);
    assert_int_equal(symlink(target, lock), 0);
    setenv("TB_LOCK_FILE", lock, 1);
    struct tb_lock *l = NULL;
    th_stderr_begin();
    assert_int_equal(tb_lock_acquire(NULL, &l), TB_LOCK_BAD);
    char *err = th_stderr_end();
    assert_non_null(strstr(err, "symbolic link"));
    assert_non_null(strstr(err, lock));
    free(err);
    char *text = th_read_gz(target);
    assert_string_equal(text, "keep me\n");   /* not truncated */
    free(text);
    assert_int_equal(mode_of(target), 0600);  /* not chmod'ed */
    /* a dangling link: its target is not created */
    char ghost[600];
    snprintf(ghost, sizeof(ghost), "%s/ghost", d);
    unlink(lock);
    assert_int_equal(symlink(ghost, lock), 0);
    th_stderr_begin();
    assert_int_equal(tb_lock_acquire(NULL, &l), TB_LOCK_BAD);
    free(th_stderr_end());
    assert_int_equal(access(ghost, F_OK), -1);
    free(target);
}

static void test_lock_fifo_dir_hard_link(void **state)
{
    const char *d = th_scratch();
    char lock[600], *other = th_write(d, "other", "someone's\n");
    snprintf(lock, sizeof(lock), "%s/lock", d);
    setenv("TB_LOCK_FILE", lock, 1);
    struct tb_lock *l = NULL;
    assert_int_equal(mkfifo(lock, 0666), 0);
    th_stderr_begin();
    assert_int_equal(tb_lock_acquire(NULL, &l), TB_LOCK_BAD);
    char *err = th_stderr_end();
    assert_non_null(strstr(err, "a FIFO"));
    free(err);
    unlink(lock);
    assert_int_equal(mkdir(lock, 0755), 0);
    th_stderr_begin();
    assert_int_equal(tb_lock_acquire(NULL, &l), TB_LOCK_BAD);
    err = th_stderr_end();
    assert_non_null(strstr(err, "a directory"));
    free(err);
    rmdir(lock);
    /* a hard link (another user linked the lock, #40: every run then exited 2): the lock is
     * only locked, never written, so it serves and the other name's file is unchanged */
    assert_int_equal(link(other, lock), 0);
    assert_int_equal(tb_lock_acquire(NULL, &l), 0);
    tb_lock_release(l);
    char *text = th_read_gz(other);
    assert_string_equal(text, "someone's\n");
    free(text);
    free(other);
}

/* Another process holding the lock shared (any user can open a lock they may read): no run
 * holds it so, so it is said as what it is, exit 2, never the 75 that a nightly unit counts
 * as "another run was going" (#40); held exclusive, it is a run: 75 with its pid. */
static void test_lock_held_shared_is_no_run(void **state)
{
    const char *d = th_scratch();
    char lock[600];
    snprintf(lock, sizeof(lock), "%s/lock", d);
    setenv("TB_LOCK_FILE", lock, 1);
    for (int shared = 1; shared >= 0; shared--) {
        int go[2], ready[2];
        assert_int_equal(pipe(go), 0);
        assert_int_equal(pipe(ready), 0);
        pid_t pid = fork();
        if (pid == 0) {   /* the holder: another process, as another user's would be */
            close(go[1]);   /* the test's end (or death) is the holder's EOF */
            close(ready[0]);
            int fd = open(lock, O_RDONLY | O_CREAT, 0644);
            char c = fd >= 0 && flock(fd, shared ? LOCK_SH : LOCK_EX) == 0 ? 'y' : 'n';
            if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
                _exit(1);
            _exit(0);
        }
        close(go[0]);
        close(ready[1]);
        char c = 0;
        assert_int_equal(read(ready[0], &c, 1), 1);
        assert_int_equal(c, 'y');
        struct tb_lock *l = NULL;
        th_stderr_begin();
        int rc = tb_lock_acquire(NULL, &l);
        char *err = th_stderr_end(), want[96];
        snprintf(want, sizeof(want), shared ? "held shared by pid %ld" : "run (pid %ld,",
                 (long)pid);
        close(go[1]);   /* the holder ends */
        close(ready[0]);
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_int_equal(rc, shared ? TB_LOCK_BAD : TB_LOCK_HELD);
        if (!strstr(err, want))
            th_fail("wanted '%s' in: %s", want, err);
        free(err);
    }
}

/* An existing lock file keeps its mode (never chmod'ed); a file the run creates is 0600 (no
 * other user may open it to hold it: #58; nobody writes it). */
static void test_lock_mode_only_when_created(void **state)
{
    const char *d = th_scratch();
    char lock[600];
    snprintf(lock, sizeof(lock), "%s/lock", d);
    setenv("TB_LOCK_FILE", lock, 1);
    struct tb_lock *l = NULL;
    assert_int_equal(tb_lock_acquire(NULL, &l), 0);
    assert_int_equal(mode_of(lock), 0600);
    tb_lock_release(l);
    assert_int_equal(chmod(lock, 0640), 0);
    assert_int_equal(tb_lock_acquire(NULL, &l), 0);
    assert_int_equal(mode_of(lock), 0640);
    tb_lock_release(l);
}

/* The binary: a link at the lock path is exit 2 (a setup a person must fix, not another
 * run to wait for), with no log, and the link's target untouched. */
static void test_run_with_linked_lock_exits_2(void **state)
{
    const char *d = th_scratch();
    char *target = th_write(d, "precious", "keep me\n"), lock[600], logs[600];
    assert_int_equal(chmod(target, 0600), 0);
    snprintf(lock, sizeof(lock), "%s/lock", d);
    snprintf(logs, sizeof(logs), "%s/logs", d);
    assert_int_equal(symlink(target, lock), 0);
    setenv("TB_LOCK_FILE", lock, 1);
    assert_int_equal(th_runf("run " FAST " -b boards/generic.cfg -o %s", logs), 2);
    assert_non_null(strstr(th_err(), "symbolic link, never followed"));
    assert_int_equal(th_count_files(logs), 0);
    char *text = th_read_gz(target);
    assert_string_equal(text, "keep me\n");
    assert_int_equal(mode_of(target), 0600);
    free(text);
    free(target);
}

/* ---- dead runs' temporary files ------------------------------------------------------- */

static long dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return (long)p;
}

/* A readable gzip "log" whose rows are a secret: what a link to a private file would
 * leak into a world-readable log if recovery followed it. */
static char *write_secret(const char *dir)
{
    char *p = th_write(dir, "secret.gz", "");
    gzFile gz = gzopen(p, "wb");
    gzputs(gz, "run_id,kernel\nsecret,password123\n");
    gzclose(gz);
    assert_int_equal(chmod(p, 0600), 0);
    return p;
}

static void test_part_links_fifos_hard_links_left_alone(void **state)
{
    const char *d = th_scratch();
    long dead = dead_pid();   /* before any block of ours: its child frees none of them */
    char *secret = write_secret(d), part[1024], logdir[600];
    snprintf(logdir, sizeof(logdir), "%s/logs", d);
    assert_int_equal(mkdir(logdir, 0755), 0);
    const char *ids[] = { "vm_nano_20261122T010000Z", "vm_nano_20261122T020000Z",
                          "vm_nano_20261122T030000Z", "vm_nano_20261122T040000Z" };
    snprintf(part, sizeof(part), "%s/.%s.csv.gz.%ld.part", logdir, ids[0], dead);
    assert_int_equal(symlink(secret, part), 0);
    snprintf(part, sizeof(part), "%s/.%s.csv.gz.%ld.part", logdir, ids[1], dead);
    assert_int_equal(symlink("/dev/zero", part), 0);
    snprintf(part, sizeof(part), "%s/.%s.csv.gz.%ld.part", logdir, ids[2], dead);
    assert_int_equal(mkfifo(part, 0644), 0);
    snprintf(part, sizeof(part), "%s/.%s.csv.gz.%ld.part", logdir, ids[3], dead);
    assert_int_equal(link(secret, part), 0);
    th_stderr_begin();
    assert_int_equal(tb_csvlog_recover(logdir, "vm", "nano", ""), 0);
    char *err = th_stderr_end();
    assert_non_null(strstr(err, "symbolic link, not a run's log"));
    assert_non_null(strstr(err, "a FIFO, not a run's log"));
    assert_non_null(strstr(err, "other hard links"));
    free(err);
    assert_int_equal(th_count_files(logdir), 4);   /* no log made, nothing removed */
    for (size_t i = 0; i < 4; i++) {
        char log[1024];
        snprintf(log, sizeof(log), "%s/%s.csv.gz", logdir, ids[i]);
        assert_int_equal(access(log, F_OK), -1);
    }
    free(secret);
}

/* A link left at a log's final name (dangling: writing through it would create its target)
 * holds the name: the log is not written through it; its rows stay in the temporary file. */
static void test_log_never_written_through_a_link(void **state)
{
    const char *d = th_scratch();
    char ghost[600];
    snprintf(ghost, sizeof(ghost), "%s/ghost", d);
    struct tb_csvlog *l;
    assert_int_equal(tb_csvlog_open(&l, d, "vm", "nano", 6), 0);
    assert_int_equal(tb_csvlog_header(l), 0);
    char tmp[1024];
    tb_strlcpy(tmp, tb_csvlog_tmp_path(l), sizeof(tmp));
    assert_int_equal(symlink(ghost, tb_csvlog_path(l)), 0);
    th_stderr_begin();
    assert_true(tb_csvlog_close(l, "complete") < 0);
    char *err = th_stderr_end();
    assert_non_null(strstr(err, "cannot give log"));
    free(err);
    assert_int_equal(access(ghost, F_OK), -1);   /* nothing written through the link */
    assert_int_equal(access(tmp, F_OK), 0);      /* the rows kept */
}

/* The binary, as the nightly run meets it: a FIFO as a dead run's temporary file of this
 * host and board. The run finishes (it holds the lock meanwhile) and the FIFO stays. */
static void test_run_not_hung_by_fifo_part(void **state)
{
    const char *d = th_scratch();
    char host[128], part[1024], lock[600];
    snprintf(lock, sizeof(lock), "%s/lock", d);
    setenv("TB_LOCK_FILE", lock, 1);
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    tb_log_name_part(host, sizeof(host));
    snprintf(part, sizeof(part), "%s/.%s_generic_20261122T010000Z.csv.gz.%ld.part", d, host,
             dead_pid());
    assert_int_equal(mkfifo(part, 0644), 0);
    assert_int_equal(th_runf("run " FAST " -b boards/generic.cfg -o %s", d), 0);
    assert_non_null(strstr(th_err(), "a FIFO, not a run's log"));
    assert_int_equal(access(part, F_OK), 0);
}

/* ---- system trees (TB_ROOT) ------------------------------------------------------------ */

/* A fake root where every file the tool reads is a FIFO or a link to /dev/zero. */
static const char *hostile_root(void)
{
    const char *r = th_scratch();
    char p[1024];
    const char *fifos[] = { "proc/device-tree/model", "etc/nv_tegra_release", "proc/cpuinfo",
                            "var/lib/nvpmodel/status",
                            "sys/class/devfreq/17000000.ga10b/cur_freq",
                            "sys/class/thermal/thermal_zone0/type" };
    for (size_t i = 0; i < ARRAY_SIZE(fifos); i++) {
        free(th_write(r, fifos[i], ""));
        snprintf(p, sizeof(p), "%s/%s", r, fifos[i]);
        unlink(p);
        assert_int_equal(mkfifo(p, 0644), 0);
    }
    const char *zeros[] = { "sys/class/devfreq/17000000.ga10b/min_freq",
                            "sys/class/devfreq/17000000.ga10b/available_frequencies",
                            "etc/nvpmodel.conf" };
    for (size_t i = 0; i < ARRAY_SIZE(zeros); i++) {
        snprintf(p, sizeof(p), "%s/%s", r, zeros[i]);
        assert_int_equal(symlink("/dev/zero", p), 0);
    }
    return r;
}

static void test_list_power_run_not_hung_by_hostile_root(void **state)
{
    const char *r = hostile_root(), *logs = th_scratch();
    char lock[600];
    snprintf(lock, sizeof(lock), "%s/lock", logs);
    setenv("TB_LOCK_FILE", lock, 1);
    setenv("TB_ROOT", r, 1);
    assert_int_equal(th_runf("list"), 0);
    assert_non_null(strstr(th_err(), "a FIFO, not a regular file"));
    assert_non_null(strstr(th_out(), "generic.cfg"));   /* nothing read from the FIFO model */
    /* power: no source on this tree; it ends, saying so */
    assert_int_equal(th_runf("power --seconds 1"), 1);
    assert_int_equal(th_runf("run " FAST " -o %s/logs", logs), 0);
    assert_non_null(strstr(th_err(), "run conditions: "));
    assert_non_null(strstr(th_err(), "nv_tegra_release' is a FIFO"));
}

/* An INA3221 rail file that is a FIFO: the source is refused with the path at probe
 * (power) or fails within the deadline, never a hang. */
static void test_ina3221_fifo_rail(void **state)
{
    const char *r = th_scratch();
    char p[1024], cfg[2048];
    assert_true(th_build_sysfs(r, "ina3221/nano.txt", 0) > 0);
    snprintf(p, sizeof(p), "%s/sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0/in_power0_input",
             r);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkfifo(p, 0644), 0);
    snprintf(cfg, sizeof(cfg), "board = { name = \"nano\"; };\npower = { source = \"ina3221\"; "
             "interval_ms = 100; sysfs_root = \"%s\"; };\n", r);
    char *board = th_write(r, "b.cfg", cfg);
    assert_int_equal(th_runf("power -b %s --seconds 1 --format csv", board), 1);
    assert_non_null(strstr(th_err(), "in_power0_input' is a FIFO"));
    free(board);
}

/* ---- the Orin Nano Super ------------------------------------------------------------- */

static struct tb_config *load_orin_nano(const char *root)
{
    static struct tb_config cfg;
    struct tb_diag diag = { 0 };
    tb_config_init(&cfg);
    setenv("TB_ROOT", root, 1);
    tb_config_load(&cfg, NULL, "boards/jetson-orin-nano.cfg", &diag);
    assert_int_equal(diag.n, 0);
    return &cfg;
}

static void test_orin_nano_super(void **state)
{
    const char *r = th_scratch();
    char note[256];
    /* the plain Orin Nano keeps its 68 GB/s */
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit"));
    struct tb_config *cfg = load_orin_nano(r);
    assert_int_equal(tb_board_variant(cfg, note, sizeof(note)), 0);
    th_assert_close(cfg->board.peak_gbps, 68.0, 1e-9);
    tb_config_free(cfg);
    /* by the model string */
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    cfg = load_orin_nano(r);
    assert_int_equal(tb_board_variant(cfg, note, sizeof(note)), 1);
    th_assert_close(cfg->board.peak_gbps, 102.4, 1e-9);
    assert_non_null(strstr(note, "Orin Nano Super (model"));
    tb_config_free(cfg);
    /* by the power mode, with the plain model string (JetPack 6.2 on an older dev kit) */
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit"));
    free(th_write(r, "var/lib/nvpmodel/status", "pmode:0002 fmode:quiet\n"));
    free(th_write(r, "etc/nvpmodel.conf", "< POWER_MODEL ID=0 NAME=15W >\n"
                  "< POWER_MODEL ID=1 NAME=25W >\n< POWER_MODEL ID=2 NAME=MAXN_SUPER >\n"));
    cfg = load_orin_nano(r);
    assert_int_equal(tb_board_variant(cfg, note, sizeof(note)), 1);
    th_assert_close(cfg->board.peak_gbps, 102.4, 1e-9);
    assert_non_null(strstr(note, "power mode 'MAXN_SUPER'"));
    tb_config_free(cfg);
    /* another board with the same mode name is not changed */
    struct tb_config other;
    struct tb_diag diag = { 0 };
    tb_config_init(&other);
    tb_config_load(&other, NULL, "boards/jetson-orin-nx.cfg", &diag);
    double nx = other.board.peak_gbps;
    assert_int_equal(tb_board_variant(&other, note, sizeof(note)), 0);
    th_assert_close(other.board.peak_gbps, nx, 1e-9);
    tb_config_free(&other);
}

/* The run logs it and uses it for frac_peak: a CPU run with the Orin Nano's board file on
 * a fake Super tree. */
static void test_orin_nano_super_run_logs_peak(void **state)
{
    const char *r = th_scratch();
    const char *logs = th_scratch();
    char lock[600];
    snprintf(lock, sizeof(lock), "%s/lock", r);
    setenv("TB_LOCK_FILE", lock, 1);
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    setenv("TB_ROOT", r, 1);
    assert_int_equal(th_runf("run " FAST " -b boards/jetson-orin-nano.cfg -o %s", logs), 0);
    char *log = th_find_one(logs, ".csv.gz"), *text = th_read_gz(log);
    assert_non_null(text);
    assert_non_null(strstr(text, "# board: jetson-orin-nano, peak 102.4 GB/s"));
    assert_non_null(strstr(text, "# board_variant: Orin Nano Super (model"));
    const char *header = strstr(text, "\nrun_id,") + 1, *row = strchr(header, '\n') + 1;
    char gbps[64], frac[64];
    assert_int_equal(th_field(header, row, "gbps", gbps, sizeof(gbps)), 0);
    assert_int_equal(th_field(header, row, "frac_peak", frac, sizeof(frac)), 0);
    /* frac_peak is logged with 4 decimals: half a unit of the last one, and gbps's own */
    th_assert_close(atof(frac), atof(gbps) / 102.4, 1e-3 * atof(frac) + 6e-5);
    free(text);
    free(log);
}

/* list --images: run twice into one folder it says "unchanged" and succeeds; a file of
 * other contents at an image's name is not replaced; a folder whose name leaves no room
 * for the file names is an error, never a cut name; a disk that fills (a file size limit)
 * is an error, never an image reported written, and leaves no partial file. */
static void test_list_images_atomic_and_repeatable(void **state)
{
    if (!strncmp(tb_backend_cuda.images((char[1024]){ 0 }, 1024), "none", 4))
        skip();
    const char *d = th_scratch();
    assert_int_equal(th_runf("list --images %s/img", d), 0);
    assert_null(strstr(th_out(), "unchanged"));
    assert_int_equal(th_runf("list --images %s/img", d), 0);
    assert_non_null(strstr(th_out(), "(already there, unchanged)"));
    char img[PATH_MAX];
    snprintf(img, sizeof(img), "%s/img", d);
    size_t n = th_count_files(img);
    free(th_write(img, "transpose-bench.0.sm_75.cubin", "someone else's\n"));
    char *other = th_read_gz(strcat(strcpy((char[PATH_MAX + 64]){ 0 }, img),
                                    "/transpose-bench.0.sm_75.cubin"));
    assert_int_equal(th_runf("list --images %s/img", d), 1);
    assert_non_null(strstr(th_err(), "not replaced"));
    char *again = th_read_gz(strcat(strcpy((char[PATH_MAX + 64]){ 0 }, img),
                                    "/transpose-bench.0.sm_75.cubin"));
    assert_string_equal(again, other);
    free(other);
    free(again);
    assert_int_equal(th_count_files(img), n);   /* no temporary left */
    /* a folder name that leaves no room */
    char deep[PATH_MAX];
    int len = snprintf(deep, sizeof(deep), "%s", d);
    while (len < PATH_MAX - 40) {
        len += snprintf(deep + len, sizeof(deep) - (size_t)len, "/%.200s",
                        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        mkdir(deep, 0755);
    }
    assert_int_equal(th_runf("list --images %s", deep), 1);
    assert_non_null(strstr(th_err(), "too long"));
    /* a file size limit of 64 KiB: the first image does not fit */
    char limited[sizeof(bin) + 32];   /* TB_BIN is a shell prefix; the teardown restores it */
    snprintf(limited, sizeof(limited), "ulimit -f 64; exec %s", bin);
    setenv("TB_BIN", limited, 1);
    assert_int_equal(th_runf("list --images %s/full", d), 1);
    char full[PATH_MAX];
    snprintf(full, sizeof(full), "%s/full", d);
    assert_int_equal(th_count_files(full), 0);   /* no partial image, no temporary */
    assert_non_null(strstr(th_err(), "cannot write"));
}

/* `list --images dir` with a file size limit of `limit` bytes (SIGXFSZ ignored by the tool:
 * a write past it is a short write, then EFBIG); its exit status, stdout into *out. */
static int images_with_limit(const char *dir, rlim_t limit, char **out)
{
    char o[PATH_MAX + 8];
    snprintf(o, sizeof(o), "%s.out", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = { limit, limit };
        int fd = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644), null = open("/dev/null", O_WRONLY);
        if (setrlimit(RLIMIT_FSIZE, &rl) < 0 || fd < 0 || null < 0)
            _exit(99);
        dup2(fd, 1);
        dup2(null, 2);
        execl(real_bin, real_bin, "list", "--images", dir, (char *)NULL);
        _exit(98);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    *out = th_read_gz(o);
    unlink(o);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* A disk that fills part-way (#29 item 6): with a file size limit that image 0 fits and a
 * later, larger image does not, the images before that one are written whole and listed,
 * the one cut short is an error, is not listed and leaves no file or temporary. */
static void test_list_images_disk_fills_part_way(void **state)
{
    const struct tb_backend *be = &tb_backend_cuda;
    char desc[192], file[64];
    unsigned char *bytes;
    size_t first = 0, len, stop = 0;
    if (be->image(0, desc, sizeof(desc), file, sizeof(file), &bytes, &first) < 0)
        skip();   /* CUDA=0: no images */
    free(bytes);
    for (size_t i = 1; !stop && be->image(i, desc, sizeof(desc), file, sizeof(file), &bytes,
                                          &len) == 0; i++) {
        free(bytes);
        if (len > first)
            stop = i;   /* the first image that will not fit */
    }
    if (!stop)
        skip();   /* no image larger than the first: nothing fills part-way */
    const char *runner = getenv("TB_RUNNER");
    if (runner && *runner)
        skip();   /* cross-test: the fork execs the binary itself, which qemu-user cannot
                   * (the native suites, plain, SAN, valgrind and CUDA=0, run it) */
    const char *d = th_scratch();
    char dir[PATH_MAX], *out = NULL;
    snprintf(dir, sizeof(dir), "%s/img", d);
    assert_int_equal(images_with_limit(dir, (rlim_t)first, &out), 1);
    assert_int_equal(th_count_files(dir), stop);   /* images 0..stop-1, no partial, no tmp */
    for (size_t i = 0; i < stop; i++) {
        assert_int_equal(be->image(i, desc, sizeof(desc), file, sizeof(file), &bytes, &len), 0);
        char path[2 * PATH_MAX];
        snprintf(path, sizeof(path), "%s/transpose-bench.%zu.%s", dir, i, file);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_true((size_t)st.st_size == len);   /* whole */
        assert_non_null(strstr(out, path));
        free(bytes);
    }
    assert_int_equal(be->image(stop, desc, sizeof(desc), file, sizeof(file), NULL, NULL), 0);
    assert_null(strstr(out, file));   /* the cut image is never reported written */
    free(out);
}

int main(void)
{
    /* the binary under a hard time limit: a hang is exit 137, a failed test */
    const char *b = getenv("TB_BIN");
    snprintf(bin, sizeof(bin), "timeout -s KILL 90 %s", b ? b : "./transpose-bench");
    snprintf(real_bin, sizeof(real_bin), "%s", b ? b : "./transpose-bench");
    setenv("TB_BIN", bin, 1);
    const struct CMUnitTest tests[] = {
        HOSTILE_TEST(test_lock_never_follows_a_link),
        HOSTILE_TEST(test_lock_held_shared_is_no_run),
        HOSTILE_TEST(test_lock_fifo_dir_hard_link),
        HOSTILE_TEST(test_lock_mode_only_when_created),
        HOSTILE_TEST(test_run_with_linked_lock_exits_2),
        HOSTILE_TEST(test_part_links_fifos_hard_links_left_alone),
        HOSTILE_TEST(test_run_not_hung_by_fifo_part),
        HOSTILE_TEST(test_log_never_written_through_a_link),
        HOSTILE_TEST(test_list_power_run_not_hung_by_hostile_root),
        HOSTILE_TEST(test_ina3221_fifo_rail),
        HOSTILE_TEST(test_orin_nano_super),
        HOSTILE_TEST(test_orin_nano_super_run_logs_peak),
        HOSTILE_TEST(test_list_images_atomic_and_repeatable),
        HOSTILE_TEST(test_list_images_disk_fills_part_way),
    };
    return cmocka_run_group_tests_name("hostile_fs", tests, NULL, NULL);
}
