/* board.c: see board.h. Desktop boards match the GPU's name; Jetsons the device-tree
 * model. Longest match wins, so "Orin NX" is not taken for a plain "Orin". */
#include "measure/board.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
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

int tb_data_dir(const char *sub, char *out, size_t n)
{
    if (is_dir(sub)) {
        snprintf(out, n, "%s", sub);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char cand[PATH_MAX + 64];
            snprintf(cand, sizeof(cand), "%s/%s", exe, sub);   /* build tree */
            if (is_dir(cand) && strlen(cand) < n) {
                snprintf(out, n, "%s", cand);
                return 0;
            }
            snprintf(cand, sizeof(cand), "%s/../share/transpose-bench/%s", exe, sub);
            if (is_dir(cand) && strlen(cand) < n) {
                snprintf(out, n, "%s", cand);
                return 0;
            }
        }
    }
    char cand[PATH_MAX];
    snprintf(cand, sizeof(cand), "%s/%s", TB_DATADIR, sub);
    if (is_dir(cand)) {
        snprintf(out, n, "%s", cand);
        return 0;
    }
    return -1;
}

int tb_data_file(const char *sub, const char *name, char *out, size_t n)
{
    if (access(name, F_OK) == 0 || strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return 0;
    }
    char dir[PATH_MAX];
    if (tb_data_dir(sub, dir, sizeof(dir)) == 0) {
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
    snprintf(out, n, "%s", name);   /* let the loader report it missing */
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
