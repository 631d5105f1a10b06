/* fuzz_compare.c: libFuzzer target for the log reader (logread.c, plain or gzip) that
 * compare and history share. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log/logread.h"

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
    struct tb_logset s;
    tb_logset_init(&s, "compare");
    s.max_rows_per_log = 10000;   /* a bomb stops at the cap, said, like the real one */
    tb_logread(&s, path);
    tb_logset_fill_ids(&s);
    tb_logset_free(&s);
    return 0;
}
