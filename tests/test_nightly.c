/* test_nightly.c: what makes an unattended night's log trustworthy, on the real binary with
 * fake roots shaped like real boards (TB_ROOT) and a fake libcuda: a board whose GPU cannot
 * be used fails with a log that says why (never a silent CPU run); runs in one second get
 * distinct logs; retention keeps other hosts' and boards' logs; the run conditions of a
 * Jetson (L4T, power mode, GPU clocks, temperature) in the log; board detection on the model
 * strings real boards report. Each test runs in the fixture of helpers.h (TH_TEST): fake
 * roots, scratch directories, run outputs and the environment are undone after it. */
#include "helpers.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/backend.h"
#include "measure/board.h"
#include "log/csvlog.h"
#include "log/retention.h"
#include "lib/util.h"

static char fake_cuda[2 * PATH_MAX + 64];
static bool images;

static int setup(void **state)
{
    const char *b = getenv("TB_BUILD");
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(fake_cuda, sizeof(fake_cuda), "%s/%s/tests/libfake-cuda.so", cwd, b ? b : "build");
    if (b && b[0] == '/')
        snprintf(fake_cuda, sizeof(fake_cuda), "%s/tests/libfake-cuda.so", b);
    images = strncmp(tb_backend_cuda.images((char[1024]){ 0 }, 1024), "none", 4) != 0;
    char lock[64];   /* per process: suites run at once (make test beside make test-valgrind) */
    snprintf(lock, sizeof(lock), "/tmp/tb-test-nightly-lock-%ld", (long)getpid());
    setenv("TB_LOCK_FILE", lock, 1);
    return 0;
}

/* A fake board root: the device-tree model (NUL-terminated, as the kernel gives it). */
static const char *fake_root(const char *model)
{
    const char *root = th_scratch();
    char path[PATH_MAX];
    free(th_write(root, "proc/device-tree/model", ""));
    snprintf(path, sizeof(path), "%s/proc/device-tree/model", root);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(model, 1, strlen(model) + 1, f);
    fclose(f);
    return root;
}

/* An Orin Nano as JetPack 6 lays it out, in 15W mode, clocks not pinned (fixture files). */
static const char *fake_orin_nano(void)
{
    const char *root = fake_root("NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super");
    free(th_write(root, "etc/nv_tegra_release",
                  "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, "
                  "DATE: Wed Jan  8 01:49:37 UTC 2025\n"));
    free(th_write(root, "var/lib/nvpmodel/status", "pmode:0001 fmode:quiet\n"));
    free(th_write(root, "etc/nvpmodel.conf",
                  "< POWER_MODEL ID=0 NAME=15W >\nCPU_ONLINE CORE_0 1\n"
                  "< POWER_MODEL ID=1 NAME=7W >\nCPU_ONLINE CORE_0 1\n"
                  "< POWER_MODEL ID=2 NAME=MAXN_SUPER >\n"));
    const char *g = "sys/class/devfreq/17000000.gpu/";
    char p[256];
    snprintf(p, sizeof(p), "%scur_freq", g);
    free(th_write(root, p, "306000000\n"));
    snprintf(p, sizeof(p), "%smin_freq", g);
    free(th_write(root, p, "306000000\n"));
    snprintf(p, sizeof(p), "%smax_freq", g);
    free(th_write(root, p, "408000000\n"));
    snprintf(p, sizeof(p), "%savailable_frequencies", g);
    free(th_write(root, p, "306000000 408000000 510000000 612000000 625000000\n"));
    free(th_write(root, "sys/class/devfreq/13e40000.host1x/cur_freq", "204000000\n"));
    free(th_write(root, "sys/class/thermal/thermal_zone0/type", "cpu-thermal\n"));
    free(th_write(root, "sys/class/thermal/thermal_zone0/temp", "47000\n"));
    free(th_write(root, "sys/class/thermal/thermal_zone1/type", "gpu-thermal\n"));
    free(th_write(root, "sys/class/thermal/thermal_zone1/temp", "45500\n"));
    return root;
}

#define TINY "--sizes 16x16 --kernels copy_row --set power.source=none " \
             "--set sweep.stop.min_time_ms=1 --set sweep.stop.min_reps=2 --set sweep.warmup=0"

/* Runs the tool with TB_ROOT and libcuda set; returns the exit code (stderr: th_err()). */
static int run_on(const char *root, const char *cuda_lib, const char *mode, const char *args)
{
    setenv("TB_ROOT", root, 1);
    setenv("TB_CUDA_LIB", cuda_lib, 1);
    setenv("TB_FAKE_CUDA", mode, 1);
    int rc = th_runf("%s", args);
    unsetenv("TB_ROOT");
    return rc;
}

static char *the_log(const char *dir)
{
    char *p = th_find_one(dir, ".csv.gz");
    assert_non_null(p);
    char *text = th_read_gz(p);
    assert_non_null(text);
    free(p);
    return text;
}

static void must_have(const char *text, const char *want)
{
    if (!strstr(text, want))
        th_fail("missing '%s' in:\n%.3000s", want, text);
}

/* A CPU night on a fake root (no driver there): the text of its log. */
static char *cpu_night(const char *root)
{
    setenv("TB_ROOT", root, 1);
    setenv("TB_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
    char *text = th_run_log("run --quiet --device cpu " TINY " -o %s", 0, true, NULL, NULL);
    unsetenv("TB_ROOT");
    return text;
}

/* A Nano whose GPU cannot be used: exit 1 and a log that says so, with the driver
 * installed but failing and with no driver at all; --device cpu runs on purpose. */
static void test_gpu_board_without_gpu_fails_with_a_log(void **state)
{
    const char *root = fake_root("NVIDIA Jetson Nano Developer Kit");
    const char *libs[] = { fake_cuda, "/nonexistent/libcuda.so.1" };
    for (int i = 0; i < 2; i++) {
        const char *dir = th_scratch();
        char args[1024];
        snprintf(args, sizeof(args), "run --quiet " TINY " -o %s", dir);
        assert_int_equal(run_on(root, libs[i], "nodevice", args), 1);
        must_have(th_err(), "jetson-nano: the GPU cannot be used: ");
        char *text = the_log(dir);
        must_have(text, "# board: jetson-nano, peak 25.6 GB/s, has a GPU\n");
        must_have(text, "# backend: none\n");
        must_have(text, "# gpu: unusable: ");
        must_have(text, "# end: failed: the GPU cannot be used (");
        must_have(text, " 0 rows\n");
        if (images)
            must_have(text, i == 0 ? "cuInit: CUDA_ERROR_NO_DEVICE" : "cannot load the CUDA driver");
        free(text);
    }
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run --quiet --device cpu " TINY " -o %s", dir);
    assert_int_equal(run_on(root, fake_cuda, "nodevice", args), 0);
    char *text = the_log(dir);
    must_have(text, "# backend: cpu\n");
    must_have(text, "# end: complete, 1 rows");
    free(text);
}

/* A machine with no GPU and no NVIDIA driver (generic board) may run on the CPU; one with a
 * driver whose GPU fails may not. */
static void test_auto_falls_back_only_without_a_driver(void **state)
{
    const char *root = fake_root("QEMU Virtual Machine");
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run " TINY " -o %s", dir);
    assert_int_equal(run_on(root, "/nonexistent/libcuda.so.1", "h100", args), 0);
    must_have(th_err(), "no usable GPU (");
    th_rmtree(dir);   /* the second night starts with no log folder, as the first did */
    assert_int_equal(run_on(root, fake_cuda, "nodevice", args), 1);
    must_have(th_err(), "generic: the GPU cannot be used: ");
}

/* The conditions a night depends on, from an Orin Nano's own files. */
static void test_run_conditions_of_a_jetson(void **state)
{
    const char *root = fake_orin_nano();
    char *text = cpu_night(root);
    must_have(text, "# board_file: ");
    must_have(text, "boards/jetson-orin-nano.cfg (fnv1a64 ");
    must_have(text, "model 'NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super' "
                    "matches 'Orin Nano'\n");
    must_have(text, "# l4t: R36.4.3\n");
    must_have(text, "# power_mode: 7W (1)\n");
    must_have(text, "# gpu_devfreq: 17000000.gpu: cur 306 MHz, min 306 MHz, max 408 MHz; "
                    "available: 306 408 510 612 625\n");
    must_have(text, "# gpu_clocks: dynamic (DVFS: not pinned)\n");
    must_have(text, "# gpu_temp: 45.5 C at the start\n");
    const char *h = strstr(text, "\nrun_id,") + 1, *row = strchr(h, '\n') + 1;
    char v[64];
    assert_int_equal(th_field(h, row, "power_mode", v, sizeof(v)), 0);
    assert_string_equal(v, "7W (1)");
    assert_int_equal(th_field(h, row, "gpu_max_mhz", v, sizeof(v)), 0);
    assert_string_equal(v, "408");
    free(text);
}

/* jetson_clocks leaves min == max: pinned. */
static void test_pinned_clocks(void **state)
{
    const char *root = fake_orin_nano();
    free(th_write(root, "sys/class/devfreq/17000000.gpu/min_freq", "408000000\n"));
    char *text = cpu_night(root);
    must_have(text, "# gpu_clocks: pinned (min == max: jetson_clocks)\n");
    free(text);
}

/* Five runs as fast as they go: five logs, five run_ids. */
static void test_quick_runs_never_share_a_log(void **state)
{
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run --quiet --device cpu -b boards/generic.cfg " TINY " -o %s",
             dir);
    for (int i = 0; i < 5; i++)
        assert_int_equal(th_runf("%s", args), 0);
    assert_int_equal(th_count_files(dir), 5);
}

