/* alarm_night.h: `run --metrics`'s regression state: the night just logged judged with the
 * nights before it, as `history` judges them (history_alarm.h), from the logs of its host
 * and board in its log's folder. Not here: writing the file (format/openmetrics.h), which
 * logs are this board's (log/retention.h). */
#ifndef TB_ALARM_NIGHT_H
#define TB_ALARM_NIGHT_H

#include <stddef.h>

#include "format/openmetrics.h"

/* The newest logs read: 120 nights, four months of a nightly board; rows and bytes bounded
 * per log and in all as the rerun learner bounds its reading every night (energy/rerun.h's
 * TB_RERUN_MAX_*: a tune log's thousands of rows are not what a point's nights are). */
#define TB_ALARM_NIGHT_LOGS 120
#define TB_ALARM_NIGHT_ROWS_PER_LOG 20000
#define TB_ALARM_NIGHT_ROWS 100000
#define TB_ALARM_NIGHT_BYTES_PER_LOG (32ULL << 20)
#define TB_ALARM_NIGHT_BYTES (128ULL << 20)

struct tb_alarm_night;

/* Reads the logs of log_path's host and board (its identity lines) in its folder, newest
 * first, and judges each series whose latest night is log_path's. NULL out of memory; a
 * folder or log that cannot be read gives no series (said in *why, "" when all went well). */
struct tb_alarm_night *tb_alarm_night(const char *log_path, const char *board, char *why,
                                      size_t whylen);
/* Its series' states (tb_openmetrics_alarms_write's), valid until it is freed. */
const struct tb_om_alarm *tb_alarm_night_states(const struct tb_alarm_night *an, size_t *n);
void tb_alarm_night_free(struct tb_alarm_night *an);

#endif
