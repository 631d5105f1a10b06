/* rerun_replay.c: the rerun learner (src/energy/rerun.c) replayed over a folder of logs a
 * card already wrote, night by night: each log's rows against the logs before it, as a run
 * at that log's start would have learned them. A re-analysis of logs, not a measurement: it
 * runs no kernel and reads no sensor. Not built by make; by hand, after `make meter-sim`:
 *   cc -std=gnu11 -Isrc -Itests tests/sim/rerun_replay.c build/libtb.a -lz -lconfig -lm \
 *      -lpthread -ldl -o build/rerun-replay
 *   build/rerun-replay factors 3 4 5    # each cycles' count: the old interval to the new
 *   build/rerun-replay EARLIER_DIR LOG  # LOG's rows with what EARLIER_DIR's logs teach
 * A row's line: kernel, ratio, cycles, capped, and the spread its kind learns (the capped
 * pool for a capped row: rerun.h's cap), and the rerun interval it gives with the night's
 * own per-cycle spread read back from its energy_ratio_ci95 over its cycles, at the degrees
 * the learner reads it with (tb_rerun_row_df: the row's energy_ratio_df, else its log's
 * definition's). Logs from before 2026-11-28's definition of energy_ratio_ci95 hold sqrt(2)
 * t(n - 1) times the mean's sd: scale them by `factors`' figure first
 * (doc/results/h200-2026-11-28-cal49.md says how it was done). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "energy/rerun.h"
#include "lib/stats.h"
#include "log/logread.h"

static size_t dfk(double df)
{
    return df >= 1e6 ? 1000000 : df < 1 ? 1 : (size_t)df;
}

static int factors(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        int n = atoi(argv[i]);
        if (n < 2)
            return fprintf(stderr, "rerun-replay: cycles '%s': 2 or more\n", argv[i]), 2;
        printf("%d %.6f\n", n, tb_t95(dfk(tb_rerun_cycles_df(n))) /
                                   (sqrt(2.0) * tb_t95((size_t)n - 1)));
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "factors"))
        return factors(argc, argv);
    if (argc != 3)
        return fprintf(stderr, "usage: rerun-replay EARLIER_DIR LOG | factors N...\n"), 2;
    struct tb_config cfg;
    tb_config_init(&cfg);
    struct tb_power_cfg pc = cfg.board.power;
    tb_config_free(&cfg);
    struct tb_logset set;
    tb_logset_init(&set, "rerun-replay");
    if (tb_logread(&set, argv[2]) < 0 || set.nlogs != 1 || !set.logs[0].readable)
        return fprintf(stderr, "rerun-replay: cannot read '%s'\n", argv[2]), 1;
    tb_logset_fill_device_ids(&set);
    const struct tb_log_info *li = &set.logs[0];
    char line[1024];
    struct tb_rerun *r = tb_rerun_learn(argv[1], li->host, li->host_id, li->board, li->images,
                                        line, sizeof(line));
    if (!r)
        return fprintf(stderr, "rerun-replay: out of memory\n"), 1;
    printf("# %s\n", line);
    for (size_t i = 0; i < set.n; i++) {
        struct tb_log_rec me = set.v[i];
        if (!(me.energy_ratio > 0) || !isfinite(me.energy_ratio_ci95) ||
            me.energy_ratio_ci95 <= 0 || me.power_cycles < 2)
            continue;
        struct tb_rerun_sd sd, kind;
        tb_rerun_sd(r, &me, &pc, &sd);
        if (me.power_capped)
            tb_rerun_as_capped(&sd, &kind);
        else
            kind = sd;
        int n = me.power_cycles;
        double df = tb_rerun_row_df(&me);   /* the row's, or its log's definition's */
        double own = tb_rerun_own_var_df(me.energy_ratio, me.energy_ratio_ci95, df);
        double hw = tb_rerun_halfwidth(&kind, sqrt(own * n), df, n);
        printf("%s %dx%d ratio %.4f cycles %d capped %d learned_runs %d pairs %d "
               "between_sd_pct %.3f within_sd_pct %.3f rerun_hw_pct %.3f rerun_hw %.4f\n",
               me.kernel, me.bx, me.by, me.energy_ratio, n, me.power_capped, kind.runs,
               kind.pairs, 100 * kind.ratio, 100 * kind.within_rel_sd, 100 * hw,
               hw * me.energy_ratio);
    }
    tb_rerun_free(r);
    tb_logset_free(&set);
    return 0;
}
