/* fuzz_sysfs.c: libFuzzer target for sysfs value parsing: INA3221 rails and the EMC clock. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power/emc.h"
#include "power/ina3221.h"

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
    return 0;
}
