/* fuzz_compare.c: libFuzzer target for the log reader of `compare` (plain or gzip). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof(path), "/dev/shm/tb-fuzz-log-%ld.csv", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    struct tb_compare_recs r = { 0 };
    int problems = 0;
    tb_compare_read(path, &r, &problems);
    free(r.v);
    return 0;
}
