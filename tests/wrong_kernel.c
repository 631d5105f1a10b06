/* wrong_kernel.c: a CPU kernel that is wrong on purpose, for the test-only executable
 * (build/tests/transpose-bench-hooks, with kernels/kernel_table.c built with
 * -DTB_TEST_KERNELS). It transposes as naive_row does, then flips every bit of one element
 * in the middle of the output, so only the verification can tell. */
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

int tb_test_wrong_row(struct tb_launch *l);

int tb_test_wrong_row(struct tb_launch *l)
{
    int rc = tb_cpu_naive_row(l);
    if (rc)
        return rc;
    size_t count = (size_t)l->rows * (size_t)l->cols, mid = count / 2;
    unsigned char *p = (unsigned char *)l->out + mid * (size_t)l->elem_size;
    for (int i = 0; i < l->elem_size; i++)
        p[i] ^= 0xFF;
    return 0;
}
