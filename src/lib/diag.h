/* diag.h: problems gathered while reading options and files, each "FILE:LINE: text" (or
 * the option that set the value), so that all of them are reported in one pass before
 * anything runs. Not here: what counts as a problem (config.c, sweep.c, run.c). */
#ifndef TB_DIAG_H
#define TB_DIAG_H

#include <stddef.h>

struct tb_diag {
    char **msgs;
    size_t n;
};
void tb_diag_add(struct tb_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tb_diag_print(const struct tb_diag *d);   /* to stderr, prefixed "transpose-bench: " */
void tb_diag_free(struct tb_diag *d);

#endif
