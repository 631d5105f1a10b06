/* modes.h: changing a Jetson's power mode and clock caps for a sweep, verifying that the
 * clocks followed, and putting back what the run changed whatever happens. Modes are
 * switched with `nvpmodel -m ID` ($TB_NVPMODEL names the command, e.g. a fake in tests or
 * "sudo -n /usr/sbin/nvpmodel"), caps written to the files nvpmodel itself writes on this
 * release (nvpmodel.conf's MAX_FREQ_KNEXT path where the kernel has it, R35/R36; else its
 * MAX_FREQ path; else the GPU's devfreq class entry), all under a root. Before the first
 * change the board's mode and caps go to a state file ($TB_MODE_STATE, default per user,
 * tb_modes_state_file: it survives a reboot, as a mode does); a run killed
 * mid-sweep is restored from it by the next run or `transpose-bench restore`, once the dead
 * run's nvpmodel is done (child.h). Files: modes_table.c (nvpmodel.conf, the files per
 * release), modes_plan.c, modes_switch.c (a step and its verification), modes_state.c
 * (state file, restore, recover). Not here: reading the mode for the log (nvpmodel.h),
 * desktops (never changed: NVML clocks and power limits are root's and shared). */
#ifndef TB_MODES_H
#define TB_MODES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/diag.h"

/* The longest "NAME (ID)" a log's power_mode keeps whole (log/logread.h holds 64 bytes). */
#define TB_MODE_LABEL_MAX 63

/* One POWER_MODEL of nvpmodel.conf. Caps in MHz: > 0 a cap, 0 none (-1 in the file). */
struct tb_mode_def {
    int id;
    char name[64];
    bool name_cut;                    /* the file's name was longer than 63 characters */
    double gpu_cap_mhz, emc_cap_mhz;
};

/* How the EMC file nvpmodel writes reads back. */
enum tb_emc_kind {
    TB_EMC_NONE,
    TB_EMC_CAP,      /* nvpmodel_emc_cap/emc_iso_cap (R32, R35): what was written, 0 none */
    TB_EMC_TOP,      /* nvpmodel_clk_cap/emc (R36): the EMC's current top rate, never 0 */
};

struct tb_mode_table {
    struct tb_mode_def *v;
    size_t n;
    int default_id;                   /* PM_CONFIG DEFAULT; -1 none */
    char gpu_max_path[PATH_MAX];      /* PARAM GPU's MAX_FREQ file (absolute, not rooted); "" */
    char gpu_max_knext[PATH_MAX];     /* its MAX_FREQ_KNEXT file; "" */
    char emc_cap_path[PATH_MAX];      /* PARAM EMC's MAX_FREQ file; "" */
    char emc_cap_knext[PATH_MAX];     /* its MAX_FREQ_KNEXT file; "" */
};

/* The files nvpmodel writes on the board under a root (absolute, not rooted; "" none). */
struct tb_mode_files {
    char gpu_max[PATH_MAX];
    char gpu_why[320];                /* "" found; else why there is none (a GPU devfreq the
                                       * tool does not know, Thor's gpu-gpc-0, is named) */
    char emc[PATH_MAX];
    enum tb_emc_kind emc_kind;
};

/* Parses nvpmodel.conf's text. 0, or -ENOENT (why filled) when it holds no mode. */
int tb_modes_table_parse(const char *conf, struct tb_mode_table *t, char *why, size_t n);
/* Reads root + /etc/nvpmodel.conf (a link to the board's own file on L4T: followed). */
int tb_modes_table_read(const char *root, struct tb_mode_table *t, char *why, size_t n);
void tb_modes_table_free(struct tb_mode_table *t);
/* "15W" or "0" -> its row; NULL when the table has neither. */
const struct tb_mode_def *tb_modes_find(const struct tb_mode_table *t, const char *name_or_id);
const struct tb_mode_def *tb_modes_find_id(const struct tb_mode_table *t, int id);
/* The files nvpmodel writes under root, as nvpmodel picks them: a clock's MAX_FREQ_KNEXT
 * file where the kernel has it (R35, R36: nvpmodel takes it there), else its MAX_FREQ file,
 * else (GPU) the devfreq class entry of a GPU the tool knows (57000000.gpu, 17000000.gv11b,
 * 17000000.ga10b, 17000000.gpu). */
