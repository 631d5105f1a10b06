/* identity.c: see identity.h. The device tree's serial-number property is a NUL-terminated
 * string (L4T exposes the tree at /proc/device-tree, a link to /sys/firmware/devicetree/base:
 * the kernel's Documentation/ABI/testing/sysfs-firmware-ofw); read by safeio's bounded
 * reader, never trusted beyond letters, digits and '-'. */
#include "measure/identity.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>

#include "lib/safeio.h"
#include "lib/util.h"

/* src's letters, digits and '-' into buf (n bytes, n >= 1); how many. */
static size_t keep_plain(const char *src, char *buf, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; src[i] && k + 1 < n; i++)
        if (isalnum((unsigned char)src[i]) || src[i] == '-')
            buf[k++] = src[i];
    buf[k] = '\0';
    return k;
}

int tb_device_identity(const struct tb_sampler *s, char *buf, size_t n)
{
    const struct tb_power_device *d = s ? tb_sampler_device(s) : NULL;
    char path[PATH_MAX], line[96], why[256], kept[96];
    if (d && d->id[0] && keep_plain(d->id, buf, n))
        return 0;
    tb_root_path(path, sizeof(path), "/proc/device-tree/serial-number");
    if (tb_safeio_line(path, line, sizeof(line), TB_SAFEIO_LINK_OK, why, sizeof(why)) >= 0 &&
        keep_plain(line, kept, sizeof(kept))) {
        snprintf(buf, n, "serial-%s", kept);
        return 0;
    }
    buf[0] = '\0';
    return -1;
}
