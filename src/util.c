/* util.c: error reporting, clocks, strings. Only main.c decides to exit. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool tb_quiet;

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
    char buf[4096];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    fprintf(stderr, "%s: %s%s\n", TB_PROG, prefix, buf);
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


int64_t tb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double tb_now_s(void)
{
    return (double)tb_now_ns() * 1e-9;
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

int tb_parse_pair(const char *s, long *a, long *b)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || (*end != 'x' && *end != 'X'))
        return -1;
    const char *p = end + 1;
    long y = strtol(p, &end, 10);
    if (end == p || *end != '\0')
        return -1;
    *a = x;
    *b = y;
    return 0;
}

void tb_fmt_num(char *buf, size_t n, double v, int decimals)
{
    if (v != v)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.*f", decimals, v);
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