/* Real model strings, and a TX2 whose GPU name ("NVIDIA Tegra X2") the desktop file's
 * "NVIDIA" would match: the model decides. */
static void test_board_detection_on_real_models(void **state)
{
    static const struct { const char *model, *gpu, *file; } cases[] = {
        { "NVIDIA Jetson Nano Developer Kit", "NVIDIA Tegra X1", "jetson-nano.cfg" },
        { "NVIDIA Jetson TX1", "NVIDIA Tegra X1", "jetson-tx1.cfg" },
        { "quill", "NVIDIA Tegra X2", "jetson-tx2.cfg" },
        { "NVIDIA Jetson TX2", "NVIDIA Tegra X2", "jetson-tx2.cfg" },
        { "lanai", NULL, "jetson-tx2.cfg" },
        { "Jetson-AGX", "Xavier", "jetson-agx-xavier.cfg" },
        { "jetson-xavier", "Xavier", "jetson-agx-xavier.cfg" },
        { "NVIDIA Jetson AGX Xavier Developer Kit", NULL, "jetson-agx-xavier.cfg" },
        { "NVIDIA Jetson Xavier NX Developer Kit", NULL, "jetson-xavier-nx.cfg" },
        { "NVIDIA Jetson Orin Nano Developer Kit", "Orin", "jetson-orin-nano.cfg" },
        { "NVIDIA Jetson Orin NX Engineering Reference Developer Kit", NULL, "jetson-orin-nx.cfg" },
        { "Jetson AGX Orin", "Orin", "jetson-agx-orin.cfg" },
        { "NVIDIA Jetson AGX Orin Developer Kit", NULL, "jetson-agx-orin.cfg" },
        { "", "NVIDIA H100 80GB HBM3", "desktop-h100.cfg" },
        { "", "NVIDIA GeForce RTX 4090", "desktop-nvml.cfg" },
        { "QEMU", NULL, "generic.cfg" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *root = fake_root(cases[i].model);
        char path[PATH_MAX], why[512];
        assert_int_equal(tb_board_detect(root, cases[i].gpu, path, sizeof(path), why,
                                         sizeof(why)), 0);
        const char *base = strrchr(path, '/') + 1;
        if (strcmp(base, cases[i].file))
            th_fail("model '%s' (GPU %s): got %s (%s), want %s", cases[i].model,
                    cases[i].gpu ? cases[i].gpu : "none", base, why, cases[i].file);
    }
    /* list says which file it would take, and from what */
    setenv("TB_ROOT", fake_root("quill"), 1);
    assert_int_equal(th_runf("list"), 0);
    must_have(th_out(), "board: boards/jetson-tx2.cfg (model 'quill' matches 'quill')\n");
}

/* A board file replaying `lines` through the fake tegrastats, with a power ceiling; no
 * warming before the sweep (settle_s = 0: the warming is test_power_*'s). */
static char *replay_board(const char *dir, const char *lines)
{
    char cwd[PATH_MAX], text[PATH_MAX * 2 + 512];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    char *fixture = th_write(dir, "replay.txt", lines);
    setenv("TB_FAKE_TEGRASTATS_FILE", fixture, 1);
    free(fixture);
    snprintf(text, sizeof(text),
             "board = { name = \"orin-nano-replay\"; peak_gbps = 68.0; max_power_w = 45.0; };\n"
             "power = { source = \"tegrastats\"; interval_ms = 100; window_ms = 1000; "
             "idle_ms = 0; settle_s = 0; total_rail = \"VDD_IN\"; gpu_rail = \"VDD_CPU_GPU_CV\";\n"
             "  tegrastats = { command = \"%s/tests/fake-tegrastats.sh\"; }; };\n", cwd);
    return th_write(dir, "board.cfg", text);
}

#define ORIN_LINE(vdd_in) "06-18-2025 11:25:24 RAM 3452/7620MB (lfb 25x4MB) CPU [1%@1420] " \
    "EMC_FREQ 43%@2133 GR3D_FREQ 0% gpu@49.031C VDD_IN " vdd_in "/" vdd_in " VDD_CPU_GPU_CV 518mW/518mW " \
    "VDD_SOC 1475mW/1475mW\n"

/* Readings the board cannot draw (negative, above max_power_w) are dropped and counted,
 * never logged as power. */
static void test_absurd_readings_dropped(void **state)
{
    setenv("TB_FAKE_CLOCK", "1", 1);   /* the run keeps virtual time: no real sleep */
    const char *dir = th_scratch();
    char args[3 * PATH_MAX];
    /* two good values that differ: a sensor whose reading never changes shows no update */
    char *board = replay_board(dir, ORIN_LINE("4824mW") ORIN_LINE("1000000000mW")
                               ORIN_LINE("4826mW") ORIN_LINE("1000000000mW"));
    /* one power round: a CPU copy's GB/s moves from round to round more than the rule
     * allows, and this test is about the readings */
    snprintf(args, sizeof(args), "run --quiet --device cpu -b %s --sizes 64x64 --kernels copy_row "
             "--set sweep.stop.min_time_ms=1 --set power.rounds=1 -o %s/logs", board, dir);
    assert_int_equal(th_runf("%s", args), 0);
    char logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    char *text = the_log(logs);
    const char *h = strstr(text, "\nrun_id,") + 1, *row = strchr(h, '\n') + 1;
    char v[256];
    assert_int_equal(th_field(h, row, "power_total_w", v, sizeof(v)), 0);
    assert_true(atof(v) > 4.8 && atof(v) < 4.85);  /* the good readings alone */
    assert_int_equal(th_field(h, row, "power_note", v, sizeof(v)), 0);
    must_have(v, "outside 0..45 W dropped during the window");
    assert_int_equal(th_field(h, row, "emc_clock_mhz", v, sizeof(v)), 0);
    assert_string_equal(v, "2133");                 /* the memory clock, per row */
    must_have(text, "# sensor: ");
    assert_null(strstr(text, "# sensor: 0 reading"));
    free(text);
    free(board);
}

/* A tegrastats that stops printing (alive, silent): said once on stderr and in the log, and
 * the rows measured meanwhile say why they have no power. */
static void test_silent_source_is_said(void **state)
{
    setenv("TB_FAKE_CLOCK", "1", 1);   /* the run keeps virtual time: no real sleep */
    const char *dir = th_scratch();
    char args[3 * PATH_MAX];
    char *board = replay_board(dir, ORIN_LINE("4824mW") ORIN_LINE("5251mW"));
    setenv("TB_FAKE_TEGRASTATS_STALL", "3", 1);
    /* one short round: its windows' load is real work, and the silence is what is tested */
    snprintf(args, sizeof(args), "run --quiet --device cpu -b %s --sizes 64x64,32x32 "
             "--kernels copy_row --set sweep.stop.min_time_ms=1 --set power.rounds=1 "
             "--set power.window_ms=300 -o %s/logs", board, dir);
    assert_int_equal(th_runf("%s", args), 0);
    must_have(th_err(), "power source 'tegrastats' delivered nothing for ");
    assert_null(strstr(strstr(th_err(), "delivered nothing") + 1, "delivered nothing")); /* once */
    char logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    char *text = the_log(logs);
    const char *h = strstr(text, "\nrun_id,") + 1, *row = strchr(strchr(h, '\n') + 1, '\n') + 1;
    char v[256];
    assert_int_equal(th_field(h, row, "power_note", v, sizeof(v)), 0);
    must_have(v, "no reading from 'tegrastats' for ");
    must_have(v, "(the source is silent)");
    must_have(text, "1 silence(s) of twice the interval or more");
    free(text);
    free(board);
}

/* A big CPU point answers SIGINT at once: the log ends "interrupted", exit 1. The point
 * (a 4 GiB transpose of doubles on the CPU, with its fill and check) takes far longer than
 * the 20 s allowed here; a stop between rows takes a fraction of a second. */
static void test_sigint_during_a_big_cpu_point(void **state)
{
    const char *dir = th_scratch();
    char cmd[3 * PATH_MAX];
    const char *bin = getenv("TB_BIN");
    snprintf(cmd, sizeof(cmd), "exec %s run --quiet --device cpu -b boards/generic.cfg "
             "--sizes 16384x16384 --kernels naive_row --set sweep.element=double "
             "--set power.source=none -o %s 2>/dev/null", bin ? bin : "./transpose-bench", dir);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    char *part = NULL;
    for (int i = 0; i < 600 && !part; i++) {   /* the run has started: its log exists */
        usleep(50000);
        part = th_find_one(dir, ".part");
    }
    assert_non_null(part);
    free(part);
    sleep(1);                                  /* now inside the point */
    kill(pid, SIGINT);
    int status = 0, waited = 0;
    while (waitpid(pid, &status, WNOHANG) == 0 && waited < 400) {
        usleep(50000);
        waited++;
    }
    if (waited >= 400) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        th_fail("the run did not stop within 20 s of SIGINT");
    }
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    char *text = the_log(dir);
    must_have(text, "# end: interrupted by Interrupt");
    free(text);
}

