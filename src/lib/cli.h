/* cli.h: option rows, one getopt entry and one usage line each, and a command's usage
 * (synopsis, option rows, text) printed from them, so that what a command accepts and what
 * its --help says cannot drift. The synopsis's options are made from the rows too, and so
 * are the README's command table and the man page's SYNOPSIS and OPTIONS (the doc styles
 * below, printed by `help --doc`, spliced by scripts/docs-gen.sh, checked by make test). Every command's usage is one struct tb_usage, exported
 * by the room that parses the command's arguments (src/cmd/, src/report/compare.c,
 * history.c); main.c's command table points at them. Not here: the command table, dispatch and
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
    /* the argument's name in the usage; NULL: the option takes none. A name ending in
     * "..." says the option may be given again: "[--set KEY=VAL]..." in the synopsis. */
    const char *arg;
    const char *help;   /* one line; a '\n' continues it under the help column */
};
#define TB_OPT_LONG 256
#define TB_OPT_END { NULL, 0, NULL, NULL }
/* The most rows one command may have (its getopt tables are this size). */
#define TB_OPT_ROWS_MAX 24

/* What `CMD --help` and `help CMD` print: "usage: transpose-bench ", the command and its
 * operands, the options made from the rows ("[-c FILE] [--set KEY=VAL]..."), wrapped under
 * the first; then the option rows (one line each, help texts in one column), then the text. */
struct tb_usage {
    /* The command and its operands ("compare LOG...", "help [COMMAND]"); NULL: no usage
     * line. An option list written after them (from the first " [-" on) is not printed:
     * the rows are the one source of the options. */
    const char *synopsis;
    const struct tb_opt_row *opts;    /* NULL: no options */
    const char *text;                 /* NULL: none */
};

void tb_usage_print(const struct tb_usage *u, FILE *f);

/* The styles a synopsis and the option rows are printed in for the documents. */
enum tb_doc_style {
    TB_DOC_TEXT,       /* as --help: one line, no wrapping */
    TB_DOC_MARKDOWN,   /* a code span, '|' escaped for a table cell */
    TB_DOC_ROFF,       /* man(7): the command bold, arguments italic, '-' escaped */
};
/* The synopsis ("transpose-bench " and the command, its operands, the options) on one
 * line in style st, no newline. */
void tb_usage_synopsis(const struct tb_usage *u, enum tb_doc_style st, FILE *f);
/* The option rows as man(7) paragraphs (.TP, the option, its help), nothing for none. */
void tb_usage_options_roff(const struct tb_usage *u, FILE *f);
/* s with man(7)'s special characters escaped ('-' and '\'; a '.' or '\'' that starts a
 * line protected), '\n' kept. */
void tb_roff_escape(const char *s, FILE *f);

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
/* The one rule for words after the options of a command that takes none: argv[first]
 * and on, when there are any, are an error ("unexpected argument 'X'") and the usage u on
 * stderr, never ignored. -1 after the error, else 0. */
int tb_usage_no_operands(const struct tb_usage *u, int argc, char **argv, int first);

#endif
