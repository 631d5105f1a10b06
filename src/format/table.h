/* table.h: the one output writer of compare, history, power and the run summary: columns plus
 * rows become a terminal table, markdown, CSV (RFC 4180) or JSON, valid whatever the data
 * (CSV quoted, markdown's '|' escaped, control characters never reach a terminal, JSON
 * strings escaped and valid UTF-8). The one table of formats (TB_FORMATS: the enum, the
 * parser, the help text and the writers all come from its rows) and the calls the commands
 * make; each format's writer is a file of src/format/ (format/format.h: the column and cell
 * types, the writer's ops). Not here: what the rows are (the commands), the --html page and
 * --plot (report.c). */
#ifndef TB_TABLE_H
#define TB_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "format/format.h"

/* The output formats, one row each, in the order --format's help lists them: the enum's
 * name (TB_FMT_<id>), the --format name, and the writer, the struct tb_format_ops that the
 * format's own file of src/format/ exports. A new format is that file and one row here: the
 * enum, the names in every usage, the parser and table.c's table of writers are made from
 * these rows. SEP goes between rows (nothing where each row ends in a comma, "|" for the
 * names). */
#define TB_FORMATS(X, SEP)                          \
    X(TABLE, "table", tb_format_text) SEP           \
    X(MARKDOWN, "markdown", tb_format_markdown) SEP \
    X(CSV, "csv", tb_format_csv) SEP                \
    X(JSON, "json", tb_format_json)

#define TB_FMT_ENUM_(id, name, ops) TB_FMT_##id,
enum tb_format { TB_FORMATS(TB_FMT_ENUM_, ) TB_FMT_COUNT };

/* The --format help of every command, spliced into each usage text:
 * "table|markdown|csv|json". */
#define TB_FMT_NAME_(id, name, ops) name
#define TB_FORMAT_NAMES TB_FORMATS(TB_FMT_NAME_, "|")
extern const char tb_format_names[];   /* the same, for messages */
/* 0 and *f for a format's name; -1 (nothing said) otherwise. */
int tb_format_parse(const char *name, enum tb_format *f);
/* A format's name, its row's; NULL for a value that is no format. */
const char *tb_format_name(enum tb_format f);
/* A format's writer, its row's; NULL for a value that is no format. For the checks of the
 * table (tests/test_table.c): the commands write through tb_doc_* and tb_table_*. */
const struct tb_format_ops *tb_format_writer(enum tb_format f);
/* Whether f carries data only, for programs (CSV, JSON): no prose, so a command says on
 * stderr what a person would have read beside the table. false: f is for people. */
bool tb_format_is_data(enum tb_format f);
/* Whether f writes a document's first table only (CSV): a command says the rows of its
 * other tables on stderr. */
bool tb_format_first_table_only(enum tb_format f);

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
    struct tb_format_table w;   /* the table as its format's writer sees it */
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
/* A line of prose after the tables, in a format for people (tb_format_is_data: not written). */
void tb_doc_note(struct tb_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text made safe for a terminal: tb_text_clean (util.h), the one rule: controls and bytes
 * that are no UTF-8 become '?', invisible format characters (bidi overrides, zero-width)
 * "[U+XXXX]". Into buf of n bytes; returns buf. */
char *tb_table_clean(char *buf, size_t n, const char *s);

#endif
