/* config.c: loads the sweep and board files with libconfig, applies --set overrides, and
 * validates every setting against one schema table, collecting all problems with their
 * FILE:LINE. Nothing here touches a device; tb_config_check_device gets its limits. */
#include "config.h"

#include "backend.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "power/power.h"
#include "util.h"

#define TB_CONFIG_MAX_BYTES (1 << 20)   /* a larger "config" is a mistake, not a sweep */

enum { F_SWEEP = 0, F_BOARD = 1 };
static const char *const file_kind[2] = { "sweep", "board" };


/* ---- schema ----------------------------------------------------------------------- */

enum stype { S_GROUP, S_INT, S_FLOAT, S_BOOL, S_STRING, S_CUSTOM };

struct load_ctx;
typedef void (*custom_fn)(struct load_ctx *x, config_setting_t *s);

struct schema {
    const char *path;
    int file;
    enum stype type;
    size_t off;            /* into struct tb_config */
    double min, max;
    const char *choices;   /* S_STRING: allowed values, comma separated; NULL = any */
    custom_fn custom;
    const char *doc;
};

struct load_ctx {
    struct tb_config *c;
    struct tb_diag *d;
};

static void load_kernels(struct load_ctx *x, config_setting_t *s);
static void load_sizes(struct load_ctx *x, config_setting_t *s);
static void load_blocks(struct load_ctx *x, config_setting_t *s);
static void load_element(struct load_ctx *x, config_setting_t *s);
static void load_points(struct load_ctx *x, config_setting_t *s);
static void load_power_source(struct load_ctx *x, config_setting_t *s);
static void load_models(struct load_ctx *x, config_setting_t *s);

#define SW(f) offsetof(struct tb_config, sweep.f)
#define BO(f) offsetof(struct tb_config, board.f)
#define NOLIM 0, 0

static const struct schema schema[] = {
    { "sweep", F_SWEEP, S_GROUP, 0, NOLIM, NULL, NULL, "what to measure" },
    { "sweep.kernels", F_SWEEP, S_CUSTOM, 0, NOLIM, NULL, load_kernels,
      "kernel names, or [\"*\"] for every kernel of the backend" },
    { "sweep.sizes", F_SWEEP, S_CUSTOM, 0, NOLIM, NULL, load_sizes, "( [rows, cols], ... )" },
    { "sweep.blocks", F_SWEEP, S_CUSTOM, 0, NOLIM, NULL, load_blocks, "( [x, y], ... )" },
    { "sweep.points", F_SWEEP, S_CUSTOM, 0, NOLIM, NULL, load_points,
      "( { kernel = \"tiled\"; size = [r, c]; block = [x, y]; }, ... ) instead of the product" },
    { "sweep.warmup", F_SWEEP, S_INT, SW(warmup), 0, 1e6, NULL, NULL, "untimed launches first" },
    { "sweep.element", F_SWEEP, S_CUSTOM, 0, NOLIM, NULL, load_element,
      "element type: u8, f16, float or double (1, 2, 4, 8 bytes)" },
    { "sweep.verify", F_SWEEP, S_BOOL, SW(verify), NOLIM, NULL, NULL,
      "check each point's output against the reference" },
    { "sweep.cache", F_SWEEP, S_STRING, SW(cache), NOLIM, "warm,cold", NULL,
      "warm: as a real program sees it; cold: cache flushed before each repetition" },
    { "sweep.stop", F_SWEEP, S_GROUP, 0, NOLIM, NULL, NULL, "the stopping rule" },
    { "sweep.stop.min_reps", F_SWEEP, S_INT, SW(min_reps), 1, 1e7, NULL, NULL,
      "at least this many timed repetitions" },
    { "sweep.stop.max_reps", F_SWEEP, S_INT, SW(max_reps), 1, 1e7, NULL, NULL,
      "at most this many" },
    { "sweep.stop.min_time_ms", F_SWEEP, S_FLOAT, SW(min_time_ms), 0, 1e9, NULL, NULL,
      "and at least this much measured time" },
    { "sweep.stop.max_time_ms", F_SWEEP, S_FLOAT, SW(max_time_ms), 0.001, 1e9, NULL, NULL,
      "stop a point after this much wall time" },
    { "sweep.stop.rel_spread", F_SWEEP, S_FLOAT, SW(rel_spread), 0, 10, NULL, NULL,
      "stop once the standard error of the mean / mean is below this" },
    { "tune", F_SWEEP, S_GROUP, 0, NOLIM, NULL, NULL, "the autotuner" },
    { "tune.seconds", F_SWEEP, S_FLOAT, SW(tune_seconds), 1, 1e6, NULL, NULL,
      "time budget of `tune`: no new point starts after it" },
    { "output", F_SWEEP, S_GROUP, 0, NOLIM, NULL, NULL, "where logs go" },
    { "output.dir", F_SWEEP, S_STRING, SW(out_dir), NOLIM, NULL, NULL, "log directory" },
    { "output.gzip_level", F_SWEEP, S_INT, SW(gzip_level), 1, 9, NULL, NULL, "1 fast .. 9 small" },
    { "output.keep_logs", F_SWEEP, S_INT, SW(keep_logs), 0, 1e6, NULL, NULL,
      "keep the newest N logs of this tool (0: all)" },
    { "output.keep_days", F_SWEEP, S_INT, SW(keep_days), 0, 1e5, NULL, NULL,
      "remove this tool's logs older than N days (0: never)" },

    { "board", F_BOARD, S_GROUP, 0, NOLIM, NULL, NULL, "the board" },
    { "board.name", F_BOARD, S_STRING, BO(name), NOLIM, NULL, NULL, "short name, used in log names" },
    { "board.match", F_BOARD, S_GROUP, 0, NOLIM, NULL, NULL, "how to recognise it" },
    { "board.match.model", F_BOARD, S_CUSTOM, 0, NOLIM, NULL, load_models,
      "substring of /proc/device-tree/model, or a list of them (L4T releases differ)" },
    { "board.match.gpu", F_BOARD, S_STRING, BO(match_gpu), NOLIM, NULL, NULL,
      "substring of the GPU name" },
    { "board.arch", F_BOARD, S_STRING, BO(arch), NOLIM, NULL, NULL, "GPU architecture, sm_XY" },
    { "board.sms", F_BOARD, S_STRING, BO(sms), NOLIM, NULL, NULL, "SMS for make" },
    { "board.cpu", F_BOARD, S_STRING, BO(cpu), NOLIM, "aarch64,x86_64", NULL,
      "the board's CPU, for `make dist` (aarch64 on every Jetson)" },
    { "board.cuda", F_BOARD, S_STRING, BO(cuda), NOLIM, NULL, NULL,
      "the CUDA version of the board's JetPack (its driver loads no newer kernel images)" },
    { "board.ptx_isa", F_BOARD, S_STRING, BO(ptx_isa), NOLIM, NULL, NULL,
      "the newest PTX ISA the board's driver JIT-compiles, e.g. \"6.5\" (`make` builds PTX at it)" },
    { "board.gpu", F_BOARD, S_BOOL, BO(has_gpu), NOLIM, NULL, NULL,
      "the board has a GPU: a run that cannot use it fails unless --device cpu" },
    { "board.max_power_w", F_BOARD, S_FLOAT, BO(power.max_power_w), 0, 1e5, NULL, NULL,
      "most the board can draw: readings above it (or below 0) are dropped (0: no ceiling)" },
    { "board.peak_gbps", F_BOARD, S_FLOAT, BO(peak_gbps), 0, 1e6, NULL, NULL,
      "theoretical peak memory bandwidth, GB/s (0: unknown)" },
    { "power", F_BOARD, S_GROUP, 0, NOLIM, NULL, NULL, "power measurement" },
    { "power.source", F_BOARD, S_CUSTOM, 0, NOLIM, NULL, load_power_source,
      "auto, none, tegrastats, ina3221, nvml" },
    { "power.interval_ms", F_BOARD, S_INT, BO(power.interval_ms), 1, 60000, NULL, NULL,
      "sampling interval" },
    { "power.window_ms", F_BOARD, S_INT, BO(power.window_ms), 10, 600000, NULL, NULL,
      "back-to-back launches per point for the energy figure" },
    { "power.idle_ms", F_BOARD, S_INT, BO(power.idle_ms), 0, 600000, NULL, NULL,
      "idle baseline at the start (0: none)" },
    { "power.sysfs_root", F_BOARD, S_STRING, BO(power.sysfs_root), NOLIM, NULL, NULL,
      "root under which /sys and /proc are read" },
    { "power.tegrastats", F_BOARD, S_GROUP, 0, NOLIM, NULL, NULL, "tegrastats settings" },
    { "power.tegrastats.command", F_BOARD, S_STRING, BO(power.tegrastats_command), NOLIM, NULL,
      NULL, "command; --interval MS is appended" },
    { "power.total_rail", F_BOARD, S_STRING, BO(power.total_rail), NOLIM, NULL, NULL,
      "rail that is the board's total, or \"sum\" of all rails" },
    { "power.gpu_rail", F_BOARD, S_STRING, BO(power.gpu_rail), NOLIM, NULL, NULL,
      "rail that feeds the GPU" },
};

