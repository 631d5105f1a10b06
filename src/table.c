/* table.c: see table.h. The four formats are written here, each step (document, heading,
 * section, row, end) branching on the format, so a command says its columns and rows once
 * and its printer does not branch on the format for them. Text from logs is hostile (a board
 * name with a comma, a quote, a '|', an escape sequence, bytes that are no UTF-8): each
 * format's quoting makes it valid for that format. */
#include "table.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

const char tb_format_names[] = TB_FORMAT_NAMES;

int tb_format_parse(const char *name, enum tb_format *f)
{
    static const char *const names[] = { "table", "markdown", "csv", "json" };
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, names[i])) {
            *f = (enum tb_format)i;
            return 0;
        }
    return -1;
}

char *tb_table_clean(char *buf, size_t n, const char *s)
{
    return tb_text_clean(buf, n, s, false);   /* the one rule (util.h) */
}

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

static void put_markdown_text(FILE *f, const char *s)
{
    char clean[1024];
    for (const char *p = tb_table_clean(clean, sizeof(clean), s); *p; p++) {
        if (*p == '|' || *p == '\\')
            fputc('\\', f);
        if (*p == '<')
            fputs("&lt;", f);
        else
            fputc(*p, f);
    }
}

/* The cell as text for the terminal and markdown, CSV and JSON numbers aside. */
static const char *cell_text(const struct tb_table_col *c, const struct tb_cell *x, char *buf,
                             size_t n, bool human)
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

void tb_doc_begin(struct tb_doc *d, FILE *out, enum tb_format f, const char *what)
{
    d->out = out;
    d->f = f;
    d->tables = 0;
    d->tty = isatty(fileno(out));
    if (f == TB_FMT_JSON)
        fprintf(out, "{\"schema\": \"transpose-bench/%s/1\"", what);
}

int tb_doc_end(struct tb_doc *d)
{
    if (d->f == TB_FMT_JSON)
        fputs("\n}\n", d->out);
    return fflush(d->out) != 0 || ferror(d->out) ? -1 : 0;
}

void tb_doc_note(struct tb_doc *d, const char *fmt, ...)
{
    if (d->f == TB_FMT_CSV || d->f == TB_FMT_JSON)
        return;
    char text[2048], clean[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    fprintf(d->out, "\n%s\n", tb_text_clean(clean, sizeof(clean), text, true));
}

static void heads(struct tb_table *t)
{
    FILE *f = t->doc->out;
    t->heads_due = false;
    if (t->doc->f == TB_FMT_MARKDOWN) {
        for (size_t i = 0; i < t->ncols; i++)
            if (!t->cols[i].data_only)
                fprintf(f, "| %s ", t->cols[i].head);
        fputs("|\n", f);
        for (size_t i = 0; i < t->ncols; i++)
            if (!t->cols[i].data_only)
                fputs(t->cols[i].kind == 'S' ? "|---" : "|---:", f);
        fputs("|\n", f);
        return;
    }
    fputs(" ", f);
    for (size_t i = 0; i < t->ncols; i++)
        if (!t->cols[i].data_only)
            fprintf(f, t->cols[i].kind == 'S' ? "%*s %-*s" : "%*s %*s", t->cols[i].gap, "",
                    i == t->last && t->cols[i].kind == 'S' ? 0 : t->cols[i].width,
                    t->cols[i].head);
    fputc('\n', f);
}

void tb_table_begin(struct tb_table *t, struct tb_doc *d, const char *name, const char *title,
                    const struct tb_table_col *cols, size_t ncols)
{
    *t = (struct tb_table){ .doc = d, .cols = cols, .ncols = ncols };
    for (size_t i = 0; i < ncols; i++)
        if (!cols[i].data_only)
            t->last = i;
    FILE *f = d->out;
    t->silent = d->f == TB_FMT_CSV && d->tables > 0;
    d->tables++;
    if (d->f == TB_FMT_JSON) {
        fprintf(f, ",\n\"%s\": [", name);
    } else if (d->f == TB_FMT_CSV) {
        for (size_t i = 0, shown = 0; i < ncols && !t->silent; i++)
            if (!cols[i].text_only)
                fprintf(f, "%s%s", shown++ ? "," : "", cols[i].name);
        if (!t->silent)
            fputc('\n', f);
    } else {
        if (title && title[0] && d->f == TB_FMT_MARKDOWN) {
            fputs("\n## ", f);
            put_markdown_text(f, title);
            fputs("\n\n", f);
        } else if (title && title[0]) {
            char clean[1024];
            fprintf(f, "\n%s\n", tb_text_clean(clean, sizeof(clean), title, false));
        }
        t->heads_due = true;
    }
}

void tb_table_section(struct tb_table *t, const char *heading)
{
    if (t->doc->f == TB_FMT_CSV || t->doc->f == TB_FMT_JSON)
        return;
    char clean[512];
    tb_table_clean(clean, sizeof(clean), heading);
    if (t->doc->f == TB_FMT_MARKDOWN) {
        fputs("\n### ", t->doc->out);
        put_markdown_text(t->doc->out, clean);
        fputs("\n\n", t->doc->out);
    } else {
        fprintf(t->doc->out, "\n%s\n", clean);
    }
    t->heads_due = true;
}

static void row_json(struct tb_table *t, const struct tb_cell *cells)
{
    FILE *f = t->doc->out;
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

void tb_table_row(struct tb_table *t, const struct tb_cell *cells)
{
    FILE *f = t->doc->out;
    enum tb_format fmt = t->doc->f;
    if (t->silent)
        return;
    if (fmt == TB_FMT_JSON) {
        row_json(t, cells);
        t->nrows++;
        return;
    }
    if (t->heads_due)
        heads(t);
    char num[64], clean[1024];
    fputs(fmt == TB_FMT_TABLE ? " " : "", f);
    for (size_t i = 0, shown = 0; i < t->ncols; i++) {
        const struct tb_table_col *c = &t->cols[i];
        const char *s = cell_text(c, &cells[i], num, sizeof(num), fmt != TB_FMT_CSV);
        if (fmt == TB_FMT_CSV && c->text_only)
            continue;
        if (fmt == TB_FMT_CSV) {
            fputs(shown++ ? "," : "", f);
            put_csv_text(f, s, t->doc->tty);
            continue;
        }
        if (c->data_only)
            continue;
        if (fmt == TB_FMT_MARKDOWN) {
            fputs("| ", f);
            put_markdown_text(f, s);
            fputc(' ', f);
        } else {
            tb_table_clean(clean, sizeof(clean), s);
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
    }
    fputs(fmt == TB_FMT_MARKDOWN ? "|\n" : "\n", f);
    t->nrows++;
}

void tb_table_end(struct tb_table *t)
{
    if (t->doc->f == TB_FMT_JSON)
        fputs(t->nrows ? "\n]" : "]", t->doc->out);
}
