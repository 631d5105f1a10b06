/* format/internal.h: what the writers of src/format/ share and nothing outside the folder
 * includes: a cell's text, prose for people, and the steps a format writes nothing for
 * (common.c). The writers themselves are table.h's rows; their ops struct is format.h's. */
#ifndef TB_FORMAT_INTERNAL_H
#define TB_FORMAT_INTERNAL_H

/* The Makefile defines TB_FORMAT_ROOM for the objects of src/format/ only, so a file
 * elsewhere that includes this header does not build. */
#ifndef TB_FORMAT_ROOM
#error "format/internal.h is private to src/format/: include table.h"
#endif

#include "format/format.h"

/* The cell as text into buf (n bytes), or a constant: human (the terminal, markdown) shows
 * a missing value as "-" (a text column with blank set: nothing) and a percentage as
 * "+1.5%"; otherwise (CSV) a missing value is empty and a number has its data_dec decimals.
 * Returns the text (buf or a constant). */
const char *tb_format_cell_text(const struct tb_table_col *c, const struct tb_cell *x,
                                char *buf, size_t n, bool human);

/* A line of prose for people: a blank line, then text made safe for a terminal (lines
 * kept). */
void tb_format_prose(FILE *out, const char *text);

/* The steps a format writes nothing for, to name in its ops. */
void tb_format_no_doc_begin(FILE *out, const char *what);
void tb_format_no_doc_end(FILE *out);
void tb_format_no_note(FILE *out, const char *text);
void tb_format_no_section(struct tb_format_table *t, const char *heading);
void tb_format_no_table_end(struct tb_format_table *t);

#endif
