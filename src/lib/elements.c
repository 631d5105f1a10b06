/* elements.c: see elements.h. The kernels move bits, so a type is its size: u16 moves
 * as f16 does and is logged as f16, u64 as double. */
#include "lib/elements.h"

#include <stdio.h>
#include <string.h>

const struct tb_element tb_elements[] = {
    { "u8", { "uint8" }, 1 },
    { "f16", { "half", "u16" }, 2 },
    { "float", { "f32" }, 4 },
    { "double", { "f64", "u64" }, 8 },
    { NULL, { NULL }, 0 },
};

const struct tb_element *tb_element_find(const char *name)
{
    for (const struct tb_element *e = tb_elements; name && e->name; e++) {
        if (!strcmp(e->name, name))
            return e;
        for (size_t i = 0; i < sizeof(e->aliases) / sizeof(e->aliases[0]) && e->aliases[i]; i++)
            if (!strcmp(e->aliases[i], name))
                return e;
    }
    return NULL;
}

const char *tb_elements_describe(unsigned mask, char *buf, size_t n)
{
    size_t len = 0, in = 0, all = 0;
    if (n)
        buf[0] = '\0';
    for (const struct tb_element *e = tb_elements; e->name; e++) {
        all++;
        if (!(mask & (1u << e->bytes)))
            continue;
        in++;
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? "," : "",
                                e->name);
    }
    if (in == all && n)
        snprintf(buf, n, "all");
    return buf;
}

const char *tb_elements_names(char *buf, size_t n)
{
    size_t len = 0;
    if (n)
        buf[0] = '\0';
    for (const struct tb_element *e = tb_elements; e->name; e++)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? ", " : "",
                                e->name);
    return buf;
}
