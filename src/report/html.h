/* html.h: the self-contained report page of `compare --html` and `history --html`: tables
 * and inline SVG charts drawn here, no script, no style sheet or font fetched. Every text
 * that comes from a log is escaped. The page is written to a temporary name and renamed
 * into place only when whole: a failed write leaves no file. */
#ifndef TB_HTML_H
#define TB_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/chart.h"

struct tb_html {
    FILE *f;
    char path[4096], tmp[4200];
};

/* Opens the page (temporary file next to path); 0, or -1 with the reason said. */
int tb_html_open(struct tb_html *h, const char *path, const char *title);
/* Ends the page and renames it into place; 0, or -1 (disk full...) with no file left. */
int tb_html_close(struct tb_html *h);
/* Drops an unfinished page (its temporary file); returns -1. */
int tb_html_abort(struct tb_html *h);
/* The most bytes a page holds before its caller leaves the rest of its charts out and says
 * so (tb_html_full, tb_html_left_out): 50,000 sizes once made a 60 MB page, which filled a
 * 48 MB tmpfs, and no browser shows 50,000 charts (#58). The text table has every row. */
#define TB_HTML_MAX_BYTES (8L << 20)
/* Whether the page written to f has reached TB_HTML_MAX_BYTES. */
bool tb_html_full(FILE *f);
/* Says on the page (and on stderr, who: "compare") that n of total sections (what: "sizes")
 * were left out for the page's bound, and where the rest is. */
void tb_html_left_out(FILE *f, const char *who, size_t n, size_t total, const char *what);
/* Text, escaped for HTML and SVG. */
void tb_html_text(FILE *f, const char *s);
/* Horizontal bars: for each category (a kernel) one bar per series (a board); values[c * ns
 * + s], NAN where the series lacks it. log: a logarithmic axis (values > 0). */
void tb_html_bars(FILE *f, const char *title, const char *unit, const char *const *cats,
                  size_t nc, const char *const *series, size_t ns, const double *values,
                  bool log);
/* Lines over x labels (nights): values[s * nx + x], NAN where a series has no point. */
void tb_html_lines(FILE *f, const char *title, const char *unit, const char *const *xs,
                   size_t nx, const char *const *series, size_t ns, const double *values);
/* Points (chart.h) with their intervals as vertical bars, each labelled; an axis spanning
 * more than a factor 20 is logarithmic (a Nano beside an H100), else linear from 0. */
void tb_html_scatter(FILE *f, const char *title, const char *xunit, const char *yunit,
                     const char *const *series, size_t ns, const struct tb_xy *pts, size_t n);

#endif
