/* ina3221.c: power rails read straight from the INA3221 monitors' sysfs files, under
 * power.sysfs_root so tests can use fake trees. Two layouts:
 *   JetPack 4, IIO driver "ina3221x": rail_name_K and in_powerK_input (mW), K = 0..2;
 *   JetPack 5/6, hwmon driver "ina3221": inK_label, inK_input (mV), currK_input (mA),
 *   K = 1..3, P = V x I; hwmon index found by globbing; several chips (AGX Orin).
 * Disabled channels (inK_enable = 0) and rails labelled NC are skipped. A sample reads its
 * files in one round trip to a reader that keeps them open, checked against their paths
 * each time (safeio.h, tb_safeio_kept_reads), so a file that vanishes or is replaced is
 * noticed, not read stale.
 * Also the total rail's enforced limit (its critical-current alert, what the over-current
 * throttle acts on) and, with each reading, whether that throttle acted (ina3221_oc.c).
 * Not here: clocks or temperatures (tegrastats.c, jetson/). */
#include "power/power.h"
#include "power/ina3221.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/safeio.h"
#include "lib/util.h"

/* What an INA3221 channel can read: its bus input is 0 to 26 V, and a Jetson rail only
 * draws (a negative current is a wiring or driver fault). A reading outside these is not
 * turned into watts: it is given to the sampler as a negative power, which it drops and
 * counts ("# sensor:"), so -5000 mV x -1000 mA can never become +5000 mW. */
#define INA_MAX_MV 26000L
#define INA_IMPOSSIBLE_MW (-1.0f)

/* A rail read slower than this blocks: the chip answers an I2C read in well under a
 * millisecond, and JetPack 5's 5.10 driver waits for the conversion-ready flag on every
 * read (OE4T linux-tegra-5.10 drivers/hwmon/ina3221.c, ina3221_read_in and
 * ina3221_read_curr call ina3221_wait_for_data, continuous mode included; NVIDIA's fix "use
 * CVRF only for single-shot conversion" is in 5.14 and later): 100-430 ms at L4T's 512
 * samples. */
#define INA_SLOW_READ_MS 50.0

struct rail {
    char name[TB_RAIL_NAME];
    char power[PATH_MAX];     /* IIO: mW file */
    char volt[PATH_MAX];      /* hwmon: mV file */
    char curr[PATH_MAX];      /* hwmon: mA file */
    int chip;                 /* hwmon: its chip's index in hwmon[]; -1: IIO */
    int ch;                   /* its channel: K of inK_input (1-3) or in_powerK_input (0-2) */
    double read_ms, max_ms;   /* its files' read time: the last (at open: the quickest of
                               * three), and the most */
    bool skip;                /* not read each poll: reads block (only the total is read) */
};

struct ina_state {
    int n;
    struct rail rail[TB_POWER_MAX_RAILS];
    char hwmon[4][PATH_MAX];  /* the hwmon chips' folders: their update_interval, samples */
    int nhwmon;
    struct tb_ina3221_oc oc;  /* the enforced limit and the throttle's files (ina3221_oc.c) */
    struct tb_ina3221_poll poll;   /* a reading's files, read together (ina3221_value.c) */
    struct tb_power_cfg pc;   /* as opened: the limit is read again with it (ina_identify) */
    int total;                /* the total rail's index; -1: no one rail */
    int identified;           /* identify calls: from the second on, the limit read again */
    double open_ms;           /* the slowest rail's read time at open */
    int slowest;              /* that rail */
    char adapted[160];        /* what reads that block changed ("": nothing) */
    char denied[PATH_MAX];    /* a rail file there but not readable by this user ("": none) */
    unsigned denied_mode;     /* its mode */
};

static int read_rail(const struct rail *r, const struct tb_ina3221_poll *p, float *mw,
                     double *ms, char *why, size_t n);

/* What an INA3221 reading is (sensor_model.h), by driver and mode: its row of the source
 * table carries these (tb_power_ops.models). TI SBOS576, "Averaging function": after each
 * conversion cycle the chip adds (sample - register) / AVG to its output register, an
 * exponential average of time constant AVG x cycle; Linux Documentation/hwmon/ina3221.rst:
 * update_interval = channels x samples x (bus + shunt conversion time), that same product.
 * L4T's nvpower.sh sets 3 x 512 x (140 + 140 us) = 430 ms on Xavier and Orin. The R32
 * ina3221x IIO driver runs the same chip; in continuous mode it averages 64 conversions of
 * about 6.6 ms cycles (the sensor issue's reading of the L4T R32 driver: about 422 ms); no
 * board here has confirmed it. */
