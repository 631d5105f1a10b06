/* run_summary.c: see run_summary.h. A point that does not count as a result (tb_log_usable:
 * wrong output, not measured) shows no figures here; the log keeps them. Text from a row
 * (a kernel, a status) goes through the table writer, so it never puts a control character
 * on the terminal. */
#include "cmd/run_summary.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format/table.h"
#include "lib/util.h"

/* Per size, each point's figures. */
static void print_points(const struct tb_runner_result *res, bool with_power, bool with_modes)
{
    struct tb_table_col cols[] = {
        /* a mode sweep's rows of one point, one per step: which is which */
        { .name = "power_mode", .head = "power mode", .kind = 'S', .width = 16, .cut = true,
          .data_only = !with_modes },
        { .name = "gpu_cap_asked_mhz", .head = "GPU cap", .kind = 'N', .dec = 0, .width = 7,
          .data_only = !with_modes },
        { .name = "emc_cap_asked_mhz", .head = "EMC cap", .kind = 'N', .dec = 0, .width = 7,
          .data_only = !with_modes },
        { .name = "kernel", .head = "kernel", .kind = 'S', .width = 16 },
        { .name = "block", .head = "block", .kind = 'S', .width = 9 },
        { .name = "gbps", .head = "GB/s", .kind = 'N', .dec = 1, .width = 10 },
        { .name = "frac_copy", .head = "of copy", .kind = 'N', .dec = 3, .width = 8 },
        { .name = "frac_peak", .head = "of peak", .kind = 'N', .dec = 3, .width = 8 },
        { .name = "gbps_per_w", .head = "GB/s/W", .kind = 'N', .dec = 3, .width = 8,
          .data_only = !with_power },
        { .name = "verified", .head = "verified", .kind = 'S', .width = 8 },
        { .name = "status", .head = "status", .kind = 'S' },
    };
    struct tb_doc d;
    struct tb_table t;
    tb_doc_begin(&d, stdout, TB_FMT_TABLE, "run");
    tb_table_begin(&t, &d, "points", "", cols, ARRAY_SIZE(cols));
    for (size_t i = 0; i < res->n_rows; i++) {
        const struct tb_log_rec *s = &res->rows[i];
        bool counts = tb_log_usable(s);
        if (i == 0 || s->rows != res->rows[i - 1].rows || s->cols != res->rows[i - 1].cols) {
            char h[64];
            snprintf(h, sizeof(h), "%ld x %ld", s->rows, s->cols);
            tb_table_section(&t, h);
        }
        char blk[24] = "-";
        if (s->bx)
            snprintf(blk, sizeof(blk), "%dx%d", s->bx, s->by);
        /* GB/s as the log holds it (2 decimals), then shown with 1: compare, reading the
         * log, shows the same figure (rounding the raw value once gave 2.9 here, 3.0 there) */
        double gbps = counts && isfinite(s->gbps) ? round(s->gbps * 100) / 100 : NAN;
        struct tb_cell c[] = { TB_TEXT(s->power_mode), TB_NUM(s->gpu_cap_mhz),
                               TB_NUM(s->emc_cap_mhz), TB_TEXT(s->kernel), TB_TEXT(blk), TB_NUM(gbps),
                               TB_NUM(counts ? s->frac_copy : NAN),
                               TB_NUM(counts ? s->frac_peak : NAN),
                               TB_NUM(counts ? s->gbps_per_w : NAN),
                               TB_TEXT(tb_verified_name(s->verified)),
                               TB_TEXT(tb_status_name(s->status)) };
        tb_table_row(&t, c);
    }
    tb_table_end(&t);
    tb_doc_end(&d);
}

int tb_run_summary(const struct tb_runner_result *res, const char *power_source,
                   bool with_modes, const char *log_path)
{
    print_points(res, power_source != NULL, with_modes);
    if (power_source && !isnan(res->energy.idle_w))
        printf("\nidle power %.2f W (%s)\n", res->energy.idle_w, power_source);
    printf("\n%zu ok, %zu failed, %zu verification failures, %zu skipped\n", res->ok,
           res->failed, res->verify_failed, res->skipped);
    if (log_path)
        printf("log: %s\n", log_path);
    if (fflush(stdout) != 0 || ferror(stdout)) {   /* a summary lost to a full disk */
        error("cannot write the summary: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}
