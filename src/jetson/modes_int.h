/* modes_int.h: what the files of the mode switcher share (modes_table.c, modes_plan.c,
 * modes_switch.c, modes_state.c); private to src/jetson/. */
#ifndef TB_MODES_INT_H
#define TB_MODES_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "jetson/modes.h"

/* Whether hz reads as want_mhz: devfreq rounds a cap to a clock of its table, so within 5%. */
bool tb_modes_near(double hz, double want_mhz);
/* Whether two readings of one clock file are the same clock: within half a MHz (a state
 * file keeps what was read, in Hz; adjacent devfreq steps are 51 MHz apart on the Xavier NX,
 * 26 on the Nano's 640/614, both within 5%: a restore compares exactly). */
bool tb_modes_same_hz(double a_hz, double b_hz);
/* The GPU's clocks, MHz, from the available_frequencies file beside its max_freq; how many
 * (0: none readable). */
size_t tb_modes_gpu_clocks(const char *root, const char *max_path, double *mhz, size_t cap);

/* A clock file under m's root, Hz; NAN with why ("'PATH': Permission denied") when it does
 * not read as a number. */
double tb_modes_read_hz(const struct tb_modes *m, const char *abs, char *why, size_t n);
/* The status file's mode; -1 with why. */
int tb_modes_read_mode(const struct tb_modes *m, char *why, size_t n);
/* hz to a clock file: directly where this user may write it, else by the cap writer
 * ($TB_CAP_WRITER, or sudo -n /usr/bin/tee when not root). 0 or -errno with why. */
int tb_modes_write_hz(const struct tb_modes *m, const char *abs, double hz, char *why, size_t n);
/* `nvpmodel -m id` under the holder (child.h); its exit status, out its words. */
int tb_modes_nvpmodel(const struct tb_modes *m, int id, char *out, size_t n);
/* The hold file of m's commands: the state's (STATE.child.XXXXXX), or STATE.child for a
 * state file of an older version. */
void tb_modes_hold_path(const struct tb_modes *m, char *buf, size_t n);

/* What the board should read: mode_id (-1 any), the GPU max_freq in MHz (> 0 near it, 0 the
 * top of its table: uncapped, NAN unchecked), the EMC file in MHz (NAN unchecked; on R36's
 * top-rate file a cap is a bound, not a value). */
struct tb_mode_want {
    int mode_id;
    double gpu_mhz, emc_mhz;
    bool exact;       /* the clocks as a state file found them: the very clock read then
                       * (tb_modes_same_hz), not a clock near it (a restore) */
};

/* Reads the board until it matches w or settle_ms passed: o's readings and read text
 * filled; miss "" when every check that could be made held, else the first that did not.
 * A file that does not read is unverified (in o->read), never a miss. */
void tb_modes_settle(const struct tb_modes *m, const struct tb_mode_want *w,
                     struct tb_mode_outcome *o, char *miss, size_t n);

/* What is at a state path: 0 nothing, 1 a regular file of this user with one link, -ELOOP
 * a link, -EINVAL another kind (FIFO, directory, device), -EPERM another user's file or one
 * with a second link; why filled for the negatives. */
int tb_modes_state_kind(const char *path, char *why, size_t n);

/* One reading of tb_modes_settle's, no wait. */
void tb_modes_check(const struct tb_modes *m, const struct tb_mode_want *w,
                    struct tb_mode_outcome *o, char *miss, size_t n);

#endif
