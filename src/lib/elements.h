/* elements.h: the one table of element types: canonical name, the aliases a user may
 * write, and the size in bytes. Config makes every name canonical at load, so the log,
 * compare, history and tuned-file names never split one series into two (f32 and float).
 * Not here: which kernel takes which size (the kernel table's elem_sizes mask). */
#ifndef TB_ELEMENTS_H
#define TB_ELEMENTS_H

#include <stddef.h>

struct tb_element {
    const char *name;          /* canonical: what the log, the tuned file and `list` show */
    const char *aliases[3];    /* also accepted on input; NULL-padded */
    int bytes;
};

/* Every element type, smallest first, ended by a row with a NULL name. */
extern const struct tb_element tb_elements[];

/* The row whose name or alias is name (exact, case-sensitive); NULL when none. */
const struct tb_element *tb_element_find(const char *name);
/* The canonical names of the sizes in mask (bit 1<<bytes), comma separated, into buf
 * ("float", "u8,f16,float,double"); "all" when every type is in it. Returns buf. */
const char *tb_elements_describe(unsigned mask, char *buf, size_t n);

/* Every canonical name, ", " separated ("u8, f16, float, double"), for messages. */
const char *tb_elements_names(char *buf, size_t n);

#endif
