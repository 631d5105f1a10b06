/* modes_restore.c: the board put back as the state file says (see modes.h): at a run's end,
 * and for a run that died (recover). Only what the run changed, by the route that changed
 * it: nvpmodel -m when the mode differs, the cap writer only for a cap the sweep asked; and
 * nothing at all for a board already as found, whose state file is removed, so that no
 * later night is refused for a board nobody changed. */
#include "jetson/modes.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jetson/child.h"
#include "jetson/modes_int.h"
#include "lib/lock.h"
#include "lib/safeio.h"
#include "lib/util.h"

/* The board as the state file found it, as a check. */
static struct tb_mode_want as_found(const struct tb_mode_state *st)
{
    struct tb_mode_want w = { st->switches_mode ? st->mode_id : -1, NAN, NAN, true };
    w.gpu_mhz = isnan(st->gpu_max_hz) ? NAN : st->gpu_max_hz / 1e6;
    w.emc_mhz = isnan(st->emc_cap_hz) ? NAN : st->emc_cap_hz / 1e6;
    return w;
}

/* Appends to what (len its length so far); the new length. */
__attribute__((format(printf, 4, 5)))
static size_t say(char *what, size_t n, size_t len, const char *fmt, ...)
{
    if (len + 1 >= n)
        return len;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(what + len, n - len, fmt, ap);
    va_end(ap);
    return k < 0 ? len : len + (size_t)k < n ? len + (size_t)k : n - 1;
}

/* Whether the EMC file reads as found: R32/R35's cap file the very value (0 none); R36's
 * top rate near it (the EMC's rate, which the firmware sets from the cap). */
static bool emc_same(const struct tb_modes *m, double emc_hz, double found_hz)
{
    if (isnan(emc_hz))
        return false;
    if (emc_hz == 0 || found_hz == 0)
        return emc_hz == found_hz;
    return m->files.emc_kind == TB_EMC_TOP ? tb_modes_near(emc_hz, found_hz / 1e6)
                                           : tb_modes_same_hz(emc_hz, found_hz);
}

/* nvpmodel -m of the saved mode when the mode differs (or cannot be read, or an EMC cap the
 * sweep wrote cannot be read back: the mode's own cap comes with it); then the caps the
 * sweep asked, where they differ. 0, or -1 with what said in what. */
static int put_back(struct tb_modes *m, char *what, size_t n, bool *acted)
{
    const struct tb_mode_state *st = &m->state;
    char why[PATH_MAX + 200], out[400];
    int now = tb_modes_read_mode(m, why, sizeof(why));
    double gpu = tb_modes_read_hz(m, m->files.gpu_max, why, sizeof(why));
    double emc = tb_modes_read_hz(m, m->files.emc, why, sizeof(why));
    /* a clock the sweep never capped that differs was left by nvpmodel (a switch cut half
     * way: the status file written, the clocks not): nvpmodel puts it back */
    bool gpu_off = !isnan(gpu) && !isnan(st->gpu_max_hz) && !tb_modes_same_hz(gpu, st->gpu_max_hz);
    bool emc_off = !isnan(emc) && !isnan(st->emc_cap_hz) && !emc_same(m, emc, st->emc_cap_hz);
    if (st->switches_mode && (now != st->mode_id || (!st->gpu_caps && gpu_off) ||
                              (!st->emc_caps && emc_off) ||
                              (st->emc_caps && isnan(emc) && isnan(st->emc_cap_hz)))) {
        if (st->mode_id < 0)
            return snprintf(what, n, "the mode before the sweep is unknown: NOT restored; "), -1;
        *acted = true;
        int rc = tb_modes_nvpmodel(m, st->mode_id, out, sizeof(out));
        if (rc != 0) {
            snprintf(what, n, "mode %d NOT restored (nvpmodel exit %d: %.300s); ", st->mode_id,
                     rc, out);
            return -1;
        }
        const struct tb_mode_def *def = tb_modes_find_id(&m->table, st->mode_id);
        struct tb_mode_want w = { st->mode_id, def ? def->gpu_cap_mhz : NAN, NAN, false };
        struct tb_mode_outcome o;
        char miss[200];
        tb_modes_settle(m, &w, &o, miss, sizeof(miss));   /* its caps in place, then ours */
        gpu = tb_modes_read_hz(m, m->files.gpu_max, why, sizeof(why));
        emc = tb_modes_read_hz(m, m->files.emc, why, sizeof(why));
    }
    if (st->gpu_caps && !isnan(st->gpu_max_hz) && !tb_modes_same_hz(gpu, st->gpu_max_hz)) {
        *acted = true;
        if (tb_modes_write_hz(m, m->files.gpu_max, st->gpu_max_hz, why, sizeof(why)) < 0)
            return snprintf(what, n, "GPU max NOT restored (%.400s); ", why), -1;
    }
    if (st->emc_caps && !isnan(st->emc_cap_hz) && !emc_same(m, emc, st->emc_cap_hz)) {
        *acted = true;
        if (tb_modes_write_hz(m, m->files.emc, st->emc_cap_hz, why, sizeof(why)) < 0)
            return snprintf(what, n, "EMC cap NOT restored (%.400s); ", why), -1;
    }
    return 0;
}

