/* point_buffers.h: a point's buffers on the device (input, output) and on the host (the
 * output downloaded for verifying), kept while the size stays the same and made again when
 * it changes. The runner's timing (runner.c) and its energy load (runner_energy.c) share
 * them; neither calls the other for them. */
#ifndef TB_POINT_BUFFERS_H
#define TB_POINT_BUFFERS_H

#include <stdbool.h>
#include <stddef.h>

#include "measure/backend.h"

struct tb_point_buffers {
    long rows, cols;
    void *in, *out;
    void *host;           /* download target for verification */
    size_t bytes;
};

/* Frees what b holds (through the backend be and its instance st); b is then empty. */
void tb_point_buffers_free(const struct tb_backend *be, void *st, struct tb_point_buffers *b);
/* Input and output of bytes each for a rows x cols size (and the host copy when verify),
 * unless b holds them already. 0, or the backend's error (b then empty). */
int tb_point_buffers_get(const struct tb_backend *be, void *st, struct tb_point_buffers *b,
                         long rows, long cols, size_t bytes, bool verify);

#endif
