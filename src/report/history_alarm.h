/* history_alarm.h: history's regression alarm over one series' nights (alarm.h's rule) for
 * each figure it judges: GB/s, the energy ratio to the copy and J/GB; what each change is
 * said with (its size and interval, the night conditions that changed with it), and the
 * series' state for Prometheus (format/openmetrics.h). history.c and alarm-sim call it alike.
 * Not here: the rule itself (alarm.c), which nights form a series (history.c). */
#ifndef TB_HISTORY_ALARM_H
#define TB_HISTORY_ALARM_H

#include <stdbool.h>
#include <stddef.h>

#include "format/openmetrics.h"
#include "log/logread.h"
#include "report/alarm.h"

/* The series a row belongs to: board, host, device (its name, then its own identity: two
 * GPUs of one model in one host are two series), kernel, element type, power mode, the clock
 * caps its step asked, size. A night under a GPU cap of 612 MHz is no night of the same mode
 * uncapped: its GB/s is another operating point's, never a change of the kernel's. */
int tb_history_series_cmp(const struct tb_log_rec *x, const struct tb_log_rec *y);
/* For tb_sort over rows: series, then nights in order, the best of a night first. */
int tb_history_night_cmp(const void *a, const void *b);

enum tb_hfig { TB_HFIG_GBPS, TB_HFIG_RATIO, TB_HFIG_JPGB, TB_HFIG_N };

/* A series' alarms: one per figure, their changes' nights as the series' night indices. */
struct tb_series_alarm {
    struct tb_alarm a[TB_HFIG_N];
    size_t nights[TB_HFIG_N];     /* nights that had the figure */
};

/* The figure's name ("gbps", "energy_ratio", "j_per_gb"), and whether its change of
 * direction dir is a regression (less GB/s; more energy). */
const char *tb_hfig_name(enum tb_hfig f);
bool tb_hfig_adverse(enum tb_hfig f, int dir);

/* The alarms of the count nights n[] (the best row of each night, in time order). level and
 * night (count each, may be NULL) get GB/s's per night (alarm.h). 0, or -1 out of memory
 * (said). */
int tb_history_alarm(const struct tb_log_rec *const *n, size_t count, struct tb_series_alarm *sa,
                     double *level, unsigned char *night);

/* Whether the figure's latest change is a regression (the series' state on its latest night). */
bool tb_series_regressed(const struct tb_series_alarm *sa, enum tb_hfig f);

/* The energy figures' changes, for the note of night i of the series ("" none): "energy ratio
 * +4.1% +- 1.2% (flagged 2026-11-12)" at the night a change began. */
void tb_history_alarm_note(const struct tb_series_alarm *sa, const struct tb_log_rec *const *n,
                           size_t i, char *buf, size_t len);

/* What changed with a change that began at night b, against the nights before it: the kernel
 * images (the logs' images_sha256, from s), the GPU's temperature, a throttle cause, the
 * ceiling; "" none seen. */
void tb_history_alarm_conditions(const struct tb_log_rec *const *n, size_t b,
                                 const struct tb_logset *s, char *buf, size_t len);

/* The series' state for the metrics file: one sample set per figure with nights, into om
 * (room for TB_HFIG_N); returns how many. r: the series' first row (its labels). */
size_t tb_history_alarm_metrics(const struct tb_series_alarm *sa,
                                const struct tb_log_rec *const *n, struct tb_om_alarm *om);

#endif
