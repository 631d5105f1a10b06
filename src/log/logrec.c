/* logrec.c: see logread.h. What a row read from a log is, once read: whether it is a result
 * (the one outcome rule) or a wrong one, a writer's row as a reader sees it, and how hosts,
 * devices, caps and mode steps compare and fill in across a set of logs. Not here: reading
 * a file (logread.c, logbytes.c). */
#include "log/logread.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/csvlog.h"
#include "log/log_meta.h"
#include "lib/stats.h"
#include "lib/util.h"

bool tb_log_gbps_impossible(double g)
{
    return !isnan(g) && !(g >= TB_LOGREAD_MIN_GBPS && g <= TB_LOGREAD_MAX_GBPS);
}

/* here, beside the bandwidth's rule, so that the reader (logread.c) calls this file and
 * this file nothing of the reader's (scripts/call-check.sh) */
int tb_log_count(double v, double max)
{
    return v >= 1 && v <= max ? (int)v : 0;
}

bool tb_log_usable(const struct tb_log_rec *r)
{
    return !r->impossible && !r->outcome_unknown && !r->failed_night && !isnan(r->gbps) &&
           tb_outcome_counts(r->status, r->verified);
}

bool tb_log_wrong(const struct tb_log_rec *r)
{
    return r->outcome_unknown || tb_outcome_wrong(r->status, r->verified);
}

void tb_log_rec_from_row(const struct tb_row *row, struct tb_log_rec *r)
{
    memset(r, 0, sizeof(*r));
#define STR(dst, src) tb_strlcpy(dst, (src) ? (src) : "", sizeof(dst))
    STR(r->board, row->board);
    STR(r->device, row->device);
    STR(r->kernel, row->kernel);
    STR(r->host, row->host);
    STR(r->elem, row->elem);
    STR(r->power_mode, row->power_mode);
#undef STR
    r->rows = (long)row->rows;
    r->cols = (long)row->cols;
    r->bx = (int)row->block_x;
    r->by = (int)row->block_y;
    r->gbps = row->gbps;
    r->frac_peak = row->frac_peak;
    r->frac_copy = row->frac_copy;
    r->rel_sem = row->rel_sem;
    /* the energy figures kept, by name (energy_figures.h): the row's as written, a count by
     * the reader's rule */
#define KEEP_NO(name, max)
#define KEEP_POS(name, max) r->name = row->name;
#define KEEP_SIGNED(name, max) r->name = row->name;
#define KEEP_COUNT(name, max) r->name = tb_log_count(row->name, max);
#define KEEP(name, keep, max) KEEP_##keep(name, max)
    TB_ENERGY_FIGURES(KEEP)
#undef KEEP
#undef KEEP_NO
#undef KEEP_POS
#undef KEEP_SIGNED
#undef KEEP_COUNT
    /* no rerun interval: the cycles' own, as the reader takes a log's from before that
     * column (logread.c) */
    if (!isfinite(r->energy_ratio_rerun_ci95))
        r->energy_ratio_rerun_ci95 = r->energy_ratio_ci95;
    r->power_capped = tb_power_capped_majority(row->power_capped_blocks, row->power_cycles);
    r->gpu_cap_mhz = row->gpu_cap_asked_mhz;
    r->emc_cap_mhz = row->emc_cap_asked_mhz;
    r->peak_gbps = row->peak_gbps;
    tb_strlcpy(r->throttle_cause, row->throttle_cause ? row->throttle_cause : "",
               sizeof(r->throttle_cause));
    tb_strlcpy(r->power_note, row->power_note ? row->power_note : "", sizeof(r->power_note));
    r->status = row->status;
    r->verified = row->verified;
    r->impossible = tb_log_gbps_impossible(r->gbps);
}

int tb_log_host_cmp(const char *host_a, const char *id_a, const char *host_b, const char *id_b)
{
    int c = strcmp(host_a, host_b);
    return c ? c : strcmp(id_a, id_b);
}

const char *tb_log_caps_text(char *buf, size_t len, double gpu_cap_mhz, double emc_cap_mhz)
{
    bool g = isfinite(gpu_cap_mhz), e = isfinite(emc_cap_mhz);
    if (g && e)
        snprintf(buf, len, "GPU cap %.0f MHz, EMC cap %.0f MHz", gpu_cap_mhz, emc_cap_mhz);
    else if (g || e)
        snprintf(buf, len, "%s cap %.0f MHz", g ? "GPU" : "EMC", g ? gpu_cap_mhz : emc_cap_mhz);
    else if (len)
        buf[0] = '\0';
    return buf;
}

/* Two caps, NAN (none asked) after every cap. */
static int cmp_cap(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

int tb_log_step_cmp(const struct tb_log_rec *x, const struct tb_log_rec *y)
{
    int c;
    if ((c = strcmp(x->power_mode, y->power_mode)) ||
        (c = cmp_cap(x->gpu_cap_mhz, y->gpu_cap_mhz)))
        return c;
    return cmp_cap(x->emc_cap_mhz, y->emc_cap_mhz);
}

void tb_logset_fill_ids(struct tb_logset *s)
{
    const char *last_host = NULL, *last_id = NULL;   /* rows come in runs of one log */
    for (size_t i = 0; i < s->n; i++) {
        struct tb_log_rec *r = &s->v[i];
        if (r->host_id[0])
            continue;
        if (last_host && !strcmp(last_host, r->host)) {
            if (last_id)
                tb_strlcpy(r->host_id, last_id, sizeof(r->host_id));
            continue;
        }
        const char *id = NULL;
        bool several = false;
        for (size_t j = 0; j < s->nlogs && !several; j++) {
            const struct tb_log_info *l = &s->logs[j];
            if (!l->host_id[0] || strcmp(l->host, r->host))
                continue;
            several = id && strcmp(id, l->host_id);
            id = l->host_id;
        }
        last_host = r->host;
        last_id = id && !several ? id : NULL;
        if (last_id)
            tb_strlcpy(r->host_id, last_id, sizeof(r->host_id));
    }
}

/* The id logged by the one device of r's host and device name, or NULL (none, several). */
static const char *one_device_id(const struct tb_logset *s, const struct tb_log_rec *r)
{
    const char *id = NULL;
    for (size_t j = 0; j < s->nlogs; j++) {
        const struct tb_log_info *l = &s->logs[j];
        if (!l->device_id[0] || strcmp(l->device, r->device) ||
            tb_log_host_cmp(l->host, l->host_id, r->host, r->host_id))
            continue;
        if (id && strcmp(id, l->device_id))
            return NULL;
        id = l->device_id;
    }
    return id;
}

void tb_logset_fill_device_ids(struct tb_logset *s)
{
    const struct tb_log_rec *last = NULL;   /* rows come in runs of one log */
    const char *last_id = NULL;
    for (size_t i = 0; i < s->n; i++) {
        struct tb_log_rec *r = &s->v[i];
        if (r->device_id[0])
            continue;
        if (!last || strcmp(last->device, r->device) || strcmp(last->host, r->host) ||
            strcmp(last->host_id, r->host_id)) {
            last = r;
            last_id = one_device_id(s, r);
        }
        if (last_id)
            tb_strlcpy(r->device_id, last_id, sizeof(r->device_id));
    }
}

int tb_log_device_cmp(const struct tb_log_rec *x, const struct tb_log_rec *y)
{
    int c = strcmp(x->device, y->device);
    return c || !x->device_id[0] || !y->device_id[0] ? c : strcmp(x->device_id, y->device_id);
}
