/* test_ceiling.c: the memory ceiling follows the EMC clock. The factor reproduces Orin's
 * published pairs (3199 MHz -> 102.4 GB/s, 2133 -> 68.3 on 128 bits); every Jetson board
 * file's DRAM settings imply its peak; an Orin Nano Super is judged against its nvpmodel
 * mode's EMC cap when no EMC clock is readable (15W and 7W: 68.3 GB/s; 25W: 102.4; MAXN_SUPER
 * sets no cap: the board file's 102.4); an EMC clock read in a window wins (the run's own
 * ceiling never reads it: at the start the EMC idles); a mode step's EMC cap read back
 * lowers it and says so; nothing readable gives the board file's peak and says why; the
 * DRAM settings' checks in the config. */
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/board.h"
#include "measure/ceiling.h"
#include "config/config.h"
#include "lib/diag.h"
#include "jetson/nvpmodel.h"
#include "lib/util.h"

static void load_board(struct tb_config *c, const char *path)
{
    struct tb_diag d = { 0 };
    tb_config_init(c);
    int n = tb_config_load(c, NULL, path, &d);
    if (n)
        th_fail("%s: %s", path, d.n ? d.msgs[0] : "?");
    tb_diag_free(&d);
}

static void test_factor_reproduces_orin(void **state)
{
    struct tb_board_cfg b;
    memset(&b, 0, sizeof(b));
    tb_strlcpy(b.name, "orin", sizeof(b.name));
    tb_strlcpy(b.dram_type, "LPDDR5", sizeof(b.dram_type));
    b.dram_bus_bits = 128;
    b.dram_mts = 6400;
    struct tb_ceiling c;
    assert_int_equal(tb_ceiling_live(&b, 3199, &c), 0);
    th_assert_close(c.gbps, 102.4, 0.05);
    assert_string_equal(c.source, "live EMC");
    th_assert_close(c.emc_mhz, 3199, 0);
    assert_int_equal(tb_ceiling_live(&b, 2133, &c), 0);
    th_assert_close(c.gbps, 68.3, 0.05);
    assert_string_equal(c.why, "EMC 2133 MHz x 2 transfers (LPDDR5) x 128 bits");
    th_assert_close(tb_ceiling_bus_gbps(&b), 102.4, 1e-9);
    th_assert_close(tb_ceiling_board_gbps(&b), 102.4, 1e-9);   /* no peak_gbps: the bus's */
    /* no reading: the board file's peak, and why */
    assert_int_equal(tb_ceiling_live(&b, NAN, &c), -EINVAL);
    assert_string_equal(c.source, "board file");
    th_assert_close(c.gbps, 102.4, 1e-9);
    assert_true(isnan(c.emc_mhz));
    /* a board without a memory type cannot turn a clock into a peak */
    b.dram_type[0] = '\0';
    b.peak_gbps = 100;
    assert_int_equal(tb_ceiling_live(&b, 3199, &c), -EINVAL);
    th_assert_close(c.gbps, 100, 0);
    assert_non_null(strstr(c.why, "gives no board.dram_type"));
    assert_true(tb_ceiling_transfers_per_clock("LPDDR4") == 2);
    assert_true(tb_ceiling_transfers_per_clock("DDR9") == 0);
}

/* Each Jetson board file's bus width x data rate is its published peak (to 1%). */
static void test_every_jetson_board_file(void **state)
{
    DIR *d = opendir("boards");
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "jetson-", 7))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "boards/%s", e->d_name);
        struct tb_config c;
        load_board(&c, path);
        double bus = tb_ceiling_bus_gbps(&c.board);
        if (!(bus > 0) || fabs(bus - c.board.peak_gbps) > 0.01 * c.board.peak_gbps)
            th_fail("%s: %d bits x %d MT/s = %.2f GB/s against peak_gbps %.1f", path,
                    c.board.dram_bus_bits, c.board.dram_mts, bus, c.board.peak_gbps);
        if (tb_ceiling_transfers_per_clock(c.board.dram_type) != 2)
            th_fail("%s: dram_type '%s'", path, c.board.dram_type);
        tb_config_free(&c);
        n++;
    }
    closedir(d);
    assert_int_equal(n, 8);
}

