/* modes_state.c: the state file and putting the board back (see modes.h). The order of a
 * change is fixed so that nothing is lost whatever kills the run: the state file first
 * (synced, renamed into place), then nvpmodel, then the caps; restoring waits for any
 * command of the run still running (child.h), reads the board, puts back what differs by
 * the route that changed it, and removes the state file once what can be read is as found. */
#include "jetson/modes.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
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

/* Whether one folder on the state file's path may hold or lead to it: root's or this
 * user's, writable by no one else (a group of the user's own aside), or sticky (/tmp: no
 * one else may rename what is ours in it). */
static bool state_dir_safe(const struct stat *st)
{
    bool others = (st->st_mode & S_IWOTH) || ((st->st_mode & S_IWGRP) && st->st_gid != getegid());
    return S_ISDIR(st->st_mode) && (st->st_uid == 0 || st->st_uid == geteuid()) &&
           (!others || (st->st_mode & S_ISVTX));
}

/* The folders and links of dir as given, from / down, before any is resolved: each link
 * root's or this user's (another user's link chose where the state goes: a link in a sticky
 * folder to /etc), each folder state_dir_safe (no one else may swap a link in it between
 * this and the realpath after). 0, 1 when a part is missing, -EPERM with why. */
static int path_as_given_safe(const char *dir, char *why, size_t wn)
{
    size_t len = strlen(dir);
    for (size_t i = 0; i <= len; i++) {
        if ((i < len && dir[i] != '/') || (i == len && len == 1))
            continue;
        char at[PATH_MAX];
        memcpy(at, dir, i);
        at[i] = '\0';
        struct stat st;
        if (lstat(i ? at : "/", &st) < 0)
            return errno == ENOENT ? 1 : 0;   /* realpath says what else is wrong */
        bool link = S_ISLNK(st.st_mode);
        if (link ? st.st_uid == 0 || st.st_uid == geteuid() : state_dir_safe(&st))
            continue;
        snprintf(why, wn, "state folder '%s': '%s' on its way is %s of uid %u's, mode %04o "
                 "(not root's or this user's, or writable by others): another user could "
                 "turn the path elsewhere; refused, nothing read or written (root's state "
                 "belongs in a folder of root's; fix it, or set TB_MODE_STATE)", dir,
                 i ? at : "/", link ? "a link" : "a folder", (unsigned)st.st_uid,
                 (unsigned)(st.st_mode & 07777));
        return -EPERM;
    }
    return 0;
}

/* The state file's folder resolved (realpath) and every folder from / down to it checked
 * (state_dir_safe), path rewritten through the resolved folder: once no other user may
 * change any of them, no link turns the path elsewhere after the check (root's run with a
 * TB_MODE_STATE in a user's folder, that user swapping a folder for a link to /etc, would
 * else remove /etc's file of the state's name at the end). 0, 1 when the folder does not
 * exist yet (nothing to read there; tb_modes_save makes the default one and checks again),
 * -EPERM or -errno with why. */
