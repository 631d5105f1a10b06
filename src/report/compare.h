/* compare.h: `transpose-bench compare`: reads logs from any boards and GPUs and prints
 * the best point per size, kernel, board, host, element type and power mode (a row that
 * failed verification is listed apart, never a best point), or the best of each point
 * against a baseline's: faster, slower or same; with --pareto, the fronts across power modes
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

/* "faster", "slower" or "same" for bandwidth base -> now, given each side's relative
 * standard error (NAN: none); *delta gets now/base - 1. "same" while |delta| is within
 * the larger of 1% and 3 x sqrt(sem_base^2 + sem_now^2). */
const char *tb_compare_verdict(double base, double now, double sem_base, double sem_now,
                               double *delta);

#endif