static const struct schema *schema_find(const char *path)
{
    for (size_t i = 0; i < ARRAY_SIZE(schema); i++)
        if (!strcmp(schema[i].path, path))
            return &schema[i];
    return NULL;
}

/* ---- locations -------------------------------------------------------------------- */

static void setting_path(const config_setting_t *s, char *buf, size_t n)
{
    const char *parts[16];
    int k = 0;
    for (const config_setting_t *p = s; p && config_setting_parent(p) && k < 16;
         p = config_setting_parent(p))
        parts[k++] = config_setting_name(p) ? config_setting_name(p) : "[]";
    buf[0] = '\0';
    size_t len = 0;
    while (k-- > 0)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? "." : "", parts[k]);
}

/* Where a setting came from: file:line, or the command-line argument that set it. */
static struct tb_where where(const struct tb_config *c, int file, const config_setting_t *s)
{
    struct tb_where w;
    int line = s ? (int)config_setting_source_line(s) : 0;
    if (line > 0) {
        const char *f = config_setting_source_file(s);
        snprintf(w.text, sizeof(w.text), "%s:%d", f ? f : c->sweep_path, line);
        if (!f)
            snprintf(w.text, sizeof(w.text), "%s:%d", file == F_SWEEP ? c->sweep_path : c->board_path,
                     line);
        return w;
    }
    if (s) {
        char path[TB_STR];
        setting_path(s, path, sizeof(path));
        for (size_t i = c->n_ovr; i-- > 0;) {
            size_t l = strlen(c->ovr[i].path);
            if (!strncmp(path, c->ovr[i].path, l) && (path[l] == '\0' || path[l] == '.')) {
                snprintf(w.text, sizeof(w.text), "%s", c->ovr[i].label);
                return w;
            }
        }
    }
    snprintf(w.text, sizeof(w.text), "%s", file == F_SWEEP ? c->sweep_path : c->board_path);
    return w;
}

#define DIAG_AT(x, file, s, ...) do { \
        struct tb_where w_ = where((x)->c, (file), (s)); \
        char m_[768]; snprintf(m_, sizeof(m_), __VA_ARGS__); \
        tb_diag_add((x)->d, "%s: %s", w_.text, m_); \
    } while (0)

static const char *type_name(int t)
{
    switch (t) {
    case CONFIG_TYPE_GROUP: return "a group";
    case CONFIG_TYPE_INT: case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a number";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "true or false";
    case CONFIG_TYPE_ARRAY: return "an array";
    case CONFIG_TYPE_LIST: return "a list";
    default: return "something else";
    }
}

static bool is_int(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
}

/* ---- custom settings -------------------------------------------------------------- */

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void load_kernels(struct load_ctx *x, config_setting_t *s)
{
    struct tb_sweep_cfg *sw = &x->c->sweep;
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
        DIAG_AT(x, F_SWEEP, s, "'sweep.kernels' must be a list of kernel names, got %s",
                type_name(t));
        return;
    }
    int n = config_setting_length(s);
    if (n == 0) {
        DIAG_AT(x, F_SWEEP, s, "'sweep.kernels' is empty: name kernels, or [\"*\"] for all");
        return;
    }
    free_strv(sw->kernels, sw->n_kernels);
    free_strv(sw->kernel_at, sw->n_kernels);
    sw->kernels = calloc((size_t)n, sizeof(char *));
    sw->kernel_at = calloc((size_t)n, sizeof(char *));
    sw->n_kernels = 0;
    sw->kernels_at = where(x->c, F_SWEEP, s);
    for (int i = 0; i < n; i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        if (config_setting_type(e) != CONFIG_TYPE_STRING) {
            DIAG_AT(x, F_SWEEP, e, "'sweep.kernels' entry %d must be a string, got %s", i + 1,
                    type_name(config_setting_type(e)));
            continue;
        }
        sw->kernel_at[sw->n_kernels] = strdup(where(x->c, F_SWEEP, e).text);
        sw->kernels[sw->n_kernels++] = strdup(config_setting_get_string(e));
    }
}

