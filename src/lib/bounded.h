/* bounded.h: a call that may never return (an open or read in a folder on a stuck FUSE or
 * network mount), made on a thread of its own and waited for within a deadline by the
 * tool's clock (lib/clock.h: the fake one in tests) and not at all once a stop flag (a
 * signal handler's) is set. A call given up is left to end when it returns; its thread is
 * never joined and owns its argument from then on. Not here: what is called. */
#ifndef TB_BOUNDED_H
#define TB_BOUNDED_H

#include <signal.h>

/* Calls fn(arg) on a thread of its own (every signal blocked there) and waits until it
 * returns, limit_s passes, or *stop (NULL: none) is set; a stop already set starts nothing.
 * 0: fn returned, arg is the caller's again. Else the call is given up: -ETIMEDOUT past the
 * limit, -EINTR on a stop, or -errno when its thread could not start; drop(arg) (NULL: none)
 * is then called once, at once when fn never started, else on fn's thread when it returns. */
int tb_bounded_call(void (*fn)(void *arg), void *arg, void (*drop)(void *arg), double limit_s,
                    const volatile sig_atomic_t *stop);

/* How a call given up with rc (-ETIMEDOUT or -EINTR) ended, to follow a verb ("not read
 * %s"): "within N s (a file whose open or read does not return?)" past the limit, "before a
 * signal asked the run to end" on a stop (once said as the limit passed, "within 3600 s
 * (stopped by a signal)", after no time at all). Into buf; returns buf. */
const char *tb_bounded_why(int rc, double limit_s, char *buf, size_t n);

#endif
