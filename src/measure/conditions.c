/* conditions.c: see conditions.h. Each reader leaves its field unknown when its file is
 * absent or unreadable: a desktop has none of them, and that is not an error. */
#include "measure/conditions.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jetson/emc.h"
#include "jetson/throttle.h"
#include "lib/safeio.h"
#include "lib/util.h"

/* Says why a condition's file was skipped when that is worth knowing: a link, a FIFO, a
 * device or a stuck read (an absent or unreadable file is the normal case off a Jetson). */
static void skipped(int rc, const char *why)
{
    if (rc == -ELOOP || rc == -EINVAL || rc == -ETIMEDOUT || rc == -EIO)
        warning("run conditions: %s; that condition stays unknown", why);
}

/* First line of the file at abs (under TB_ROOT) into buf, by a bounded read (safeio.h);
 * 0, or -1 when absent, unreadable or not a plain file. */
static int read_line(const char *abs, char *buf, size_t n)
{
    char path[PATH_MAX], why[PATH_MAX + 160];
    tb_root_path(path, sizeof(path), abs);
    int rc = tb_safeio_line(path, buf, n, 0, why, sizeof(why));
    skipped(rc, why);
    return rc < 0 ? -1 : 0;
}

static double read_hz_as_mhz(const char *dir, const char *file)
{
    char abs[PATH_MAX + 32], v[64];
    snprintf(abs, sizeof(abs), "%s/%s", dir, file);
    if (read_line(abs, v, sizeof(v)) < 0)
        return NAN;
    char *end;
    double hz = strtod(v, &end);
    return end == v || hz <= 0 ? NAN : hz / 1e6;
}

/* "# R32 (release), REVISION: 7.1, GCID: ..." -> "R32.7.1" */
static void read_l4t(struct tb_conditions *c)
{
    char line[512];
    int major, a, b;
    if (read_line("/etc/nv_tegra_release", line, sizeof(line)) == 0 &&
        sscanf(line, "# R%d (release), REVISION: %d.%d", &major, &a, &b) == 3)
        snprintf(c->l4t, sizeof(c->l4t), "R%d.%d.%d", major, a, b);
}

/* /var/lib/nvpmodel/status: "pmode:0002 fmode:..." names the mode's ID; the name comes
 * from /etc/nvpmodel.conf's "< POWER_MODEL ID=2 NAME=15W >" lines. */
static void read_power_mode(struct tb_conditions *c)
{
    char line[256], path[PATH_MAX];
    if (read_line("/var/lib/nvpmodel/status", line, sizeof(line)) < 0)
        return;
    const char *p = strstr(line, "pmode:");
    if (!p || !isdigit((unsigned char)p[6]))
        return;
    c->power_mode_id = atoi(p + 6);
    /* /etc/nvpmodel.conf is a link to the board's own file on L4T: followed on purpose,
     * its target still has to be a regular file, read whole within the bound */
    tb_root_path(path, sizeof(path), "/etc/nvpmodel.conf");
    char *conf = malloc(TB_SAFEIO_MAX + 1), why[PATH_MAX + 160];
    int rc = conf ? tb_safeio_read(path, conf, TB_SAFEIO_MAX + 1, NULL, TB_SAFEIO_LINK_OK, 0,
                                   why, sizeof(why)) : -ENOMEM;
    skipped(rc, why);
    for (char *save = NULL, *l = rc == 0 ? strtok_r(conf, "\n", &save) : NULL; l;
         l = strtok_r(NULL, "\n", &save)) {
        int id;
        char name[64];
        const char *m = strstr(l, "POWER_MODEL");
        if (m && sscanf(m, "POWER_MODEL ID=%d NAME=%63[^ >\n]", &id, name) == 2 &&
            id == c->power_mode_id) {
            tb_strlcpy(c->power_mode, name, sizeof(c->power_mode));
            break;
        }
    }
    free(conf);
}

