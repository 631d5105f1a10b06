/* runcmd.h: the command lines of `run` and `tune`: their option rows (the parser's and the
 * usage's, cli.h), parsed into tb_run_opts for run.c's lifecycle, whose outcome becomes an
 * exit code here. tune is a run over candidate blocks (every power-of-two shape of 32 to
 * 1024 threads unless --blocks is given) with a time budget. Not here: the run itself. */
#ifndef TB_RUNCMD_H
#define TB_RUNCMD_H

#include "lib/cli.h"

/* main.c's command rows: argv[0] is the command's name; an exit code (util.h). */
int tb_run_main(int argc, char **argv);
int tb_tune_main(int argc, char **argv);
extern const struct tb_usage tb_run_usage;
extern const struct tb_usage tb_tune_usage;

#endif
