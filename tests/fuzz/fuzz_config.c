/* fuzz_config.c: libFuzzer target for the sweep and board file loader (both roles, with
 * the kernel and device checks of point_rules.c). Files go through /dev/shm, as the
 * loader reads a path. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "measure/backend.h"
#include "config/config.h"
#include "measure/point_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof(path), "/dev/shm/tb-fuzz-config-%ld.cfg", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    static const struct tb_device_info dev = { .name = "fuzz", .max_threads_per_block = 1024,
                                               .mem_bytes = (size_t)8 << 30 };
    for (int role = 0; role < 2; role++) {
        struct tb_config c;
        struct tb_diag d = { 0 };
        tb_config_init(&c);
        tb_config_load(&c, role ? NULL : path, role ? path : NULL, &d);
        tb_point_rules_check_names(&c, TB_BACKEND_CPU, true, &d);
        tb_point_rules_check_device(&c, &dev, &d);
        tb_config_free(&c);
        tb_diag_free(&d);
    }
    return 0;
}
