/* config/lists.c: the settings that are not one scalar: the kernel list, sizes, blocks,
 * explicit points, the element type (made canonical from elements.c's table), the board's
 * model strings and the power source. Each reports its own problems with FILE:LINE.
 * Not here: the schema walk (config.c), overrides (set.c). */
#include "config/config.h"
#include "config/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elements.h"
#include "power/power.h"
#include "lib/util.h"

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The one rule of every list setting: an entry once (sizes 64x64,64x64 measured every point
 * twice). The index of an earlier entry equal to v among v[0..n), else -1. */
static int listed_before(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return (int)i;
    return -1;
}

static int listed_before_l(const long *v, size_t n, size_t stride, const long *s)
{
    for (size_t i = 0; i < n; i++)
        if (!memcmp(v + i * stride, s, stride * sizeof(*v)))
            return (int)i;
    return -1;
}

void tb_config_load_kernels(struct tb_cfg_load *x, config_setting_t *s)
{
    struct tb_sweep_cfg *sw = &x->c->sweep;
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'sweep.kernels' must be a list of kernel names, got %s",
                tb_config_type_name(t));
        return;
    }
    int n = config_setting_length(s);
    if (n == 0) {
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'sweep.kernels' is empty: name kernels, or [\"*\"] for all");
        return;
    }
    free_strv(sw->kernels, sw->n_kernels);
    free_strv(sw->kernel_at, sw->n_kernels);
    sw->kernels = calloc((size_t)n, sizeof(char *));
    sw->kernel_at = calloc((size_t)n, sizeof(char *));
    sw->n_kernels = 0;
    sw->kernels_at = tb_config_where(x->c, TB_CFG_SWEEP, s);
    for (int i = 0; i < n; i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        if (config_setting_type(e) != CONFIG_TYPE_STRING) {
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'sweep.kernels' entry %d must be a string, got %s", i + 1,
                    tb_config_type_name(config_setting_type(e)));
            continue;
        }
        const char *name = config_setting_get_string(e);
        int twice = listed_before(sw->kernels, sw->n_kernels, name);
        if (twice >= 0) {
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'sweep.kernels' entry %d: '%s' is listed already "
                        "(entry %d): each point is measured once", i + 1, name, twice + 1);
            continue;
        }
        sw->kernel_at[sw->n_kernels] = strdup(tb_config_where(x->c, TB_CFG_SWEEP, e).text);
        sw->kernels[sw->n_kernels++] = strdup(name);
    }
}

/* Reads ( [a, b], ... ) into pairs of positive integers no larger than max. */
static size_t load_pairs(struct tb_cfg_load *x, config_setting_t *s, const char *what,
                         const char *names, long max, long (*out)[2], struct tb_where *at)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_ARRAY) {
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'%s' must be a list like ( [%s], ... ), got %s", what, names,
                tb_config_type_name(t));
        return 0;
    }
    int n = config_setting_length(s);
    if (n == 0) {
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'%s' is empty", what);
        return 0;
    }
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        int et = config_setting_type(e);
        if ((et != CONFIG_TYPE_ARRAY && et != CONFIG_TYPE_LIST) || config_setting_length(e) != 2) {
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'%s' entry %d must be [%s]", what, i + 1, names);
            continue;
        }
        bool ok = true;
        long v[2];
        for (unsigned j = 0; j < 2; j++) {
            config_setting_t *ej = config_setting_get_elem(e, j);
            if (!tb_config_is_int(ej)) {
                TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'%s' entry %d: %s must be an integer", what, i + 1,
                        j ? "second value" : "first value");
                ok = false;
                break;
            }
            long long val = config_setting_get_int64(ej);
            if (val <= 0 || val > max) {
                TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'%s' entry %d: [%s] must be between 1 and %ld, got %lld",
                        what, i + 1, names, max, val);
                ok = false;
                break;
            }
            v[j] = (long)val;
        }
        int twice = ok ? listed_before_l(&out[0][0], k, 2, v) : -1;
        if (twice >= 0)
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'%s' entry %d: [%ld, %ld] is listed already (entry "
                        "%d): each point is measured once", what, i + 1, v[0], v[1], twice + 1);
        if (!ok || twice >= 0)
            continue;
        out[k][0] = v[0];
        out[k][1] = v[1];
        at[k] = tb_config_where(x->c, TB_CFG_SWEEP, e);
        k++;
    }
    return k;
}

/* sweep.sizes and sweep.blocks: one list of pairs, kept as sizes or as blocks. */
static void load_pair_setting(struct tb_cfg_load *x, config_setting_t *s, bool sizes)
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

void tb_config_load_sizes(struct tb_cfg_load *x, config_setting_t *s)
{
    load_pair_setting(x, s, true);
}