/* ---- a driver that hangs or answers garbage, signals at each step (#33) ---------------- */

#define ON_CUDA "run --quiet --device cuda -b boards/generic.cfg --sizes 16x16 --kernels memcpy " \
                "--set power.source=none --set sweep.stop.min_time_ms=1 " \
                "--set sweep.stop.min_reps=2 --set sweep.warmup=0"

/* The tool under a bound that proves "does not hang": killed after 60 s (exit 137). */
static void bounded_bin(void)
{
    const char *bin = getenv("TB_BIN");
    char b[PATH_MAX + 64];
    snprintf(b, sizeof(b), "timeout -s KILL 60 %s", bin ? bin : "./transpose-bench");
    setenv("TB_BIN", b, 1);
}

/* Whether the run's lock is free now: taken and dropped again. */
static bool lock_free(void)
{
    int fd = open(getenv("TB_LOCK_FILE"), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return true;
    bool ok = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return ok;
}

static size_t count_lines(const char *text, const char *prefix)
{
    size_t n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += strncmp(p, prefix, strlen(prefix)) == 0;
    return n;
}

/* A driver that never returns, at each step of the lifecycle where it can block (init,
 * context, module load, synchronize in the sweep): the run ends within the deadline with
 * one whole log whose end line names the call, the lock released, exit 1. */
static void test_driver_hang_at_each_step(void **state)
{
    if (!images)
        skip();
    static const char *const calls[] = { "cuInit", "cuDevicePrimaryCtxRetain",
                                         "cuModuleLoadDataEx", "cuEventSynchronize" };
    bounded_bin();
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "1", 1);
    for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
        const char *dir = th_scratch();
        setenv("TB_FAKE_CUDA_HANG", calls[i], 1);
        assert_int_equal(th_runf(ON_CUDA " -o %s", dir), 1);
        assert_int_equal(th_count_files(dir), 1);   /* the log, no .part */
        char *text = the_log(dir);
        char want[256];
        snprintf(want, sizeof(want), "# end: failed: the GPU %sthe CUDA driver did not return "
                 "from %s within 1 s", i < 3 ? "cannot be used (" : "hung: ", calls[i]);
        must_have(text, want);
        assert_int_equal(count_lines(text, "# end:"), 1);
        must_have(text, "\nrun_id,utc,");   /* a header: readers take the failed night */
        free(text);
        must_have(th_err(), "did not return from");
        assert_true(lock_free());
    }
}

