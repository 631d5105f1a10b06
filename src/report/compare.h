/* compare.h: `transpose-bench compare`: reads logs from any boards and GPUs and prints
 * the best point per size, kernel, board, host, element type and power mode (a row that
 * failed verification is listed apart, never a best point), or the best of each point
 * against a baseline's: faster, slower, same or undecided; with --pareto, the fronts across power modes
 * (compare_pareto.h). The verdict rule is exposed for tests. What a point is: compare_key.h;
 * reading logs: logread.h; pages and plots: report.h. */
#ifndef TB_COMPARE_H
#define TB_COMPARE_H

#include "lib/cli.h"

/* argv[0] is "compare"; options and logs follow. Returns the exit code. */
int tb_compare_main(int argc, char **argv);
/* compare's usage: its option rows are the parser's (cli.h); `compare --help` and `help
 * compare` are main.c's, whose command table prints this. */
extern const struct tb_usage tb_compare_usage;

/* The verdict for bandwidth base -> now, given each side's relative standard error (the
 * rows' spread; NAN: none, counted as 0); *delta gets now/base - 1. "same" where |delta| is
 * within 1%; beyond it, the change's 95% interval, delta +- 1.96 sqrt(sem_base^2 +
 * sem_now^2), says "faster" or "slower" where it lies on one side of 0, else "undecided" (a
 * change the noise cannot tell from none). */
const char *tb_compare_verdict(double base, double now, double sem_base, double sem_now,
                               double *delta);
/* The same for the energy ratio to the copy, from each side's 95% interval where a rerun
 * lands (energy_ratio_rerun_ci95, absolute), combined in quadrature relative to each side:
 * "more", "less", "same" or "undecided"; NULL where a side lacks the ratio or its interval. */
const char *tb_compare_energy_verdict(double base, double ci_base, double now, double ci_now,
                                      double *delta);

#endif