static const struct tb_sensor_doc ina_models[] = {
    { "ina3221-hwmon", TB_SENSOR_EMA, 429.6, 0, 0,
      "INA3221 averaging (TI SBOS576 'Averaging function'), tau = update_interval x "
      "(1 - 1/(2 samples)) (Linux hwmon/ina3221.rst); documented default 429.6 ms (L4T "
      "nvpower.sh: 512 samples, 430 ms)" },
    { "ina3221x-continuous", TB_SENSOR_EMA, 419.1, 0, 0,
      "INA3221 averaging (TI SBOS576), ina3221x continuous mode: 64 samples of 6.6 ms "
      "cycles, tau 419 ms (documented default, not confirmed on a board)" },
    { "ina3221x-triggered", TB_SENSOR_POINT, 0, 0, 0,
      "ina3221x triggered mode: each read one conversion, no averaging" },
    { NULL, TB_SENSOR_UNKNOWN, 0, 0, 0, NULL },
};

static int read_text(const char *path, char *buf, size_t n)
{
    char why[PATH_MAX + 160];
    int rc = tb_safeio_line(path, buf, n, 0, why, sizeof(why));
    if (rc == -ELOOP || rc == -EINVAL || rc == -ETIMEDOUT)
        warning("INA3221 rails: %s; skipped", why);
    return rc;
}

static void add_rail(struct ina_state *s, int ch, const char *name, const char *power,
                     const char *volt, const char *curr)
{
    if (s->n >= TB_POWER_MAX_RAILS || !name[0] || !strcmp(name, "NC"))
        return;
    struct rail *r = &s->rail[s->n++];
    r->chip = volt ? s->nhwmon - 1 : -1;
    r->ch = ch;
    tb_strlcpy(r->name, name, sizeof(r->name));
    tb_strlcpy(r->power, power ? power : "", sizeof(r->power));
    tb_strlcpy(r->volt, volt ? volt : "", sizeof(r->volt));
    tb_strlcpy(r->curr, curr ? curr : "", sizeof(r->curr));
}

static void scan_iio(struct ina_state *s, const char *root)
{
    char pat[PATH_MAX];
    snprintf(pat, sizeof(pat), "%s/sys/bus/i2c/drivers/ina3221x/*/iio:device*", root);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        for (int k = 0; k < 3; k++) {
            char p[PATH_MAX], name[TB_RAIL_NAME], power[PATH_MAX];
            snprintf(p, sizeof(p), "%s/rail_name_%d", g.gl_pathv[i], k);
            if (read_text(p, name, sizeof(name)) < 0)
                continue;
            snprintf(power, sizeof(power), "%s/in_power%d_input", g.gl_pathv[i], k);
            if (access(power, R_OK) == 0)
                add_rail(s, k, name, power, NULL, NULL);
        }
    globfree(&g);
}

/* Whether path is there but this user may not read it (R35's driver at some versions makes
 * the rail files 0400, OE4T linux-tegra-5.10 @86d7784): noted in s, for the message. */
static bool denied(struct ina_state *s, const char *path)
{
    struct stat st;
    if (access(path, R_OK) == 0 || errno != EACCES || lstat(path, &st) < 0)
        return false;
    if (!s->denied[0])
        tb_strlcpy(s->denied, path, sizeof(s->denied)), s->denied_mode = st.st_mode & 07777;
    return true;
}

static void scan_hwmon(struct ina_state *s, const char *root)
{
    char pat[PATH_MAX];
    snprintf(pat, sizeof(pat), "%s/sys/bus/i2c/drivers/ina3221/*/hwmon/hwmon*", root);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        for (int k = 1; k <= 3; k++) {
            char p[PATH_MAX], name[TB_RAIL_NAME], volt[PATH_MAX], curr[PATH_MAX], en[16];
            snprintf(p, sizeof(p), "%s/in%d_label", g.gl_pathv[i], k);
            if (read_text(p, name, sizeof(name)) < 0) {
                denied(s, p);
                continue;
            }
            snprintf(p, sizeof(p), "%s/in%d_enable", g.gl_pathv[i], k);
            if (read_text(p, en, sizeof(en)) == 0 && !strcmp(en, "0"))
                continue;
            if (s->nhwmon < 4 && (s->nhwmon == 0 ||
                                  strcmp(s->hwmon[s->nhwmon - 1], g.gl_pathv[i])))
                tb_strlcpy(s->hwmon[s->nhwmon++], g.gl_pathv[i], PATH_MAX);
            snprintf(volt, sizeof(volt), "%s/in%d_input", g.gl_pathv[i], k);
            snprintf(curr, sizeof(curr), "%s/curr%d_input", g.gl_pathv[i], k);
            if (!denied(s, volt) && !denied(s, curr) && access(volt, R_OK) == 0 &&
                access(curr, R_OK) == 0)
                add_rail(s, k, name, NULL, volt, curr);
        }
    globfree(&g);
}