static void read_devfreq(struct tb_conditions *c)
{
    if (tb_gpu_devfreq_find(NULL, c->devfreq, sizeof(c->devfreq)) < 0)
        return;
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "/sys/class/devfreq/%s", c->devfreq);
    c->gpu_cur_mhz = read_hz_as_mhz(dir, "cur_freq");
    c->gpu_min_mhz = read_hz_as_mhz(dir, "min_freq");
    c->gpu_max_mhz = read_hz_as_mhz(dir, "max_freq");
    if (!isnan(c->gpu_min_mhz) && !isnan(c->gpu_max_mhz))
        c->pinned = c->gpu_min_mhz == c->gpu_max_mhz;
    char abs[PATH_MAX + 32], list[1024];
    snprintf(abs, sizeof(abs), "%s/available_frequencies", dir);
    if (read_line(abs, list, sizeof(list)) == 0) {
        size_t len = 0;
        for (char *save = NULL, *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save))
            len += (size_t)snprintf(c->gpu_avail_mhz + len, len < sizeof(c->gpu_avail_mhz) ?
                                    sizeof(c->gpu_avail_mhz) - len : 0, "%s%.0f",
                                    len ? " " : "", atof(t) / 1e6);
    }
}

/* The thermal zone whose type names the GPU ("GPU-therm", "gpu-thermal"), by the one zone
 * scan (throttle.h: one deadline for all, a hung zone hides none after it); the zones that
 * could not be read are named, in the log and on stderr. */
static void read_gpu_temp(struct tb_conditions *c)
{
    struct tb_throttle_zone z[TB_THROTTLE_ZONES];
    int n = tb_thermal_zones(NULL, z, TB_THROTTLE_ZONES, c->thermal_unread,
                             sizeof(c->thermal_unread));
    if (c->thermal_unread[0])
        warning("run conditions: thermal zones not read: %s; their temperatures stay unknown",
                c->thermal_unread);
    for (int i = 0; i < n; i++)
        if (!strncasecmp(z[i].type, "gpu", 3) && !isnan(z[i].temp_c)) {
            c->gpu_temp_c = z[i].temp_c;
            return;
        }
}

void tb_conditions_read(struct tb_conditions *c)
{
    memset(c, 0, sizeof(*c));
    c->power_mode_id = -1;
    c->pinned = -1;
    c->gpu_cur_mhz = c->gpu_min_mhz = c->gpu_max_mhz = c->gpu_temp_c = c->emc_mhz = NAN;
    read_l4t(c);
    read_power_mode(c);
    read_devfreq(c);
    read_gpu_temp(c);
    char why[512];
    c->emc_mhz = tb_emc_find(tb_root(), c->emc_path, sizeof(c->emc_path)) == 0 ?
                 tb_emc_read_mhz(c->emc_path, why, sizeof(why)) : NAN;
}

void tb_conditions_mode(const struct tb_conditions *c, char *buf, size_t n)
{
    if (c->power_mode_id < 0)
        snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n, "%s (%d)", c->power_mode[0] ? c->power_mode : "?", c->power_mode_id);
}

void tb_conditions_each(const struct tb_conditions *c,
                        void (*emit)(void *ctx, const char *key, const char *value), void *ctx)
{
    char v[768];
    if (c->l4t[0])
        emit(ctx, "l4t", c->l4t);
    tb_conditions_mode(c, v, sizeof(v));
    if (v[0])
        emit(ctx, "power_mode", v);
    if (c->devfreq[0]) {
        snprintf(v, sizeof(v), "%s: cur %.0f MHz, min %.0f MHz, max %.0f MHz; available: %s",
                 c->devfreq, c->gpu_cur_mhz, c->gpu_min_mhz, c->gpu_max_mhz,
                 c->gpu_avail_mhz[0] ? c->gpu_avail_mhz : "unknown");
        emit(ctx, "gpu_devfreq", v);
        emit(ctx, "gpu_clocks", c->pinned == 1 ? "pinned (min == max: jetson_clocks)"
                               : c->pinned == 0 ? "dynamic (DVFS: not pinned)" : "unknown");
    }
    if (!isnan(c->emc_mhz)) {
        snprintf(v, sizeof(v), "%.0f MHz at the start (%s)", c->emc_mhz, c->emc_path);
        emit(ctx, "emc_clock", v);
    }
    if (!isnan(c->gpu_temp_c)) {
        snprintf(v, sizeof(v), "%.1f C at the start", c->gpu_temp_c);
        emit(ctx, "gpu_temp", v);
    }
    if (c->thermal_unread[0])
        emit(ctx, "thermal_unread", c->thermal_unread);
}
