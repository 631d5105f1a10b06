/* nvpmodel.c: see nvpmodel.h. The file's grammar is L4T's own (the FORMAT comment at the
 * top of every nvpmodel_*.conf): "< POWER_MODEL ID=N NAME=X >" opens a mode, whose lines
 * are "PARAM ARG VALUE" ("EMC MAX_FREQ 2133000000", "GPU MAX_FREQ 612000000", Hz; -1
 * leaves a clock uncapped), "< PM_CONFIG DEFAULT=N >" names the default mode. Nothing here
 * writes or runs nvpmodel. */
#include "jetson/nvpmodel.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jetson/emc.h"
#include "jetson/modes.h"
#include "lib/safeio.h"
#include "lib/util.h"

int tb_nvpmodel_parse_status(const char *line)
{
    const char *p = strstr(line, "pmode:");
    if (!p || !isdigit((unsigned char)p[6]))
        return -1;
    char *end;
    long v = strtol(p + 6, &end, 10);
    return v >= 0 && v < 1000 ? (int)v : -1;
}

int tb_nvpmodel_parse(const char *conf, int mode_id, struct tb_nvpmodel *m)
{
    struct tb_mode_table t;
    char why[160];
    if (tb_modes_table_parse(conf, &t, why, sizeof(why)) < 0)
        t.default_id = -1;
    int rc = 0;
    if (mode_id < 0 && t.default_id < 0) {
        snprintf(m->why, sizeof(m->why), "no nvpmodel status and no PM_CONFIG DEFAULT in "
                 "nvpmodel.conf: the mode is unknown");
        rc = -ENOENT;
    } else {
        m->from_default = mode_id < 0;
        m->mode_id = mode_id < 0 ? t.default_id : mode_id;
        const struct tb_mode_def *d = tb_modes_find_id(&t, m->mode_id);
        if (d) {
            tb_strlcpy(m->mode_name, d->name, sizeof(m->mode_name));
            m->emc_cap_mhz = d->emc_cap_mhz;
            m->gpu_cap_mhz = d->gpu_cap_mhz;
        } else {
            snprintf(m->why, sizeof(m->why), "nvpmodel.conf has no POWER_MODEL ID=%d",
                     m->mode_id);
            rc = -ENOENT;
        }
    }
    tb_modes_table_free(&t);
    return rc;
}

/* R36's EMC top rate (tb_nvpmodel.emc_top_mhz) under root, as nvpmodel.conf names it. */
static void emc_top(const char *root, const char *conf, struct tb_nvpmodel *m)
{
    struct tb_mode_table t;
    struct tb_mode_files f;
    char path[PATH_MAX], line[64], why[PATH_MAX + 160];
    if (tb_modes_table_parse(conf, &t, why, sizeof(why)) < 0) {
        tb_modes_table_free(&t);
        return;
    }
    tb_modes_files(root, &t, &f);
    tb_modes_table_free(&t);
    double hz;
    if (f.emc_kind != TB_EMC_TOP ||
        snprintf(path, sizeof(path), "%s%s", root, f.emc) >= (int)sizeof(path) ||
        tb_safeio_line(path, line, sizeof(line), 0, why, sizeof(why)) < 0 ||
        tb_emc_parse_hz(line, &hz) < 0)
        return;
    m->emc_top_mhz = hz / 1e6;
    tb_strlcpy(m->emc_top_path, f.emc, sizeof(m->emc_top_path));
}

int tb_nvpmodel_read(const char *root, struct tb_nvpmodel *m)
{
    char path[PATH_MAX], why[PATH_MAX + 160], line[128];
    memset(m, 0, sizeof(*m));
    m->mode_id = -1;
    m->emc_cap_mhz = m->gpu_cap_mhz = m->emc_top_mhz = NAN;
    if (!root)
        root = tb_root();
    snprintf(path, sizeof(path), "%s/var/lib/nvpmodel/status", root);
    int id = -1, rc = tb_safeio_line(path, line, sizeof(line), 0, why, sizeof(why));
    if (rc == 0)
        id = tb_nvpmodel_parse_status(line);
    snprintf(path, sizeof(path), "%s/etc/nvpmodel.conf", root);
    char *conf = malloc(TB_SAFEIO_MAX + 1);
    if (!conf) {
        snprintf(m->why, sizeof(m->why), "out of memory reading nvpmodel.conf");
        return -ENOMEM;
    }
    rc = tb_safeio_read(path, conf, TB_SAFEIO_MAX + 1, NULL, TB_SAFEIO_LINK_OK, 0, why,
                        sizeof(why));
    if (rc < 0) {
        m->mode_id = id;
        tb_strlcpy(m->why, rc == -ENOENT ?
                   "no /etc/nvpmodel.conf (not a Jetson, or nvpmodel not installed)" : why,
                   sizeof(m->why));
        free(conf);
        return rc;
    }
    rc = tb_nvpmodel_parse(conf, id, m);
    emc_top(root, conf, m);
    free(conf);
    return rc;
}
