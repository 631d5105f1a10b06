/* csvlog.h: the gzipped CSV log. One file per run, written under a temporary name and
 * renamed when closed, so a file with the final name is always whole; every row is
 * flushed (and synced) as written, so a killed run still leaves its rows readable with
 * zcat in the temporary file. Metadata lines start with '#'. Columns: log_columns.h. */
#ifndef TB_CSVLOG_H
#define TB_CSVLOG_H

#include <stddef.h>

#include "log_columns.h"

#define TB_CTYPE_STR const char *
#define TB_CTYPE_INT long long
#define TB_CTYPE_DBL double

struct tb_row {
#define X(name, kind, fmt, unit, doc) TB_CTYPE_##kind name;
    TB_LOG_COLUMNS(X)
#undef X
};

struct tb_column {
    const char *name;
    char kind;          /* 'S', 'I', 'D' */
    const char *fmt, *unit, *doc;
    size_t off;
};
extern const struct tb_column tb_columns[];
extern const size_t tb_n_columns;

/* Strings NULL, integers 0, numbers NAN (empty in the log). */
void tb_row_init(struct tb_row *r);
/* One CSV line without the newline; '#' in text is replaced so comment-aware readers keep it. */
void tb_row_format(const struct tb_row *r, char *buf, size_t n);
void tb_header_format(char *buf, size_t n);

struct tb_csvlog;

/* Creates DIR/.NAME.part; returns 0 or -errno (message on stderr naming the path). */
int tb_csvlog_open(struct tb_csvlog **out, const char *dir, const char *name, int gzip_level);
/* "# key: value" line. */
int tb_csvlog_meta(struct tb_csvlog *l, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tb_csvlog_header(struct tb_csvlog *l);
/* Writes and flushes one row; -errno (already reported once) when the write failed. */
int tb_csvlog_row(struct tb_csvlog *l, const struct tb_row *r);
/* Writes "# end: <how>", closes, renames to the final name. Returns 0 or -errno. */
int tb_csvlog_close(struct tb_csvlog *l, const char *how);
const char *tb_csvlog_path(const struct tb_csvlog *l);   /* final path */
const char *tb_csvlog_tmp_path(const struct tb_csvlog *l);
long tb_csvlog_rows(const struct tb_csvlog *l);

#endif
