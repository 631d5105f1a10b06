/* ina3221_value.c: one integer value of an INA3221 sysfs file ("1022", the legacy driver's
 * "32760 ma"), read bounded. The floor that both the source (ina3221.c) and its
 * over-current files (ina3221_oc.c) stand on, so neither calls the other back.
 * Not here: which files are read, or what a value means (the two callers). */
#include "power/ina3221.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int tb_ina3221_read_value(const char *path, long *value, char *why, size_t n)
{
    char buf[64];
    /* bounded (safeio.h): a FIFO, a link or a sensor whose I2C read hangs fails the
     * source within the deadline instead of stopping the sampler for good */
    int rc = tb_safeio_read(path, buf, sizeof(buf), NULL, 0, TB_INA3221_DEADLINE_MS, why, n);
    if (rc < 0)
        return rc == -EFBIG ? (snprintf(why, n, "'%s' holds more than a number", path),
                               -EINVAL) : rc;
    if (tb_ina3221_parse_value(buf, value) < 0) {
        snprintf(why, n, "'%s' holds '%.20s', not a number", path, buf);
        return -EINVAL;
    }
    return 0;
}
