/* test_e2e_power.c: power through the real binary on the CPU backend: a fake tegrastats
 * through `run` (and one that dies mid-run), the `power` command on tegrastats and on a fake
 * INA3221 sysfs tree, a fake NVML's energy counter through `run`; on the fake clock
 * (TB_FAKE_CLOCK=1): the idle and windows pass in virtual time. Fixture: TH_TEST. */
#include "e2e.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "measure/backend.h"
#include "energy/rerun.h"
#include "lib/stats.h"
#include "log/csvlog.h"
#include "lib/util.h"

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
    th_use_fake_clock();   /* the run keeps virtual time: no real sleep */
    setenv("TB_FAKE_CLOCK_WORK", "100", 1);   /* its load: 10 ms of real work a second */
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
    assert_int_equal(th_data_rows(text, &header), 2);
    char v[64];
    for (int i = 0; i < 2; i++) {
        const char *row = th_row_at(header, i);
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
    th_use_fake_clock();   /* the run keeps virtual time: no real sleep */
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
    int rows = th_data_rows(text, &header);
    assert_int_equal(rows, 5);
    char v[64];
    th_field(header, th_row_at(header, rows - 1), "power_total_w", v, sizeof(v));
    assert_string_equal(v, "");                       /* rows after the failure: no figures */
    th_field(header, th_row_at(header, rows - 1), "status", v, sizeof(v));
    assert_string_equal(v, "ok");
    free(text);
    free(board);
    free(err);
}

/* The log the last th_runf named on stdout ("log: PATH"), read whole. */
static char *named_log(void)
{
    const char *l = strstr(th_out(), "log: ");
    assert_non_null(l);
    char path[PATH_MAX];
    size_t n = strcspn(l + 5, "\n");
    assert_true(n < sizeof(path));
    memcpy(path, l + 5, n);
    path[n] = '\0';
    char *text = th_read_gz(path);
    assert_non_null(text);
    return text;
}

/* Three nights of one board into one log folder: the first's rerun interval rests on the
 * board file's run-to-run spread alone (rerun_runs 0, the setting in rerun_ratio_sd, and
 * energy_ratio_rerun_ci95 that spread and the cycles' spread combined); the third learns
 * from the two before it, says so in its power_rerun line and in rerun_runs. */
static void test_rerun_spread_learned_from_earlier_nights(void **state)
{
    th_use_fake_clock();
    setenv("TB_FAKE_CLOCK_WORK", "100", 1);
    const char *dir = th_scratch();
    setenv("TB_FAKE_TEGRASTATS_FILE", th_fixture("tegrastats/orin-nano-jp6.txt"), 1);
    char *board = tegra_board(dir, "rerun_ratio_sd = 0.005;");
    char *logs = th_tmpdir();
    char *text = NULL;
    for (int night = 0; night < 3; night++) {
        free(text);
        assert_int_equal(th_runf("run --device cpu -b %s --sizes 128x128 --kernels blocked "
                                 "--blocks 16x16 --set sweep.stop.min_time_ms=5 -o %s", board,
                                 logs), 0);
        text = named_log();
        const char *header;
        assert_int_equal(th_data_rows(text, &header), 2);
        const char *row = th_row_at(header, 1);   /* blocked, beside the copy */
        char v[64], ci[64], rci[64], sd[64];
        th_field(header, row, "rerun_runs", v, sizeof(v));
        assert_int_equal(atoi(v), night < 2 ? 0 : 2);
        assert_true(v[0] != '\0');
        th_field(header, row, "energy_ratio", v, sizeof(v));
        th_field(header, row, "energy_ratio_ci95", ci, sizeof(ci));
        th_field(header, row, "energy_ratio_rerun_ci95", rci, sizeof(rci));
        th_field(header, row, "rerun_ratio_sd", sd, sizeof(sd));
        /* the night term whole, the cycles' by their pooled spread (rerun.h's
         * tb_rerun_halfwidth): between the night term and the two intervals combined */
        char cyc[32];
        th_field(header, row, "power_cycles", cyc, sizeof(cyc));
        double ratio = atof(v), night_term = 1.96 * sqrt(2.0) * atof(sd) * ratio;
        /* its t at most the cycles' own (more degrees of freedom pooled, never fewer), or
         * on the nights of the settings alone the settings' (rerun.h: an estimate of
         * TB_RERUN_PRIOR_DF degrees, #57); the cycles' part where a rerun lands, sqrt(2)
         * times the mean's interval */
        double t = night < 2 ? tb_t95_df(TB_RERUN_PRIOR_DF) : tb_t95((size_t)atoi(cyc) - 1);
        double both = hypot(sqrt(2.0) * atof(ci), t / 1.96 * night_term);
        assert_true(ratio > 0 && atof(ci) >= 0);
        if (!(atof(rci) >= night_term - 0.0001 && atof(rci) <= both + 0.0002))   /* "%.4f" */
            th_fail("night %d: rerun interval %s outside [%.5f, %.5f]", night, rci, night_term,
                    both);
        if (night < 2)
            assert_string_equal(sd, "0.005000");
        th_must_have(text, night < 2 ? "# power_rerun: " : "# power_rerun: 2 earlier log(s)");
        th_must_have(text, "power.rerun_ratio_sd 0.50%");
        th_must_have(text, "rows of rerun_runs 0 rest on them alone (prior only)");
    }
    free(text);
    th_rmtree(logs);
    free(logs);
    free(board);
}

