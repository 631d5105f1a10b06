/* config/config.c: the schema of every setting (type, limits, default, one line of help) and the
 * loader: both files read through the guard, overrides applied, every setting walked
 * against the schema with all problems collected by FILE:LINE; then the resolved dump.
 * Not here: list settings (lists.c), --set (set.c), reading files safely
 * (guard.c), anything about a device (point_rules.c). */
#include "config/config.h"
#include "config/internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elements.h"
#include "lib/util.h"

const char *const tb_config_file_kind[2] = { "sweep", "board" };

/* ---- schema ----------------------------------------------------------------------- */

#define SW(f) offsetof(struct tb_config, sweep.f)
#define BO(f) offsetof(struct tb_config, board.f)
#define GROUP(p, fl, d) { .path = p, .file = fl, .type = S_GROUP, .doc = d }
#define CUSTOM(p, fl, fn, o, dflt, d) \
    { .path = p, .file = fl, .type = S_CUSTOM, .custom = fn, .off = o, .def_s = dflt, .doc = d }
#define INT(p, fl, o, lo, hi, dflt, d) \
    { .path = p, .file = fl, .type = S_INT, .off = o, .min = lo, .max = hi, .def = dflt, .doc = d }
#define FLOAT(p, fl, o, lo, hi, dflt, d) \
    { .path = p, .file = fl, .type = S_FLOAT, .off = o, .min = lo, .max = hi, .def = dflt, .doc = d }
/* a physical quantity whose 0 says "not known" or "none": 0, or within [lo, hi] (so a
 * 1e-300 GB/s peak, which printed frac_peak with 308 digits, is refused at load) */
#define FLOAT0(p, fl, o, lo, hi, dflt, d) \
    { .path = p, .file = fl, .type = S_FLOAT, .off = o, .min = lo, .max = hi, .zero_ok = true, \
      .def = dflt, .doc = d }
#define BOOL(p, fl, o, dflt, d) { .path = p, .file = fl, .type = S_BOOL, .off = o, .def = dflt, .doc = d }
#define STRING(p, fl, o, ch, dflt, d) \
    { .path = p, .file = fl, .type = S_STRING, .off = o, .choices = ch, .def_s = dflt, .doc = d }
#define S TB_CFG_SWEEP
#define B TB_CFG_BOARD

/* Custom rows with an offset keep a string there (their default is def_s); the others
 * (lists) default to empty, but sweep.blocks to its def_s when the sweep file has none. */
