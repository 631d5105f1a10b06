/* throttle.c: see throttle.h. The files: the `soctherm_oc` hwmon device's oc1..oc3_event_cnt
 * (public Orin notes, doc/power.md), thermal_zoneN/type and temp (milli-degrees C, the
 * kernel's thermal sysfs), the GPU's devfreq cur/min/max_freq (Hz) and nvpmodel's status
 * and conf (nvpmodel.h). All world-readable on L4T; none was read on a real board here. */
#include "jetson/throttle.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jetson/nvpmodel.h"
#include "lib/safeio.h"
#include "lib/util.h"

static bool parse_ll(const char *v, long long *out)
{
    char *end;
    long long x = strtoll(v, &end, 10);
    while (*end == ' ' || *end == '\n')
        end++;
    if (end == v || *end)
        return false;
    *out = x;
    return true;
}

/* Reads the files of root + dir + name[i] as one batch (one deadline for all, a hung file
 * keeps none after it from being read): the first line of each into v[i], "" when unread. */
static void read_batch(const char *root, const char *dir, const char *const *name, int n,
                       char (*v)[64])
{
    struct tb_safeio_job job[TB_SAFEIO_BATCH_MAX];
    for (int i = 0; i < n; i++)
        v[i][0] = '\0';
    if (n <= 0 || n > TB_SAFEIO_BATCH_MAX)
        return;
    char (*path)[PATH_MAX] = calloc((size_t)n, PATH_MAX);
    if (!path)
        return;
    for (int i = 0; i < n; i++) {
        snprintf(path[i], PATH_MAX, "%s%s/%s", root, dir, name[i]);
        job[i] = (struct tb_safeio_job){ .path = path[i], .buf = v[i], .n = sizeof(v[i]) };
    }
    tb_safeio_lines(job, n, TB_SAFEIO_DEADLINE_MS);
    for (int i = 0; i < n; i++)
        if (job[i].rc < 0)
            v[i][0] = '\0';
    free(path);
}

/* The hwmon entry named soctherm_oc (its index differs between boards and boots): every
 * entry's name read at once, the lowest-numbered match taken; then its counters. */
static void read_oc(const char *root, struct tb_throttle_snap *s)
{
    char dir[PATH_MAX], rel[TB_SAFEIO_BATCH_MAX][32], (*v)[64] = calloc(TB_SAFEIO_BATCH_MAX, 64);
    const char *name[TB_SAFEIO_BATCH_MAX] = { NULL };
    snprintf(dir, sizeof(dir), "%s/sys/class/hwmon", root);
    DIR *d = v ? opendir(dir) : NULL;
    int n = 0;
    struct dirent *e;
    while (d && n < TB_SAFEIO_BATCH_MAX && (e = readdir(d)))
        if (!strncmp(e->d_name, "hwmon", 5) && strlen(e->d_name) < sizeof(s->oc_hwmon)) {
            snprintf(rel[n], sizeof(rel[n]), "%s/name", e->d_name);
            name[n] = rel[n];
            n++;
        }
    if (d)
        closedir(d);
    read_batch(root, "/sys/class/hwmon", name, n, v);
    long best = -1;
    for (int i = 0; i < n; i++) {
        long idx = atol(rel[i] + 5);
        if (!strcmp(v[i], "soctherm_oc") && (best < 0 || idx < best)) {
            best = idx;
            snprintf(s->oc_hwmon, sizeof(s->oc_hwmon), "%.*s", (int)strcspn(rel[i], "/"),
                     rel[i]);
        }
    }
    static const char *const cnt[TB_THROTTLE_OC] = { "oc1_event_cnt", "oc2_event_cnt",
                                                     "oc3_event_cnt" };
    snprintf(dir, sizeof(dir), "/sys/class/hwmon/%s", s->oc_hwmon);
    if (s->oc_hwmon[0] && v)
        read_batch(root, dir, cnt, TB_THROTTLE_OC, v);
    for (int i = 0; s->oc_hwmon[0] && v && i < TB_THROTTLE_OC; i++) {
        long long x;
        if (parse_ll(v[i], &x) && x >= 0)
            s->oc_cnt[i] = x;
    }
    free(v);
}

/* The thermal_zoneN entries of root's /sys/class/thermal, listed (so a gap, or a zone that
 * cannot be read, never ends them), the lowest max indexes in order into idx. */
