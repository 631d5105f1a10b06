/* stopsig.h: one list of the signals that end a run the way SIGINT does: every signal whose
 * default is to end the process and that can be caught and returned from. Not here: what a
 * run does when one comes (cmd/run.c). */
#ifndef TB_STOPSIG_H
#define TB_STOPSIG_H

/* handler installed for SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
 * SIGVTALRM, SIGPROF, SIGXCPU, SIGIO, SIGPWR, SIGSTKFLT and the real-time signals (signal(7):
 * their default ends the process). Not the faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
 * SIGSYS, SIGTRAP: returning re-runs the fault), SIGXFSZ (main.c ignores it: a write past
 * the limit fails instead) nor SIGPIPE (a write to a closed pipe fails with EPIPE only where
 * it is ignored; a run's stderr closed is no request to stop). */
void tb_stopsig_install(void (*handler)(int));

#endif