const struct tb_cfg_row tb_config_schema[] = {
    GROUP("sweep", S, "what to measure"),
    CUSTOM("sweep.kernels", S, tb_config_load_kernels, 0, NULL,
           "kernel names, [\"*\"] for every kernel of the backend, or \"best\" for its fast ones (the fastest shown)"),
    CUSTOM("sweep.sizes", S, tb_config_load_sizes, 0, NULL, "( [rows, cols], ... )"),
    CUSTOM("sweep.blocks", S, tb_config_load_blocks, 0, "32x8",
           "( [x, y], ... ); the classic 32x8 when not given"),
    CUSTOM("sweep.points", S, tb_config_load_points, 0, NULL,
           "( { kernel = \"tiled\"; size = [r, c]; block = [x, y]; }, ... ) instead of the product"),
    INT("sweep.warmup", S, SW(warmup), 0, 1e6, 3, "untimed launches first"),
    CUSTOM("sweep.element", S, tb_config_load_element, SW(element), "float",
           "element type: u8, f16, float or double (1, 2, 4, 8 bytes; aliases in elements.c)"),
    BOOL("sweep.verify", S, SW(verify), true, "check each point's output against the reference"),
    STRING("sweep.cache", S, SW(cache), "warm,cold", "warm",
           "warm: as a real program sees it; cold: cache flushed before each repetition"),
    GROUP("sweep.stop", S, "the stopping rule"),
    INT("sweep.stop.min_reps", S, SW(min_reps), 1, 1e7, 10, "at least this many timed repetitions"),
    INT("sweep.stop.max_reps", S, SW(max_reps), 1, 1e7, 1000, "at most this many timed repetitions"),
    FLOAT("sweep.stop.min_time_ms", S, SW(min_time_ms), 0, 1e9, 100,
          "and at least this much measured time, ms"),
    FLOAT("sweep.stop.max_time_ms", S, SW(max_time_ms), 0.001, 1e9, 2000,
          "stop a point after this much wall time, ms"),
    FLOAT("sweep.stop.rel_spread", S, SW(rel_spread), 0, 10, 0.005,
          "stop once the standard error of the mean / mean is below this"),
    CUSTOM("sweep.power_modes", S, tb_config_load_power_modes, 0, NULL,
           "nvpmodel modes to sweep, names or ids of /etc/nvpmodel.conf (Jetson; empty: the "
           "mode is never changed)"),
    CUSTOM("sweep.gpu_max_mhz", S, tb_config_load_clock_caps, 0, NULL,
           "GPU clock caps to sweep in each mode, MHz (devfreq max_freq; empty: none set)"),
    CUSTOM("sweep.emc_max_mhz", S, tb_config_load_clock_caps, 0, NULL,
           "memory (EMC) clock caps to sweep in each mode, MHz (the nvpmodel EMC cap; empty: none)"),
    GROUP("tune", S, "the autotuner"),
    FLOAT("tune.seconds", S, SW(tune_seconds), 1, 1e6, 600,
          "time budget of `tune`: no new point starts after it"),
    GROUP("output", S, "where logs go"),
    STRING("output.dir", S, SW(out_dir), NULL, "logs", "log directory"),
    STRING("output.metrics_file", S, SW(metrics_file), NULL, NULL,
           "the night's figures in Prometheus' text format, e.g. node_exporter's textfile "
           "folder/transpose_bench.prom (run --metrics)"),
    INT("output.gzip_level", S, SW(gzip_level), 1, 9, 6, "1 fast .. 9 small"),
    INT("output.keep_logs", S, SW(keep_logs), 0, 1e6, 0, "keep the newest N logs of this tool (0: all)"),
    INT("output.keep_days", S, SW(keep_days), 0, 1e5, 0,
        "remove this tool's logs older than N days (0: never)"),

    GROUP("board", B, "the board"),
    STRING("board.name", B, BO(name), NULL, NULL, "short name, used in log names"),
    GROUP("board.match", B, "how to recognise it"),
    CUSTOM("board.match.model", B, tb_config_load_models, 0, NULL,
           "substring of /proc/device-tree/model, or a list of them (L4T releases differ)"),
    STRING("board.match.gpu", B, BO(match_gpu), NULL, NULL, "substring of the GPU name"),
    STRING("board.arch", B, BO(arch), NULL, NULL, "GPU architecture, sm_XY"),
    STRING("board.sms", B, BO(sms), NULL, NULL, "the GPU architectures make builds for, e.g. \"53\" (SMS=)"),
    STRING("board.cpu", B, BO(cpu), "aarch64,x86_64", NULL,
           "the board's CPU, for `make dist` (aarch64 on every Jetson)"),
    STRING("board.cuda", B, BO(cuda), NULL, NULL,
           "the CUDA version of the board's JetPack (its driver loads no newer kernel images)"),
    STRING("board.ptx_isa", B, BO(ptx_isa), NULL, NULL,
           "the newest PTX ISA the board's driver JIT-compiles, e.g. \"6.5\" (make builds PTX at it)"),
    BOOL("board.gpu", B, BO(has_gpu), false,
         "the board has a GPU: a run that cannot use it fails unless --device cpu"),
    FLOAT0("board.max_power_w", B, BO(power.max_power_w), 0.5, 1e4, 0,
          "most the board can draw: readings above it (or below 0) are dropped (0: no ceiling)"),
    FLOAT0("board.peak_gbps", B, BO(peak_gbps), 0.1, 1e5, 0,
          "theoretical peak memory bandwidth, GB/s (0: unknown)"),
    INT("board.dram_bus_bits", B, BO(dram_bus_bits), 0, 8192, 0,
        "DRAM bus width in bits (0: unknown); with dram_mts the peak is bits/8 x MT/s / 1000 GB/s"),
    INT("board.dram_mts", B, BO(dram_mts), 0, 40000, 0,
        "DRAM data rate at the board's full memory clock, MT/s (0: unknown)"),
    STRING("board.dram_type", B, BO(dram_type), "LPDDR4,LPDDR4x,LPDDR5", NULL,
           "memory type: how many transfers one EMC clock makes (ceiling.c)"),
    GROUP("power", B, "power measurement"),
    CUSTOM("power.source", B, tb_config_load_power_source, BO(power.source), "auto",
           "auto, none, tegrastats, ina3221, nvml"),
    INT("power.interval_ms", B, BO(power.interval_ms), 1, 60000, 50, "sampling interval"),
    INT("power.window_ms", B, BO(power.window_ms), 10, 600000, 1000,
        "an energy block's measured span, at least (whole sensor updates, at least "
        "power.block_updates of them; the first update after a switch is load, not measured)"),
    INT("power.idle_ms", B, BO(power.idle_ms), 0, 600000, 1000,
        "idle baseline before and after the sweep, at least (0: none); lengthened to hold "
        "power.min_readings updates"),
    INT("power.min_readings", B, BO(power.min_readings), 2, 10000, 10,
        "independent sensor updates the idle baseline must hold (it is lengthened to them): "
        "they also give the cadence where the source does not say it"),
    INT("power.batches", B, BO(power.batches), 1, 64, 4,
        "equal spans of time an idle or warming window is cut into: its interval is the wider "
        "of the readings' and the spans' means' (a drift over seconds; 1: readings only)"),
    INT("power.settle_s", B, BO(power.settle_s), 0, 3600, 10,
        "warming: once a night, before the sweep, load the GPU for exactly this many seconds, "
        "counted in the time the run announces (it brings the device to the load; "
        "interleaving with the copy cancels the drift that remains) (0: none)"),
    FLOAT("power.settle_rel", B, BO(power.settle_rel), 0.0001, 0.1, 0.002,
          "the warming says steady when its last two blocks (5 s at least) have mean powers "
          "within this fraction, or within their 95% intervals (said, not waited for)"),
    INT("power.rounds", B, BO(power.rounds), 1, 64, 3,
        "fewest cycles of interleaved energy blocks per size unless power.budget_s ends them "
        "first (the interval needs 2: 1 counts as 2); more until power.target_rel_ci"),
    FLOAT("power.max_rel_ci", B, BO(power.max_rel_ci), 0.0001, 10, 0.03,
          "a figure whose relative 95% interval is wider than this says so in power_note "
          "(it is printed all the same, never withheld for its width)"),
    STRING("power.sysfs_root", B, BO(power.sysfs_root), NULL, "/",
           "root under which /sys and /proc are read"),
    GROUP("power.tegrastats", B, "tegrastats settings"),
    STRING("power.tegrastats.command", B, BO(power.tegrastats_command), NULL, "tegrastats",
           "command; --interval MS is appended"),
    STRING("power.total_rail", B, BO(power.total_rail), NULL, NULL,
           "rail that is the board's total, or \"sum\" of all rails"),
    STRING("power.gpu_rail", B, BO(power.gpu_rail), NULL, NULL, "rail that feeds the GPU"),
    FLOAT("power.target_rel_ci", B, BO(power.target_rel_ci), 0.0001, 1, 0.01,
          "cycles of energy blocks are added until each figure's relative 95% interval (the one "
          "printed: a ratio's, its mean's; the copy's own J per byte, where a rerun of as many "
          "cycles lands) is this narrow, or power.budget_s is spent"),
    FLOAT("power.budget_s", B, BO(power.budget_s), 1, 3600, 12,
          "most seconds of energy blocks per measured point (its own and its share of the "
          "copy's); it may end the cycles before power.rounds, never before 2"),
    INT("power.block_updates", B, BO(power.block_updates), 1, 1000, 3,
        "clean sensor updates an energy block must hold (a triggered sensor, no averaging: "
        "three times as many)"),
    FLOAT("power.rerun_ratio_sd", B, BO(power.rerun_ratio_sd), 0, 0.5, 0.004,
          "how far a rerun on another night moves a kernel's energy ratio beyond what its "
          "cycles show (a relative sd; 0.2-0.6% on the lent H100 and H200s, not measured on a "
          "Jetson): in energy_ratio_rerun_ci95 until this device's own earlier logs teach it "
          "(it counts as 1 difference of successive runs among them while fewer than 4 are "
          "pooled, an estimate of 1 degree of freedom; 0: no prior, the logs alone teach it)"),
    FLOAT("power.rerun_abs_sd", B, BO(power.rerun_abs_sd), 0, 0.5, 0.008,
          "the same for J per byte (0.3-1% on the lent GPUs): in the intervals of gbps_per_w, "
          "j_per_gb and dyn_pj_per_byte"),
    STRING("power.points", B, BO(power.points), "fastest,all", "fastest",
           "whose energy is measured: the fastest block of each kernel and size, or all points "
           "(the timing sweep covers every point either way)"),
    STRING("power.probe", B, BO(probe), "auto,never,always", "auto",
           "the sensor's step response (probe-power) at a night's start: a kept result for "
           "this board and L4T release is always used; auto: probed first (at most 60 s) when "
           "there is none, the source is the INA3221 rails, the L4T release is known and the "
           "night's energy budget (power.budget_s x points measured x mode steps; a tune's "
           "tune.seconds) is 120 s or more; always: probed every night; never: not probed"),
};
const size_t tb_config_schema_n = ARRAY_SIZE(tb_config_schema);
_Static_assert(ARRAY_SIZE(tb_config_schema) <= TB_CFG_MAX_ROWS, "raise TB_CFG_MAX_ROWS");

