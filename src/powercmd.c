/* powercmd.c: see powercmd.h. Readings are printed as they arrive, from the sampler's
 * ring, so what is printed is exactly what a run would integrate. */
#include "powercmd.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "power/power.h"
#include "util.h"

static void print_sample(FILE *out, bool csv, const char *source, const struct tb_power_rails *r,
                         const struct tb_power_sample *s, double elapsed)
{
    if (csv) {
        for (int i = 0; i < r->n; i++) {
            fprintf(out, "%.3f,%s,%s,", elapsed, source, r->name[i]);
            if (!isnan(s->rail_mw[i]))
                fprintf(out, "%.0f", s->rail_mw[i]);
            fputc('\n', out);
        }
    } else {
        fprintf(out, "%8.3f", elapsed);
        for (int i = 0; i < r->n; i++) {
            if (isnan(s->rail_mw[i]))
                fprintf(out, " %*s", (int)(strlen(r->name[i]) > 8 ? strlen(r->name[i]) : 8), "-");
            else
                fprintf(out, " %*.0f", (int)(strlen(r->name[i]) > 8 ? strlen(r->name[i]) : 8),
                        s->rail_mw[i]);
        }
        if (!isnan(s->gpu_load_pct))
            fprintf(out, "  gpu %3.0f%%", s->gpu_load_pct);
        if (!isnan(s->gpu_clock_mhz))
            fprintf(out, " @%.0f MHz", s->gpu_clock_mhz);
        if (!isnan(s->emc_load_pct))
            fprintf(out, "  emc %3.0f%%", s->emc_load_pct);
        if (!isnan(s->gpu_temp_c))
            fprintf(out, "  gpu %.1f C", s->gpu_temp_c);
        if (!isnan(s->energy_mj))
            fprintf(out, "  energy %.3f J", s->energy_mj * 1e-3);
        fputc('\n', out);
    }
    fflush(out);
}

int tb_power_command(const struct tb_power_cfg *pc, const char *board, double seconds, bool csv,
                     FILE *out)
{
    char why[512];
    const struct tb_power_ops *ops = tb_power_pick(pc->source, pc, why, sizeof(why));
    if (!ops) {
        error("%s", why);
        return TB_EXIT_FAIL;
    }
    if (ops == &tb_power_none) {
        error("no power source to sample on board '%s'%s%s (see 'transpose-bench list')", board,
              why[0] ? ": " : "", why);
        return TB_EXIT_FAIL;
    }
    struct tb_sampler *s;
    int interval = pc->interval_ms;
    size_t cap = (size_t)(seconds * 1000 / interval) + 64;
    if (tb_sampler_start(&s, ops, pc, interval, cap, why, sizeof(why)) < 0) {
        error("power source '%s' cannot start: %s", ops->name, why);
        return TB_EXIT_FAIL;
    }
    const struct tb_power_rails *rails = tb_sampler_rails(s);
    if (csv) {
        fprintf(out, "elapsed_s,source,rail,power_mw\n");
    } else {
        fprintf(out, "source %s, board %s, every %d ms (mW)\n%8s", ops->name, board, interval,
                "t_s");
        for (int i = 0; i < rails->n; i++)
            fprintf(out, " %8s", rails->name[i]);
        fputc('\n', out);
    }
    int64_t t0 = tb_now_ns(), end = t0 + (int64_t)(seconds * 1e9), last = t0 - 1;
    size_t printed = 0;
    for (;;) {
        int64_t now = tb_now_ns();
        size_t n;
        struct tb_power_sample *buf = tb_sampler_window(s, last + 1, now, 0, &n);
        for (size_t i = 0; i < n; i++) {
            if (buf[i].t_ns <= last)
                continue;
            print_sample(out, csv, ops->name, rails, &buf[i], (double)(buf[i].t_ns - t0) * 1e-9);
            last = buf[i].t_ns;
            printed++;
        }
        free(buf);
        if (now >= end || tb_sampler_failed(s))
            break;
        struct timespec ts = { 0, (long)interval * 1000000L / 2 };
        nanosleep(&ts, NULL);
    }
    bool failed = tb_sampler_failed(s);
    tb_sampler_stop(s, NULL);
    if (printed == 0) {
        error("power source '%s' gave no reading in %.1f s", ops->name, seconds);
        return TB_EXIT_FAIL;
    }
    return failed ? TB_EXIT_FAIL : TB_EXIT_OK;
}
