/* format/markdown.c: GitHub-flavoured markdown (--format markdown): a table's title as a
 * "##" heading, a section's as "###", then a pipe table whose number columns are aligned
 * right. For people: text made safe for a terminal first, then '|' and '\' escaped and '<'
 * written as "&lt;", so a cell never splits and nothing from a log becomes HTML. */
#include "format/internal.h"

#include "lib/util.h"

static void put_markdown_text(FILE *f, const char *s)
{
    char clean[1024];
    for (const char *p = tb_text_clean(clean, sizeof(clean), s, false); *p; p++) {
        if (*p == '|' || *p == '\\')
            fputc('\\', f);
        if (*p == '<')
            fputs("&lt;", f);
        else
            fputc(*p, f);
    }
}

static void heads(struct tb_format_table *t)
{
    FILE *f = t->out;
    t->heads_due = false;
    for (size_t i = 0; i < t->ncols; i++)
        if (!t->cols[i].data_only)
            fprintf(f, "| %s ", t->cols[i].head);
    fputs("|\n", f);
    for (size_t i = 0; i < t->ncols; i++)
        if (!t->cols[i].data_only)
            fputs(t->cols[i].kind == 'S' ? "|---" : "|---:", f);
    fputs("|\n", f);
}

static void table_begin(struct tb_format_table *t, const char *name, const char *title)
{
    if (title && title[0]) {
        fputs("\n## ", t->out);
        put_markdown_text(t->out, title);
        fputs("\n\n", t->out);
    }
    t->heads_due = true;
}

static void section(struct tb_format_table *t, const char *heading)
{
    char clean[512];   /* cleaned at this length first, as the terminal's heading is */
    fputs("\n### ", t->out);
    put_markdown_text(t->out, tb_text_clean(clean, sizeof(clean), heading, false));
    fputs("\n\n", t->out);
    t->heads_due = true;
}

static void row(struct tb_format_table *t, const struct tb_cell *cells)
{
    FILE *f = t->out;
    if (t->heads_due)
        heads(t);
    char num[64];
    for (size_t i = 0; i < t->ncols; i++) {
        const struct tb_table_col *c = &t->cols[i];
        if (c->data_only)
            continue;
        fputs("| ", f);
        put_markdown_text(f, tb_format_cell_text(c, &cells[i], num, sizeof(num), true));
        fputc(' ', f);
    }
    fputs("|\n", f);
}

const struct tb_format_ops tb_format_markdown = {
    .data = false,
    .first_table_only = false,
    .doc_begin = tb_format_no_doc_begin,   /* each table has its own heading */
    .doc_end = tb_format_no_doc_end,
    .note = tb_format_prose,
    .table_begin = table_begin,
    .section = section,
    .row = row,
    .table_end = tb_format_no_table_end,   /* a blank line before the next heading ends it */
};
