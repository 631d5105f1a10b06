/* cli.h: option rows, one getopt entry and one usage line each, and a command's usage
 * (synopsis, option rows, text) printed from them, so that what a command accepts and what
 * its --help says cannot drift. Every command's usage is one struct tb_usage: main.c holds
 * its own commands' and points its command table at those of rooms that read their own
 * arguments (compare.c, history.c, restorecmd.c). Not here: the command table, dispatch and
 * exit codes (main.c), what an option does (each command's parser). */
#ifndef TB_CLI_H
#define TB_CLI_H

#include <getopt.h>
#include <stdio.h>

/* An option row. key is getopt's value: a letter is also the short option (-c); an option
 * with no short form has a key of TB_OPT_LONG and up (each command numbers its own). A
 * command's rows end with TB_OPT_END. */
struct tb_opt_row {
    const char *name;   /* the long option, without "--" */
    int key;
    const char *arg;    /* the argument's name in the usage; NULL: the option takes none */
    const char *help;   /* one line; a '\n' continues it under the help column */
};
#define TB_OPT_LONG 256
#define TB_OPT_END { NULL, 0, NULL, NULL }
/* The most rows one command may have (its getopt tables are this size). */
#define TB_OPT_ROWS_MAX 24

/* What `CMD --help` and `help CMD` print: "usage: transpose-bench " and the synopsis, the
 * option rows (one line each, help texts in one column), then the text. */
struct tb_usage {
    const char *synopsis;             /* NULL: no usage line */
    const struct tb_opt_row *opts;    /* NULL: no options */
    const char *text;                 /* NULL: none */
};

void tb_usage_print(const struct tb_usage *u, FILE *f);

/* getopt_long's tables, made from option rows. */
struct tb_getopt {
    struct option lo[TB_OPT_ROWS_MAX + 1];
    char shrt[2 * TB_OPT_ROWS_MAX + 1];
};

/* Makes g's tables from rows and restarts getopt (optind = 1). More rows than
 * TB_OPT_ROWS_MAX is a bug in a table: said on stderr, then abort(). */
void tb_getopt_begin(struct tb_getopt *g, const struct tb_opt_row *rows);
/* getopt_long over g's tables: the next option's key, '?' for an unknown option or a
 * missing argument (getopt has said which, under argv[0]), -1 when the options end (optind
 * is then the first operand; operands are gathered behind the options, as GNU getopt
 * does). */
int tb_getopt_next(struct tb_getopt *g, int argc, char **argv);

#endif