/* Reads ( [a, b], ... ) into pairs of positive integers no larger than max. */
static size_t load_pairs(struct load_ctx *x, config_setting_t *s, const char *what,
                         const char *names, long max, long (*out)[2], struct tb_where *at)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_ARRAY) {
        DIAG_AT(x, F_SWEEP, s, "'%s' must be a list like ( [%s], ... ), got %s", what, names,
                type_name(t));
        return 0;
    }
    int n = config_setting_length(s);
    if (n == 0) {
        DIAG_AT(x, F_SWEEP, s, "'%s' is empty", what);
        return 0;
    }
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        int et = config_setting_type(e);
        if ((et != CONFIG_TYPE_ARRAY && et != CONFIG_TYPE_LIST) || config_setting_length(e) != 2) {
            DIAG_AT(x, F_SWEEP, e, "'%s' entry %d must be [%s]", what, i + 1, names);
            continue;
        }
        bool ok = true;
        long v[2];
        for (unsigned j = 0; j < 2; j++) {
            config_setting_t *ej = config_setting_get_elem(e, j);
            if (!is_int(ej)) {
                DIAG_AT(x, F_SWEEP, e, "'%s' entry %d: %s must be an integer", what, i + 1,
                        j ? "second value" : "first value");
                ok = false;
                break;
            }
            long long val = config_setting_get_int64(ej);
            if (val <= 0 || val > max) {
                DIAG_AT(x, F_SWEEP, e, "'%s' entry %d: [%s] must be between 1 and %ld, got %lld",
                        what, i + 1, names, max, val);
                ok = false;
                break;
            }
            v[j] = (long)val;
        }
        if (!ok)
            continue;
        out[k][0] = v[0];
        out[k][1] = v[1];
        at[k] = where(x->c, F_SWEEP, e);
        k++;
    }
    return k;
}

/* sweep.sizes and sweep.blocks: one list of pairs, kept as sizes or as blocks. */
static void load_pair_setting(struct load_ctx *x, config_setting_t *s, bool sizes)
{
    struct tb_sweep_cfg *sw = &x->c->sweep;
    int n = config_setting_length(s);
    long (*v)[2] = calloc((size_t)(n > 0 ? n : 1), sizeof(*v));
    struct tb_where *at = calloc((size_t)(n > 0 ? n : 1), sizeof(*at));
    if (!v || !at) {
        free(v);
        free(at);
        return;
    }
    size_t k = load_pairs(x, s, sizes ? "sweep.sizes" : "sweep.blocks",
                          sizes ? "rows, cols" : "x, y", sizes ? 1L << 40 : 1L << 20, v, at);
    if (sizes) {
        free(sw->sizes);
        sw->sizes = calloc(k ? k : 1, sizeof(*sw->sizes));
        for (size_t i = 0; sw->sizes && i < k; i++)
            sw->sizes[i] = (struct tb_size){ v[i][0], v[i][1], at[i] };
        sw->n_sizes = sw->sizes ? k : 0;
    } else {
        free(sw->blocks);
        sw->blocks = calloc(k ? k : 1, sizeof(*sw->blocks));
        for (size_t i = 0; sw->blocks && i < k; i++)
            sw->blocks[i] = (struct tb_block){ (int)v[i][0], (int)v[i][1], at[i] };
        sw->n_blocks = sw->blocks ? k : 0;
    }
    free(v);
    free(at);
}

static void load_sizes(struct load_ctx *x, config_setting_t *s) { load_pair_setting(x, s, true); }
static void load_blocks(struct load_ctx *x, config_setting_t *s) { load_pair_setting(x, s, false); }

/* ( { kernel = "tiled"; size = [ 8192, 8192 ]; block = [ 32, 8 ]; }, ... ) */
static void load_points(struct load_ctx *x, config_setting_t *s)
{
    struct tb_sweep_cfg *sw = &x->c->sweep;
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_LIST) {
        DIAG_AT(x, F_SWEEP, s, "'sweep.points' must be a list of groups, got %s", type_name(t));
        return;
    }
    int n = config_setting_length(s);
    free(sw->points);
    sw->points = calloc((size_t)(n > 0 ? n : 1), sizeof(*sw->points));
    sw->n_points = 0;
    for (int i = 0; i < n; i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        struct tb_point_cfg *p = &sw->points[sw->n_points];
        const char *k = NULL;
        config_setting_t *sz, *bl;
        if (!config_setting_is_group(e) || !config_setting_lookup_string(e, "kernel", &k) ||
            !(sz = config_setting_get_member(e, "size")) ||
            !(bl = config_setting_get_member(e, "block")) || config_setting_length(sz) != 2 ||
            config_setting_length(bl) != 2 || config_setting_length(e) != 3) {
            DIAG_AT(x, F_SWEEP, e, "'sweep.points' entry %d must be { kernel = \"name\"; "
                    "size = [rows, cols]; block = [x, y]; }", i + 1);
            continue;
        }
        long long v[4] = { config_setting_get_int64_elem(sz, 0), config_setting_get_int64_elem(sz, 1),
                           config_setting_get_int64_elem(bl, 0), config_setting_get_int64_elem(bl, 1) };
        if (v[0] <= 0 || v[1] <= 0 || v[0] > (1LL << 40) || v[1] > (1LL << 40) || v[2] < 0 ||
            v[3] < 0 || v[2] > (1 << 20) || v[3] > (1 << 20) || (!v[2] != !v[3])) {
            DIAG_AT(x, F_SWEEP, e, "'sweep.points' entry %d: size must be positive and block "
                    "[x, y] positive ([0, 0] for kernels without a block)", i + 1);
            continue;
        }
        tb_strlcpy(p->kernel, k, sizeof(p->kernel));
        p->rows = (long)v[0];
        p->cols = (long)v[1];
        p->x = (int)v[2];
        p->y = (int)v[3];
        p->at = where(x->c, F_SWEEP, e);
        sw->n_points++;
    }
}

