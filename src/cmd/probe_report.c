/* probe_report.c: `probe-power --report`: what nobody here has seen of a board's INA3221
 * sensors, gathered into one text file a user can send: the rail folders as `ls -l` shows
 * them, 20 timed reads of each rail file, the averaging the driver and the device tree set
 * (update_interval, samples, R32's running_mode, `ti,continuous-config` decoded), then the
 * probe's own output, each rail fitted. Reads only (bounded, lib/safeio.h); writes only the
 * new report file. Not here: the probe's steps (probecmd.c, probe_run.c). */
#include "cmd/probe_report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/safeio.h"
#include "lib/stats.h"
#include "lib/util.h"

#define REPORT_READS 20
#define DT_DEPTH 8            /* how deep the device tree is searched for the chips' nodes */

/* The rail folders: the hwmon driver's chips, then the IIO driver's devices. */
static const char *const FOLDERS[] = {
    "sys/bus/i2c/drivers/ina3221/*/hwmon/hwmon*",
    "sys/bus/i2c/drivers/ina3221x/*/iio:device*",
};

/* A file's mode as ls -l writes it: "-r--r--r--". */
static void mode_text(mode_t m, char out[11])
{
    static const char rwx[] = "rwxrwxrwx";
    out[0] = S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISREG(m) ? '-' : '?';
    for (int i = 0; i < 9; i++)
        out[i + 1] = m & (0400 >> i) ? rwx[i] : '-';
    out[10] = 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* `ls -l` of dir: mode, owner, group, size and name of each entry, by name. */
static void list_folder(FILE *out, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(out, "%s: %s\n", dir, strerror(errno));
        return;
    }
    char *names[256];
    size_t n = 0;
    for (struct dirent *e; n < 256 && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    fprintf(out, "%s:\n", dir);
    for (size_t i = 0; i < n; i++) {
        char p[PATH_MAX + 256], m[11];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, names[i] ? names[i] : "");
        if (names[i] && lstat(p, &st) == 0) {
            mode_text(st.st_mode, m);
            fprintf(out, "  %s %5u %5u %6lld %s\n", m, (unsigned)st.st_uid,
                    (unsigned)st.st_gid, (long long)st.st_size, names[i]);
        }
        free(names[i]);
    }
}

/* Whether name is a rail file the sampler reads (inK_input, currK_input, in_powerK_input,
 * in_currentK_input, in_voltageK_input). */
static bool rail_file(const char *name)
{
    size_t l = strlen(name);
    return l > 6 && !strcmp(name + l - 6, "_input") &&
           (!strncmp(name, "in", 2) || !strncmp(name, "curr", 4));
}

/* 20 timed reads of path (real time: the driver's own wait): the times and the values. */
static void timed_reads(FILE *out, const char *path)
{
    double ms[REPORT_READS];
    char vals[REPORT_READS * 12] = "", buf[64], why[PATH_MAX + 160];
    size_t len = 0;
    int fails = 0;
    for (int i = 0; i < REPORT_READS; i++) {
        int64_t t0 = tb_real_now_ns();
        int rc = tb_safeio_line(path, buf, sizeof buf, 0, why, sizeof why);
        ms[i] = (double)(tb_real_now_ns() - t0) * 1e-6;
        fails += rc < 0;
        if (len < sizeof vals)
            len += (size_t)snprintf(vals + len, sizeof vals - len, " %.10s", rc ? "err" : buf);
    }
    double lo = ms[0], hi = ms[0];
    for (int i = 1; i < REPORT_READS; i++)
        lo = ms[i] < lo ? ms[i] : lo, hi = ms[i] > hi ? ms[i] : hi;
    double med = tb_median(ms, REPORT_READS);
    fprintf(out, "  %s: read in ms min %.3f, median %.3f, max %.3f; %d failed%s%.300s%s; "
            "values:%s\n", strrchr(path, '/') + 1, lo, med, hi, fails,
            fails ? " (the last: " : "", fails ? why : "", fails ? ")" : "", vals);
}

/* The folder's rail files read REPORT_READS times each; its averaging files as they read. */
static void folder_reads(FILE *out, const char *dir)
{
    static const char *const AVG[] = { "update_interval", "samples", "running_mode",
                                       "name", NULL };
    fprintf(out, "%s:\n", dir);
    for (int i = 0; AVG[i]; i++) {
        char p[PATH_MAX + 32], buf[64], why[PATH_MAX + 160];
        snprintf(p, sizeof p, "%s/%s", dir, AVG[i]);
        if (tb_safeio_line(p, buf, sizeof buf, 0, why, sizeof why) == 0)
            fprintf(out, "  %s = %s\n", AVG[i], buf);
        else if (access(p, F_OK) == 0)
            fprintf(out, "  %s: %s\n", AVG[i], why);
    }
    DIR *d = opendir(dir);
    char *names[256];
    size_t n = 0;
    for (struct dirent *e; d && n < 256 && (e = readdir(d));)
        if (rail_file(e->d_name))
            names[n++] = strdup(e->d_name);
    if (d)
        closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char p[PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", dir, names[i] ? names[i] : "");
        if (names[i])
            timed_reads(out, p);
        free(names[i]);
    }
}

