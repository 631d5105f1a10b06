/* test_clock.c: the fake clock (lib/clock.h): virtual time moves only when the threads that
 * keep time by it wait, so a 430 ms sensor's cadence and a minute's window cost no real
 * sleep, and a thread blocked elsewhere never stalls it for good. */
#include "helpers.h"

#include <pthread.h>
#include <stdatomic.h>

#include "lib/clock.h"

#define MS 1000000LL

struct ticker {
    int64_t start, period;
    int64_t woke[64];
    int n;
    atomic_int stop;
};

/* A joined thread on a fixed cadence, as the sampler is. */
static void *tick(void *arg)
{
    struct ticker *t = arg;
    int64_t next = t->start;
    while (!atomic_load(&t->stop) && t->n < 64) {
        next += t->period;
        tb_sleep_until_ns(next);
        t->woke[t->n++] = tb_now_ns();
    }
    tb_clock_leave();
    return NULL;
}

static void test_sleep_moves_virtual_time(void **state)
{
    (void)state;
    tb_clock_fake(0);
    assert_true(tb_clock_is_fake());
    int64_t t0 = tb_now_ns();
    assert_int_equal(tb_sleep_ns(60000 * MS), 0);   /* a minute, at once */
    assert_true(tb_now_ns() - t0 == 60000 * MS);
    tb_clock_spend_ns(5 * MS);
    assert_true(tb_now_ns() - t0 == 60005 * MS);
    tb_sleep_until_ns(t0);                           /* the past: no move */
    assert_true(tb_now_ns() - t0 == 60005 * MS);
}

/* Main sleeps 2 s while a 430 ms ticker runs: the ticker wakes exactly on its cadence and
 * main wakes at exactly 2 s, whatever the scheduler does; stopping it while main is in
 * pthread_join (outside the clock) still ends (the grace). */
static void test_cadence_is_exact_and_join_ends(void **state)
{
    (void)state;
    tb_clock_fake(0);
    struct ticker t = { .start = tb_now_ns(), .period = 430 * MS };
    pthread_t th;
    tb_clock_join();
    assert_int_equal(pthread_create(&th, NULL, tick, &t), 0);
    tb_sleep_until_ns(t.start + 2000 * MS);
    assert_true(tb_now_ns() == t.start + 2000 * MS);
    atomic_store(&t.stop, 1);
    pthread_join(th, NULL);
    assert_true(t.n >= 4);
    for (int i = 0; i < 4; i++)
        assert_true(t.woke[i] == t.start + (i + 1) * 430 * MS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleep_moves_virtual_time),
        cmocka_unit_test(test_cadence_is_exact_and_join_ends),
    };
    return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