static int state_dir_trusted(char *path, size_t n, char *why, size_t wn)
{
    char dir[PATH_MAX], res[PATH_MAX], base[NAME_MAX + 1];
    tb_strlcpy(dir, path, sizeof(dir));
    char *slash = strrchr(dir, '/');
    if (!slash || !slash[1] || strlen(slash + 1) > NAME_MAX)
        return 0;   /* refused later, by name */
    tb_strlcpy(base, slash + 1, sizeof(base));
    slash[slash == dir] = '\0';
    int k = path_as_given_safe(dir, why, wn);
    if (k != 0)
        return k;
    if (!realpath(dir, res)) {
        int e = errno;
        if (e == ENOENT)
            return 1;
        snprintf(why, wn, "state folder '%s': %s (set TB_MODE_STATE)", dir, strerror(e));
        return -e;
    }
    size_t len = strlen(res);
    for (size_t i = 0; i <= len; i++) {   /* "/", then each folder down to res */
        if ((i < len && res[i] != '/') || (i == len && len == 1))
            continue;
        char at[PATH_MAX];
        memcpy(at, res, i);
        at[i] = '\0';
        struct stat st = { 0 };
        if (lstat(i ? at : "/", &st) < 0 || !state_dir_safe(&st)) {
            snprintf(why, wn, "state folder '%s': '%s' on its way is uid %u's, mode %04o (not "
                     "root's or this user's, or writable by others): another user could turn "
                     "the path elsewhere; refused, nothing read or written (root's state "
                     "belongs in a folder of root's; fix it, or set TB_MODE_STATE)", res,
                     i ? at : "/", (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
            return -EPERM;
        }
    }
    if ((size_t)snprintf(path, n, "%s/%s", len > 1 ? res : "", base) >= n) {
        snprintf(why, wn, "state file path '%s/%s' is too long", res, base);
        return -ENAMETOOLONG;
    }
    return 0;
}

/* The state file's path as the environment names it (tb_modes_state_file). */
static int state_file_named(char *buf, size_t n, char *why, size_t wn)
{
    const char *p = getenv("TB_MODE_STATE");
    if (p && *p) {
        if (p[0] != '/' || strchr(p, '\n')) {
            snprintf(why, wn, "TB_MODE_STATE '%s' is not an absolute path: refused (a `restore` "
                     "run from another folder would look for another file; give it from /)",
                     p);
            return -EINVAL;
        }
        tb_strlcpy(buf, p, n);
        return 0;
    }
    /* root's in a folder of root's; a user's in the user's home (XDG's state folder): no
     * name in a folder everyone writes (/var/tmp), which any user could take first */
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    struct passwd *pw = NULL;
    if (geteuid() == 0)
        snprintf(buf, n, "/var/lib/transpose-bench/modes.state");
    else if (xdg && xdg[0] == '/')
        snprintf(buf, n, "%s/transpose-bench/modes.state", xdg);
    else if ((home && home[0] == '/') || ((pw = getpwuid(geteuid())) && (home = pw->pw_dir) &&
                                          home[0] == '/'))
        snprintf(buf, n, "%s/.local/state/transpose-bench/modes.state", home);
    else {
        snprintf(why, wn, "no home folder for the state file (HOME unset): set TB_MODE_STATE");
        return -EINVAL;
    }
    return 1;
}

int tb_modes_state_file(char *buf, size_t n, char *why, size_t wn)
{
    int d = state_file_named(buf, n, why, wn);
    if (d < 0)
        return d;
    int t = state_dir_trusted(buf, n, why, wn);
    return t < 0 ? t : d;
}

/* The default state file's folder made (each missing level 0700) and checked: a folder of
 * this user's that no other user may write. 0, or -errno with why. */
static int state_dir_ready(const char *path, char *why, size_t n)
{
    char dir[PATH_MAX];
    tb_strlcpy(dir, path, sizeof(dir));
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *q = strchr(dir + 1, '/'); ; q = strchr(q + 1, '/')) {
        if (q)
            *q = '\0';
        if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
            int e = errno;
            snprintf(why, n, "cannot make the state folder '%s': %s (set TB_MODE_STATE)", dir,
                     strerror(e));
            return -e;
        }
        if (!q)
            break;
        *q = '/';
    }
    struct stat st;
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH))) {
        snprintf(why, n, "state folder '%s' is not a folder of this user's that only it may "
                 "write: refused (fix it, or set TB_MODE_STATE)", dir);
        return -EPERM;
    }
    return 0;
}

