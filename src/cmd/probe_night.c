/* probe_night.c: see probe_night.h. The probe is the command's own steps (tb_probe_take),
 * on the night's device and under its lock and signals; the result is opened here, not by
 * tb_stepfit_load, because a night reads it from a log folder others may share: whose file
 * it is and who may write it are checked on the descriptor that is then read. Not here:
 * the fit, the meter. */
#include "cmd/probe_night.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/probe_internal.h"
#include "cmd/probecmd.h"
#include "energy/stepfit.h"
#include "lib/clock.h"
#include "lib/safeio.h"
#include "lib/util.h"

/* A kept result is a few hundred bytes (tb_stepfit_format); anything near this is not one. */
#define RESULT_MAX 4096

/* The night's energy budget: power.budget_s for each point measured for energy (with
 * power.points = fastest one a kernel and size: which block is fastest is not known yet),
 * in each mode step. */
static double energy_budget_s(const struct tb_probe_night *pn)
{
    const struct tb_power_cfg *pc = &pn->cfg->board.power;
    bool all = !strcmp(pc->points, "all");
    size_t count = 0;
    for (size_t j = 0; j < pn->npts; j++) {
        bool first = !pn->pts[j].skip;
        for (size_t i = 0; i < j && first && !all; i++)
            first = pn->pts[i].skip || pn->pts[i].k != pn->pts[j].k ||
                    pn->pts[i].size_index != pn->pts[j].size_index;
        count += first;
    }
    return pc->budget_s * (double)count * (double)(pn->steps ? pn->steps : 1);
}

/* Whether power.probe and the night let the probe run; why not into why. */
static bool wanted(const struct tb_probe_night *pn, char *why, size_t n)
{
    const char *mode = pn->cfg->board.probe;
    struct stat st;
    if (!strcmp(mode, "never"))
        return snprintf(why, n, "power.probe = never"), false;
    if (!pn->be_st)
        return snprintf(why, n, "no device open for the load"), false;
    if (!strcmp(mode, "always"))
        return true;
    if (lstat(pn->path, &st) == 0)
        return false;   /* a result is there: used, not measured again */
    if (!(pn->ops->flags & TB_POWER_PROBED))
        return false;   /* nothing to say: no other source can be probed (a desktop's NVML) */
    if (!pn->l4t || !pn->l4t[0])
        return snprintf(why, n, "no L4T release to keep the result by"), false;
    double budget = energy_budget_s(pn), limit = pn->cfg->sweep.tune_seconds;
    if (pn->tune && limit < TB_PROBE_NIGHT_NEEDS_S)
        return snprintf(why, n, "tune.seconds (%.0f s) is shorter than %.0f s", limit,
                        TB_PROBE_NIGHT_NEEDS_S), false;
    if (budget < TB_PROBE_NIGHT_NEEDS_S)
        return snprintf(why, n, "the night's energy budget (%.0f s: power.budget_s x the points "
                        "measured for energy x mode steps) is shorter than %.0f s", budget,
                        TB_PROBE_NIGHT_NEEDS_S), false;
    return true;
}

