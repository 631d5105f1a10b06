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

/* A MAX_FREQ value in Hz as a cap in MHz: > 0 a cap, 0 none (-1, 0, or a value no clock
 * reaches: nvpmodel itself prints LLONG_MAX for -1), NAN not a number. */
static double cap_mhz(const char *v)
{
    char *end;
    double hz = strtod(v, &end);
    while (*end == ' ' || *end == '\t' || *end == '\r')
        end++;
    if (end == v || *end)
        return NAN;
    return hz <= 0 || hz >= 1e11 ? 0 : hz / 1e6;
}

/* "< POWER_MODEL ID=2 NAME=MAXN_SUPER >" -> id and name; false for other headers. */
static bool mode_header(const char *l, int *id, char *name, size_t n)
{
    const char *m = strstr(l, "POWER_MODEL");
    char buf[64];
    if (!m || sscanf(m, "POWER_MODEL ID=%d NAME=%63[^ >\r\n]", id, buf) != 2)
        return false;
    tb_strlcpy(name, buf, n);
    return true;
}

/* The next line of *p (comments and blank lines skipped, leading space removed) into buf;
 * false at the end. */
static bool next_line(const char **p, char *buf, size_t n)
{
    while (**p) {
        const char *l = *p, *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        *p = l + len + (nl != NULL);
        tb_strlcpy(buf, l, len < n ? len + 1 : n);
        char *s = buf;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '#' || !*s)
            continue;
        memmove(buf, s, strlen(s) + 1);
        return true;
    }
    return false;
}

/* "< PM_CONFIG DEFAULT=2 >" outside comments (the FORMAT comment of L4T's files names it
 * too); -1 when none. */
static int default_mode(const char *conf)
{
    char line[512];
    for (const char *p = conf; next_line(&p, line, sizeof(line)); ) {
        const char *d = line[0] == '<' ? strstr(line, "PM_CONFIG DEFAULT=") : NULL;
        if (d && isdigit((unsigned char)d[18]))
            return atoi(d + 18);
    }
    return -1;
}

int tb_nvpmodel_parse(const char *conf, int mode_id, struct tb_nvpmodel *m)
{
    if (mode_id < 0) {
        mode_id = default_mode(conf);
        if (mode_id < 0) {
            snprintf(m->why, sizeof(m->why), "no nvpmodel status and no PM_CONFIG DEFAULT in "
                     "nvpmodel.conf: the mode is unknown");
            return -ENOENT;
        }
        m->from_default = true;
    }
    m->mode_id = mode_id;
    bool in_mode = false, found = false;
    double emc = 0, gpu = 0;   /* a mode without the line caps nothing */
    char line[512];
    for (const char *p = conf; next_line(&p, line, sizeof(line)); ) {
        char *s = line;
        if (*s == '<') {
            int id;
            char name[64];
            if (in_mode)
                break;   /* the mode's section ended */
            if (mode_header(s, &id, name, sizeof(name)) && id == mode_id) {
                in_mode = found = true;
                tb_strlcpy(m->mode_name, name, sizeof(m->mode_name));
            }
            continue;
        }
        if (!in_mode)
            continue;
        char param[64], arg[64], val[64];
        if (sscanf(s, "%63s %63s %63s", param, arg, val) != 3 || strcmp(arg, "MAX_FREQ"))
            continue;
        if (!strcmp(param, "EMC"))
            emc = cap_mhz(val);
        else if (!strcmp(param, "GPU"))
            gpu = cap_mhz(val);
    }
    if (!found) {
        snprintf(m->why, sizeof(m->why), "nvpmodel.conf has no POWER_MODEL ID=%d", mode_id);
        return -ENOENT;
    }
    m->emc_cap_mhz = emc;
    m->gpu_cap_mhz = gpu;
    return 0;
}

int tb_nvpmodel_read(const char *root, struct tb_nvpmodel *m)
{
    char path[PATH_MAX], why[PATH_MAX + 160], line[128];
    memset(m, 0, sizeof(*m));
    m->mode_id = -1;
    m->emc_cap_mhz = m->gpu_cap_mhz = NAN;
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
    free(conf);
    return rc;
}
