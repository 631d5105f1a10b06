/* backend.c: choosing a backend from --device, and whether a kernel can run in this
 * process. The CUDA backend is always built (it opens the driver at run time); its probe
 * says why a GPU cannot be used. */
#include "measure/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tb_backend_select(const char *spec, const struct tb_backend **out, int *index, char *why,
                      size_t n, int *probe_rc)
{
    why[0] = '\0';
    *index = 0;
    *probe_rc = 0;
    if (!strcmp(spec, "cpu")) {
        *out = &tb_backend_cpu;
        return 0;
    }
    if (!strncmp(spec, "cuda", 4) && (spec[4] == '\0' || spec[4] == ':')) {
        if (spec[4] == ':') {
            char *end;
            long v = strtol(spec + 5, &end, 10);
            if (end == spec + 5 || *end || v < 0 || v > 1024)
                return -1;
            *index = (int)v;
        }
        *out = &tb_backend_cuda;
        return 0;
    }
    if (strcmp(spec, "auto"))
        return -1;
    const struct tb_backend *cuda = &tb_backend_cuda;
    if ((*probe_rc = cuda->probe(0, why, n)) == 0) {
        *out = cuda;
        return 0;
    }
    *out = &tb_backend_cpu;
    return 0;
}

void *tb_backend_new(const struct tb_backend *be)
{
    return calloc(1, be->state_size ? be->state_size : 1);
}

int tb_kernel_usable(const struct tb_kernel *k, char *why, size_t n)
{
    const struct tb_backend *be = k->backend == TB_BACKEND_CUDA ? &tb_backend_cuda : &tb_backend_cpu;
    const char *no = be->unusable ? be->unusable(k) : NULL;
    if (no)
        snprintf(why, n, "%s", no);
    return no == NULL;
}
