/* outcome.h: how one measured point ended, and THE rule for whether it counts as a result.
 * A point's outcome is two values of log_columns.h: its status (did it measure) and its
 * verification (was the output right). Every reader of results (the runner's summary, tune,
 * compare, history, the pages and plots) asks tb_outcome_counts() and nothing else, so a
 * wrong kernel can never be a best point, a baseline, a history value or a tuned block.
 * Not here: what the commands do with rows that do not count (they list them apart). */
#ifndef TB_OUTCOME_H
#define TB_OUTCOME_H

#include <stdbool.h>

#include "log/log_columns.h"

enum tb_status {
#define X(id, text, doc) TB_STATUS_##id,
    TB_STATUS_VALUES(X)
#undef X
    TB_STATUS_N
};

enum tb_verified {
#define X(id, text, doc) TB_VERIFIED_##id,
    TB_VERIFIED_VALUES(X)
#undef X
    TB_VERIFIED_N
};

/* The text written in the log ("ok", "FAIL", ...). */
const char *tb_status_name(enum tb_status s);
const char *tb_verified_name(enum tb_verified v);
/* Reads a log's text back; false (and *out untouched) for a text that is no value. */
bool tb_status_parse(const char *text, enum tb_status *out);
bool tb_verified_parse(const char *text, enum tb_verified *out);

/* THE rule: a row counts as a result when it measured (ok, suspect, or an old log without
 * a status) and its output was not found wrong. */
bool tb_outcome_counts(enum tb_status s, enum tb_verified v);
/* A row that measured but whose output was wrong: listed apart as a failed verification. */
bool tb_outcome_wrong(enum tb_status s, enum tb_verified v);

#endif
