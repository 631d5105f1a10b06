/* test_nightly.c: what makes an unattended night's log trustworthy, on the real binary with
 * fake roots shaped like real boards (TB_ROOT) and a fake libcuda: a board whose GPU cannot
 * be used fails with a log that says why (never a silent CPU run); runs in one second get
 * distinct logs; retention keeps other hosts' and boards' logs; the run conditions of a
 * Jetson (L4T, power mode, GPU clocks, temperature) in the log; board detection on the model
 * strings real boards report (a driver that hangs or answers garbage: test_driver_faults.c;
 * compare, history and plots over nights: test_night_pages.c).
 * Each test runs in the fixture of helpers.h (TH_TEST): fake
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

static const char *fake_cuda;
static bool images;

static int setup(void **state)
{
    fake_cuda = th_fake_cuda_lib();
    images = th_have_images();
    th_own_lock("nightly");
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
        th_must_have(th_err(), "jetson-nano: the GPU cannot be used: ");
        char *text = th_the_log(dir);
        th_must_have(text, "# board: jetson-nano, peak 25.6 GB/s, has a GPU\n");
        th_must_have(text, "# backend: none\n");
        th_must_have(text, "# gpu: unusable: ");
        th_must_have(text, "# end: failed: the GPU cannot be used (");
        th_must_have(text, " 0 rows\n");
        if (images)
            th_must_have(text, i == 0 ? "cuInit: CUDA_ERROR_NO_DEVICE" : "cannot load the CUDA driver");
        free(text);
    }
    const char *dir = th_scratch();
    char args[1024];
    snprintf(args, sizeof(args), "run --quiet --device cpu " TINY " -o %s", dir);
    assert_int_equal(run_on(root, fake_cuda, "nodevice", args), 0);
    char *text = th_the_log(dir);
    th_must_have(text, "# backend: cpu\n");
    th_must_have(text, "# end: complete, 1 rows");
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
    th_must_have(th_err(), "no usable GPU (");
    th_rmtree(dir);   /* the second night starts with no log folder, as the first did */
    assert_int_equal(run_on(root, fake_cuda, "nodevice", args), 1);
    th_must_have(th_err(), "generic: the GPU cannot be used: ");
}

/* The conditions a night depends on, from an Orin Nano's own files. */
static void test_run_conditions_of_a_jetson(void **state)
{
    const char *root = fake_orin_nano();
    char *text = cpu_night(root);
    th_must_have(text, "# board_file: ");
    th_must_have(text, "boards/jetson-orin-nano.cfg (fnv1a64 ");
    th_must_have(text, "model 'NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super' "
                    "matches 'Orin Nano'\n");
    th_must_have(text, "# l4t: R36.4.3\n");
    th_must_have(text, "# power_mode: 7W (1)\n");
    th_must_have(text, "# gpu_devfreq: 17000000.gpu: cur 306 MHz, min 306 MHz, max 408 MHz; "
                    "available: 306 408 510 612 625\n");
    th_must_have(text, "# gpu_clocks: dynamic (DVFS: not pinned)\n");
    th_must_have(text, "# gpu_temp: 45.5 C at the start\n");
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
    th_must_have(text, "# gpu_clocks: pinned (min == max: jetson_clocks)\n");
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
    th_must_have(th_out(), "board: boards/jetson-tx2.cfg (model 'quill' matches 'quill')\n");
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
    th_use_fake_clock();   /* the run keeps virtual time: no real sleep */
    setenv("TB_FAKE_CLOCK_WORK", "100", 1);   /* its load: 10 ms of real work a second */
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
    char *text = th_the_log(logs);
    const char *h = strstr(text, "\nrun_id,") + 1, *row = strchr(h, '\n') + 1;
    char v[256];
    assert_int_equal(th_field(h, row, "power_total_w", v, sizeof(v)), 0);
    assert_true(atof(v) > 4.8 && atof(v) < 4.85);  /* the good readings alone */
    assert_int_equal(th_field(h, row, "power_note", v, sizeof(v)), 0);
    th_must_have(v, "outside 0..45 W dropped during the window");
    assert_int_equal(th_field(h, row, "emc_clock_mhz", v, sizeof(v)), 0);
    assert_string_equal(v, "2133");                 /* the memory clock, per row */
    th_must_have(text, "# sensor: ");
    assert_null(strstr(text, "# sensor: 0 reading"));
    free(text);
    free(board);
}

/* A tegrastats that stops printing (alive, silent): said once on stderr and in the log, and
 * the rows measured meanwhile say why they have no power. */