/* Element types: the kernels move bits, so what matters is the size (1-byte images,
 * half precision, float, double); bandwidth counts rows x cols x size. */
static const struct { const char *name; int size; } elements[] = {
    { "u8", 1 }, { "uint8", 1 }, { "f16", 2 }, { "half", 2 }, { "u16", 2 },
    { "float", 4 }, { "f32", 4 }, { "double", 8 }, { "f64", 8 }, { "u64", 8 },
};

static void load_element(struct load_ctx *x, config_setting_t *s)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        DIAG_AT(x, F_SWEEP, s, "'sweep.element' must be a string, got %s",
                type_name(config_setting_type(s)));
        return;
    }
    const char *v = config_setting_get_string(s);
    for (size_t i = 0; i < ARRAY_SIZE(elements); i++)
        if (!strcmp(v, elements[i].name)) {
            tb_strlcpy(x->c->sweep.element, v, TB_STR);
            x->c->sweep.elem_size = elements[i].size;
            return;
        }
    DIAG_AT(x, F_SWEEP, s, "'sweep.element': unknown element type '%s' (u8, f16, float, double)", v);
}

/* A string or a list of strings, kept joined by '|' (no model string has one). */
static int models_join(const config_setting_t *s, char *out, size_t n)
{
    out[0] = '\0';
    if (config_setting_type(s) == CONFIG_TYPE_STRING) {
        tb_strlcpy(out, config_setting_get_string(s), n);
        return 0;
    }
    if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
        return -1;
    size_t len = 0;
    for (int i = 0; i < config_setting_length(s); i++) {
        const char *v = config_setting_get_string_elem(s, i);
        if (!v || strchr(v, '|'))
            return -1;
        len += (size_t)snprintf(out + len, len < n ? n - len : 0, "%s%s", i ? "|" : "", v);
    }
    return len < n ? 0 : -1;
}

static void load_models(struct load_ctx *x, config_setting_t *s)
{
    if (models_join(s, x->c->board.match_model, TB_STR) < 0)
        DIAG_AT(x, F_BOARD, s, "'board.match.model' must be a string or a list of strings "
                "(without '|'), %d characters in all at most", TB_STR - 1);
}

static void load_power_source(struct load_ctx *x, config_setting_t *s)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        DIAG_AT(x, F_BOARD, s, "'power.source' must be a string, got %s",
                type_name(config_setting_type(s)));
        return;
    }
    const char *v = config_setting_get_string(s);
    if (strcmp(v, "auto") && !tb_power_find(v)) {
        const char *names[16];
        size_t n = 0;
        names[n++] = "auto";
        for (const struct tb_power_ops *const *p = tb_power_sources; *p && n < 16; p++)
            names[n++] = (*p)->name;
        const char *sug = tb_suggest(v, names, n);
        if (sug)
            DIAG_AT(x, F_BOARD, s, "unknown power source '%s' (did you mean '%s'?)", v, sug);
        else
            DIAG_AT(x, F_BOARD, s, "unknown power source '%s' (auto, none, tegrastats, ina3221, "
                    "nvml)", v);
        return;
    }
    tb_strlcpy(x->c->board.power.source, v, TB_STR);
}

/* ---- generic settings ------------------------------------------------------------- */

static void load_scalar(struct load_ctx *x, const struct schema *sc, config_setting_t *s)
{
    char *base = (char *)x->c;
    int t = config_setting_type(s);
    switch (sc->type) {
    case S_INT: {
        if (!is_int(s)) {
            DIAG_AT(x, sc->file, s, "'%s' must be an integer, got %s", sc->path, type_name(t));
            return;
        }
        long long v = config_setting_get_int64(s);
        if (v < sc->min || v > sc->max) {
            DIAG_AT(x, sc->file, s, "'%s' must be between %.0f and %.0f, got %lld", sc->path,
                    sc->min, sc->max, v);
            return;
        }
        *(int *)(base + sc->off) = (int)v;
        return;
    }
    case S_FLOAT: {
        double v;
        if (t == CONFIG_TYPE_FLOAT)
            v = config_setting_get_float(s);
        else if (is_int(s))
            v = (double)config_setting_get_int64(s);
        else {
            DIAG_AT(x, sc->file, s, "'%s' must be a number, got %s", sc->path, type_name(t));
            return;
        }
        if (!(v >= sc->min && v <= sc->max)) {
            DIAG_AT(x, sc->file, s, "'%s' must be between %g and %g, got %g", sc->path, sc->min,
                    sc->max, v);
            return;
        }
        *(double *)(base + sc->off) = v;
        return;
    }
    case S_BOOL:
        if (t != CONFIG_TYPE_BOOL) {
            DIAG_AT(x, sc->file, s, "'%s' must be true or false, got %s", sc->path, type_name(t));
            return;
        }
        *(bool *)(base + sc->off) = config_setting_get_bool(s);
        return;
    case S_STRING: {
        if (t != CONFIG_TYPE_STRING) {
            DIAG_AT(x, sc->file, s, "'%s' must be a string, got %s", sc->path, type_name(t));
            return;
        }
        const char *v = config_setting_get_string(s);
        if (sc->choices) {
            char list[TB_STR];
            tb_strlcpy(list, sc->choices, sizeof(list));
            bool found = false;
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
                found |= !strcmp(tok, v);
            if (!found) {
                DIAG_AT(x, sc->file, s, "'%s' must be one of %s, got '%s'", sc->path, sc->choices,
                        v);
                return;
            }
        }
        if (strlen(v) >= TB_STR) {
            DIAG_AT(x, sc->file, s, "'%s' is longer than %d characters", sc->path, TB_STR - 1);
            return;
        }
        tb_strlcpy(base + sc->off, v, TB_STR);
        return;
    }
    default:
        return;
    }
}