void tb_probe_night_first(struct tb_probe_night *pn)
{
    const struct tb_config *cfg = pn->cfg;
    char why[256] = "";
    pn->ran = 0;
    pn->probe_s = 0;
    if (tb_probe_result_path(cfg->sweep.out_dir, cfg->board.name, pn->l4t, pn->path,
                             sizeof(pn->path)) < 0)
        pn->path[0] = 0;
    if (!pn->path[0] || *pn->stop || !wanted(pn, why, sizeof(why))) {
        if (why[0] && !pn->quiet && strcmp(cfg->board.probe, "never") && access(pn->path, F_OK))
            note("power: the sensor not probed: %s (power.probe = %s)", why, cfg->board.probe);
        return;
    }
    struct probe *p = calloc(1, sizeof(*p));
    if (!p) {
        warning("power: the sensor not probed: %s", strerror(ENOMEM));
        return;
    }
    p->cfg = *cfg;   /* a copy of the night's, never freed here */
    p->span_s = 1.5, p->poll_ms = 5, p->tmp_fd = -1, p->stop = pn->stop;
    p->rows = p->cols = pn->be->id == TB_BACKEND_CPU ? 512 : 4096;
    p->borrowed = true, p->be = pn->be, p->be_st = pn->be_st, p->dev = *pn->dev;
    p->out = pn->quiet ? NULL : stderr;
    if (!pn->quiet)
        note("power: probing the sensor's step response first (power.probe = %s; at most "
             "%.0f s, before the night's plan), kept as '%s'", cfg->board.probe,
             TB_PROBE_NIGHT_MAX_S, pn->path);
    int64_t t0 = tb_now_ns();
    struct tb_stepfit fit;
    pn->ran = tb_probe_take(p, &fit) == 0 ? 1 : -1;
    pn->probe_s = (double)(tb_now_ns() - t0) * 1e-9;
    if (pn->ran < 0)
        warning("power: the probe at the night's start failed (above): the sensor's model "
                "from sysfs or the documented default");
    free(p);
}

/* Whether st is this user's or root's and writable by no one else (a group of the user's
 * own aside; a folder everyone writes only when sticky, where no one else may rename what
 * is in it): the rule a run's board and sweep files pass (measure/board.c, owned_safe). */
static bool owned_safe(const struct stat *st, bool sticky_ok)
{
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return false;
    bool group_ok = !(st->st_mode & S_IWGRP) || st->st_gid == getegid();
    return (group_ok && !(st->st_mode & S_IWOTH)) || (sticky_ok && (st->st_mode & S_ISVTX));
}

/* The result's folder opened and checked: its descriptor, or -1 with why and brief. The
 * folder's owner could rename a result of another release (or board) to this name: a
 * folder another user owns or may write is not read from. */
static int open_folder(const char *path, char *why, size_t n, char *brief, size_t bn)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path)
        snprintf(dir, sizeof dir, "/");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (dfd >= 0 && fstat(dfd, &st) == 0 && owned_safe(&st, true))
        return dfd;
    if (dfd < 0)
        snprintf(why, n, "probe result '%s': its folder: %s", path, strerror(errno)),
        snprintf(brief, bn, "its folder unreadable");
    else
        snprintf(why, n, "probe result '%.1800s': its folder '%.1800s' belongs to uid %u, mode %04o: "
                 "another user could rename a result of another release to this name (a "
                 "folder of this user's or root's that no one else may write is read from)",
                 path, dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777)),
        snprintf(brief, bn, "its folder another user's or writable by others");
    if (dfd >= 0)
        close(dfd);
    return -1;
}

/* The checks on the opened result's descriptor: 0, or -errno with why and brief. */
static int file_checks(const char *path, const struct stat *st, char *why, size_t n,
                       char *brief, size_t bn)
{
    if (!S_ISREG(st->st_mode))
        return snprintf(why, n, "probe result '%s': not a regular file", path),
               snprintf(brief, bn, "not a regular file"), -EPERM;
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return snprintf(why, n, "probe result '%s' belongs to uid %u, not to this user or "
                        "root", path, (unsigned)st->st_uid),
               snprintf(brief, bn, "another user's (uid %u)", (unsigned)st->st_uid), -EPERM;
    if (!owned_safe(st, false))
        return snprintf(why, n, "probe result '%s' may be written by other users (mode %04o)",
                        path, (unsigned)(st->st_mode & 07777)),
               snprintf(brief, bn, "writable by others (mode %04o)",
                        (unsigned)(st->st_mode & 07777)), -EPERM;
    if (st->st_nlink != 1)
        return snprintf(why, n, "probe result '%s' has %lu links", path,
                        (unsigned long)st->st_nlink), snprintf(brief, bn, "a second link"),
               -EPERM;
    if (st->st_size > RESULT_MAX)
        return snprintf(why, n, "probe result '%s': %lld bytes, a result is a few hundred",
                        path, (long long)st->st_size), snprintf(brief, bn, "too large"),
               -EINVAL;
    return 0;
}

