/* outcome.c: see outcome.h. The values and their texts come from log_columns.h only. */
#include "log/outcome.h"

#include <string.h>

static const char *const status_names[] = {
#define X(id, text, doc) text,
    TB_STATUS_VALUES(X)
#undef X
};

static const char *const verified_names[] = {
#define X(id, text, doc) text,
    TB_VERIFIED_VALUES(X)
#undef X
};

const char *tb_status_name(enum tb_status s)
{
    return (unsigned)s < TB_STATUS_N ? status_names[s] : "?";
}

const char *tb_verified_name(enum tb_verified v)
{
    return (unsigned)v < TB_VERIFIED_N ? verified_names[v] : "?";
}

bool tb_status_parse(const char *text, enum tb_status *out)
{
    for (unsigned i = 0; i < TB_STATUS_N; i++)
        if (!strcmp(text, status_names[i])) {
            *out = (enum tb_status)i;
            return true;
        }
    return false;
}

bool tb_verified_parse(const char *text, enum tb_verified *out)
{
    for (unsigned i = 0; i < TB_VERIFIED_N; i++)
        if (!strcmp(text, verified_names[i])) {
            *out = (enum tb_verified)i;
            return true;
        }
    return false;
}

static bool measured(enum tb_status s)
{
    return s == TB_STATUS_OK || s == TB_STATUS_SUSPECT || s == TB_STATUS_NONE;
}

bool tb_outcome_counts(enum tb_status s, enum tb_verified v)
{
    return measured(s) && v != TB_VERIFIED_FAIL;
}

bool tb_outcome_wrong(enum tb_status s, enum tb_verified v)
{
    return measured(s) && v == TB_VERIFIED_FAIL;
}