static int zone_indexes(const char *root, int *idx, int max)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/sys/class/thermal", root);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *p = e->d_name + 12;
        char *end;
        if (strncmp(e->d_name, "thermal_zone", 12) || !isdigit((unsigned char)*p) ||
            (*p == '0' && p[1]))
            continue;   /* the kernel's names only: "thermal_zone7", never "thermal_zone07" */
        long v = strtol(p, &end, 10);
        if (*end || v > INT_MAX / 2 || (n == max && v >= idx[max - 1]))
            continue;
        int k = n < max ? n++ : max - 1;
        for (; k > 0 && idx[k - 1] > v; k--)
            idx[k] = idx[k - 1];
        idx[k] = (int)v;
    }
    closedir(d);
    return n;
}

/* Why a zone's file was not read, in a few words for a note. */
static const char *unread_words(int rc, char *buf, size_t n)
{
    if (rc == -ETIMEDOUT)
        snprintf(buf, n, "no answer within %d ms", TB_SAFEIO_DEADLINE_MS);
    else
        snprintf(buf, n, "%s", rc == -EINVAL ? "not a regular file" : rc == -ELOOP ?
                 "a symbolic link" : strerror(-rc));
    return buf;
}

/* Adds "thermal_zoneN/FILE (why)" to the note. */
static void note_unread(char *note, size_t n, int zone, const char *file, int rc)
{
    char w[64];
    size_t len = strlen(note);
    if (len + 1 < n)
        snprintf(note + len, n - len, "%sthermal_zone%d/%s (%s)", len ? ", " : "", zone, file,
                 unread_words(rc, w, sizeof(w)));
}

/* One scan's reads: each zone's type and temp (tb_thermal_zones). */
struct zone_scan {
    struct tb_safeio_job job[2 * TB_THROTTLE_ZONES];
    char path[2 * TB_THROTTLE_ZONES][PATH_MAX];
    char line[2 * TB_THROTTLE_ZONES][32];
};

int tb_thermal_zones(const char *root, struct tb_throttle_zone *z, int max, char *unread,
                     size_t unread_n)
{
    int idx[TB_THROTTLE_ZONES], got = 0;
    if (unread_n)
        unread[0] = '\0';
    if (!root)
        root = tb_root();
    int n = zone_indexes(root, idx, max < TB_THROTTLE_ZONES ? max : TB_THROTTLE_ZONES);
    struct zone_scan *s = n ? calloc(1, sizeof(*s)) : NULL;
    if (!s)
        return 0;
    for (int i = 0; i < 2 * n; i++) {
        snprintf(s->path[i], PATH_MAX, "%s/sys/class/thermal/thermal_zone%d/%s", root,
                 idx[i / 2], i % 2 ? "temp" : "type");
        s->job[i] = (struct tb_safeio_job){ .path = s->path[i], .buf = s->line[i],
                                            .n = sizeof(s->line[i]) };
    }
    /* all at once under one deadline: hung files cost it once, whatever their number */
    tb_safeio_lines(s->job, 2 * n, TB_SAFEIO_DEADLINE_MS);
    for (int i = 0; i < n; i++) {
        const struct tb_safeio_job *type = &s->job[2 * i], *temp = &s->job[2 * i + 1];
        long long mc;
        if (type->rc < 0) {
            note_unread(unread, unread_n, idx[i], "type", type->rc);
            continue;
        }
        if (temp->rc < 0)
            note_unread(unread, unread_n, idx[i], "temp", temp->rc);
        struct tb_throttle_zone *t = &z[got++];
        t->index = idx[i];
        tb_strlcpy(t->type, type->buf, sizeof(t->type));
        /* -256 C is how Tegra shows an offline sensor */
        t->temp_c = temp->rc == 0 && parse_ll(temp->buf, &mc) && mc > -200000 ? mc / 1000.0
                                                                                : NAN;
    }
    free(s);
    return got;
}

/* The GPU's devfreq entry: 57000000.gpu (Nano, TX1), 17000000.gp10b (TX2), 17000000.gv11b
 * (Xavier), 17000000.ga10b or 17000000.gpu (Orin). */
static bool is_gpu_devfreq(const char *name)
{
    static const char *const gpus[] = { ".gpu", "gm20b", "gp10b", "gv11b", "ga10b" };
    for (size_t i = 0; i < ARRAY_SIZE(gpus); i++) {
        size_t l = strlen(name), g = strlen(gpus[i]);
        if (l >= g && !strcmp(name + l - g, gpus[i]))
            return true;
    }
    return false;
}

