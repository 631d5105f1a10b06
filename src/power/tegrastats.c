/* tegrastats.c: power from the board's tegrastats. The child runs on a pseudo-terminal
 * so that its stdio line-buffers (on a pipe it would hold lines back in 4 KiB blocks);
 * lines are read without blocking and parsed into rails, GPU load and clock, EMC load
 * and clock and GPU temperature. Every format of JetPack 3 to 7 is accepted; unknown
 * fields are skipped. Rail values are `cur`, never the cumulative `avg`. */
#include "power/power.h"
#include "power/tegrastats.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/util.h"

/* ---- the parser ------------------------------------------------------------------- */

static bool is_name(const char *s)
{
    if (!isalpha((unsigned char)*s))
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

/* "1022/1022", "5139mW/5139mW/5139mW", "4707mW": a rail's value; *cur gets the first. */
static bool rail_value(const char *tok, float *cur)
{
    bool has_mw = false, has_slash = false;
    const char *p = tok;
    int parts = 0;
    while (*p) {
        const char *start = p;
        while (isdigit((unsigned char)*p))
            p++;
        if (p == start)
            return false;
        if (parts == 0)
            *cur = (float)strtol(start, NULL, 10);
        if (!strncmp(p, "mW", 2)) {
            has_mw = true;
            p += 2;
        }
        parts++;
        if (*p == '/') {
            has_slash = true;
            p++;
            if (!*p)
                return false;
        } else if (*p) {
            return false;
        }
    }
    return has_mw || has_slash;
}

/* "63%@[621]", "0%@76", "12%@[1300,1300]", "0%": load and the first clock. */
static void load_at_clock(const char *v, float *load, float *mhz)
{
    char *end;
    double l = strtod(v, &end);
    if (end == v || *end != '%')
        return;
    if (!(l >= 0 && l <= 100))
        return;   /* a load that cannot be is no reading (and no clock with it) */
    *load = (float)l;
    if (end[1] != '@')
        return;
    const char *c = end + 2;
    if (*c == '[')
        c++;
    double m = strtod(c, &end);
    if (end != c && m > 0 && m <= 100000)   /* MHz: no clock of any board is beyond */
        *mhz = (float)m;
}

/* "GPU@36C", "gpu@52.968C/52.968C", "GPU@-256C" (offline): GPU temperature. */
static bool temperature(const char *tok, const char **name_end, float *value)
{
    const char *at = strchr(tok, '@');
    if (!at || at == tok)
        return false;
    char *end;
    double v = strtod(at + 1, &end);
    if (end == at + 1 || *end != 'C')
        return false;
    *name_end = at;
    *value = v <= -200 || v > 250 || !isfinite(v) ? NAN : (float)v;   /* offline, or not a die */
    return true;
}

int tb_tegrastats_parse(const char *line, struct tb_tegrastats_reading *r)
{
    memset(r, 0, sizeof(*r));
    r->gpu_load_pct = r->gpu_clock_mhz = r->emc_load_pct = r->emc_clock_mhz = NAN;
    r->gpu_temp_c = NAN;
    char buf[4096];
    if (tb_strlcpy(buf, line, sizeof(buf)) >= sizeof(buf))
        return 0;   /* longer than any tegrastats line: garbage, never parsed from its head */
    char *tok[512];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t\r\n", &save); t && n < 512;
         t = strtok_r(NULL, " \t\r\n", &save))
        tok[n++] = t;
    int known = 0;
    for (int i = 0; i < n; i++) {
        const char *t = tok[i], *next = i + 1 < n ? tok[i + 1] : NULL;
        const char *name_end;
        float v;
        if ((!strcmp(t, "GR3D_FREQ") || !strcmp(t, "GR3D")) && next) {
            load_at_clock(next, &r->gpu_load_pct, &r->gpu_clock_mhz);
            known += !isnan(r->gpu_load_pct);
            i++;
        } else if ((!strcmp(t, "EMC_FREQ") || !strcmp(t, "EMC")) && next) {
            load_at_clock(next, &r->emc_load_pct, &r->emc_clock_mhz);
            known += !isnan(r->emc_load_pct);
            i++;
        } else if (temperature(t, &name_end, &v)) {
            if (name_end - t == 3 && !strncasecmp(t, "GPU", 3)) {
                r->gpu_temp_c = v;
                known++;
            }
        } else if (is_name(t) && next && rail_value(next, &v)) {
            if (!strcmp(t, "RAM") || !strcmp(t, "SWAP") || !strcmp(t, "IRAM"))
                continue;
            if (r->n_rails < TB_POWER_MAX_RAILS) {
                tb_strlcpy(r->rail[r->n_rails], t, TB_RAIL_NAME);
                /* above 1 kW no Jetson rail draws: given as negative, the sampler drops
                 * and counts it (# sensor:) instead of logging it as power */
                r->rail_mw[r->n_rails++] = v > 1e6f ? -1.0f : v;
                known++;
            }
            i++;
        } else if (!strcmp(t, "RAM") && next && strstr(next, "MB")) {
            known++; /* a tegrastats line for sure, even with no rails (old L4T) */
        }
    }
    return known;
}

