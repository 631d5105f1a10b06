/* stepfit_file.c: the probe's stored result, one small file per board and L4T release:
 * written as text here (the command puts it in place through lib/outfile.c) and read back
 * for a night (tb_stepfit_load). libconfig's syntax, `key = value;` a line, parsed here by
 * hand: this floor may not include the configuration's. Not here: the fit (stepfit.c). */
#include "energy/stepfit.h"

#include <errno.h>
#include <math.h>
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
    if (len < 0 || (size_t)len >= n)
        return -ENOSPC;
    return len;
}

static const char *const MODELS[] = { "ema", "boxcar", "point" };

/* One `key = value;` line into the result; 0, or -EINVAL with why (file and line named). */
static int load_line(const char *path, int line, char *s, struct tb_stepfit *out,
                     unsigned *seen, char *why, size_t whylen)
{
    char key[32], val[80];
    if (sscanf(s, " %31[a-z_0-9] = %79[^;\n]", key, val) != 2 || !strchr(s, ';'))
        return snprintf(why, whylen, "%s:%d: not a 'key = value;' line", path, line), -EINVAL;
    if (!strcmp(key, "board") || !strcmp(key, "l4t"))
        return 0;
    if (!strcmp(key, "model")) {
        for (size_t i = 0; i < sizeof MODELS / sizeof *MODELS; i++) {
            char q[16];
            snprintf(q, sizeof q, "\"%s\"", MODELS[i]);
            if (!strncmp(val, q, strlen(q)) && strspn(val + strlen(q), " \t") ==
                strlen(val + strlen(q)))
                return out->model = MODELS[i], *seen |= 1, 0;
        }
        return snprintf(why, whylen, "%s:%d: model: '%s' is not \"ema\", \"boxcar\" or "
                        "\"point\"", path, line, val), -EINVAL;
    }
    static const char *const nums[] = { "tau_ms", "delay_ms", "refresh_ms", "rms_ema_w",
                                        "rms_boxcar_w" };
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        if (strcmp(key, nums[i]))
            continue;
        char *end;
        double v = strtod(val, &end);
        if (end == val || strspn(end, " \t") != strlen(end) || !isfinite(v) || v < 0)
            return snprintf(why, whylen, "%s:%d: %s: '%s' is not a number >= 0", path, line,
                            key, val), -EINVAL;
        double *dst[] = { &out->tau_ms, &out->delay_ms, &out->refresh_ms, &out->rms_ema_w,
                          &out->rms_boxcar_w };
        *dst[i] = v;
        *seen |= 2u << i;
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
    struct tb_stepfit f = { NULL, NAN, 0, 0, NAN, NAN };
    unsigned seen = 0;
    int line = 0;
    for (char *s = buf, *nl; s && *s; s = nl ? nl + 1 : NULL) {
        nl = strchr(s, '\n');
        if (nl)
            *nl = 0;
        line++;
        s += strspn(s, " \t\r");
        if (!*s || *s == '#')
            continue;
        if ((rc = load_line(path, line, s, &f, &seen, why, whylen)) < 0)
            return rc;
    }
    if (!(seen & 1) || !(seen & 2))
        return snprintf(why, whylen, "%s: %s missing", path, (seen & 1) ? "tau_ms" : "model"),
               -EINVAL;
    *out = f;
    return 0;
}