static void test_silent_source_is_said(void **state)
{
    th_use_fake_clock();   /* the run keeps virtual time: no real sleep */
    setenv("TB_FAKE_CLOCK_WORK", "100", 1);   /* its load: 10 ms of real work a second */
    const char *dir = th_scratch();
    char args[3 * PATH_MAX];
    char *board = replay_board(dir, ORIN_LINE("4824mW") ORIN_LINE("5251mW"));
    setenv("TB_FAKE_TEGRASTATS_STALL", "3", 1);
    /* one short round: its windows' load is real work, and the silence is what is tested */
    snprintf(args, sizeof(args), "run --quiet --device cpu -b %s --sizes 64x64,32x32 "
             "--kernels copy_row --set sweep.stop.min_time_ms=1 --set power.rounds=1 "
             "--set power.window_ms=300 -o %s/logs", board, dir);
    assert_int_equal(th_runf("%s", args), 0);
    th_must_have(th_err(), "power source 'tegrastats' delivered nothing for ");
    assert_null(strstr(strstr(th_err(), "delivered nothing") + 1, "delivered nothing")); /* once */
    char logs[PATH_MAX];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    char *text = th_the_log(logs);
    const char *h = strstr(text, "\nrun_id,") + 1, *row = strchr(strchr(h, '\n') + 1, '\n') + 1;
    char v[256];
    assert_int_equal(th_field(h, row, "power_note", v, sizeof(v)), 0);
    th_must_have(v, "no reading from 'tegrastats' for ");
    th_must_have(v, "(the source is silent)");
    th_must_have(text, "1 silence(s) of twice the interval or more");
    free(text);
    free(board);
}

/* A big CPU point answers SIGINT at once: the log ends "interrupted", exit 1. The point
 * (a 4 GiB transpose of doubles on the CPU, with its fill and check) takes far longer than
 * the 20 s allowed here; a stop between rows takes a fraction of a second. */
static void test_sigint_during_a_big_cpu_point(void **state)
{
    const char *dir = th_scratch();
    char args[PATH_MAX + 256];
    snprintf(args, sizeof(args), "run --quiet --device cpu -b boards/generic.cfg --sizes "
             "16384x16384 --kernels naive_row --set sweep.element=double --set power.source=none "
             "-o %s", dir);
    pid_t pid = th_spawn_tool(args);
    char *part = th_wait_part(dir, 0, 30);   /* the run has started: its log exists */
    assert_non_null(part);
    free(part);
    sleep(1);                                  /* now inside the point */
    kill(pid, SIGINT);
    assert_int_equal(th_reap(pid, 20), 1);     /* the run stopped within 20 s of SIGINT, exit 1 */
    char *text = th_the_log(dir);
    th_must_have(text, "# end: interrupted by Interrupt");
    free(text);
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
    th_must_have(said, "a clock that jumped");
    th_must_have(said, "removed '");
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
    th_must_have(html, "Failed nights (nothing measured): 1");
    th_must_have(html, images ? "failed: the GPU cannot be used (cannot load the CUDA driver library"
                           : "failed: the GPU cannot be used (this binary carries no kernel "
                             "images");
    free(html);
    th_runf("history --html %s/h.html %s", dir, log);
    snprintf(page, sizeof(page), "%s/h.html", dir);
    html = th_read_gz(page);
    assert_non_null(html);
    th_must_have(html, "Failed nights (nothing measured): 1");
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
    char *text = th_the_log(dir);
    /* without kernel images (CUDA=0) the GPU is unusable for that reason first */
    th_must_have(text, images ? "# end: failed: the GPU cannot be used (cannot load the CUDA driver"
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
    th_must_have(th_err(), "--set output.keep_days=4294967297: the integer 4294967297 does not fit in "
                   "32 bits; libconfig 1.5 would wrap it");
    snprintf(args, sizeof(args), "run --quiet --device cpu -b boards/generic.cfg --kernels copy_row "
             "--sizes 4294967297x4294967297 -o %s", dir);
    assert_int_equal(th_runf("%s", args), 2);
    th_must_have(th_err(), "size 4294967297x4294967297 overflows a byte count");
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
    th_must_have(th_out(), ",copy_row,jetson-orin-nano,");
    th_must_have(th_out(), ",u8,\"7W (1)\",");
    th_must_have(th_out(), ",double,\"7W (1)\",");
    th_must_have(th_out(), ",u8,\"15W (0)\",");
    int lines = 0;
    for (const char *p = th_out(); (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 4);   /* header + three kept apart */
    /* the double night against the u8 one: nothing in common, exit 2 */
    snprintf(args, sizeof(args), "compare %s --baseline %s", logs[1], logs[0]);
    assert_int_equal(th_runf("%s", args), 2);
    th_must_have(th_err(), "no point of the logs matches a point of the baseline");
    /* u8 in 15W against u8 in 7W: only another power mode, said, and exit 2 */
    snprintf(args, sizeof(args), "compare %s --baseline %s", logs[2], logs[0]);
    assert_int_equal(th_runf("%s", args), 2);
    th_must_have(th_err(), "1 point(s) match the baseline only in another power mode or under "
                        "other clock caps: not compared");
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
        TH_TEST(test_named_gpu_kernels_on_an_unusable_gpu),
        TH_TEST(test_retention_survives_a_clock_jump),
        TH_TEST(test_failed_nights_on_every_page),
        TH_TEST(test_no_wrapped_integers),
        TH_TEST(test_compare_keeps_types_and_modes_apart),
    };
    return cmocka_run_group_tests_name("nightly", tests, setup, NULL);
}
