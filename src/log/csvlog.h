/* csvlog.h: the gzipped CSV log, and everything about it that other modules read: its name
 * (HOST_BOARD_YYYYMMDDTHHMMSSZ[-N].csv.gz), its format version, its columns (log_columns.h).
 * One file per run, written under a temporary name and given its final name when closed,
 * never over an existing file, so a file with the final name is always whole; every row is
 * flushed (and synced) as written, so a killed run still leaves its rows readable with
 * zcat in the temporary file, and the next run on that host turns it into a log. */
#ifndef TB_CSVLOG_H
#define TB_CSVLOG_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "log/log_columns.h"
#include "log/outcome.h"

/* Each kind of log_columns.h: its C type in struct tb_row and its letter in tb_columns. */
#define TB_CTYPE_STR const char *
#define TB_CTYPE_INT long long
#define TB_CTYPE_DBL double
#define TB_CTYPE_STATUS enum tb_status
#define TB_CTYPE_VERIFIED enum tb_verified
#define TB_CKIND_STR 'S'
#define TB_CKIND_INT 'I'
#define TB_CKIND_DBL 'D'
#define TB_CKIND_STATUS 'O'
#define TB_CKIND_VERIFIED 'V'

struct tb_row {
#define X(name, kind, fmt, unit, doc) TB_CTYPE_##kind name;
    TB_LOG_COLUMNS(X)
#undef X
};

struct tb_column {
    const char *name;
    char kind;          /* TB_CKIND_*: 'S', 'I', 'D', 'O' (status), 'V' (verified) */
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

/* The log format's version, written as "# log_format: N"; readers refuse newer ones. */
#define TB_LOG_FORMAT 1

struct tb_csvlog;

/* host or board as they stand in a log name, in place (s holds n bytes, n >= 64): the name
 * itself when it is plain (a-z, 0-9, '.', '-'), else a readable spelling, '+' and a short
 * hash of the name (tb_name_part, util.h): two names never share one. */
void tb_log_name_part(char *s, size_t n);
/* Parses a log's file name: true for HOST_BOARD_YYYYMMDDTHHMMSSZ[-N].csv.gz with a date
 * that can be (no month 13, no 31 February), with its parts (host and board may be NULL)
 * and the stamp as UTC time. */
bool tb_log_name_parse(const char *name, char *host, size_t hn, char *board, size_t bn,
                       time_t *stamp);

/* Creates DIR/.HOST_BOARD_STAMP[-N].csv.gz.PID.part for a new run started now: N counts up
 * from 2 while that second already has a log or a run in DIR, so names never collide. The
 * run_id is the name without .csv.gz. Returns 0 or -errno (message on stderr). */
int tb_csvlog_open(struct tb_csvlog **out, const char *dir, const char *host, const char *board,
                   int gzip_level);
const char *tb_csvlog_run_id(const struct tb_csvlog *l);
/* The first metadata lines every log has: tool version, format, run_id, start time. */
int tb_csvlog_preamble(struct tb_csvlog *l, const char *version);
/* Temporary files in DIR left by runs of HOST and BOARD that died (their process is gone):
 * each becomes a log of its final name holding every whole row it had, ended by "# end:
 * recovered, the run (pid N) died ..., N rows[; 1 partial line dropped]". A file is adopted
 * only when the identity logged inside it (host, board name, machine-id; "" or NULL for
 * none) equals these exactly, never by its name's spelling. The copy is made under a
 * temporary name, synced and then named; a recovery killed at any step is finished by the
 * next call. Returns how many; never touches other files. */
int tb_csvlog_recover(const char *dir, const char *host, const char *board,
                      const char *machine_id);
/* The same within limit_s by the tool's clock, and not at all once *stop is set (a signal
 * handler's flag): a `.part` whose open or read never returns (a stuck FUSE or network mount)
 * would hold the night, its lock with it, for good. Past either, the files not yet
 * recovered are left for a later night, said on stderr, and -1 is returned; the thread left
 * behind ends when its call returns (lib/bounded.h). */
#define TB_RECOVER_LIMIT_S 30.0
int tb_csvlog_recover_bounded(const char *dir, const char *host, const char *board,
                              const char *machine_id, double limit_s,
                              const volatile sig_atomic_t *stop);
/* Makes s (a buffer of cap bytes) one line of visible text in place: C0 controls and DEL
 * become spaces, then the one rule of util.h's tb_text_clean (C1 controls and bytes that
 * are no UTF-8 '?', bidi and other invisible format characters named "[U+202E]"), cut to
 * cap. Every metadata value and the end line pass through it. */
void tb_csvlog_clean(char *s, size_t cap);
/* "# key: value" line. */
int tb_csvlog_meta(struct tb_csvlog *l, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tb_csvlog_header(struct tb_csvlog *l);
/* Writes and flushes one row; -errno (already reported once) when the write failed. */
int tb_csvlog_row(struct tb_csvlog *l, const struct tb_row *r);
/* Writes "# end: <how>, N rows", closes, gives the file its final name (never replacing a
 * file of that name). Returns 0 or -errno. */
int tb_csvlog_close(struct tb_csvlog *l, const char *how);
const char *tb_csvlog_path(const struct tb_csvlog *l);   /* final path */
const char *tb_csvlog_tmp_path(const struct tb_csvlog *l);

#endif
