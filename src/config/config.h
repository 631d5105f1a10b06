/* config/config.h: the sweep file and the board file (libconfig), `--set` overrides, and their
 * validation into plain structs. Every problem is collected with its FILE:LINE (or the
 * command-line argument that set it) so that all are reported in one pass. Rooms:
 * src/config/: config.c, lists.c, set.c, guard.c (internal.h, private to the folder).
 * Not here: kernel names and device limits (point_rules.c), expanding the sweep into
 * points (sweep.c), finding board files (board.c). */
#ifndef TB_CONFIG_H
#define TB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <libconfig.h>

#include "lib/diag.h"
#include "power/power.h"

#define TB_STR 256

struct tb_where { char text[TB_STR + 32]; };   /* "conf/x.cfg:12" or "--set a.b=1" */

struct tb_size { long rows, cols; struct tb_where at; };
struct tb_block { int x, y; struct tb_where at; };
/* One explicit point (sweep.points, as `tune` writes them): runs instead of the product
 * kernels x sizes x blocks. */
struct tb_point_cfg { char kernel[32]; long rows, cols; int x, y; struct tb_where at; };

struct tb_sweep_cfg {
    char **kernels; size_t n_kernels; struct tb_where kernels_at;
    char **kernel_at; /* where each kernel name was written */
    struct tb_size *sizes; size_t n_sizes;
    struct tb_block *blocks; size_t n_blocks;
    struct tb_point_cfg *points; size_t n_points;
    int warmup;
    char element[TB_STR]; int elem_size;
    int min_reps, max_reps;
    double min_time_ms, max_time_ms, rel_spread;
    bool verify;
    char cache[TB_STR];        /* "warm" or "cold" (L2 flushed before each repetition) */
    char out_dir[TB_STR];
    char metrics_file[TB_STR]; /* the night's figures for Prometheus (run --metrics); "" none */
    int gzip_level;
    int keep_logs, keep_days;  /* log retention, 0 = keep all */
    double tune_seconds;       /* `tune`'s time budget */
    /* the power-mode axes (run.c hands them to jetson/modes.h as struct tb_mode_axes): empty,
     * the sweep changes no mode and no clock */
    char **power_modes; size_t n_power_modes; struct tb_where power_modes_at;  /* names or ids */
    long *gpu_max_mhz; size_t n_gpu_max_mhz; struct tb_where gpu_max_mhz_at;
    long *emc_max_mhz; size_t n_emc_max_mhz; struct tb_where emc_max_mhz_at;
};

struct tb_board_cfg {
    char name[TB_STR];
    char match_model[TB_STR];  /* substring of /proc/device-tree/model */
    char match_gpu[TB_STR];    /* substring of the GPU's name (desktop boards) */
    char arch[TB_STR];         /* e.g. "sm_87" */
    char sms[TB_STR];          /* e.g. "87": what `make BOARD=` compiles for */
    char cpu[TB_STR];          /* "aarch64" or "x86_64": what `make dist` builds for */
    char cuda[TB_STR];         /* the JetPack's CUDA version, e.g. "10.2"; "" on desktops */
    char ptx_isa[TB_STR];      /* newest PTX ISA its driver JIT-compiles, e.g. "6.5"; "" */
    bool has_gpu;              /* a run that cannot use the GPU fails (unless --device cpu) */
    double peak_gbps;          /* theoretical peak, 0 = unknown */
    int dram_bus_bits;         /* DRAM bus width, bits (128 on an Orin Nano); 0 = unknown */
    int dram_mts;              /* DRAM data rate at full clock, MT/s (6400); 0 = unknown */
    char dram_type[TB_STR];    /* "LPDDR4", "LPDDR4x", "LPDDR5"; "" = unknown (ceiling.h) */
    struct tb_power_cfg power; /* the power group (power.h), board.max_power_w in it */
    char probe[TB_STR];        /* power.probe: auto, never, always (src/cmd/probe_night.c) */
};

struct tb_override { char *path, *value, *label; };

struct tb_config {
    struct tb_sweep_cfg sweep;
    struct tb_board_cfg board;
    char sweep_path[TB_STR], board_path[TB_STR];
    config_t files[2];         /* 0 sweep, 1 board: as parsed, overrides written into them
                                * before the walk; the dump reads the structs above */
    bool loaded[2];
    struct tb_override *ovr; size_t n_ovr;
};

/* Add an override "path=value" (from --set) or one built by an option (--kernels a,b
 * becomes sweep.kernels = ["a","b"]); label is what error messages show. */
int tb_config_add_override(struct tb_config *c, const char *path, const char *value,
                           const char *label);
/* --set KEY=VALUE. Returns -1 (message in d) when it is not of that form. */
int tb_config_add_set(struct tb_config *c, const char *arg, struct tb_diag *d);
/* The last override of path (from --set or an option), quotes of a string removed, into
 * buf; false when nothing overrides it. */
bool tb_config_override(const struct tb_config *c, const char *path, char *buf, size_t n);

void tb_config_init(struct tb_config *c);
/* Reads both files, applies overrides, validates types, ranges and names of settings.
 * Returns the number of problems added to d. */
int tb_config_load(struct tb_config *c, const char *sweep_path, const char *board_path,
                   struct tb_diag *d);
/* The resolved configuration, setting by setting: emit(ctx, "sweep.warmup", "5") with the
 * value as libconfig text. Every setting of the schema, so a new one reaches the log's
 * metadata and `tune`'s files with no change there. */
typedef void (*tb_config_emit_fn)(void *ctx, const char *path, const char *value);
void tb_config_dump(const struct tb_config *c, tb_config_emit_fn emit, void *ctx);
void tb_config_free(struct tb_config *c);
/* Back to tb_config_init's state, keeping the overrides: for a second load (a run whose
 * board file is chosen by the GPU's name, known once the GPU is open). */
void tb_config_reset(struct tb_config *c);

/* `help settings [KEY]` (help.c): every key of the schema, or KEY's (a group: it and its
 * keys), each with its file, type, range, default and one line of help. An unknown KEY is
 * an error naming the nearest key, on stderr: -1. */
int tb_config_help(const char *key, FILE *f);
/* Every key as man(7) paragraphs, for the man page's SETTINGS (scripts/docs-gen.sh). */
void tb_config_help_roff(FILE *f);

/* Parses a config file that holds only a board section; used by board detection. */
int tb_config_peek_board(const char *path, char *name, size_t name_n, char *model, size_t model_n,
                         char *gpu, size_t gpu_n);

#endif
