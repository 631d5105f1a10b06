/* compare.h: `transpose-bench compare`: reads logs from any boards and GPUs and prints
 * the best bandwidth per size, kernel and board, or marks points against a baseline.
 * The verdict rule is exposed for tests. Reading logs: logread.h. */
#ifndef TB_COMPARE_H
#define TB_COMPARE_H

/* argv[0] is "compare"; options and logs follow. `compare --help` is main.c's (its command
 * table prints tb_compare_usage). Returns the exit code. */
int tb_compare_main(int argc, char **argv);
extern const char tb_compare_usage[];

/* "faster", "slower" or "same" for bandwidth base -> now, given each side's relative
 * standard error; *delta gets now/base - 1. */
const char *tb_compare_verdict(double base, double now, double sem_base, double sem_now,
                               double *delta);

#endif
