/* modes_switch.c: one step of the mode sweep (see modes.h): nvpmodel -m under a holder
 * (child.h), the caps written where nvpmodel writes them, and the board read back until it
 * matches. nvpmodel's stdin is /dev/null: its "reboot now?" question reads end of file,
 * never a yes. What this user may not read is said unverified, never a failure: the EMC cap
 * file is root's (0660) on R32 and R35. */
#include "jetson/modes.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jetson/child.h"
#include "jetson/modes_int.h"
#include "jetson/nvpmodel.h"
#include "lib/safeio.h"
#include "lib/util.h"

#define POLL_MS 100

bool tb_modes_near(double hz, double want_mhz)
{
    return !isnan(hz) && fabs(hz / 1e6 - want_mhz) <= 0.05 * want_mhz + 1;
}

bool tb_modes_same_hz(double a_hz, double b_hz)
{
    return !isnan(a_hz) && !isnan(b_hz) && fabs(a_hz - b_hz) < 0.5e6;
}

size_t tb_modes_gpu_clocks(const char *root, const char *max_path, double *mhz, size_t cap)
{
    char path[PATH_MAX], line[2048], why[PATH_MAX + 160];
    const char *slash = strrchr(max_path, '/');
    if (!slash || snprintf(path, sizeof(path), "%s%.*s/available_frequencies", root,
                           (int)(slash - max_path), max_path) >= (int)sizeof(path))
        return 0;
    if (tb_safeio_line(path, line, sizeof(line), 0, why, sizeof(why)) < 0)
        return 0;
    size_t k = 0;
    for (char *p = line, *end; k < cap; p = end) {
        double hz = strtod(p, &end);
        if (end == p)
            break;
        if (hz > 0 && isfinite(hz))
            mhz[k++] = hz / 1e6;
    }
    return k;
}

static void rooted(const struct tb_modes *m, char *buf, size_t n, const char *abs)
{
    if (snprintf(buf, n, "%s%s", m->root, abs) >= (int)n)
        buf[0] = '\0';   /* too long: reads and writes nothing */
}

void tb_modes_hold_path(const struct tb_modes *m, char *buf, size_t n)
{
    if (m->state.hold[0])
        tb_strlcpy(buf, m->state.hold, n);
    else
        snprintf(buf, n, "%s.child", m->state_path);   /* a state file of an older version */
}

/* A clock file read: Hz, or NAN with why; *garbled set when the file read but held no clock
 * (a whole line of digits, finite, not negative): a failed check, where a file that does not
 * read is an unverified one. */
