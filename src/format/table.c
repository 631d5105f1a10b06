/* table.c: see table.h. The table of formats made from TB_FORMATS' rows, and the steps of a
 * document (begin, table, section, row, end, note) handed to the format's writer
 * (src/format/), so a command says its columns and rows once and neither its printer nor
 * this file branches on the format. What a format writes, and how it quotes text from logs,
 * is its writer's. */
#include "format/table.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"

/* The writers, each defined in its own file of src/format/. */
#define TB_FMT_DECLARE_(id, name, ops) extern const struct tb_format_ops ops;
TB_FORMATS(TB_FMT_DECLARE_, )

static const struct {
    const char *name;
    const struct tb_format_ops *ops;
} formats[] = {
#define TB_FMT_ROW_(id, name, ops) [TB_FMT_##id] = { name, &ops },
    TB_FORMATS(TB_FMT_ROW_, )
};

const char tb_format_names[] = TB_FORMAT_NAMES;

int tb_format_parse(const char *name, enum tb_format *f)
{
    for (int i = 0; i < TB_FMT_COUNT; i++)
        if (!strcmp(name, formats[i].name)) {
            *f = (enum tb_format)i;
            return 0;
        }
    return -1;
}

const char *tb_format_name(enum tb_format f)
{
    return (unsigned)f < TB_FMT_COUNT ? formats[f].name : NULL;
}

const struct tb_format_ops *tb_format_writer(enum tb_format f)
{
    return (unsigned)f < TB_FMT_COUNT ? formats[f].ops : NULL;
}

bool tb_format_is_data(enum tb_format f)
{
    return formats[f].ops->data;
}

bool tb_format_first_table_only(enum tb_format f)
{
    return formats[f].ops->first_table_only;
}

char *tb_table_clean(char *buf, size_t n, const char *s)
{
    return tb_text_clean(buf, n, s, false);   /* the one rule (util.h) */
}

void tb_doc_begin(struct tb_doc *d, FILE *out, enum tb_format f, const char *what)
{
    d->out = out;
    d->f = f;
    d->tables = 0;
    d->tty = isatty(fileno(out));
    formats[f].ops->doc_begin(out, what);
}

int tb_doc_end(struct tb_doc *d)
{
    formats[d->f].ops->doc_end(d->out);
    return fflush(d->out) != 0 || ferror(d->out) ? -1 : 0;
}

void tb_doc_note(struct tb_doc *d, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    formats[d->f].ops->note(d->out, text);
}

void tb_table_begin(struct tb_table *t, struct tb_doc *d, const char *name, const char *title,
                    const struct tb_table_col *cols, size_t ncols)
{
    *t = (struct tb_table){ .doc = d, .w = { .out = d->out, .tty = d->tty, .cols = cols,
                                             .ncols = ncols, .index = d->tables } };
    for (size_t i = 0; i < ncols; i++)
        if (!cols[i].data_only)
            t->w.last = i;
    d->tables++;
    formats[d->f].ops->table_begin(&t->w, name, title);
}

void tb_table_section(struct tb_table *t, const char *heading)
{
    formats[t->doc->f].ops->section(&t->w, heading);
}

void tb_table_row(struct tb_table *t, const struct tb_cell *cells)
{
    formats[t->doc->f].ops->row(&t->w, cells);
    t->w.nrows++;
}

void tb_table_end(struct tb_table *t)
{
    formats[t->doc->f].ops->table_end(&t->w);
}
