/* compare.h: `transpose-bench compare`: reads logs from any boards and GPUs and prints
 * the best bandwidth per size, kernel and board, or marks points against a baseline.
 * The reader and the verdict rule are exposed for tests and fuzzing. */
#ifndef TB_COMPARE_H
#define TB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

struct tb_compare_rec {
    char board[64], device[128], kernel[32], status[16];
    char host[64];                  /* the host that ran it: two boards of one kind stay apart */
    char elem[8], power_mode[64];   /* element type; nvpmodel mode ("" off a Jetson) */
    char night[12];                 /* the run's UTC date from its run_id, "2026-11-22"; "" unknown */
    long rows, cols;
    int bx, by;
    double gbps, frac_peak, frac_copy, gbps_per_w, rel_sem;
};

struct tb_compare_recs { struct tb_compare_rec *v; size_t n, cap; };

int tb_compare_main(int argc, char **argv);

/* Splits a CSV line in place (quotes handled); returns the field count, -1 when malformed. */
int tb_csv_split(char *line, char **fields, int max);
/* Reads one log (gz or plain) into out; returns rows added, or -1 when it is no log.
 * Each problem is reported on stderr naming file and line, and counted in *problems. */
int tb_compare_read(const char *path, struct tb_compare_recs *out, int *problems);
/* A row that counts: measured, and ok or suspect. */
bool tb_compare_usable(const struct tb_compare_rec *r);
/* "faster", "slower" or "same" for bandwidth base -> now, given each side's relative
 * standard error; *delta gets now/base - 1. */
const char *tb_compare_verdict(double base, double now, double sem_base, double sem_now,
                               double *delta);

#endif