static double read_clock(const struct tb_modes *m, const char *abs, char *why, size_t n,
                         bool *garbled)
{
    char path[PATH_MAX], line[64], w[PATH_MAX + 160];
    why[0] = '\0';
    *garbled = false;
    if (!abs[0]) {
        snprintf(why, n, "no such file on this board");
        return NAN;
    }
    rooted(m, path, sizeof(path), abs);
    if (tb_safeio_line(path, line, sizeof(line), 0, w, sizeof(w)) < 0) {
        tb_strlcpy(why, w, n);
        return NAN;
    }
    char *end;
    double v = strtod(line, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (end == line || *end || !isfinite(v) || v < 0) {
        line[strcspn(line, "\n")] = '\0';
        snprintf(why, n, "'%s' holds '%.20s', not a clock in Hz", path, line);
        *garbled = true;
        return NAN;
    }
    return v;
}

double tb_modes_read_hz(const struct tb_modes *m, const char *abs, char *why, size_t n)
{
    bool garbled;
    return read_clock(m, abs, why, n, &garbled);
}

int tb_modes_read_mode(const struct tb_modes *m, char *why, size_t n)
{
    char path[PATH_MAX], line[128];
    rooted(m, path, sizeof(path), "/var/lib/nvpmodel/status");
    if (tb_safeio_line(path, line, sizeof(line), 0, why, n) < 0)
        return -1;
    int id = tb_nvpmodel_parse_status(line);
    if (id < 0)
        snprintf(why, n, "'%s' names no mode ('%.40s')", path, line);
    return id;
}

/* The command that writes a cap file for a user who may not: $TB_CAP_WRITER (always, when
 * set), else `sudo -n /usr/bin/tee` when not root (the sudoers line doc/power.md gives names
 * each file), else none. */
static const char *cap_writer(void)
{
    const char *w = getenv("TB_CAP_WRITER");
    if (w && *w)
        return w;
    return geteuid() ? "sudo -n /usr/bin/tee" : NULL;
}

/* Through the writer: "CMD PATH" with the value on stdin. */
static int write_by(const struct tb_modes *m, const char *writer, const char *path,
                    const char *buf, char *why, size_t n)
{
    char out[300], hold[PATH_MAX + 8];
    const char *extra[] = { path, NULL };
    tb_modes_hold_path(m, hold, sizeof(hold));
    int rc = tb_child_run(writer, extra, buf, hold, m->boot, out, sizeof(out));
    if (rc == 0)
        return 0;
    snprintf(why, n, "'%s' is root's to write and '%s %s' failed (exit %d%s%.200s): run "
             "as root, or allow that command (doc/power.md)", path, writer, path, rc,
             out[0] ? ": " : "", out);
    return -EACCES;
}

int tb_modes_write_hz(const struct tb_modes *m, const char *abs, double hz, char *why, size_t n)
{
    char path[PATH_MAX], buf[32];
    rooted(m, path, sizeof(path), abs);
    int len = snprintf(buf, sizeof(buf), "%.0f\n", hz);
    const char *env = getenv("TB_CAP_WRITER");
    int fd = env && *env ? -1 : open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK |
                                     O_CLOEXEC | O_NOCTTY);
    int e = env && *env ? EACCES : errno;
    const char *writer = cap_writer();
    if (fd < 0 && (e == EACCES || e == EPERM) && writer)
        return write_by(m, writer, path, buf, why, n);
    struct stat st;
    if (fd < 0) {
        snprintf(why, n, "cannot write '%s': %s", path, strerror(e));
        return -e;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(why, n, "'%s' is not a regular file: not written", path);
        return -EINVAL;
    }
    ssize_t w = write(fd, buf, (size_t)len);
    e = w == len ? 0 : w < 0 ? errno : EIO;
    if (close(fd) < 0 && !e)
        e = errno;
    if (e) {
        snprintf(why, n, "cannot write '%s': %s", path, strerror(e));
        return -e;
    }
    return 0;
}

int tb_modes_nvpmodel(const struct tb_modes *m, int id, char *out, size_t n)
{
    const char *cmd = getenv("TB_NVPMODEL");
    if (!cmd || !*cmd)
        cmd = geteuid() == 0 ? "/usr/sbin/nvpmodel" : "sudo -n /usr/sbin/nvpmodel";
    char idbuf[16], hold[PATH_MAX + 8];
    snprintf(idbuf, sizeof(idbuf), "%d", id);
    tb_modes_hold_path(m, hold, sizeof(hold));
    const char *extra[] = { "-m", idbuf, NULL };
    return tb_child_run(cmd, extra, NULL, hold, m->boot, out, n);
}

const char *tb_modes_result_name(enum tb_mode_result r)
{
    switch (r) {
    case TB_MODE_OK: return "ok";
    case TB_MODE_REFUSED: return "refused";
    case TB_MODE_REBOOT: return "needs a reboot";
    case TB_MODE_NOT_FOLLOWED: return "clocks never followed";
    case TB_MODE_CAP_REFUSED: return "cap refused";
    }
    return "?";
}

/* ---- reading the board back ------------------------------------------------------- */

/* Appends "; unverified: WHAT (WHY)" (or ", WHAT (WHY)" after the first) to o->read. */
static void unverified(struct tb_mode_outcome *o, bool *first, const char *what,
                       const char *why)
{
    size_t len = strlen(o->read);
    if (len + 1 < sizeof(o->read))
        snprintf(o->read + len, sizeof(o->read) - len, "%s%s (%.200s)",
                 *first ? "; unverified: " : ", ", what, why);
    *first = false;
}

/* The GPU's check: > 0 the cap, or the clock of its table just below or above it (devfreq
 * keeps a clock of the table: the TX2 reads 1134.75 MHz for nvpmodel's 1120); 0 (uncapped)
 * the top of its table; exact: the very clock (a restore). */
