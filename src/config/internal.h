/* config/internal.h: what the rooms of the configuration share and nothing outside them
 * includes: the schema row, the load context, where a setting came from, and each room's
 * entry points. The rooms: config.c (the loader), schema.c (the schema), lists.c (the
 * settings that are lists or need a loader of their own), set.c (--set and option
 * overrides), where.c (where a setting came from, type names), guard.c (bounded reading of
 * files and @includes, libconfig 1.5's wrap). Calls go one way: config -> set, schema ->
 * lists -> where (scripts/call-check.sh). */
#ifndef TB_CONFIG_INTERNAL_H
#define TB_CONFIG_INTERNAL_H

/* The Makefile defines TB_CONFIG_ROOM for the objects of src/config/ only, so a file
 * elsewhere that includes this header does not build. */
#ifndef TB_CONFIG_ROOM
#error "config/internal.h is private to src/config/: include config/config.h"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <libconfig.h>

#include "lib/diag.h"

/* config.h's types, by name only: this header extends config.h for the rooms (each includes
 * both) and never includes it, so that config.c, which includes this, and this header are
 * not a circle. */
struct tb_config;
struct tb_sweep_cfg;
struct tb_where;

/* The text of a file and of everything it @includes, together, is at most this: a larger
 * "config" is a mistake, not a sweep. */
#define TB_CONFIG_MAX_BYTES (1 << 20)
/* libconfig's own @include nesting limit (scanctx.h's MAX_INCLUDE_DEPTH in 1.5). */
#define TB_CONFIG_MAX_INCLUDE_DEPTH 10
/* Rows the schema may have (the did-you-mean candidates are gathered on the stack). */
#define TB_CFG_MAX_ROWS 96

enum { TB_CFG_SWEEP = 0, TB_CFG_BOARD = 1 };
extern const char *const tb_config_file_kind[2];   /* "sweep", "board" */

enum tb_cfg_type { S_GROUP, S_INT, S_FLOAT, S_BOOL, S_STRING, S_CUSTOM };

struct tb_cfg_load {
    struct tb_config *c;
    struct tb_diag *d;
};
typedef void (*tb_cfg_custom_fn)(struct tb_cfg_load *x, config_setting_t *s);

/* One setting: its path, file, type, where it lands in struct tb_config, its limits and
 * its default (def for numbers and booleans, def_s for strings and custom rows that keep
 * a string at off; NULL: ""). */
struct tb_cfg_row {
    const char *path;
    int file;
    enum tb_cfg_type type;
    size_t off;
    double min, max;
    bool zero_ok;          /* S_FLOAT: 0 means "unknown"/"none", else [min, max] */
    const char *choices;   /* S_STRING: allowed values, comma separated; NULL = any */
    bool text;             /* S_STRING: a name every log, log name and label carries: UTF-8
                            * without control characters (a board named in Latin-1 was
                            * written '?' into its logs and found none of them again) */
    tb_cfg_custom_fn custom;
    double def;
    const char *def_s;
    const char *doc;
    void (*doc_fn)(char *buf, size_t n);   /* non-NULL: the help line, made from the table
                                            * that owns the values (doc is then NULL) */
};

/* ---- schema.c ---- */
extern const struct tb_cfg_row tb_config_schema[];
extern const size_t tb_config_schema_n;
const struct tb_cfg_row *tb_config_row(const char *path);

/* ---- where.c: locations and types ---- */
void tb_config_setting_path(const config_setting_t *s, char *buf, size_t n);
/* Where a setting came from: FILE:LINE, or the command-line argument that set it. */
struct tb_where tb_config_where(const struct tb_config *c, int file, const config_setting_t *s);
const char *tb_config_type_name(int t);
bool tb_config_is_int(const config_setting_t *s);

#define TB_CFG_DIAG(x, file, s, ...) do { \
        struct tb_where w_ = tb_config_where((x)->c, (file), (s)); \
        char m_[768]; snprintf(m_, sizeof(m_), __VA_ARGS__); \
        tb_diag_add((x)->d, "%s: %s", w_.text, m_); \
    } while (0)

/* ---- lists.c: the custom loaders named by schema rows ---- */
void tb_config_load_kernels(struct tb_cfg_load *x, config_setting_t *s);
void tb_config_load_sizes(struct tb_cfg_load *x, config_setting_t *s);
void tb_config_load_blocks(struct tb_cfg_load *x, config_setting_t *s);
void tb_config_load_points(struct tb_cfg_load *x, config_setting_t *s);
void tb_config_load_element(struct tb_cfg_load *x, config_setting_t *s);
void tb_config_load_models(struct tb_cfg_load *x, config_setting_t *s);
void tb_config_load_power_source(struct tb_cfg_load *x, config_setting_t *s);
void tb_config_doc_power_source(char *buf, size_t n);
void tb_config_load_power_modes(struct tb_cfg_load *x, config_setting_t *s);
void tb_config_load_clock_caps(struct tb_cfg_load *x, config_setting_t *s);
/* board.match.model as one string, a list joined by '|'; -1 when it is neither or too long. */
int tb_config_models_join(const config_setting_t *s, char *out, size_t n);
/* The default block list (row's def_s: the sweep.blocks row's, "32x8") when no file or option
 * set it; row comes from the caller (the schema is above this file). */
void tb_config_default_blocks(struct tb_config *c, const char *at, const struct tb_cfg_row *row);
void tb_config_free_lists(struct tb_sweep_cfg *s);

/* ---- set.c ---- */
/* Applies every override to the files' settings (creating groups as needed), before the
 * walk validates them as if they had been written there. */
void tb_config_apply_overrides(struct tb_config *c, struct tb_diag *d);

/* ---- guard.c ---- */
/* Reads path for libconfig: a regular file (opened without blocking, so a FIFO or a device
 * is an error, never a hang), whose text and the text of every file it @includes add up to
 * at most TB_CONFIG_MAX_BYTES, with no NUL byte and no integer libconfig 1.5 would wrap.
 * *text gets the file's own text (malloc) for config_read_string. Returns 0, or -1 with the
 * problems in d, each naming the file (and line). */
int tb_config_guard_file(const char *path, const char *kind, char **text, struct tb_diag *d);
/* Adds a problem to d for each integer literal in text that does not fit in 32 bits and has
 * no L suffix; where is "FILE" (has_lines: ":LINE" is added) or an option's label. */
void tb_config_check_wraps(const char *text, const char *where, bool has_lines,
                           struct tb_diag *d);

#endif
