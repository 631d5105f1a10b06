/* alarm_night.c: see alarm_night.h. The logs are found as retention finds them (their own
 * identity lines, never their names) and read as history reads them, bounded; this night's
 * series are judged over all their nights there. */
#include "report/alarm_night.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/logread.h"
#include "log/retention.h"
#include "report/history_alarm.h"
#include "lib/util.h"

struct tb_alarm_night {
    struct tb_logset set;
    struct tb_om_alarm *om;
    size_t n;
};

/* The logs of log_path's host and board in its folder into an->set; the night of log_path
 * into night. 0, or -1 with why said. */
static int read_logs(struct tb_alarm_night *an, const char *log_path, const char *board,
                     char *night, char *why, size_t whylen)
{
    char dir[PATH_MAX];
    tb_strlcpy(dir, log_path, sizeof(dir));
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        tb_strlcpy(dir, ".", sizeof(dir));
    struct tb_log_identity id;
    int rc = tb_log_identity(log_path, &id);
    struct tb_log_entry *v = NULL;
    long got = rc < 0 ? rc : tb_logs_ours(dir, id.host, id.machine_id, board, NULL, &v);
    if (got < 0) {
        snprintf(why, whylen, "cannot read '%s': %s", rc < 0 ? log_path : dir,
                 strerror((int)-got));
        return -1;
    }
    an->set.max_rows_per_log = TB_ALARM_NIGHT_ROWS_PER_LOG;
    an->set.max_rows = TB_ALARM_NIGHT_ROWS;
    an->set.max_bytes_per_log = TB_ALARM_NIGHT_BYTES_PER_LOG;
    an->set.bounds_quiet = true;
    for (long k = 0; k < got && k < TB_ALARM_NIGHT_LOGS && an->set.n < an->set.max_rows &&
                     an->set.bytes_read < TB_ALARM_NIGHT_BYTES; k++) {
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof(path), "%s/%s", dir, v[k].name);
        size_t before = an->set.nlogs;
        tb_logread(&an->set, path);
        if (an->set.nlogs > before && !strcmp(v[k].name, strrchr(log_path, '/')
                                                          ? strrchr(log_path, '/') + 1
                                                          : log_path))
            tb_strlcpy(night, an->set.logs[before].night, 12);
    }
    free(v);
    tb_logset_fill_ids(&an->set);
    tb_logset_fill_device_ids(&an->set);
    if (!night[0])
        snprintf(why, whylen, "'%s' is not among its folder's logs of this host and board",
                 log_path);
    return night[0] ? 0 : -1;
}

/* Each series whose latest night is night: its states into an->om. */
static int judge_series(struct tb_alarm_night *an, const char *night)
{
    struct tb_log_rec *v = an->set.v;
    size_t k = 0;
    for (size_t i = 0; i < an->set.n; i++)
        if (tb_log_usable(&v[i]) && v[i].night[0])
            v[k++] = v[i];
    an->set.n = k;
    tb_sort(v, k, sizeof(*v), tb_history_night_cmp);
    const struct tb_log_rec **best = malloc((k ? k : 1) * sizeof(*best));
    an->om = calloc((k ? k : 1) * TB_HFIG_N, sizeof(*an->om));
    if (!best || !an->om) {
        free(best);
        return -1;
    }
    for (size_t i = 0; i < k;) {
        size_t n = 0, j = i;
        for (; j < k && tb_history_series_cmp(&v[i], &v[j]) == 0; j++)
            if (n == 0 || strcmp(best[n - 1]->night, v[j].night))
                best[n++] = &v[j];   /* the first of a night is its best */
        struct tb_series_alarm sa;
        if (!strcmp(best[n - 1]->night, night)) {
            if (tb_history_alarm(best, n, &sa, NULL, NULL) < 0) {
                free(best);
                return -1;
            }
            an->n += tb_history_alarm_metrics(&sa, best, an->om + an->n);
        }
        i = j;
    }
    free(best);
    return 0;
}

struct tb_alarm_night *tb_alarm_night(const char *log_path, const char *board, char *why,
                                      size_t whylen)
{
    struct tb_alarm_night *an = calloc(1, sizeof(*an));
    if (!an)
        return NULL;
    why[0] = '\0';
    tb_logset_init(&an->set, "run --metrics");
    char night[12] = "";
    if (read_logs(an, log_path, board, night, why, whylen) == 0 && judge_series(an, night) < 0) {
        tb_alarm_night_free(an);
        return NULL;
    }
    return an;
}

const struct tb_om_alarm *tb_alarm_night_states(const struct tb_alarm_night *an, size_t *n)
{
    *n = an ? an->n : 0;
    return an ? an->om : NULL;
}

void tb_alarm_night_free(struct tb_alarm_night *an)
{
    if (!an)
        return;
    tb_logset_free(&an->set);
    free(an->om);
    free(an);
}