/* The result at path opened as a night may trust it, read and parsed: 0 with *fit and
 * *mtime, -ENOENT when there is none, -EPERM when it or its folder is not this user's or
 * root's or others may write it (a warning), -ESTALE when it was kept for another board
 * or release (a warning), -EINVAL when it is no result (an error); why says which. */
static int load_checked(const struct tb_probe_night *pn, struct tb_stepfit *fit,
                        time_t *mtime, char *why, size_t n, char *brief, size_t bn)
{
    const char *path = pn->path, *slash = strrchr(path, '/');
    struct stat st;
    if (lstat(path, &st) < 0 && errno == ENOENT)
        return -ENOENT;
    int dfd = open_folder(path, why, n, brief, bn);
    if (dfd < 0)
        return -EPERM;
    int fd = openat(dfd, slash ? slash + 1 : path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
                    O_CLOEXEC);
    int e = errno;
    close(dfd);
    if (fd < 0) {
        snprintf(why, n, "probe result '%s': %s", path, e == ELOOP ? "a link, not followed"
                 : strerror(e));
        snprintf(brief, bn, "%s", e == ELOOP ? "a link" : "unreadable");
        return e == ENOENT ? -ENOENT : e == ELOOP ? -EPERM : -EINVAL;
    }
    memset(&st, 0, sizeof(st));
    char buf[RESULT_MAX + 1], w[320];
    int rc = fstat(fd, &st) < 0 ? -EINVAL : file_checks(path, &st, why, n, brief, bn);
    if (rc == -EINVAL && !st.st_mode)
        snprintf(why, n, "probe result '%s': %s", path, strerror(errno)),
        snprintf(brief, bn, "unreadable");
    if (rc == 0 && (rc = tb_safeio_read_fd(fd, path, buf, sizeof(buf), NULL, 0, w,
                                           sizeof(w))) < 0)
        rc = -EINVAL, snprintf(why, n, "cannot read probe result '%s': %.200s", path, w),
        snprintf(brief, bn, "unreadable");
    else if (rc == 0 && tb_stepfit_parse(path, buf, fit, why, n) < 0)
        rc = -EINVAL, snprintf(brief, bn, "malformed");
    else if (rc == 0 && tb_stepfit_matches(fit, path, pn->cfg->board.name, pn->l4t, why, n))
        rc = -ESTALE, snprintf(brief, bn, "kept for another board or release");
    *mtime = st.st_mtime;
    close(fd);
    return rc;
}

static enum tb_sensor_kind kind_of(const char *model)
{
    return !strcmp(model, "ema") ? TB_SENSOR_EMA : !strcmp(model, "boxcar") ? TB_SENSOR_BOXCAR
                                                                          : TB_SENSOR_POINT;
}

/* A refused result said in the cadence's model, briefly (the warning or error said it
 * whole): the model stays what it was. */
static void say_in_model(struct tb_sampler *s, const char *text)
{
    struct tb_power_cadence c = *tb_sampler_cadence(s);
    size_t len = strlen(c.model.from);
    snprintf(c.model.from + len, sizeof(c.model.from) - len, "%s%.400s", len ? "; " : "",
             text);
    tb_sampler_set_cadence(s, &c);
}

/* Each rail's own constant where the probe fitted the rails one by one (each INA3221
 * channel by itself): on the sampler's rail of that name, where its model is the total's
 * (the model is one kind for all rails); a rail the probe found no step on (or another
 * model) keeps the constant it had before the probe (before), not the total's (on an AGX
 * board a blend of two chips); said in m->from. */
