/* config/where.c: where a setting came from (FILE:LINE, or the command-line option that set
 * it) and the names of libconfig's types, for every error of the folder. Calls nothing of the
 * folder: the loader, the lists and --set all call it. */
#include "config/config.h"
#include "config/internal.h"

#include <stdio.h>
#include <string.h>

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
