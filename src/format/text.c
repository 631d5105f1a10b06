/* format/text.c: the terminal table (--format table, the default): a title, per section a
 * heading and the column heads, then rows padded to each column's width, long text cut on
 * a character's start. For people: every text made safe for a terminal (tb_text_clean), no
 * trailing blanks. Not here: which columns or rows (the commands). */
#include "format/internal.h"

#include <string.h>

#include "lib/util.h"

static void heads(struct tb_format_table *t)
{
    FILE *f = t->out;
    t->heads_due = false;
    fputs(" ", f);
    for (size_t i = 0; i < t->ncols; i++)
        if (!t->cols[i].data_only)
            fprintf(f, t->cols[i].kind == 'S' ? "%*s %-*s" : "%*s %*s", t->cols[i].gap, "",
                    i == t->last && t->cols[i].kind == 'S' ? 0 : t->cols[i].width,
                    t->cols[i].head);
    fputc('\n', f);
}

static void table_begin(struct tb_format_table *t, const char *name, const char *title)
{
    if (title && title[0]) {
        char clean[1024];
        fprintf(t->out, "\n%s\n", tb_text_clean(clean, sizeof(clean), title, false));
    }
    t->heads_due = true;
}

static void section(struct tb_format_table *t, const char *heading)
{
    char clean[512];
    fprintf(t->out, "\n%s\n", tb_text_clean(clean, sizeof(clean), heading, false));
    t->heads_due = true;
}

static void row(struct tb_format_table *t, const struct tb_cell *cells)
{
    FILE *f = t->out;
    if (t->heads_due)
        heads(t);
    char num[64], clean[1024];
    fputs(" ", f);
    for (size_t i = 0; i < t->ncols; i++) {
        const struct tb_table_col *c = &t->cols[i];
        if (c->data_only)
            continue;
        const char *s = tb_format_cell_text(c, &cells[i], num, sizeof(num), true);
        tb_text_clean(clean, sizeof(clean), s, false);
        size_t len = strlen(clean);
        if (c->cut && len > (size_t)c->width) {   /* cut on a character's start */
            len = (size_t)c->width;
            while (len > 0 && ((unsigned char)clean[len] & 0xc0) == 0x80)
                len--;
            clean[len] = '\0';
        }
        int w = i == t->last && c->kind == 'S' ? 0 : c->width;   /* no trailing blanks */
        fprintf(f, c->kind == 'S' ? "%*s %-*s" : "%*s %*s", c->gap, "", w, clean);
    }
    fputc('\n', f);
}

const struct tb_format_ops tb_format_text = {
    .data = false,
    .first_table_only = false,
    .doc_begin = tb_format_no_doc_begin,   /* each table has its own title */
    .doc_end = tb_format_no_doc_end,
    .note = tb_format_prose,
    .table_begin = table_begin,
    .section = section,
    .row = row,
    .table_end = tb_format_no_table_end,   /* a table ends where the next title begins */
};