void tb_config_load_blocks(struct tb_cfg_load *x, config_setting_t *s)
{
    load_pair_setting(x, s, false);
}

/* ( { kernel = "tiled"; size = [ 8192, 8192 ]; block = [ 32, 8 ]; }, ... ) */
void tb_config_load_points(struct tb_cfg_load *x, config_setting_t *s)
{
    struct tb_sweep_cfg *sw = &x->c->sweep;
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_LIST) {
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'sweep.points' must be a list of groups, got %s", tb_config_type_name(t));
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
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'sweep.points' entry %d must be { kernel = \"name\"; "
                    "size = [rows, cols]; block = [x, y]; }", i + 1);
            continue;
        }
        long long v[4] = { config_setting_get_int64_elem(sz, 0), config_setting_get_int64_elem(sz, 1),
                           config_setting_get_int64_elem(bl, 0), config_setting_get_int64_elem(bl, 1) };
        if (v[0] <= 0 || v[1] <= 0 || v[0] > (1LL << 40) || v[1] > (1LL << 40) || v[2] < 0 ||
            v[3] < 0 || v[2] > (1 << 20) || v[3] > (1 << 20) || (!v[2] != !v[3])) {
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'sweep.points' entry %d: size must be positive and block "
                    "[x, y] positive ([0, 0] for kernels without a block)", i + 1);
            continue;
        }
        tb_strlcpy(p->kernel, k, sizeof(p->kernel));
        p->rows = (long)v[0];
        p->cols = (long)v[1];
        p->x = (int)v[2];
        p->y = (int)v[3];
        p->at = tb_config_where(x->c, TB_CFG_SWEEP, e);
        sw->n_points++;
    }
}


/* A string or a list of strings, kept joined by '|' (no model string has one). */
int tb_config_models_join(const config_setting_t *s, char *out, size_t n)
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

void tb_config_load_models(struct tb_cfg_load *x, config_setting_t *s)
{
    if (tb_config_models_join(s, x->c->board.match_model, TB_STR) < 0)
        TB_CFG_DIAG(x, TB_CFG_BOARD, s, "'board.match.model' must be a string or a list of strings "
                "(without '|'), %d characters in all at most", TB_STR - 1);
}

/* power.source's help line: the names the table of sources has (power/sources.c). */
void tb_config_doc_power_source(char *buf, size_t n)
{
    tb_power_source_names(buf, n);
}

void tb_config_load_power_source(struct tb_cfg_load *x, config_setting_t *s)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        TB_CFG_DIAG(x, TB_CFG_BOARD, s, "'power.source' must be a string, got %s",
                tb_config_type_name(config_setting_type(s)));
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
            TB_CFG_DIAG(x, TB_CFG_BOARD, s, "unknown power source '%s' (did you mean '%s'?)", v, sug);
        else {
            char all[256];
            tb_power_source_names(all, sizeof(all));
            TB_CFG_DIAG(x, TB_CFG_BOARD, s, "unknown power source '%s' (%s)", v, all);
        }
        return;
    }
    tb_strlcpy(x->c->board.power.source, v, TB_STR);
}

/* sweep.power_modes: [ "15W", 2, ... ], each kept as text ("2"): which mode a name or an id
 * is, nvpmodel.conf says at run time (jetson/modes_plan.c), not the sweep file. */
void tb_config_load_power_modes(struct tb_cfg_load *x, config_setting_t *s)
{
    struct tb_sweep_cfg *sw = &x->c->sweep;
    int t = config_setting_type(s), n = config_setting_length(s);
    if ((t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) || n == 0) {
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'sweep.power_modes' must be a list of nvpmodel mode "
                    "names or ids, e.g. [ \"15W\", \"25W\", 2 ]");
        return;
    }
    free_strv(sw->power_modes, sw->n_power_modes);
    sw->power_modes = calloc((size_t)n, sizeof(char *));
    sw->n_power_modes = 0;
    sw->power_modes_at = tb_config_where(x->c, TB_CFG_SWEEP, s);
    for (int i = 0; sw->power_modes && i < n; i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        char buf[64];
        if (tb_config_is_int(e) && config_setting_get_int64(e) >= 0 &&
            config_setting_get_int64(e) < 1000) {
            snprintf(buf, sizeof(buf), "%lld", config_setting_get_int64(e));
        } else if (config_setting_type(e) == CONFIG_TYPE_STRING &&
                   strlen(config_setting_get_string(e)) - 1 < sizeof(buf) - 1 &&
                   !strpbrk(config_setting_get_string(e), " \t\r\n<>")) {
            tb_strlcpy(buf, config_setting_get_string(e), sizeof(buf));
        } else {
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'sweep.power_modes' entry %d must be a mode id "
                        "(0-999) or a mode name without spaces", i + 1);
            continue;
        }
        int twice = listed_before(sw->power_modes, sw->n_power_modes, buf);
        if (twice >= 0)
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'sweep.power_modes' entry %d: '%s' is listed "
                        "already (entry %d)", i + 1, buf, twice + 1);
        else
            sw->power_modes[sw->n_power_modes++] = strdup(buf);
    }
}

