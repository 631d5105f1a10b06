/* fuzz_tegrastats.c: libFuzzer target for the tegrastats line parser. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "power/tegrastats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);
    memcpy(line, data, size);
    line[size] = '\0';
    struct tb_tegrastats_reading r;
    int k = tb_tegrastats_parse(line, &r);
    if (k < 0 || r.n_rails < 0 || r.n_rails > TB_POWER_MAX_RAILS)
        abort();
    for (int i = 0; i < r.n_rails; i++)
        if (strlen(r.rail[i]) >= TB_RAIL_NAME)
            abort();
    free(line);
    return 0;
}
