/* modes_table.c: nvpmodel.conf as a table of modes and the files its PARAM sections name, and
 * which of those files nvpmodel really writes on this board (see modes.h). The grammar is
 * L4T's own (the FORMAT comment atop every nvpmodel_*.conf); real files carry lines broken by
 * a terminal wrap and headers without a blank after '<': both read. Nothing here writes. */
#include "jetson/modes.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/safeio.h"
#include "lib/util.h"

/* A MAX_FREQ value in Hz as MHz: > 0 a cap, 0 none (-1, 0, absurdly large), NAN garbage. */
static double cap_mhz(const char *v)
{
    char *end;
    double hz = strtod(v, &end);
    if (end == v)
        return NAN;
    return hz <= 0 || hz >= 1e11 ? 0 : hz / 1e6;
}

/* The next non-comment line of *p, leading blanks removed; false at the end. */
static bool next_line(const char **p, char *buf, size_t n)
{
    while (**p) {
        const char *l = *p, *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        *p = l + len + (nl != NULL);
        while (len && isspace((unsigned char)*l)) {
            l++;
            len--;
        }
        if (!len || *l == '#')
            continue;
        tb_strlcpy(buf, l, len < n ? len + 1 : n);
        buf[strcspn(buf, "\r")] = '\0';
        return true;
    }
    return false;
}

/* "< POWER_MODEL ID=2 NAME=MAXN_SUPER >" -> a new row of t; false for other headers. */
static bool mode_header(const char *line, struct tb_mode_table *t, struct tb_mode_def **cur)
{
    const char *s = strstr(line, "POWER_MODEL"), *nm;
    int id;
    if (!s || sscanf(s, "POWER_MODEL ID=%d", &id) != 1 || id < 0 || !(nm = strstr(s, "NAME=")))
        return false;
    nm += 5;
    size_t len = strcspn(nm, " \t>");
    if (!len)
        return false;
    struct tb_mode_def *v = realloc(t->v, (t->n + 1) * sizeof(*v));
    if (!v)
        return false;
    t->v = v;
    *cur = &t->v[t->n++];
    memset(*cur, 0, sizeof(**cur));
    (*cur)->id = id;
    (*cur)->name_cut = len >= sizeof((*cur)->name);
    tb_strlcpy((*cur)->name, nm, len < sizeof((*cur)->name) ? len + 1 : sizeof((*cur)->name));
    return true;
}

/* A PARAM section's line "MAX_FREQ PATH" or "MAX_FREQ_KNEXT PATH" for GPU or EMC. */
static void param_line(struct tb_mode_table *t, const char *param, const char *a, const char *b)
{
    bool knext = !strcmp(a, "MAX_FREQ_KNEXT");
    if (b[0] != '/' || (!knext && strcmp(a, "MAX_FREQ")))
        return;
    if (!strcmp(param, "GPU"))
        tb_strlcpy(knext ? t->gpu_max_knext : t->gpu_max_path, b, PATH_MAX);
    else if (!strcmp(param, "EMC"))
        tb_strlcpy(knext ? t->emc_cap_knext : t->emc_cap_path, b, PATH_MAX);
}

int tb_modes_table_parse(const char *conf, struct tb_mode_table *t, char *why, size_t n)
{
    memset(t, 0, sizeof(*t));
    t->default_id = -1;
    char line[1024], param[64] = "";
    struct tb_mode_def *cur = NULL;
    for (const char *p = conf; next_line(&p, line, sizeof(line)); ) {
        if (line[0] == '<') {
            const char *s;
            cur = NULL;
            param[0] = '\0';
            if (mode_header(line, t, &cur))
                continue;
            if ((s = strstr(line, "PARAM")) && (s = strstr(s, "NAME=")))
                sscanf(s, "NAME=%63[^ >]", param);
            else if ((s = strstr(line, "PM_CONFIG DEFAULT=")) && isdigit((unsigned char)s[18]))
                t->default_id = atoi(s + 18);
            continue;
        }
        char a[128], b[PATH_MAX], c[64];
        int k = sscanf(line, "%127s %4095s %63s", a, b, c);
        if (cur && k == 3 && !strcmp(b, "MAX_FREQ")) {
            if (!strcmp(a, "GPU"))
                cur->gpu_cap_mhz = cap_mhz(c);
            else if (!strcmp(a, "EMC"))
                cur->emc_cap_mhz = cap_mhz(c);
        } else if (!cur && k >= 2) {
            param_line(t, param, a, b);
        }
    }
    if (!t->n) {
        snprintf(why, n, "nvpmodel.conf defines no POWER_MODEL");
        return -ENOENT;
    }
    return 0;
}