/* sweep.gpu_max_mhz and sweep.emc_max_mhz: [ 612, 918 ], clocks in MHz. */
void tb_config_load_clock_caps(struct tb_cfg_load *x, config_setting_t *s)
{
    struct tb_sweep_cfg *sw = &x->c->sweep;
    bool gpu = !strcmp(config_setting_name(s), "gpu_max_mhz");
    const char *what = gpu ? "sweep.gpu_max_mhz" : "sweep.emc_max_mhz";
    int t = config_setting_type(s), n = config_setting_length(s);
    if ((t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) || n == 0) {
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'%s' must be a list of clocks in MHz, e.g. [ 612, 918 ]",
                    what);
        return;
    }
    long **v = gpu ? &sw->gpu_max_mhz : &sw->emc_max_mhz;
    size_t *k = gpu ? &sw->n_gpu_max_mhz : &sw->n_emc_max_mhz;
    free(*v);
    *v = calloc((size_t)n, sizeof(long));
    *k = 0;
    *(gpu ? &sw->gpu_max_mhz_at : &sw->emc_max_mhz_at) = tb_config_where(x->c, TB_CFG_SWEEP, s);
    for (int i = 0; *v && i < n; i++) {
        config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        long long mhz = tb_config_is_int(e) ? config_setting_get_int64(e) : -1;
        if (mhz < 1 || mhz > 100000) {
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'%s' entry %d must be a clock in MHz, 1 to 100000",
                        what, i + 1);
            continue;
        }
        long m = (long)mhz;
        int twice = listed_before_l(*v, *k, 1, &m);
        if (twice >= 0)
            TB_CFG_DIAG(x, TB_CFG_SWEEP, e, "'%s' entry %d: %ld is listed already (entry %d)",
                        what, i + 1, m, twice + 1);
        else
            (*v)[(*k)++] = m;
    }
}

/* The element type, stored under its canonical name (f32 is logged as float), so the
 * log, compare, history and the tuned file's name keep one series per type. */
void tb_config_load_element(struct tb_cfg_load *x, config_setting_t *s)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'sweep.element' must be a string, got %s",
                    tb_config_type_name(config_setting_type(s)));
        return;
    }
    const char *v = config_setting_get_string(s);
    const struct tb_element *e = tb_element_find(v);
    if (!e) {
        char names[128];
        TB_CFG_DIAG(x, TB_CFG_SWEEP, s, "'sweep.element': unknown element type '%s' (%s)", v,
                    tb_elements_names(names, sizeof(names)));
        return;
    }
    tb_strlcpy(x->c->sweep.element, e->name, TB_STR);
    x->c->sweep.elem_size = e->bytes;
}

void tb_config_default_blocks(struct tb_config *c, const char *at, const struct tb_cfg_row *row)
{
    long bx, by;
    if (!row || !row->def_s || tb_parse_pair(row->def_s, &bx, &by) != 0)
        return;
    c->sweep.blocks = calloc(1, sizeof(*c->sweep.blocks));
    if (!c->sweep.blocks)
        return;
    c->sweep.blocks[0] = (struct tb_block){ (int)bx, (int)by, { "" } };
    snprintf(c->sweep.blocks[0].at.text, sizeof(c->sweep.blocks[0].at.text), "%s", at);
    c->sweep.n_blocks = 1;
}

void tb_config_free_lists(struct tb_sweep_cfg *s)
{
    free_strv(s->kernels, s->n_kernels);
    free_strv(s->kernel_at, s->n_kernels);
    free(s->sizes);
    free(s->blocks);
    free(s->points);
    free_strv(s->power_modes, s->n_power_modes);
    free(s->gpu_max_mhz);
    free(s->emc_max_mhz);
    s->power_modes = NULL;
    s->gpu_max_mhz = s->emc_max_mhz = NULL;
    s->n_power_modes = s->n_gpu_max_mhz = s->n_emc_max_mhz = 0;
    s->kernels = s->kernel_at = NULL;
    s->sizes = NULL;
    s->blocks = NULL;
    s->points = NULL;
    s->n_kernels = s->n_sizes = s->n_blocks = s->n_points = 0;
}
