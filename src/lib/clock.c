/* clock.c: see clock.h. The real clock, and the door through which the test build puts its
 * fake one (tests/fake_clock.c): the shipped tool has no fake clock in it, no scheduler and
 * no environment variable that would switch one on. */
#include "lib/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <time.h>

/* Defined only by the test build's fake clock (tests/fake_clock.c): the fake clock's ops
 * when the test's environment asks for it, else NULL. Absent from the shipped tool, where
 * this weak reference is NULL and every call below keeps the real clock. */
const struct tb_clock_ops *tb_clock_test_hook(void) __attribute__((weak));

static const struct tb_clock_ops *fake;
static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

static void ask_hook(void)
{
    if (tb_clock_test_hook)
        fake = tb_clock_test_hook();
}

/* The fake clock's ops, or NULL for the real clock. */
static const struct tb_clock_ops *fake_ops(void)
{
    pthread_once(&hook_once, ask_hook);
    return fake;
}

void tb_clock_install(const struct tb_clock_ops *ops)
{
    pthread_once(&hook_once, ask_hook);
    fake = ops;
}

bool tb_clock_is_fake(void)
{
    return fake_ops() != NULL;
}

int64_t tb_real_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t tb_now_ns(void)
{
    const struct tb_clock_ops *f = fake_ops();
    return f ? f->now_ns() : tb_real_now_ns();
}

double tb_now_s(void)
{
    return (double)tb_now_ns() * 1e-9;
}

int tb_sleep_until_ns(int64_t t_ns)
{
    const struct tb_clock_ops *f = fake_ops();
    if (f)
        return f->sleep_until_ns(t_ns);
    struct timespec ts = { (time_t)(t_ns / 1000000000), (long)(t_ns % 1000000000) };
    int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    return rc == EINTR ? -EINTR : 0;
}

int tb_sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return 0;
    return tb_sleep_until_ns(tb_now_ns() + ns);
}

double tb_clock_work_scale(void)
{
    const struct tb_clock_ops *f = fake_ops();
    return f ? f->work_scale() : 1.0;
}

/* Work just done: the real clock moved while it ran; only a fake one is told. */
void tb_clock_spend_ns(int64_t ns)
{
    const struct tb_clock_ops *f = fake_ops();
    if (f)
        f->spend_ns(ns);
}

int64_t tb_clock_spent_ns(void)
{
    const struct tb_clock_ops *f = fake_ops();
    return f ? f->spent_ns() : 0;
}

/* Threads, holds: bookkeeping of a fake clock's scheduler; nothing for the real one. */
void tb_clock_join(void)
{
    const struct tb_clock_ops *f = fake_ops();
    if (f)
        f->join();
}

void tb_clock_leave(void)
{
    const struct tb_clock_ops *f = fake_ops();
    if (f)
        f->leave();
}

int tb_clock_thread_join(pthread_t th)
{
    const struct tb_clock_ops *f = fake_ops();
    if (f && f->wait_begin)
        f->wait_begin(th);
    int rc = pthread_join(th, NULL);
    if (f && f->wait_end)
        f->wait_end();
    return -rc;
}

void tb_clock_hold(void)
{
    const struct tb_clock_ops *f = fake_ops();
    if (f)
        f->hold();
}

void tb_clock_release(void)
{
    const struct tb_clock_ops *f = fake_ops();
    if (f)
        f->release();
}

int tb_clock_child_lines(struct tb_child_lines *cl)
{
    const struct tb_clock_ops *f = fake_ops();
    if (f)
        return f->child_lines(cl);
    for (;;) {   /* every whole line there is now, none waited for */
        ssize_t got = cl->read_some(cl->arg);
        if (got <= 0)
            return got < 0 ? -EPIPE : 0;
        while (cl->take_line(cl->arg))
            ;
        cl->drop_if_full(cl->arg);
    }
}