/* An Orin Nano Super's root in mode (helpers.h), in a fresh directory. */
static char *super_root(int mode)
{
    char *r = th_tmpdir();
    th_orin_super_root(r, mode);
    return r;
}

/* The Super's board: the Orin Nano file, with the variant board.c finds under root. */
static void super_board(struct tb_config *c, const char *root)
{
    load_board(c, "boards/jetson-orin-nano.cfg");
    setenv("TB_ROOT", root, 1);
    char note[512];
    assert_int_equal(tb_board_variant(c, note, sizeof(note)), 1);
    unsetenv("TB_ROOT");
    th_assert_close(c->board.peak_gbps, 102.4, 1e-9);
    assert_int_equal(c->board.dram_mts, 6400);
}

static void expect_mode(int mode, double gbps, const char *source, const char *says)
{
    char *r = super_root(mode);
    struct tb_config c;
    super_board(&c, r);
    struct tb_ceiling ce;
    tb_ceiling_read(&c.board, r, &ce);
    th_assert_close(ce.gbps, gbps, 0.05);
    th_assert_close(ce.board_gbps, 102.4, 1e-9);
    assert_string_equal(ce.source, source);
    if (!strstr(ce.why, says))
        th_fail("mode %d: '%s' does not say '%s'", mode, ce.why, says);
    /* and why no live EMC clock: as a normal user, that it needs root */
    if (!strstr(ce.why, geteuid() ? "EMC clock needs root (debugfs" : "no EMC clock found"))
        th_fail("mode %d: '%s' gives no reason for the EMC clock", mode, ce.why);
    tb_config_free(&c);
    th_rmtree(r);
    free(r);
}

static void test_super_modes_without_root(void **state)
{
    expect_mode(0, 68.3, "nvpmodel EMC cap", "nvpmodel mode 15W (0) caps EMC at 2133 MHz");
    expect_mode(3, 68.3, "nvpmodel EMC cap", "nvpmodel mode 7W (3) caps EMC at 2133 MHz");
    expect_mode(1, 102.4, "nvpmodel EMC cap", "nvpmodel mode 25W (1) caps EMC at 3199 MHz");
    expect_mode(2, 102.4, "board file", "nvpmodel mode MAXN_SUPER (2) sets no EMC cap");
}

/* R36's nvpmodel_clk_cap/emc (world-readable, as its MAX_FREQ_KNEXT in nvpmodel.conf names
 * it) reads the EMC's top rate: a Super whose firmware holds the EMC at 2133 MHz in
 * MAXN_SUPER (R36.4.3) is judged against 68.3 GB/s, not the board's 102.4; where the file
 * reads the mode's own cap, that; where it does not read, the mode's table as before. */
static void test_r36_emc_top_rate(void **state)
{
    const char *tops[] = { "2133000000\n", "3199000000\n", "garbage\n" };
    const double want[] = { 68.3, 102.4, 102.4 };
    for (int k = 0; k < 3; k++) {
        char *r = super_root(2);
        struct tb_config c;
        super_board(&c, r);
        free(th_write(r, "sys/kernel/nvpmodel_clk_cap/emc", tops[k]));
        struct tb_ceiling ce;
        tb_ceiling_read(&c.board, r, &ce);
        th_assert_close(ce.gbps, want[k], 0.05);
        bool said = strstr(ce.why, "/sys/kernel/nvpmodel_clk_cap/emc reads the EMC's top rate")
                    != NULL;
        if (said != (k < 2))
            th_fail("top '%s': %s (%s)", tops[k], ce.why, ce.source);
        assert_string_equal(ce.source, k < 2 ? "nvpmodel EMC cap" : "board file");
        tb_config_free(&c);
        th_rmtree(r);
        free(r);
    }
}

/* The reason as a normal user sees it, whoever runs the tests. */
static void test_needs_root_reason(void **state)
{
    char *r = super_root(0), why[256];
    tb_ceiling_emc_why(r, 0, why, sizeof(why));
    assert_string_equal(why, "EMC clock needs root (debugfs; no world-readable EMC devfreq entry)");
    tb_ceiling_emc_why(r, 1, why, sizeof(why));
    assert_string_equal(why, "no EMC clock found (EMC devfreq entry, debugfs clk/emc)");
    th_rmtree(r);
    free(r);
    tb_ceiling_emc_why("/nonexistent-root", 1, why, sizeof(why));
    assert_non_null(strstr(why, "debugfs not mounted"));
}

