/* watchdog.h: deadlines for calls that may never return (the CUDA driver's init, context,
 * module loads and JIT, synchronizations; dlopen of a library). One helper thread keeps the
 * time, as fio's helper thread does; a call is bracketed by tb_watch_begin and tb_watch_end.
 * When a bracketed call outlives its deadline, or a stop signal arrives while the main
 * thread is inside one (a hung GPU never returns to check the flag), the thread calls the
 * ending the owner registered (run.c: the log's end line, the lock released) and ends the
 * process with exit status 1. Not a general timer: nothing outside the brackets is cut. */
#ifndef TB_WATCHDOG_H
#define TB_WATCHDOG_H

#include <signal.h>
#include <stdbool.h>

/* The ending: what, e.g. "the CUDA driver did not return from cuInit within 120 s" or
 * "interrupted by Terminated while the CUDA driver was in cuStreamSynchronize"; sig is the
 * signal or 0. Called on the watchdog's thread while the main thread is blocked in the
 * bracketed call (so it never touches what the ending uses); the process exits after it. */
typedef void (*tb_watch_ending)(void *ctx, const char *what, int sig);

/* Sets the ending (NULL: a message on stderr only) and the stop flag that signal handlers
 * set (NULL: none). May be called again to change them; starts the thread on first use. */
void tb_watchdog_set(tb_watch_ending ending, void *ctx, const volatile sig_atomic_t *stop);

/* The driver's deadline in seconds for a kind of call: TB_DRIVER_TIMEOUT_S when set (a
 * positive number; tests use 1), else 120 s for init, context and synchronizations, and
 * 600 s for a module load (a Nano's JIT of one entry takes seconds; the whole PTX, minutes). */
enum tb_watch_kind { TB_WATCH_CALL, TB_WATCH_LOAD };
double tb_watch_seconds(enum tb_watch_kind kind);

/* Brackets one call named what (a string literal or one that outlives the call). Calls do
 * not nest: an inner begin replaces the outer until its end. */
void tb_watch_begin(const char *what, enum tb_watch_kind kind);
void tb_watch_end(void);

#endif
