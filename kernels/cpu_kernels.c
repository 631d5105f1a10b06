/* cpu_kernels.c: the CPU backend's kernels. naive_row is the seeds' host loop and the
 * reference the tests hold every other kernel to; blocked is a cache-blocked transpose;
 * copy_row is the CPU's copy bound. Element size 1, 2, 4 or 8 bytes. Not tuned code.
 * Each checks l->stop between rows (or chunks): a 20 GB point answers a signal at once. */
#include "kernels.h"

#include <stdint.h>
#include <string.h>

#define STOPPED(l) ((l)->stop && *(l)->stop)

#define FOR_EACH_ELEM(l, body)                                                    \
    switch ((l)->elem_size) {                                                     \
    case 1: { typedef uint8_t T; body; } break;                                   \
    case 2: { typedef uint16_t T; body; } break;                                  \
    case 4: { typedef uint32_t T; body; } break;                                  \
    case 8: { typedef uint64_t T; body; } break;                                  \
    default: return -22; /* -EINVAL */                                            \
    }

int tb_cpu_naive_row(struct tb_launch *l)
{
    const size_t rows = (size_t)l->rows, cols = (size_t)l->cols;
    FOR_EACH_ELEM(l, {
        const T *in = (const T *)l->in;
        T *out = (T *)l->out;
        for (size_t r = 0; r < rows; r++) {
            if (STOPPED(l))
                return -4; /* -EINTR */
            for (size_t c = 0; c < cols; c++)
                out[c * rows + r] = in[r * cols + c];
        }
    });
    l->grid_x = l->grid_y = 0;
    return 0;
}

int tb_cpu_blocked(struct tb_launch *l)
{
    const size_t rows = (size_t)l->rows, cols = (size_t)l->cols;
    const size_t tr = (size_t)l->block_y, tc = (size_t)l->block_x;
    FOR_EACH_ELEM(l, {
        const T *in = (const T *)l->in;
        T *out = (T *)l->out;
        for (size_t r0 = 0; r0 < rows; r0 += tr) {
            if (STOPPED(l))
                return -4; /* -EINTR */
            for (size_t c0 = 0; c0 < cols; c0 += tc) {
                size_t r1 = r0 + tr < rows ? r0 + tr : rows;
                size_t c1 = c0 + tc < cols ? c0 + tc : cols;
                for (size_t r = r0; r < r1; r++)
                    for (size_t c = c0; c < c1; c++)
                        out[c * rows + r] = in[r * cols + c];
            }
        }
    });
    l->grid_x = (unsigned)((cols + tc - 1) / tc);
    l->grid_y = (unsigned)((rows + tr - 1) / tr);
    return 0;
}

int tb_cpu_copy_row(struct tb_launch *l)
{
    const size_t n = (size_t)l->rows * (size_t)l->cols * (size_t)l->elem_size;
    const size_t chunk = (size_t)64 << 20;
    for (size_t off = 0; off < n; off += chunk) {
        if (STOPPED(l))
            return -4; /* -EINTR */
        memcpy((char *)l->out + off, (const char *)l->in + off, n - off < chunk ? n - off : chunk);
    }
    l->grid_x = l->grid_y = 0;
    return 0;
}
