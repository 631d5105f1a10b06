/* config/help.c: `help settings [KEY]`, every setting's meaning read from the schema the
 * loader validates with (fio's --cmdhelp): its file, type, range, default and help line, as
 * text for the terminal and as man(7) paragraphs for the man page's SETTINGS. Not here:
 * loading or checking a setting (config.c), the help of a command's options (lib/cli.c). */
#include "config/config.h"
#include "config/internal.h"

#include <string.h>

#include "lib/cli.h"
#include "lib/util.h"

#define WRAP 78   /* the help text wraps before this column */

/* "integer, 1 to 9, default 6": the row's type, range and default, into buf. */
static void describe(const struct tb_cfg_row *r, char *buf, size_t n)
{
    const char *def_s = r->def_s && r->def_s[0] ? r->def_s : NULL;
    switch (r->type) {
    case S_GROUP:
        snprintf(buf, n, "group");
        break;
    case S_INT:
        snprintf(buf, n, "integer, %.0f to %.0f, default %.0f", r->min, r->max, r->def);
        break;
    case S_FLOAT:
        snprintf(buf, n, "number, %s%.15g to %.15g, default %.15g", r->zero_ok ? "0 or " : "",
                 r->min, r->max, r->def);
        break;
    case S_BOOL:
        snprintf(buf, n, "true or false, default %s", r->def ? "true" : "false");
        break;
    case S_STRING:
        snprintf(buf, n, "string%s%s%s, default %s%s%s", r->choices ? ", one of {" : "",
                 r->choices ? r->choices : "", r->choices ? "}" : "", def_s ? "\"" : "",
                 def_s ? def_s : "empty", def_s ? "\"" : "");
        break;
    case S_CUSTOM:   /* a custom row with an offset keeps a string there; the others are lists */
        snprintf(buf, n, "%s, default %s%s%s", r->off ? "string" : "list",
                 def_s ? "\"" : "", def_s ? def_s : "empty", def_s ? "\"" : "");
        break;
    }
}

/* text after indent spaces, wrapped at spaces before WRAP. */
static void wrapped(const char *text, int indent, FILE *f)
{
    const char *p = text;
    while (*p) {
        size_t room = (size_t)(WRAP - indent), len = strlen(p);
        if (len > room) {
            len = room;
            while (len > 0 && p[len] != ' ')
                len--;
            if (len == 0)
                len = strcspn(p, " ");
        }
        fprintf(f, "%*s%.*s\n", indent, "", (int)len, p);
        p += len;
        while (*p == ' ')
            p++;
    }
}

/* The row's help line: its own, or the one its values' table makes (power.source). */
static const char *row_doc(const struct tb_cfg_row *r, char *buf, size_t n)
{
    if (!r->doc_fn)
        return r->doc ? r->doc : "";
    r->doc_fn(buf, n);
    return buf;
}

static void print_row(const struct tb_cfg_row *r, FILE *f)
{
    char what[256], doc[512];
    describe(r, what, sizeof(what));
    fprintf(f, "%s (%s file): %s\n", r->path, tb_config_file_kind[r->file], what);
    wrapped(row_doc(r, doc, sizeof(doc)), 4, f);   /* a row without help: no line (test_cli fails) */
}

/* Is r the row path or one under it (path "power" takes "power.source")? */
static bool under(const struct tb_cfg_row *r, const char *path)
{
    size_t n = strlen(path);
    return !strncmp(r->path, path, n) && (r->path[n] == '\0' || r->path[n] == '.');
}

int tb_config_help(const char *key, FILE *f)
{
    size_t shown = 0;
    for (size_t i = 0; i < tb_config_schema_n; i++) {
        const struct tb_cfg_row *r = &tb_config_schema[i];
        if (key && !under(r, key))
            continue;
        if (!key && r->type == S_GROUP && i > 0)
            fputc('\n', f);   /* a blank line before each group of the whole list */
        print_row(r, f);
        shown++;
    }
    if (shown)
        return 0;
    const char *cands[TB_CFG_MAX_ROWS];
    for (size_t i = 0; i < tb_config_schema_n; i++)
        cands[i] = tb_config_schema[i].path;
    const char *sug = tb_suggest(key, cands, tb_config_schema_n);
    if (sug)
        error("help settings: unknown setting '%s' (did you mean '%s'?)", key, sug);
    else
        error("help settings: unknown setting '%s' (help settings lists them)", key);
    return -1;
}

void tb_config_help_roff(FILE *f)
{
    for (size_t i = 0; i < tb_config_schema_n; i++) {
        const struct tb_cfg_row *r = &tb_config_schema[i];
        char what[256], doc[512];
        describe(r, what, sizeof(what));
        fputs(".TP\n\\fB", f);
        tb_roff_escape(r->path, f);
        fprintf(f, "\\fR (%s file): ", tb_config_file_kind[r->file]);
        tb_roff_escape(what, f);
        fputs("\n", f);
        tb_roff_escape(row_doc(r, doc, sizeof(doc)), f);
        fputs("\n", f);
    }
}
