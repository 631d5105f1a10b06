/* fuzz_sysfs.c: libFuzzer target for sysfs value parsing: INA3221 rails and the EMC clock;
 * nvpmodel's status line and conf (the whole input as the file's text). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jetson/emc.h"
#include "power/ina3221.h"
#include "jetson/nvpmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char buf[64];
    size_t n = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1; /* the reader's buffer size */
    memcpy(buf, data, n);
    buf[n] = '\0';
    long v;
    tb_ina3221_parse_value(buf, &v);
    double hz;
    tb_emc_parse_hz(buf, &hz);
    tb_nvpmodel_parse_status(buf);
    char *conf = malloc(size + 1);
    if (!conf)
        return 0;
    memcpy(conf, data, size);
    conf[size] = '\0';
    struct tb_nvpmodel m;
    memset(&m, 0, sizeof(m));
    tb_nvpmodel_parse(conf, size ? (int)(data[0] % 5) - 1 : -1, &m);   /* -1: the default */
    free(conf);
    return 0;
}
