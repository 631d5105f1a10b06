/* modes.c: see modes.h. The order of a change is fixed so that nothing is lost whatever
 * kills the run: the state file first (synced, renamed into place), then nvpmodel, then the
 * caps; restoring goes the other way and removes the state file only once the board reads
 * back as it was. nvpmodel is run with stdin from /dev/null: its "reboot now?" question
 * reads end of file, never a yes. */
#include "jetson/modes.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log/csvlog.h"
#include "lib/lock.h"
#include "jetson/nvpmodel.h"
#include "lib/safeio.h"
#include "lib/util.h"
#include "lib/watchdog.h"

extern char **environ;

#define CMD_TIMEOUT_S 30.0   /* at most: TB_DRIVER_TIMEOUT_S when lower (tests use 1) */
#define POLL_MS 100

/* ---- the table ------------------------------------------------------------------- */

/* A MAX_FREQ value in Hz as MHz: > 0 a cap, 0 none (-1, 0, absurdly large), NAN garbage. */
static double cap_mhz(const char *v)
{
    char *end;
    double hz = strtod(v, &end);
    if (end == v)
        return NAN;
    return hz <= 0 || hz >= 1e11 ? 0 : hz / 1e6;
}

/* The next non-comment line of *p, leading blanks removed; false at the end. */
static bool next_line(const char **p, char *buf, size_t n)
{
    while (**p) {
        const char *l = *p, *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        *p = l + len + (nl != NULL);
        while (len && isspace((unsigned char)*l)) {
            l++;
            len--;
        }
        if (!len || *l == '#')
            continue;
        tb_strlcpy(buf, l, len < n ? len + 1 : n);
        buf[strcspn(buf, "\r")] = '\0';
        return true;
    }
    return false;
}

int tb_modes_table_parse(const char *conf, struct tb_mode_table *t, char *why, size_t n)
{
    memset(t, 0, sizeof(*t));
    t->default_id = -1;
    char line[512], param[64] = "";
    struct tb_mode_def *cur = NULL;
    for (const char *p = conf; next_line(&p, line, sizeof(line)); ) {
        if (line[0] == '<') {
            int id;
            char name[64];
            cur = NULL;
            param[0] = '\0';
            const char *s;
            if ((s = strstr(line, "POWER_MODEL")) &&
                sscanf(s, "POWER_MODEL ID=%d NAME=%63[^ >]", &id, name) == 2 && id >= 0) {
                struct tb_mode_def *v = realloc(t->v, (t->n + 1) * sizeof(*v));
                if (!v)
                    break;
                t->v = v;
                cur = &t->v[t->n++];
                memset(cur, 0, sizeof(*cur));
                cur->id = id;
                tb_strlcpy(cur->name, name, sizeof(cur->name));
            } else if ((s = strstr(line, "PARAM")) && (s = strstr(s, "NAME="))) {
                sscanf(s, "NAME=%63[^ >]", param);
            } else if ((s = strstr(line, "PM_CONFIG DEFAULT="))) {
                t->default_id = atoi(s + 18);
            }
            continue;
        }
        char a[128], b[PATH_MAX], c[64];
        int k = sscanf(line, "%127s %4095s %63s", a, b, c);
        if (cur && k == 3 && !strcmp(b, "MAX_FREQ")) {
            if (!strcmp(a, "GPU"))
                cur->gpu_cap_mhz = cap_mhz(c);
            else if (!strcmp(a, "EMC"))
                cur->emc_cap_mhz = cap_mhz(c);
        } else if (!cur && k >= 2 && !strcmp(a, "MAX_FREQ") && b[0] == '/') {
            if (!strcmp(param, "GPU"))
                tb_strlcpy(t->gpu_max_path, b, sizeof(t->gpu_max_path));
            else if (!strcmp(param, "EMC"))
                tb_strlcpy(t->emc_cap_path, b, sizeof(t->emc_cap_path));
        }
    }
    if (!t->n) {
        snprintf(why, n, "nvpmodel.conf defines no POWER_MODEL");
        return -ENOENT;
    }
    return 0;
}

int tb_modes_table_read(const char *root, struct tb_mode_table *t, char *why, size_t n)
{
    char path[PATH_MAX], w[PATH_MAX + 160];
    memset(t, 0, sizeof(*t));
    snprintf(path, sizeof(path), "%s/etc/nvpmodel.conf", root ? root : tb_root());
    char *conf = malloc(TB_SAFEIO_MAX + 1);
    if (!conf) {
        snprintf(why, n, "out of memory reading '%s'", path);
        return -ENOMEM;
    }
    int rc = tb_safeio_read(path, conf, TB_SAFEIO_MAX + 1, NULL, TB_SAFEIO_LINK_OK, 0, w,
                            sizeof(w));
    if (rc == 0)
        rc = tb_modes_table_parse(conf, t, w, sizeof(w));
    else if (rc == -ENOENT)
        snprintf(w, sizeof(w), "no '%s': not a Jetson, or nvpmodel is not installed", path);
    if (rc < 0)
        tb_strlcpy(why, w, n);
    free(conf);
    return rc;
}

void tb_modes_table_free(struct tb_mode_table *t)
{
    free(t->v);
    memset(t, 0, sizeof(*t));
}

