/* cli.c: see cli.h. A usage is printed from the rows the parser is made from: the
 * synopsis's options and the option lines alike; the help column is as wide as the
 * command's widest option needs (15 at least), so one long argument name does not push its
 * line's help out of the column. The same rows printed for the README (markdown) and the man
 * page (roff). Not here: any command's own options or what they mean. */
#include "lib/cli.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#define LABEL_MIN 15   /* the column run's rows have always used ("--kernels LIST ") */
#define WIDTH 80       /* a synopsis wraps before this column */
#define PREFIX "usage: transpose-bench "

/* How much of u->synopsis is the command and its operands: up to its first " [-". */
static size_t head_len(const struct tb_usage *u)
{
    const char *opts = strstr(u->synopsis, " [-");
    return opts ? (size_t)(opts - u->synopsis) : strlen(u->synopsis);
}

/* The length of o's argument name without a "..." that says the option repeats. */
static int arg_len(const struct tb_opt_row *o, bool *repeats)
{
    size_t n = o->arg ? strlen(o->arg) : 0;
    *repeats = n > 3 && !strcmp(o->arg + n - 3, "...");
    return (int)(*repeats ? n - 3 : n);
}

/* A row in the synopsis, "[-c FILE]" or "[--set KEY=VAL]...", into buf; its length. */
static size_t item(const struct tb_opt_row *o, char *buf, size_t n)
{
    bool rep;
    int alen = arg_len(o, &rep), len;
    if (o->key < TB_OPT_LONG)
        len = snprintf(buf, n, "[-%c%s%.*s]%s", o->key, o->arg ? " " : "", alen,
                       o->arg ? o->arg : "", rep ? "..." : "");
    else
        len = snprintf(buf, n, "[--%s%s%.*s]%s", o->name, o->arg ? " " : "", alen,
                       o->arg ? o->arg : "", rep ? "..." : "");
    return len < 0 ? 0 : (size_t)len;
}

/* The usage line of --help: the options wrapped under the first. */
static void synopsis_wrapped(const struct tb_usage *u, FILE *f)
{
    size_t head = head_len(u), indent = strlen(PREFIX) + head + 1, col = indent - 1;
    if (indent > WIDTH / 2)
        indent = strlen(PREFIX) + 4;
    fprintf(f, PREFIX "%.*s", (int)head, u->synopsis);
    char it[160];
    for (const struct tb_opt_row *o = u->opts; o && o->name; o++) {
        size_t len = item(o, it, sizeof(it));
        if (col + 1 + len > WIDTH && col > indent) {
            fprintf(f, "\n%*s", (int)indent - 1, "");
            col = indent - 1;
        }
        fprintf(f, " %s", it);
        col += len + 1;
    }
    fputc('\n', f);
}

void tb_roff_escape(const char *s, FILE *f)
{
    bool bol = true;
    for (; *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        if (*s == '-' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
        bol = *s == '\n';
    }
}

/* s for a markdown code span in a table cell: '|' escaped. */
static void md_escape(const char *s, size_t n, FILE *f)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        if (s[i] == '|')
            fputc('\\', f);
        fputc(s[i], f);
    }
}

/* "[-c FILE]" in man(7): the option bold, its argument italic. */
static void item_roff(const struct tb_opt_row *o, FILE *f)
{
    if (o->key < TB_OPT_LONG)
        fprintf(f, "[\\fB\\-%c\\fR", o->key);
    else
        fprintf(f, "[\\fB\\-\\-%s\\fR", o->name);
    bool rep;
    int alen = arg_len(o, &rep);
    if (o->arg) {
        char *a = strndup(o->arg, (size_t)alen);
        fputs(" \\fI", f);
        tb_roff_escape(a, f);
        fputs("\\fR", f);
        free(a);
    }
    fputs(rep ? "]..." : "]", f);
}

