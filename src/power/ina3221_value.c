/* ina3221_value.c: one integer value of an INA3221 sysfs file ("1022", the legacy driver's
 * "32760 ma"), read bounded, alone or with the rest of a reading's files. The floor that
 * both the source (ina3221.c) and its over-current files (ina3221_oc.c) stand on, so neither
 * calls the other back.
 * Not here: which files are read, or what a value means (the two callers). */
#include "power/ina3221.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/safeio.h"

int tb_ina3221_parse_value(const char *buf, long *value)
{
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (end == buf || errno)
        return -EINVAL;
    while (*end == ' ' || *end == '\n')
        end++;
    /* the legacy driver's limit files say "32760 ma" / "5000 mw" */
    if (*end && strcmp(end, "mw\n") && strcmp(end, "mw") && strcmp(end, "ma\n") &&
        strcmp(end, "ma"))
        return -EINVAL;
    *value = v;
    return 0;
}

/* buf's value, or why not (rc: the read's). */
static int value_of(const char *path, const char *buf, int rc, long *value, char *why, size_t n)
{
    if (rc < 0)
        return rc == -EFBIG ? (snprintf(why, n, "'%s' holds more than a number", path),
                               -EINVAL) : rc;
    if (tb_ina3221_parse_value(buf, value) < 0) {
        snprintf(why, n, "'%s' holds '%.20s', not a number", path, buf);
        return -EINVAL;
    }
    return 0;
}

int tb_ina3221_read_value(const char *path, long *value, char *why, size_t n)
{
    char buf[64];
    /* bounded (safeio.h): a FIFO, a link or a sensor whose I2C read hangs fails the
     * source within the deadline instead of stopping the sampler for good */
    int rc = tb_safeio_read(path, buf, sizeof(buf), NULL, 0, TB_INA3221_DEADLINE_MS, why, n);
    return value_of(path, buf, rc, value, why, n);
}

void tb_ina3221_poll_clear(struct tb_ina3221_poll *p) { p->n = 0; }

void tb_ina3221_poll_add(struct tb_ina3221_poll *p, const char *path)
{
    if (p->n < TB_INA3221_POLL_MAX) {
        p->job[p->n] = (struct tb_safeio_job){ .path = path, .buf = p->text[p->n],
                                               .n = sizeof(p->text[0]) };
        p->n++;
    }
}

/* Each file read as tb_ina3221_read_value reads it, all in one round trip to a reader that
 * keeps them open (safeio.h: tb_safeio_kept_reads): at 20 readings a second, a round trip a
 * file was most of what the sampler cost (doc/power.md, "What the sampler costs"). Each
 * file's bytes are judged as a read of it alone judges them (value_of). */
void tb_ina3221_poll_read(struct tb_ina3221_poll *p)
{
    tb_safeio_kept_reads(p->job, p->n, TB_INA3221_DEADLINE_MS);
}

int tb_ina3221_poll_value(const struct tb_ina3221_poll *p, const char *path, long *value,
                          double *ms, char *why, size_t n)
{
    for (int i = 0; p && i < p->n; i++)
        if (p->job[i].path == path) {
            if (ms)
                *ms = (double)p->job[i].ns * 1e-6;
            if (p->job[i].rc < 0)
                snprintf(why, n, "%s", p->job[i].why);
            return value_of(path, p->job[i].buf, p->job[i].rc, value, why, n);
        }
    int64_t t0 = tb_real_now_ns();   /* a read's time: real, as the reader's (#57) */
    int rc = tb_ina3221_read_value(path, value, why, n);
    if (ms)
        *ms = (double)(tb_real_now_ns() - t0) * 1e-6;
    return rc;
}

int64_t tb_ina3221_poll_end_ns(const struct tb_ina3221_poll *p, const char *path)
{
    for (int i = 0; p && i < p->n; i++)
        if (p->job[i].path == path)
            return p->job[i].end_ns > 0 ? p->job[i].end_ns : -1;
    return -1;
}