static void suggest_unknown(struct load_ctx *x, int file, config_setting_t *s, const char *path)
{
    const char *cands[ARRAY_SIZE(schema)];
    size_t n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(schema); i++)
        if (schema[i].file == file)
            cands[n++] = schema[i].path;
    const char *sug = tb_suggest(path, cands, n);
    const char *other = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(schema); i++)
        if (schema[i].file != file && !strcmp(schema[i].path, path))
            other = file_kind[schema[i].file];
    if (other)
        DIAG_AT(x, file, s, "'%s' belongs in the %s file, not the %s file", path, other,
                file_kind[file]);
    else if (sug)
        DIAG_AT(x, file, s, "unknown setting '%s' (did you mean '%s'?)", path, sug);
    else
        DIAG_AT(x, file, s, "unknown setting '%s'", path);
}

/* Walks every setting in a file: unknown names are errors; known ones are loaded. */
static void walk(struct load_ctx *x, int file, config_setting_t *g)
{
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        char path[TB_STR];
        setting_path(s, path, sizeof(path));
        const struct schema *sc = schema_find(path);
        if (!sc || sc->file != file) {
            suggest_unknown(x, file, s, path);
            continue;
        }
        if (sc->type == S_GROUP) {
            if (!config_setting_is_group(s)) {
                DIAG_AT(x, file, s, "'%s' must be a group { ... }, got %s", path,
                        type_name(config_setting_type(s)));
                continue;
            }
            walk(x, file, s);
        } else if (sc->type == S_CUSTOM) {
            sc->custom(x, s);
        } else {
            load_scalar(x, sc, s);
        }
    }
}

/* ---- overrides -------------------------------------------------------------------- */

int tb_config_add_override(struct tb_config *c, const char *path, const char *value,
                           const char *label)
{
    struct tb_override *o = realloc(c->ovr, (c->n_ovr + 1) * sizeof(*o));
    if (!o)
        return -ENOMEM;
    c->ovr = o;
    o[c->n_ovr].path = strdup(path);
    o[c->n_ovr].value = strdup(value);
    o[c->n_ovr].label = strdup(label);
    c->n_ovr++;
    return 0;
}

bool tb_config_override(const struct tb_config *c, const char *path, char *buf, size_t n)
{
    for (size_t i = c->n_ovr; i-- > 0;)
        if (!strcmp(c->ovr[i].path, path)) {
            const char *v = c->ovr[i].value;
            size_t l = strlen(v);
            if (l >= 2 && v[0] == '"' && v[l - 1] == '"')
                snprintf(buf, n, "%.*s", (int)(l - 2), v + 1);
            else
                snprintf(buf, n, "%s", v);
            return true;
        }
    return false;
}

int tb_config_add_set(struct tb_config *c, const char *arg, struct tb_diag *d)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        tb_diag_add(d, "--set '%s': expected KEY=VALUE, e.g. --set sweep.warmup=5", arg);
        return -1;
    }
    char path[TB_STR], label[TB_STR + 16];
    size_t l = (size_t)(eq - arg) < sizeof(path) - 1 ? (size_t)(eq - arg) : sizeof(path) - 1;
    memcpy(path, arg, l);
    path[l] = '\0';
    snprintf(label, sizeof(label), "--set %s", arg);
    return tb_config_add_override(c, path, eq + 1, label);
}

static int copy_setting(config_setting_t *parent, const char *name, const config_setting_t *src)
{
    int t = config_setting_type(src);
    config_setting_t *dst = config_setting_add(parent, name, t);
    if (!dst)
        return -1;
    switch (t) {
    case CONFIG_TYPE_INT: config_setting_set_int(dst, config_setting_get_int(src)); break;
    case CONFIG_TYPE_INT64: config_setting_set_int64(dst, config_setting_get_int64(src)); break;
    case CONFIG_TYPE_FLOAT: config_setting_set_float(dst, config_setting_get_float(src)); break;
    case CONFIG_TYPE_BOOL: config_setting_set_bool(dst, config_setting_get_bool(src)); break;
    case CONFIG_TYPE_STRING: config_setting_set_string(dst, config_setting_get_string(src)); break;
    default:
        for (int i = 0; i < config_setting_length(src); i++) {
            const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
            if (copy_setting(dst, t == CONFIG_TYPE_GROUP ? config_setting_name(e) : NULL, e) < 0)
                return -1;
        }
    }
    return 0;
}

/* libconfig 1.5 (JetPack 4, Debian 12) reads an integer literal outside 32 bits without an
 * L suffix as a wrapped 32-bit value (4294967297 becomes 1). This scan of the text finds
 * such literals before libconfig does, so they are refused with their line, never used. */
static void check_wraps(const char *text, const char *where, bool has_lines, struct tb_diag *d)
{
    int line = 1;
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            line++;
            p++;
        } else if (*p == '"') {                                  /* a string */
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
                else if (*p == '\n')
                    line++;
            if (*p)
                p++;
        } else if (*p == '#' || (*p == '/' && p[1] == '/')) {   /* a line comment */
            while (*p && *p != '\n')
                p++;
        } else if (*p == '/' && p[1] == '*') {                  /* a block comment */
            for (p += 2; *p && !(*p == '*' && p[1] == '/'); p++)
                line += *p == '\n';
            p += *p ? 2 : 0;
        } else if (isdigit((unsigned char)*p) &&
                   (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.'))) {
            const char *start = p;
            bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
            p += hex ? 2 : 0;
            while (isxdigit((unsigned char)*p) && (hex || isdigit((unsigned char)*p)))
                p++;
            bool fp = !hex && (*p == '.' || *p == 'e' || *p == 'E');
            bool wide = *p == 'L';
            if (fp) {
                while (isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+')
                    p++;
                continue;
            }
            errno = 0;
            unsigned long long v = strtoull(start, NULL, hex ? 16 : 10);
            bool neg = start > text && start[-1] == '-';
            if (!wide && (errno == ERANGE || v > (neg ? 2147483648ULL : 2147483647ULL))) {
                if (has_lines)
                    tb_diag_add(d, "%s:%d: the integer %s%.*s does not fit in 32 bits; libconfig 1.5 "
                                "would wrap it: write %s%.*sL if you mean it", where, line,
                                neg ? "-" : "", (int)(p - start), start, neg ? "-" : "",
                                (int)(p - start), start);
                else
                    tb_diag_add(d, "%s: the integer %s%.*s does not fit in 32 bits; libconfig 1.5 "
                                "would wrap it: write %s%.*sL if you mean it", where,
                                neg ? "-" : "", (int)(p - start), start, neg ? "-" : "",
                                (int)(p - start), start);
            }
            while (isalnum((unsigned char)*p))
                p++;
        } else {
            p++;
        }
    }
}