void tb_usage_synopsis(const struct tb_usage *u, enum tb_doc_style st, FILE *f)
{
    size_t head = head_len(u);
    const char *sp = memchr(u->synopsis, ' ', head);
    size_t name = sp ? (size_t)(sp - u->synopsis) : head;
    char it[160], *ops = strndup(u->synopsis + name, head - name);
    if (st == TB_DOC_ROFF) {   /* ".B transpose-bench CMD", the rest on a line of its own */
        fprintf(f, ".B transpose-bench %.*s%s", (int)name, u->synopsis,
                ops[0] || (u->opts && u->opts->name) ? "\n" : "");
        if (ops[0])
            tb_roff_escape(ops + 1, f);
    } else {
        fputs(st == TB_DOC_MARKDOWN ? "`transpose-bench " : "transpose-bench ", f);
        fprintf(f, "%.*s", (int)name, u->synopsis);
        if (st == TB_DOC_MARKDOWN)
            md_escape(ops, strlen(ops), f);
        else
            fputs(ops, f);
    }
    for (const struct tb_opt_row *o = u->opts; o && o->name; o++) {
        if (st == TB_DOC_ROFF) {
            fputs(o == u->opts && !ops[0] ? "" : " ", f);
            item_roff(o, f);
            continue;
        }
        size_t len = item(o, it, sizeof(it));
        fputc(' ', f);
        if (st == TB_DOC_MARKDOWN)
            md_escape(it, len, f);
        else
            fputs(it, f);
    }
    if (st == TB_DOC_MARKDOWN)
        fputc('`', f);
    free(ops);
}

void tb_usage_options_roff(const struct tb_usage *u, FILE *f)
{
    for (const struct tb_opt_row *o = u->opts; o && o->name; o++) {
        fputs(".TP\n", f);
        if (o->key < TB_OPT_LONG)
            fprintf(f, "\\fB\\-%c\\fR, ", o->key);
        fprintf(f, "\\fB\\-\\-%s\\fR", o->name);
        if (o->arg) {
            fputs(" \\fI", f);
            tb_roff_escape(o->arg, f);
            fputs("\\fR", f);
        }
        fputc('\n', f);
        char *h = strdup(o->help);
        for (char *p = h; *p; p++)
            if (*p == '\n')
                *p = ' ';
        tb_roff_escape(h, f);
        fputc('\n', f);
        free(h);
    }
}

/* "--name ARG" into buf; returns its length. */
static size_t label(const struct tb_opt_row *o, char *buf, size_t n)
{
    int len = snprintf(buf, n, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    return len < 0 ? 0 : (size_t)len;
}

void tb_usage_print(const struct tb_usage *u, FILE *f)
{
    if (u->synopsis) {
        synopsis_wrapped(u, f);
        if (u->opts || u->text)
            fputc('\n', f);
    }
    int width = LABEL_MIN;
    char lab[128];
    for (const struct tb_opt_row *o = u->opts; o && o->name; o++) {
        size_t len = label(o, lab, sizeof(lab));
        if (len + 1 > (size_t)width && len < sizeof(lab))
            width = (int)len + 1;   /* two spaces at least before its help */
    }
    for (const struct tb_opt_row *o = u->opts; o && o->name; o++) {
        label(o, lab, sizeof(lab));
        char shrt[8] = "    ";
        if (o->key < TB_OPT_LONG)
            snprintf(shrt, sizeof(shrt), "-%c, ", o->key);
        fprintf(f, "  %s%-*s ", shrt, width, lab);
        for (const char *h = o->help; *h; h++) {
            fputc(*h, f);
            if (*h == '\n')   /* "  " + "-c, " + the label + " " */
                fprintf(f, "%*s", 2 + 4 + width + 1, "");
        }
        fputc('\n', f);
    }
    if (u->opts && u->text)
        fputc('\n', f);
    if (u->text)
        fputs(u->text, f);
}

void tb_getopt_begin(struct tb_getopt *g, const struct tb_opt_row *rows)
{
    size_t k = 0, j = 0;
    for (; rows && rows[k].name; k++) {
        if (k == TB_OPT_ROWS_MAX) {
            fprintf(stderr, "transpose-bench: bug: more than %d option rows (at '--%s')\n",
                    TB_OPT_ROWS_MAX, rows[k].name);
            abort();
        }
        g->lo[k] = (struct option){ rows[k].name, rows[k].arg ? required_argument : no_argument,
                                    NULL, rows[k].key };
        if (rows[k].key < TB_OPT_LONG) {
            g->shrt[j++] = (char)rows[k].key;
            if (rows[k].arg)
                g->shrt[j++] = ':';
        }
    }
    g->lo[k] = (struct option){ NULL, 0, NULL, 0 };
    g->shrt[j] = '\0';
    optind = 1;
}

int tb_getopt_next(struct tb_getopt *g, int argc, char **argv)
{
    return getopt_long(argc, argv, g->shrt, g->lo, NULL);
}

int tb_usage_no_operands(const struct tb_usage *u, int argc, char **argv, int first)
{
    if (first >= argc)
        return 0;
    error("unexpected argument '%s'", argv[first]);
    tb_usage_print(u, stderr);
    return -1;
}
