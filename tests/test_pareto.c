/* test_pareto.c: the front of GB/s against dynamic pJ/B and its knee (src/report/pareto.c) on
 * operating points whose front and knee are known by construction: a bend, a straight
 * line, two points, ties and duplicates, points without a figure. */
#include "helpers.h"

#include <math.h>

#include "report/pareto.h"

static struct tb_pareto_point pt(double x, double y, size_t src)
{
    return (struct tb_pareto_point){ .x = x, .y = y, .src = src, .x_ci = NAN, .y_ci = NAN };
}

/* Four modes: 7W (40 GB/s, 20 pJ/B), 15W (60, 25), 25W (64, 40), MAXN (65, 60), and a
 * capped MAXN that moves fewer bytes for more energy (50, 45). The bend is at 15W: from
 * there on, each GB/s costs several times more energy. */
static void test_front_and_knee(void **state)
{
    (void)state;
    struct tb_pareto_point p[] = {
        pt(60, 65, 0), pt(45, 50, 1), pt(20, 40, 2), pt(40, 64, 3), pt(25, 60, 4),
    };
    size_t nf = tb_pareto_front(p, 5);
    assert_int_equal(nf, 4);
    size_t order[] = { 2, 4, 3, 0, 1 };   /* front by energy, then the dominated one */
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(p[i].src, order[i]);
    assert_true(p[0].front && p[1].front && p[2].front && p[3].front);
    assert_false(p[4].front);   /* 50 GB/s at 45 pJ/B: 25W moves more for less */
    size_t knees = 0;
    for (size_t i = 0; i < 5; i++)
        knees += p[i].knee;
    assert_int_equal(knees, 1);
    assert_true(p[1].knee);      /* 15W */
    th_assert_close(p[1].frac_y_of_fastest, 60.0 / 65, 1e-12);
    th_assert_close(p[1].frac_x_of_fastest, 25.0 / 60, 1e-12);
    th_assert_close(p[3].frac_y_of_fastest, 1, 1e-12);
}

/* Points on a straight line have no bend: the knee is the least-energy end (no interior
 * point is above the line), and adding a point above the line moves it there. */
static void test_straight_line(void **state)
{
    (void)state;
    struct tb_pareto_point p[] = { pt(10, 10, 0), pt(20, 20, 1), pt(30, 30, 2) };
    assert_int_equal(tb_pareto_front(p, 3), 3);
    assert_true(p[0].knee && !p[1].knee && !p[2].knee);
    struct tb_pareto_point q[] = { pt(10, 10, 0), pt(20, 20, 1), pt(30, 30, 2), pt(15, 25, 3) };
    assert_int_equal(tb_pareto_front(q, 4), 3);   /* (20, 20) is dominated by (15, 25) */
    assert_int_equal(q[1].src, 3);
    assert_true(q[1].knee);
}

/* Two points: the cheaper one is the knee when it keeps 95% of the faster's GB/s. */
static void test_two_points(void **state)
{
    (void)state;
    struct tb_pareto_point p[] = { pt(30, 100, 0), pt(20, 96, 1) };
    assert_int_equal(tb_pareto_front(p, 2), 2);
    assert_int_equal(p[0].src, 1);
    assert_true(p[0].knee);
    struct tb_pareto_point q[] = { pt(30, 100, 0), pt(20, 90, 1) };
    assert_int_equal(tb_pareto_front(q, 2), 2);
    assert_true(q[1].knee && !q[0].knee);
}

/* A duplicate stays off the front once; a point without a figure is never on it. */
static void test_ties_and_missing(void **state)
{
    (void)state;
    struct tb_pareto_point p[] = { pt(20, 50, 0), pt(20, 50, 1), pt(NAN, 80, 2), pt(10, NAN, 3),
                                   pt(20, 40, 4) };
    assert_int_equal(tb_pareto_front(p, 5), 1);
    assert_int_equal(p[0].src, 0);
    assert_true(p[0].front && p[0].knee);
    for (size_t i = 1; i < 5; i++)
        assert_false(p[i].front || p[i].knee);
    struct tb_pareto_point none[] = { pt(NAN, NAN, 0) };
    assert_int_equal(tb_pareto_front(none, 1), 0);
    assert_false(none[0].knee);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_front_and_knee),
        cmocka_unit_test(test_straight_line),
        cmocka_unit_test(test_two_points),
        cmocka_unit_test(test_ties_and_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
