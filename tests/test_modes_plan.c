/* test_modes_plan.c: nvpmodel.conf read as the tool reads it, on the real files of three
 * releases (tests/fixtures/nvpmodel/: a Nano on R32, a Xavier NX on R35, an Orin on R36 and
 * the Super's table on its PARAM section), the files nvpmodel writes per release, and the
 * sweep's plan: steps made, and what the board cannot do refused by FILE:LINE. */
#include "helpers.h"
#include "modes_boards.h"

#include <errno.h>
#include <signal.h>

#include "jetson/modes.h"
#include "lib/diag.h"
#include "lib/util.h"

#define slurp mb_slurp

/* The real nvpmodel.conf of three releases (a Nano on R32, with two lines a terminal wrap
 * broke; a Xavier NX on R35; an Orin on R36, and the Super's table on its PARAM section):
 * modes, caps, both paths of each clock, and the files nvpmodel writes on each release's
 * layout: MAX_FREQ on R32, MAX_FREQ_KNEXT on R35/R36, R36's EMC top-rate file. */
static void test_tables_of_real_boards(void **state)
{
    (void)state;
    struct { const char *conf; size_t n; const char *name; int id; double gpu, emc; int def;
             const char *gpu_path, *gpu_knext, *emc_knext; } cases[] = {
        { "nvpmodel/nano-r32.conf", 2, "5W", 1, 640, 1600, 0,
          "/sys/devices/gpu.0/devfreq/57000000.gpu/max_freq",
          "/sys/devices/gpu.0/devfreq/57000000.gpu/max_freq", EMC_CAP },
        { "nvpmodel/nano-r32.conf", 2, "MAXN", 0, 0, 0, 0, NULL, NULL, NULL },
        { "nvpmodel/xavier-nx-r35.conf", 9, "MODE_10W_DESKTOP", 5, 510, 1600, 5,
          "/sys/devices/17000000.gv11b/devfreq/17000000.gv11b/max_freq",
          "/sys/devices/17000000.gv11b/devfreq_dev/max_freq", EMC_CAP },
        { "nvpmodel/xavier-nx-r35.conf", 9, "MODE_20W_6CORE", 8, 1109.25, 1866, 5, NULL, NULL,
          NULL },
        { "nvpmodel/orin-r36-one-mode.conf", 1, "MODE_28_1_W", 0, 918, 0, 0,
          "/sys/devices/17000000.ga10b/devfreq/17000000.ga10b/max_freq",
          SUPER_GPU "/max_freq", EMC_TOP },
        { SUPER, 4, "15W", 0, 612, 2133, 1, NULL, SUPER_GPU "/max_freq", EMC_TOP },
        { SUPER, 4, "MAXN_SUPER", 2, 0, 0, 1, NULL, NULL, NULL },
        { SUPER, 4, "7W", 3, 408, 2133, 1, NULL, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = slurp(th_fixture(cases[i].conf)), why[256];
        assert_non_null(text);
        struct tb_mode_table t;
        assert_int_equal(tb_modes_table_parse(text, &t, why, sizeof(why)), 0);
        assert_int_equal(t.n, cases[i].n);
        assert_int_equal(t.default_id, cases[i].def);
        const struct tb_mode_def *m = tb_modes_find(&t, cases[i].name);
        assert_non_null(m);
        assert_int_equal(m->id, cases[i].id);
        assert_ptr_equal(tb_modes_find(&t, (char[8]){ (char)('0' + cases[i].id), 0 }), m);
        th_assert_close(m->gpu_cap_mhz, cases[i].gpu, 1e-9);
        th_assert_close(m->emc_cap_mhz, cases[i].emc, 1e-9);
        if (cases[i].gpu_path)
            assert_string_equal(t.gpu_max_path, cases[i].gpu_path);
        if (cases[i].gpu_knext)
            assert_string_equal(t.gpu_max_knext, cases[i].gpu_knext);
        if (cases[i].emc_knext)
            assert_string_equal(t.emc_cap_knext, cases[i].emc_knext);
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

/* The files nvpmodel writes, as each release lays them out; the devfreq class where the
 * conf's paths are not there; a GPU devfreq the tool does not know named with a reason. */
static void test_files_per_release(void **state)
{
    (void)state;
    const char *gpu[] = { "/sys/devices/gpu.0/devfreq/57000000.gpu/max_freq",
                          "/sys/devices/17000000.gv11b/devfreq_dev/max_freq",
                          SUPER_GPU "/max_freq" };
    const char *emc[] = { EMC_CAP, EMC_CAP, EMC_TOP };
    enum tb_emc_kind kind[] = { TB_EMC_CAP, TB_EMC_CAP, TB_EMC_TOP };
    for (int rel = R32_NANO; rel <= R36_SUPER; rel++) {
        const char *r = release_root((enum release)rel, -1);
        struct tb_mode_table t;
        struct tb_mode_files f;
        char why[256];
        assert_int_equal(tb_modes_table_read(r, &t, why, sizeof(why)), 0);
        tb_modes_files(r, &t, &f);
        assert_string_equal(f.gpu_max, gpu[rel]);
        assert_string_equal(f.emc, emc[rel]);
        assert_int_equal(f.emc_kind, kind[rel]);
        assert_string_equal(f.gpu_why, "");
        /* the conf's GPU paths gone: the devfreq class entry, by the GPU's name */
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s%s", r, gpu[rel]);
        assert_int_equal(unlink(p), 0);
        if (rel == R36_SUPER) {
            free(th_write(r, "sys/class/devfreq/17000000.gpu/max_freq", "1020000000\n"));
            tb_modes_files(r, &t, &f);
            assert_string_equal(f.gpu_max, "/sys/class/devfreq/17000000.gpu/max_freq");
            snprintf(p, sizeof(p), "%s/sys/class/devfreq", r);
            th_rmtree(p);
            free(th_write(r, "sys/class/devfreq/gpu-gpc-0/max_freq", "1575000000\n"));
            tb_modes_files(r, &t, &f);
            assert_string_equal(f.gpu_max, "");
            if (!strstr(f.gpu_why, "'gpu-gpc-0' is not one this tool knows (Thor"))
                th_fail("Thor: '%s'", f.gpu_why);
        }
        tb_modes_table_free(&t);
    }
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
    long gpu[] = { 612, 5000, 560, 612 };
    sweep_axes(&ax, one, 1, gpu, 4);
    assert_int_equal(tb_modes_plan(&ax, r, &steps, &n, &d), 3);
    if (!has_msg(&d, "s.cfg:5: 'sweep.gpu_max_mhz': 5000 MHz is above the GPU's highest clock, "
                     "1020 MHz (its available_frequencies: 306 408 510 612 714 816 918 1020 MHz)") ||
        !has_msg(&d, "s.cfg:5: 'sweep.gpu_max_mhz': 560 MHz is not a clock of the GPU") ||
        !has_msg(&d, "s.cfg:5: 'sweep.gpu_max_mhz': 612 MHz is named twice (entries 1 and 4)"))
        th_fail("caps: %s | %s | %s", d.msgs[0], d.msgs[1], d.msgs[2]);
    assert_null(steps);
    tb_diag_free(&d);
    long emc[] = { 2133 };
    sweep_axes(&ax, one, 1, NULL, 0);
    ax.emc_max_mhz = emc;
    ax.n_emc_max_mhz = 1;
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s%s", r, EMC_TOP);
    assert_int_equal(unlink(p), 0);   /* a kernel without the nvpmodel EMC cap */
    snprintf(p, sizeof(p), "%s%s/max_freq", r, SUPER_GPU);
    assert_int_equal(unlink(p), 0);
    long ok_gpu[] = { 612 };
    ax.gpu_max_mhz = ok_gpu;
    ax.n_gpu_max_mhz = 1;
    assert_int_equal(tb_modes_plan(&ax, r, &steps, &n, &d), 2);
    if (!has_msg(&d, "s.cfg:6: 'sweep.emc_max_mhz': no EMC cap file to write on this board: "
                     "the EMC MAX_FREQ files nvpmodel.conf names (MAX_FREQ, MAX_FREQ_KNEXT) are "
                     "not there") ||
        !has_msg(&d, "s.cfg:5: 'sweep.gpu_max_mhz': no GPU max_freq file to write on this "
                     "board: the GPU max_freq files nvpmodel.conf names"))
        th_fail("files: %s | %s", d.msgs[0], d.msgs[1]);
    tb_diag_free(&d);
}

/* R36 (every Orin on JetPack 6): caps go where nvpmodel writes them, the MAX_FREQ_KNEXT
 * files; the plain MAX_FREQ paths (17000000.ga10b, nvpmodel_emc_cap) are not there, and the
 * plan must not refuse for them. */
static void test_plan_caps_on_r36(void **state)
{
    (void)state;
    const char *r = super_root(-1);
    struct tb_mode_axes ax;
    struct tb_mode_step *steps;
    size_t n;
    struct tb_diag d = { 0 };
    char *modes[] = { "15W", "25W", "MAXN_SUPER" };
    long gpu[] = { 408 }, emc[] = { 2133 };
    sweep_axes(&ax, modes, 3, gpu, 1);
    ax.emc_max_mhz = emc;
    ax.n_emc_max_mhz = 1;
    if (tb_modes_plan(&ax, r, &steps, &n, &d) != 0)
        th_fail("R36 caps refused: %s", d.msgs[0]);
    assert_int_equal(n, 3);
    free(steps);
}

/* A mode whose "NAME (ID)" the log cannot keep whole: two such modes would read as one
 * operating point in CSV and JSON (#40). Refused at plan time naming it. */
static void test_plan_refuses_long_mode_names(void **state)
{
    (void)state;
    const char *r = super_root(-1);
    char name[80], conf[512];
    memset(name, 'A', 70);
    name[70] = '\0';
    snprintf(conf, sizeof(conf), "< POWER_MODEL ID=0 NAME=%sX >\nGPU MAX_FREQ 612000000\n"
             "< POWER_MODEL ID=1 NAME=%sY >\nGPU MAX_FREQ 918000000\n"
             "< POWER_MODEL ID=2 NAME=%.60s >\nGPU MAX_FREQ -1\n< PM_CONFIG DEFAULT=2 >\n",
             name, name, name);
    free(th_write(r, "etc/nvpmodel.conf", conf));
    struct tb_mode_axes ax;
    struct tb_mode_step *steps;
    size_t n;
    struct tb_diag d = { 0 };
    char *modes[] = { "0", "1", "2" };
    sweep_axes(&ax, modes, 3, NULL, 0);
    assert_int_equal(tb_modes_plan(&ax, r, &steps, &n, &d), 3);
    if (!has_msg(&d, "s.cfg:4: 'sweep.power_modes': mode 0's name in nvpmodel.conf is too long") ||
        !has_msg(&d, "mode 1's name") || !has_msg(&d, "mode 2's name") ||
        !has_msg(&d, "two modes could read as one operating point"))
        th_fail("long names: %s | %s", d.msgs[0], d.n > 1 ? d.msgs[1] : "");
    assert_null(steps);
    tb_diag_free(&d);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_of_real_boards),
        TH_TEST(test_files_per_release),
        TH_TEST(test_plan),
        TH_TEST(test_plan_refuses_what_the_board_cannot),
        TH_TEST(test_plan_caps_on_r36),
        TH_TEST(test_plan_refuses_long_mode_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
