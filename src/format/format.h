/* format/format.h: what an output format's writer is handed and what it exports: the column
 * and cell types every table is made of (the commands name them through table.h), one table
 * as its writer sees it, and struct tb_format_ops, the writer that each file of src/format/
 * exports (text.c: the terminal table; markdown.c, csv.c, json.c). Nothing here knows which
 * formats exist: their table, and the API the commands call, are table.h's. */
#ifndef TB_FORMAT_H
#define TB_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/* One table of a document as its writer sees it: table.c fills it at tb_table_begin and
 * counts the rows; heads_due is the writer's own. */
struct tb_format_table {
    FILE *out;
    bool tty;                          /* out is a terminal */
    const struct tb_table_col *cols;
    size_t ncols;
    size_t last;                       /* the last column that is not data_only */
    size_t nrows;                      /* rows handed to the writer before this one */
    int index;                         /* tables of the document before this one (0: first) */
    bool heads_due;                    /* column heads due before the next row */
};

/* A format's writer: each step of a document (table.h's tb_doc_* and tb_table_*) written in
 * the format. No step is NULL: a step a format writes nothing for is a function that writes
 * nothing (tests/test_table.c checks every row of the table). Text from logs is hostile (a
 * comma, a quote, a '|', an escape sequence, bytes that are no UTF-8): each writer's quoting
 * makes it valid for its format. */
struct tb_format_ops {
    /* For programs: data only, no prose (notes and headings are not written; a command says
     * on stderr what matters). false: for people. */
    bool data;
    /* Only the document's first table is written (one header, one kind of row); a command
     * says the others' rows on stderr. */
    bool first_table_only;
    void (*doc_begin)(FILE *out, const char *what);   /* what: "compare", "history", ... */
    void (*doc_end)(FILE *out);
    void (*note)(FILE *out, const char *text);        /* a line of prose after the tables */
    /* name: the table's key (JSON); title: its heading for people ("" or NULL: none). */
    void (*table_begin)(struct tb_format_table *t, const char *name, const char *title);
    void (*section)(struct tb_format_table *t, const char *heading);
    void (*row)(struct tb_format_table *t, const struct tb_cell *cells);
    void (*table_end)(struct tb_format_table *t);
};

#endif