#undef S
#undef B

const struct tb_cfg_row *tb_config_row(const char *path)
{
    for (size_t i = 0; i < tb_config_schema_n; i++)
        if (!strcmp(tb_config_schema[i].path, path))
            return &tb_config_schema[i];
    return NULL;
}

/* ---- locations -------------------------------------------------------------------- */

void tb_config_setting_path(const config_setting_t *s, char *buf, size_t n)
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
struct tb_where tb_config_where(const struct tb_config *c, int file, const config_setting_t *s)
{
    struct tb_where w;
    int line = s ? (int)config_setting_source_line(s) : 0;
    if (line > 0) {
        const char *f = config_setting_source_file(s);
        snprintf(w.text, sizeof(w.text), "%s:%d", f ? f : c->sweep_path, line);
        if (!f)
            snprintf(w.text, sizeof(w.text), "%s:%d", file == TB_CFG_SWEEP ? c->sweep_path : c->board_path,
                     line);
        return w;
    }
    if (s) {
        char path[TB_STR];
        tb_config_setting_path(s, path, sizeof(path));
        for (size_t i = c->n_ovr; i-- > 0;) {
            size_t l = strlen(c->ovr[i].path);
            if (!strncmp(path, c->ovr[i].path, l) && (path[l] == '\0' || path[l] == '.')) {
                snprintf(w.text, sizeof(w.text), "%s", c->ovr[i].label);
                return w;
            }
        }
    }
    snprintf(w.text, sizeof(w.text), "%s", file == TB_CFG_SWEEP ? c->sweep_path : c->board_path);
    return w;
}