/* Root's view: the EMC clock the BPMP reports, whatever the mode says, read inside a window
 * (tb_ceiling_now, or the window's own reading); the run's ceiling never takes it (at the
 * start the EMC idles) but says it is there. */
static void test_live_emc_wins(void **state)
{
    char *r = super_root(2);
    struct tb_config c;
    super_board(&c, r);
    free(th_write(r, "sys/kernel/debug/bpmp/debug/clk/emc/rate", "2133000000\n"));
    struct tb_ceiling run, ce;
    tb_ceiling_read(&c.board, r, &run);
    assert_string_equal(run.source, "board file");
    th_assert_close(run.gbps, 102.4, 1e-9);
    assert_string_equal(run.why, "EMC clock readable (/sys/kernel/debug/bpmp/debug/clk/emc/rate): "
                                 "a window's reading gives the live peak; nvpmodel mode "
                                 "MAXN_SUPER (2) sets no EMC cap");
    tb_ceiling_now(&c.board, r, &ce);
    assert_string_equal(ce.source, "live EMC");
    th_assert_close(ce.gbps, 68.3, 0.05);
    th_assert_close(ce.emc_mhz, 2133, 1e-9);
    assert_string_equal(ce.why, "EMC 2133 MHz x 2 transfers (LPDDR5) x 128 bits "
                                "(/sys/kernel/debug/bpmp/debug/clk/emc/rate)");
    /* a point whose window read 3199 MHz (tegrastats' EMC_FREQ): live; one that read none:
     * the run's */
    tb_ceiling_window(&c.board, &run, 3199, &ce);
    assert_string_equal(ce.source, "live EMC");
    th_assert_close(ce.gbps, 102.4, 0.05);
    tb_ceiling_window(&c.board, &run, NAN, &ce);
    assert_string_equal(ce.source, "board file");
    assert_string_equal(ce.why, run.why);
    /* in 15W: the window's live clock still wins over the cap; none: the cap */
    free(th_write(r, "var/lib/nvpmodel/status", "pmode:0000\n"));
    tb_ceiling_read(&c.board, r, &run);
    assert_string_equal(run.source, "nvpmodel EMC cap");
    th_assert_close(run.gbps, 68.3, 0.05);
    tb_ceiling_window(&c.board, &run, 2133, &ce);
    assert_string_equal(ce.source, "live EMC");
    tb_ceiling_window(&c.board, &run, NAN, &ce);
    assert_string_equal(ce.source, "nvpmodel EMC cap");
    tb_config_free(&c);
    th_rmtree(r);
    free(r);
}

/* Nothing readable (a plain Orin Nano, no nvpmodel): the board file's 68.0 and why. */
static void test_nothing_readable(void **state)
{
    char *r = th_tmpdir();
    struct tb_config c;
    load_board(&c, "boards/jetson-orin-nano.cfg");
    struct tb_ceiling ce;
    tb_ceiling_read(&c.board, r, &ce);
    assert_string_equal(ce.source, "board file");
    th_assert_close(ce.gbps, 68.0, 1e-9);
    assert_true(isnan(ce.emc_mhz));
    assert_non_null(strstr(ce.why, "EMC clock"));
    assert_non_null(strstr(ce.why, "no /etc/nvpmodel.conf"));
    /* a desktop board file (no DRAM settings) with a readable EMC clock: still its own peak */
    tb_config_free(&c);
    load_board(&c, "boards/desktop-h100.cfg");
    free(th_write(r, "sys/kernel/debug/clk/emc/clk_rate", "1600000000\n"));
    tb_ceiling_now(&c.board, r, &ce);
    assert_string_equal(ce.source, "board file");
    th_assert_close(ce.gbps, 3352.0, 1e-9);
    assert_non_null(strstr(ce.why, "gives no board.dram_bus_bits"));
    tb_config_free(&c);
    th_rmtree(r);
    free(r);
}

