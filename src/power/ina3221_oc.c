/* ina3221_oc.c: a Jetson's over-current throttle as the INA3221 source reads it: the
 * enforced limit of the rail the night's total is, and whether the throttle acted during a
 * reading. Not a power reading (ina3221.c) and not the clocks it held (jetson/throttle.c).
 *
 * The limit a block's mean can reach is the averaged warning limit currK_max (hwmon_limit
 * says why; the critical one is an instantaneous trip). The INA3221's critical-current
 * alert on the module's input rail is what the over-current throttle acts on at once: the chip raises its critical alert when a channel's current passes
 * currK_crit (mA) and the alert pin throttles the SoC (Linux drivers/hwmon/ina3221.c and
 * Documentation/hwmon/ina3221.rst: currK_crit, currK_crit_alarm 0|1; JetPack 4's IIO driver,
 * OE4T/linux-tegra-4.9 drivers/staging/iio/meter/ina3221.c: crit_current_limit_K "32760 ma"
 * and crit_power_limit_K "163800 mw", the current limit times the bus voltage read then).
 * Each event is counted by NVIDIA's tegra234-oc-event driver, the hwmon device named
 * soctherm_oc (oc1_event_cnt .. oc3_event_cnt, read through the BPMP): on an Orin in
 * MAXN_SUPER OC3 fires 1-30 times a second and halves the CPU and GPU clocks for about 1 ms
 * each, which devfreq's cur_freq never shows. nvpmodel.conf carries no watts: a mode's name
 * ("15W") is a design target, not an enforced limit, and is not used as one. */
#include "power/ina3221.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/safeio.h"
#include "lib/util.h"

#define OC_MAX_MV 26000L          /* the INA3221's bus input: 0 to 26 V */

/* One value of a limit's file: 0, or -errno with o->limit_how saying why the limit is not
 * known. Missing or unreadable: said there alone; garbage (text, zero, negative, past
 * most): also warned of, naming the file. */
static int limit_value(struct tb_ina3221_oc *o, const char *path, long most, long *v)
{
    char why[PATH_MAX + 160];
    int rc = tb_ina3221_read_value(path, v, why, sizeof(why));
    if (rc == 0 && (*v <= 0 || *v > most)) {
        snprintf(why, sizeof(why), "'%s' holds %ld, not a limit", path, *v);
        rc = -EINVAL;
    }
    if (rc == 0)
        return 0;
    if (rc != -ENOENT && rc != -EACCES && rc != -EPERM)
        warning("INA3221 power limit: %s: the enforced limit is not known", why);
    snprintf(o->limit_how, sizeof(o->limit_how), "not known: %.140s", why);
    return rc;
}

/* The limit of rail name on hwmon: its averaged warning limit currK_max (mA) x its bus
 * voltage inK_input (mV) now. The INA3221 has two (SBOS576A p. 26): the critical limit
 * (currK_crit) is compared with each single conversion, "to detect fast overcurrent
 * events"; the warning limit (currK_max) with the averaged value, "to detect a longer
 * duration overcurrent event". A block's mean can sit at the second (nvpmodel sets it per
 * mode on Xavier NX: WARN ... curr1_max in L4T R35's nvpmodel.conf, 3000 mA in the 10/15 W
 * modes, 4000 mA in 20 W), practically never at the first: crit x voltage is an
 * instantaneous trip, said as such, never the limit. A limit at or below what the rail
 * draws now (the run's start, idle) is no limit a block can reach: ignored with a warning
 * (1 mA would mark every block capped). */
static void hwmon_limit(struct tb_ina3221_oc *o, const char *dir, const char *name,
                        const char *volt, int ch)
{
    char p[PATH_MAX + 32], why[PATH_MAX + 160], trip[64] = "";
    long ma, mv, crit, now;
    snprintf(p, sizeof(p), "%s/curr%d_crit", dir, ch);
    if (tb_ina3221_read_value(p, &crit, why, sizeof(why)) == 0 && crit > 0 && crit <= 1000000)
        snprintf(trip, sizeof(trip), " (curr%d_crit %ld mA: an instantaneous trip)", ch, crit);
    snprintf(p, sizeof(p), "%s/curr%d_max", dir, ch);
    if (limit_value(o, p, 1000000, &ma) || limit_value(o, volt, OC_MAX_MV, &mv))
        return;
    o->limit_w = (double)ma * (double)mv / 1e6;
    snprintf(o->limit_how, sizeof(o->limit_how), "the averaged warning limit: INA3221 %s "
             "curr%d_max %ld mA x in%d_input %ld mV at the run's start%s", name, ch, ma, ch,
             mv, trip);
    snprintf(p, sizeof(p), "%s/curr%d_input", dir, ch);
    if (tb_ina3221_read_value(p, &now, why, sizeof(why)) == 0 && now >= ma) {
        warning("INA3221 power limit: %s curr%d_max %ld mA is at or below what the rail "
                "draws now (%ld mA): not a limit a block reaches; ignored", name, ch, ma, now);
        snprintf(o->limit_how, sizeof(o->limit_how), "not known: %s curr%d_max %ld mA is at "
                 "or below the rail's draw at the run's start (%ld mA): ignored", name, ch, ma,
                 now);
        o->limit_w = NAN;
    }
}