/* The file's text through check_wraps; -1 when it has a wrapped integer. */
static int check_file_wraps(const char *path, struct tb_diag *d)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;   /* libconfig reports it */
    char *text = calloc(1, TB_CONFIG_MAX_BYTES + 1);
    if (!text) {
        fclose(f);
        return 0;
    }
    size_t n = fread(text, 1, TB_CONFIG_MAX_BYTES, f);
    fclose(f);
    text[n] = '\0';
    size_t before = d->n;
    check_wraps(text, path, true, d);
    free(text);
    return d->n > before ? -1 : 0;
}

/* Parses value as libconfig text; a bare word is taken as a string. */
static int parse_value(config_t *tmp, const char *value)
{
    char *buf = malloc(strlen(value) * 2 + 16);
    if (!buf)
        return -1;
    sprintf(buf, "v = %s;", value);
    config_init(tmp);
    if (config_read_string(tmp, buf) == CONFIG_TRUE) {
        free(buf);
        return 0;
    }
    config_destroy(tmp);
    char *p = buf + sprintf(buf, "v = \"");
    for (const char *q = value; *q; q++) {
        if (*q == '"' || *q == '\\')
            *p++ = '\\';
        *p++ = *q;
    }
    strcpy(p, "\";");
    config_init(tmp);
    int rc = config_read_string(tmp, buf) == CONFIG_TRUE ? 0 : -1;
    if (rc)
        config_destroy(tmp);
    free(buf);
    return rc;
}

static void apply_override(struct tb_config *c, const struct tb_override *o, struct tb_diag *d)
{
    char first[TB_STR];
    tb_strlcpy(first, o->path, sizeof(first));
    char *dot = strchr(first, '.');
    if (dot)
        *dot = '\0';
    int file = -1;
    for (size_t i = 0; i < ARRAY_SIZE(schema); i++)
        if (!strcmp(schema[i].path, first))
            file = schema[i].file;
    const struct schema *sc = schema_find(o->path);
    if (file < 0 || !sc) {
        const char *cands[ARRAY_SIZE(schema)];
        for (size_t i = 0; i < ARRAY_SIZE(schema); i++)
            cands[i] = schema[i].path;
        const char *sug = tb_suggest(o->path, cands, ARRAY_SIZE(schema));
        if (sug)
            tb_diag_add(d, "%s: unknown setting '%s' (did you mean '%s'?)", o->label, o->path, sug);
        else
            tb_diag_add(d, "%s: unknown setting '%s'", o->label, o->path);
        return;
    }
    if (sc->type == S_GROUP) {
        tb_diag_add(d, "%s: '%s' is a group; set one of its settings", o->label, o->path);
        return;
    }
    size_t before = d->n;
    check_wraps(o->value, o->label, false, d);
    if (d->n > before)
        return;
    config_t tmp;
    if (parse_value(&tmp, o->value) < 0) {
        tb_diag_add(d, "%s: cannot parse value '%s'", o->label, o->value);
        return;
    }
    config_setting_t *parent = config_root_setting(&c->files[file]);
    char path[TB_STR];
    tb_strlcpy(path, o->path, sizeof(path));
    char *save = NULL;
    char *tok = strtok_r(path, ".", &save);
    for (char *next; (next = strtok_r(NULL, ".", &save)); tok = next) {
        config_setting_t *g = config_setting_get_member(parent, tok);
        if (!g)
            g = config_setting_add(parent, tok, CONFIG_TYPE_GROUP);
        if (!g || !config_setting_is_group(g)) {
            tb_diag_add(d, "%s: '%s' is not a group", o->label, tok);
            config_destroy(&tmp);
            return;
        }
        parent = g;
    }
    if (config_setting_get_member(parent, tok))
        config_setting_remove(parent, tok);
    if (copy_setting(parent, tok, config_lookup(&tmp, "v")) < 0)
        tb_diag_add(d, "%s: cannot apply", o->label);
    config_destroy(&tmp);
}

/* ---- loading ---------------------------------------------------------------------- */

static void set_defaults(struct tb_config *c)
{
    struct tb_sweep_cfg *s = &c->sweep;
    s->warmup = 3;
    tb_strlcpy(s->element, "float", TB_STR);
    s->elem_size = 4;
    s->min_reps = 10;
    s->max_reps = 1000;
    s->min_time_ms = 100;
    s->max_time_ms = 2000;
    s->rel_spread = 0.005;
    s->verify = true;
    tb_strlcpy(s->cache, "warm", TB_STR);
    tb_strlcpy(s->out_dir, "logs", TB_STR);
    s->gzip_level = 6;
    s->tune_seconds = 600;
    struct tb_board_cfg *b = &c->board;
    tb_strlcpy(b->power.source, "auto", TB_STR);
    b->power.interval_ms = 50;
    b->power.window_ms = 1000;
    b->power.idle_ms = 1000;
    tb_strlcpy(b->power.sysfs_root, "/", TB_STR);
    tb_strlcpy(b->power.tegrastats_command, "tegrastats", TB_STR);
}

void tb_config_init(struct tb_config *c)
{
    memset(c, 0, sizeof(*c));
    set_defaults(c);
}