static void test_power_command_csv(void **state)
{
    th_use_fake_clock();   /* the run keeps virtual time: no real sleep */
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
    th_use_fake_clock();   /* the run keeps virtual time: no real sleep */
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

/* A run on the desktop board through the fake NVML (the CPU backend's load): its log. */
static char *nvml_run_log(void)
{
    char lib[PATH_MAX];
    const char *b = getenv("TB_BUILD");
    snprintf(lib, sizeof(lib), "%s/tests/libfake-nvml.so", b ? b : "build");
    setenv("TB_NVML_LIB", lib, 1);
    return th_run_log("run --device cpu -b boards/desktop-nvml.cfg --sizes 128x128 "
                      "--kernels blocked --blocks 16x16 --set sweep.stop.min_time_ms=5 "
                      "--set power.idle_ms=300 --set power.budget_s=2 "
                      "--set power.settle_s=0 -o %s", 0, true, NULL, NULL);
}

static void test_nvml_energy_through_run(void **state)
{
    setenv("TB_FAKE_NVML_REASONS", "0x4", 1);   /* SW power cap, every time it is asked */
    char *text = nvml_run_log();
    const char *header;
    assert_int_equal(th_data_rows(text, &header), 2);
    char v[64], e[64], c[64], g[64];
    const char *row = th_row_at(header, 1);
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
    /* both printed "%.4f": at a busy machine's slower copy (0.02 GB/s per W) the last digit
     * alone is 0.25%, once over 0.002 (a flake on a loaded machine): allowed on top */
    th_assert_close(atof(g) * atof(v), 1.0, 0.002 + 0.00005 / atof(g) + 0.00005 / atof(v));
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
    /* a board whose memory temperature field answers NOT_SUPPORTED (GDDR): empty, never 0 */
    assert_int_equal(th_field(header, row, "mem_temp_min_c", v, sizeof(v)), 0);
    assert_string_equal(v, "");
    assert_int_equal(th_field(header, row, "mem_temp_max_c", v, sizeof(v)), 0);
    assert_string_equal(v, "");
    /* the power cap asked under every block's load: the kernel and the copy capped alike,
     * so the ratio stays the figure (the note names the cap, not J/GB) */
    th_field(header, row, "power_cycles", c, sizeof(c));
    th_field(header, row, "power_capped_blocks", v, sizeof(v));
    assert_true(atoi(c) >= 2);
    assert_string_equal(v, c);
    char note[512], want[160];
    th_field(header, row, "power_note", note, sizeof(note));
    snprintf(want, sizeof(want), "power-capped in %s of %s blocks", c, c);
    if (!strstr(note, want) || strstr(note, "j_per_gb"))
        th_fail("power_note '%s' lacks '%s'", note, want);
    unsetenv("TB_FAKE_NVML_REASONS");
    free(text);
}

/* An HBM board: the memory's own temperature (NVML_FI_DEV_MEMORY_TEMP) in every measured
 * row's range and in the run conditions, beside the die's. */
static void test_nvml_memory_temperature_through_run(void **state)
{
    setenv("TB_FAKE_NVML_MEM_TEMP", "45", 1);
    char *text = nvml_run_log();
    const char *header;
    assert_int_equal(th_data_rows(text, &header), 2);
    char v[64];
    for (int i = 0; i < 2; i++) {
        const char *row = th_row_at(header, i);
        assert_int_equal(th_field(header, row, "mem_temp_min_c", v, sizeof(v)), 0);
        assert_string_equal(v, "45.0");
        assert_int_equal(th_field(header, row, "mem_temp_max_c", v, sizeof(v)), 0);
        assert_string_equal(v, "45.0");
        th_field(header, row, "gpu_temp_c", v, sizeof(v));
        assert_string_equal(v, "60.0");
    }
    assert_non_null(strstr(text, "# gpu_conditions: SM clock 1500 MHz, max 1980 MHz, power limit "
                                 "700 W, 60 C, memory 45 C (from nvml)\n"));
    free(text);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_tegrastats_through_run),
        TH_TEST(test_tegrastats_dies_mid_run),
        TH_TEST(test_rerun_spread_learned_from_earlier_nights),
        TH_TEST(test_power_command_csv),
        TH_TEST(test_power_command_ina3221_tree),
        TH_TEST(test_nvml_energy_through_run),
        TH_TEST(test_nvml_memory_temperature_through_run),
    };
    return cmocka_run_group_tests_name("e2e_power", tests, th_lock_setup, th_lock_teardown);
}