/* what for a board as found: what was read before the sweep and is back (a clock never read
 * unsaid), then what could not be verified. */
static void said_restored(const struct tb_modes *m, bool acted, const char *unver,
                          const char *settled, char *what, size_t n)
{
    const struct tb_mode_state *st = &m->state;
    const struct tb_mode_def *def = tb_modes_find_id(&m->table, st->mode_id);
    size_t len = 0;
    if (st->switches_mode)
        len = say(what, n, len, "mode %s (%d)", def ? def->name : "?", st->mode_id);
    if (!isnan(st->gpu_max_hz))
        len = say(what, n, len, "%sGPU max %ld MHz", len ? ", " : "",
                  lround(st->gpu_max_hz / 1e6));
    if (!isnan(st->emc_cap_hz))
        len = say(what, n, len, m->files.emc_kind == TB_EMC_TOP ? "%sEMC top rate %ld MHz"
                  : "%sEMC cap %ld MHz", len ? ", " : "", lround(st->emc_cap_hz / 1e6));
    len = say(what, n, len, "%s", acted ? " restored" : " as found: nothing to put back");
    if (!st->switches_mode)
        len = say(what, n, len, " (a sweep of caps alone: the mode was never switched)");
    if (unver[0])
        len = say(what, n, len, "%s", unver);
    if (settled[0])
        say(what, n, len, "; %s", settled);
}

