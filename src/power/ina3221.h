/* ina3221.h: the INA3221 source's parts beyond its ops (ina3221.c): the sysfs value reader
 * (ina3221_value.c, the floor under both), exposed for tests and fuzzing, and the
 * over-current throttle's files (ina3221_oc.c): the total rail's enforced limit and whether
 * the throttle acted, read with each sample; one reading's files read together. */
#ifndef TB_INA3221_H
#define TB_INA3221_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/safeio.h"
#include "power/power.h"

/* The source's ops (its row of the table, sources.c). */
extern const struct tb_power_ops tb_power_ina3221;

/* One rail file read may take this long (an INA3221 conversion takes ~1 ms; the I2C
 * driver's own timeout is about a second): past it the source fails, said once. */
#define TB_INA3221_DEADLINE_MS 1500

/* Parses a sysfs value's text: 0 with *value set, or -EINVAL (ina3221_value.c). */
int tb_ina3221_parse_value(const char *buf, long *value);
/* Reads one integer sysfs value ("1022", "32760 ma"); 0, or -errno with why filled. */
int tb_ina3221_read_value(const char *path, long *value, char *why, size_t n);

/* One reading's files, read together (tb_safeio_kept_reads: one round trip to one reader,
 * which keeps them open; ina3221_value.c): the rails' files, the crit alarm and the
 * over-current counters of one poll. */
#define TB_INA3221_POLL_MAX TB_SAFEIO_KEPT_MAX
struct tb_ina3221_poll {
    int n;
    struct tb_safeio_job job[TB_INA3221_POLL_MAX];
    char text[TB_INA3221_POLL_MAX][64];
};
/* Empties p; adds path (a string that lives until the reading is taken: a rail's, the
 * alarm's), which is then read with the rest by tb_ina3221_poll_read. A path past
 * TB_INA3221_POLL_MAX is not added: tb_ina3221_poll_value reads it by itself. */
void tb_ina3221_poll_clear(struct tb_ina3221_poll *p);
void tb_ina3221_poll_add(struct tb_ina3221_poll *p, const char *path);
void tb_ina3221_poll_read(struct tb_ina3221_poll *p);
/* path's value as the poll read it (tb_ina3221_read_value's rules and words), *ms (may be
 * NULL) how long its read took; p NULL, or a path it does not hold: read now, by itself. */
int tb_ina3221_poll_value(const struct tb_ina3221_poll *p, const char *path, long *value,
                          double *ms, char *why, size_t n);
/* When the poll's read of path ended, CLOCK_MONOTONIC (tb_real_now_ns), whether the reader
 * or this process read it; -1 where p does not hold it (read by itself: now, just after). */
int64_t tb_ina3221_poll_end_ns(const struct tb_ina3221_poll *p, const char *path);

#define TB_INA3221_OC_MAX 3   /* soctherm_oc's oc1..oc3_event_cnt */

/* The over-current throttle as the INA3221 source sees it, one per open source. */
struct tb_ina3221_oc {
    double limit_w;                      /* the total rail's enforced limit; NAN not known */
    char limit_how[192];                 /* where it came from, or why it is not known */
    char alarm[PATH_MAX];                /* the total rail's currK_crit_alarm; "" none */
    char event[TB_INA3221_OC_MAX][PATH_MAX];   /* soctherm_oc's ocK_event_cnt files */
    int nevent;
    long events[TB_INA3221_OC_MAX];      /* each counter at the last reading */
    bool events_read;                    /* events holds a reading */
    int alarm_fails, event_fails;        /* readings in a row that failed, for a while */
};
#define TB_INA3221_OC_TRIES 20           /* ... at most (a second of readings at 50 ms) */

/* At open: the limit of the rail the night's total is (name; its bus-voltage file volt on
 * hwmon, or its in_powerK_input on the IIO layout; channel K ch; NULL when the total is no
 * one rail: tb_ina3221_oc_limit), its crit alarm file, and the soctherm_oc
 * hwmon device's event counters, all under pc->sysfs_root. Never fails: a file missing or
 * unreadable leaves its part unknown; one holding garbage is also warned of, by name. */
void tb_ina3221_oc_open(struct tb_ina3221_oc *o, const struct tb_power_cfg *pc,
                        const char *name, const char *volt, int ch, bool hwmon);
/* The limit alone (limit_w, limit_how) read again: at open, and after each mode step (the
 * warning limit is nvpmodel's, per mode). Writes no field the sampler thread's
 * tb_ina3221_oc_sample reads. On hwmon the averaged warning limit currK_max x the bus
 * voltage; one at or below what the rail draws now is warned of and ignored. */
void tb_ina3221_oc_limit(struct tb_ina3221_oc *o, const struct tb_power_cfg *pc,
                         const char *name, const char *volt, int ch, bool hwmon);
/* With each reading: has_reasons where a file of the throttle was read, and
 * TB_POWER_REASON_OC where the alarm reads 1 or a counter grew since the last reading (each
 * counter against its own: one reset or wrapped while another grew still says so). A
 * read that fails as a driver's may now and then (EIO, ENOENT) leaves that reading without
 * its part and is tried again, TB_INA3221_OC_TRIES readings in a row at most; a file that
 * fails otherwise, or that often, is warned of once and read no more. Allocates nothing. */
void tb_ina3221_oc_sample(struct tb_ina3221_oc *o, const struct tb_ina3221_poll *p,
                          struct tb_power_sample *out);
/* The files tb_ina3221_oc_sample reads next, added to p (read with the rails'). */
void tb_ina3221_oc_files(const struct tb_ina3221_oc *o, struct tb_ina3221_poll *p);

#endif