static int read_file(struct tb_config *c, int file, const char *path, struct tb_diag *d)
{
    struct stat st;
    config_init(&c->files[file]);
    c->loaded[file] = true;
    if (!path) /* no file: settings come from defaults and overrides */
        return 0;
    if (stat(path, &st) < 0) {
        tb_diag_add(d, "cannot read %s file '%s': %s", file_kind[file], path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        tb_diag_add(d, "%s: is a directory, not a %s file", path, file_kind[file]);
        return -1;
    }
    if (st.st_size > TB_CONFIG_MAX_BYTES) {
        tb_diag_add(d, "%s: %lld bytes is too large for a %s file (limit %d)", path,
                    (long long)st.st_size, file_kind[file], TB_CONFIG_MAX_BYTES);
        return -1;
    }
    if (check_file_wraps(path, d) < 0)
        return -1;
    if (config_read_file(&c->files[file], path) != CONFIG_TRUE) {
        int line = config_error_line(&c->files[file]);
        const char *f = config_error_file(&c->files[file]);
        if (config_error_type(&c->files[file]) == CONFIG_ERR_FILE_IO)
            tb_diag_add(d, "cannot read %s file '%s': %s", file_kind[file], path,
                        errno ? strerror(errno) : "I/O error");
        else
            tb_diag_add(d, "%s:%d: %s", f ? f : path, line, config_error_text(&c->files[file]));
        return -1;
    }
    return 0;
}

int tb_config_load(struct tb_config *c, const char *sweep_path, const char *board_path,
                   struct tb_diag *d)
{
    size_t before = d->n;
    tb_strlcpy(c->sweep_path, sweep_path ? sweep_path : "(no sweep file)", TB_STR);
    tb_strlcpy(c->board_path, board_path ? board_path : "(no board file)", TB_STR);
    int ok_s = read_file(c, F_SWEEP, sweep_path, d);
    int ok_b = read_file(c, F_BOARD, board_path, d);
    for (size_t i = 0; i < c->n_ovr; i++)
        apply_override(c, &c->ovr[i], d);

    struct load_ctx x = { c, d };
    if (ok_s == 0)
        walk(&x, F_SWEEP, config_root_setting(&c->files[F_SWEEP]));
    if (ok_b == 0)
        walk(&x, F_BOARD, config_root_setting(&c->files[F_BOARD]));

    if (ok_s == 0 && sweep_path) {
        bool pts = config_lookup(&c->files[F_SWEEP], "sweep.points") != NULL;
        if (!pts && !c->sweep.n_kernels && !config_lookup(&c->files[F_SWEEP], "sweep.kernels"))
            tb_diag_add(d, "%s: missing setting 'sweep.kernels'", c->sweep_path);
        if (!pts && !c->sweep.n_sizes && !config_lookup(&c->files[F_SWEEP], "sweep.sizes"))
            tb_diag_add(d, "%s: missing setting 'sweep.sizes'", c->sweep_path);
        if (!config_lookup(&c->files[F_SWEEP], "sweep.blocks") && !c->sweep.n_blocks) {
            /* a sensible default: the classic 32x8 */
            c->sweep.blocks = calloc(1, sizeof(*c->sweep.blocks));
            c->sweep.blocks[0].x = 32;
            c->sweep.blocks[0].y = 8;
            snprintf(c->sweep.blocks[0].at.text, sizeof(c->sweep.blocks[0].at.text), "%s",
                     c->sweep_path);
            c->sweep.n_blocks = 1;
        }
        if (c->sweep.max_reps < c->sweep.min_reps) {
            config_setting_t *s = config_lookup(&c->files[F_SWEEP], "sweep.stop.max_reps");
            DIAG_AT(&x, F_SWEEP, s, "'sweep.stop.max_reps' (%d) is below 'sweep.stop.min_reps' (%d)",
                    c->sweep.max_reps, c->sweep.min_reps);
        }
    }
    if (ok_b == 0 && board_path && !c->board.name[0])
        tb_diag_add(d, "%s: missing setting 'board.name'", c->board_path);
    if (!c->board.name[0])
        tb_strlcpy(c->board.name, "generic", TB_STR);
    return (int)(d->n - before);
}

/* A kernel name for the backend: the row, or NULL with the problem added to d. */
static const struct tb_kernel *check_kernel_name(const struct tb_config *c,
                                                 const struct tb_backend *be, const char *name,
                                                 const char *at, struct tb_diag *d)
{
    const struct tb_sweep_cfg *s = &c->sweep;
    const struct tb_kernel *k = tb_kernel_find(name, be->id);
    if (k && !(k->elem_sizes & (1u << s->elem_size))) {
        tb_diag_add(d, "%s: kernel '%s' does not support element type '%s'", at, name, s->element);
        return NULL;
    }
    if (k && !tb_kernel_built(k)) {
        tb_diag_add(d, "%s: kernel '%s' is not available: %s", at, name, k->unavailable);
        return NULL;
    }
    if (k)
        return k;
    const char *cands[64];
    size_t n = 0;
    for (const struct tb_kernel *q = tb_kernels; q->name && n < 64; q++)
        if (q->backend == be->id)
            cands[n++] = q->name;
    const struct tb_kernel *other = tb_kernel_find(name, be->id == TB_BACKEND_CPU ?
                                                   TB_BACKEND_CUDA : TB_BACKEND_CPU);
    const char *sug = tb_suggest(name, cands, n);
    if (other)
        tb_diag_add(d, "%s: kernel '%s' exists on the %s backend, not on %s (this run uses %s)",
                    at, name, tb_backend_name(other->backend), be->name, be->name);
    else if (sug)
        tb_diag_add(d, "%s: unknown kernel '%s' (did you mean '%s'?)", at, name, sug);
    else
        tb_diag_add(d, "%s: unknown kernel '%s' (see 'transpose-bench list')", at, name);
    return NULL;
}

int tb_config_check_device(const struct tb_config *c, const struct tb_backend *be,
                           const struct tb_device_info *dev, struct tb_diag *d)
{
    size_t before = d->n;
    const struct tb_sweep_cfg *s = &c->sweep;
    for (size_t i = 0; i < s->n_kernels; i++)
        if (strcmp(s->kernels[i], "*"))
            check_kernel_name(c, be, s->kernels[i], s->kernel_at[i], d);
    for (size_t i = 0; i < s->n_points; i++) {
        const struct tb_point_cfg *p = &s->points[i];
        const struct tb_kernel *k = check_kernel_name(c, be, p->kernel, p->at.text, d);
        char why[160];
        if (k && !tb_kernel_block_ok(k, p->x, p->y, why, sizeof(why)))
            tb_diag_add(d, "%s: %s", p->at.text, why);
        if ((long)p->x * p->y > dev->max_threads_per_block)
            tb_diag_add(d, "%s: block %dx%d has %ld threads, above the device's limit of %d",
                        p->at.text, p->x, p->y, (long)p->x * p->y, dev->max_threads_per_block);
    }
    for (size_t i = 0; i < s->n_blocks; i++) {
        long threads = (long)s->blocks[i].x * s->blocks[i].y;
        if (threads > dev->max_threads_per_block)
            tb_diag_add(d, "%s: block %dx%d has %ld threads, above the device's limit of %d",
                        s->blocks[i].at.text, s->blocks[i].x, s->blocks[i].y, threads,
                        dev->max_threads_per_block);
    }
    for (size_t i = 0; i < s->n_sizes + s->n_points; i++) {
        bool is_size = i < s->n_sizes;
        long rows = is_size ? s->sizes[i].rows : s->points[i - s->n_sizes].rows;
        long cols = is_size ? s->sizes[i].cols : s->points[i - s->n_sizes].cols;
        const char *at = is_size ? s->sizes[i].at.text : s->points[i - s->n_sizes].at.text;
        size_t elems, bytes, both;
        if (tb_mul_overflow((size_t)rows, (size_t)cols, &elems) ||
            tb_mul_overflow(elems, (size_t)s->elem_size, &bytes) ||
            tb_mul_overflow(bytes, 2, &both)) {
            tb_diag_add(d, "%s: size %ldx%ld overflows a byte count", at, rows, cols);
            continue;
        }
        if (dev->mem_bytes && both > dev->mem_bytes)
            tb_diag_add(d, "%s: size %ldx%ld needs %.2f GiB for input and output, more than the "
                        "device's %.2f GiB", at, rows, cols, (double)both / (1 << 30),
                        (double)dev->mem_bytes / (1 << 30));
    }
    return (int)(d->n - before);
}

/* ---- dump ------------------------------------------------------------------------- */

/* One list setting as "path = ( item, item );": fmt_item writes item i into buf. */
static void dump_list(const char *path, const char *open, const char *close, size_t n,
                      void (*fmt_item)(const struct tb_sweep_cfg *, size_t, char *, size_t),
                      const struct tb_sweep_cfg *s, tb_config_emit_fn emit, void *ctx)
{
    char buf[2048], item[256];
    size_t len = (size_t)snprintf(buf, sizeof(buf), "%s", open);
    for (size_t i = 0; i < n && len < sizeof(buf); i++) {
        fmt_item(s, i, item, sizeof(item));
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : " ", item);
    }
    if (len < sizeof(buf))
        snprintf(buf + len, sizeof(buf) - len, " %s", close);
    emit(ctx, path, buf);
}