/* JetPack 4's IIO driver: its averaged warning limit warn_current_limit_K (mA, "32760 ma")
 * x in_voltageK_input (mV) now, as hwmon_limit's currK_max (the same chip's register:
 * SBOS576A p. 26); crit_power_limit_K (mW) or crit_current_limit_K, the instantaneous
 * trip, named beside it. */
static void iio_limit(struct tb_ina3221_oc *o, const char *dir, const char *name, int ch)
{
    char p[PATH_MAX + 32], pv[PATH_MAX + 32], why[PATH_MAX + 160], trip[96] = "";
    long ma, mv, crit;
    snprintf(p, sizeof(p), "%s/crit_power_limit_%d", dir, ch);
    if (tb_ina3221_read_value(p, &crit, why, sizeof(why)) == 0 && crit > 0)
        snprintf(trip, sizeof(trip), " (crit_power_limit_%d %ld mW: an instantaneous trip)",
                 ch, crit);
    snprintf(p, sizeof(p), "%s/warn_current_limit_%d", dir, ch);
    snprintf(pv, sizeof(pv), "%s/in_voltage%d_input", dir, ch);
    if (limit_value(o, p, 1000000, &ma) || limit_value(o, pv, OC_MAX_MV, &mv))
        return;
    o->limit_w = (double)ma * (double)mv / 1e6;
    snprintf(o->limit_how, sizeof(o->limit_how), "the averaged warning limit: INA3221 %s "
             "warn_current_limit_%d %ld mA x in_voltage%d_input %ld mV at the run's start%s",
             name, ch, ma, ch, mv, trip);
    long now;
    snprintf(p, sizeof(p), "%s/in_current%d_input", dir, ch);
    if (tb_ina3221_read_value(p, &now, why, sizeof(why)) == 0 && now >= ma) {
        warning("INA3221 power limit: %s warn_current_limit_%d %ld mA is at or below what the "
                "rail draws now (%ld mA): not a limit a block reaches; ignored", name, ch, ma,
                now);
        snprintf(o->limit_how, sizeof(o->limit_how), "not known: %s warn_current_limit_%d %ld "
                 "mA is at or below the rail's draw at the run's start (%ld mA): ignored", name,
                 ch, ma, now);
        o->limit_w = NAN;
    }
}

/* The soctherm_oc hwmon device's event counters, where the kernel has one: the
 * lowest-numbered entry of that name, as jetson/throttle.c takes it for the point's
 * oc_events (which reads them at a point's start and end; here, with every reading). */
static void find_events(struct tb_ina3221_oc *o, const char *root)
{
    char pat[PATH_MAX];
    snprintf(pat, sizeof(pat), "%s/sys/class/hwmon/hwmon*", root);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return;
    long best = -1;
    size_t at = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char p[PATH_MAX + 32], name[32], why[PATH_MAX + 160];
        const char *base = strrchr(g.gl_pathv[i], '/') + 1;
        long idx = atol(base + 5);
        snprintf(p, sizeof(p), "%s/name", g.gl_pathv[i]);
        if ((best < 0 || idx < best) && tb_safeio_line(p, name, sizeof(name), 0, why,
                                                       sizeof(why)) == 0 &&
            !strcmp(name, "soctherm_oc")) {
            best = idx;
            at = i;
        }
    }
    for (int k = 1; best >= 0 && k <= TB_INA3221_OC_MAX; k++) {
        char p[PATH_MAX + 32];
        snprintf(p, sizeof(p), "%s/oc%d_event_cnt", g.gl_pathv[at], k);
        if (access(p, R_OK) == 0)
            tb_strlcpy(o->event[o->nevent++], p, PATH_MAX);
    }
    globfree(&g);
}

void tb_ina3221_oc_open(struct tb_ina3221_oc *o, const struct tb_power_cfg *pc,
                        const char *name, const char *volt, int ch, bool hwmon)
{
    memset(o, 0, sizeof(*o));
    find_events(o, tb_sys_root(pc->sysfs_root));
    const char *slash = volt ? strrchr(volt, '/') : NULL;
    if (slash && hwmon && (snprintf(o->alarm, sizeof(o->alarm), "%.*s/curr%d_crit_alarm",
                                    (int)(slash - volt), volt, ch) >= (int)sizeof(o->alarm) ||
                           access(o->alarm, R_OK) != 0))
        o->alarm[0] = 0;   /* the IIO driver shows no alarm */
    tb_ina3221_oc_limit(o, pc, name, volt, ch, hwmon);
}

