/* cli.c: see cli.h. A usage is printed from the rows the parser is made from; the help
 * column is as wide as the command's widest option needs (15 at least), so one long
 * argument name does not push its line's help out of the column. Not here: any command's own
 * options or what they mean. */
#include "lib/cli.h"

#include <stdlib.h>
#include <string.h>

#define LABEL_MIN 15   /* the column run's rows have always used ("--kernels LIST ") */

/* "--name ARG" into buf; returns its length. */
static size_t label(const struct tb_opt_row *o, char *buf, size_t n)
{
    int len = snprintf(buf, n, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    return len < 0 ? 0 : (size_t)len;
}

void tb_usage_print(const struct tb_usage *u, FILE *f)
{
    if (u->synopsis)
        fprintf(f, "usage: transpose-bench %s\n%s", u->synopsis, u->opts || u->text ? "\n" : "");
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