/* One "key value" line of a state file into s; true when it is a setting of the board. */
static bool state_line(const char *line, struct tb_mode_state *s)
{
    char key[32], val[64];
    if (!strncmp(line, "lock /", 6)) {   /* a path: the rest of the line */
        tb_strlcpy(s->lock, line + 5, sizeof(s->lock));
        s->lock[strcspn(s->lock, "\n")] = '\0';
        return false;
    }
    if (!strncmp(line, "hold /", 6)) {
        tb_strlcpy(s->hold, line + 5, sizeof(s->hold));
        s->hold[strcspn(s->hold, "\n")] = '\0';
        return false;
    }
    if (sscanf(line, "%31s %63s", key, val) != 2)
        return false;
    char *end;
    double v = strtod(val, &end);
    if (end == val || *end || !isfinite(v))
        return false;
    if (!strcmp(key, "pid"))
        s->pid = (long)v;
    else if (!strcmp(key, "mode") && v >= 0 && v < 1000)
        return s->mode_id = (int)v, true;
    else if (!strcmp(key, "gpu_max_hz") && v > 0)
        return s->gpu_max_hz = v, true;
    else if (!strcmp(key, "emc_cap_hz") && v >= 0)
        return s->emc_cap_hz = v, true;
    else if (!strcmp(key, "switches_mode"))
        s->switches_mode = v != 0;
    else if (!strcmp(key, "gpu_caps"))
        s->gpu_caps = v != 0;
    else if (!strcmp(key, "emc_caps"))
        s->emc_caps = v != 0;
    return false;
}

int tb_modes_state_parse(const char *text, struct tb_mode_state *s)
{
    memset(s, 0, sizeof(*s));
    s->mode_id = -1;
    s->gpu_max_hz = s->emc_cap_hz = NAN;
    s->switches_mode = true;   /* a file without the line: nvpmodel -m, as before */
    bool seen = false;
    for (const char *p = text; *p; ) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[600];
        tb_strlcpy(line, p, len < sizeof(line) ? len + 1 : sizeof(line));
        p += len + (nl != NULL);
        if (line[0] != '#')
            seen |= state_line(line, s);
    }
    return seen ? 0 : -EINVAL;
}

int tb_modes_state_kind(const char *path, char *why, size_t n)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -errno;
    if (S_ISLNK(st.st_mode)) {
        snprintf(why, n, "state file '%s' is a symbolic link: refused, not followed (remove "
                 "it, or set TB_MODE_STATE)", path);
        return -ELOOP;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, n, "state file '%s' is not a regular file (%s): refused (remove it, or "
                 "set TB_MODE_STATE)", path, S_ISFIFO(st.st_mode) ? "a FIFO" :
                 S_ISDIR(st.st_mode) ? "a directory" : "a device or socket");
        return -EINVAL;
    }
    if (st.st_uid != geteuid()) {   /* /var/tmp is everyone's: another user's file is no state */
        snprintf(why, n, "state file '%s' belongs to uid %u, not this user (%u): refused, "
                 "left alone (that user's `transpose-bench restore` puts its board back; "
                 "or set TB_MODE_STATE)", path, (unsigned)st.st_uid,
                 (unsigned)geteuid());
        return -EPERM;
    }
    if (st.st_nlink != 1) {   /* a name for another file: restoring from it, removing it */
        snprintf(why, n, "state file '%s' has more than one link (%lu): a name planted for "
                 "another file, refused, left alone (remove it, or set TB_MODE_STATE)", path,
                 (unsigned long)st.st_nlink);
        return -EPERM;
    }
    return 1;
}