/* Starts the tool in the background with args, then " -o DIR/sub"; its pid. */
static pid_t spawn(const char *args_head, const char *dir, const char *sub)
{
    char args[2048], cmd[4096];
    snprintf(args, sizeof(args), "%s -o %s/%s", args_head, dir, sub);
    const char *bin = getenv("TB_BIN");
    snprintf(cmd, sizeof(cmd), "exec %s %s >/dev/null 2>&1", bin ? bin : "./transpose-bench",
             args);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Waits (at most 30 s) until file holds want. */
static void wait_for(const char *file, const char *want)
{
    for (int i = 0; i < 600; i++) {
        char *t = th_read_gz(file);
        bool there = t && strstr(t, want);
        free(t);
        if (there)
            return;
        usleep(50000);
    }
    th_fail("'%s' never appeared in '%s'", want, file);
}

/* Exit status of pid, which must end within 20 s. */
static int reap(pid_t pid)
{
    int status = 0;
    for (int i = 0; i < 400; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        usleep(50000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    th_fail("the run did not end within 20 s");
    return -1;
}

/* SIGTERM while the driver hangs, at each step (before the log exists, with the log open
 * before the device, in the sweep): exit 1 within seconds, one log whose end line says the
 * signal and the call, the lock released. The deadline is far away: the signal ends it. */
static void test_signal_inside_a_hung_driver_call(void **state)
{
    if (!images)
        skip();
    static const char *const calls[] = { "cuInit", "cuDevicePrimaryCtxRetain",
                                         "cuModuleLoadDataEx", "cuEventSynchronize" };
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "600", 1);
    for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
        const char *dir = th_scratch();
        char trace[PATH_MAX], want[128];
        snprintf(trace, sizeof(trace), "%s/trace", dir);
        setenv("TB_FAKE_CUDA_TRACE", trace, 1);
        setenv("TB_FAKE_CUDA_HANG", calls[i], 1);
        pid_t pid = spawn(ON_CUDA, dir, "logs");
        snprintf(want, sizeof(want), "hang %s", calls[i]);
        wait_for(trace, want);
        kill(pid, SIGTERM);
        assert_int_equal(reap(pid), 1);
        char logs[PATH_MAX];
        snprintf(logs, sizeof(logs), "%s/logs", dir);
        assert_int_equal(th_count_files(logs), 1);
        char *text = the_log(logs);
        snprintf(want, sizeof(want), "interrupted by Terminated while the CUDA driver was in %s",
                 calls[i]);
        must_have(text, want);
        assert_int_equal(count_lines(text, "# end:"), 1);
        free(text);
        assert_true(lock_free());
    }
}

/* The lock comes before the driver: while one run hangs in its context, a second exits 75
 * without calling cuInit (the trace has the first run's one init). */
static void test_second_run_never_touches_the_driver(void **state)
{
    if (!images)
        skip();
    const char *dir = th_scratch();
    char trace[PATH_MAX];
    snprintf(trace, sizeof(trace), "%s/trace", dir);
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_TRACE", trace, 1);
    setenv("TB_FAKE_CUDA_HANG", "cuDevicePrimaryCtxRetain", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "600", 1);
    pid_t pid = spawn(ON_CUDA, dir, "a");
    wait_for(trace, "hang cuDevicePrimaryCtxRetain");
    unsetenv("TB_FAKE_CUDA_HANG");
    bounded_bin();
    assert_int_equal(th_runf(ON_CUDA " -o %s/b", dir), 75);
    char *t = th_read_gz(trace);
    assert_string_equal(t, "init\nctx\nhang cuDevicePrimaryCtxRetain\n");
    free(t);
    kill(pid, SIGINT);
    assert_int_equal(reap(pid), 1);
}

/* The driver's error text carries a newline and a forged end line, TB_CUDA_LIB a newline:
 * the log still has exactly one end line, the failure's, and stderr no raw escape. */
static void test_end_line_cannot_be_forged(void **state)
{
    if (!images)
        skip();
    bounded_bin();
    const char *libs[] = { fake_cuda, "/nonexistent/lib\n# end: complete, 5 rows\n.so" };
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_GARBAGE", "errtext", 1);
    for (size_t i = 0; i < 2; i++) {
        const char *dir = th_scratch();
        setenv("TB_CUDA_LIB", libs[i], 1);
        assert_int_equal(th_runf(ON_CUDA " -o %s", dir), 1);
        char *text = the_log(dir);
        assert_int_equal(count_lines(text, "# end:"), 1);
        assert_int_equal(count_lines(text, "# gpu:"), 1);
        must_have(text, "# end: failed: the GPU cannot be used (");
        assert_null(strchr(text, '\x1b'));
        free(text);
        assert_null(strchr(th_err(), '\x1b'));
        assert_null(strstr(th_err(), "\n# end"));
    }
}

/* A timer that answers NaN, a negative or a zero time: no row is ok, nothing measured, the
 * end line says so, exit 1 (it was 'ok' rows with empty GB/s and exit 0). */
static void test_timer_garbage_is_never_a_row(void **state)
{
    if (!images)
        skip();
    bounded_bin();
    const char *dir = th_scratch();
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_GARBAGE", "timer", 1);
    assert_int_equal(th_runf(ON_CUDA " --kernels memcpy,copy_row --blocks 16x16 -o %s", dir), 1);
    char *text = the_log(dir);
    must_have(text, "# end: failed: nothing measured (2 points failed");
    must_have(text, "impossible time");
    assert_null(strstr(text, ",ok,"));
    free(text);
}

/* Attributes no GPU can have (L2 of -1 bytes, 2^31-1 SMs, 2^64-1 bytes of memory, an SM
 * clock of 1.8e22 MHz) are unknown in the log, never figures. */
static void test_attribute_garbage_is_unknown(void **state)
{
    if (!images)
        skip();
    bounded_bin();
    const char *dir = th_scratch();
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_GARBAGE", "attrs", 1);
    th_runf(ON_CUDA " -o %s", dir);
    char *text = the_log(dir);
    must_have(text, ", 0 SMs, L2 0 bytes, memory 0 bytes,");
    assert_null(strstr(text, "18446744073709551615"));
    assert_null(strstr(text, "2147483647"));
    const char *header = strstr(text, "\nrun_id,") + 1, *row = strchr(header, '\n') + 1;
    char v[64];
    assert_int_equal(th_field(header, row, "sm_clock_mhz", v, sizeof(v)), 0);
    assert_string_equal(v, "");
    free(text);
    /* a compute capability of 2^31-1 (its x10 overflowed an int): the GPU is unusable */
    dir = th_scratch();
    setenv("TB_FAKE_CUDA_GARBAGE", "cc", 1);
    assert_int_equal(th_runf(ON_CUDA " -o %s", dir), 1);
    text = the_log(dir);
    must_have(text, "impossible compute capability (2147483647.0)");
    free(text);
    /* the test hook is named in the log of a run that has it on */
    dir = th_scratch();
    unsetenv("TB_FAKE_CUDA_GARBAGE");
    setenv("TB_CUDA_FAULT", "copy_row", 1);   /* not in the sweep: no launch breaks */
    th_runf(ON_CUDA " -o %s", dir);
    text = the_log(dir);
    must_have(text, "# fault_injection: TB_CUDA_FAULT=copy_row");
    free(text);
}

/* TB_CUDA_LIB and TB_NVML_LIB naming a FIFO: refused before dlopen (whose open would wait
 * for a writer for ever); list and run end at once and say why. */
static void test_fifo_libraries_do_not_hang(void **state)
{
    bounded_bin();
    const char *dir = th_scratch();
    char fifo[PATH_MAX];
    snprintf(fifo, sizeof(fifo), "%s/libcuda.so.1", dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    setenv("TB_CUDA_LIB", fifo, 1);
    /* refused at the start, as every TB_* path that is not what it must be (a usage error:
     * exit 2, nothing opened); the loader's own FIFO check stays behind it */
    assert_int_equal(th_runf("list"), 2);
    must_have(th_err(), "TB_CUDA_LIB");
    must_have(th_err(), "is not a regular file");
    assert_int_equal(th_runf(ON_CUDA " -o %s/logs", dir), 2);
    must_have(th_err(), "TB_CUDA_LIB");
    if (!images)
        return;
    setenv("TB_CUDA_LIB", fake_cuda, 1);   /* a GPU that works, NVML a FIFO */
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_NVML_LIB", fifo, 1);
    assert_int_equal(th_runf(ON_CUDA " --set power.source=nvml -o %s/logs2", dir), 2);
    must_have(th_err(), "TB_NVML_LIB");
}

/* list and power are bounded as run is: a cuInit that never returns ends them within the
 * deadline, non-zero, saying which call. */
static void test_list_and_power_bounded(void **state)
{
    if (!images)
        skip();
    bounded_bin();
    setenv("TB_CUDA_LIB", fake_cuda, 1);
    setenv("TB_FAKE_CUDA", "h100", 1);
    setenv("TB_FAKE_CUDA_HANG", "cuInit", 1);
    setenv("TB_DRIVER_TIMEOUT_S", "1", 1);
    assert_int_equal(th_runf("list"), 1);
    must_have(th_err(), "the CUDA driver did not return from cuInit within 1 s");
    assert_int_equal(th_runf("power --seconds 1"), 1);
    must_have(th_err(), "the CUDA driver did not return from cuInit within 1 s");
}

/* A clock 13 months ahead with keep_days = 30: the last nights (13 months "old" by the
 * jumped clock) stay, with a warning; a log older than 30 days before them still goes; a log
 * stamped in the future is never what ages count from. */
static void test_retention_survives_a_clock_jump(void **state)
{
    /* logs of this host and board, as retention knows its own: by the identity inside */
#define ID_LOG "# host: vm\n# board: nano, peak 25.6 GB/s\nrun_id,utc\n"
    const char *dir = th_scratch();
    time_t now = time(NULL);
    const long days[] = { 396, 397, 398, 500 };   /* the nights before the jump, one old */
    char name[128], path[PATH_MAX];
    for (size_t i = 0; i < ARRAY_SIZE(days); i++) {
        time_t t = now - days[i] * 86400;
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(name, sizeof(name), "vm_nano_%Y%m%dT%H%M%SZ.csv.gz", &tm);
        free(th_write(dir, name, ID_LOG));
    }
    free(th_write(dir, "vm_nano_29991231T000000Z.csv.gz", ID_LOG));   /* stamped in the future */
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(name, sizeof(name), "vm_nano_%Y%m%dT%H%M%SZ.csv.gz", &tm);
    free(th_write(dir, name, ID_LOG));                                 /* this run's */
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    th_stderr_begin();
    assert_int_equal(tb_retention_apply(dir, "vm", "nano", 0, 30, path), 1);
    char *said = th_stderr_end();
    must_have(said, "a clock that jumped");
    must_have(said, "removed '");
    free(said);
    assert_int_equal(th_count_files(dir), 5);   /* 3 nights, the future one, this run's */
}

/* Failed nights on every page: compare --html and history --html given only failed nights
 * (a GPU that could not be used) still write a page listing each with how it ended, and the
 * history page never says "0 series regressed" of nights that measured nothing. */
static void test_failed_nights_on_every_page(void **state)
{
    const char *root = fake_root("NVIDIA Jetson Nano Developer Kit");
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run --quiet " TINY " -o %s/logs", dir);
    assert_int_equal(run_on(root, "/nonexistent/libcuda.so.1", "h100", args), 1);
    char logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    char *log = th_find_one(logs, ".csv.gz");
    assert_non_null(log);
    th_keep(log);
    assert_int_equal(th_runf("compare --html %s/c.html %s", dir, log), 1);
    char page[PATH_MAX];
    snprintf(page, sizeof(page), "%s/c.html", dir);
    char *html = th_read_gz(page);
    assert_non_null(html);
    must_have(html, "Failed nights (nothing measured): 1");
    must_have(html, images ? "failed: the GPU cannot be used (cannot load the CUDA driver library"
                           : "failed: the GPU cannot be used (this binary carries no kernel "
                             "images");
    free(html);
    th_runf("history --html %s/h.html %s", dir, log);
    snprintf(page, sizeof(page), "%s/h.html", dir);
    html = th_read_gz(page);
    assert_non_null(html);
    must_have(html, "Failed nights (nothing measured): 1");
    assert_null(strstr(html, "0 series regressed"));
    free(html);
}

/* A sweep that names its CUDA kernels (conf/gpu-power.cfg) on a Nano whose GPU cannot be
 * used (--device auto): a log and exit 1, the GPU said to be the problem once, never "exists
 * on the cuda backend, not on cpu" per kernel with exit 2 and no log. */
static void test_named_gpu_kernels_on_an_unusable_gpu(void **state)
{
    const char *root = fake_root("NVIDIA Jetson Nano Developer Kit");
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run --quiet -c conf/gpu-power.cfg -o %s", dir);
    assert_int_equal(run_on(root, "/nonexistent/libcuda.so.1", "h100", args), 1);
    assert_null(strstr(th_err(), "exists on the cuda backend"));
    const char *first = strstr(th_err(), "the GPU cannot be used");
    assert_non_null(first);
    assert_null(strstr(first + 1, "the GPU cannot be used"));
    char *text = the_log(dir);
    /* without kernel images (CUDA=0) the GPU is unusable for that reason first */
    must_have(text, images ? "# end: failed: the GPU cannot be used (cannot load the CUDA driver"
                           : "# end: failed: the GPU cannot be used (this binary carries no "
                             "kernel images");
    free(text);
}

/* Integers that libconfig 1.5 would wrap to 32 bits are refused, naming the option, and
 * sizes from --sizes keep their 64-bit value (4294967297x3 was run as 1x3). */
static void test_no_wrapped_integers(void **state)
{
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run --quiet --device cpu -b boards/generic.cfg " TINY
             " --set output.keep_days=4294967297 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 2);
    must_have(th_err(), "--set output.keep_days=4294967297: the integer 4294967297 does not fit in "
                   "32 bits; libconfig 1.5 would wrap it");
    snprintf(args, sizeof(args), "run --quiet --device cpu -b boards/generic.cfg --kernels copy_row "
             "--sizes 4294967297x4294967297 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 2);
    must_have(th_err(), "size 4294967297x4294967297 overflows a byte count");
    assert_int_equal(th_count_files(dir), 0);   /* nothing run, no log */
}

/* compare keeps element types and power modes apart, and a baseline that matches nothing
 * (or only in another power mode) exits 2 rather than passing a nightly gate. */
static void test_compare_keeps_types_and_modes_apart(void **state)
{
    const char *root = fake_orin_nano();
    const char *dir = th_scratch();
    char args[4 * PATH_MAX];
    const char *runs[][2] = { { "u8", "pmode:0001" }, { "double", "pmode:0001" },
                              { "u8", "pmode:0000" } };
    char logs[3][PATH_MAX];
    for (int i = 0; i < 3; i++) {
        char sub[PATH_MAX + 16];
        snprintf(sub, sizeof(sub), "%s/r%d", dir, i);
        free(th_write(root, "var/lib/nvpmodel/status", runs[i][1]));
        snprintf(args, sizeof(args), "run --quiet --device cpu " TINY
                 " --set sweep.element=%s -o %s", runs[i][0], sub);
        assert_int_equal(run_on(root, "/nonexistent/libcuda.so.1", "h100", args), 0);
        char *l = th_find_one(sub, ".csv.gz");
        assert_non_null(l);
        tb_strlcpy(logs[i], l, sizeof(logs[i]));
        free(l);
    }
    snprintf(args, sizeof(args), "compare --format csv %s %s %s", logs[0], logs[1], logs[2]);
    assert_int_equal(th_runf("%s", args), 0);
    must_have(th_out(), ",copy_row,jetson-orin-nano,");
    must_have(th_out(), ",u8,\"7W (1)\",");
    must_have(th_out(), ",double,\"7W (1)\",");
    must_have(th_out(), ",u8,\"15W (0)\",");
    int lines = 0;
    for (const char *p = th_out(); (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 4);   /* header + three kept apart */
    /* the double night against the u8 one: nothing in common, exit 2 */
    snprintf(args, sizeof(args), "compare %s --baseline %s", logs[1], logs[0]);
    assert_int_equal(th_runf("%s", args), 2);
    must_have(th_err(), "no point of the logs matches a point of the baseline");
    /* u8 in 15W against u8 in 7W: only another power mode, said, and exit 2 */
    snprintf(args, sizeof(args), "compare %s --baseline %s", logs[2], logs[0]);
    assert_int_equal(th_runf("%s", args), 2);
    must_have(th_err(), "1 point(s) match the baseline only in another power mode or under "
                        "other clock caps: not compared");
}

/* A log is data, never code: board names with quotes, backquotes, macros and system() calls
 * go through compare --plot without running anything, and the plot is drawn. */
static void test_plot_of_hostile_names(void **state)
{
    const char *dir = th_scratch();
    char args[6 * PATH_MAX], board[PATH_MAX], pwned[PATH_MAX];
    snprintf(pwned, sizeof(pwned), "%s/PWNED", dir);
    char text[3 * PATH_MAX];
    snprintf(text, sizeof(text),
             "board = { name = \"bob's nano'; system('touch %s'); `touch %s` @x \\\"q\\\"\"; "
             "peak_gbps = 0.0; };\npower = { source = \"none\"; };\n", pwned, pwned);
    free(th_write(dir, "hostile.cfg", text));
    snprintf(board, sizeof(board), "%s/hostile.cfg", dir);
    snprintf(args, sizeof(args), "run --quiet --device cpu -b %s --sizes 64x64 --kernels copy_row,"
             "blocked --blocks 8x8,16x16 --set sweep.stop.min_time_ms=1 -o %s/logs", board, dir);
    assert_int_equal(th_runf("%s", args), 0);
    char logs[PATH_MAX + 8], *log;
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    log = th_find_one(logs, ".csv.gz");
    assert_non_null(log);
    must_have(log, "_bob-s-nano---system--touch-");   /* the file name: nothing a shell reads */
    snprintf(args, sizeof(args), "compare %s --plot \"%s/it's a plot.svg\"", log, dir);
    int rc = th_runf("%s", args);
    assert_int_equal(access(pwned, F_OK), -1);          /* nothing ran */
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        assert_int_equal(rc, 0);
        char svg[PATH_MAX + 32];
        snprintf(svg, sizeof(svg), "%s/it's a plot.svg", dir);
        char *pic = th_read_gz(svg);
        assert_non_null(pic);
        must_have(pic, "<svg");
        must_have(pic, "bob's nano'; system('touch ");   /* the name, drawn as text */
        free(pic);
    } else {
        assert_int_equal(rc, 1);
        must_have(th_err(), "sudo apt-get install gnuplot-nox");
    }
    /* history --plot of the same log, to a name with a quote, a semicolon and a backslash */
    snprintf(args, sizeof(args), "history %s --plot \"%s/it's; a \\ plot.svg\"", log, dir);
    rc = th_runf("%s", args);
    assert_int_equal(access(pwned, F_OK), -1);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        assert_int_equal(rc, 0);
        char svg[PATH_MAX + 32];
        snprintf(svg, sizeof(svg), "%s/it's; a \\ plot.svg", dir);
        char *pic = th_read_gz(svg);
        if (!pic)
            th_fail("no history plot; stderr: %s", th_err());
        must_have(pic, "Best GB/s per night");
        must_have(pic, "bob's nano'; system('touch ");
        free(pic);
    }
    free(log);
}

/* A crafted log: every text field (board, device, kernel, power mode) carries quotes,
 * backslashes, a tab, semicolons, backquotes, $( ) and gnuplot's system(); compare --plot and
 * history --plot draw it, nothing runs, and the names appear as text. */
static void test_plot_of_a_crafted_log(void **state)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        skip();
    const char *dir = th_scratch();
    char pwned[PATH_MAX], text[8 * PATH_MAX], args[4 * PATH_MAX];
    snprintf(pwned, sizeof(pwned), "%s/PWNED", dir);
    const char *fields = "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,"
                         "rel_sem,status,power_mode,frac_copy,gbps_per_w\n";
    for (int night = 1; night <= 2; night++) {
        snprintf(text, sizeof(text),
                 "# log_format: 1\n%s"
                 "h_x_202611%02dT023000Z,\"b'; system(\"\"touch %s\"\") #\",\"d\\\\ `touch %s`"
                 " ; $(touch %s)\tx\",\"k'\"\";x\",float,64,64,8,8,%d,0.01,ok,\"m'\\\\\",0.5,1\n"
                 "h_x_202611%02dT023000Z,\"b'; system(\"\"touch %s\"\") #\",\"d\\\\ `touch %s`"
                 " ; $(touch %s)\tx\",memcpy,float,64,64,0,0,20,0.01,ok,\"m'\\\\\",1,2\n"
                 "# end: complete, 2 rows\n",
                 fields, night, pwned, pwned, pwned, 10 + night, night, pwned, pwned, pwned);
        char name[64];
        snprintf(name, sizeof(name), "h_x_202611%02dT023000Z.csv", night);
        free(th_write(dir, name, text));
    }
    const char *cmds[2] = { "compare", "history" };
    for (int c = 0; c < 2; c++) {
        snprintf(args, sizeof(args), "%s %s/h_x_20261101T023000Z.csv %s/h_x_20261102T023000Z.csv "
                 "--plot %s/p%d.svg", cmds[c], dir, dir, dir, c);
        int rc = th_runf("%s", args);
        if (rc != 0)
            th_fail("%s --plot exit %d: %s", cmds[c], rc, th_err());
        assert_int_equal(access(pwned, F_OK), -1);          /* nothing ran */
        char svg[PATH_MAX + 16];
        snprintf(svg, sizeof(svg), "%s/p%d.svg", dir, c);
        char *pic = th_read_gz(svg);
        assert_non_null(pic);
        must_have(pic, "system(");                          /* the board name, as text */
        /* compare: the kernel (its double quote drawn as '); history: the device */
        must_have(pic, c ? "$(touch " : "k'';x");
        free(pic);
    }
    /* a picture name with a newline: refused with the reason, nothing written, nothing run */
    snprintf(args, sizeof(args), "compare %s/h_x_20261101T023000Z.csv --plot \"%s/a\nb.svg\"",
             dir, dir);
    assert_int_equal(th_runf("%s", args), 1);
    must_have(th_err(), "the file name has a control character");
    assert_int_equal(access(pwned, F_OK), -1);
}

/* compare's output to a full disk: an error and exit 1, never a quiet success. */
static void test_compare_output_to_a_full_disk(void **state)
{
    const char *text_dir = th_scratch();
    char args[2 * PATH_MAX], cmd[3 * PATH_MAX];
    snprintf(args, sizeof(args), "run --quiet --device cpu -b boards/generic.cfg " TINY " -o %s",
             text_dir);
    assert_int_equal(th_runf("%s", args), 0);
    char *log = th_find_one(text_dir, ".csv.gz");
    assert_non_null(log);
    const char *bin = getenv("TB_BIN");
    snprintf(cmd, sizeof(cmd), "%s compare %s --format csv > /dev/full 2>%s/err",
             bin ? bin : "./transpose-bench", log, text_dir);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    char errp[PATH_MAX + 8];
    snprintf(errp, sizeof(errp), "%s/err", text_dir);
    char *err = th_read_gz(errp);
    must_have(err, "compare: cannot write the output: No space left on device");
    free(err);
    /* history too: its table to a full disk is an error, not a quiet success */
    snprintf(cmd, sizeof(cmd), "%s history %s --format csv > /dev/full 2>%s/err",
             bin ? bin : "./transpose-bench", log, text_dir);
    st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    err = th_read_gz(errp);
    must_have(err, "history: cannot write the output: No space left on device");
    free(err);
    free(log);
}

/* A night's log as history reads it: the run_id carries the night. */
static void night_log(const char *dir, int day, const char *const *kernels, const double *gbps,
                      int nk)
{
    char name[128], text[4096];
    size_t len = (size_t)snprintf(text, sizeof(text),
                                  "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,"
                                  "block_x,block_y,gbps,rel_sem,status,power_mode\n");
    for (int k = 0; k < nk; k++)
        len += (size_t)snprintf(text + len, sizeof(text) - len,
                                "orin1_jetson-orin-nano_202611%02dT023000Z,jetson-orin-nano,Orin,"
                                "%s,float,4096,4096,32,8,%.2f,0.002,ok,15W (0)\n", day, kernels[k],
                                gbps[k]);
    snprintf(text + len, sizeof(text) - len, "# end: complete, %d rows\n", nk);
    snprintf(name, sizeof(name), "orin1_jetson-orin-nano_202611%02dT023000Z.csv.gz", day);
    free(th_write(dir, name, text));
}

/* #33: history listed 1024x1024 before 64x64 and 2048 before 512 (sizes as text). Sizes
 * are numbers: one night of three sizes, each size's series in number order. */
static void test_history_sizes_in_number_order(void **state)
{
    const char *dir = th_scratch();
    const char *sizes[3] = { "1024,1024", "64,64", "512,2048" };
    char text[1024];
    size_t len = (size_t)snprintf(text, sizeof(text), "# log_format: 1\nrun_id,board,device,"
                                  "kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status\n");
    for (int i = 0; i < 3; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "h_b_20261101T023000Z,b,d,"
                                "blocked,float,%s,8,8,%d.0,0.002,ok\n", sizes[i], 10 + i);
    snprintf(text + len, sizeof(text) - len, "# end: complete, 3 rows\n");
    free(th_write(dir, "h_b_20261101T023000Z.csv.gz", text));
    char args[PATH_MAX + 64];
    snprintf(args, sizeof(args), "history --format csv %s/h_b_20261101T023000Z.csv.gz", dir);
    assert_int_equal(th_runf("%s", args), 0);
    const char *a = strstr(th_out(), ",64,64,"), *b = strstr(th_out(), ",512,2048,"),
               *c = strstr(th_out(), ",1024,1024,");
    if (!a || !b || !c || !(a < b && b < c))
        th_fail("sizes not in number order:\n%s", th_out());
}

/* Hostile text in a log never reaches the terminal raw: compare's "impossible figures"
 * warning (a kernel name with an escape sequence) and history's failed-night error (an end
 * line, a board and a host carrying escapes). */
static void test_hostile_text_not_raw_on_a_terminal(void **state)
{
    const char *dir = th_scratch();
    const char *evil[] = { "copy_row\x1b[2J\x1b]0;pwned\x07" };
    const double inf[] = { 1e30 };
    night_log(dir, 1, evil, inf, 1);
    free(th_write(dir, "h_b_20261102T023000Z.csv.gz",
                  "# log_format: 1\n# run_id: h_b_20261102T023000Z\n"
                  "# host: h\x1b[31m\n# board: b\x1b[1m, peak 1.0 GB/s\n"
                  "run_id,board,kernel,rows,cols,gbps,status\n"
                  "# end: failed: the GPU cannot be used (\x1b[2Jgone), 0 rows\n"));
    th_runf("compare %s/orin1_jetson-orin-nano_20261101T023000Z.csv.gz", dir);
    must_have(th_err(), "impossible figures");
    assert_null(strchr(th_err(), '\x1b'));
    assert_null(strchr(th_err(), '\x07'));
    th_runf("history %s/h_b_20261102T023000Z.csv.gz", dir);
    must_have(th_err(), "ended '");
    assert_null(strchr(th_err(), '\x1b'));
}

/* Twelve nights: blocked drops by 30% on the 11th and stays down (a change: flagged from the
 * 11th, still slower on the 12th, exit 1);
 * copy_row has one bad night in the middle (noise: said, not a change). With the 12th night
 * not yet there, the 11th alone is not called a regression. */
static void test_history_flags_a_lasting_change_only(void **state)
{
    static const double blocked[12] = { 100, 101, 99, 100.5, 99.5, 100, 101, 99.8, 100.2, 100.1,
                                        70, 71 };
    static const double copy[12] = { 200, 201, 199, 200, 202, 140, 200, 199, 201, 200, 200, 199 };
    const char *kernels[2] = { "blocked", "copy_row" };
    const char *dir = th_scratch();
    char args[PATH_MAX + 64];
    for (int d = 0; d < 12; d++) {
        double g[2] = { blocked[d], copy[d] };
        night_log(dir, d + 1, kernels, g, 2);
    }
    snprintf(args, sizeof(args), "history %s/*.csv.gz", dir);
    assert_int_equal(th_runf("%s", args), 1);
    must_have(th_out(), "jetson-orin-nano (Orin) on orin1, blocked, 4096x4096 float, 15W (0)\n");
    must_have(th_out(), "  2026-11-11       70.0      100.1   -30.1%       -      -  SLOWER from here\n");
    must_have(th_out(), "  2026-11-12       71.0      100.1   -29.1%       -      -  still slower\n");
    must_have(th_out(), "  2026-11-06      140.0      200.0   -30.0%       -      -  one night off (noise)\n");
    assert_null(strstr(th_out(), "faster from here"));
    must_have(th_out(), "1 series regressed on the latest night\n");
    /* the csv form, one row per series and night */
    snprintf(args, sizeof(args), "history --format csv %s/*.csv.gz", dir);
    assert_int_equal(th_runf("%s", args), 1);
    must_have(th_out(), "jetson-orin-nano,orin1,Orin,blocked,4096,4096,float,\"15W (0)\",,,2026-11-11,70.00,"
                   "100.1,-30.1,\"SLOWER from here\",,,,\n");   /* table.c: RFC 4180, numbers plain */
    /* before the 12th night: one low night is not yet a change */
    char last[PATH_MAX];
    snprintf(last, sizeof(last), "%s/orin1_jetson-orin-nano_20261112T023000Z.csv.gz", dir);
    assert_int_equal(unlink(last), 0);
    assert_int_equal(th_runf("%s", args), 0);
    must_have(th_out(), ",2026-11-11,70.00,100.1,-30.1,\"lower (one night: not yet a change)\",,,,\n");
}

/* A night of blocked in 15W under the caps a mode sweep's step asked ("" none), as history
 * reads it. */
static void capped_night(const char *dir, int day, const char *gpu_cap, const char *emc_cap,
                         double gbps)
{
    char name[128], text[1024];
    snprintf(text, sizeof(text), "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,"
             "block_x,block_y,gbps,rel_sem,status,power_mode,gpu_cap_asked_mhz,"
             "emc_cap_asked_mhz,dyn_pj_per_byte\n"
             "orin1_jetson-orin-nano_202611%02dT023000Z,jetson-orin-nano,Orin,blocked,float,4096,"
             "4096,32,8,%.2f,0.002,ok,15W (0),%s,%s,12.5\n# end: complete, 1 rows\n", day, gbps,
             gpu_cap, emc_cap);
    snprintf(name, sizeof(name), "orin1_jetson-orin-nano_202611%02dT023000Z.csv.gz", day);
    free(th_write(dir, name, text));
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* #31: history compares like with like. Five nights of 15W uncapped at 100 GB/s, then two of
 * 15W under a GPU cap of 612 MHz at 70: two series, and the capped nights are no slowdown
 * (one series would flag them SLOWER and exit 1). Nights under the same caps are one series;
 * another EMC cap alone is another series. The caps are in each series' heading, in the CSV
 * and JSON columns, in the page's chart titles; compare --pareto's page names a cap asked
 * and leaves out the one not asked. */
static void test_history_keeps_caps_apart(void **state)
{
    const char *dir = th_scratch();
    for (int d = 1; d <= 5; d++)
        capped_night(dir, d, "", "", 100 + (d % 2));
    capped_night(dir, 6, "612", "", 70);
    capped_night(dir, 7, "612", "", 71);
    assert_int_equal(th_runf("history %s/*.csv.gz", dir), 0);
    must_have(th_out(), "jetson-orin-nano (Orin) on orin1, blocked, 4096x4096 float, 15W (0)\n");
    must_have(th_out(), "jetson-orin-nano (Orin) on orin1, blocked, 4096x4096 float, 15W (0), "
                        "GPU cap 612 MHz\n");
    assert_null(strstr(th_out(), "SLOWER"));
    must_have(th_out(), "0 series regressed on the latest night\n");
    assert_int_equal(th_runf("history --format csv %s/*.csv.gz", dir), 0);
    must_have(th_out(), ",elem,power_mode,gpu_cap_asked_mhz,emc_cap_asked_mhz,night,");
    assert_int_equal(count_of(th_out(), ",\"15W (0)\",612,,2026-11-0"), 2);
    assert_int_equal(count_of(th_out(), ",\"15W (0)\",,,2026-11-0"), 5);
    assert_int_equal(th_runf("history --format json %s/*.csv.gz", dir), 0);
    assert_int_equal(count_of(th_out(), "\"gpu_cap_asked_mhz\": 612, "
                                        "\"emc_cap_asked_mhz\": null"), 2);
    assert_int_equal(count_of(th_out(), "\"gpu_cap_asked_mhz\": null, "
                                        "\"emc_cap_asked_mhz\": null"), 5);
    char page[PATH_MAX];
    snprintf(page, sizeof(page), "%s/h.html", dir);
    assert_int_equal(th_runf("history --html %s %s/*.csv.gz", page, dir), 0);
    char *html = th_keep(th_read_gz(page));
    must_have(html, "blocked, 4096x4096 float, 15W (0)</h2>");
    must_have(html, "blocked, 4096x4096 float, 15W (0), GPU cap 612 MHz</h2>");
    snprintf(page, sizeof(page), "%s/p.html", dir);
    assert_int_equal(th_runf("compare --pareto --html %s %s/*.csv.gz", page, dir), 0);
    html = th_keep(th_read_gz(page));
    must_have(html, "15W (0), GPU cap 612 MHz, block 32x8");
    assert_null(strstr(html, "nan MHz"));   /* the EMC cap not asked: left out */

    /* the same caps: one series of three nights; another EMC cap: a series of its own */
    const char *dir2 = th_scratch();
    for (int d = 1; d <= 3; d++)
        capped_night(dir2, d, "612", "2133", 70);
    capped_night(dir2, 4, "612", "3199", 75);
    assert_int_equal(th_runf("history %s/*.csv.gz", dir2), 0);
    assert_int_equal(count_of(th_out(), "15W (0), GPU cap 612 MHz, EMC cap 2133 MHz\n"), 1);
    assert_int_equal(count_of(th_out(), "15W (0), GPU cap 612 MHz, EMC cap 3199 MHz\n"), 1);
    assert_int_equal(count_of(th_out(), "jetson-orin-nano (Orin) on orin1"), 2);
    assert_int_equal(th_runf("history --format csv %s/*.csv.gz", dir2), 0);
    assert_int_equal(count_of(th_out(), ",\"15W (0)\",612,2133,2026-11-0"), 3);
    assert_int_equal(count_of(th_out(), ",\"15W (0)\",612,3199,2026-11-04,75.00,"), 1);
}

/* issue 32: one night stamped 2999 (a board whose clock jumped) once became "the latest
 * night", inside the band, and hid a real slowdown (exit 0). It is flagged and left out:
 * the slowdown of the 11th and 12th still exits 1; so does a night of month 13. */
static void test_history_future_night_hides_nothing(void **state)
{
    static const double blocked[12] = { 100, 101, 99, 100.5, 99.5, 100, 101, 99.8, 100.2, 100.1,
                                        70, 71 };
    const char *kernels[1] = { "blocked" };
    const char *dir = th_scratch();
    char args[PATH_MAX + 64];
    for (int d = 0; d < 12; d++)
        night_log(dir, d + 1, kernels, &blocked[d], 1);
    snprintf(args, sizeof(args), "history %s/*.csv.gz", dir);
    assert_int_equal(th_runf("%s", args), 1);
    free(th_write(dir, "orin1_jetson-orin-nano_29990101T023000Z.csv.gz",
                  "# log_format: 1\n# run_id: orin1_jetson-orin-nano_29990101T023000Z\n"
                  "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status,"
                  "power_mode\norin1_jetson-orin-nano_29990101T023000Z,jetson-orin-nano,Orin,"
                  "blocked,float,4096,4096,32,8,100.00,0.002,ok,15W (0)\n# end: complete, 1 rows\n"));
    free(th_write(dir, "orin1_jetson-orin-nano_20261332T023000Z.csv.gz",
                  "# log_format: 1\n"
                  "run_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,rel_sem,status,"
                  "power_mode\norin1_jetson-orin-nano_20261332T023000Z,jetson-orin-nano,Orin,"
                  "blocked,float,4096,4096,32,8,100.00,0.002,ok,15W (0)\n# end: complete, 1 rows\n"));
    assert_int_equal(th_runf("%s", args), 1);
    must_have(th_out(), "  2026-11-12       71.0      100.1   -29.1%       -      -  still slower\n");
    must_have(th_out(), "1 series regressed on the latest night\n");
    must_have(th_out(), "2 logs stamped with a time that cannot be (named above): left out of "
                        "nights, baselines and bands; the latest night is the latest plausible one");
    must_have(th_err(), "29990101T023000Z.csv.gz:2: run 'orin1_jetson-orin-nano_29990101T023000Z' "
                        "is stamped in the future (a clock set wrong?): flagged");
    must_have(th_err(), "20261332T023000Z.csv.gz:3: run 'orin1_jetson-orin-nano_20261332T023000Z' "
                        "is stamped with an impossible date: flagged");
    assert_null(strstr(th_out(), "2999"));
    /* nor is it a baseline: against it alone nothing is compared (exit 2), and it is said */
    char now12[PATH_MAX + 64];
    snprintf(now12, sizeof(now12), "compare %s/orin1_jetson-orin-nano_20261112T023000Z.csv.gz "
             "--baseline %s/orin1_jetson-orin-nano_29990101T023000Z.csv.gz", dir, dir);
    assert_int_equal(th_runf("%s", now12), 2);
    must_have(th_err(), "1 baseline row of a run stamped with a time that cannot be: left out");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_gpu_board_without_gpu_fails_with_a_log),
        TH_TEST(test_auto_falls_back_only_without_a_driver),
        TH_TEST(test_run_conditions_of_a_jetson),
        TH_TEST(test_pinned_clocks),
        TH_TEST(test_quick_runs_never_share_a_log),
        TH_TEST(test_board_detection_on_real_models),
        TH_TEST(test_absurd_readings_dropped),
        TH_TEST(test_silent_source_is_said),
        TH_TEST(test_sigint_during_a_big_cpu_point),
        TH_TEST(test_driver_hang_at_each_step),
        TH_TEST(test_signal_inside_a_hung_driver_call),
        TH_TEST(test_second_run_never_touches_the_driver),
        TH_TEST(test_end_line_cannot_be_forged),
        TH_TEST(test_timer_garbage_is_never_a_row),
        TH_TEST(test_attribute_garbage_is_unknown),
        TH_TEST(test_fifo_libraries_do_not_hang),
        TH_TEST(test_list_and_power_bounded),
        TH_TEST(test_named_gpu_kernels_on_an_unusable_gpu),
        TH_TEST(test_retention_survives_a_clock_jump),
        TH_TEST(test_failed_nights_on_every_page),
        TH_TEST(test_history_sizes_in_number_order),
        TH_TEST(test_no_wrapped_integers),
        TH_TEST(test_compare_keeps_types_and_modes_apart),
        TH_TEST(test_plot_of_hostile_names),
        TH_TEST(test_plot_of_a_crafted_log),
        TH_TEST(test_compare_output_to_a_full_disk),
        TH_TEST(test_history_flags_a_lasting_change_only),
        TH_TEST(test_history_future_night_hides_nothing),
        TH_TEST(test_history_keeps_caps_apart),
        TH_TEST(test_hostile_text_not_raw_on_a_terminal),
    };
    return cmocka_run_group_tests_name("nightly", tests, setup, NULL);
}