static void test_nvpmodel_parsing(void **state)
{
    assert_int_equal(tb_nvpmodel_parse_status("pmode:0003 fmode:quiet"), 3);
    assert_int_equal(tb_nvpmodel_parse_status("pmode:0000"), 0);
    assert_int_equal(tb_nvpmodel_parse_status("garbage"), -1);
    struct tb_nvpmodel m;
    /* no status file: the conf's default mode, said so */
    char *r = super_root(0);
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/var/lib/nvpmodel/status", r);
    unlink(p);
    assert_int_equal(tb_nvpmodel_read(r, &m), 0);
    assert_int_equal(m.mode_id, 1);   /* the Super boots in 25W */
    assert_true(m.from_default);
    assert_string_equal(m.mode_name, "25W");
    th_assert_close(m.emc_cap_mhz, 3199, 1e-9);
    th_assert_close(m.gpu_cap_mhz, 918, 1e-9);
    free(th_write(r, "var/lib/nvpmodel/status", "pmode:0003\n"));
    assert_int_equal(tb_nvpmodel_read(r, &m), 0);
    assert_false(m.from_default);
    th_assert_close(m.emc_cap_mhz, 2133, 1e-9);
    th_assert_close(m.gpu_cap_mhz, 408, 1e-9);
    /* a mode the file lacks */
    free(th_write(r, "var/lib/nvpmodel/status", "pmode:0009\n"));
    assert_int_equal(tb_nvpmodel_read(r, &m), -ENOENT);
    assert_int_equal(m.mode_id, 9);
    assert_true(isnan(m.emc_cap_mhz));
    assert_string_equal(m.why, "nvpmodel.conf has no POWER_MODEL ID=9");
    th_rmtree(r);
    free(r);
    /* a mode without an EMC line caps nothing; the next section ends the mode */
    const char *conf = "< POWER_MODEL ID=0 NAME=MAXN >\nGPU MAX_FREQ 1377000000\n\n"
                       "< POWER_MODEL ID=1 NAME=MODE_10W >\nEMC MAX_FREQ 1065600000\n";
    memset(&m, 0, sizeof(m));
    assert_int_equal(tb_nvpmodel_parse(conf, 0, &m), 0);
    assert_true(m.emc_cap_mhz == 0);
    th_assert_close(m.gpu_cap_mhz, 1377, 1e-9);
    assert_int_equal(tb_nvpmodel_parse(conf, 1, &m), 0);
    th_assert_close(m.emc_cap_mhz, 1065.6, 1e-9);
}

