/* diag.c: see diag.h. */
#include "lib/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

void tb_diag_add(struct tb_diag *d, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    char **m = realloc(d->msgs, (d->n + 1) * sizeof(*m));
    if (!m)
        return;
    d->msgs = m;
    d->msgs[d->n++] = strdup(buf);
}

void tb_diag_print(const struct tb_diag *d)
{
    for (size_t i = 0; i < d->n; i++)
        fprintf(stderr, "%s: %s\n", TB_PROG, d->msgs[i]);
}

void tb_diag_free(struct tb_diag *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->msgs[i]);
    free(d->msgs);
    d->msgs = NULL;
    d->n = 0;
}
