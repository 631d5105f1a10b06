/* probecmd.h: `transpose-bench probe-power`: the board's power sensor measured against a
 * step of load (idle, the backend's copy, idle, the copy, idle, polled every few ms), its
 * response fitted (energy/stepfit.h), set beside what sysfs claims, and kept per board and
 * L4T release in the log folder for the nights to read (tb_stepfit_load).
 * Not here: the fit (stepfit.c), sampling (power/), a night's use of the result. */
#ifndef TB_PROBECMD_H
#define TB_PROBECMD_H

#include <stddef.h>

#include "lib/cli.h"

/* Exit codes: 0 measured, fitted and kept; 1 no usable source, a load or a device that
 * failed, a result that cannot be written, no step to fit; 2 usage or configuration; 75 a
 * run holds the lock. Prints to stdout; errors on stderr. */
int tb_probe_main(int argc, char **argv);
/* Its usage, as `probe-power --help` and `help probe-power` print it (main.c's table). */
extern const struct tb_usage tb_probe_usage;

/* The stored result's file name for a board and L4T release inside dir:
 * DIR/probe-<board>-<l4t>.cfg (anything but letters, digits, '.', '_' and '-' in a name
 * made '_'; an empty release "no-l4t"). -ENAMETOOLONG when it does not fit in n. */
int tb_probe_result_path(const char *dir, const char *board, const char *l4t, char *buf,
                         size_t n);

#endif