/* The DRAM settings' ranges, and that the three come together, by FILE:LINE. */
static void test_config_checks(void **state)
{
    char *r = th_tmpdir();
    char *bad = th_write(r, "bad.cfg", "board = {\n  name = \"x\";\n  dram_bus_bits = 100000;\n"
                                       "  dram_mts = 6400;\n  dram_type = \"LPDDR5\";\n};\n");
    char *half = th_write(r, "half.cfg", "board = {\n  name = \"x\";\n  dram_mts = 6400;\n};\n");
    char *type = th_write(r, "type.cfg", "board = {\n  name = \"x\";\n  dram_bus_bits = 128;\n"
                                        "  dram_mts = 6400;\n  dram_type = \"DDR9\";\n};\n");
    struct { const char *path, *want; } cases[] = {
        { bad, "bad.cfg:3: 'board.dram_bus_bits' must be between 0 and 8192, got 100000" },
        { half, "half.cfg:3: 'board.dram_bus_bits', 'board.dram_mts' and 'board.dram_type' go "
                "together: 'board.dram_bus_bits' is missing" },
        { type, "type.cfg:5: 'board.dram_type' must be one of LPDDR4,LPDDR4x,LPDDR5, got 'DDR9'" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct tb_config c;
        struct tb_diag d = { 0 };
        tb_config_init(&c);
        assert_true(tb_config_load(&c, NULL, cases[i].path, &d) >= 1);
        bool found = false;
        for (size_t k = 0; k < d.n; k++)
            found |= strstr(d.msgs[k], cases[i].want) != NULL;
        if (!found)
            th_fail("%s: no '%s' in '%s'", cases[i].path, cases[i].want, d.n ? d.msgs[0] : "");
        tb_diag_free(&d);
        tb_config_free(&c);
    }
    free(bad);
    free(half);
    free(type);
    th_rmtree(r);
    free(r);
}

/* A mode step's EMC cap read back lowers the ceiling to its own rate and says so: asked in
 * 15W (table 2133) at 1600 MHz, 51.2 GB/s; a cap file below a table with no cap (MAXN_SUPER
 * over the board file's 102.4) too; a cap at or above what the mode gives, or none, changes
 * nothing; and a window's live reading above the cap does not lift it (one below is used). */
static void test_step_cap_lowers(void **state)
{
    char *r = super_root(0);
    struct tb_config c;
    super_board(&c, r);
    struct tb_ceiling run, ce;
    tb_ceiling_read(&c.board, r, &run);
    th_assert_close(run.gbps, 68.3, 0.05);
    ce = run;
    assert_int_equal(tb_ceiling_step_cap(&c.board, 1600, true, &ce), 1);
    th_assert_close(ce.gbps, 51.2, 1e-9);
    th_assert_close(ce.emc_mhz, 1600, 1e-9);
    assert_string_equal(ce.source, "nvpmodel EMC cap");
    const char *says = "EMC 1600 MHz: the cap asked (emc_max_mhz), read back after the step "
                       "settled; without it 68.3 GB/s (nvpmodel EMC cap): ";
    if (strncmp(ce.why, says, strlen(says)) ||
        !strstr(ce.why, "nvpmodel mode 15W (0) caps EMC at 2133 MHz"))
        th_fail("why: '%s'", ce.why);
    struct tb_ceiling pt;
    tb_ceiling_window(&c.board, &ce, 2133, &pt);   /* above the cap: the cap's */
    th_assert_close(pt.gbps, 51.2, 1e-9);
    assert_string_equal(pt.source, "nvpmodel EMC cap");
    tb_ceiling_window(&c.board, &ce, 800, &pt);    /* below it: live */
    th_assert_close(pt.gbps, 25.6, 1e-9);
    assert_string_equal(pt.source, "live EMC");
    /* the mode's own cap read back, a higher one, none, unread: unchanged */
    const double same[] = { 2133, 3199, 0, NAN };
    for (size_t i = 0; i < ARRAY_SIZE(same); i++) {
        ce = run;
        assert_int_equal(tb_ceiling_step_cap(&c.board, same[i], i < 2, &ce), 0);
        th_assert_close(ce.gbps, run.gbps, 0);
        assert_string_equal(ce.why, run.why);
    }
    /* MAXN_SUPER sets no cap (the board file's 102.4), yet its cap file reads 2133 */
    free(th_write(r, "var/lib/nvpmodel/status", "pmode:0002\n"));
    tb_ceiling_read(&c.board, r, &run);
    assert_string_equal(run.source, "board file");
    ce = run;
    assert_int_equal(tb_ceiling_step_cap(&c.board, 2133, false, &ce), 1);
    th_assert_close(ce.gbps, 68.3, 0.05);
    assert_string_equal(ce.source, "nvpmodel EMC cap");
    if (!strstr(ce.why, "EMC 2133 MHz: the nvpmodel EMC cap file read back after the step "
                "settled, below the mode's table; without it 102.4 GB/s (board file)"))
        th_fail("why: '%s'", ce.why);
    /* a board file without its DRAM cannot turn the cap into a peak: kept, and said */
    struct tb_board_cfg bare = c.board;
    bare.dram_bus_bits = 0;
    tb_ceiling_read(&bare, r, &run);
    ce = run;
    assert_int_equal(tb_ceiling_step_cap(&bare, 1600, true, &ce), 0);
    th_assert_close(ce.gbps, run.gbps, 0);
    assert_non_null(strstr(ce.why, "EMC 1600 MHz, the cap asked (emc_max_mhz), read back after "
                                   "the step settled, not used: board file"));
    tb_config_free(&c);
    th_rmtree(r);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factor_reproduces_orin),
        cmocka_unit_test(test_every_jetson_board_file),
        cmocka_unit_test(test_super_modes_without_root),
        cmocka_unit_test(test_r36_emc_top_rate),
        cmocka_unit_test(test_needs_root_reason),
        cmocka_unit_test(test_live_emc_wins),
        cmocka_unit_test(test_step_cap_lowers),
        cmocka_unit_test(test_nothing_readable),
        cmocka_unit_test(test_nvpmodel_parsing),
        cmocka_unit_test(test_config_checks),
    };
    return cmocka_run_group_tests_name("ceiling", tests, NULL, NULL);
}