static void scan(struct ina_state *s, const struct tb_power_cfg *pc)
{
    s->n = s->nhwmon = 0;
    s->denied[0] = 0;
    const char *root = tb_sys_root(pc->sysfs_root);
    scan_iio(s, root);
    scan_hwmon(s, root);
}

static int ina_probe(const struct tb_power_cfg *pc, char *why, size_t n)
{
    struct ina_state *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    scan(s, pc);
    int rails = s->n;
    if (rails == 0 && s->denied[0]) {
        snprintf(why, n, "INA3221 rails present but readable by root only (mode %04o: '%.900s'):"
                 " run as root, or let this user read them (a udev rule, or a sudoers line for "
                 "the tool: doc/power.md, \"Rails readable by root only\")", s->denied_mode,
                 s->denied);
        free(s);
        return -EACCES;
    }
    free(s);
    if (rails == 0) {
        snprintf(why, n, "no INA3221 rails under '%s/sys/bus/i2c/drivers/ina3221{,x}'",
                 tb_sys_root(pc->sysfs_root));
        return -ENOENT;
    }
    return 0;
}

/* Each rail's files read, timed on the tool's clock (virtual under a test's
 * fake clock, whose reads take none); one that took long read twice more and the quickest
 * kept: a busy machine may hold one read up, the 5.10 driver holds every one. Where one blocks (INA_SLOW_READ_MS), the driver waits for a conversion on every
 * read: the fewest files a poll (the total rail's alone where the total is one rail; every
 * rail where it is their sum), and never currK_crit_alarm (reading MASK_ENABLE clears the
 * conversion-ready flag, so the next rail read would wait a whole conversion again). What
 * was changed is said once on stderr and kept for the cadence line. */
static void time_reads(struct ina_state *s)
{
    char why[PATH_MAX + 160];
    s->open_ms = 0, s->slowest = 0, s->adapted[0] = 0;
    for (int i = 0; i < s->n; i++) {
        struct rail *r = &s->rail[i];
        float mw;
        r->read_ms = INFINITY, r->max_ms = 0, r->skip = false;
        for (int k = 0; k < 3 && r->read_ms >= INA_SLOW_READ_MS; k++) {   /* quick: once */
            int64_t t0 = tb_now_ns();
            read_rail(r, NULL, &mw, NULL, why, sizeof(why));
            double ms = (double)(tb_now_ns() - t0) * 1e-6;
            r->read_ms = fmin(r->read_ms, ms), r->max_ms = fmax(r->max_ms, ms);
        }
        if (r->read_ms > s->open_ms)
            s->open_ms = r->read_ms, s->slowest = i;
    }
    if (s->open_ms < INA_SLOW_READ_MS)
        return;
    int kept = 0;
    for (int i = 0; i < s->n && s->total >= 0; i++)
        s->rail[i].skip = i != s->total;
    for (int i = 0; i < s->n; i++)
        kept += !s->rail[i].skip;
    bool alarm = s->oc.alarm[0] != 0;
    s->oc.alarm[0] = 0;
    snprintf(s->adapted, sizeof(s->adapted), "%s read each poll%s", s->total >= 0 ?
             s->rail[s->total].name : "every rail (their sum is the total)", alarm ?
             ", its crit alarm not read" : "");
    warning("INA3221 rails: reading %s took %.0f ms (JetPack 5's 5.10 driver waits for a "
            "conversion on each read): %s (%d of %d rails)%s", s->rail[s->slowest].name,
            s->open_ms, s->total >= 0 ? "only the total rail is read each poll" : "every rail "
            "is read each poll, the total being their sum", kept, s->n, alarm ? "; "
            "currK_crit_alarm is not read (a read clears the flag each rail read waits on)" : "");
}

