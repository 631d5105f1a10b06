/* fake_clock.h: the fake clock of lib/clock.h for the test programs (tests/fake_clock.c:
 * linked into them and into the test-only executable, never into the shipped tool). */
#ifndef TB_FAKE_CLOCK_H
#define TB_FAKE_CLOCK_H

#include <stdint.h>

#include "lib/clock.h"

/* The fake clock from now on, starting at start_ns (0: at the real clock's now); before
 * any thread starts. Nothing when it is on already (TB_FAKE_CLOCK=1 at the clock's first
 * use). */
void tb_clock_fake(int64_t start_ns);
/* Asked once by lib/clock.c at the clock's first use: the fake clock's ops when
 * TB_FAKE_CLOCK is set (and not 0), else NULL. */
const struct tb_clock_ops *tb_clock_test_hook(void);
/* The grace in use (ms): TB_FAKE_CLOCK_GRACE_MS from the environment (1 to 5000), else
 * TB_CLOCK_GRACE_MS. Under valgrind, which runs one thread at a time, a thread waiting for
 * its turn reads as sleeping in /proc, not running: the grace must outlast those turns, or
 * time moves under a thread that is only waiting for valgrind (scripts/run-tests.sh sets
 * 200 there). */
long tb_fake_clock_grace_ms(void);
/* How many times the grace has moved time so far: each is a joined thread that blocked
 * outside the clock (a pthread_join, a lock, a read) while the others slept, and cost a
 * grace of real time (#59: the sampler's stop, once a night, was most of test_meter_sim's
 * and test_rerun_calib's minutes). */
long tb_fake_clock_graces(void);

#endif