static void per_rail(struct tb_sensor_model *m, const struct tb_sensor_model *before,
                     const struct tb_power_rails *rails, const struct tb_stepfit *fit,
                     enum tb_sensor_kind kind)
{
    size_t len = strlen(m->from);
    bool any = false;
    for (int k = 0; k < fit->nrails && len < sizeof(m->from); k++) {
        const struct tb_stepfit_rail *fr = &fit->rail[k];
        int at = -1;
        for (int i = 0; i < rails->n && at < 0; i++)
            if (!strcmp(rails->name[i], fr->name))
                at = i;
        if (at < 0 || at >= TB_SENSOR_MAX_RAILS)
            continue;
        const char *sep = any ? ", " : "; each rail's own: ";
        if (fr->model && kind_of(fr->model) == kind) {
            m->tau_ms[at] = kind == TB_SENSOR_POINT ? 0 : fr->tau_ms;
            len += (size_t)snprintf(m->from + len, sizeof(m->from) - len, "%s%s %.0f ms", sep,
                                    fr->name, m->tau_ms[at]);
        } else {
            m->tau_ms[at] = before->tau_ms[at];
            len += (size_t)snprintf(m->from + len, sizeof(m->from) - len, "%s%s %s (kept "
                                    "%.0f ms)", sep, fr->name, fr->model ? "another model" :
                                    "no step", tb_sensor_model_tau_ms(m, at));
        }
        any = true;
    }
}

void tb_probe_night_use(struct tb_probe_night *pn, struct tb_sampler *s)
{
    if (!s || !pn->path[0])
        return;
    struct tb_power_cadence c = *tb_sampler_cadence(s);
    if (c.model.kind == TB_SENSOR_COUNTER || c.model.kind == TB_SENSOR_MEAN)
        return;   /* NVML's: the probe measures a reading sensor, never these */
    struct tb_stepfit fit;
    time_t mtime = 0;
    char why[PATH_MAX + 256], brief[64] = "";
    int rc = load_checked(pn, &fit, &mtime, why, sizeof(why), brief, sizeof(brief));
    if (rc == -ENOENT && pn->ran < 0)
        say_in_model(s, "the probe at this night's start failed (said on stderr): no result");
    if (rc == -ENOENT)
        return;
    if (rc < 0) {
        if (rc == -EPERM || rc == -ESTALE)
            warning("%s: ignored, the sensor's model stays sysfs's or the documented one", why);
        else
            error("%s: ignored, the sensor's model stays sysfs's or the documented one", why);
        char text[PATH_MAX + 96];
        snprintf(text, sizeof(text), "probe result %s not used: %s", pn->path, brief);
        say_in_model(s, text);
        return;
    }
    char date[40] = "date unknown";
    struct tm tm;
    if (gmtime_r(&mtime, &tm))
        strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
    int rail = tb_probe_total_index(tb_sampler_rails(s), pn->cfg->board.power.total_rail);
    enum tb_sensor_kind kind = kind_of(fit.model);
    struct tb_sensor_model before = c.model;
    tb_sensor_model_probed(&c.model, tb_sampler_rails(s)->n, rail < 0 ? -1 : rail, kind,
                           fit.tau_ms, pn->path, date, !strcmp(c.how, "sysfs") ? "sysfs"
                           : "the documented default");
    per_rail(&c.model, &before, tb_sampler_rails(s), &fit, kind);
    if (kind == TB_SENSOR_BOXCAR)   /* a mean that changes at its refresh, else its window */
        c.period_ms = fit.refresh_ms > 0 ? fit.refresh_ms : fit.tau_ms;
    c.triggered = kind == TB_SENSOR_POINT;
    size_t len = strlen(c.model.from);
    if (pn->ran > 0)
        snprintf(c.model.from + len, sizeof(c.model.from) - len, "; probed at this night's "
                 "start in %.0f s", pn->probe_s);
    tb_sampler_set_cadence(s, &c);
}
