/* config/set.c: overrides of settings from the command line: --set KEY=VALUE and the
 * options turned into the same form (--kernels a,b is sweep.kernels = ["a","b"]). Each is
 * parsed as libconfig text and written into its file's settings before the schema walk, so
 * it is checked exactly as the same line in the file would be, and named by its option.
 * Not here: the checks themselves (config.c, lists.c). */
#include "config/config.h"
#include "config/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

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

/* The file an override's path belongs to, by its first part; -1 (with the problem in d)
 * when no setting of the schema has that path. */
static int override_file(const struct tb_override *o, struct tb_diag *d)
{
    char first[TB_STR];
    tb_strlcpy(first, o->path, sizeof(first));
    char *dot = strchr(first, '.');
    if (dot)
        *dot = '\0';
    int file = -1;
    for (size_t i = 0; i < tb_config_schema_n; i++)
        if (!strcmp(tb_config_schema[i].path, first))
            file = tb_config_schema[i].file;
    if (file >= 0 && tb_config_row(o->path))
        return file;
    const char *cands[TB_CFG_MAX_ROWS];
    size_t n = 0;
    for (size_t i = 0; i < tb_config_schema_n && n < TB_CFG_MAX_ROWS; i++)
        cands[n++] = tb_config_schema[i].path;
    const char *sug = tb_suggest(o->path, cands, n);
    if (sug)
        tb_diag_add(d, "%s: unknown setting '%s' (did you mean '%s'?)", o->label, o->path, sug);
    else
        tb_diag_add(d, "%s: unknown setting '%s'", o->label, o->path);
    return -1;
}

static void apply_override(struct tb_config *c, const struct tb_override *o, struct tb_diag *d)
{
    int file = override_file(o, d);
    if (file < 0)
        return;
    const struct tb_cfg_row *sc = tb_config_row(o->path);
    /* a second line could hold an @include that libconfig would open unchecked */
    if (strpbrk(o->value, "\n\r")) {
        tb_diag_add(d, "%s: a value is one line (no line break in it)", o->label);
        return;
    }
    if (sc->type == S_GROUP) {
        tb_diag_add(d, "%s: '%s' is a group; set one of its settings", o->label, o->path);
        return;
    }
    size_t before = d->n;
    tb_config_check_wraps(o->value, o->label, false, d);
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

void tb_config_apply_overrides(struct tb_config *c, struct tb_diag *d)
{
    for (size_t i = 0; i < c->n_ovr; i++)
        apply_override(c, &c->ovr[i], d);
}