static void check_gpu(const struct tb_modes *m, double want, bool exact,
                      struct tb_mode_outcome *o, char *miss, size_t n)
{
    if (isnan(want) || isnan(o->gpu_max_mhz) || miss[0])
        return;
    if (exact) {
        if (!tb_modes_same_hz(o->gpu_max_mhz * 1e6, want * 1e6))
            snprintf(miss, n, "GPU max_freq reads %.2f MHz, not the %.2f found", o->gpu_max_mhz,
                     want);
        return;
    }
    double clk[64], top = 0, below = 0, above = 0, v = o->gpu_max_mhz;
    size_t k = tb_modes_gpu_clocks(m->root, m->files.gpu_max, clk, 64);
    for (size_t i = 0; i < k; i++) {
        top = clk[i] > top ? clk[i] : top;
        below = clk[i] <= want && clk[i] > below ? clk[i] : below;
        above = clk[i] >= want && (!above || clk[i] < above) ? clk[i] : above;
    }
    if (!(want > 0)) {
        if (top > 0 && !tb_modes_near(v * 1e6, top))
            snprintf(miss, n, "GPU max_freq reads %.0f MHz, not %.0f (the top of its table: "
                     "the mode is uncapped)", v, top);
        return;
    }
    bool ok = tb_modes_near(v * 1e6, want) || (below > 0 && fabs(v - below) < 1) ||
              (above > 0 && fabs(v - above) < 1);
    if (!ok)
        snprintf(miss, n, "GPU max_freq reads %.0f MHz, not %.0f", v, want);
}

/* The EMC's check: R32/R35's cap file reads the cap; R36's top-rate file reads at most it. */
static void check_emc(const struct tb_modes *m, double want, bool exact,
                      struct tb_mode_outcome *o, char *miss, size_t n)
{
    double v = o->emc_cap_mhz;
    if (isnan(want) || isnan(v) || miss[0])
        return;
    if (exact && m->files.emc_kind == TB_EMC_CAP) {   /* the cap file reads what was written */
        if (!tb_modes_same_hz(v * 1e6, want * 1e6))
            snprintf(miss, n, "EMC cap reads %.0f MHz, not the %.0f found", v, want);
    } else if (m->files.emc_kind == TB_EMC_TOP) {
        if (want > 0 && v > want * 1.05 + 1)
            snprintf(miss, n, "EMC top rate reads %.0f MHz, above the cap %.0f", v, want);
    } else if (!tb_modes_near(v * 1e6, want) && !(want == 0 && v == 0)) {
        snprintf(miss, n, "EMC cap reads %.0f MHz, not %.0f", v, want);
    }
}

void tb_modes_check(const struct tb_modes *m, const struct tb_mode_want *w,
                  struct tb_mode_outcome *o, char *miss, size_t n)
{
    char gwhy[PATH_MAX + 160], ewhy[PATH_MAX + 160], mwhy[PATH_MAX + 160];
    bool emc_top = m->files.emc_kind == TB_EMC_TOP, first = true;
    miss[0] = '\0';
    bool gbad, ebad;
    o->gpu_max_mhz = read_clock(m, m->files.gpu_max, gwhy, sizeof(gwhy), &gbad) / 1e6;
    double emc = read_clock(m, m->files.emc, ewhy, sizeof(ewhy), &ebad);
    o->emc_cap_mhz = isnan(emc) ? NAN : emc <= 0 ? 0 : emc / 1e6;
    int now = w->mode_id >= 0 ? tb_modes_read_mode(m, mwhy, sizeof(mwhy)) : -1;
    if (w->mode_id >= 0 && now >= 0 && now != w->mode_id)
        snprintf(miss, n, "nvpmodel's status names mode %d, not %d", now, w->mode_id);
    check_gpu(m, w->gpu_mhz, w->exact, o, miss, n);
    check_emc(m, w->emc_mhz, w->exact, o, miss, n);
    /* a file that reads but holds no clock is no unverified check: a failed one */
    if (!miss[0] && gbad && !isnan(w->gpu_mhz))
        snprintf(miss, n, "GPU max_freq: %.300s", gwhy);
    else if (!miss[0] && ebad && !isnan(w->emc_mhz))
        snprintf(miss, n, "%s: %.300s", emc_top ? "EMC top rate" : "EMC cap", ewhy);
    size_t len = 0;
    o->read[0] = '\0';
    if (!isnan(o->gpu_max_mhz))
        len += (size_t)snprintf(o->read, sizeof(o->read), "GPU max %.0f MHz", o->gpu_max_mhz);
    if (!isnan(o->emc_cap_mhz) && len < sizeof(o->read))
        len += (size_t)snprintf(o->read + len, sizeof(o->read) - len, "%sEMC %s %.0f MHz",
                                len ? ", " : "", emc_top ? "top rate" : "cap", o->emc_cap_mhz);
    if (len < sizeof(o->read))
        snprintf(o->read + len, sizeof(o->read) - len, "%s", len ? " read after it settled"
                 : "nothing read after it settled");
    if (w->mode_id >= 0 && now < 0)
        unverified(o, &first, "the mode", mwhy);
    if (m->files.gpu_max[0] && isnan(o->gpu_max_mhz) && (!gbad || isnan(w->gpu_mhz)))
        unverified(o, &first, "GPU max_freq", gwhy);
    if (m->files.emc[0] && isnan(o->emc_cap_mhz) && (!ebad || isnan(w->emc_mhz)))
        unverified(o, &first, emc_top ? "EMC top rate" : "EMC cap", ewhy);
}