void tb_ina3221_oc_limit(struct tb_ina3221_oc *o, const struct tb_power_cfg *pc,
                         const char *name, const char *volt, int ch, bool hwmon)
{
    o->limit_w = NAN;
    const char *slash = volt ? strrchr(volt, '/') : NULL;
    if (!slash) {
        snprintf(o->limit_how, sizeof(o->limit_how), "not known: power.total_rail '%.100s' is "
                 "no one INA3221 rail", pc->total_rail);
        return;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - volt), volt);
    if (hwmon)
        hwmon_limit(o, dir, name, volt, ch);
    else
        iio_limit(o, dir, name, ch);
    /* a limit above the most the board can draw (its readings above are dropped as
     * absurd) is no limit it reaches: the chip's reset value, 163.8 mV over the shunt, reads
     * 32760 mA on a 5 mOhm shunt, where nothing set one */
    if (isfinite(o->limit_w) && pc->max_power_w > 0 && o->limit_w > pc->max_power_w) {
        char was[sizeof(o->limit_how)];
        tb_strlcpy(was, o->limit_how, sizeof(was));
        snprintf(o->limit_how, sizeof(o->limit_how), "not known: %.1f W is over "
                 "board.max_power_w %.0f W (%.130s)", o->limit_w, pc->max_power_w, was);
        o->limit_w = NAN;
    }
}

/* One file of the throttle: 0 with *v; 1 where this reading failed as a driver's read may
 * fail now and then (EIO from the BPMP, ENOENT while a driver reloads: tried again next
 * reading, up to TB_INA3221_OC_TRIES in a row); -1 after saying, once, that it is read no
 * more (a link, not a regular file, garbage, a read past the deadline: tried again, such a
 * read would cost the sampler its deadline each time; no permission; or too many in a row). */
static int reason_value(const struct tb_ina3221_poll *p, const char *path, long *v, long most,
                        int *fails)
{
    char why[PATH_MAX + 160];
    int rc = tb_ina3221_poll_value(p, path, v, NULL, why, sizeof(why));
    if (rc == 0 && (*v < 0 || *v > most)) {
        snprintf(why, sizeof(why), "'%s' holds %ld", path, *v);
        rc = -EINVAL;
    }
    if (rc == 0) {
        *fails = 0;
        return 0;
    }
    bool lasting = rc == -ELOOP || rc == -EINVAL || rc == -ETIMEDOUT || rc == -EACCES ||
                   rc == -EPERM || rc == -ENAMETOOLONG;
    if (!lasting && ++*fails < TB_INA3221_OC_TRIES)
        return 1;
    if (lasting)
        warning("INA3221 over-current: %s: read no more this run", why);
    else
        warning("INA3221 over-current: %s (%d readings in a row): read no more this run", why,
                *fails);
    return -1;
}

void tb_ina3221_oc_files(const struct tb_ina3221_oc *o, struct tb_ina3221_poll *p)
{
    if (o->alarm[0])
        tb_ina3221_poll_add(p, o->alarm);
    for (int k = 0; k < o->nevent; k++)
        tb_ina3221_poll_add(p, o->event[k]);
}

void tb_ina3221_oc_sample(struct tb_ina3221_oc *o, const struct tb_ina3221_poll *p,
                          struct tb_power_sample *out)
{
    bool said = false;
    unsigned long long mask = 0;
    long v;
    if (o->alarm[0]) {
        int rc = reason_value(p, o->alarm, &v, 1, &o->alarm_fails);
        if (rc == 0) {
            said = true;
            mask |= v ? TB_POWER_REASON_OC : 0;
        } else if (rc < 0) {
            o->alarm[0] = 0;
        }
    }
    long now[TB_INA3221_OC_MAX];
    int k, rc = 0;
    for (k = 0; k < o->nevent && (rc = reason_value(p, o->event[k], &now[k], LONG_MAX,
                                                    &o->event_fails)) == 0; k++)
        ;
    if (rc < 0) {
        o->nevent = 0;   /* a counter lost (a BPMP that stopped answering holds them all) */
    } else if (rc == 0 && o->nevent > 0) {
        said = true;
        /* grown since the last reading: an event between the two. Each counter against
         * its own: one that went back (wrapped, its driver reloaded) is a new start, not an
         * event, and does not hide another's growth, as their sum would. A reading that
         * failed in between leaves events as they were: growth over it shows at the next. */
        for (k = 0; k < o->nevent; k++) {
            mask |= o->events_read && now[k] > o->events[k] ? TB_POWER_REASON_OC : 0;
            o->events[k] = now[k];
        }
        o->events_read = true;
    }
    out->has_reasons = said;
    out->reasons = mask;
}
