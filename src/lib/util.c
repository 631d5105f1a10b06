/* util.c: error reporting, clocks, strings. Only main.c decides to exit. */
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Messages quote names and text from files (a board name, a log's field): cleaned, so no
 * escape sequence or bidi override reaches the terminal through stderr either. */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
    char buf[4096], clean[4096];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    fprintf(stderr, "%s: %s%s\n", TB_PROG, prefix,
            tb_text_needs_clean(buf) ? tb_text_clean(clean, sizeof(clean), buf, true) : buf);
}

int error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("error: ", fmt, ap);
    va_end(ap);
    return -1;
}

void warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", fmt, ap);
    va_end(ap);
}

void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("", fmt, ap);
    va_end(ap);
}


void tb_utc_stamp(char *buf, size_t n, bool iso)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y%m%dT%H%M%SZ", &tm);
}

size_t tb_strlcpy(char *dst, const char *src, size_t n)
{
    size_t len = strlen(src);
    if (n) {
        size_t c = len < n - 1 ? len : n - 1;
        memcpy(dst, src, c);
        dst[c] = '\0';
    }
    return len;
}

int tb_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    int d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            /* a swap of two neighbours counts as one edit */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *tb_suggest(const char *name, const char *const *cands, size_t n)
{
    const char *best = NULL;
    int best_d = 1000;
    for (size_t i = 0; i < n; i++) {
        int dist = tb_edit_distance(name, cands[i]);
        if (dist < best_d) {
            best_d = dist;
            best = cands[i];
        }
    }
    /* close enough: at most a third of the name, and at least one edit allowed */
    int limit = (int)strlen(name) / 3;
    if (limit < 1)
        limit = 1;
    return best_d <= limit ? best : NULL;
}

void tb_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

/* Decimal digits at s (1 to 18 of them) into *v; the end, or NULL. */
static const char *digits(const char *s, long *v)
{
    const char *p = s;
    long x = 0;
    for (; *p >= '0' && *p <= '9' && p - s < 18; p++)
        x = x * 10 + (*p - '0');
    if (p == s || (*p >= '0' && *p <= '9'))
        return NULL;
    *v = x;
    return p;
}

int tb_parse_pair(const char *s, long *a, long *b)
{
    long x, y;
    const char *p = digits(s, &x);
    if (!p || (*p != 'x' && *p != 'X') || !(p = digits(p + 1, &y)) || *p)
        return -1;
    *a = x;
    *b = y;
    return 0;
}

int tb_parse_number(const char *s, double lo, bool lo_open, double hi, double *out)
{
    const char *p = s + (*s == '-' && lo < 0);
    size_t whole = strspn(p, "0123456789"), frac = 0;
    p += whole;
    if (*p == '.')
        p += 1 + (frac = strspn(p + 1, "0123456789"));
    if (whole + frac == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        size_t exp = strspn(p, "0123456789");
        if (!exp)
            return -1;
        p += exp;
    }
    if (*p)
        return -1;
    double v = strtod(s, NULL);
    if (!isfinite(v) || v < lo || (lo_open && v == lo) || v > hi)
        return -1;
    *out = v;
    return 0;
}

bool tb_mul_overflow(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL

uint64_t tb_hash_bytes(const void *p, size_t n)
{
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < n; i++) {
        h ^= ((const unsigned char *)p)[i];
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t tb_hash_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint64_t h = FNV_OFFSET;
    int c;
    while ((c = getc(f)) != EOF) {
        h ^= (unsigned char)c;
        h *= FNV_PRIME;
    }
    fclose(f);
    return h;
}

const char *tb_root(void)
{
    const char *r = getenv("TB_ROOT");
    return r && *r && strcmp(r, "/") ? r : "";
}

const char *tb_sys_root(const char *setting)
{
    return setting && setting[0] && strcmp(setting, "/") ? setting : tb_root();
}

void tb_root_path(char *buf, size_t n, const char *abs)
{
    snprintf(buf, n, "%s%s", tb_root(), abs);
}

/* ---- hostile text ------------------------------------------------------------------- */

int tb_utf8_at(const unsigned char *p, uint32_t *cp)
{
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
    if (n == 0 || p[0] > 0xf4)
        return 0;
    uint32_t c = p[0] & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

bool tb_char_invisible(uint32_t c)
{
    /* Unicode 15.1's category Cf, whole, then Zl, Zp and the fillers */
    static const uint32_t ranges[][2] = {
        { 0x00ad, 0x00ad }, { 0x034f, 0x034f }, { 0x0600, 0x0605 }, { 0x061c, 0x061c },
        { 0x06dd, 0x06dd }, { 0x070f, 0x070f }, { 0x0890, 0x0891 }, { 0x08e2, 0x08e2 },
        { 0x115f, 0x1160 }, { 0x180e, 0x180e }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
        { 0x2060, 0x2064 }, { 0x2066, 0x206f }, { 0x3164, 0x3164 }, { 0xfeff, 0xfeff },
        { 0xffa0, 0xffa0 }, { 0xfff9, 0xfffb }, { 0x110bd, 0x110bd }, { 0x110cd, 0x110cd },
        { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a }, { 0xe0001, 0xe0001 },
        { 0xe0020, 0xe007f },
    };
    for (size_t i = 0; i < ARRAY_SIZE(ranges); i++)
        if (c >= ranges[i][0] && c <= ranges[i][1])
            return true;
    return false;
}

static bool is_control(uint32_t c)
{
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f);
}

bool tb_text_needs_clean(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        uint32_t c;
        int k = tb_utf8_at(p, &c);
        if (k == 0 || (is_control(c) && c != '\n' && c != '\t') || tb_char_invisible(c))
            return true;
        p += k;
    }
    return false;
}