/* ---- the source ------------------------------------------------------------------- */

struct tegra_state {
    pid_t pid;
    int fd;
    char line[8192];
    size_t len;
    struct tb_power_rails rails;
    struct tb_tegrastats_reading latest;
    bool have_new;
    bool skipping;                  /* inside a line longer than line[] */
    bool silent;                    /* fake clock: the child owed a line and said nothing */
    unsigned long long long_lines;  /* such lines dropped, said at close */
    int64_t latest_t;
    int interval_ms;                /* the --interval it runs with */
    char cmd[TB_POWER_STR + 32];
};

/* First word of the command, found on PATH or as a path. */
static int command_exists(const char *cmd, char *why, size_t n)
{
    char word[TB_POWER_STR];
    size_t l = strcspn(cmd, " \t");
    if (l == 0 || l >= sizeof(word)) {
        snprintf(why, n, "power.tegrastats.command is empty");
        return -ENOENT;
    }
    memcpy(word, cmd, l);
    word[l] = '\0';
    if (strchr(word, '/'))
        return access(word, X_OK) == 0 ? 0 : (snprintf(why, n, "'%s' is not executable", word),
                                               -ENOENT);
    const char *path = getenv("PATH");
    char dirs[4096];
    tb_strlcpy(dirs, path ? path : "/usr/bin:/bin", sizeof(dirs));
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char full[4096 + TB_POWER_STR];
        snprintf(full, sizeof(full), "%s/%s", d, word);
        if (access(full, X_OK) == 0)
            return 0;
    }
    snprintf(why, n, "'%s' not found on PATH (tegrastats comes with L4T)", word);
    return -ENOENT;
}

static int tegra_probe(const struct tb_power_cfg *pc, char *why, size_t n)
{
    return command_exists(pc->tegrastats_command, why, n);
}

/* Parses the first whole line in s->line, if there is one; true when it took one. */
static bool take_line(void *arg)
{
    struct tegra_state *s = arg;
    char *nl = memchr(s->line, '\n', s->len);
    if (!nl)
        return false;
    *nl = '\0';
    struct tb_tegrastats_reading r;
    if (tb_tegrastats_parse(s->line, &r) > 0) {
        s->latest = r;
        s->latest_t = tb_now_ns();
        s->have_new = true;
    }
    size_t used = (size_t)(nl - s->line) + 1;
    memmove(s->line, nl + 1, s->len - used);
    s->len -= used;
    return true;
}

/* A buffer full without a line end: a "line" this long is garbage, dropped whole, its tail
 * too (a 1 MB line was once parsed from its last 8 KiB into power figures), and counted. */