int tb_modes_open(struct tb_modes *m, const char *root, char *why, size_t n)
{
    memset(m, 0, sizeof(*m));
    tb_strlcpy(m->root, root ? root : tb_root(), sizeof(m->root));
    int d = tb_modes_state_file(m->state_path, sizeof(m->state_path), why, n);
    if (d < 0)
        return d;
    m->state_default = d == 1;
    char boot[PATH_MAX + 40], w[PATH_MAX + 200];
    snprintf(boot, sizeof(boot), "%s/proc/sys/kernel/random/boot_id", m->root);
    /* the processes a hold record names are the kernel's (/proc), whatever the root: its
     * boot id where the root has none; none known, no record is proven ours (child.h) */
    if (tb_safeio_line(boot, m->boot, sizeof(m->boot), 0, w, sizeof(w)) < 0 &&
        (!m->root[0] || tb_safeio_line("/proc/sys/kernel/random/boot_id", m->boot,
                                       sizeof(m->boot), 0, w, sizeof(w)) < 0))
        m->boot[0] = '\0';
    m->boot[strcspn(m->boot, " \t\n")] = '\0';
    const char *s = getenv("TB_MODE_SETTLE_MS");
    m->settle_ms = s && atoi(s) > 0 ? atoi(s) : 5000;
    m->state.mode_id = -1;
    m->state.gpu_max_hz = m->state.emc_cap_hz = NAN;
    int rc = tb_modes_table_read(m->root, &m->table, why, n);
    if (rc == 0)
        tb_modes_files(m->root, &m->table, &m->files);
    return rc;
}

void tb_modes_close(struct tb_modes *m)
{
    tb_modes_table_free(&m->table);
}

/* ---- writing the state file ------------------------------------------------------- */

/* The state text written to a temporary beside path, synced, renamed over path. The
 * temporary's name is mkstemp's (O_EXCL, a name nobody can take first): a name of this pid
 * (STATE.<pid>.tmp, as once) could be planted at every pid's number in a shared folder and
 * refuse every night's sweep. */
static int write_state(const char *path, const char *text, char *why, size_t n)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        snprintf(why, n, "cannot create '%s': %s", tmp, strerror(e));
        return -e;
    }
    size_t len = strlen(text);
    int e = write(fd, text, len) == (ssize_t)len ? 0 : errno ? errno : EIO;
    if (!e && fsync(fd) < 0)
        e = errno;
    if (close(fd) < 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) < 0)
        e = errno;
    if (e) {
        unlink(tmp);   /* our own temporary, never another file */
        snprintf(why, n, "cannot write state file '%s': %s", path, strerror(e));
        return -e;
    }
    char dir[PATH_MAX];
    tb_strlcpy(dir, path, sizeof(dir));
    char *slash = strrchr(dir, '/');
    if (slash) {
        *(slash == dir ? slash + 1 : slash) = '\0';
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    return 0;
}

/* R32/R35's EMC cap file is root's (0660): for a normal user's sweep of EMC caps alone, the
 * cap found is the one nvpmodel wrote there when it set the mode, the mode's own EMC
 * MAX_FREQ from nvpmodel.conf (0: none, as nvpmodel writes -1), so that the tee line alone
 * runs such a night and puts the cap back (doc/power.md). Only for a file this user may not
 * read: one that reads but holds no clock stays unknown. */
static void emc_from_table(struct tb_modes *m)
{
    struct tb_mode_state *st = &m->state;
    char path[2 * PATH_MAX + 8];
    snprintf(path, sizeof(path), "%s%s", m->root, m->files.emc);
    if (!isnan(st->emc_cap_hz) || !st->emc_caps || st->switches_mode || st->mode_id < 0 ||
        m->files.emc_kind != TB_EMC_CAP || access(path, R_OK) == 0 || errno != EACCES)
        return;
    const struct tb_mode_def *def = tb_modes_find_id(&m->table, st->mode_id);
    if (def)
        st->emc_cap_hz = def->emc_cap_mhz > 0 ? def->emc_cap_mhz * 1e6 : 0;
}

/* What could not be put back is never changed: a mode switched from a mode nobody can name
 * would be "restored" to nothing. -EIO with why, else 0. */
static int refuse_unreadable(const struct tb_modes *m, char *why, size_t n)
{
    const struct tb_mode_state *st = &m->state;
    const char *unread = NULL, *what = NULL;
    if (st->switches_mode && st->mode_id < 0)
        unread = "/var/lib/nvpmodel/status", what = "power mode";
    else if (!st->switches_mode && st->gpu_caps && isnan(st->gpu_max_hz))
        unread = m->files.gpu_max, what = "GPU max_freq";
    else if (!st->switches_mode && st->emc_caps && isnan(st->emc_cap_hz))
        unread = m->files.emc, what = "EMC cap";
    if (!unread)
        return 0;
    snprintf(why, n, "cannot read the board's %s from '%s%s' (missing, root's to read, or not "
             "what nvpmodel writes there): it could not be put back", what, m->root, unread);
    return -EIO;
}