static int ina_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                    char *why, size_t n)
{
    struct ina_state *s = st;
    scan(s, pc);
    if (s->n == 0)
        return ina_probe(pc, why, n);
    rails->n = s->n;
    for (int i = 0; i < s->n; i++)
        tb_strlcpy(rails->name[i], s->rail[i].name, TB_RAIL_NAME);
    /* the rail the night's total is: one named rail ("" the first); "sum" has no one limit */
    int ti = -1;
    for (int i = 0; i < s->n && strcmp(pc->total_rail, "sum"); i++)
        if (pc->total_rail[0] ? !strcmp(pc->total_rail, s->rail[i].name) : i == 0) {
            ti = i;
            break;
        }
    const struct rail *r = ti >= 0 ? &s->rail[ti] : NULL;
    s->pc = *pc, s->total = ti, s->identified = 0;
    tb_ina3221_oc_open(&s->oc, pc, r ? r->name : NULL, r ? (r->chip >= 0 ? r->volt : r->power)
                       : NULL, r ? r->ch : -1, r && r->chip >= 0);
    time_reads(s);
    return 0;
}

/* A reading: the rails' files read together (one round trip: tb_ina3221_poll_read), each
 * rail's read time kept, then the throttle's (another: one of those that never answers
 * costs the reading its throttle part alone, as before); the sampler times the whole. The
 * poll's stamp (t_ns) is when its last rail was read, as the sampler stamps a source that
 * gives none (sampler.c) and meter-sim's source is stamped: every rail's value is from at
 * or before it. It was the poll's start: on a board whose reads block, the meter then
 * waited for a poll that began after a block's end (meter-sim: a night of 100 ms read 430
 * ms took 21.1 s for 17.3 announced). Each rail's own stamp (issue #57) comes from when
 * its last file's read ended, an absolute CLOCK_MONOTONIC time the reader sends back (or
 * this process takes, for a file read alone): the IPC, the reader's wake-up, the gaps
 * between files and a hung file read again alone all counted, as they are not in a sum of
 * read durations.
 *  - Reads that block (INA_SLOW_READ_MS: the 5.10 driver's ina3221_read_in and
 *    ina3221_read_curr call ina3221_wait_for_data, regmap_field_read_poll_timeout on CVRF
 *    with a sleep of up to a whole conversion interval T between checks, OE4T
 *    linux-tegra-5.10 drivers/hwmon/ina3221.c): the value is 0..T older than the read's
 *    return (older still where the flag was already set). The rail is stamped at the
 *    return: the latest time its value can be from, an upper bound (doc/power.md).
 *  - Reads that do not block (5.14 and later: continuous mode returns the register, TI
 *    SBOS576 "continuous mode", the last completed conversion): when in the read the
 *    value was latched is not known, so the read's midpoint, off by half a read at most.
 * Each stamp on the host's clock: t0 plus the time since m0 (CLOCK_MONOTONIC at t0, the
 * poll's start, before the request is sent), kept within [t0, t1] (the poll's start and
 * end on tb_now_ns' clock). Under the real clock the
 * two are one and the bounds never bind; under the fake clock the reader's real time is no
 * virtual time (the clock holds while it answers), so each rail is stamped within the
 * poll's virtual span, at its start where none passed. */
static void stamp_rail(const struct ina_state *s, struct tb_power_sample *out, int i,
                       const int64_t span[3], int64_t end_ns, double read_ms)
{
    int64_t t0 = span[0], m0 = span[1], t1 = span[2];
    int64_t at = s->open_ms >= INA_SLOW_READ_MS ? end_ns : end_ns - (int64_t)(read_ms * 5e5);
    int64_t t = t0 + (at - m0);
    out->rail_t_ns[i] = t < t0 ? t0 : t > t1 ? t1 : t;
}

/* The rails' files added to p, in the rails' order (volt before curr). */
static void add_rails(const struct ina_state *s, struct tb_ina3221_poll *p)
{
    tb_ina3221_poll_clear(p);
    for (int i = 0; i < s->n; i++) {
        const struct rail *r = &s->rail[i];
        if (r->skip)
            continue;
        if (r->power[0]) {
            tb_ina3221_poll_add(p, r->power);
        } else {
            tb_ina3221_poll_add(p, r->volt);
            tb_ina3221_poll_add(p, r->curr);
        }
    }
}

