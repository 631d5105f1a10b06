/* board.h: finding the tool's data files (boards/, conf/) and detecting the board this
 * runs on: a board file's match.model against /proc/device-tree/model (under the
 * root), which decides when any file names the model; else its match.gpu against the
 * GPU's name; generic.cfg otherwise. */
#ifndef TB_BOARD_H
#define TB_BOARD_H

#include <stddef.h>

/* Directory holding sub ("boards" or "conf"): ./sub when present, holding a .cfg, and it
 * and the working folder are this user's or root's and writable by no one else (else it is
 * skipped with a warning: root never reads a planted board file, whose tegrastats.command it
 * would run; an empty one is no data); else next to the binary (the build tree), else
 * ../share/transpose-bench/sub beside it, else the compiled-in data dir. 0 and out, or -1. */
int tb_data_dir(const char *sub, char *out, size_t n);

/* Resolves a file name: as given when it holds a '/', or when it is in the working folder
 * and trusted as tb_data_dir trusts ./sub (else said skipped); else looked up (NAME, then
 * NAME.cfg) in each data dir of sub in tb_data_dir's order; else as given (-1). */
int tb_data_file(const char *sub, const char *name, char *out, size_t n);

/* Picks the board file for this machine. root: sysfs root ("/" normally); gpu_name may
 * be NULL. Fills path and a one-line reason. Returns 0, or -1 when no file exists. */
int tb_board_detect(const char *root, const char *gpu_name, char *path, size_t n, char *why,
                    size_t why_n);

struct tb_config;
/* The board file, one rule for run, list and power: given (looked up in boards/), else
 * detected under the power.sysfs_root override, else $TB_ROOT, else / (tb_sys_root): the
 * model first, then the GPU's name. gpu_name: the GPU the caller identified (run), "" when it
 * uses none (--device cpu), NULL to have GPU 0's name asked of the CUDA driver when no
 * model decides (list, power), so they choose what `run` chooses. why says from what, e.g.
 * "model 'quill' matches 'quill'". Returns 0, or -1 when no file exists. */
int tb_board_pick(const struct tb_config *cfg, const char *given, const char *gpu_name,
                  char *path, size_t n, char *why, size_t why_n);

/* Reads /proc/device-tree/model under root into buf ("" when absent), a bounded read. */
void tb_board_model(const char *root, char *buf, size_t n);

/* A board the loaded board file covers whose peak differs (an Orin Nano Super: model
 * string ending "Super", or the MAXN_SUPER power mode, 102.4 GB/s): sets board.peak_gbps
 * (unless --set gave it) and board.dram_mts where the file gives one (ceiling.h), fills note
 * with what was found and returns 1; else 0 and "". */
int tb_board_variant(struct tb_config *cfg, char *note, size_t n);

#endif
