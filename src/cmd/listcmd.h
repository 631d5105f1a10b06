/* listcmd.h: `transpose-bench list`, its command line and its work: what this executable
 * and this machine offer. */
#ifndef TB_LISTCMD_H
#define TB_LISTCMD_H

#include <stdio.h>

#include "config/config.h"
#include "lib/cli.h"

/* Kernels (with why one cannot run), the kernel images and whether GPU 0 runs them (or why
 * not), the board file it would choose and from what, the power sources. -1 after a
 * configuration problem (printed), -EIO when the output could not be written (said). */
int tb_list(struct tb_config *cfg, struct tb_diag *diag, const char *board_file, FILE *out);
/* `list --images DIR`: each embedded kernel image unpacked to
 * DIR/transpose-bench.<i>.sm_<sm>.<ptx|cubin> (never over a file), for cuobjdump, ptxas or a
 * reader; one line each on out. 0, or a negative errno (said on stderr; -EIO: out could not
 * be written). */
int tb_list_images(const char *dir, FILE *out);
/* The log's columns as a Markdown table (doc/log-format.md holds it). 0, or -EIO when the
 * output could not be written (said). */
int tb_list_columns(FILE *out);

/* The command: `list [--columns] [--images DIR] [-b BOARD.cfg] [--set KEY=VAL]...`, its
 * options parsed by the rows of tb_list_usage; an exit code. */
int tb_list_main(int argc, char **argv);
extern const struct tb_usage tb_list_usage;

#endif
