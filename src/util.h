/* util.h: error reporting, strings, clocks and small helpers shared by every module.
 * Not a dumping ground: anything with a concern of its own gets its own module. */
#ifndef TB_UTIL_H
#define TB_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TB_PROG "transpose-bench"

/* Exit codes, documented in the README. */
enum { TB_EXIT_OK = 0, TB_EXIT_FAIL = 1, TB_EXIT_USAGE = 2, TB_EXIT_LOCKED = 75 };

/* Print "transpose-bench: error: ..." to stderr and return -1 (git style). */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "transpose-bench: warning: ..." to stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "transpose-bench: ..." (no prefix word) to stderr. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Monotonic and wall clocks. */
int64_t tb_now_ns(void);
double tb_now_s(void);
/* Current UTC time as "2026-11-22T08:15:00Z" (iso=1) or "20261122T081500Z". */
void tb_utc_stamp(char *buf, size_t n, bool iso);

/* Safe string copy: always terminates, returns strlen(src). */
size_t tb_strlcpy(char *dst, const char *src, size_t n);
/* Levenshtein distance, for "did you mean" suggestions. */
int tb_edit_distance(const char *a, const char *b);
/* Best match of name among cands (n of them) or NULL when nothing is close. */
const char *tb_suggest(const char *name, const char *const *cands, size_t n);

/* Parse "RxC" / "XxY" into two positive longs; 0 on success. */
int tb_parse_pair(const char *s, long *a, long *b);

/* v with decimals digits after the point, or "-" when v is NAN (no reading). */
void tb_fmt_num(char *buf, size_t n, double v, int decimals);

/* Checked multiply of sizes; returns false on overflow. */
bool tb_mul_overflow(size_t a, size_t b, size_t *out);

/* FNV-1a 64-bit hash of n bytes. */
uint64_t tb_hash_bytes(const void *p, size_t n);
/* FNV-1a 64-bit hash of a file's bytes (config provenance in the log); 0 on error. */
uint64_t tb_hash_file(const char *path);

/* The root every /proc, /sys, /etc and /var path is read under: $TB_ROOT, else "" (the
 * real one). Tests point it at fake trees shaped like real boards. */
const char *tb_root(void);
/* The root a sysfs reader uses: the power.sysfs_root setting when it names one (not "" or
 * "/"), else tb_root(). One rule for board detection and the power sources. */
const char *tb_sys_root(const char *setting);
/* buf = tb_root() + abs. */
void tb_root_path(char *buf, size_t n, const char *abs);

/* Quiet mode: warnings still go to stderr, progress and summaries do not go to stdout. */
extern bool tb_quiet;

#endif