int tb_modes_restore(struct tb_modes *m, char *what, size_t n)
{
    what[0] = '\0';
    if (!m->saved)
        return 0;
    const struct tb_mode_state *st = &m->state;
    char settled[400] = "", hold[PATH_MAX + 8], miss[200] = "";
    tb_modes_hold_path(m, hold, sizeof(hold));
    /* a command of this run or a dead one still running would change the board after it
     * was read as restored: waited for, or killed at its deadline, first */
    int k = tb_child_settle(hold, m->boot, settled, sizeof(settled));
    bool acted = false;
    int bad = k < 0 ? (snprintf(what, n, "%s; ", settled), -1) : 0;
    if (!bad && !m->touched) {
        snprintf(what, n, "nothing changed: mode %d as found", st->mode_id);
    } else if (!bad && (bad = put_back(m, what, n, &acted)) == 0) {
        struct tb_mode_want w = as_found(st);
        struct tb_mode_outcome o;
        tb_modes_settle(m, &w, &o, miss, sizeof(miss));   /* the board read again */
        if (miss[0])
            bad = -1, snprintf(what, n, "NOT restored: %s; ", miss);
        else
            said_restored(m, acted, strstr(o.read, "; unverified") ?
                          strstr(o.read, "; unverified") : "", settled, what, n);
    }
    if (bad) {
        size_t len = strlen(what);
        snprintf(what + len, n - len, "state kept in '%s' for `transpose-bench restore`",
                 m->state_path);
        return -1;
    }
    struct stat sb;
    if (lstat(m->state_path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid())
        unlink(m->state_path);   /* the tool's own state file, the board as found */
    if (lstat(hold, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid())
        unlink(hold);   /* its hold file, settled above: no record outlives the night */
    m->saved = m->touched = false;
    return 0;
}

/* ---- a dead run's state --------------------------------------------------------- */

/* Whether pid is a transpose-bench still running (not this one): a run that took another
 * lock file (another TB_LOCK_FILE, a /tmp cleaned under it) holds its state file still, and
 * restoring it would change the board under its rows. A pid reused by another program after
 * a reboot is no run. The lock file the run held (the state file's "lock" line) says it
 * whatever the process's name: held by someone, the run lives; free, it is gone. Ours (the
 * caller holds it) cannot be held by that run. Without the line, or with the file gone: the
 * process's name. */
static bool live_run(long pid, const char *lock)
{
    if (pid <= 0 || pid == (long)getpid() || pid > INT_MAX)
        return false;
    if (kill((pid_t)pid, 0) < 0 && errno != EPERM)
        return false;
    if (lock[0] && !strcmp(lock, tb_lock_path()))
        return false;
    int fd = lock[0] ? open(lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
                     : -1;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        bool held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
        close(fd);   /* a shared lock we took goes with the descriptor */
        return held;
    }
    if (fd >= 0)
        close(fd);
    char path[64], comm[64], why[160];
    snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
    if (tb_safeio_line(path, comm, sizeof(comm), 0, why, sizeof(why)) < 0)
        return false;
    return strncmp(comm, "transpose-bench", 15) == 0;
}

/* The state file at path read into st: 0, or -1 with what said. */
static int read_state(const char *path, struct tb_mode_state *st, char *what, size_t n)
{
    char why[PATH_MAX + 200], text[2048];
    int rc = tb_safeio_read(path, text, sizeof(text), NULL, 0, 0, why, sizeof(why));
    if (rc < 0) {
        snprintf(what, n, "state file: %s", why);
        return -1;
    }
    if (tb_modes_state_parse(text, st) < 0) {
        snprintf(what, n, "state file '%s' holds no mode or clock: left alone (see the board's "
                 "mode with nvpmodel -q and set it back by hand, then remove the file)", path);
        return -1;
    }
    return 0;
}

/* Where versions before #50 kept every user's state: read by recover only. */
#define LEGACY_STATE "/var/tmp/transpose-bench-modes.state"

/* The state's hold file, when it is one of ours beside it (STATE.child.XXXXXX); else none
 * (STATE.child, as an older version named it): a state file names no other file to lock,
 * empty or remove. */
static void hold_beside(const char *path, struct tb_mode_state *st)
{
    size_t len = strlen(path);
    if (strncmp(st->hold, path, len) || strncmp(st->hold + len, ".child.", 7) ||
        strchr(st->hold + len, '/'))
        st->hold[0] = '\0';
}

int tb_modes_recover(const char *root, char *what, size_t n)
{
    char path[PATH_MAX], why[PATH_MAX + 200];
    what[0] = '\0';
    int d = tb_modes_state_file(path, sizeof(path), why, sizeof(why));
    if (d < 0) {
        tb_strlcpy(what, why, n);
        return -1;
    }
    int k = tb_modes_state_kind(path, why, sizeof(why));
    /* none at the default: an older version's, in the folder everyone writes, when it is
     * this user's own regular file (another's there is no state of ours: not read) */
    if (k == 0 && d == 1 && tb_modes_state_kind(LEGACY_STATE, why, sizeof(why)) == 1) {
        tb_strlcpy(path, LEGACY_STATE, sizeof(path));
        k = 1;
    }
    if (k <= 0) {
        tb_strlcpy(what, k < 0 ? why : "", n);
        return k < 0 ? -1 : 0;
    }
    struct tb_mode_state st;
    if (read_state(path, &st, what, n) < 0)
        return -1;
    hold_beside(path, &st);
    if (live_run(st.pid, st.lock)) {
        snprintf(what, n, "state file '%s' is a live run's (pid %ld, transpose-bench, which took "
                 "another lock file: TB_LOCK_FILE?): left alone, that run restores its own "
                 "changes", path, st.pid);
        return -1;
    }
    struct tb_modes m;
    if (tb_modes_open(&m, root, why, sizeof(why)) < 0) {
        snprintf(what, n, "state file '%s' left by run pid %ld, but %s", path, st.pid, why);
        tb_modes_close(&m);
        return -1;
    }
    if (st.switches_mode && st.mode_id >= 0 && !tb_modes_find_id(&m.table, st.mode_id)) {
        snprintf(what, n, "state file '%s' names mode %d, which the board's nvpmodel.conf "
                 "lacks: left alone (see the board's mode with nvpmodel -q, then remove the "
                 "file)", path, st.mode_id);
        tb_modes_close(&m);
        return -1;
    }
    m.state = st;
    tb_strlcpy(m.state_path, path, sizeof(m.state_path));   /* the older version's, too */
    m.saved = m.touched = true;
    char res[900];
    int rc = tb_modes_restore(&m, res, sizeof(res));
    tb_modes_close(&m);
    /* what is known only: a restore that failed says what failed, not that the board
     * was changed (it may never have been) */
    snprintf(what, n, "a run (pid %ld) died %s: %s", st.pid, rc < 0 ? "leaving its state file"
             : strstr(res, "nothing to put back") || strstr(res, "nothing changed")
             ? "(the board as found)" : "with the board changed", res);
    return rc < 0 ? -1 : 1;
}
