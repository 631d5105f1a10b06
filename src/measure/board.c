/* board.c: see board.h. Desktop boards match the GPU's name; Jetsons the device-tree
 * model. Longest match wins, so "Orin NX" is not taken for a plain "Orin". */
#include "measure/board.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/backend.h"
#include "measure/conditions.h"
#include "config/config.h"
#include "lib/safeio.h"
#include "lib/util.h"

#ifndef TB_DATADIR
#define TB_DATADIR "/usr/local/share/transpose-bench"
#endif

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether st is this user's or root's and writable by no one else: what a run (root's
 * above all) may read its settings and commands from. Group-writable only for the user's
 * own group (umask 002 with a group per user, Debian's and Ubuntu's default); a folder
 * everyone writes (/tmp) only when sticky: no one else can replace what is in it. */
static bool owned_safe(const struct stat *st, bool sticky_ok)
{
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return false;
    bool group_ok = !(st->st_mode & S_IWGRP) || st->st_gid == getegid();
    return (group_ok && !(st->st_mode & S_IWOTH)) || (sticky_ok && (st->st_mode & S_ISVTX));
}

/* Whether path (in the working folder) may be read before the tool's own data: it and the
 * working folder owned by this user or root and writable by no one else (a world-writable
 * folder's boards/ may be anyone's: root would run the command it names); why says why
 * not. */
static bool cwd_trusted(const char *path, char *why, size_t n)
{
    struct stat here, st;
    if (stat(".", &here) < 0 || !owned_safe(&here, true)) {
        snprintf(why, n, "the working folder is another user's or writable by others");
        return false;
    }
    if (lstat(path, &st) < 0 || !owned_safe(&st, false)) {
        snprintf(why, n, "it is another user's, writable by others, or a link");
        return false;
    }
    return true;
}

/* Whether dir (the working folder's, trusted) holds a .cfg file, and every .cfg in it may
 * be trusted as the folder is: a regular file, this user's or root's, writable by no one
 * else. An empty ./conf or ./boards (a user's own, from an old unpack) is no data folder;
 * nor is one with a link to another user's file (`ln -s ~alice/my.cfg boards/`) or another
 * user's file (a tarball unpacked as root keeps its owners), whose owner could rewrite the
 * command a root run would start. why says which file; nothing of the folder is read. */
static bool holds_cfg(const char *dir, char *why, size_t n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool any = false, bad = false;
    snprintf(why, n, "it holds no .cfg file");
    while (d && !bad && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 4 || strcmp(e->d_name + l - 4, ".cfg"))
            continue;
        char file[PATH_MAX + 300];
        struct stat st;
        snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
        bad = lstat(file, &st) < 0 || !S_ISREG(st.st_mode) || !owned_safe(&st, false);
        if (bad)
            snprintf(why, n, "'%.100s' in it is a link, another user's, or writable by others",
                     e->d_name);
        any = true;
    }
    if (d)
        closedir(d);
    return any && !bad;
}

/* The working folder's sub said skipped once per folder name (boards, conf). */
static void skipped(const char *sub, const char *why)
{
    static char said[2][16];
    for (int i = 0; i < 2; i++) {
        if (!strcmp(said[i], sub))
            return;
        if (!said[i][0]) {
            tb_strlcpy(said[i], sub, sizeof(said[i]));
            break;
        }
    }
    warning("'./%s' of the working folder skipped (%s): the installed data is used", sub, why);
}

/* The i-th data folder for sub (0 the working folder's, when it may be trusted and holds a
 * .cfg; 1 beside the binary, the build tree; 2 the install's share; 3 TB_DATADIR); false
 * when there is none at i. */
static bool data_dir_at(int i, const char *sub, char *out, size_t n)
{
    char exe[PATH_MAX], cand[PATH_MAX + 64], why[256];
    if (i == 0) {
        if (!is_dir(sub))
            return false;
        if (!cwd_trusted(sub, why, sizeof(why)))
            return skipped(sub, why), false;
        if (!holds_cfg(sub, why, sizeof(why)))
            return skipped(sub, why), false;
        snprintf(cand, sizeof(cand), "%s", sub);
    } else if (i == 1 || i == 2) {
        ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        char *slash = len > 0 ? (exe[len] = '\0', strrchr(exe, '/')) : NULL;
        if (!slash)
            return false;
        *slash = '\0';
        snprintf(cand, sizeof(cand), i == 1 ? "%s/%s" : "%s/../share/transpose-bench/%s", exe,
                 sub);
    } else {
        snprintf(cand, sizeof(cand), "%s/%s", TB_DATADIR, sub);
    }
    if (!is_dir(cand) || strlen(cand) >= n)
        return false;
    snprintf(out, n, "%s", cand);
    return true;
}

