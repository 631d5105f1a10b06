/* rerun_sim.h: meter-sim's successive nights for the rerun interval (#49). Each night's
 * true ratio is --ratio times e^(B z), z standard normal, B --between-pct: the board's state
 * from night to night, which no night's cycles see; with --switch-pct S the card is also in
 * one of two states each night, at random, S% apart (#57). --cards K splits the nights into
 * K cards, each learning from its own nights alone from its first (the board file's prior
 * alone), and --rerun-from F judges each card's nights from its F-th on (0: its first;
 * default 5, as below). The nights run in order and feed the
 * learner as a run's nights do: each night's figure (its ratio, its cycles' interval, its
 * cycles) becomes an earlier run of the series, newest first, the newest TB_RERUN_MAX_RUNS
 * kept, and the next night's spread is tb_rerun_pool's over them (the function tb_rerun_sd
 * calls once it has read the logs), handed to the meter as a run hands it. Judged: whether
 * night j's energy_ratio_rerun_ci95 holds night j+1's ratio, from the night with five
 * earlier runs on (the criterion's "after five runs"); against an interval that knew both
 * true spreads: 1.96 sqrt(2 B^2 + 2 v), v the variance of a night's ratio about its own
 * truth over the nights simulated. Header-only, included by nights.h once. */
#ifndef TB_SIM_RERUN_SIM_H
#define TB_SIM_RERUN_SIM_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "energy/rerun.h"
#include "lib/stats.h"
#include "sim/sensor_sim.h"

#define SIM_RERUN_FROM 5   /* nights judged once this many earlier runs are learned from */
#define SIM_RERUN_BY_NIGHT 5   /* coverage said for each of a card's first nights */

static struct sim_rerun {
    double between;                           /* B, a relative sd */
    double half_switch;                       /* ln(1 + S) / 2: each state's offset */
    int per_card, from;                       /* nights a card; judged from its from-th */
    unsigned long long rng;
    struct tb_rerun_run hist[TB_RERUN_MAX_RUNS];   /* newest first */
    int nh;
    struct tb_rerun_sd sd;                    /* the spread handed to the night */
    double *ratio, *rerun_ci, *truth;         /* per night; NAN: no figure */
    int *learned;                             /* earlier runs its spread came from */
    int n, cap;
} sim_rr;

static inline void sim_rerun_start(double between_pct, double switch_pct, int cards, int from,
                                   unsigned long long seed, int nights)
{
    free(sim_rr.ratio);
    free(sim_rr.learned);
    memset(&sim_rr, 0, sizeof(sim_rr));
    sim_rr.between = between_pct / 100;
    sim_rr.half_switch = log1p(switch_pct / 100) / 2;
    sim_rr.per_card = cards > 1 ? nights / cards : nights;
    sim_rr.per_card += sim_rr.per_card < 1;
    sim_rr.from = from;
    sim_rr.rng = seed * 0xD1B54A32D192ED03ULL + 0x8CB92BA72F3D8DD7ULL;
    sim_rr.cap = nights;
    sim_rr.ratio = calloc((size_t)nights * 3 + 1, sizeof(double));
    sim_rr.learned = calloc((size_t)nights + 1, sizeof(int));
    if (sim_rr.ratio) {
        sim_rr.rerun_ci = sim_rr.ratio + nights;
        sim_rr.truth = sim_rr.rerun_ci + nights;
    }
}

/* This night's true ratio: the state (one of two where they differ) and the spread. */
static inline double sim_rerun_truth(double ratio)
{
    double state = 0;
    if (sim_rr.half_switch > 0)
        state = sim_uniform(&sim_rr.rng) < 0.5 ? -sim_rr.half_switch : sim_rr.half_switch;
    return ratio * exp(state + sim_rr.between * sim_gauss(&sim_rr.rng));
}

/* The spread the night is handed: the pool of its card's earlier nights, as a run learns
 * it (a card's first night: none, the board file's prior alone). */
static inline const struct tb_rerun_sd *sim_rerun_between(const struct tb_power_cfg *pc)
{
    if (sim_rr.n % sim_rr.per_card == 0)
        sim_rr.nh = 0;
    tb_rerun_pool(sim_rr.hist, (size_t)sim_rr.nh, pc, &sim_rr.sd);
    return &sim_rr.sd;
}