static int ina_sample(void *st, struct tb_power_sample *out, char *why, size_t n)
{
    struct ina_state *s = st;
    int64_t span[3];   /* the poll's start (host clock), CLOCK_MONOTONIC then, its end */
    span[0] = tb_now_ns();
    span[1] = tb_real_now_ns();
    add_rails(s, &s->poll);
    tb_ina3221_poll_read(&s->poll);
    for (int i = 0; i < s->n; i++) {
        struct rail *r = &s->rail[i];
        if (r->skip)
            continue;   /* NAN: read less often than the total (reads block) */
        int rc = read_rail(r, &s->poll, &out->rail_mw[i], &r->read_ms, why, n);
        r->max_ms = fmax(r->max_ms, r->read_ms);
        if (rc)
            return rc;
        int64_t end = tb_ina3221_poll_end_ns(&s->poll, r->power[0] ? r->power : r->curr);
        span[2] = tb_now_ns();
        stamp_rail(s, out, i, span, end >= 0 ? end : tb_real_now_ns(), r->read_ms);
    }
    out->t_ns = tb_now_ns();   /* the poll's stamp: its rails all read (every rail before it) */
    tb_ina3221_poll_clear(&s->poll);
    tb_ina3221_oc_files(&s->oc, &s->poll);
    tb_ina3221_poll_read(&s->poll);
    tb_ina3221_oc_sample(&s->oc, &s->poll, out);
    return 0;
}

/* One rail's files into *mw, as p read them (NULL: read now), *ms (may be NULL) the time. */
static int read_rail(const struct rail *r, const struct tb_ina3221_poll *p, float *mw,
                     double *ms, char *why, size_t n)
{
    long v, a;
    double t = 0, tv = 0;
    int rc;
    if (r->power[0]) {
        rc = tb_ina3221_poll_value(p, r->power, &v, &t, why, n);
        *mw = rc ? *mw : (float)v;
    } else if (!(rc = tb_ina3221_poll_value(p, r->volt, &v, &tv, why, n)) &&
               !(rc = tb_ina3221_poll_value(p, r->curr, &a, &t, why, n))) {
        *mw = v < 0 || v > INA_MAX_MV || a < 0 ? INA_IMPOSSIBLE_MW
              : (float)((double)v * (double)a / 1000.0);
    }
    if (ms)
        *ms = t + tv;
    return rc;
}

/* The limit as read at open, then, at each later call (after a mode step: nvpmodel sets the
 * warning limit per mode), read again. */
static void ina_identify(void *st, struct tb_power_device *d)
{
    struct ina_state *s = st;
    const struct rail *r = s->total >= 0 ? &s->rail[s->total] : NULL;
    if (s->identified++ > 0)
        tb_ina3221_oc_limit(&s->oc, &s->pc, r ? r->name : NULL, r ? (r->chip >= 0 ? r->volt
                            : r->power) : NULL, r ? r->ch : -1, r && r->chip >= 0);
    d->limit_w = s->oc.limit_w;
    tb_strlcpy(d->limit_how, s->oc.limit_how, sizeof(d->limit_how));
}

static void ina_close(void *st) {}

/* The IIO driver's sensor mode, where it shows it (running_mode beside the rails: 1
 * continuous, the chip averaging; 0 triggered, each read one ~1 ms conversion, no
 * averaging): which one a Nano runs was found in no public source, and the driver switches
 * with CPU load and alerts, so the night's log says it, or that it is unknown (then taken
 * as continuous, the chip's own averaging). */
static void iio_mode(const struct ina_state *s, struct tb_power_cadence *c)
{
    const char *dir = s->n && s->rail[0].power[0] ? s->rail[0].power : NULL;
    const char *slash = dir ? strrchr(dir, '/') : NULL;
    char p[PATH_MAX + 32], why[PATH_MAX + 160];
    long mode = -1;
    if (slash && snprintf(p, sizeof(p), "%.*s/running_mode", (int)(slash - dir), dir) <
                 (int)sizeof(p) && tb_ina3221_read_value(p, &mode, why, sizeof(why)) < 0)
        mode = -1;
    if (!slash)
        return;
    c->triggered = mode == 0;   /* each reading a moment: the meter's blocks hold 3x the updates */
    tb_sensor_model_documented(ina_models, mode == 0 ? "ina3221x-triggered"
                               : "ina3221x-continuous", s->n, &c->model);
    snprintf(c->detail, sizeof(c->detail), "%s", mode == 1 ? "ina3221x running_mode 1: "
             "continuous (the chip averages)" : mode == 0 ? "ina3221x running_mode 0: "
             "triggered (each read one conversion of ~1 ms, no averaging)" : "ina3221x "
             "sensor mode unknown (no running_mode to read): taken as continuous");
}

