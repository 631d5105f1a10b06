/* restorecmd.c: see restorecmd.h. The lock first: a state file is a dead run's only when no
 * run holds the lock, so a live sweep's state is never restored from under it. */
#include "cmd/restorecmd.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/lock.h"
#include "jetson/modes.h"
#include "lib/util.h"

enum { R_QUIET = 'q' };

static const struct tb_opt_row restore_opts[] = {
    { "quiet", R_QUIET, NULL, "nothing on stderr when there is nothing to restore (for cron,\n"
                              "which mails what a job prints); what was restored, and errors,\n"
                              "still said" },
    TB_OPT_END,
};

const struct tb_usage tb_restore_usage = {
    "restore", restore_opts,
    "Puts back the power mode and clock caps a mode sweep changed (sweep.power_modes,\n"
    "sweep.gpu_max_mhz, sweep.emc_max_mhz) when its run died before restoring them, from\n"
    "the state file ($TB_MODE_STATE, an absolute path; default root's\n"
    "/var/lib/transpose-bench/modes.state, a user's ~/.local/state/transpose-bench/modes.state:\n"
    "each user restores what that user's runs changed). Every run\n"
    "does the same first; this is for a board that must be put back now (and for an\n"
    "@reboot cron line after a power cut mid-sweep, doc/nightly.md). An nvpmodel the dead\n"
    "run left running is waited for, or killed at its deadline, first; only what differs is\n"
    "put back, and the state file is removed once the board reads as found.\n"
    "\n"
    "exit: 0 nothing to restore or restored, 1 not restored (the state file is kept),\n"
    "2 usage, 75 a run holds the lock (it restores its own changes).\n",
};

int tb_restore_main(int argc, char **argv)
{
    bool quiet = false;
    struct tb_getopt g;
    tb_getopt_begin(&g, restore_opts);
    int opt;
    while ((opt = tb_getopt_next(&g, argc, argv)) != -1) {
        if (opt != R_QUIET) {
            tb_usage_print(&tb_restore_usage, stderr);
            return TB_EXIT_USAGE;
        }
        quiet = true;
    }
    if (optind < argc) {
        error("restore: unexpected argument '%s'", argv[optind]);
        tb_usage_print(&tb_restore_usage, stderr);
        return TB_EXIT_USAGE;
    }
    struct tb_lock *lock;
    int rc = tb_lock_acquire(NULL, &lock);
    if (rc == TB_LOCK_HELD)
        return TB_EXIT_LOCKED;
    if (rc)
        return rc == TB_LOCK_BAD ? TB_EXIT_USAGE : TB_EXIT_FAIL;
    char what[2048];
    rc = tb_modes_recover(NULL, what, sizeof(what));
    tb_lock_release(lock);
    if (rc == 0) {
        char path[PATH_MAX], why[PATH_MAX + 200];
        if (!quiet && tb_modes_state_file(path, sizeof(path), why, sizeof(why)) >= 0)
            note("restore: no state file ('%s'): nothing to restore", path);
        return TB_EXIT_OK;
    }
    if (rc < 0)
        return error("restore: %s", what), TB_EXIT_FAIL;
    note("restore: %s", what);
    return TB_EXIT_OK;
}
