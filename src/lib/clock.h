/* clock.h: THE clock of the tool's timing decisions (idle and warming windows, power blocks,
 * settling after a mode switch, the sampler's cadence, time budgets) and the one way to sleep
 * by it; and a fake clock for tests, so that a test of a 430 ms sensor or a 30 s warming
 * never sleeps. Not the clock that times a kernel (the backends time launches with their own
 * timers) and not the deadline of a call that may hang (tb_real_now_ns, watchdog.h):
 * those must be real whatever the tests do.
 *
 * The fake clock is test machinery (tests/fake_clock.c), linked only into the test programs
 * and the test-only executable, never into the shipped tool: there it is switched on by
 * TB_FAKE_CLOCK=1 in the environment, or by tb_clock_fake() before any thread starts, and
 * handed to this clock as a struct tb_clock_ops. It is virtual time that moves only when
 * the threads that keep time by it wait on it: when every joined thread sleeps (tb_sleep_*)
 * or spends (tb_clock_spend_ns), time jumps to the earliest wake. A joined thread blocked
 * elsewhere (a join, a lock, a poll) stalls it for TB_CLOCK_GRACE_MS of real time at most (a
 * test run may set it longer: tests/fake_clock.h), after which time moves anyway: a test
 * stays live whatever it waits on (a join of a thread of the clock by tb_clock_thread_join
 * does not stall it). A thread that is running (or only waiting for a CPU on a
 * busy machine: state R in /proc), or waiting for this clock's own lock, never has time moved
 * under it, nor a thread joined that has not started yet (2 s of real time at most), so a
 * slow scheduler cannot make a sample late in virtual time. The main thread is joined from
 * the start; for another thread that sleeps by this clock, its creator calls tb_clock_join()
 * before pthread_create (so that no time passes before it runs) and the thread calls
 * tb_clock_leave() as it ends.
 *
 * A child's output and virtual time (the fake tegrastats of tests/, or any replay a source
 * reads from a child): under the fake clock the child prints its lines at once, without
 * sleeping, and the reader takes one line per sample: line k of the child is the reading
 * of the k-th tick of virtual time, whatever real time the child took (the reader asks
 * tb_clock_child_lines). It waits for the line a tick is owed while the clock holds, so
 * that no time passes meanwhile, and for TB_CLOCK_CHILD_WAIT_MS of real time at most: a child
 * silent that long is silent (a hung tegrastats), and later ticks do not wait for it
 * until it speaks again. The pipe's own buffer keeps a fast child a few lines ahead. */
#ifndef TB_CLOCK_H
#define TB_CLOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define TB_CLOCK_GRACE_MS 20
#define TB_CLOCK_CHILD_WAIT_MS 1000

/* Now, in ns of CLOCK_MONOTONIC (virtual under the fake clock), and in seconds. */
int64_t tb_now_ns(void);
double tb_now_s(void);
/* CLOCK_MONOTONIC always: deadlines of reads and child processes that may hang. */
int64_t tb_real_now_ns(void);

/* Sleep ns, or until t_ns of tb_now_ns()'s clock. 0, or -EINTR when a signal cut a real
 * sleep short (the caller checks its stop flag and sleeps again if it wants). */
int tb_sleep_ns(int64_t ns);
int tb_sleep_until_ns(int64_t t_ns);
/* Work of ns just done (a chunk of launches, timed by the backend): nothing on the real
 * clock, which moved while it ran; the fake clock moves by ns now. */
void tb_clock_spend_ns(int64_t ns);
/* Under the fake clock, the virtual ns spent so far (by every tb_clock_spend_ns): a fake
 * sensor's "how busy was the device" (tests/fake_ina_driver.c); 0 under the real clock. */
int64_t tb_clock_spent_ns(void);

void tb_clock_join(void);
void tb_clock_leave(void);
/* pthread_join(th) by a thread that keeps time by this clock (the main thread, or one
 * joined), for a thread of the clock that ends by tb_clock_leave (the sampler's). Under the
 * fake clock the caller counts as asleep with no wake of its own until a thread leaves, so
 * the time th sleeps by moves at once instead of after the grace (a plain pthread_join is
 * a block outside the clock: TB_CLOCK_GRACE_MS of real time each, #59). 0, or pthread_join's
 * error negated. */
int tb_clock_thread_join(pthread_t th);
/* Under the fake clock, time does not move between hold and release (nested holds count):
 * a joined thread waiting in real time for what a tick is owed (a child's line). Nothing
 * under the real clock. */
void tb_clock_hold(void);
void tb_clock_release(void);
bool tb_clock_is_fake(void);
/* How many ns of virtual time one ns of device work counts for: TB_FAKE_CLOCK_WORK=N under
 * the fake clock (a device N times slower: a test's minute of load costs a second of real
 * work), else 1. A load sizes its chunks by it and spends chunk x launch time x it. */
double tb_clock_work_scale(void);

/* A child's output, as its reader keeps it (tegrastats.c): its lines taken by the clock's
 * rule above. Every callback gets arg. */
struct tb_child_lines {
    int fd;                          /* the child's output, non-blocking */
    bool (*take_line)(void *arg);    /* parses the first whole line buffered: true if one */
    ssize_t (*read_some)(void *arg); /* reads what is there: bytes, 0 none now, < 0 gone */
    void (*drop_if_full)(void *arg); /* a buffer full without a line end: dropped */
    bool *have_new;                  /* a reading was taken since the reader last used one */
    bool *silent;                    /* the child was silent past the wait (the fake clock) */
    void *arg;
};
/* Reads the child's lines: under the real clock every whole line there is now, without
 * blocking (the latest reading kept); under the fake clock its next line, one per sample,
 * waited for while the clock holds. 0, or -EPIPE when the child is gone. */
int tb_clock_child_lines(struct tb_child_lines *cl);

/* A clock other than the real one (the test build's fake clock): every call above goes
 * through it once installed. */
struct tb_clock_ops {
    int64_t (*now_ns)(void);
    int (*sleep_until_ns)(int64_t t_ns);
    void (*spend_ns)(int64_t ns);
    int64_t (*spent_ns)(void);
    void (*join)(void);
    void (*leave)(void);
    void (*wait_begin)(pthread_t th);   /* tb_clock_thread_join's wait for th, around */
    void (*wait_end)(void);
    void (*hold)(void);
    void (*release)(void);
    double (*work_scale)(void);
    int (*child_lines)(struct tb_child_lines *cl);
};
/* From now on, ops keeps time (NULL: the real clock again); before any thread starts. */
void tb_clock_install(const struct tb_clock_ops *ops);

#endif