/* Chip k's rails: the first and how many (scan_hwmon adds them chip by chip). */
static int chip_rails(const struct ina_state *s, int k, int *first)
{
    int n = 0;
    *first = -1;
    for (int i = 0; i < s->n; i++)
        if (s->rail[i].chip == k) {
            if (*first < 0)
                *first = i;
            n++;
        }
    return n;
}

/* The hwmon driver's chips: each an exponential average (TI SBOS576, "Averaging
 * function": after every conversion cycle the register moves by (sample - register) /
 * samples), whose time constant is the chip's update_interval (Linux
 * Documentation/hwmon/ina3221.rst: channels x samples x (bus + shunt conversion time);
 * L4T's nvpower.sh sets 512 samples, 430 ms, on Xavier and Orin). The reading moves every
 * conversion cycle (about 0.84 ms there), not once per update_interval. Each chip's own
 * constant on its rails (the AGX boards have two); the slowest is the cadence the idle
 * and the silences are judged by. The IIO driver of JetPack 4 has no such file. */
static void say_reads(const struct ina_state *s, char *out, size_t n);

static void ina_cadence(void *st, struct tb_power_cadence *c)
{
    struct ina_state *s = st;
    tb_strlcpy(c->scope, "INA3221 rails (module input where the total is VDD_IN / POM_5V_IN)",
               sizeof(c->scope));
    double slowest = NAN;
    long samples = -1;
    if (s->nhwmon > 0)
        tb_sensor_model_documented(ina_models, "ina3221-hwmon", s->n, &c->model);
    for (int i = 0; i < s->nhwmon; i++) {
        char p[PATH_MAX + 32], why[PATH_MAX + 160], said[112];
        long ms, avg = -1;
        int first, count = chip_rails(s, i, &first);
        snprintf(p, sizeof(p), "%s/samples", s->hwmon[i]);
        if (tb_ina3221_read_value(p, &avg, why, sizeof(why)) < 0 || avg <= 0 || avg > 4096)
            avg = -1;
        samples = avg > samples ? avg : samples;
        snprintf(p, sizeof(p), "%s/update_interval", s->hwmon[i]);
        if (tb_ina3221_read_value(p, &ms, why, sizeof(why)) == 0 && ms > 0 && ms <= 600000) {
            if (isnan(slowest) || ms > slowest)
                slowest = (double)ms;
            double tau = tb_sensor_model_hwmon_tau_ms((double)ms, avg);
            snprintf(said, sizeof(said), "chip %d: update_interval %ld ms, samples %ld (sysfs): "
                     "tau %.1f ms", i + 1, ms, avg, tau);
            tb_sensor_model_set_tau(&c->model, first, count, tau, said);
        }
    }
    if (isnan(slowest)) {
        if (s->nhwmon == 0)
            iio_mode(s, c);
        return;
    }
    c->period_ms = slowest;
    tb_strlcpy(c->how, "sysfs", sizeof(c->how));
    int len = samples > 0 ? snprintf(c->detail, sizeof(c->detail), "hwmon update_interval "
                                     "%.0f ms, samples %ld", slowest, samples)
                          : snprintf(c->detail, sizeof(c->detail), "hwmon update_interval "
                                     "%.0f ms", slowest);
    say_reads(s, c->detail + len, sizeof(c->detail) - (size_t)len);
}

/* How long a rail read took at open, what reads that block changed, and what a rail's
 * stamp means (stamp_rail), for the log. */
static void say_reads(const struct ina_state *s, char *out, size_t n)
{
    if (!s->n || n < 2)
        return;
    if (s->adapted[0])
        snprintf(out, n, "; rail reads block (%s %.0f ms): %s; each rail stamped at its read's "
                 "return, the latest its value can be from (0..1 interval older: the driver "
                 "sleeps up to an interval between checks)", s->rail[s->slowest].name,
                 s->open_ms, s->adapted);
    else
        snprintf(out, n, "; rail reads %.2f ms at most; each rail stamped at its read's "
                 "midpoint", s->open_ms);
}

const struct tb_power_ops tb_power_ina3221 = {
    .name = "ina3221",
    .help = "INA3221 rails in sysfs (Jetson, JP4-6)",
    .flags = TB_POWER_PROBED,
    .models = ina_models,
    .state_size = sizeof(struct ina_state),
    .probe = ina_probe,
    .open = ina_open,
    .sample = ina_sample,
    .close = ina_close,
    .cadence = ina_cadence,
    .identify = ina_identify,
};
