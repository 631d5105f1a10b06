/* modes_boards.h: fake roots of three Jetson releases for the mode-sweep tests
 * (test_modes.c, test_modes_e2e.c, test_modes_boards.c), laid out and permissioned as each
 * L4T release lays them out (../shared/fixtures/nvpmodel/README.md): the real nvpmodel.conf
 * of a Nano on R32, a Xavier NX on R35, and the Orin Nano Super's table on R36's real PARAM
 * section (tests/fixtures/nvpmodel/); the GPU's devfreq where nvpmodel writes it on that
 * release (MAX_FREQ on R32, MAX_FREQ_KNEXT on R35/R36); the EMC file nvpmodel writes, 0660
 * root on R32/R35, 0664 on R36; the board put in its boot mode by tests/fake-nvpmodel.sh.
 * Static functions: each test program includes it once. */
#ifndef TB_TEST_MODES_BOARDS_H
#define TB_TEST_MODES_BOARDS_H

#include "helpers.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum release { R32_NANO, R35_XAVIER_NX, R36_SUPER };

#define SUPER "nvpmodel/orin-nano-super.conf"
#define SUPER_GPU "/sys/devices/platform/17000000.gpu/devfreq_dev"
#define EMC_TOP "/sys/kernel/nvpmodel_clk_cap/emc"
#define EMC_CAP "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap"

struct layout {
    const char *conf, *release, *model, *gpu_dir, *freqs, *emc;
    mode_t emc_mode;
    int boot;
    const char *board;   /* boards/ file */
};

static const struct layout layouts[] = {
    [R32_NANO] = { "nvpmodel/nano-r32.conf", "# R32 (release), REVISION: 7.1\n",
                   "NVIDIA Jetson Nano Developer Kit", "/sys/devices/gpu.0/devfreq/57000000.gpu",
                   "76800000 153600000 230400000 307200000 384000000 460800000 537600000 "
                   "614400000 691200000 768000000 844800000 921600000\n",
                   "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap", 0660, 0,
                   "boards/jetson-nano.cfg" },
    [R35_XAVIER_NX] = { "nvpmodel/xavier-nx-r35.conf", "# R35 (release), REVISION: 4.1\n",
                        "NVIDIA Jetson Xavier NX Developer Kit",
                        "/sys/devices/17000000.gv11b/devfreq_dev",
                        "114750000 204000000 306000000 408000000 510000000 599250000 701250000 "
                        "752250000 803250000 854250000 905250000 956250000 1007250000 "
                        "1058250000 1109250000\n",
                        "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap", 0660, 5,
                        "boards/jetson-xavier-nx.cfg" },
    [R36_SUPER] = { "nvpmodel/orin-nano-super.conf", "# R36 (release), REVISION: 4.3\n",
                    "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super",
                    "/sys/devices/platform/17000000.gpu/devfreq_dev",
                    "306000000 408000000 510000000 612000000 714000000 816000000 918000000 "
                    "1020000000\n",
                    "/sys/kernel/nvpmodel_clk_cap/emc", 0664, 1,
                    "boards/jetson-orin-nano.cfg" },
};

static inline char *mb_slurp(const char *path)
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

/* root + abs's mode set. */
static inline void mb_chmod(const char *root, const char *abs, mode_t mode)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s%s", root, abs);
    assert_int_equal(chmod(p, mode), 0);
}

/* Release rel's root in th_scratch(), in mode (-1: its boot mode); the environment points the
 * switcher and the fake nvpmodel at it (TB_ROOT, TB_NVPMODEL, TB_MODE_STATE in its var/tmp,
 * which is everyone's as /var/tmp is). Every directory 0755, as sysfs's are. */
static inline const char *release_root(enum release rel, int mode)
{
    const struct layout *l = &layouts[rel];
    const char *r = th_scratch();
    char *text = mb_slurp(th_fixture(l->conf)), p[PATH_MAX];
    assert_non_null(text);
    free(th_write(r, "etc/nvpmodel.conf", text));
    free(text);
    free(th_write(r, "etc/nv_tegra_release", l->release));
    free(th_write(r, "proc/device-tree/model", l->model));
    free(th_write(r, "var/lib/nvpmodel/status", "pmode:0000\n"));
    free(th_write(r, "var/tmp/.keep", ""));
    snprintf(p, sizeof(p), "%s/available_frequencies", l->gpu_dir + 1);
    free(th_write(r, p, l->freqs));
    snprintf(p, sizeof(p), "%s/max_freq", l->gpu_dir + 1);
    free(th_write(r, p, "0\n"));
    free(th_write(r, l->emc + 1, "0\n"));
    char *cmd = calloc(1, 4 * PATH_MAX);
    assert_non_null(cmd);
    snprintf(cmd, 4 * PATH_MAX, "chmod -R a+rX,go-w '%s' && chmod 1777 '%s/var/tmp'", r, r);
    assert_int_equal(system(cmd), 0);
    mb_chmod(r, l->emc, l->emc_mode);   /* root's (0660) on R32 and R35 */
    setenv("TB_ROOT", r, 1);
    char *fake = realpath("tests/fake-nvpmodel.sh", NULL);
    assert_non_null(fake);
    setenv("TB_NVPMODEL", fake, 1);
    free(fake);
    snprintf(p, sizeof(p), "%s/var/tmp/modes.state", r);
    setenv("TB_MODE_STATE", p, 1);
    setenv("TB_MODE_SETTLE_MS", "400", 1);
    const char *unset[] = { "FAKE_NVPM_FAULT", "FAKE_NVPM_CHILD", "TB_DRIVER_TIMEOUT_S",
                            "TB_CAP_WRITER", "FAKE_CAP_FAULT", "FAKE_CAP_LOG", "FAKE_NVPM_LOG",
                            "FAKE_EMC_HOLD_HZ", "FAKE_NVPM_NOTIFY", "FAKE_NVPM_GATE" };
    for (size_t i = 0; i < sizeof(unset) / sizeof(unset[0]); i++)
        unsetenv(unset[i]);
    snprintf(cmd, 4 * PATH_MAX, "tests/fake-nvpmodel.sh -m %d >/dev/null",
             mode < 0 ? l->boot : mode);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    return r;
}

static inline double mb_mhz(const char *root, const char *abs)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s%s", root, abs);
    char *t = mb_slurp(p);
    assert_non_null(t);
    double v = atof(t) / 1e6;
    free(t);
    return v;
}

static inline int mb_mode(const char *root)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/var/lib/nvpmodel/status", root);
    char *t = mb_slurp(p);
    assert_non_null(t);
    int m = atoi(t + 6);
    free(t);
    return m;
}

static inline bool mb_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The Orin Nano Super on R36 in mode (-1: its boot mode, 1, 25W). */
static inline const char *super_root(int mode)
{
    return release_root(R36_SUPER, mode);
}

/* "exec TB_BIN ARGS >/dev/null 2>&1" started in the background, our own child; its pid. */
static inline pid_t mb_spawn_tool(const char *args)
{
    const char *bin = getenv("TB_BIN");
    size_t len = strlen(args) + PATH_MAX + 64;
    char *cmd = malloc(len);
    assert_non_null(cmd);
    snprintf(cmd, len, "exec %s %s >/dev/null 2>&1", bin && *bin ? bin : "./transpose-bench",
             args);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    free(cmd);
    return pid;
}

#endif
