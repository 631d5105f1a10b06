/* point_buffers.c: see point_buffers.h. */
#include "measure/point_buffers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void tb_point_buffers_free(const struct tb_backend *be, void *st, struct tb_point_buffers *b)
{
    if (b->in)
        be->free(st, b->in);
    if (b->out)
        be->free(st, b->out);
    free(b->host);
    memset(b, 0, sizeof(*b));
}

int tb_point_buffers_get(const struct tb_backend *be, void *st, struct tb_point_buffers *b,
                         long rows, long cols, size_t bytes, bool verify)
{
    if (b->in && b->rows == rows && b->cols == cols && (!verify || b->host))
        return 0;
    tb_point_buffers_free(be, st, b);
    int rc = be->alloc(st, bytes, &b->in);
    if (rc == 0)
        rc = be->alloc(st, bytes, &b->out);
    if (rc == 0 && verify && !(b->host = malloc(bytes)))
        rc = -ENOMEM;
    if (rc) {
        tb_point_buffers_free(be, st, b);
        return rc;
    }
    b->rows = rows;
    b->cols = cols;
    b->bytes = bytes;
    return 0;
}
