/* restorecmd.h: `transpose-bench restore`: puts back the power mode and clock caps a run
 * changed and could not restore (SIGKILL, power cut), from the state file modes.h keeps.
 * Not here: changing modes (jetson/modes.h), the run that restores itself (run.c). */
#ifndef TB_RESTORECMD_H
#define TB_RESTORECMD_H

#include "lib/cli.h"

/* Exit codes: 0 nothing to restore or restored, 1 a state file that could not be used or
 * restored, 2 usage, 75 a run holds the lock (it restores its own changes). */
int tb_restore_main(int argc, char **argv);
/* Its usage (cli.h; no option rows: it takes no options), as `restore --help` and `help
 * restore` print it (main.c's table). */
extern const struct tb_usage tb_restore_usage;

#endif