const struct tb_mode_def *tb_modes_find(const struct tb_mode_table *t, const char *s)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].name, s))
            return &t->v[i];
    char *end;
    long id = strtol(s, &end, 10);
    if (end == s || *end)
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].id == id)
            return &t->v[i];
    return NULL;
}

static const struct tb_mode_def *find_id(const struct tb_mode_table *t, int id)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].id == id)
            return &t->v[i];
    return NULL;
}

/* ---- the plan -------------------------------------------------------------------- */

/* Whether root + abs is a regular file (not followed where it is a link: sysfs's own files
 * are none); why filled when not. */
static bool cap_file_there(const char *root, const char *abs, char *why, size_t n)
{
    char path[PATH_MAX];
    struct stat st;
    if (snprintf(path, sizeof(path), "%s%s", root, abs) >= (int)sizeof(path)) {
        snprintf(why, n, "its path is too long");
        return false;
    }
    if (lstat(path, &st) < 0) {
        snprintf(why, n, "'%s': %s", path, strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, n, "'%s' is not a regular file", path);
        return false;
    }
    return true;
}

/* The GPU's clocks, MHz, from the available_frequencies file beside its max_freq (Hz, one
 * line); how many (0: none readable, no check made). */
static size_t gpu_clocks(const char *root, const char *max_path, double *mhz, size_t cap)
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

static bool near(double hz, double want_mhz);
static const struct tb_mode_def *find_id(const struct tb_mode_table *t, int id);

/* One cap axis against the board: its file named by nvpmodel.conf (what: "GPU MAX_FREQ"),
 * there (file: "GPU max_freq"), and none of its caps named twice. false (said in d) when
 * the file is not there to write. */
static bool cap_axis_ok(const char *setting, const char *at, const long *caps, size_t n,
                        const char *path, const char *root, const char *what, const char *file,
                        struct tb_diag *d)
{
    char why[PATH_MAX + 200];
    if (!path[0]) {
        tb_diag_add(d, "%s: 'sweep.%s': nvpmodel.conf names no %s file (this board has no "
                    "such cap)", at, setting, what);
        return false;
    }
    if (!cap_file_there(root, path, why, sizeof(why))) {
        tb_diag_add(d, "%s: 'sweep.%s': the %s file nvpmodel.conf names is not there (this "
                    "kernel has no such cap): %s", at, setting, file, why);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (caps[j] == caps[i]) {
                tb_diag_add(d, "%s: 'sweep.%s': %ld MHz is named twice (entries %zu and %zu): "
                            "each cap once", at, setting, caps[i], j + 1, i + 1);
                break;
            }
    return true;
}

/* The GPU caps against the board (cap_axis_ok), and each cap a clock of its table (devfreq
 * runs a cap between two clocks at the lower one, and one above the highest at the highest:
 * either would log a clock the GPU never had). */
static void check_gpu_caps(const struct tb_mode_axes *ax, const char *root,
                           const struct tb_mode_table *t, struct tb_diag *d)
{
    if (!cap_axis_ok("gpu_max_mhz", ax->gpu_max_mhz_at, ax->gpu_max_mhz, ax->n_gpu_max_mhz,
                     t->gpu_max_path, root, "GPU MAX_FREQ", "GPU max_freq", d))
        return;
    double clk[64];
    size_t nc = gpu_clocks(root, t->gpu_max_path, clk, 64);
    if (!nc)
        return;   /* no table to check against: the step reads the clock back */
    double top = 0;
    char list[400] = "";
    for (size_t j = 0, len = 0; j < nc; j++) {
        top = clk[j] > top ? clk[j] : top;
        if (len < sizeof(list))
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%.0f", j ? " " : "",
                                    clk[j]);
    }
    for (size_t i = 0; i < ax->n_gpu_max_mhz; i++) {
        double cap = (double)ax->gpu_max_mhz[i];
        bool in_table = false;
        for (size_t j = 0; j < nc && !in_table; j++)
            in_table = near(clk[j] * 1e6, cap);
        if (in_table)
            continue;
        if (cap > top)
            tb_diag_add(d, "%s: 'sweep.gpu_max_mhz': %.0f MHz is above the GPU's highest clock, "
                        "%.0f MHz (its available_frequencies: %s MHz)", ax->gpu_max_mhz_at,
                        cap, top, list);
        else
            tb_diag_add(d, "%s: 'sweep.gpu_max_mhz': %.0f MHz is not a clock of the GPU "
                        "(its available_frequencies: %s MHz): devfreq would run it at the one "
                        "below", ax->gpu_max_mhz_at, cap, list);
    }
}

