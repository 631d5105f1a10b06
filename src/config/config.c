/* config/config.c: the loader: both files read through the guard, overrides applied, every
 * setting walked against the schema with all problems collected by FILE:LINE; then the
 * resolved dump. Not here: the schema (schema.c), where a setting came from (where.c), list
 * settings (lists.c), --set (set.c), reading files safely (guard.c), anything about a device
 * (point_rules.c). Each calls only files below it: config -> set, schema -> lists -> where. */
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

/* ---- generic settings ------------------------------------------------------------- */

/* A string setting: of its choices where it has some, never empty where it has a default,
 * and within TB_STR. */
/* Where v stops being UTF-8 text: the 1-based position of its first byte that is no valid
 * UTF-8 or a control character (C0, DEL, C1), 0 when there is none. */
static size_t not_text(const char *v)
{
    const unsigned char *p = (const unsigned char *)v;
    for (size_t i = 0; p[i];) {
        uint32_t cp;
        int len = tb_utf8_at(p + i, &cp);
        if (len == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
            return i + 1;
        i += (size_t)len;
    }
    return 0;
}

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
    size_t bad = sc->text ? not_text(v) : 0;
    if (bad) {
        TB_CFG_DIAG(x, sc->file, s, "'%s': byte %zu (0x%02x) is %s: the name is written into "
                    "every log and label, where it would be read back as '?': use UTF-8 text "
                    "of visible characters", sc->path, bad,
                    (unsigned char)v[bad - 1], (unsigned char)v[bad - 1] < 0x80 ?
                    "a control character" : "not part of UTF-8 text");
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
        tb_config_default_blocks(c, c->sweep_path, tb_config_row("sweep.blocks"));
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
    if (ok_b == 0 && board_path && !c->board.name[0] &&
        !config_lookup(&c->files[TB_CFG_BOARD], "board.name"))   /* one refused: said */
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