/* An INA3221 configuration register (TI SBOS576, "Configuration Register"): channel
 * enables (bits 14-12), averaging count (11-9), bus and shunt conversion times (8-6, 5-3),
 * mode (2-0); with the averaging's time constant, channels x AVG x (bus + shunt). */
static void decode_config(FILE *out, unsigned v)
{
    static const int AVG[8] = { 1, 4, 16, 64, 128, 256, 512, 1024 };
    static const int CT_US[8] = { 140, 204, 332, 588, 1100, 2116, 4156, 8244 };
    int ch = ((v >> 14) & 1) + ((v >> 13) & 1) + ((v >> 12) & 1);
    int avg = AVG[(v >> 9) & 7], bus = CT_US[(v >> 6) & 7], shunt = CT_US[(v >> 3) & 7];
    fprintf(out, "0x%04x: %d channels, %d samples, bus %d us, shunt %d us, mode %u: "
            "about %.1f ms\n", v, ch, avg, bus, shunt, v & 7,
            (double)ch * avg * (bus + shunt) / 1000.0);
}

/* The device tree's ti,continuous-config and ti,trigger-config under dir (a big-endian u32
 * each), depth levels deep at most. */
static void device_tree(FILE *out, const char *dir, int depth, int *found)
{
    DIR *d = depth > 0 ? opendir(dir) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char p[PATH_MAX];
        struct stat st;
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p || lstat(p, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            device_tree(out, p, depth - 1, found);
        } else if (!strcmp(e->d_name, "ti,continuous-config") ||
                   !strcmp(e->d_name, "ti,trigger-config")) {
            unsigned char b[8];
            size_t len = 0;
            char why[PATH_MAX + 160];
            (*found)++;
            if (tb_safeio_read(p, (char *)b, sizeof b, &len, 0, 0, why, sizeof why) < 0 ||
                len != 4) {
                fprintf(out, "  %s: %s\n", p, len != 4 ? "not one 32-bit cell" : why);
                continue;
            }
            fprintf(out, "  %s = ", p);
            decode_config(out, (unsigned)b[2] << 8 | b[3]);
        }
    }
    if (d)
        closedir(d);
}

void tb_probe_report_board(FILE *out, const char *root)
{
    char pat[PATH_MAX], kernel[128] = "", why[PATH_MAX + 160];
    snprintf(pat, sizeof pat, "%s/proc/sys/kernel/osrelease", root);
    if (tb_safeio_line(pat, kernel, sizeof kernel, 0, why, sizeof why) < 0)
        snprintf(kernel, sizeof kernel, "not known (%.110s)", why);
    fprintf(out, "kernel: %s\n\n## rail folders (ls -l)\n", kernel);
    glob_t g[2];
    for (int k = 0; k < 2; k++) {
        snprintf(pat, sizeof pat, "%s/%s", root, FOLDERS[k]);
        if (glob(pat, 0, NULL, &g[k]) != 0)
            g[k].gl_pathc = 0;
        for (size_t i = 0; i < g[k].gl_pathc; i++)
            list_folder(out, g[k].gl_pathv[i]);
    }
    if (!g[0].gl_pathc && !g[1].gl_pathc)
        fprintf(out, "no INA3221 folder under '%s/sys/bus/i2c/drivers/ina3221{,x}'\n", root);
    fprintf(out, "\n## %d timed reads of each rail file, and the averaging\n", REPORT_READS);
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < g[k].gl_pathc; i++)
            folder_reads(out, g[k].gl_pathv[i]);
    for (int k = 0; k < 2; k++)
        if (g[k].gl_pathc)
            globfree(&g[k]);
    fprintf(out, "\n## the device tree's averaging (ti,continuous-config, ti,trigger-config)\n");
    int found = 0;
    snprintf(pat, sizeof pat, "%s/proc/device-tree", root);
    device_tree(out, pat, DT_DEPTH, &found);
    if (!found)
        fprintf(out, "  none found under '%s' (or not readable)\n", pat);
    fprintf(out, "\n## the probe, each rail by itself\n");
}

int tb_probe_report_keep(const char *result, const char *text, size_t len, char *path,
                         size_t n)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
    const char *dot = strrchr(result, '.');
    int bl = dot ? (int)(dot - result) : (int)strlen(result);   /* DIR/probe-<board>-<l4t> */
    for (int i = 0; i < 100; i++) {
        int w = i ? snprintf(path, n, "%.*s-report-%s-%d.txt", bl, result, stamp, i)
                  : snprintf(path, n, "%.*s-report-%s.txt", bl, result, stamp);
        if (w < 0 || (size_t)w >= n)
            return -ENAMETOOLONG;
        /* a new file, never one that is there (a log, an earlier report), never a link */
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return -errno;
        bool ok = write(fd, text, len) == (ssize_t)len && fsync(fd) == 0;
        int e = errno;
        ok = close(fd) == 0 && ok;
        if (!ok) {
            unlink(path);   /* ours, made above */
            return -(e ? e : EIO);
        }
        return 0;
    }
    return -EEXIST;
}