void tb_modes_files(const char *root, const struct tb_mode_table *t, struct tb_mode_files *f);

/* One step of the outer loop: a mode (-1: leave the mode as found) and caps (0: none). */
struct tb_mode_step {
    int mode_id;
    char mode_name[64];
    double gpu_cap_mhz, emc_cap_mhz;
};

/* The sweep's power-mode axes as the plan reads them: sweep.power_modes, sweep.gpu_max_mhz and
 * sweep.emc_max_mhz, each with where it was set ("conf/x.cfg:12" or "--set ...", for the
 * problems; never NULL for an axis that has values). run.c fills it from the configuration:
 * nothing in jetson/ includes config.h. */
struct tb_mode_axes {
    char *const *power_modes; size_t n_power_modes; const char *power_modes_at;  /* names or ids */
    const long *gpu_max_mhz; size_t n_gpu_max_mhz; const char *gpu_max_mhz_at;
    const long *emc_max_mhz; size_t n_emc_max_mhz; const char *emc_max_mhz_at;
};

/* The steps of ax's axes (modes x gpu caps x emc caps) against the board's table under root;
 * none (*n 0) when the sweep names no axis. Every problem added to d with FILE:LINE: modes
 * on a machine without nvpmodel, a name the table lacks (with the nearest name), one mode
 * named twice (by name or id), a mode whose name is longer than 63 characters (two such
 * modes would be one operating point in the log), one cap twice, a GPU cap where nvpmodel
 * writes no GPU max_freq file here, a GPU cap above the GPU's highest clock or far from
 * every clock of its available_frequencies (devfreq would run it at a lower one), an EMC
 * cap without an EMC cap file. Returns the problems added. */
int tb_modes_plan(const struct tb_mode_axes *ax, const char *root, struct tb_mode_step **steps,
                  size_t *n, struct tb_diag *d);

/* The board's settings as the state file keeps them (Hz; NAN unknown or unreadable). */
struct tb_mode_state {
    long pid;                 /* the run that wrote it */
    char lock[512];           /* the lock file it held (TB_LOCK_FILE); "" unknown */
    char hold[512];           /* its hold file (child.h): STATE.child.XXXXXX, a name nobody
                               * can plant first; "" a file of an older version (STATE.child) */
    int mode_id;              /* -1 unknown */
    double gpu_max_hz, emc_cap_hz;
    bool switches_mode;       /* the sweep switches modes: restoring may run nvpmodel -m;
                               * false for a sweep of caps alone ("switches_mode 0") */
    bool gpu_caps, emc_caps;  /* the sweep writes GPU / EMC caps: only those are written
                               * back ("gpu_caps 1"; a file without the lines: none) */
};

enum tb_mode_result {
    TB_MODE_OK,
    TB_MODE_REFUSED,          /* nvpmodel failed (not root, not allowed, no such mode) */
    TB_MODE_REBOOT,           /* nvpmodel asked for a reboot: the mode takes effect only then */
    TB_MODE_NOT_FOLLOWED,     /* nvpmodel said yes but a file that reads says it did not */
    TB_MODE_CAP_REFUSED,      /* a clock cap could not be written or did not read back */
};

struct tb_mode_outcome {
    enum tb_mode_result result;
    char why[512];            /* what happened, one line; "" when OK */
    double gpu_max_mhz;       /* the GPU max_freq read after settling; NAN unread */
    double emc_cap_mhz;       /* the EMC file read after settling: the cap (0 none) on R32/R35,
                               * the top rate on R36; NAN unread (root's on R32/R35) */
    char read[768];           /* what was read, for the log's mode_step line: "GPU max 612
                               * MHz, EMC cap 2133 MHz read after it settled", then
                               * "; unverified: FILE: REASON" for each check it could not make */
};

/* The switcher: the caller holds it (no globals). */
struct tb_modes {
    char root[PATH_MAX];
    struct tb_mode_table table;
    struct tb_mode_files files;
    char state_path[PATH_MAX];
    bool state_default;       /* no TB_MODE_STATE: the user's own folder, made if missing */
    char boot[64];            /* this boot's id (ROOT/proc/sys/kernel/random/boot_id); "" */
    int settle_ms;            /* how long clocks may take to follow ($TB_MODE_SETTLE_MS) */
    bool saved;               /* the state file holds the board's settings */
    bool touched;             /* a change was attempted since */
    struct tb_mode_state state;
};