static void fmt_kernel(const struct tb_sweep_cfg *s, size_t i, char *b, size_t n)
{
    snprintf(b, n, "\"%s\"", s->kernels[i]);
}

/* An integer as libconfig 1.5 reads it back: with L beyond 32 bits. */
static const char *int_suffix(long v) { return v > 2147483647L || v < -2147483647L ? "L" : ""; }

static void fmt_size(const struct tb_sweep_cfg *s, size_t i, char *b, size_t n)
{
    snprintf(b, n, "[%ld%s, %ld%s]", s->sizes[i].rows, int_suffix(s->sizes[i].rows),
             s->sizes[i].cols, int_suffix(s->sizes[i].cols));
}

static void fmt_block(const struct tb_sweep_cfg *s, size_t i, char *b, size_t n)
{
    snprintf(b, n, "[%d, %d]", s->blocks[i].x, s->blocks[i].y);
}

void tb_config_dump(const struct tb_config *c, tb_config_emit_fn emit, void *ctx)
{
    char buf[2048], path[TB_STR];
    const struct tb_sweep_cfg *s = &c->sweep;
    dump_list("sweep.kernels", "[", "]", s->n_kernels, fmt_kernel, s, emit, ctx);
    dump_list("sweep.sizes", "(", ")", s->n_sizes, fmt_size, s, emit, ctx);
    dump_list("sweep.blocks", "(", ")", s->n_blocks, fmt_block, s, emit, ctx);
    for (size_t i = 0; i < s->n_points; i++) {
        snprintf(path, sizeof(path), "sweep.points[%zu]", i);
        snprintf(buf, sizeof(buf), "{ kernel = \"%s\"; size = [%ld%s, %ld%s]; block = [%d, %d]; }",
                 s->points[i].kernel, s->points[i].rows, int_suffix(s->points[i].rows),
                 s->points[i].cols, int_suffix(s->points[i].cols), s->points[i].x, s->points[i].y);
        emit(ctx, path, buf);
    }
    snprintf(buf, sizeof(buf), "\"%s\"", s->element);
    emit(ctx, "sweep.element", buf);
    const char *base = (const char *)c;
    for (size_t i = 0; i < ARRAY_SIZE(schema); i++) {
        const struct schema *sc = &schema[i];
        switch (sc->type) {
        case S_INT: snprintf(buf, sizeof(buf), "%d", *(const int *)(base + sc->off)); break;
        case S_FLOAT: snprintf(buf, sizeof(buf), "%g", *(const double *)(base + sc->off)); break;
        case S_BOOL: snprintf(buf, sizeof(buf), "%s", *(const bool *)(base + sc->off) ? "true" : "false"); break;
        case S_STRING: snprintf(buf, sizeof(buf), "\"%s\"", base + sc->off); break;
        default: continue;
        }
        emit(ctx, sc->path, buf);
    }
    snprintf(buf, sizeof(buf), "\"%s\"", c->board.power.source);
    emit(ctx, "power.source", buf);
}

void tb_config_free(struct tb_config *c)
{
    free_strv(c->sweep.kernels, c->sweep.n_kernels);
    free_strv(c->sweep.kernel_at, c->sweep.n_kernels);
    free(c->sweep.sizes);
    free(c->sweep.blocks);
    free(c->sweep.points);
    for (int i = 0; i < 2; i++)
        if (c->loaded[i])
            config_destroy(&c->files[i]);
    for (size_t i = 0; i < c->n_ovr; i++) {
        free(c->ovr[i].path);
        free(c->ovr[i].value);
        free(c->ovr[i].label);
    }
    free(c->ovr);
    memset(c, 0, sizeof(*c));
}

int tb_config_peek_board(const char *path, char *name, size_t name_n, char *model, size_t model_n,
                         char *gpu, size_t gpu_n)
{
    config_t cf;
    config_init(&cf);
    if (config_read_file(&cf, path) != CONFIG_TRUE) {
        config_destroy(&cf);
        return -1;
    }
    const char *v;
    name[0] = model[0] = gpu[0] = '\0';
    if (config_lookup_string(&cf, "board.name", &v))
        tb_strlcpy(name, v, name_n);
    const config_setting_t *m = config_lookup(&cf, "board.match.model");
    if (m)
        models_join(m, model, model_n);
    if (config_lookup_string(&cf, "board.match.gpu", &v))
        tb_strlcpy(gpu, v, gpu_n);
    config_destroy(&cf);
    return 0;
}