static void drop_if_full(void *arg)
{
    struct tegra_state *s = arg;
    if (s->len == sizeof(s->line) - 1) {
        s->len = 0;
        s->skipping = true;
        s->long_lines++;
    }
}

/* One read without blocking: the bytes read (0: none now), or -EPIPE when the child is
 * gone (EOF, or EIO: the pty's other side closed). */
static ssize_t read_some(void *arg)
{
    struct tegra_state *s = arg;
    ssize_t got = read(s->fd, s->line + s->len, sizeof(s->line) - 1 - s->len);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (got <= 0)
        return -EPIPE;
    s->len += (size_t)got;
    s->line[s->len] = '\0';
    if (s->skipping) {   /* inside a line too long to be tegrastats': up to its end */
        char *nl = memchr(s->line, '\n', s->len);
        size_t drop = nl ? (size_t)(nl + 1 - s->line) : s->len;
        memmove(s->line, s->line + drop, s->len - drop);
        s->len -= drop;
        s->skipping = !nl;
    }
    return got;
}

/* The child's lines by the clock's rule (lib/clock.h: a child's output); 0, or -EPIPE when
 * the child is gone. */
static int read_lines(struct tegra_state *s)
{
    struct tb_child_lines cl = { s->fd, take_line, read_some, drop_if_full, &s->have_new,
                                 &s->silent, s };
    return tb_clock_child_lines(&cl);
}

/* Waits up to ms for the child to be reaped; true once it is. */
static bool reaped_within(pid_t pid, int ms)
{
    for (int waited = 0;; waited += 10) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return true;
        if (waited >= ms)
            return false;
        usleep(10000);
    }
}

/* SIGTERM, then SIGKILL, each with a bounded wait: a tegrastats that ignores SIGTERM, or
 * one stuck in the kernel (a read of a wedged sensor) that not even SIGKILL ends, never
 * holds the run at its end. The signal goes to the child's group (its own children too)
 * and to the child itself, in case it has not made its group yet. */
static void tegra_close(void *st)
{
    struct tegra_state *s = st;
    if (s->pid > 0) {
        kill(-s->pid, SIGTERM);
        kill(s->pid, SIGTERM);
        if (!reaped_within(s->pid, 1000)) {
            kill(-s->pid, SIGKILL);
            kill(s->pid, SIGKILL);
            if (!reaped_within(s->pid, 2000))
                warning("'%s' (pid %ld) did not end after SIGKILL (stuck in the kernel?): "
                        "left behind", s->cmd, (long)s->pid);
        }
        s->pid = 0;
    }
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    if (s->long_lines)
        warning("tegrastats: %llu line%s longer than %zu bytes dropped (no tegrastats line is): "
                "not read as power", s->long_lines, s->long_lines == 1 ? "" : "s",
                sizeof(s->line) - 1);
}

