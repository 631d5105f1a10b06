/* format/common.c: what the writers share (internal.h): a cell's text for the terminal,
 * markdown and CSV (JSON writes its numbers itself), prose for people, and the steps a
 * format writes nothing for. Not a writer. */
#include "format/internal.h"

#include <math.h>

#include "lib/util.h"

const char *tb_format_cell_text(const struct tb_table_col *c, const struct tb_cell *x,
                                char *buf, size_t n, bool human)
{
    if (c->kind == 'S')
        return x->s && x->s[0] ? x->s : human && !c->blank ? "-" : "";
    if (!isfinite(x->v))
        return human ? "-" : "";
    if (c->kind == 'P' && human)
        snprintf(buf, n, "%+.*f%%", c->dec, x->v);
    else
        snprintf(buf, n, "%.*f", human || !c->data_dec ? c->dec : c->data_dec, x->v);
    return buf;
}

void tb_format_prose(FILE *out, const char *text)
{
    char clean[4096];
    fprintf(out, "\n%s\n", tb_text_clean(clean, sizeof(clean), text, true));
}

void tb_format_no_doc_begin(FILE *out, const char *what)
{
}

void tb_format_no_doc_end(FILE *out)
{
}

void tb_format_no_note(FILE *out, const char *text)
{
}

void tb_format_no_section(struct tb_format_table *t, const char *heading)
{
}

void tb_format_no_table_end(struct tb_format_table *t)
{
}
