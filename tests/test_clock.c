/* test_clock.c: the fake clock (lib/clock.h): virtual time moves only when the threads that
 * keep time by it wait, so a 430 ms sensor's cadence and a minute's window cost no real
 * sleep, and a thread blocked elsewhere never stalls it for good. */
#include "helpers.h"

#include <poll.h>
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

/* A thread that keeps the clock: joined before it starts, as the sampler is. */
static pthread_t start_joined(void *(*fn)(void *), void *arg)
{
    pthread_t th;
    tb_clock_join();
    assert_int_equal(pthread_create(&th, NULL, fn, arg), 0);
    return th;
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
 * pthread_join (outside the clock) still ends, by the grace. */
static void test_cadence_is_exact_and_join_ends(void **state)
{
    (void)state;
    tb_clock_fake(0);
    struct ticker t = { .start = tb_now_ns(), .period = 430 * MS };
    pthread_t th = start_joined(tick, &t);
    tb_sleep_until_ns(t.start + 2000 * MS);
    assert_true(tb_now_ns() == t.start + 2000 * MS);
    atomic_store(&t.stop, 1);
    long graces = tb_fake_clock_graces();
    pthread_join(th, NULL);
    assert_true(tb_fake_clock_graces() > graces);
    assert_true(t.n >= 4);
    for (int i = 0; i < 4; i++)
        assert_true(t.woke[i] == t.start + (i + 1) * 430 * MS);
}

/* The same stop by tb_clock_thread_join: main counts as asleep until the ticker leaves, so
 * time moves to its next tick at once, with no grace; and a join of a thread that has left
 * already moves no time, though another joined thread sleeps (nothing would wake main). */
static void *leave_now(void *arg)
{
    (void)tb_now_ns();
    tb_clock_leave();
    return arg;
}

static void test_thread_join_moves_time_at_once(void **state)
{
    (void)state;
    tb_clock_fake(0);
    struct ticker t = { .start = tb_now_ns(), .period = 430 * MS };
    pthread_t th = start_joined(tick, &t);
    pthread_t gone = start_joined(leave_now, NULL);
    tb_sleep_until_ns(t.start + 2000 * MS);   /* ends only once `gone` has left */
    long graces = tb_fake_clock_graces();
    assert_int_equal(tb_clock_thread_join(gone), 0);
    assert_true(tb_now_ns() == t.start + 2000 * MS);
    atomic_store(&t.stop, 1);
    assert_int_equal(tb_clock_thread_join(th), 0);
    assert_true(tb_now_ns() == t.start + 5 * 430 * MS);   /* the tick that saw the stop */
    assert_int_equal(tb_fake_clock_graces(), graces);
    assert_int_equal(t.n, 5);
}

/* A joined thread at work on the CPU (here: spinning for 5 graces of real time, as a slow
 * sample on a loaded machine is): main's sleep does not move time under it; it sees the
 * time it started at, and main wakes on time once it is done. */
struct spinner {
    int64_t seen_at, real_ns;
};

static void *spin(void *arg)
{
    struct spinner *sp = arg;
    int64_t t = tb_now_ns();
    int64_t r0 = tb_real_now_ns();
    while (tb_real_now_ns() - r0 < sp->real_ns)
        ;
    sp->seen_at = tb_now_ns() - t;
    tb_clock_leave();
    return NULL;
}

static void test_no_time_moves_under_a_running_thread(void **state)
{
    (void)state;
    tb_clock_fake(0);
    struct spinner sp = { .real_ns = 5 * tb_fake_clock_grace_ms() * MS };
    int64_t t0 = tb_now_ns();
    pthread_t th = start_joined(spin, &sp);
    tb_sleep_ns(1000 * MS);
    pthread_join(th, NULL);
    assert_true(sp.seen_at == 0);
    assert_true(tb_now_ns() == t0 + 1000 * MS);
}

/* A reader waiting for a child's line holds the clock: the ticker's sleep does not end
 * while main, joined and blocked (a poll), holds it past the grace; after the release it
 * does, on its tick. */
static void test_hold_keeps_time_still(void **state)
{
    (void)state;
    tb_clock_fake(0);
    struct ticker t = { .start = tb_now_ns(), .period = 100 * MS };
    tb_clock_hold();
    pthread_t th = start_joined(tick, &t);
    poll(NULL, 0, (int)(5 * tb_fake_clock_grace_ms()));  /* a real wait: the grace is tested */
    assert_int_equal(t.n, 0);
    assert_true(tb_now_ns() == t.start);
    tb_clock_release();
    tb_sleep_until_ns(t.start + 250 * MS);
    atomic_store(&t.stop, 1);
    pthread_join(th, NULL);
    assert_true(t.n >= 2);
    assert_true(t.woke[0] == t.start + 100 * MS && t.woke[1] == t.start + 200 * MS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleep_moves_virtual_time),
        cmocka_unit_test(test_cadence_is_exact_and_join_ends),
        cmocka_unit_test(test_thread_join_moves_time_at_once),
        cmocka_unit_test(test_no_time_moves_under_a_running_thread),
        cmocka_unit_test(test_hold_keeps_time_still),
    };
    return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