const char *tb_config_type_name(int t)
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

bool tb_config_is_int(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
}

/* ---- generic settings ------------------------------------------------------------- */

/* A string setting: of its choices where it has some, never empty where it has a default,
 * and within TB_STR. */
static void load_string(struct tb_cfg_load *x, const struct tb_cfg_row *sc, config_setting_t *s,
                        char *base, int t)
{
    if (t != CONFIG_TYPE_STRING) {
        TB_CFG_DIAG(x, sc->file, s, "'%s' must be a string, got %s", sc->path, tb_config_type_name(t));
        return;
    }
    const char *v = config_setting_get_string(s);
    if (!v[0] && sc->def_s) {   /* output.dir = "": no folder; left out, the default */
        TB_CFG_DIAG(x, sc->file, s, "'%s' is empty: give a value, or leave the setting out "
                    "for '%s'", sc->path, sc->def_s);
        return;
    }
    if (sc->choices) {
        char list[TB_STR];
        tb_strlcpy(list, sc->choices, sizeof(list));
        bool found = false;
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
            found |= !strcmp(tok, v);
        if (!found) {
            TB_CFG_DIAG(x, sc->file, s, "'%s' must be one of %s, got '%s'", sc->path, sc->choices,
                    v);
            return;
        }
    }
    if (strlen(v) >= TB_STR) {
        TB_CFG_DIAG(x, sc->file, s, "'%s' is longer than %d characters", sc->path, TB_STR - 1);
        return;
    }
    tb_strlcpy(base + sc->off, v, TB_STR);
}