int tb_data_dir(const char *sub, char *out, size_t n)
{
    for (int i = 0; i < 4; i++)
        if (data_dir_at(i, sub, out, n))
            return 0;
    return -1;
}

int tb_data_file(const char *sub, const char *name, char *out, size_t n)
{
    char why[160];
    if (strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return 0;
    }
    /* a bare name in the working folder: the user's own file, unless another user's */
    bool here = access(name, F_OK) == 0, trusted = here && cwd_trusted(name, why, sizeof(why));
    if (trusted) {
        snprintf(out, n, "%s", name);
        return 0;
    }
    if (here)
        warning("'./%s' of the working folder skipped (%s): looked up in the tool's data",
                name, why);
    char dir[PATH_MAX];
    for (int i = 0; i < 4; i++) {
        if (!data_dir_at(i, sub, dir, sizeof(dir)))
            continue;
        char cand[PATH_MAX * 2];
        snprintf(cand, sizeof(cand), "%s/%s", dir, name);
        if (access(cand, F_OK) == 0) {
            snprintf(out, n, "%s", cand);
            return 0;
        }
        snprintf(cand, sizeof(cand), "%s/%s.cfg", dir, name);
        if (access(cand, F_OK) == 0) {
            snprintf(out, n, "%s", cand);
            return 0;
        }
    }
    snprintf(out, n, "%s", name);   /* let the loader report it missing (or read the file
                                     * the user named, said above) */
    return -1;
}

void tb_board_model(const char *root, char *buf, size_t n)
{
    char path[PATH_MAX], why[PATH_MAX + 128];
    snprintf(path, sizeof(path), "%s/proc/device-tree/model", root);
    buf[0] = '\0';
    /* a bounded read (safeio.h): a FIFO or a link there is said and skipped, not a hang */
    int rc = tb_safeio_read(path, buf, n, NULL, 0, 0, why, sizeof(why));
    if (rc < 0 && rc != -ENOENT && rc != -ENOTDIR)
        warning("board detection: %s", why);
    if (rc < 0 && rc != -EFBIG)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';   /* the device tree ends it with a NUL already */
}

/* The longest of the '|'-separated candidates found in text; 0 when none. */
static size_t best_match(const char *text, const char *cands, char *which, size_t n)
{
    size_t best = 0;
    char list[512];
    tb_strlcpy(list, cands, sizeof(list));
    for (char *save = NULL, *t = strtok_r(list, "|", &save); t; t = strtok_r(NULL, "|", &save))
        if (*t && strstr(text, t) && strlen(t) > best) {
            best = strlen(t);
            tb_strlcpy(which, t, n);
        }
    return best;
}

/* The model string decides when some board file names it; the GPU's name only when none
 * does (a TX2's GPU is "NVIDIA Tegra X2", which the desktop file's "NVIDIA" would take). */
int tb_board_detect(const char *root, const char *gpu_name, char *path, size_t n, char *why,
                    size_t why_n)
{
    char dir[PATH_MAX], model[256];
    if (gpu_name && !gpu_name[0])
        gpu_name = NULL;   /* "": the caller uses no GPU */
    if (tb_data_dir("boards", dir, sizeof(dir)) < 0) {
        snprintf(why, why_n, "no boards/ directory found");
        return -1;
    }
    tb_board_model(root, model, sizeof(model));
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, why_n, "cannot open '%s'", dir);
        return -1;
    }
    size_t best_model = 0, best_gpu = 0;
    char by_model[PATH_MAX * 2] = "", by_gpu[PATH_MAX * 2] = "", mwhy[1024] = "", gwhy[1024] = "";
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".cfg"))
            continue;
        char file[PATH_MAX * 2], name[128], m[256], g[256], which[256];
        snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
        if (tb_config_peek_board(file, name, sizeof(name), m, sizeof(m), g, sizeof(g)) < 0)
            continue;
        size_t k = model[0] ? best_match(model, m, which, sizeof(which)) : 0;
        if (k > best_model) {
            best_model = k;
            snprintf(by_model, sizeof(by_model), "%s", file);
            snprintf(mwhy, sizeof(mwhy), "model '%s' matches '%s'", model, which);
        }
        k = gpu_name && g[0] && strstr(gpu_name, g) ? strlen(g) : 0;
        if (k > best_gpu) {
            best_gpu = k;
            snprintf(by_gpu, sizeof(by_gpu), "%s", file);
            snprintf(gwhy, sizeof(gwhy), "GPU '%s' matches '%s'", gpu_name, g);
        }
    }
    closedir(d);
    if (by_model[0]) {
        snprintf(path, n, "%s", by_model);
        snprintf(why, why_n, "%s", mwhy);
    } else if (by_gpu[0]) {
        snprintf(path, n, "%s", by_gpu);
        snprintf(why, why_n, "%s", gwhy);
    } else {
        snprintf(path, n, "%s/generic.cfg", dir);
        snprintf(why, why_n, "no board file matches (model '%s'%s%s), using the generic one",
                 model[0] ? model : "none", gpu_name ? ", GPU " : "", gpu_name ? gpu_name : "");
    }
    return access(path, R_OK) == 0 ? 0 : -1;
}