int tb_modes_table_read(const char *root, struct tb_mode_table *t, char *why, size_t n)
{
    char path[PATH_MAX], w[PATH_MAX + 160];
    memset(t, 0, sizeof(*t));
    snprintf(path, sizeof(path), "%s/etc/nvpmodel.conf", root ? root : tb_root());
    char *conf = malloc(TB_SAFEIO_MAX + 1);
    if (!conf) {
        snprintf(why, n, "out of memory reading '%s'", path);
        return -ENOMEM;
    }
    int rc = tb_safeio_read(path, conf, TB_SAFEIO_MAX + 1, NULL, TB_SAFEIO_LINK_OK, 0, w,
                            sizeof(w));
    if (rc == 0)
        rc = tb_modes_table_parse(conf, t, w, sizeof(w));
    else if (rc == -ENOENT)
        snprintf(w, sizeof(w), "no '%s': not a Jetson, or nvpmodel is not installed", path);
    if (rc < 0)
        tb_strlcpy(why, w, n);
    free(conf);
    return rc;
}

void tb_modes_table_free(struct tb_mode_table *t)
{
    free(t->v);
    memset(t, 0, sizeof(*t));
}

const struct tb_mode_def *tb_modes_find_id(const struct tb_mode_table *t, int id)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].id == id)
            return &t->v[i];
    return NULL;
}

const struct tb_mode_def *tb_modes_find(const struct tb_mode_table *t, const char *s)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].name, s) && !t->v[i].name_cut)
            return &t->v[i];
    char *end;
    long id = strtol(s, &end, 10);
    if (end == s || *end || id < 0 || id > 100000)
        return NULL;
    return tb_modes_find_id(t, (int)id);
}

/* ---- the files nvpmodel writes on this board ------------------------------------- */

/* Whether root + abs is there as a regular file (its last part not a link; the class's
 * links to devices on the way are followed, as sysfs lays them out). */
static bool there(const char *root, const char *abs)
{
    char path[PATH_MAX];
    struct stat st;
    if (!abs[0] || snprintf(path, sizeof(path), "%s%s", root, abs) >= (int)sizeof(path))
        return false;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The GPU's devfreq class entry, by the names L4T gives it (doc/notes/nvpmodel-files.md:
 * Nano, Xavier, Orin R35, Orin R36). An entry that looks like a GPU
 * the tool does not know (Thor's gpu-gpc-0) is named in why, not used: its caps and table
 * were never seen. */
static void gpu_by_class(const char *root, struct tb_mode_files *f)
{
    static const char *const known[] = { "57000000.gpu", "17000000.gv11b", "17000000.ga10b",
                                          "17000000.gpu" };
    char dir[PATH_MAX], abs[PATH_MAX], unknown[128] = "";
    for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
        snprintf(abs, sizeof(abs), "/sys/class/devfreq/%s/max_freq", known[i]);
        if (there(root, abs)) {
            tb_strlcpy(f->gpu_max, abs, sizeof(f->gpu_max));
            return;
        }
    }
    snprintf(dir, sizeof(dir), "%s/sys/class/devfreq", root);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, "gpu") && !unknown[0])
            tb_strlcpy(unknown, e->d_name, sizeof(unknown));
    if (d)
        closedir(d);
    if (unknown[0])
        snprintf(f->gpu_why, sizeof(f->gpu_why), "the GPU devfreq '%s' is not one this tool "
                 "knows (Thor, JetPack 7, names its GPU so; its nvpmodel paths were never "
                 "seen): no GPU cap is written or checked", unknown);
    else
        snprintf(f->gpu_why, sizeof(f->gpu_why), "the GPU max_freq files nvpmodel.conf names "
                 "(MAX_FREQ, MAX_FREQ_KNEXT) are not there, nor a known GPU under "
                 "/sys/class/devfreq");
}

void tb_modes_files(const char *root, const struct tb_mode_table *t, struct tb_mode_files *f)
{
    memset(f, 0, sizeof(*f));
    if (there(root, t->gpu_max_knext))
        tb_strlcpy(f->gpu_max, t->gpu_max_knext, sizeof(f->gpu_max));
    else if (there(root, t->gpu_max_path))
        tb_strlcpy(f->gpu_max, t->gpu_max_path, sizeof(f->gpu_max));
    else if (!t->gpu_max_path[0] && !t->gpu_max_knext[0])
        snprintf(f->gpu_why, sizeof(f->gpu_why), "nvpmodel.conf names no GPU MAX_FREQ file");
    else
        gpu_by_class(root, f);
    const char *emc = there(root, t->emc_cap_knext) ? t->emc_cap_knext
                    : there(root, t->emc_cap_path) ? t->emc_cap_path : "";
    tb_strlcpy(f->emc, emc, sizeof(f->emc));
    f->emc_kind = !emc[0] ? TB_EMC_NONE
                : strstr(emc, "/nvpmodel_clk_cap/") ? TB_EMC_TOP : TB_EMC_CAP;
}