void tb_modes_settle(const struct tb_modes *m, const struct tb_mode_want *w,
                     struct tb_mode_outcome *o, char *miss, size_t n)
{
    int64_t deadline = tb_now_ns() + (int64_t)m->settle_ms * 1000000;
    for (;;) {
        tb_modes_check(m, w, o, miss, n);
        if (!miss[0] || tb_now_ns() >= deadline)
            return;
        tb_sleep_ns((int64_t)POLL_MS * 1000000);
    }
}

/* ---- a step ----------------------------------------------------------------------- */

/* A cap above the mode's own lifts its clock instead of capping it (max_freq and the EMC
 * cap are the files nvpmodel writes the mode's caps to): the step is no operating point of
 * that mode, and nothing is written for it. true (o filled) when so. */
static bool lifts(const struct tb_modes *m, const struct tb_mode_step *s,
                  struct tb_mode_outcome *o)
{
    const struct tb_mode_def *base = tb_modes_find_id(&m->table, s->mode_id >= 0 ? s->mode_id
                                                      : m->state.mode_id);
    const char *lifted = NULL;
    double cap = 0, own = 0;
    if (base && s->gpu_cap_mhz > 0 && base->gpu_cap_mhz > 0 &&
        s->gpu_cap_mhz > base->gpu_cap_mhz && !tb_modes_near(base->gpu_cap_mhz * 1e6,
                                                             s->gpu_cap_mhz))
        lifted = "GPU", cap = s->gpu_cap_mhz, own = base->gpu_cap_mhz;
    else if (base && s->emc_cap_mhz > 0 && base->emc_cap_mhz > 0 &&
             s->emc_cap_mhz > base->emc_cap_mhz && !tb_modes_near(base->emc_cap_mhz * 1e6,
                                                                  s->emc_cap_mhz))
        lifted = "EMC", cap = s->emc_cap_mhz, own = base->emc_cap_mhz;
    if (!lifted)
        return false;
    o->result = TB_MODE_CAP_REFUSED;
    snprintf(o->why, sizeof(o->why), "%s cap %.0f MHz is above mode %s (%d)'s own %.0f MHz: "
             "it would lift the mode's clock, not cap it; nothing changed", lifted, cap,
             base->name, base->id, own);
    return true;
}

/* nvpmodel -m for the step: 0, or -1 with o filled (refused, or a reboot asked: then the
 * saved mode is set again at once, so that a power cut before the end does not boot into
 * the step's mode). */
