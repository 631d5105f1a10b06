/* format/csv.c: CSV, RFC 4180 (--format csv): one header of column names (snake_case, units
 * in the names), one line per row, numbers with their data decimals, an empty field for a
 * missing value. For programs: the document's first table only, no prose; text stays the
 * data it is, except on a terminal, where it is shown and so made safe as a table's is. */
#include "format/internal.h"

#include <string.h>

#include "lib/util.h"

/* RFC 4180: a field with a comma, a quote or a line break is quoted, a quote in it written
 * twice; one with a space is quoted too (allowed, and what our CSV always did for device
 * names and power modes, so scripts that read it keep working). */
static void put_csv_text(FILE *f, const char *s, bool tty)
{
    char clean[1024];
    if (tty)   /* CSV to a terminal: shown, so cleaned as a table is; to a file it stays data */
        s = tb_text_clean(clean, sizeof(clean), s, false);
    if (!strpbrk(s, ",\"\r\n ")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A table after the first is not written: one CSV is one header and one kind of row. */
static void table_begin(struct tb_format_table *t, const char *name, const char *title)
{
    if (t->index > 0)
        return;
    for (size_t i = 0, shown = 0; i < t->ncols; i++)
        if (!t->cols[i].text_only)
            fprintf(t->out, "%s%s", shown++ ? "," : "", t->cols[i].name);
    fputc('\n', t->out);
}

static void row(struct tb_format_table *t, const struct tb_cell *cells)
{
    if (t->index > 0)
        return;
    FILE *f = t->out;
    char num[64];
    for (size_t i = 0, shown = 0; i < t->ncols; i++) {
        const struct tb_table_col *c = &t->cols[i];
        if (c->text_only)
            continue;
        fputs(shown++ ? "," : "", f);
        put_csv_text(f, tb_format_cell_text(c, &cells[i], num, sizeof(num), false), t->tty);
    }
    fputc('\n', f);
}

const struct tb_format_ops tb_format_csv = {
    .data = true,
    .first_table_only = true,
    .doc_begin = tb_format_no_doc_begin,   /* the header is the first table's */
    .doc_end = tb_format_no_doc_end,
    .note = tb_format_no_note,             /* data only */
    .table_begin = table_begin,
    .section = tb_format_no_section,       /* a section's heading is in its rows' data */
    .row = row,
    .table_end = tb_format_no_table_end,
};