int tb_gpu_devfreq_find(const char *root, char *name, size_t n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/sys/class/devfreq", root ? root : tb_root());
    name[0] = '\0';
    DIR *d = opendir(path);
    if (!d)
        return -ENOENT;
    struct dirent *e;
    while ((e = readdir(d)))
        if (is_gpu_devfreq(e->d_name)) {
            tb_strlcpy(name, e->d_name, n);
            break;
        }
    closedir(d);
    return name[0] ? 0 : -ENOENT;
}

static double as_mhz(const char *v)
{
    long long hz;
    return parse_ll(v, &hz) && hz > 0 ? hz / 1e6 : NAN;
}

static void read_devfreq(const char *root, struct tb_throttle_snap *s)
{
    if (tb_gpu_devfreq_find(root, s->devfreq, sizeof(s->devfreq)) < 0)
        return;
    char dir[PATH_MAX], v[3][64];
    static const char *const f[] = { "cur_freq", "min_freq", "max_freq" };
    snprintf(dir, sizeof(dir), "/sys/class/devfreq/%s", s->devfreq);
    read_batch(root, dir, f, 3, v);
    s->gpu_cur_mhz = as_mhz(v[0]);
    s->gpu_min_mhz = as_mhz(v[1]);
    s->gpu_max_mhz = as_mhz(v[2]);
}

void tb_throttle_snap(const char *root, struct tb_throttle_snap *s)
{
    memset(s, 0, sizeof(*s));
    if (!root)
        root = tb_root();
    for (int i = 0; i < TB_THROTTLE_OC; i++)
        s->oc_cnt[i] = -1;
    s->gpu_cur_mhz = s->gpu_min_mhz = s->gpu_max_mhz = NAN;
    read_oc(root, s);
    s->n_zones = tb_thermal_zones(root, s->zone, TB_THROTTLE_ZONES, s->unread, sizeof(s->unread));
    read_devfreq(root, s);
    struct tb_nvpmodel m;
    tb_nvpmodel_read(root, &m);   /* the mode ID alone is enough to see a change */
    s->mode_id = m.mode_id;
    tb_strlcpy(s->mode_name, m.mode_name, sizeof(s->mode_name));
}

/* Zones whose reading is no temperature: the Nano's PMIC-Die reads a fixed 100 C (tegrastats
 * prints "PMIC@100C" on an idle board), thermal-fan-est is an estimate for the fan. */
static bool zone_counts(const char *type)
{
    return !strcasestr(type, "pmic") && !strcasestr(type, "fan-est");
}

static void hottest(const struct tb_throttle_snap *s, struct tb_throttle_diff *d)
{
    for (int i = 0; i < s->n_zones; i++) {
        const struct tb_throttle_zone *z = &s->zone[i];
        if (isnan(z->temp_c) || !zone_counts(z->type))
            continue;
        if (isnan(d->max_temp_c) || z->temp_c > d->max_temp_c) {
            d->max_temp_c = z->temp_c;
            tb_strlcpy(d->max_temp_zone, z->type, sizeof(d->max_temp_zone));
        }
    }
}

static void mode_label(const struct tb_throttle_snap *s, char *buf, size_t n)
{
    if (s->mode_name[0])
        snprintf(buf, n, "%s", s->mode_name);
    else if (s->mode_id >= 0)
        snprintf(buf, n, "mode %d", s->mode_id);
    else
        snprintf(buf, n, "?");
}

