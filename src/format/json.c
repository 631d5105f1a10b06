/* format/json.c: JSON (--format json): one object, {"schema": "transpose-bench/<what>/1",
 * "<table>": [ {row}, ... ], ...}, a row's keys the column names, a missing value null. For
 * programs: no prose; strings escaped and valid UTF-8 whatever the log held (a byte that is
 * no UTF-8 becomes U+FFFD; controls and invisible characters are \u escapes). */
#include "format/internal.h"

#include <math.h>
#include <stdint.h>

#include "lib/util.h"

static void put_json_escape(FILE *f, uint32_t c)
{
    if (c < 0x10000) {
        fprintf(f, "\\u%04x", (unsigned)c);
        return;
    }
    c -= 0x10000;   /* a surrogate pair */
    fprintf(f, "\\u%04x\\u%04x", (unsigned)(0xd800 + (c >> 10)), (unsigned)(0xdc00 + (c & 0x3ff)));
}

static void put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t c;
        int k = tb_utf8_at(p, &c);
        if (k == 0) {
            fputs("\\ufffd", f);   /* a byte that is no UTF-8: the replacement character */
            p++;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", (int)c);
        else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || tb_char_invisible(c))
            put_json_escape(f, c);   /* the same text, but nothing that acts where it is shown */
        else
            fwrite(p, 1, (size_t)k, f);
        p += k;
    }
    fputc('"', f);
}

static void doc_begin(FILE *out, const char *what)
{
    fprintf(out, "{\"schema\": \"transpose-bench/%s/1\"", what);
}

static void doc_end(FILE *out)
{
    fputs("\n}\n", out);
}

static void table_begin(struct tb_format_table *t, const char *name, const char *title)
{
    fprintf(t->out, ",\n\"%s\": [", name);   /* name: the command's own key, never a log's */
}

static void row(struct tb_format_table *t, const struct tb_cell *cells)
{
    FILE *f = t->out;
    fputs(t->nrows ? ",\n  {" : "\n  {", f);
    for (size_t i = 0, shown = 0; i < t->ncols; i++) {
        const struct tb_table_col *c = &t->cols[i];
        if (c->text_only)
            continue;
        fprintf(f, "%s\"%s\": ", shown++ ? ", " : "", c->name);
        if (c->kind == 'S' && cells[i].s && cells[i].s[0])
            put_json_string(f, cells[i].s);
        else if (c->kind != 'S' && isfinite(cells[i].v))
            fprintf(f, "%.*f", c->data_dec ? c->data_dec : c->dec, cells[i].v);
        else
            fputs("null", f);
    }
    fputc('}', f);
}

static void table_end(struct tb_format_table *t)
{
    fputs(t->nrows ? "\n]" : "]", t->out);
}

const struct tb_format_ops tb_format_json = {
    .data = true,
    .first_table_only = false,
    .doc_begin = doc_begin,
    .doc_end = doc_end,
    .note = tb_format_no_note,         /* data only */
    .table_begin = table_begin,
    .section = tb_format_no_section,   /* a section's heading is in its rows' data */
    .row = row,
    .table_end = table_end,
};