int tb_modes_plan(const struct tb_mode_axes *ax, const char *root, struct tb_mode_step **steps,
                  size_t *n, struct tb_diag *d)
{
    size_t before = d->n;
    *steps = NULL;
    *n = 0;
    if (!ax->n_power_modes && !ax->n_gpu_max_mhz && !ax->n_emc_max_mhz)
        return 0;
    struct tb_mode_table t;
    char why[PATH_MAX + 200];
    const char *at = ax->n_power_modes ? ax->power_modes_at
                   : ax->n_gpu_max_mhz ? ax->gpu_max_mhz_at : ax->emc_max_mhz_at;
    if (tb_modes_table_read(root, &t, why, sizeof(why)) < 0) {
        tb_diag_add(d, "%s: the power-mode sweep needs a Jetson's nvpmodel: %s (a desktop's "
                    "clocks and power limits are never changed)", at, why);
        return (int)(d->n - before);
    }
    size_t nm = ax->n_power_modes ? ax->n_power_modes : 1;
    size_t ng = ax->n_gpu_max_mhz ? ax->n_gpu_max_mhz : 1;
    size_t ne = ax->n_emc_max_mhz ? ax->n_emc_max_mhz : 1;
    int ids[256];
    for (size_t i = 0; i < ax->n_power_modes && i < 256; i++) {
        const struct tb_mode_def *m = tb_modes_find(&t, ax->power_modes[i]);
        ids[i] = m ? m->id : -1;
        if (m)
            continue;
        const char *names[64];
        size_t k = 0;
        for (size_t j = 0; j < t.n && k < 64; j++)
            names[k++] = t.v[j].name;
        const char *sug = tb_suggest(ax->power_modes[i], names, k);
        char list[512] = "";
        for (size_t j = 0, len = 0; j < t.n && len < sizeof(list); j++)
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s (%d)", j ? ", " : "",
                                    t.v[j].name, t.v[j].id);
        if (sug)
            tb_diag_add(d, "%s: 'sweep.power_modes': nvpmodel.conf has no mode '%s' (did you "
                        "mean '%s'?)", ax->power_modes_at, ax->power_modes[i], sug);
        else
            tb_diag_add(d, "%s: 'sweep.power_modes': nvpmodel.conf has no mode '%s' (it has %s)",
                        ax->power_modes_at, ax->power_modes[i], list);
    }
    if (ax->n_power_modes > 256)
        tb_diag_add(d, "%s: 'sweep.power_modes': more than 256 modes", ax->power_modes_at);
    /* one mode twice ("15W" and "0" are one): its rows would be one operating point twice */
    for (size_t i = 0; i < ax->n_power_modes && i < 256; i++)
        for (size_t j = 0; ids[i] >= 0 && j < i; j++)
            if (ids[j] == ids[i]) {
                const struct tb_mode_def *m = find_id(&t, ids[i]);
                tb_diag_add(d, "%s: 'sweep.power_modes': entries %zu ('%s') and %zu ('%s') are "
                            "both mode %s (%d): each mode once", ax->power_modes_at, j + 1,
                            ax->power_modes[j], i + 1, ax->power_modes[i], m ? m->name : "?",
                            ids[i]);
                break;
            }
    const char *root_dir = root ? root : tb_root();
    if (ax->n_gpu_max_mhz)
        check_gpu_caps(ax, root_dir, &t, d);
    if (ax->n_emc_max_mhz)
        cap_axis_ok("emc_max_mhz", ax->emc_max_mhz_at, ax->emc_max_mhz, ax->n_emc_max_mhz,
                    t.emc_cap_path, root_dir, "EMC MAX_FREQ", "EMC cap", d);
    if (d->n == before) {
        *steps = calloc(nm * ng * ne, sizeof(**steps));
        for (size_t i = 0; *steps && i < nm; i++)
            for (size_t g = 0; g < ng; g++)
                for (size_t e = 0; e < ne; e++) {
                    struct tb_mode_step *s = &(*steps)[(*n)++];
                    s->mode_id = ax->n_power_modes ? ids[i] : -1;
                    const struct tb_mode_def *m = find_id(&t, s->mode_id);
                    tb_strlcpy(s->mode_name, m ? m->name : "", sizeof(s->mode_name));
                    s->gpu_cap_mhz = ax->n_gpu_max_mhz ? (double)ax->gpu_max_mhz[g] : 0;
                    s->emc_cap_mhz = ax->n_emc_max_mhz ? (double)ax->emc_max_mhz[e] : 0;
                }
    }
    tb_modes_table_free(&t);
    return (int)(d->n - before);
}

/* ---- reading and writing the board ------------------------------------------------ */

static void rooted(const struct tb_modes *m, char *buf, size_t n, const char *abs)
{
    if (snprintf(buf, n, "%s%s", m->root, abs) >= (int)n)
        buf[0] = '\0';   /* too long: reads and writes nothing */
}

/* A clock file in Hz (max_freq, emc_iso_cap); NAN when it does not read as a number. */
static double read_hz(const struct tb_modes *m, const char *abs)
{
    char path[PATH_MAX], line[64], why[PATH_MAX + 160];
    if (!abs[0])
        return NAN;
    rooted(m, path, sizeof(path), abs);
    if (tb_safeio_line(path, line, sizeof(line), 0, why, sizeof(why)) < 0)
        return NAN;
    char *end;
    double v = strtod(line, &end);
    return end == line ? NAN : v;
}

/* Runs a command line (words split at spaces) with extra arguments after it: stdin the text
 * input (NULL: /dev/null), stdout and stderr into out (bounded, one line), at most
 * CMD_TIMEOUT_S (TB_DRIVER_TIMEOUT_S when lower). Returns its exit status, 128+signal, or -errno when it could not be run
 * (why in out). */