void tb_throttle_diff(const struct tb_throttle_snap *a, const struct tb_throttle_snap *b,
                      double hot_c, struct tb_throttle_diff *d)
{
    memset(d, 0, sizeof(*d));
    d->oc_total = -1;
    d->max_temp_c = NAN;
    int oc_max = -1;   /* the counter that moved most */
    for (int i = 0; i < TB_THROTTLE_OC; i++) {
        long long x = a->oc_cnt[i] >= 0 && b->oc_cnt[i] >= a->oc_cnt[i] ?
                      b->oc_cnt[i] - a->oc_cnt[i] : -1;
        d->oc_delta[i] = x;
        if (x < 0)
            continue;
        d->oc_total = (d->oc_total < 0 ? 0 : d->oc_total) + x;
        if (x > 0 && (oc_max < 0 || x > d->oc_delta[oc_max]))
            oc_max = i;
    }
    hottest(a, d);
    hottest(b, d);
    d->hot = !isnan(hot_c) && !isnan(d->max_temp_c) && d->max_temp_c >= hot_c;
    d->gpu_max_start_mhz = a->gpu_max_mhz;
    d->gpu_max_end_mhz = b->gpu_max_mhz;
    d->gpu_cur_start_mhz = a->gpu_cur_mhz;
    d->gpu_cur_end_mhz = b->gpu_cur_mhz;
    d->capped = b->gpu_max_mhz < a->gpu_max_mhz;   /* false when either is NAN */
    d->below_max = a->gpu_min_mhz == a->gpu_max_mhz && b->gpu_cur_mhz < b->gpu_max_mhz;
    d->mode_changed = a->mode_id >= 0 && b->mode_id >= 0 && a->mode_id != b->mode_id;
    d->throttled = d->mode_changed || d->capped || oc_max >= 0 || d->hot || d->below_max;

    /* the strongest cause: a new mode explains everything after it, a lowered cap the
     * clock, OC events a slowdown devfreq does not show, heat, then a pinned clock that
     * fell (by something none of the others names) */
    char ma[64], mb[64];
    if (d->mode_changed) {
        mode_label(a, ma, sizeof(ma));
        mode_label(b, mb, sizeof(mb));
        snprintf(d->cause, sizeof(d->cause), "mode changed %.36s->%.36s", ma, mb);
    } else if (d->capped)
        snprintf(d->cause, sizeof(d->cause), "devfreq max %.0f->%.0f MHz", a->gpu_max_mhz,
                 b->gpu_max_mhz);
    else if (oc_max >= 0) {
        size_t len = 0;
        for (int i = 0; i < TB_THROTTLE_OC; i++)   /* every counter that moved, oc1 first */
            if (d->oc_delta[i] > 0 && len < sizeof(d->cause))
                len += (size_t)snprintf(d->cause + len, sizeof(d->cause) - len, "%soc%d +%lld",
                                        len ? " " : "", i + 1, d->oc_delta[i]);
    } else if (d->hot)
        snprintf(d->cause, sizeof(d->cause), "thermal %s %.0f C", d->max_temp_zone,
                 d->max_temp_c);
    else if (d->below_max)
        snprintf(d->cause, sizeof(d->cause), "devfreq cur %.0f < max %.0f MHz", b->gpu_cur_mhz,
                 b->gpu_max_mhz);
}

/* NVML's nvmlClocksEventReason* / nvmlClocksThrottleReason* bits (nvml.h; the NVML API
 * reference, "NvmlClocksEventReasons"), heaviest first. */
static const struct {
    unsigned long long bit;
    const char *name;
} nvml_reasons[] = {
    { 0x80, "HW power brake" },   /* HwPowerBrakeSlowdown */
    { 0x40, "HW thermal" },       /* HwThermalSlowdown */
    { 0x08, "HW slowdown" },      /* HwSlowdown: clocks halved or less */
    { 0x20, "SW thermal" },       /* SwThermalSlowdown */
    { 0x04, "SW power cap" },     /* SwPowerCap: power.h TB_POWER_REASON_CAP */
    { 0x10, "sync boost" },       /* SyncBoost */
    { 0x100, "display clock" },   /* DisplayClockSetting */
    { 0x02, "app clocks" },       /* ApplicationsClocksSetting */
};
#define NVML_REASON_GPU_IDLE 0x01ULL

bool tb_throttle_nvml_throttled(unsigned long long mask)
{
    return (mask & ~NVML_REASON_GPU_IDLE) != 0;
}

const char *tb_throttle_nvml_cause(unsigned long long mask, char *buf, size_t n)
{
    size_t len = 0;
    unsigned long long known = NVML_REASON_GPU_IDLE;
    buf[0] = '\0';
    for (size_t i = 0; i < ARRAY_SIZE(nvml_reasons); i++) {
        known |= nvml_reasons[i].bit;
        if ((mask & nvml_reasons[i].bit) && len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "+" : "",
                                    nvml_reasons[i].name);
    }
    if ((mask & ~known) && len < n)
        snprintf(buf + len, n - len, "%s0x%llx", len ? "+" : "", mask & ~known);
    return buf;
}