static int switch_mode(struct tb_modes *m, const struct tb_mode_step *s,
                       struct tb_mode_outcome *o)
{
    char out[400];
    int rc = tb_modes_nvpmodel(m, s->mode_id, out, sizeof(out));
    if (strcasestr(out, "reboot")) {
        char again[300] = "";
        int st_id = m->state.mode_id;
        if (st_id >= 0) {
            char out2[200];
            int rc2 = tb_modes_nvpmodel(m, st_id, out2, sizeof(out2));
            if (rc2 == 0)
                snprintf(again, sizeof(again), "; mode %d set again at once", st_id);
            else
                snprintf(again, sizeof(again), "; setting mode %d again failed (exit %d: "
                         "%.150s), tried again at the end", st_id, rc2, out2);
        }
        o->result = TB_MODE_REBOOT;
        snprintf(o->why, sizeof(o->why), "mode %s (%d) needs a reboot to take effect "
                 "(nvpmodel: %.250s): skipped, never rebooted%s", s->mode_name, s->mode_id,
                 out, again);
        return -1;
    }
    if (rc != 0) {
        o->result = TB_MODE_REFUSED;
        snprintf(o->why, sizeof(o->why), "mode %s (%d) refused: nvpmodel exit %d%s%.400s",
                 s->mode_name, s->mode_id, rc, out[0] ? ": " : "", out);
        return -1;
    }
    return 0;
}

/* The step's caps written and read back: 0, or -1 with o filled. */
static int write_caps(struct tb_modes *m, const struct tb_mode_step *s,
                      const struct tb_mode_want *mode_w, struct tb_mode_outcome *o)
{
    char why[PATH_MAX + 160], miss[200];
    if (s->gpu_cap_mhz > 0 && tb_modes_write_hz(m, m->files.gpu_max, s->gpu_cap_mhz * 1e6, why,
                                                sizeof(why)) < 0) {
        o->result = TB_MODE_CAP_REFUSED;
        snprintf(o->why, sizeof(o->why), "GPU cap %.0f MHz: %.400s", s->gpu_cap_mhz, why);
        return -1;
    }
    if (s->emc_cap_mhz > 0 && tb_modes_write_hz(m, m->files.emc, s->emc_cap_mhz * 1e6, why,
                                                sizeof(why)) < 0) {
        o->result = TB_MODE_CAP_REFUSED;
        snprintf(o->why, sizeof(o->why), "EMC cap %.0f MHz: %.400s", s->emc_cap_mhz, why);
        return -1;
    }
    struct tb_mode_want w = *mode_w;
    w.gpu_mhz = s->gpu_cap_mhz > 0 ? s->gpu_cap_mhz : w.gpu_mhz;
    w.emc_mhz = s->emc_cap_mhz > 0 ? s->emc_cap_mhz : w.emc_mhz;
    tb_modes_settle(m, &w, o, miss, sizeof(miss));
    if (miss[0]) {
        o->result = TB_MODE_CAP_REFUSED;
        snprintf(o->why, sizeof(o->why), "caps asked (GPU %.0f, EMC %.0f MHz) did not "
                 "hold: %s", s->gpu_cap_mhz, s->emc_cap_mhz, miss);
        return -1;
    }
    return 0;
}

int tb_modes_apply(struct tb_modes *m, const struct tb_mode_step *s, struct tb_mode_outcome *o)
{
    memset(o, 0, sizeof(*o));
    o->gpu_max_mhz = o->emc_cap_mhz = NAN;
    if (lifts(m, s, o))
        return -1;
    m->touched = true;
    if (s->mode_id >= 0 && switch_mode(m, s, o) < 0)
        return -1;
    /* what the mode sets: its caps, the top of the GPU's table where it sets none (rows of
     * an uncapped mode measured at the last mode's clocks would carry a false label) */
    const struct tb_mode_def *def = s->mode_id >= 0 ? tb_modes_find_id(&m->table, s->mode_id)
                                                    : NULL;
    struct tb_mode_want w = { s->mode_id, NAN, NAN, false };
    if (def) {   /* an uncapped EMC reads back as each kernel has it: not checked */
        w.gpu_mhz = def->gpu_cap_mhz;
        w.emc_mhz = def->emc_cap_mhz > 0 ? def->emc_cap_mhz : NAN;
    }
    char miss[200];
    tb_modes_settle(m, &w, o, miss, sizeof(miss));
    if (miss[0]) {
        o->result = TB_MODE_NOT_FOLLOWED;
        snprintf(o->why, sizeof(o->why), "mode %s (%d): nvpmodel reported success but the "
                 "clocks never followed in %d ms: %s", s->mode_name, s->mode_id, m->settle_ms,
                 miss);
        return -1;
    }
    if ((s->gpu_cap_mhz > 0 || s->emc_cap_mhz > 0) && write_caps(m, s, &w, o) < 0)
        return -1;
    o->result = TB_MODE_OK;
    return 0;
}