char *tb_text_clean(char *buf, size_t n, const char *s, bool keep_lines)
{
    if (n == 0)
        return buf;
    size_t len = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t c;
        int k = tb_utf8_at(p, &c);
        char esc[16];
        const char *out = (const char *)p;
        size_t w = (size_t)k;
        if (k == 0 || (is_control(c) && !(keep_lines && (c == '\n' || c == '\t')))) {
            out = "?";   /* no escape sequence reaches the terminal */
            w = 1;
        } else if (tb_char_invisible(c)) {
            w = (size_t)snprintf(esc, sizeof(esc), "[U+%04X]", (unsigned)c);
            out = esc;
        }
        if (len + w >= n)
            break;       /* cut on a character's start */
        memcpy(buf + len, out, w);
        len += w;
        p += k ? k : 1;
    }
    buf[len] = '\0';
    return buf;
}

/* ---- names of files ----------------------------------------------------------------- */

void tb_name_part(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    bool plain = len > 0 && len <= 64 && src[0] != '.' && src[0] != '-';
    for (size_t i = 0; plain && i < len; i++)
        plain = (src[i] >= 'a' && src[i] <= 'z') || (src[i] >= '0' && src[i] <= '9') ||
                src[i] == '.' || src[i] == '-';
    if (plain) {
        tb_strlcpy(dst, src, n);
        return;
    }
    char spell[49];
    size_t k = 0;
    for (; k < len && k < 48; k++) {
        unsigned char ch = (unsigned char)src[k];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ((ch == '-' || ch == '.') && k > 0);
        /* never a leading '-' (host "-rf": `zcat *.csv.gz` took the log for options) or '.' */
        spell[k] = ok ? (char)ch : k ? '-' : 'x';
    }
    spell[k] = '\0';
    snprintf(dst, n, "%s+%08x", spell, (unsigned)(tb_hash_bytes(src, len) & 0xffffffffu));
}

/* ---- time --------------------------------------------------------------------------- */

const char *tb_time_implausible(long long t, long long now)
{
    if (t < 1577836800LL)   /* 2020-01-01T00:00:00Z */
        return "before 2020 (a clock that was reset?)";
    if (t > now + TB_TIME_SKEW_S)
        return "in the future (a clock set wrong?)";
    return NULL;
}

/* ---- environment -------------------------------------------------------------------- */

static int env_path(const char *var, bool dir, bool parent)
{
    const char *v = getenv(var);
    if (!v || !v[0])
        return 0;
    if (!dir && !strchr(v, '/'))
        return 0;   /* a library's bare name: the loader's search finds it */
    char path[4096];
    tb_strlcpy(path, v, sizeof(path));
    if (parent) {
        char *slash = strrchr(path, '/');
        if (!slash)
            return 0;   /* in the working directory */
        if (slash == path)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
    struct stat st;
    const char *what = dir ? "a directory" : "a regular file (a library)";
    if (stat(path, &st) < 0) {
        if (!dir && errno == ENOENT)
            return 0;   /* a library that is not there: its loader says so, naming it, and the
                         * run goes on without it (the tests' way to take a library away) */
        if (parent)
            return error("environment: %s='%s': its folder '%s' does not exist", var, v, path);
        return error("environment: %s='%s': %s (it must name %s)", var, v, strerror(errno), what);
    }
    if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
        if (parent)
            return error("environment: %s='%s': '%s' is not a directory", var, v, path);
        return error("environment: %s='%s' is not %s", var, v, what);
    }
    return 0;
}

int tb_env_check(void)
{
    int rc = 0;
    rc |= env_path("TB_ROOT", true, false);
    rc |= env_path("TB_LOCK_FILE", true, true);
    rc |= env_path("TB_CUDA_LIB", false, false);
    rc |= env_path("TB_NVML_LIB", false, false);
    rc |= env_path("TB_CUBLAS_LIB", false, false);
    return rc ? -1 : 0;
}