static void load_scalar(struct tb_cfg_load *x, const struct tb_cfg_row *sc, config_setting_t *s)
{
    char *base = (char *)x->c;
    int t = config_setting_type(s);
    switch (sc->type) {
    case S_INT: {
        if (!tb_config_is_int(s)) {
            TB_CFG_DIAG(x, sc->file, s, "'%s' must be an integer, got %s", sc->path, tb_config_type_name(t));
            return;
        }
        long long v = config_setting_get_int64(s);
        if (v < sc->min || v > sc->max) {
            TB_CFG_DIAG(x, sc->file, s, "'%s' must be between %.0f and %.0f, got %lld", sc->path,
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
        else if (tb_config_is_int(s))
            v = (double)config_setting_get_int64(s);
        else {
            TB_CFG_DIAG(x, sc->file, s, "'%s' must be a number, got %s", sc->path, tb_config_type_name(t));
            return;
        }
        if (sc->zero_ok && v == 0) {
            *(double *)(base + sc->off) = 0;
            return;
        }
        if (!(v >= sc->min && v <= sc->max)) {
            TB_CFG_DIAG(x, sc->file, s, "'%s' must be %sbetween %g and %g, got %g", sc->path,
                        sc->zero_ok ? "0 (none) or " : "", sc->min, sc->max, v);
            return;
        }
        *(double *)(base + sc->off) = v;
        return;
    }
    case S_BOOL:
        if (t != CONFIG_TYPE_BOOL) {
            TB_CFG_DIAG(x, sc->file, s, "'%s' must be true or false, got %s", sc->path, tb_config_type_name(t));
            return;
        }
        *(bool *)(base + sc->off) = config_setting_get_bool(s);
        return;
    case S_STRING:
        load_string(x, sc, s, base, t);
        return;
    default:
        return;
    }
}

static void suggest_unknown(struct tb_cfg_load *x, int file, config_setting_t *s, const char *path)
{
    const char *cands[TB_CFG_MAX_ROWS];
    size_t n = 0;
    for (size_t i = 0; i < tb_config_schema_n; i++)
        if (tb_config_schema[i].file == file)
            cands[n++] = tb_config_schema[i].path;
    const char *sug = tb_suggest(path, cands, n);
    const char *other = NULL;
    for (size_t i = 0; i < tb_config_schema_n; i++)
        if (tb_config_schema[i].file != file && !strcmp(tb_config_schema[i].path, path))
            other = tb_config_file_kind[tb_config_schema[i].file];
    if (other)
        TB_CFG_DIAG(x, file, s, "'%s' belongs in the %s file, not the %s file", path, other,
                tb_config_file_kind[file]);
    else if (sug)
        TB_CFG_DIAG(x, file, s, "unknown setting '%s' (did you mean '%s'?)", path, sug);
    else
        TB_CFG_DIAG(x, file, s, "unknown setting '%s'", path);
}

/* Walks every setting in a file: unknown names are errors; known ones are loaded. */
static void walk(struct tb_cfg_load *x, int file, config_setting_t *g)
{
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        char path[TB_STR];
        tb_config_setting_path(s, path, sizeof(path));
        const struct tb_cfg_row *sc = tb_config_row(path);
        if (!sc || sc->file != file) {
            suggest_unknown(x, file, s, path);
            continue;
        }
        if (sc->type == S_GROUP) {
            if (!config_setting_is_group(s)) {
                TB_CFG_DIAG(x, file, s, "'%s' must be a group { ... }, got %s", path,
                        tb_config_type_name(config_setting_type(s)));
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

/* ---- loading ---------------------------------------------------------------------- */

/* Every row's default, as the schema gives it. */
static void set_defaults(struct tb_config *c)
{
    char *base = (char *)c;
    for (size_t i = 0; i < tb_config_schema_n; i++) {
        const struct tb_cfg_row *r = &tb_config_schema[i];
        if (r->type == S_INT)
            *(int *)(base + r->off) = (int)r->def;
        else if (r->type == S_FLOAT)
            *(double *)(base + r->off) = r->def;
        else if (r->type == S_BOOL)
            *(bool *)(base + r->off) = r->def != 0;
        else if ((r->type == S_STRING || (r->type == S_CUSTOM && r->off)) && r->def_s)
            tb_strlcpy(base + r->off, r->def_s, TB_STR);
    }
    const struct tb_element *e = tb_element_find(c->sweep.element);
    c->sweep.elem_size = e ? e->bytes : 0;
}

void tb_config_init(struct tb_config *c)
{
    memset(c, 0, sizeof(*c));
    set_defaults(c);
}

/* libconfig's parser is bison's: nesting past its stack (some thousands of groups or
 * lists inside one another) ends the parse with bison's "memory exhausted", which says
 * nothing of the cause; a file under the guard's 1 MiB cannot exhaust memory otherwise. */
static bool parser_stack_full(const char *text)
{
    return text && !strcmp(text, "memory exhausted");
}

static int read_file(struct tb_config *c, int file, const char *path, struct tb_diag *d)
{
    config_t *cf = &c->files[file];
    config_init(cf);
    c->loaded[file] = true;
    if (!path) /* no file: settings come from defaults and overrides */
        return 0;
    char *text;
    if (tb_config_guard_file(path, tb_config_file_kind[file], &text, d) < 0)
        return -1;
    /* from the text the guard read, so the file libconfig parses is the one checked */
    int ok = config_read_string(cf, text);
    free(text);
    if (ok != CONFIG_TRUE) {
        const char *f = config_error_file(cf);
        if (config_error_type(cf) == CONFIG_ERR_FILE_IO)
            tb_diag_add(d, "%s:%d: cannot read the @include%s%s: %s", path, config_error_line(cf),
                        f ? " of " : "", f ? f : "", errno ? strerror(errno) : "I/O error");
        else if (parser_stack_full(config_error_text(cf)))
            tb_diag_add(d, "%s:%d: groups, lists or arrays nested too deep (libconfig's parser "
                        "ran out of room there: 'memory exhausted'); nest them less deep",
                        f ? f : path, config_error_line(cf));
        else
            tb_diag_add(d, "%s:%d: %s", f ? f : path, config_error_line(cf), config_error_text(cf));
        return -1;
    }
    return 0;
}

/* What only the whole of the sweep file tells: missing lists, the default blocks, a
 * stopping rule whose maximum is below its minimum. */
static void check_sweep_whole(struct tb_cfg_load *x)
{
    struct tb_config *c = x->c;
    config_t *cf = &c->files[TB_CFG_SWEEP];
    bool pts = config_lookup(cf, "sweep.points") != NULL;
    if (!pts && !c->sweep.n_kernels && !config_lookup(cf, "sweep.kernels"))
        tb_diag_add(x->d, "%s: missing setting 'sweep.kernels'", c->sweep_path);
    if (!pts && !c->sweep.n_sizes && !config_lookup(cf, "sweep.sizes"))
        tb_diag_add(x->d, "%s: missing setting 'sweep.sizes'", c->sweep_path);
    if (!config_lookup(cf, "sweep.blocks") && !c->sweep.n_blocks)
        tb_config_default_blocks(c, c->sweep_path);
    if (c->sweep.max_reps < c->sweep.min_reps) {
        config_setting_t *s = config_lookup(cf, "sweep.stop.max_reps");
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'sweep.stop.max_reps' (%d) is below 'sweep.stop.min_reps' "
                    "(%d)", c->sweep.max_reps, c->sweep.min_reps);
    }
}

/* The DRAM settings come as a set: a width without a rate (or a type) implies no peak. */
static void check_board_whole(struct tb_cfg_load *x)
{
    struct tb_config *c = x->c;
    const struct tb_board_cfg *b = &c->board;
    int given = (b->dram_bus_bits > 0) + (b->dram_mts > 0) + (b->dram_type[0] != '\0');
    if (given == 0 || given == 3)
        return;
    const char *miss = b->dram_bus_bits <= 0 ? "board.dram_bus_bits" :
                       b->dram_mts <= 0 ? "board.dram_mts" : "board.dram_type";
    config_setting_t *s = config_lookup(&c->files[TB_CFG_BOARD], b->dram_bus_bits > 0 ?
                                        "board.dram_bus_bits" : b->dram_mts > 0 ?
                                        "board.dram_mts" : "board.dram_type");
    TB_CFG_DIAG(x, TB_CFG_BOARD, s, "'board.dram_bus_bits', 'board.dram_mts' and "
                "'board.dram_type' go together: '%s' is missing", miss);
}

int tb_config_load(struct tb_config *c, const char *sweep_path, const char *board_path,
                   struct tb_diag *d)
{
    size_t before = d->n;
    tb_strlcpy(c->sweep_path, sweep_path ? sweep_path : "(no sweep file)", TB_STR);
    tb_strlcpy(c->board_path, board_path ? board_path : "(no board file)", TB_STR);
    int ok_s = read_file(c, TB_CFG_SWEEP, sweep_path, d);
    int ok_b = read_file(c, TB_CFG_BOARD, board_path, d);
    tb_config_apply_overrides(c, d);

    struct tb_cfg_load x = { c, d };
    if (ok_s == 0)
        walk(&x, TB_CFG_SWEEP, config_root_setting(&c->files[TB_CFG_SWEEP]));
    if (ok_b == 0)
        walk(&x, TB_CFG_BOARD, config_root_setting(&c->files[TB_CFG_BOARD]));
    if (ok_s == 0 && sweep_path)
        check_sweep_whole(&x);
    if (ok_b == 0)
        check_board_whole(&x);
    if (ok_b == 0 && board_path && !c->board.name[0])
        tb_diag_add(d, "%s: missing setting 'board.name'", c->board_path);
    if (!c->board.name[0])
        tb_strlcpy(c->board.name, "generic", TB_STR);
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

static void fmt_mode(const struct tb_sweep_cfg *s, size_t i, char *b, size_t n)
{
    snprintf(b, n, "\"%s\"", s->power_modes[i]);
}

static void fmt_gpu_cap(const struct tb_sweep_cfg *s, size_t i, char *b, size_t n)
{
    snprintf(b, n, "%ld", s->gpu_max_mhz[i]);
}

static void fmt_emc_cap(const struct tb_sweep_cfg *s, size_t i, char *b, size_t n)
{
    snprintf(b, n, "%ld", s->emc_max_mhz[i]);
}

void tb_config_dump(const struct tb_config *c, tb_config_emit_fn emit, void *ctx)
{
    char buf[2048], path[TB_STR];
    const struct tb_sweep_cfg *s = &c->sweep;
    dump_list("sweep.kernels", "[", "]", s->n_kernels, fmt_kernel, s, emit, ctx);
    dump_list("sweep.sizes", "(", ")", s->n_sizes, fmt_size, s, emit, ctx);
    dump_list("sweep.blocks", "(", ")", s->n_blocks, fmt_block, s, emit, ctx);
    if (s->n_power_modes)
        dump_list("sweep.power_modes", "[", "]", s->n_power_modes, fmt_mode, s, emit, ctx);
    if (s->n_gpu_max_mhz)
        dump_list("sweep.gpu_max_mhz", "[", "]", s->n_gpu_max_mhz, fmt_gpu_cap, s, emit, ctx);
    if (s->n_emc_max_mhz)
        dump_list("sweep.emc_max_mhz", "[", "]", s->n_emc_max_mhz, fmt_emc_cap, s, emit, ctx);
    for (size_t i = 0; i < s->n_points; i++) {
        snprintf(path, sizeof(path), "sweep.points[%zu]", i);
        snprintf(buf, sizeof(buf), "{ kernel = \"%s\"; size = [%ld%s, %ld%s]; block = [%d, %d]; }",
                 s->points[i].kernel, s->points[i].rows, int_suffix(s->points[i].rows),
                 s->points[i].cols, int_suffix(s->points[i].cols), s->points[i].x, s->points[i].y);
        emit(ctx, path, buf);
    }
    const char *base = (const char *)c;
    for (size_t i = 0; i < tb_config_schema_n; i++) {
        const struct tb_cfg_row *sc = &tb_config_schema[i];
        switch (sc->type) {
        case S_INT: snprintf(buf, sizeof(buf), "%d", *(const int *)(base + sc->off)); break;
        case S_FLOAT: snprintf(buf, sizeof(buf), "%g", *(const double *)(base + sc->off)); break;
        case S_BOOL:
            snprintf(buf, sizeof(buf), "%s", *(const bool *)(base + sc->off) ? "true" : "false");
            break;
        case S_STRING: snprintf(buf, sizeof(buf), "\"%s\"", base + sc->off); break;
        case S_CUSTOM:   /* the custom rows that keep a string: element, power source */
            if (!sc->off)
                continue;
            snprintf(buf, sizeof(buf), "\"%s\"", base + sc->off);
            break;
        default: continue;
        }
        emit(ctx, sc->path, buf);
    }
}

void tb_config_free(struct tb_config *c)
{
    tb_config_free_lists(&c->sweep);
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

void tb_config_reset(struct tb_config *c)
{
    struct tb_override *ovr = c->ovr;
    size_t n = c->n_ovr;
    c->ovr = NULL;
    c->n_ovr = 0;
    tb_config_free(c);
    tb_config_init(c);
    c->ovr = ovr;
    c->n_ovr = n;
}

/* Board detection reads every file in boards/: through the guard too, so a FIFO or a
 * huge file there is skipped (with a note in d), never a hang. */
int tb_config_peek_board(const char *path, char *name, size_t name_n, char *model, size_t model_n,
                         char *gpu, size_t gpu_n)
{
    struct tb_diag d = { 0 };
    char *text = NULL;
    int rc = tb_config_guard_file(path, "board", &text, &d);
    tb_diag_free(&d);
    if (rc < 0)
        return -1;
    config_t cf;
    config_init(&cf);
    rc = config_read_string(&cf, text);
    free(text);
    if (rc != CONFIG_TRUE) {
        config_destroy(&cf);
        return -1;
    }
    const char *v;
    name[0] = model[0] = gpu[0] = '\0';
    if (config_lookup_string(&cf, "board.name", &v))
        tb_strlcpy(name, v, name_n);
    const config_setting_t *m = config_lookup(&cf, "board.match.model");
    if (m)
        tb_config_models_join(m, model, model_n);
    if (config_lookup_string(&cf, "board.match.gpu", &v))
        tb_strlcpy(gpu, v, gpu_n);
    config_destroy(&cf);
    return 0;
}
