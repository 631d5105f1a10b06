/* emc.c: see emc.h. The paths come from NVIDIA's kernels (tegra186-emc's debugfs for the
 * BPMP boards, the T210 clock tree's debugfs) and jetson_stats' EMC reader, which probes
 * the same ones; none was read on a real board here (no Jetson in reach). debugfs is
 * root-only: a run as a normal user finds the devfreq entry where the kernel has one, else
 * nothing, and the EMC clock stays empty. */
#include "jetson/emc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/safeio.h"
#include "lib/util.h"

/* Below this a reading is no EMC clock (a misread, or a value in other units). */
#define EMC_MIN_HZ 1e6

int tb_emc_parse_hz(const char *buf, double *hz)
{
    char *end;
    double v = strtod(buf, &end);
    while (*end == ' ' || *end == '\n')
        end++;
    if (end == buf || *end || !(v >= EMC_MIN_HZ && v < 1e11))
        return -EINVAL;
    *hz = v;
    return 0;
}

double tb_emc_read_mhz(const char *path, char *why, size_t n)
{
    char buf[64];
    double hz;
    if (tb_safeio_read(path, buf, sizeof(buf), NULL, 0, 0, why, n) < 0)
        return NAN;
    if (tb_emc_parse_hz(buf, &hz) < 0) {
        snprintf(why, n, "'%s' holds '%.20s', not a clock in Hz", path, buf);
        return NAN;
    }
    return hz / 1e6;
}

static int try_path(const char *path, char *out, size_t n)
{
    char why[PATH_MAX + 160];
    if (isnan(tb_emc_read_mhz(path, why, sizeof(why))))
        return -ENOENT;
    tb_strlcpy(out, path, n);
    return 0;
}

static int find_devfreq(const char *root, char *out, size_t n)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/sys/class/devfreq", root);
    DIR *d = opendir(dir);
    if (!d)
        return -ENOENT;
    int rc = -ENOENT;
    struct dirent *e;
    while (rc && (e = readdir(d))) {
        if (!strstr(e->d_name, "emc") && strcmp(e->d_name, "bwmgr"))
            continue;
        char p[PATH_MAX + NAME_MAX + 16];
        snprintf(p, sizeof(p), "%s/%s/cur_freq", dir, e->d_name);
        rc = try_path(p, out, n);
    }
    closedir(d);
    return rc;
}

int tb_emc_find(const char *root, char *path, size_t n)
{
    static const char *const debugfs[] = {
        "/sys/kernel/debug/bpmp/debug/clk/emc/rate",
        "/sys/kernel/debug/clk/emc/clk_rate",
        "/sys/kernel/debug/clk/override.emc/clk_rate",
    };
    path[0] = '\0';
    if (find_devfreq(root, path, n) == 0)
        return 0;
    for (size_t i = 0; i < ARRAY_SIZE(debugfs); i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s%s", root, debugfs[i]);
        if (try_path(p, path, n) == 0)
            return 0;
    }
    return -ENOENT;
}
