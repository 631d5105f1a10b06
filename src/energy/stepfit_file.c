/* stepfit_file.c: the probe's stored result, one small file per board and L4T release:
 * written as text here (the command puts it in place through lib/outfile.c) and read back
 * for a night (tb_stepfit_load). libconfig's syntax, `key = value;` a line, parsed here by
 * hand: this floor may not include the configuration's. Not here: the fit (stepfit.c). */
#include "energy/stepfit.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/safeio.h"

/* A name for the file's text: letters, digits and . _ - kept, anything else '_'. */
static void plain(char *dst, size_t n, const char *s)
{
    size_t i = 0;
    for (; s && s[i] && i + 1 < n; i++) {
        char ch = s[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
        dst[i] = ok ? ch : '_';
    }
    dst[i] = 0;
}

int tb_stepfit_format(const struct tb_stepfit *fit, const char *board, const char *l4t,
                      char *buf, size_t n)
{
    char b[128], l[64];
    plain(b, sizeof b, board && *board ? board : "unknown");
    plain(l, sizeof l, l4t && *l4t ? l4t : "unknown");
    int len = snprintf(buf, n,
                       TB_STEPFIT_HEAD ": the power sensor's step response (transpose-bench)\n"
                       "board = \"%s\";\nl4t = \"%s\";\nmodel = \"%s\";\ntau_ms = %.3f;\n"
                       "delay_ms = %.3f;\nrefresh_ms = %.3f;\nrms_ema_w = %.6g;\n"
                       "rms_boxcar_w = %.6g;\n",
                       b, l, fit->model, fit->tau_ms, fit->delay_ms, fit->refresh_ms,
                       fit->rms_ema_w, fit->rms_boxcar_w);
    for (int k = 0; k < fit->nrails && k < TB_STEPFIT_MAX_RAILS && len > 0 && (size_t)len < n;
         k++) {
        const struct tb_stepfit_rail *r = &fit->rail[k];
        char name[32];
        plain(name, sizeof name, r->name);
        if (r->model)
            len += snprintf(buf + len, n - (size_t)len, "rail%d = \"%s\";\nrail%d_model = "
                            "\"%s\";\nrail%d_tau_ms = %.3f;\nrail%d_delay_ms = %.3f;\n", k + 1,
                            name, k + 1, r->model, k + 1, r->tau_ms, k + 1, r->delay_ms);
        else
            len += snprintf(buf + len, n - (size_t)len, "rail%d = \"%s\";\nrail%d_model = "
                            "\"none\";\n", k + 1, name, k + 1);
    }
    if (len < 0 || (size_t)len >= n)
        return -ENOSPC;
    return len;
}

static const char *const MODELS[] = { "ema", "boxcar", "point" };

/* A quoted name of the board or release line (what tb_stepfit_format wrote: plain
 * characters only) into dst; 0, or -EINVAL. */
static int quoted(const char *val, char *dst, size_t n)
{
    size_t len = strlen(val);
    while (len && (val[len - 1] == ' ' || val[len - 1] == '\t'))
        len--;
    if (len < 2 || val[0] != '"' || val[len - 1] != '"' || len - 2 >= n)
        return -EINVAL;
    char raw[128];
    snprintf(raw, sizeof raw, "%.*s", (int)(len - 2), val + 1);
    plain(dst, n, raw);
    return strcmp(dst, raw) ? -EINVAL : 0;
}

/* Each number's bounds, as the same value read from sysfs or made by the fit is bounded:
 * a length or a refresh the probe can find lies within its search range (stepfit.h); a
 * residual is watts a board can draw. A value past them (tau_ms = 1e12 would make a night's
 * blocks 3e12 ms long) is refused with the file's line, never clamped. */
static const struct num {
    const char *key;
    double lo, hi;
    const char *what;
} NUMS[] = {
    { "tau_ms", 0, TB_STEPFIT_LEN_MAX_MS, "0 (a point sensor) or above 0.2 and below 5000 ms, "
      "the probe's range" },
    { "delay_ms", 0, TB_STEPFIT_DELAY_MAX_MS, "0 to below 500 ms, the probe's range" },
    { "refresh_ms", 0, TB_STEPFIT_LEN_MAX_MS, "0 to below 5000 ms, the probe's range" },
    { "rms_ema_w", 0, 1e4, "0 to 10000 W" },
    { "rms_boxcar_w", 0, 1e4, "0 to 10000 W" },
};

/* The model named by val ("\"ema\"", ...): MODELS' entry, or NULL. */
static const char *model_of(const char *val)
{
    for (size_t i = 0; i < sizeof MODELS / sizeof *MODELS; i++) {
        char q[16];
        snprintf(q, sizeof q, "\"%s\"", MODELS[i]);
        if (!strncmp(val, q, strlen(q)) && strspn(val + strlen(q), " \t") ==
            strlen(val + strlen(q)))
            return MODELS[i];
    }
    return NULL;
}

/* One rail's line: railK (its name), railK_model ("none": no step), railK_tau_ms,
 * railK_delay_ms, K 1 to TB_STEPFIT_MAX_RAILS, each rail's lines after its name line and
 * bounded as the total's. 0, or -EINVAL with why. */
static int rail_line(const char *path, int line, const char *key, const char *val,
                     struct tb_stepfit *out, char *why, size_t whylen)
{
    char *end;
    long k = strtol(key + 4, &end, 10);
    if (k < 1 || k > TB_STEPFIT_MAX_RAILS || end == key + 4)
        return snprintf(why, whylen, "%s:%d: %s: rails are numbered 1 to %d", path, line, key,
                        TB_STEPFIT_MAX_RAILS), -EINVAL;
    struct tb_stepfit_rail *r = &out->rail[k - 1];
    if (!*end) {
        if (k != out->nrails + 1 || quoted(val, r->name, sizeof r->name) < 0 || !r->name[0])
            return snprintf(why, whylen, "%s:%d: %s: '%s' is not the next rail's quoted name",
                            path, line, key, val), -EINVAL;
        out->nrails = (int)k, r->model = NULL, r->tau_ms = NAN, r->delay_ms = 0;
        return 0;
    }
    if (k > out->nrails)
        return snprintf(why, whylen, "%s:%d: %s before its rail's name line", path, line, key),
               -EINVAL;
    if (!strcmp(end, "_model")) {
        r->model = model_of(val);
        if (!r->model && strcmp(val, "\"none\""))
            return snprintf(why, whylen, "%s:%d: %s: '%s' is not \"ema\", \"boxcar\", "
                            "\"point\" or \"none\"", path, line, key, val), -EINVAL;
        return 0;
    }
    int t = !strcmp(end, "_tau_ms") ? 0 : !strcmp(end, "_delay_ms") ? 1 : -1;
    double v = t < 0 ? 0 : strtod(val, &end);
    if (t < 0)
        return snprintf(why, whylen, "%s:%d: unknown setting '%s'", path, line, key), -EINVAL;
    if (end == val || strspn(end, " \t") != strlen(end) || !isfinite(v) || v < 0 ||
        v >= (t ? TB_STEPFIT_DELAY_MAX_MS : TB_STEPFIT_LEN_MAX_MS) ||
        (t == 0 && r->model && (strcmp(r->model, "point") ? v <= TB_STEPFIT_LEN_MIN_MS : v != 0)))
        return snprintf(why, whylen, "%s:%d: %s: '%s' is outside %s", path, line, key, val,
                        t ? NUMS[1].what : NUMS[0].what), -EINVAL;
    *(t ? &r->delay_ms : &r->tau_ms) = v;
    return 0;
}

/* One `key = value;` line into the result; 0, or -EINVAL with why (file and line named).
 * lines[i]: the line NUMS[i] was on. */
static int load_line(const char *path, int line, char *s, struct tb_stepfit *out,
                     unsigned *seen, int *lines, char *why, size_t whylen)
{
    char key[32], val[80];
    if (sscanf(s, " %31[a-z_0-9] = %79[^;\n]", key, val) != 2 || !strchr(s, ';'))
        return snprintf(why, whylen, "%s:%d: not a 'key = value;' line", path, line), -EINVAL;
    if (!strcmp(key, "board") || !strcmp(key, "l4t")) {
        bool b = key[0] == 'b';
        if (quoted(val, b ? out->board : out->l4t, b ? sizeof out->board : sizeof out->l4t))
            return snprintf(why, whylen, "%s:%d: %s: '%s' is not a quoted name of letters, "
                            "digits, '.', '_' and '-'", path, line, key, val), -EINVAL;
        return 0;
    }
    if (!strncmp(key, "rail", 4) && key[4] >= '1' && key[4] <= '9')
        return rail_line(path, line, key, val, out, why, whylen);
    if (!strcmp(key, "model")) {
        if ((out->model = model_of(val)))
            return *seen |= 1, lines[5] = line, 0;
        return snprintf(why, whylen, "%s:%d: model: '%s' is not \"ema\", \"boxcar\" or "
                        "\"point\"", path, line, val), -EINVAL;
    }
    for (size_t i = 0; i < sizeof NUMS / sizeof *NUMS; i++) {
        if (strcmp(key, NUMS[i].key))
            continue;
        char *end;
        double v = strtod(val, &end);
        if (end == val || strspn(end, " \t") != strlen(end) || !isfinite(v))
            return snprintf(why, whylen, "%s:%d: %s: '%s' is not a number", path, line, key,
                            val), -EINVAL;
        if (v < NUMS[i].lo || v >= NUMS[i].hi)
            return snprintf(why, whylen, "%s:%d: %s: %s is outside %s", path, line, key, val,
                            NUMS[i].what), -EINVAL;
        double *dst[] = { &out->tau_ms, &out->delay_ms, &out->refresh_ms, &out->rms_ema_w,
                          &out->rms_boxcar_w };
        *dst[i] = v;
        *seen |= 2u << i;
        lines[i] = line;
        return 0;
    }
    return snprintf(why, whylen, "%s:%d: unknown setting '%s'", path, line, key), -EINVAL;
}

int tb_stepfit_load(const char *path, struct tb_stepfit *out, char *why, size_t whylen)
{
    char buf[4096], w[320];
    int rc = tb_safeio_read(path, buf, sizeof buf, NULL, 0, 0, w, sizeof w);
    if (rc < 0)
        return snprintf(why, whylen, "cannot read '%s': %s", path, w), rc;
    return tb_stepfit_parse(path, buf, out, why, whylen);
}

int tb_stepfit_parse(const char *path, char *buf, struct tb_stepfit *out, char *why,
                     size_t whylen)
{
    int rc;
    static const struct tb_stepfit zero;
    struct tb_stepfit f = zero;
    f.tau_ms = NAN, f.rms_ema_w = NAN, f.rms_boxcar_w = NAN;
    unsigned seen = 0;
    int line = 0, lines[6] = { 0 };
    for (char *s = buf, *nl; s && *s; s = nl ? nl + 1 : NULL) {
        nl = strchr(s, '\n');
        if (nl)
            *nl = 0;
        line++;
        s += strspn(s, " \t\r");
        if (!*s || *s == '#')
            continue;
        if ((rc = load_line(path, line, s, &f, &seen, lines, why, whylen)) < 0)
            return rc;
    }
    if (!(seen & 1) || !(seen & 2))
        return snprintf(why, whylen, "%s: %s missing", path, (seen & 1) ? "tau_ms" : "model"),
               -EINVAL;
    /* a point sensor has no length; an average has one the probe can find (0 is no
     * exponential: the inversion would divide by it) */
    bool point = !strcmp(f.model, "point");
    if (point ? f.tau_ms != 0 : f.tau_ms <= TB_STEPFIT_LEN_MIN_MS)
        return snprintf(why, whylen, "%s:%d: tau_ms: %g with model \"%s\" (line %d): %s", path,
                        lines[0], f.tau_ms, f.model, lines[5], point ? "a point sensor's is 0"
                        : "an average's is above 0.2 and below 5000 ms, the probe's range"),
               -EINVAL;
    for (int k = 0; k < f.nrails; k++)   /* a rail fitted has its constant */
        if (f.rail[k].model && (!isfinite(f.rail[k].tau_ms) ||
                                (strcmp(f.rail[k].model, "point") ? f.rail[k].tau_ms <=
                                 TB_STEPFIT_LEN_MIN_MS : f.rail[k].tau_ms != 0)))
            return snprintf(why, whylen, "%s: rail%d_tau_ms missing or not a %s's", path,
                            k + 1, f.rail[k].model), -EINVAL;
    *out = f;
    return 0;
}

int tb_stepfit_matches(const struct tb_stepfit *fit, const char *path, const char *board,
                       const char *l4t, char *why, size_t whylen)
{
    char b[128], l[64];
    plain(b, sizeof b, board && *board ? board : "unknown");
    plain(l, sizeof l, l4t && *l4t ? l4t : "unknown");
    if (strcmp(fit->board, b))
        return snprintf(why, whylen, "%s: board: \"%s\" is not this board's \"%s\"", path,
                        fit->board[0] ? fit->board : "(none)", b), -ESTALE;
    if (strcmp(fit->l4t, l))
        return snprintf(why, whylen, "%s: l4t: \"%s\" is not this release's \"%s\"", path,
                        fit->l4t[0] ? fit->l4t : "(none)", l), -ESTALE;
    return 0;
}