/* The night's figures (ratio NAN: none), kept for the judgement and, with an interval of
 * its cycles, learned from by the nights after it. */
static inline void sim_rerun_record(double ratio, double ci, double rerun_ci, double truth,
                                    int cycles)
{
    if (!sim_rr.ratio || sim_rr.n >= sim_rr.cap)
        return;
    sim_rr.ratio[sim_rr.n] = ratio;
    sim_rr.rerun_ci[sim_rr.n] = rerun_ci;
    sim_rr.truth[sim_rr.n] = truth;
    sim_rr.learned[sim_rr.n++] = sim_rr.sd.runs;
    if (!(ratio > 0) || !isfinite(ci) || cycles < 2)
        return;
    memmove(sim_rr.hist + 1, sim_rr.hist, sizeof(sim_rr.hist) - sizeof(sim_rr.hist[0]));
    sim_rr.hist[0] = (struct tb_rerun_run){ 0, ratio, ratio, tb_rerun_own_var(ratio, ci, cycles),
                                            cycles, tb_rerun_cycles_df(cycles) };
    sim_rr.nh += sim_rr.nh < TB_RERUN_MAX_RUNS;
}

/* Whether night j is judged: its card's from-th night or later (by default, once it
 * learned from SIM_RERUN_FROM earlier runs), the next night of its card with a figure. */
static inline bool sim_rerun_judged(int j)
{
    int i = j % sim_rr.per_card;
    if (j + 1 >= sim_rr.n || i + 1 >= sim_rr.per_card || !isfinite(sim_rr.ratio[j]) ||
        !isfinite(sim_rr.ratio[j + 1]) || !isfinite(sim_rr.rerun_ci[j]))
        return false;
    return sim_rr.from >= 0 ? i >= sim_rr.from : sim_rr.learned[j] >= SIM_RERUN_FROM;
}

/* The summary of the nights judged: the coverage of the next night's ratio (%), the median
 * half-width (% of the ratio), the oracle's (%: 1.96 sqrt(2 B^2 + 2 v + S'^2), S'^2 / 2 the
 * two states' variance), and the coverage of each of a card's first SIM_RERUN_BY_NIGHT
 * nights (by_night; NAN where none is judged). */
struct sim_rerun_said {
    double coverage, hw_median, oracle, by_night[SIM_RERUN_BY_NIGHT];
};

static inline void sim_rerun_summary(struct sim_rerun_said *o)
{
    o->coverage = o->hw_median = o->oracle = NAN;
    int n = sim_rr.n, judged = 0, covered = 0, ok = 0, nj[SIM_RERUN_BY_NIGHT] = { 0 };
    int nc[SIM_RERUN_BY_NIGHT] = { 0 };
    double *hw = calloc((size_t)n + 1, sizeof(double)), v = 0;
    for (int j = 0; hw && j < n; j++) {
        if (isfinite(sim_rr.ratio[j])) {
            double d = sim_rr.ratio[j] / sim_rr.truth[j] - 1;
            v += d * d;
            ok++;
        }
        if (!sim_rerun_judged(j))
            continue;
        bool in = fabs(sim_rr.ratio[j + 1] - sim_rr.ratio[j]) <= sim_rr.rerun_ci[j];
        int i = j % sim_rr.per_card;
        if (i < SIM_RERUN_BY_NIGHT) {
            nj[i]++;
            nc[i] += in;
        }
        covered += in;
        hw[judged++] = sim_rr.rerun_ci[j] / sim_rr.ratio[j];
    }
    for (int i = 0; i < SIM_RERUN_BY_NIGHT; i++)
        o->by_night[i] = nj[i] ? 100.0 * nc[i] / nj[i] : NAN;
    if (judged) {
        o->coverage = 100.0 * covered / judged;
        o->hw_median = 100 * tb_median(hw, (size_t)judged);
    }
    double s2 = 2 * sim_rr.half_switch * sim_rr.half_switch;   /* two states' difference^2 / 2 */
    if (ok)
        o->oracle = 100 * 1.96 * sqrt(2 * sim_rr.between * sim_rr.between + 2 * v / ok + s2);
    free(hw);
}

#endif