static int tegra_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                      char *why, size_t n)
{
    struct tegra_state *s = st;
    s->fd = -1;
    if (tegra_probe(pc, why, n))
        return -ENOENT;
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
        int err = errno;   /* close may change errno */
        snprintf(why, n, "cannot open a pseudo-terminal: %s", strerror(err));
        if (master >= 0)
            close(master);
        return -err;
    }
    const char *slave_name = ptsname(master);
    snprintf(s->cmd, sizeof(s->cmd), "exec %s --interval %d", pc->tegrastats_command,
             pc->interval_ms);
    s->interval_ms = pc->interval_ms;
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        snprintf(why, n, "fork: %s", strerror(err));
        close(master);
        return -err;
    }
    if (pid == 0) {
        setsid();
        int slave = open(slave_name, O_RDWR);
        if (slave < 0)
            _exit(127);
        struct termios tio;
        if (tcgetattr(slave, &tio) == 0) {
            cfmakeraw(&tio);   /* no echo, "\n" stays "\n" */
            tcsetattr(slave, TCSANOW, &tio);
        }
        dup2(slave, STDOUT_FILENO);
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            dup2(devnull, STDERR_FILENO);
        }
        if (slave > 2)
            close(slave);
        execl("/bin/sh", "sh", "-c", s->cmd, (char *)NULL);
        _exit(127);
    }
    s->pid = pid;
    s->fd = master;
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);

    /* wait for the first line: it names the rails */
    int64_t deadline = tb_real_now_ns() + (int64_t)(pc->interval_ms * 3 + 3000) * 1000000;
    while (!s->have_new && tb_real_now_ns() < deadline) {
        struct pollfd p = { master, POLLIN, 0 };
        poll(&p, 1, 50);
        if (read_lines(s) < 0)
            break;
    }
    if (!s->have_new) {
        snprintf(why, n, "'%s' printed no tegrastats line within %d ms", s->cmd,
                 pc->interval_ms * 3 + 3000);
        tegra_close(s);
        return -EIO;
    }
    rails->n = s->latest.n_rails;
    for (int i = 0; i < rails->n; i++)
        tb_strlcpy(rails->name[i], s->latest.rail[i], TB_RAIL_NAME);
    s->rails = *rails;
    return 0;
}

static int tegra_sample(void *st, struct tb_power_sample *out, char *why, size_t n)
{
    struct tegra_state *s = st;
    if (read_lines(s) < 0 && !s->have_new) {
        int status = 0;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid)
            s->pid = 0;
        snprintf(why, n, "'%s' exited", s->cmd);
        return -EPIPE;
    }
    if (!s->have_new)
        return -EAGAIN;
    s->have_new = false;
    out->t_ns = s->latest_t;
    /* rails by name: a line that lacks one leaves it NAN */
    for (int i = 0; i < s->rails.n; i++)
        for (int j = 0; j < s->latest.n_rails; j++)
            if (!strcmp(s->rails.name[i], s->latest.rail[j]))
                out->rail_mw[i] = s->latest.rail_mw[j];
    out->gpu_load_pct = s->latest.gpu_load_pct;
    out->gpu_clock_mhz = s->latest.gpu_clock_mhz;
    out->emc_load_pct = s->latest.emc_load_pct;
    out->emc_clock_mhz = s->latest.emc_clock_mhz;
    out->gpu_temp_c = s->latest.gpu_temp_c;
    return 0;
}

/* What tegrastats' rails are: the INA3221 registers (the chip's exponential average, TI
 * SBOS576 "Averaging function"), read at tegrastats' own interval, not at our poll: the
 * period a reading changes is left to the idle readings (how fast tegrastats really
 * prints), the time constant is the documented default (tegra_models, below). */
/* tegrastats on JetPack 5/6 reads the hwmon chips' registers, at its own interval */
static const struct tb_sensor_doc tegra_models[] = {
    { "tegrastats", TB_SENSOR_EMA, 429.6, 0, 0,
      "tegrastats reads the INA3221 registers (TI SBOS576 averaging) at its interval; "
      "documented default tau 429.6 ms (L4T nvpower.sh: 512 samples, 430 ms)" },
    { NULL, TB_SENSOR_UNKNOWN, 0, 0, 0, NULL },
};

static void tegra_cadence(void *st, struct tb_power_cadence *c)
{
    struct tegra_state *s = st;
    tb_sensor_model_documented(tegra_models, "tegrastats", TB_POWER_MAX_RAILS, &c->model);
    c->model.read_ms = s->interval_ms;
}

const struct tb_power_ops tb_power_tegrastats = {
    .name = "tegrastats",
    .help = "Jetson tegrastats (every JetPack)",
    .flags = TB_POWER_OWN_PACE,
    .models = tegra_models,
    .state_size = sizeof(struct tegra_state),
    .probe = tegra_probe,
    .open = tegra_open,
    .sample = tegra_sample,
    .close = tegra_close,
    .cadence = tegra_cadence,
};