/* The run's hold file beside the state file: a new name of ours (mkstemp: nobody can take
 * it first), into st->hold. 0 or -errno with why. */
static int make_hold(const char *state_path, struct tb_mode_state *st, char *why, size_t n)
{
    char tmpl[PATH_MAX + 16];
    snprintf(tmpl, sizeof(tmpl), "%s.child.XXXXXX", state_path);
    if (strlen(tmpl) >= sizeof(st->hold)) {
        snprintf(why, n, "state file path '%s' is too long", state_path);
        return -ENAMETOOLONG;
    }
    int fd = mkstemp(tmpl);
    if (fd < 0) {
        int e = errno;
        snprintf(why, n, "cannot create the hold file '%s': %s", tmpl, strerror(e));
        return -e;
    }
    close(fd);
    tb_strlcpy(st->hold, tmpl, sizeof(st->hold));
    return 0;
}

int tb_modes_save(struct tb_modes *m, const struct tb_mode_step *steps, size_t nsteps,
                  char *why, size_t n)
{
    if (m->state_default && (state_dir_ready(m->state_path, why, n) < 0 ||
                             state_dir_trusted(m->state_path, sizeof(m->state_path), why, n)))
        return -EPERM;
    int k = tb_modes_state_kind(m->state_path, why, n);
    if (k < 0)
        return k;
    if (k == 1) {
        snprintf(why, n, "state file '%s' already holds a board's settings: restore them "
                 "first (transpose-bench restore)", m->state_path);
        return -EEXIST;
    }
    struct tb_mode_state *st = &m->state;
    char w[PATH_MAX + 160];
    st->switches_mode = !steps;
    for (size_t i = 0; steps && i < nsteps; i++) {
        st->switches_mode |= steps[i].mode_id >= 0;
        st->gpu_caps |= steps[i].gpu_cap_mhz > 0;
        st->emc_caps |= steps[i].emc_cap_mhz > 0;
    }
    st->pid = (long)getpid();
    const char *lock = tb_lock_path();   /* absolute and one line, or not said */
    tb_strlcpy(st->lock, lock[0] == '/' && !strchr(lock, '\n') &&
               strlen(lock) < sizeof(st->lock) ? lock : "", sizeof(st->lock));
    st->mode_id = tb_modes_read_mode(m, w, sizeof(w));
    st->gpu_max_hz = tb_modes_read_hz(m, m->files.gpu_max, w, sizeof(w));
    st->emc_cap_hz = tb_modes_read_hz(m, m->files.emc, w, sizeof(w));
    emc_from_table(m);
    int rc = refuse_unreadable(m, why, n);
    if (rc < 0)
        return rc;
    if ((rc = make_hold(m->state_path, st, why, n)) < 0)
        return rc;
    char text[1600];
    snprintf(text, sizeof(text), "# transpose-bench: the power mode and clock caps to put back "
             "(transpose-bench restore)\npid %ld\nmode %d\ngpu_max_hz %.0f\nemc_cap_hz %.0f\n"
             "switches_mode %d\ngpu_caps %d\nemc_caps %d\nhold %s\n%s%s%s", st->pid,
             st->mode_id, st->gpu_max_hz, st->emc_cap_hz, st->switches_mode, st->gpu_caps,
             st->emc_caps, st->hold, st->lock[0] ? "lock " : "", st->lock,
             st->lock[0] ? "\n" : "");
    rc = write_state(m->state_path, text, why, n);
    if (rc == 0)
        m->saved = true;
    else
        unlink(st->hold);   /* our own, just made */
    return rc;
}
