/* test_sweep.c: expanding settings into points: order, the reference copy first,
 * block rules turning points into skips, and a sweep with nothing left to run. */
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "measure/sweep.h"

static void load(struct tb_config *c, struct tb_diag *d, const char *kernels, const char *sizes,
                 const char *blocks)
{
    tb_config_init(c);
    tb_config_add_override(c, "sweep.kernels", kernels, "test");
    tb_config_add_override(c, "sweep.sizes", sizes, "test");
    tb_config_add_override(c, "sweep.blocks", blocks, "test");
    assert_int_equal(tb_config_load(c, NULL, NULL, d), 0);
}

static void test_cpu_all(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    load(&c, &d, "[\"*\"]", "([4,4],[3,5])", "([16,16],[32,8])");
    struct tb_point *p;
    size_t n;
    assert_int_equal(tb_sweep_expand(&c.sweep, TB_BACKEND_CPU, &p, &n, &d), 0);
    /* per size: copy_row, naive_row (no block), blocked x 2 blocks */
    assert_int_equal(n, 8);
    assert_string_equal(p[0].k->name, "copy_row");
    assert_false(p[0].auto_ref);
    assert_string_equal(p[1].k->name, "naive_row");
    assert_int_equal(p[1].bx, 0);
    assert_string_equal(p[3].k->name, "blocked");
    assert_int_equal(p[3].bx, 32);
    assert_int_equal(p[4].rows, 3);
    assert_int_equal(tb_sweep_count_runnable(p, n), 8);
    free(p);
    tb_config_free(&c);
}

static void test_reference_copy_added(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    load(&c, &d, "[\"blocked\"]", "([4,4])", "([8,8])");
    struct tb_point *p;
    size_t n;
    assert_int_equal(tb_sweep_expand(&c.sweep, TB_BACKEND_CPU, &p, &n, &d), 0);
    assert_int_equal(n, 2);
    assert_string_equal(p[0].k->name, "copy_row");
    assert_true(p[0].auto_ref);            /* added so frac_copy has a divisor */
    free(p);
    tb_config_free(&c);
}

/* `best` stands for the backend's candidate rows (naive_row and blocked on the CPU), each over
 * the blocks given, asked for (not added as references), beside a kernel also named. */
static void test_best_candidates(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    load(&c, &d, "[\"best\", \"blocked\"]", "([5,7])", "([8,8],[16,4])");
    assert_true(tb_sweep_wants_best(&c.sweep));
    struct tb_point *p;
    size_t n;
    assert_int_equal(tb_sweep_expand(&c.sweep, TB_BACKEND_CPU, &p, &n, &d), 0);
    assert_int_equal(n, 4);   /* copy_row, naive_row, blocked x 2: blocked once */
    assert_string_equal(p[0].k->name, "copy_row");
    assert_true(p[0].auto_ref);
    assert_string_equal(p[1].k->name, "naive_row");
    assert_false(p[1].auto_ref);
    assert_string_equal(p[2].k->name, "blocked");
    assert_int_equal(p[3].bx, 16);
    assert_false(p[3].auto_ref);
    free(p);
    tb_config_free(&c);
    load(&c, &d, "[\"blocked\"]", "([5,7])", "([8,8])");
    assert_false(tb_sweep_wants_best(&c.sweep));
    tb_config_free(&c);
}

#ifdef TB_HAVE_CUDA
/* On the GPU `best` is the fast rows that take the element: strip among them, the seeds' not */
static void test_best_cuda(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    load(&c, &d, "[\"best\"]", "([61,100003])", "([256,1],[32,8])");
    struct tb_point *p;
    size_t n;
    assert_int_equal(tb_sweep_expand(&c.sweep, TB_BACKEND_CUDA, &p, &n, &d), 0);
    bool strip = false, naive = false, bperm = false;
    for (size_t i = 0; i < n; i++) {
        strip |= !strcmp(p[i].k->name, "strip") && !p[i].skip;
        naive |= !strcmp(p[i].k->name, "naive_row");
        bperm |= !strcmp(p[i].k->name, "bperm16");   /* bytes and halves only: not floats */
        assert_true(i == 0 || (p[i].k->flags & TB_KF_BEST));
    }
    assert_true(strip);
    assert_false(naive);
    assert_false(bperm);
    free(p);
    tb_config_free(&c);
}

static void test_block_rule_skips(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    load(&c, &d, "[\"smem_pad\", \"naive_row\"]", "([64,64])", "([32,32],[32,8])");
    struct tb_point *p;
    size_t n;
    assert_int_equal(tb_sweep_expand(&c.sweep, TB_BACKEND_CUDA, &p, &n, &d), 0);
    assert_int_equal(n, 5); /* memcpy, smem_pad x2, naive_row x2 */
    assert_false(p[1].skip);
    assert_true(p[2].skip);
    assert_string_equal(p[2].why, "square tile: needs block.x == block.y, got 32x8");
    free(p);
    tb_config_free(&c);
}

static void test_shape_rule_skips(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    load(&c, &d, "[\"tile2x2\"]", "([64,64],[63,64])", "([32,8])");
    struct tb_point *p;
    size_t n;
    assert_int_equal(tb_sweep_expand(&c.sweep, TB_BACKEND_CUDA, &p, &n, &d), 0);
    assert_int_equal(n, 4); /* memcpy + tile2x2, per size */
    assert_false(p[1].skip);
    assert_true(p[3].skip);
    assert_string_equal(p[3].why, "2x2 blocks: needs even rows and cols, got 63x64");
    free(p);
    tb_config_free(&c);
}

static void test_nothing_to_run(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    load(&c, &d, "[\"smem_pad\"]", "([64,64])", "([32,8],[256,1])");
    struct tb_point *p;
    size_t n;
    assert_int_equal(tb_sweep_expand(&c.sweep, TB_BACKEND_CUDA, &p, &n, &d), -1);
    assert_int_equal(d.n, 1);
    assert_non_null(strstr(d.msgs[0], "nothing to run"));
    tb_diag_free(&d);
    tb_config_free(&c);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_all),
        cmocka_unit_test(test_reference_copy_added),
        cmocka_unit_test(test_best_candidates),
#ifdef TB_HAVE_CUDA
        cmocka_unit_test(test_best_cuda),
        cmocka_unit_test(test_block_rule_skips),
        cmocka_unit_test(test_shape_rule_skips),
        cmocka_unit_test(test_nothing_to_run),
#endif
    };
    return cmocka_run_group_tests_name("sweep", tests, NULL, NULL);
}