/* The state file's path into buf: $TB_MODE_STATE, which must be absolute (a relative one
 * would name another file for a `restore` run from another folder: refused, -EINVAL with
 * why), else the user's own: /var/lib/transpose-bench/modes.state for root, else
 * $XDG_STATE_HOME/transpose-bench/modes.state or ~/.local/state/transpose-bench/modes.state
 * (a folder of this user's that no other user can plant a file in: each user's nights and
 * restores keep their own state, so that no user's file blocks or misleads another's).
 * Its folder, where it exists, is resolved (no link left in buf) and every folder from /
 * down to it must be root's or this user's and writable by no one else, or sticky: else
 * -EPERM with why (root's TB_MODE_STATE in a user's folder, an XDG_STATE_HOME everyone
 * writes), so that no other user can turn the path elsewhere once checked.
 * 1 the default, 0 the variable's, -EINVAL, -EPERM. */
int tb_modes_state_file(char *buf, size_t n, char *why, size_t wn);
const char *tb_modes_result_name(enum tb_mode_result r);

/* Reads the table under root (NULL: tb_root()) and finds its files, the state path and the
 * boot id; 0 or -errno with why. */
int tb_modes_open(struct tb_modes *m, const char *root, char *why, size_t n);
void tb_modes_close(struct tb_modes *m);
/* Reads the board's mode and caps and writes the state file: a new file beside it, synced,
 * then renamed (a temporary of ours left there by a dead run is replaced). steps (n of them)
 * are the sweep's: whether it switches modes and which caps it writes (NULL: it switches
 * modes, no caps). What cannot be put back is refused before any change (-EIO): a sweep that
 * switches modes when the mode cannot be read, a sweep of caps alone when a capped clock's
 * file cannot be read. A state path that is a link, a FIFO or anything but a regular file is
 * refused (-ELOOP, -EINVAL), and so is another user's file there (-EPERM: a TB_MODE_STATE
 * in a shared folder), and a default folder not this user's alone; nothing is written or
 * followed; an existing state file of ours is -EEXIST (recover it first). The run's hold
 * file (child.h) is made first, a new name beside the state file that the state names. tb_modes_recover refuses the same files the same way. */
int tb_modes_save(struct tb_modes *m, const struct tb_mode_step *steps, size_t nsteps,
                  char *why, size_t n);
/* Switches to step's mode (unless -1) and writes its caps, then waits up to settle_ms for
 * what can be read (the status file, the GPU max_freq, the EMC file) to match the mode's
 * table and the caps; an uncapped GPU must read the top of its table. A file this user may
 * not read is "unverified" in o->read, never a failure. Fills o; returns 0 when the step
 * holds, else -1 (o says which failure and why). A cap above the mode's own (the mode found,
 * for a step of caps alone) is skipped before anything is written: it would lift the mode's
 * clock, not cap it. A mode that needs a reboot is skipped and the saved mode set again at
 * once, so that no later boot lands in it. */
int tb_modes_apply(struct tb_modes *m, const struct tb_mode_step *s, struct tb_mode_outcome *o);
/* Puts back what the run changed, by the route that changed it: waits for (or kills, past
 * its deadline) an nvpmodel or cap writer of this state still running, reads the board,
 * runs nvpmodel -m when the mode differs, writes back only the caps the sweep asked, reads
 * the board again and removes the state file when what can be read is as found. what: one
 * line for the log ("mode 2 (MAXN_SUPER), GPU max 1020 MHz restored"). 0, or -1 with what
 * saying what did not come back (the state file is kept for the next try). */
int tb_modes_restore(struct tb_modes *m, char *what, size_t n);
/* A state file left by a run that died: restored (tb_modes_restore) and removed. Call with
 * the run lock held. 0 none, 1 restored (what filled), -1 a state file that could not be
 * used or restored (what says why: a link or FIFO is refused and left alone, and so is the
 * state of a run still alive, one that took another lock file, and a mode the board's
 * nvpmodel.conf lacks). */
int tb_modes_recover(const char *root, char *what, size_t n);

/* State file text <-> struct (for tests). */
int tb_modes_state_parse(const char *text, struct tb_mode_state *s);

#endif
