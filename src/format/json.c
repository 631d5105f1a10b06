/* format/json.c: JSON (--format json): one object, {"schema": "transpose-bench/<what>/2",
 * "<table>": [ {row}, ... ], ...}, a row's keys the column names, a missing value null; a
 * figure whose table has its 95% interval (a column named <figure>_ci95) is one object with
 * its bounds, {"value", "lower", "upper", "ci95"} (doc/schema/night.schema.json). For
 * programs: no prose; strings escaped and valid UTF-8 whatever the log held (a byte that is
 * no UTF-8 becomes U+FFFD; controls and invisible characters are \u escapes). */
#include "format/internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

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
    fprintf(out, "{\"schema\": \"transpose-bench/%s/2\"", what);
}

static void doc_end(FILE *out)
{
    fputs("\n}\n", out);
}

static void table_begin(struct tb_format_table *t, const char *name, const char *title)
{
    fprintf(t->out, ",\n\"%s\": [", name);   /* name: the command's own key, never a log's */
}

static void put_number(FILE *f, const struct tb_table_col *c, double v)
{
    if (isfinite(v))
        fprintf(f, "%.*f", c->data_dec ? c->data_dec : c->dec, v);
    else
        fputs("null", f);
}

/* The column JSON shows holding column i's 95% half-width (its name and "_ci95", else its
 * name and "_rerun_ci95": compare's energy ratio, whose interval is where a rerun lands), or
 * ncols. */
static size_t ci_of(const struct tb_format_table *t, size_t i)
{
    const char *name = t->cols[i].name;
    size_t len = strlen(name);
    if (t->cols[i].kind == 'S')
        return t->ncols;
    static const char *const suffix[] = { "_ci95", "_rerun_ci95" };
    for (size_t s = 0; s < 2; s++)
        for (size_t k = 0; k < t->ncols; k++)
            if (k != i && !strncmp(t->cols[k].name, name, len) &&
                !strcmp(t->cols[k].name + len, suffix[s]) && t->cols[k].kind != 'S' &&
                !t->cols[k].text_only)
                return k;
    return t->ncols;
}

/* Whether column k is some other column's interval (written inside that one's object only;
 * a "_rerun_ci95" one is written under its own name too, so that its name is in the row). */
static bool is_ci_of_another(const struct tb_format_table *t, size_t k)
{
    const char *name = t->cols[k].name;
    size_t len = strlen(name);
    if (len <= 5 || strcmp(name + len - 5, "_ci95") ||
        (len > 11 && !strcmp(name + len - 11, "_rerun_ci95")))
        return false;
    for (size_t i = 0; i < t->ncols; i++)
        if (i != k && ci_of(t, i) == k && !t->cols[i].text_only)
            return true;
    return false;
}

/* A figure and its interval in one object: the bounds value -+ the half-width, null where
 * either is missing (the half-width's decimals where it has more). */
static void put_figure(FILE *f, const struct tb_table_col *c, const struct tb_table_col *cc,
                       double v, double ci)
{
    bool both = isfinite(v) && isfinite(ci);
    const struct tb_table_col *wide =
        (cc->data_dec ? cc->data_dec : cc->dec) > (c->data_dec ? c->data_dec : c->dec) ? cc : c;
    fputs("{\"value\": ", f);
    put_number(f, c, v);
    fputs(", \"lower\": ", f);
    put_number(f, wide, both ? v - ci : NAN);
    fputs(", \"upper\": ", f);
    put_number(f, wide, both ? v + ci : NAN);
    fputs(", \"ci95\": ", f);
    put_number(f, cc, ci);
    fputc('}', f);
}

static void row(struct tb_format_table *t, const struct tb_cell *cells)
{
    FILE *f = t->out;
    fputs(t->nrows ? ",\n  {" : "\n  {", f);
    for (size_t i = 0, shown = 0; i < t->ncols; i++) {
        const struct tb_table_col *c = &t->cols[i];
        if (c->text_only || is_ci_of_another(t, i))
            continue;
        fprintf(f, "%s\"%s\": ", shown++ ? ", " : "", c->name);
        size_t k = ci_of(t, i);
        if (k < t->ncols)
            put_figure(f, c, &t->cols[k], cells[i].v, cells[k].v);
        else if (c->kind == 'S' && cells[i].s && cells[i].s[0])
            put_json_string(f, cells[i].s);
        else if (c->kind != 'S')
            put_number(f, c, cells[i].v);
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