/* GPU 0's name from the CUDA driver, for list and power, which open no GPU of their own
 * before choosing (run passes the GPU it identified): "" when there is none. The backend's
 * identify: no context, no image loaded, nothing JIT-compiled, for a name. */
static void gpu0_name(char *buf, size_t n)
{
    char why[512];
    struct tb_device_info dev;
    buf[0] = '\0';
    /* only a GPU run could use (as run asks: a GPU without an image for it runs nothing,
     * so its name must not pick the board file there either) */
    if (tb_backend_cuda.probe(0, why, sizeof(why)) == 0 &&
        tb_backend_cuda.identify(0, &dev, why, sizeof(why)) == 0)
        tb_strlcpy(buf, dev.name, n);
}

static const char *board_root(const struct tb_config *cfg, char *setting, size_t n)
{
    setting[0] = '\0';
    tb_config_override(cfg, "power.sysfs_root", setting, n);
    const char *root = tb_sys_root(setting);
    return root[0] ? root : "/";
}

int tb_board_pick(const struct tb_config *cfg, const char *given, const char *gpu_name,
                  char *path, size_t n, char *why, size_t why_n)
{
    if (given) {
        tb_data_file("boards", given, path, n);
        snprintf(why, why_n, "given with -b");
        return 0;
    }
    char setting[PATH_MAX], gpu[128] = "";
    const char *root = board_root(cfg, setting, sizeof(setting));
    int rc = tb_board_detect(root, gpu_name, path, n, why, why_n);
    /* no model decided and the caller opened no GPU: ask the driver for GPU 0's name, so
     * that list and power take the board file that run takes (a model always decides
     * first, so a Jetson never needs the driver here) */
    if (!gpu_name && rc == 0 && strstr(why, "no board file matches")) {
        gpu0_name(gpu, sizeof(gpu));
        if (gpu[0])
            rc = tb_board_detect(root, gpu, path, n, why, why_n);
    }
    return rc;
}

/* Boards one board file covers whose peak differs by a mode or a revision the file's
 * match cannot tell: the Orin Nano with the Super clocks of JetPack 6.2 (model string
 * ending "Super", or the MAXN_SUPER power mode) runs its 128-bit LPDDR5 at 6400 MT/s,
 * 102.4 GB/s, where the plain Orin Nano's 68 GB/s is the board file's figure. */
static const struct tb_board_variant_rule {
    const char *board, *model_suffix, *mode, *label;
    double peak_gbps;
    int dram_mts;   /* the data rate that peak implies (ceiling.h follows it) */
} variants[] = {
    { "jetson-orin-nano", "Super", "MAXN_SUPER", "Orin Nano Super", 102.4, 6400 },
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t l = strlen(s), k = strlen(suffix);
    while (l && isspace((unsigned char)s[l - 1]))
        l--;
    return l >= k && !strncmp(s + l - k, suffix, k);
}

int tb_board_variant(struct tb_config *cfg, char *note, size_t n)
{
    note[0] = '\0';
    char setting[PATH_MAX], model[256], peak[64];
    if (tb_config_override(cfg, "board.peak_gbps", peak, sizeof(peak)))
        return 0;   /* the user's own figure stands */
    struct tb_conditions cond;
    bool read = false;   /* the model and conditions, once, only for a board with variants */
    for (size_t i = 0; i < ARRAY_SIZE(variants); i++) {
        const struct tb_board_variant_rule *v = &variants[i];
        if (strcmp(cfg->board.name, v->board))
            continue;
        if (!read) {
            tb_board_model(board_root(cfg, setting, sizeof(setting)), model, sizeof(model));
            tb_conditions_read(&cond);
            read = true;
        }
        bool by_model = model[0] && ends_with(model, v->model_suffix);
        bool by_mode = !strcmp(cond.power_mode, v->mode);
        if (!by_model && !by_mode)
            continue;
        snprintf(note, n, "%s (%s '%s'): peak %.1f GB/s, not the board file's %.1f",
                 v->label, by_model ? "model" : "power mode", by_model ? model : cond.power_mode,
                 v->peak_gbps, cfg->board.peak_gbps);
        cfg->board.peak_gbps = v->peak_gbps;
        if (cfg->board.dram_mts > 0)
            cfg->board.dram_mts = v->dram_mts;
        return 1;
    }
    return 0;
}
