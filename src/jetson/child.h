/* child.h: running nvpmodel and the cap writer (sudo -n tee) so that none changes the board
 * unseen: each runs under a holder, a process of ours in its own process group that outlives
 * the run if the run dies. The holder takes a lock file (the hold file, beside the state
 * file) for as long as the command or anything of its process group runs, kills it all at
 * the deadline, and writes the command's process group there; whoever restores the board
 * first waits for that lock (tb_child_settle), killing what still runs past the deadline,
 * so that no dead run's nvpmodel finishes its switch after the board was declared restored.
 * Not here: what the commands are (modes_switch.c), the board's files. */
#ifndef TB_CHILD_H
#define TB_CHILD_H

#include <stddef.h>

/* The deadline of one command, seconds: 30, or TB_DRIVER_TIMEOUT_S when lower. */
double tb_child_limit_s(void);

/* How long tb_child_settle waits for an earlier holder's command (a dead run's, at restore
 * and before each held command) before it kills it: the command's deadline, or
 * TB_SETTLE_TIMEOUT_S (seconds) when lower; it can only shorten the wait. The tests set this
 * one alone, so that the command restore itself runs after the settle keeps its whole
 * deadline: with one limit of 1 s for both, a busy 2-core machine killed restore's own
 * nvpmodel (#59). */
double tb_child_settle_limit_s(void);

/* Runs cmd (words split at blanks, the first looked up in PATH) with extra arguments after
 * it: stdin the text input (NULL: /dev/null), stdout and stderr into out (one line,
 * bounded), under a holder that holds hold (NULL: none) until the command's process group is
 * gone, its record stamped with boot (this boot's id); leftovers of its group when it
 * exits are killed. Returns the exit status, 128+signal, 128+SIGKILL past the deadline (out says so), or -errno when it could not run (why in out). */
int tb_child_run(const char *cmd, const char *const *extra, const char *input, const char *hold,
                 const char *boot, char *out, size_t n);

/* Waits for a holder of hold (a run's, dead or alive) to finish, up to tb_child_settle_limit_s();
 * past it, kills the holder's command group and the holder. Then a command group the hold
 * file names that outlived its holder is waited for and killed the same way. Nothing is
 * signalled or waited for unless proven ours: the record carries each process's start
 * (/proc/PID/stat field 22) and the boot id (boot: this boot's, "" or NULL unknown), and a
 * record of another boot, or a number whose process started at another tick, is left
 * alone (a power cut's record, a group number the kernel has given to a stranger since).
 * 0 nothing ran, 1 waited for, 2 killed, 3 a record not proven ours, left alone (why says
 * what was found each time), -errno when hold is not a regular file of this user with one
 * link (why says why; nothing followed, nothing written). The record is emptied. */
int tb_child_settle(const char *hold, const char *boot, char *why, size_t n);

#endif