static int run_cmd(const char *cmd, const char *const *extra, const char *input, char *out,
                   size_t n)
{
    char words[1024], *argv[20];
    tb_strlcpy(words, cmd, sizeof(words));
    int argc = 0;
    for (char *s = strtok(words, " "); s && argc < 12; s = strtok(NULL, " "))
        argv[argc++] = s;
    for (const char *const *x = extra; x && *x && argc < 19; x++)
        argv[argc++] = (char *)*x;
    argv[argc] = NULL;
    out[0] = '\0';
    int p[2], in[2] = { -1, -1 };
    if (pipe2(p, O_CLOEXEC) < 0 || (input && pipe2(in, O_CLOEXEC) < 0)) {
        int e = errno;
        snprintf(out, n, "pipe: %s", strerror(e));
        return -e;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (input)
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    /* its own process group: a terminal's Ctrl-C never reaches nvpmodel mid-switch (the run
     * restores after it), and a command past its deadline is killed with what it started */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    int rc = argc ? posix_spawnp(&pid, argv[0], &fa, &at, argv, environ) : ENOENT;
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (input) {
        close(in[0]);
        if (!rc) {   /* a few bytes: the pipe holds them, the write never blocks */
            sigset_t pipe_sig, was;   /* a command gone already: EPIPE, not a SIGPIPE death */
            sigemptyset(&pipe_sig);
            sigaddset(&pipe_sig, SIGPIPE);
            pthread_sigmask(SIG_BLOCK, &pipe_sig, &was);
            if (write(in[1], input, strlen(input)) < 0 && errno == EPIPE)
                sigtimedwait(&pipe_sig, NULL, &(struct timespec){ 0, 0 });
            pthread_sigmask(SIG_SETMASK, &was, NULL);
        }   /* a command that exits early says so by its status */
        close(in[1]);
    }
    if (rc) {
        close(p[0]);
        snprintf(out, n, "cannot run '%s': %s", argc ? argv[0] : cmd, strerror(rc));
        return -rc;
    }
    size_t len = 0;
    double limit_s = tb_watch_seconds(TB_WATCH_CALL);
    limit_s = limit_s < CMD_TIMEOUT_S ? limit_s : CMD_TIMEOUT_S;
    int64_t deadline = tb_real_now_ns() + (int64_t)(limit_s * 1e9);
    bool timed_out = false;
    for (;;) {
        int left = (int)((deadline - tb_real_now_ns()) / 1000000);
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd pf = { .fd = p[0], .events = POLLIN };
        int pr = poll(&pf, 1, left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0) {
            timed_out = pr == 0;
            break;
        }
        char buf[512];
        ssize_t got = read(p[0], buf, sizeof(buf));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        for (ssize_t i = 0; i < got && len + 1 < n; i++)
            out[len++] = buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t' ? ' ' : buf[i];
    }
    out[len] = '\0';
    close(p[0]);
    if (timed_out && kill(-pid, SIGKILL) < 0)   /* our own child's group (its pid) */
        kill(pid, SIGKILL);   /* a group we may not signal whole (sudo's root child) */
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (timed_out) {
        const char *a1 = extra && extra[0] ? extra[0] : NULL, *a2 = a1 ? extra[1] : NULL;
        snprintf(out, n, "'%s%s%s%s%s' did not finish in %g s: killed", cmd, a1 ? " " : "",
                 a1 ? a1 : "", a2 ? " " : "", a2 ? a2 : "", limit_s);
        return 128 + SIGKILL;
    }
    tb_csvlog_clean(out, n);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
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

/* Writes hz to a sysfs clock file: no link followed, a regular file only, never blocking.
 * Through the cap writer when $TB_CAP_WRITER names one, or when the file is root's to write
 * and this is not root: "CMD PATH" with the value on stdin. */
static int write_hz(const struct tb_modes *m, const char *abs, double hz, char *why, size_t n)
{
    char path[PATH_MAX], buf[32];
    rooted(m, path, sizeof(path), abs);
    int len = snprintf(buf, sizeof(buf), "%.0f\n", hz);
    const char *env = getenv("TB_CAP_WRITER");
    int fd = env && *env ? -1 : open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK |
                                     O_CLOEXEC | O_NOCTTY);
    int e = env && *env ? EACCES : errno;
    const char *writer = cap_writer();
    if (fd < 0 && (e == EACCES || e == EPERM) && writer) {
        char out[300];
        const char *extra[] = { path, NULL };
        int rc = run_cmd(writer, extra, buf, out, sizeof(out));
        if (rc == 0)
            return 0;
        snprintf(why, n, "'%s' is root's to write and '%s %s' failed (exit %d%s%.200s): run "
                 "as root, or allow that command (doc/power.md)", path, writer, path, rc,
                 out[0] ? ": " : "", out);
        return -EACCES;
    }
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

static int read_mode(const struct tb_modes *m)
{
    char path[PATH_MAX], line[128], why[PATH_MAX + 160];
    rooted(m, path, sizeof(path), "/var/lib/nvpmodel/status");
    if (tb_safeio_line(path, line, sizeof(line), 0, why, sizeof(why)) < 0)
        return -1;
    return tb_nvpmodel_parse_status(line);
}

/* Runs the nvpmodel command with "-m id" ($TB_NVPMODEL, else nvpmodel as root or through
 * `sudo -n`): see run_cmd. */
static int run_nvpmodel(int id, char *out, size_t n)
{
    const char *cmd = getenv("TB_NVPMODEL");
    if (!cmd || !*cmd)
        cmd = geteuid() == 0 ? "/usr/sbin/nvpmodel" : "sudo -n /usr/sbin/nvpmodel";
    char idbuf[16];
    snprintf(idbuf, sizeof(idbuf), "%d", id);
    const char *extra[] = { "-m", idbuf, NULL };
    return run_cmd(cmd, extra, NULL, out, n);
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

/* Whether hz reads as want_mhz: devfreq rounds a cap to a clock of its table, so within 5%
 * (the Orin's GPU steps are some 100 MHz apart at 1 GHz; a mode that did not take differs
 * by more). */
static bool near(double hz, double want_mhz)
{
    return !isnan(hz) && fabs(hz / 1e6 - want_mhz) <= 0.05 * want_mhz + 1;
}

/* What the board should read after a step, checked until settle_ms: the status file names
 * the mode, the GPU max_freq and EMC cap are the mode's (or the caps asked). "" when they
 * hold, else what does not. */
static void check(const struct tb_modes *m, int mode_id, double gpu_mhz, double emc_mhz,
                  struct tb_mode_outcome *o, char *miss, size_t n)
{
    miss[0] = '\0';
    o->gpu_max_mhz = read_hz(m, m->table.gpu_max_path) / 1e6;
    double emc = read_hz(m, m->table.emc_cap_path);
    o->emc_cap_mhz = isnan(emc) ? NAN : emc <= 0 ? 0 : emc / 1e6;
    int now = read_mode(m);
    if (mode_id >= 0 && now != mode_id)
        snprintf(miss, n, "nvpmodel's status names mode %d, not %d", now, mode_id);
    else if (gpu_mhz > 0 && !near(o->gpu_max_mhz * 1e6, gpu_mhz))
        snprintf(miss, n, "GPU max_freq reads %.0f MHz, not %.0f", o->gpu_max_mhz, gpu_mhz);
    else if (emc_mhz > 0 && !near(emc, emc_mhz))
        snprintf(miss, n, "EMC cap reads %.0f MHz, not %.0f", o->emc_cap_mhz, emc_mhz);
}

static void settle(const struct tb_modes *m, int mode_id, double gpu_mhz, double emc_mhz,
                   struct tb_mode_outcome *o, char *miss, size_t n)
{
    int64_t deadline = tb_now_ns() + (int64_t)m->settle_ms * 1000000;
    for (;;) {
        check(m, mode_id, gpu_mhz, emc_mhz, o, miss, n);
        if (!miss[0] || tb_now_ns() >= deadline)
            return;
        tb_sleep_ns((int64_t)POLL_MS * 1000000);
    }
}

/* ---- the state file --------------------------------------------------------------- */

const char *tb_modes_state_path(void)
{
    const char *p = getenv("TB_MODE_STATE");
    return p && *p ? p : "/var/tmp/transpose-bench-modes.state";
}

int tb_modes_state_parse(const char *text, struct tb_mode_state *s)
{
    s->pid = 0;
    s->lock[0] = '\0';
    s->mode_id = -1;
    s->gpu_max_hz = s->emc_cap_hz = NAN;
    s->switches_mode = true;   /* a file without the line: nvpmodel -m, as before */
    bool seen = false;
    char line[256];
    for (const char *p = text; next_line(&p, line, sizeof(line)); ) {
        char key[32], val[64];
        if (!strncmp(line, "lock /", 6)) {   /* a path: the rest of the line */
            tb_strlcpy(s->lock, line + 5, sizeof(s->lock));
            continue;
        }
        if (sscanf(line, "%31s %63s", key, val) != 2)
            continue;
        char *end;
        double v = strtod(val, &end);
        bool num = end != val && !*end && isfinite(v);
        if (!strcmp(key, "pid") && num)
            s->pid = (long)v;
        else if (!strcmp(key, "mode") && num && v >= 0 && v < 1000)
            s->mode_id = (int)v, seen = true;
        else if (!strcmp(key, "gpu_max_hz") && num && v > 0)
            s->gpu_max_hz = v, seen = true;
        else if (!strcmp(key, "emc_cap_hz") && num && v >= 0)
            s->emc_cap_hz = v, seen = true;
        else if (!strcmp(key, "switches_mode") && num)
            s->switches_mode = v != 0;
    }
    return seen ? 0 : -EINVAL;
}

/* What is at the state path: 0 nothing, 1 a regular file of this user, -ELOOP a link,
 * -EINVAL another kind (FIFO, directory, device), -EPERM another user's file; why filled
 * for the negatives. */
static int state_kind(const char *path, char *why, size_t n)
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
    return 1;
}

int tb_modes_open(struct tb_modes *m, const char *root, char *why, size_t n)
{
    memset(m, 0, sizeof(*m));
    tb_strlcpy(m->root, root ? root : tb_root(), sizeof(m->root));
    tb_strlcpy(m->state_path, tb_modes_state_path(), sizeof(m->state_path));
    const char *s = getenv("TB_MODE_SETTLE_MS");
    m->settle_ms = s && atoi(s) > 0 ? atoi(s) : 5000;
    m->state.mode_id = -1;
    m->state.gpu_max_hz = m->state.emc_cap_hz = NAN;
    return tb_modes_table_read(m->root, &m->table, why, n);
}

void tb_modes_close(struct tb_modes *m)
{
    tb_modes_table_free(&m->table);
}

int tb_modes_save(struct tb_modes *m, const struct tb_mode_step *steps, size_t nsteps,
                  char *why, size_t n)
{
    int k = state_kind(m->state_path, why, n);
    if (k < 0)
        return k;
    if (k == 1) {
        snprintf(why, n, "state file '%s' already holds a board's settings: restore them "
                 "first (transpose-bench restore)", m->state_path);
        return -EEXIST;
    }
    bool switches = !steps, gpu_caps = false, emc_caps = false;
    for (size_t i = 0; steps && i < nsteps; i++) {
        switches |= steps[i].mode_id >= 0;
        gpu_caps |= steps[i].gpu_cap_mhz > 0;
        emc_caps |= steps[i].emc_cap_mhz > 0;
    }
    m->state.pid = (long)getpid();
    const char *lock = tb_lock_path();   /* absolute and one line, or not said */
    tb_strlcpy(m->state.lock, lock[0] == '/' && !strchr(lock, '\n') &&
               strlen(lock) < sizeof(m->state.lock) ? lock : "", sizeof(m->state.lock));
    m->state.mode_id = read_mode(m);
    m->state.gpu_max_hz = read_hz(m, m->table.gpu_max_path);
    m->state.emc_cap_hz = read_hz(m, m->table.emc_cap_path);
    m->state.switches_mode = switches;
    /* what could not be put back is never changed: a mode switched from a mode nobody can
     * name would be "restored" to nothing, and the board left in the sweep's last mode */
    char path[PATH_MAX];
    const char *unread = NULL, *what = NULL;
    if (switches && m->state.mode_id < 0)
        unread = "/var/lib/nvpmodel/status", what = "power mode";
    else if (!switches && gpu_caps && isnan(m->state.gpu_max_hz))
        unread = m->table.gpu_max_path, what = "GPU max_freq";
    else if (!switches && emc_caps && isnan(m->state.emc_cap_hz))
        unread = m->table.emc_cap_path, what = "EMC cap";
    if (unread) {
        rooted(m, path, sizeof(path), unread);
        snprintf(why, n, "cannot read the board's %s from '%s' (missing, or not what nvpmodel "
                 "writes there): it could not be put back", what, path);
        return -EIO;
    }
    char tmp[PATH_MAX + 32], text[512];
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", m->state_path, m->state.pid);
    int len = snprintf(text, sizeof(text),
                       "# transpose-bench: the power mode and clock caps to put back "
                       "(transpose-bench restore)\npid %ld\nmode %d\ngpu_max_hz %.0f\n"
                       "emc_cap_hz %.0f\nswitches_mode %d\n%s%s%s", m->state.pid,
                       m->state.mode_id, m->state.gpu_max_hz, m->state.emc_cap_hz,
                       switches ? 1 : 0, m->state.lock[0] ? "lock " : "", m->state.lock,
                       m->state.lock[0] ? "\n" : "");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        snprintf(why, n, "cannot create '%s': %s", tmp, strerror(e));
        return -e;
    }
    int e = write(fd, text, (size_t)len) == len ? 0 : errno ? errno : EIO;
    if (!e && fsync(fd) < 0)
        e = errno;
    if (close(fd) < 0 && !e)
        e = errno;
    if (!e && rename(tmp, m->state_path) < 0)
        e = errno;
    if (e) {
        unlink(tmp);   /* our own temporary, never another file */
        snprintf(why, n, "cannot write state file '%s': %s", m->state_path, strerror(e));
        return -e;
    }
    char dir[PATH_MAX];
    tb_strlcpy(dir, m->state_path, sizeof(dir));
    char *slash = strrchr(dir, '/');
    if (slash) {
        *(slash == dir ? slash + 1 : slash) = '\0';
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    m->saved = true;
    return 0;
}

/* ---- changing and restoring -------------------------------------------------------- */

int tb_modes_apply(struct tb_modes *m, const struct tb_mode_step *s, struct tb_mode_outcome *o)
{
    memset(o, 0, sizeof(*o));
    o->gpu_max_mhz = o->emc_cap_mhz = NAN;
    char out[400], miss[200];
    const struct tb_mode_def *def = find_id(&m->table, s->mode_id);
    /* a cap above the mode's own lifts its clock instead of capping it (max_freq and the EMC
     * cap are the files nvpmodel writes the mode's caps to): the step is no operating point
     * of that mode, and nothing is written for it */
    const struct tb_mode_def *base = s->mode_id >= 0 ? def : find_id(&m->table,
                                                                      m->state.mode_id);
    const char *lifted = NULL;
    double cap = 0, own = 0;
    if (base && s->gpu_cap_mhz > 0 && base->gpu_cap_mhz > 0 &&
        s->gpu_cap_mhz > base->gpu_cap_mhz && !near(base->gpu_cap_mhz * 1e6, s->gpu_cap_mhz))
        lifted = "GPU", cap = s->gpu_cap_mhz, own = base->gpu_cap_mhz;
    else if (base && s->emc_cap_mhz > 0 && base->emc_cap_mhz > 0 &&
             s->emc_cap_mhz > base->emc_cap_mhz && !near(base->emc_cap_mhz * 1e6, s->emc_cap_mhz))
        lifted = "EMC", cap = s->emc_cap_mhz, own = base->emc_cap_mhz;
    if (lifted) {
        o->result = TB_MODE_CAP_REFUSED;
        snprintf(o->why, sizeof(o->why), "%s cap %.0f MHz is above mode %s (%d)'s own %.0f MHz: "
                 "it would lift the mode's clock, not cap it; nothing changed", lifted, cap,
                 base->name, base->id, own);
        return -1;
    }
    m->touched = true;
    if (s->mode_id >= 0) {
        int rc = run_nvpmodel(s->mode_id, out, sizeof(out));
        bool reboot = strcasestr(out, "reboot") != NULL;
        if (reboot) {
            /* nvpmodel may have recorded the mode for the next boot: the saved mode is set
             * again now, so that a power cut before the end does not boot into it */
            char again[300] = "";
            int st_id = m->state.mode_id;
            if (st_id >= 0) {
                char out2[200];
                int rc2 = run_nvpmodel(st_id, out2, sizeof(out2));
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
            snprintf(o->why, sizeof(o->why), "mode %s (%d) refused: nvpmodel exit %d%s%s",
                     s->mode_name, s->mode_id, rc, out[0] ? ": " : "", out);
            return -1;
        }
    }
    double gpu = def ? def->gpu_cap_mhz : 0, emc = def ? def->emc_cap_mhz : 0;
    settle(m, s->mode_id, gpu, emc, o, miss, sizeof(miss));
    if (miss[0]) {
        o->result = TB_MODE_NOT_FOLLOWED;
        snprintf(o->why, sizeof(o->why), "mode %s (%d): nvpmodel reported success but the "
                 "clocks never followed in %d ms: %s", s->mode_name, s->mode_id, m->settle_ms,
                 miss);
        return -1;
    }
    char why[PATH_MAX + 160];
    if (s->gpu_cap_mhz > 0 && write_hz(m, m->table.gpu_max_path, s->gpu_cap_mhz * 1e6, why,
                                       sizeof(why)) < 0) {
        o->result = TB_MODE_CAP_REFUSED;
        snprintf(o->why, sizeof(o->why), "GPU cap %.0f MHz: %.400s", s->gpu_cap_mhz, why);
        return -1;
    }
    if (s->emc_cap_mhz > 0 && write_hz(m, m->table.emc_cap_path, s->emc_cap_mhz * 1e6, why,
                                       sizeof(why)) < 0) {
        o->result = TB_MODE_CAP_REFUSED;
        snprintf(o->why, sizeof(o->why), "EMC cap %.0f MHz: %.400s", s->emc_cap_mhz, why);
        return -1;
    }
    if (s->gpu_cap_mhz > 0 || s->emc_cap_mhz > 0) {
        settle(m, s->mode_id, s->gpu_cap_mhz > 0 ? s->gpu_cap_mhz : gpu,
               s->emc_cap_mhz > 0 ? s->emc_cap_mhz : emc, o, miss, sizeof(miss));
        if (miss[0]) {
            o->result = TB_MODE_CAP_REFUSED;
            snprintf(o->why, sizeof(o->why), "caps asked (GPU %.0f, EMC %.0f MHz) did not "
                     "hold: %s", s->gpu_cap_mhz, s->emc_cap_mhz, miss);
            return -1;
        }
    }
    o->result = TB_MODE_OK;
    return 0;
}

int tb_modes_restore(struct tb_modes *m, char *what, size_t n)
{
    what[0] = '\0';
    if (!m->saved)
        return 0;
    const struct tb_mode_state *st = &m->state;
    const struct tb_mode_def *def = find_id(&m->table, st->mode_id);
    char out[400], why[PATH_MAX + 160] = "", miss[200] = "";
    size_t len = 0;
    int bad = 0;
    /* a sweep of caps alone never ran nvpmodel: its caps go back without it (a user whose
     * sudoers line names the cap files only must not fail here) */
    if (m->touched && st->switches_mode && st->mode_id < 0) {
        len += (size_t)snprintf(what + len, n, "the mode before the sweep is unknown: NOT "
                                "restored; ");
        bad = 1;
    } else if (m->touched && st->switches_mode) {
        int rc = run_nvpmodel(st->mode_id, out, sizeof(out));
        if (rc != 0) {
            len += (size_t)snprintf(what + len, len < n ? n - len : 0, "mode %d NOT restored "
                                    "(nvpmodel exit %d: %s); ", st->mode_id, rc, out);
            bad = 1;
        }
    }
    if (m->touched && !isnan(st->gpu_max_hz) && m->table.gpu_max_path[0] &&
        write_hz(m, m->table.gpu_max_path, st->gpu_max_hz, why, sizeof(why)) < 0) {
        len += (size_t)snprintf(what + len, len < n ? n - len : 0, "GPU max NOT restored (%s); ",
                                why);
        bad = 1;
    }
    if (m->touched && !isnan(st->emc_cap_hz) && m->table.emc_cap_path[0] &&
        write_hz(m, m->table.emc_cap_path, st->emc_cap_hz, why, sizeof(why)) < 0) {
        len += (size_t)snprintf(what + len, len < n ? n - len : 0, "EMC cap NOT restored (%s); ",
                                why);
        bad = 1;
    }
    struct tb_mode_outcome o;
    if (!bad && m->touched) {
        settle(m, st->switches_mode ? st->mode_id : -1,
               isnan(st->gpu_max_hz) ? 0 : st->gpu_max_hz / 1e6,
               isnan(st->emc_cap_hz) ? 0 : st->emc_cap_hz / 1e6, &o, miss, sizeof(miss));
        if (miss[0]) {
            len += (size_t)snprintf(what + len, len < n ? n - len : 0, "NOT restored: %s; ",
                                    miss);
            bad = 1;
        }
    }
    if (bad) {
        snprintf(what + (len < n ? len : n - 1), len < n ? n - len : 1, "state kept in '%s' for "
                 "`transpose-bench restore`", m->state_path);
        return -1;
    }
    if (state_kind(m->state_path, why, sizeof(why)) == 1)
        unlink(m->state_path);   /* the tool's own state file, its settings back */
    m->saved = false;
    if (!m->touched) {
        snprintf(what, n, "nothing changed: mode %d as found", st->mode_id);
    } else {   /* what was read before the sweep and is back; a clock never read is unsaid */
        len = 0;
        if (st->switches_mode)
            len += (size_t)snprintf(what, n, "mode %s (%d)", def ? def->name : "?",
                                    st->mode_id);
        if (!isnan(st->gpu_max_hz) && len < n)
            len += (size_t)snprintf(what + len, n - len, "%sGPU max %.0f MHz", len ? ", " : "",
                                    st->gpu_max_hz / 1e6);
        if (!isnan(st->emc_cap_hz) && len < n)
            len += (size_t)snprintf(what + len, n - len, "%sEMC cap %.0f MHz", len ? ", " : "",
                                    st->emc_cap_hz / 1e6);
        if (len < n)
            snprintf(what + len, n - len, "%s", st->switches_mode ? " restored"
                     : " restored (a sweep of caps alone: the mode was never switched)");
    }
    m->touched = false;
    return 0;
}

/* Whether pid is a transpose-bench still running (not this one): a run that took another
 * lock file (another TB_LOCK_FILE, a /tmp cleaned under it) holds its state file still, and
 * restoring it would change the board under its rows. A pid reused by another program after
 * a reboot is no run. The lock file the run held (the state file's "lock" line) says it
 * whatever the process's name (a renamed binary, qemu-aarch64 running it): held by someone,
 * the run lives; free, it is gone. Ours (the caller holds it) cannot be held by that run.
 * Without the line, or with the file gone: the process's name. */
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

int tb_modes_recover(const char *root, char *what, size_t n)
{
    const char *path = tb_modes_state_path();
    char why[PATH_MAX + 200], text[1024];
    what[0] = '\0';
    int k = state_kind(path, why, sizeof(why));
    if (k == 0)
        return 0;
    if (k < 0) {
        tb_strlcpy(what, why, n);
        return -1;
    }
    int rc = tb_safeio_read(path, text, sizeof(text), NULL, 0, 0, why, sizeof(why));
    struct tb_modes m;
    if (rc == 0 && tb_modes_state_parse(text, &m.state) < 0) {
        snprintf(what, n, "state file '%s' holds no mode or clock: left alone (see the board's "
                 "mode with nvpmodel -q and set it back by hand, then remove the file)", path);
        return -1;
    }
    if (rc < 0) {
        snprintf(what, n, "state file: %s", why);
        return -1;
    }
    struct tb_mode_state st = m.state;
    if (live_run(st.pid, st.lock)) {
        snprintf(what, n, "state file '%s' is a live run's (pid %ld, transpose-bench, which took "
                 "another lock file: TB_LOCK_FILE?): left alone, that run restores its own "
                 "changes", path, st.pid);
        return -1;
    }
    if (tb_modes_open(&m, root, why, sizeof(why)) < 0) {
        snprintf(what, n, "state file '%s' left by run pid %ld, but %s", path, st.pid, why);
        tb_modes_close(&m);
        return -1;
    }
    if (st.switches_mode && st.mode_id >= 0 && !find_id(&m.table, st.mode_id)) {
        snprintf(what, n, "state file '%s' names mode %d, which the board's nvpmodel.conf "
                 "lacks: left alone (see the board's mode with nvpmodel -q, then remove the "
                 "file)", path, st.mode_id);
        tb_modes_close(&m);
        return -1;
    }
    m.state = st;
    m.saved = m.touched = true;
    char res[900];
    rc = tb_modes_restore(&m, res, sizeof(res));
    tb_modes_close(&m);
    snprintf(what, n, "a run (pid %ld) died with the board changed: %s", st.pid, res);
    return rc < 0 ? -1 : 1;
}
