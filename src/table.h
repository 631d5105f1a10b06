/* table.h: the one output writer of compare, history, power and the run summary: columns plus
 * rows become a terminal table, markdown, CSV (RFC 4180) or JSON, valid whatever the data
 * (CSV quoted, markdown's '|' escaped, control characters never reach a terminal, JSON
 * strings escaped and valid UTF-8). One format enum, one parser, one help text.
 * Not here: what the rows are (the commands), the --html page and --plot (report.c). */
#ifndef TB_TABLE_H
#define TB_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum tb_format { TB_FMT_TABLE, TB_FMT_MARKDOWN, TB_FMT_CSV, TB_FMT_JSON };

/* The --format help of every command, spliced into each usage text. */
#define TB_FORMAT_NAMES "table|markdown|csv|json"
extern const char tb_format_names[];   /* the same, for messages */
/* 0 and *f for a format's name; -1 (nothing said) otherwise. */
int tb_format_parse(const char *name, enum tb_format *f);

/* A column (designated initializers: what is left out is 0 / false). kind: 'S' text, 'N' number with dec decimals, 'P' a signed percentage (shown
 * "+1.5%", a plain number in CSV and JSON). width: the terminal table's width (text longer
 * is cut when cut is set). data_only: in CSV and JSON only (the terminal and markdown show it
 * in a section heading, or not at all); text_only: in the terminal and markdown only (a
 * "32x8" that CSV and JSON carry as two numbers). */
struct tb_table_col {
    const char *name;     /* CSV header and JSON key: snake_case, units in the name */
    const char *head;     /* the terminal and markdown heading */
    char kind;
    int dec, width;
    int data_dec;         /* decimals in CSV and JSON when not dec (0: dec) */
    int gap;              /* extra spaces before it in the terminal table */
    bool blank;           /* empty shows as nothing (else "-") in the terminal and markdown */
    bool cut, data_only, text_only;
};

/* A cell: text (NULL or "": empty, JSON null) or a number (NAN: empty, JSON null). */
struct tb_cell {
    const char *s;
    double v;
};
#define TB_TEXT(str) ((struct tb_cell){ (str), 0 })
#define TB_NUM(x) ((struct tb_cell){ NULL, (x) })

/* A document: one or more named tables. JSON: {"schema": "transpose-bench/<what>/1",
 * "<table>": [ {row}, ... ], ...}. CSV: the first table only (the others are for people:
 * the command says them on stderr). */
struct tb_doc {
    FILE *out;
    enum tb_format f;
    int tables;
    bool tty;             /* out is a terminal: CSV text is cleaned too */
};
struct tb_table {
    struct tb_doc *doc;
    const struct tb_table_col *cols;
    size_t ncols, nrows;
    bool silent;          /* CSV's second table */
    size_t last;          /* the last column the terminal shows: not padded */
    bool heads_due;       /* terminal, markdown: column heads before the next row */
};

void tb_doc_begin(struct tb_doc *d, FILE *out, enum tb_format f, const char *what);
/* Ends the document; 0, or -1 when out had a write error (a full disk: exit 1). */
int tb_doc_end(struct tb_doc *d);
/* A table; title: a heading in the terminal and markdown ("" none). */
void tb_table_begin(struct tb_table *t, struct tb_doc *d, const char *name, const char *title,
                    const struct tb_table_col *cols, size_t ncols);
/* A new section (terminal, markdown: a heading then the column heads again). */
void tb_table_section(struct tb_table *t, const char *heading);
void tb_table_row(struct tb_table *t, const struct tb_cell *cells);
void tb_table_end(struct tb_table *t);
/* A line of prose after the tables (terminal, markdown only; CSV and JSON carry the data). */
void tb_doc_note(struct tb_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text made safe for a terminal: tb_text_clean (util.h), the one rule: controls and bytes
 * that are no UTF-8 become '?', invisible format characters (bidi overrides, zero-width)
 * "[U+XXXX]". Into buf of n bytes; returns buf. */
char *tb_table_clean(char *buf, size_t n, const char *s);

#endif
