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

/* The monotonic clock (and its fake for tests): lib/clock.h, included here for every module. */
#include "lib/clock.h"
/* Current UTC time as "2026-11-22T08:15:00Z" (iso=1) or "20261122T081500Z". */
void tb_utc_stamp(char *buf, size_t n, bool iso);

/* Safe string copy: always terminates, returns strlen(src). */
size_t tb_strlcpy(char *dst, const char *src, size_t n);
/* Levenshtein distance, for "did you mean" suggestions. */
int tb_edit_distance(const char *a, const char *b);
/* Best match of name among cands (n of them) or NULL when nothing is close. */
const char *tb_suggest(const char *name, const char *const *cands, size_t n);

/* qsort for every sort of the tool: an empty or one-element array is left as it is (qsort
 * with NULL and 0, as an empty log set gives, is undefined behaviour: UBSan's nonnull). */
void tb_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Parse "RxC" / "XxY" into two longs of decimal digits only (no sign, no hex, no blank, at
 * most 18 digits each); 0 on success. */
int tb_parse_pair(const char *s, long *a, long *b);

/* The one reading of every numeric command-line option (--seconds, --threshold): decimal
 * digits with an optional fraction and exponent ("16", "2.5", "1e3", "-1" where lo < 0),
 * finite and within [lo, hi] (lo excluded when lo_open). Hexadecimal ("0x10", which strtod
 * reads as 16), "inf", "nan", blanks and trailing text are no numbers. 0 with *out set, or
 * -1. */
int tb_parse_number(const char *s, double lo, bool lo_open, double hi, double *out);

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

/* ---- hostile text: one cleaning rule for every terminal and page output ---------------- */
/* The length of the valid UTF-8 sequence at p (1 for ASCII), 0 when invalid (overlong,
 * surrogate, past U+10FFFF, cut); *cp gets the code point. */
int tb_utf8_at(const unsigned char *p, uint32_t *cp);
/* Characters that change how text around them is shown without being seen: Unicode's
 * format characters (category Cf: bidi overrides and isolates U+202A-202E, U+2066-2069,
 * zero-width U+200B-200F, U+2060-2064, U+FEFF, soft hyphen, tags, ...), the line and
 * paragraph separators U+2028/2029 and the Hangul fillers that render as nothing. */
bool tb_char_invisible(uint32_t c);
/* s made safe to show on a terminal or a page, into buf (n bytes, always terminated, cut on
 * a character's start): C0 and C1 controls, DEL and bytes that are no UTF-8 become '?' (no
 * escape sequence reaches a terminal), invisible characters become "[U+202E]" (seen, never
 * acting). keep_lines keeps '\n' and '\t' (messages of several lines). Returns buf. */
char *tb_text_clean(char *buf, size_t n, const char *s, bool keep_lines);
/* Whether s needs tb_text_clean (holds anything it would change). */
bool tb_text_needs_clean(const char *s);

/* ---- names of files ---------------------------------------------------------------- */
/* The spelling of a host or board name inside a file name, into dst (n >= TB_NAME_PART_MIN).
 * A name of letters a-z, digits, '.' and '-' only (not starting with '.' or '-', at most
 * 64 bytes) is spelled as it is; any other name keeps its first 48 bytes with every byte
 * outside [A-Za-z0-9.-] as '-', then '+' and 8 hex digits of the FNV-1a hash of the whole
 * name. So two different names never share a spelling (lab_nano, lab nano, Lab-Nano and
 * lab-nano are four), also on a file system that folds case, and a spelling never holds
 * '_' (the log name's separator) or '/'. */
#define TB_NAME_PART_MIN 64
void tb_name_part(char *dst, size_t n, const char *src);

/* ---- time -------------------------------------------------------------------------- */
/* How far in the future a stamp may be and still count (clocks of boards without NTP). */
#define TB_TIME_SKEW_S 3600
/* Whether t (a log's UTC stamp) can be true at now: not before 2020-01-01 (a board whose
 * clock was reset: 1970, 2000, L4T's 2018 build date) and at most TB_TIME_SKEW_S ahead.
 * NULL when plausible, else why not ("in the future", "before 2020"). */
const char *tb_time_implausible(long long t, long long now);

/* ---- environment ------------------------------------------------------------------- */
/* Checks every TB_* variable that names a path: TB_ROOT an existing directory; TB_LOCK_FILE's
 * folder an existing directory; TB_CUDA_LIB, TB_NVML_LIB, TB_CUBLAS_LIB, where they name a
 * path that exists, a regular file (a missing library is said by its loader, naming it, and
 * the run goes on without it; a bare soname is looked up by the loader). Each problem said
 * with the variable and its value; returns 0, or -1 when one does not hold. */
int tb_env_check(void);

#endif
