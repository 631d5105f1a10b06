/* test_power_rerun_kernels.c: a size of several kernels interleaved (C0 K1 C1 K2 C2 ...), as
 * the meter measures it and the rerun learner reads it back (#57): the degrees of freedom of
 * each row's cycles' interval written beside it (energy_ratio_df), the size's pool of the
 * block-to-block spread over its kernels, and the interval's coverage of ideal nights. Not
 * here: one kernel's nights (test_meter_truth.c), the learner's arithmetic
 * (test_power_rerun.c). */
#include "helpers.h"

#include <math.h>
#include <stdlib.h>

#include "energy/meter.h"
#include "energy/meter_internal.h"
#include "energy/rerun.h"
#include "lib/stats.h"
#include "sim/sensor_sim.h"

#define KERNELS 2

/* A night of KERNELS kernels interleaved over cycles cycles: the copy's 2 cycles + 1 blocks
 * (KERNELS = 2) in tr[0].jpb, kernel k's in tr[1 + k].jpb, cycle i of kernel k between copy
 * blocks 2i + k and 2i + k + 1; each ratio against the mean of the two (meter.c's
 * kernel_pair), the size's pool over the kernels (tb_meter_pool), then each kernel's figures
 * into out[k]. */
static void interleaved_night(struct tb_meter *m, struct tb_meter_track tr[1 + KERNELS],
                              int cycles, struct tb_meter_result out[KERNELS])
{
    for (int k = 0; k < KERNELS; k++) {
        struct tb_meter_track *t = &tr[1 + k];
        for (int i = 0; i < cycles; i++) {
            int a = KERNELS * i + k;
            double around = 0.5 * (tr[0].jpb[a] + tr[0].jpb[a + 1]);
            t->ratio[i] = t->jpb[i] / around;
            t->around[i] = around;
            t->cb[i][0] = (short)a;
            t->cb[i][1] = (short)(a + 1);
        }
        t->n = cycles;
    }
    tr[0].n = KERNELS * cycles + 1;
    tb_meter_pool(m, tr, 1 + KERNELS, 0);
    struct tb_meter_end end = { 0 };
    for (int k = 0; k < KERNELS; k++)
        tb_meter_figures(m, &tr[1 + k], &tr[0], false, NAN, NAN, &end, NULL, &out[k]);
}

/* Ideal nights: every block's J per byte off by an independent normal error of one spread
 * (sd, in logs), the kernels' true ratios truth[k]. */
static void ideal_blocks(struct tb_meter_track tr[1 + KERNELS], int cycles, const double *truth,
                         double sd, unsigned long long *seed)
{
    memset(tr, 0, (1 + KERNELS) * sizeof(*tr));
    for (int j = 0; j <= KERNELS * cycles; j++)
        tr[0].jpb[j] = 1e-10 * exp(sd * sim_gauss(seed));
    for (int k = 0; k < KERNELS; k++)
        for (int i = 0; i < cycles; i++)
            tr[1 + k].jpb[i] = truth[k] * 1e-10 * exp(sd * sim_gauss(seed));
}

/* The binomial band of a calibrated 95% interval over n independent trials: 95 -+ 4 sds,
 * in percent (outside it with probability 6e-5). The two kernels' intervals of a night share
 * the copy's blocks and the pool, so they are not independent: n is the nights, each pair at
 * least one trial's worth (the variance of the mean of two Bernoulli trials is at most one's). */
static void band(int n, double *lo, double *hi)
{
    *lo = 95 - 4 * 100 * sqrt(0.95 * 0.05 / n);
    *hi = 2 * 95 - *lo;
}

/* Over nights ideal nights of cycles cycles (seeded), the share in percent of the kernels'
 * intervals that hold their true ratio: the row's (energy_ratio_ci95) into *shipped, its
 * blocks' own alone (the size's pool left out: tb_meter_track_rel with no pool) into *own,
 * and the size's pool's alone (t at its degrees x the pooled block sd x |a|, |a|^2 = 3 / (2n)
 * for a kernel's n blocks and its 2n copy blocks at 1 / (2n) each) into *pooled; *narrower
 * counts the rows narrower than their own interval. */
struct cover { double shipped, own, pooled; int narrower; };
static struct cover interleaved_coverage(int cycles, unsigned long long seed, int nights)
{
    static struct tb_meter_track tr[1 + KERNELS];
    struct tb_power_cfg pc = { .max_rel_ci = 1, .target_rel_ci = 1, .max_power_w = 1e3 };
    struct tb_meter m = { .pc = &pc, .steady = true }, alone = m;
    const double truth[KERNELS] = { 0.8, 1.3 };
    int c[3] = { 0 }, narrower = 0;
    for (int night = 0; night < nights; night++) {
        struct tb_meter_result out[KERNELS];
        ideal_blocks(tr, cycles, truth, 1e-3, &seed);
        interleaved_night(&m, tr, cycles, out);
        double pool = tb_t95_df((double)m.pooled_df) * m.pooled_rel_sd * sqrt(1.5 / cycles);
        for (int k = 0; k < KERNELS; k++) {
            double err = fabs(out[k].energy_ratio - truth[k]) / out[k].energy_ratio;
            double own = tb_meter_track_rel(&alone, &tr[1 + k], &tr[0]);
            c[0] += err * out[k].energy_ratio <= out[k].energy_ratio_ci95;
            c[1] += err <= own;
            c[2] += err <= pool;
            narrower += out[k].energy_ratio_ci95 < own * out[k].energy_ratio * (1 - 1e-12);
        }
    }
    double n = KERNELS * nights;
    return (struct cover){ 100 * c[0] / n, 100 * c[1] / n, 100 * c[2] / n, narrower };
}

/* #57: two kernels interleaved (C0 K1 C1 K2 C2 ...) over ideal nights: each block's J per
 * byte off by an independent normal error of one spread. Each of the interval's two
 * estimates is exact there and holds 95% within the binomial band: the kernel's own (its
 * blocks' residual, t(3n - 2)), and the size's pool at its degrees (4n - 4 below six cycles,
 * 4n - 5 from six: tb_meter_pool), which summed each kernel's residual, the copy's blocks in
 * both, at 6n - 4 degrees: 94.01% at two cycles and 94.08% at three of 40,000 nights. The
 * row's interval is the wider of the two, and from six cycles never below the ratios' lag-1
 * autocovariance's: deliberately conservative (doc/power.md: a kernel whose blocks spread
 * more than the size's others keeps its own; three cycles that happen to agree are not
 * trusted; neighbouring blocks that share a reading), so it is held to the band's lower
 * side and to its own interval, not to the upper side: 97.0% at two cycles, 96.4% at three,
 * 97.1% at six and 96.5% at twelve of 20,000 nights (a row the lag floor sets at the
 * residual's t), where the pool alone holds 94.8-95.1% and the own alone 94.9-95.1% below
 * six cycles (from six its own has the floor too: 96.5%, 96.2%). */
static void test_two_kernels_coverage(void **state)
{
    const int nights = th_quick() ? 500 : 20000;   /* quick (valgrind, qemu): the band follows */
    const int cycles[] = { 2, 3, 6, 12 };
    double lo, hi;
    band(nights, &lo, &hi);
    for (size_t i = 0; i < sizeof(cycles) / sizeof(cycles[0]); i++) {
        int n = cycles[i];
        struct cover c = interleaved_coverage(n, 5700 + (unsigned long long)n, nights);
        print_message("%d cycles: %.2f%% (own %.2f%%, pool %.2f%%)\n", n, c.shipped, c.own,
                      c.pooled);
        if (!(c.pooled >= lo && c.pooled <= hi) || c.narrower ||
            (n < TB_RERUN_TREND_CYCLES && !(c.own >= lo && c.own <= hi)) || !(c.shipped >= lo))
            th_fail("%d cycles: the pool's interval held %.2f%%, the own %.2f%%, the row's "
                    "%.2f%% (%d narrower than the own), band %.2f-%.2f%%", n, c.pooled, c.own,
                    c.shipped, c.narrower, lo, hi);
    }
}

/* The size's pool at two kernels counts each copy block once: 2n kernel blocks and 2n + 1
 * copy blocks less three levels, two means' directions and, from six cycles, the drift:
 * 4n - 4 and 4n - 5 degrees (6n - 4 and 6n - 6 before: each kernel's own summed). Its
 * variance estimate spreads as a chi-square of those degrees says: over N nights the
 * relative variance of pooled_rel_sd^2 is 2 / df within 4 sds of a sample variance of a
 * scaled chi-square (sd sqrt((12 (df + 4) / df^3 - 4 / df^2) / N)); with the copy counted
 * twice the estimate claimed 8 degrees at two cycles and spread as 4 do, twice as much.
 * One kernel's pool is its own residual's, 2n - 2 below six cycles. */
static void test_two_kernels_pool_degrees(void **state)
{
    static struct tb_meter_track tr[1 + KERNELS];
    struct tb_power_cfg pc = { .max_rel_ci = 1, .target_rel_ci = 1, .max_power_w = 1e3 };
    struct tb_meter m = { .pc = &pc, .steady = true };
    const double truth[KERNELS] = { 0.8, 1.3 };
    const int nights = th_quick() ? 300 : 4000, cycles[] = { 2, 3, 6 };
    unsigned long long seed = 5744;
    for (size_t i = 0; i < sizeof(cycles) / sizeof(cycles[0]); i++) {
        int n = cycles[i];
        double df = 4.0 * n - (n < TB_RERUN_TREND_CYCLES ? 4 : 5), s = 0, s2 = 0;
        for (int night = 0; night < nights; night++) {
            struct tb_meter_result out[KERNELS];
            ideal_blocks(tr, n, truth, 1e-3, &seed);
            interleaved_night(&m, tr, n, out);
            if ((double)m.pooled_df != df)
                th_fail("%d cycles: the pool's degrees %zu, %g blocks less columns", n,
                        m.pooled_df, df);
            double v = m.pooled_rel_sd * m.pooled_rel_sd / 1e-6;
            s += v;
            s2 += v * v;
        }
        double mean = s / nights, var = s2 / nights - mean * mean;
        double sd = sqrt((12 * (df + 4) / (df * df * df) - 4 / (df * df)) / nights);
        if (!(fabs(var - 2 / df) <= 4 * sd) || !(fabs(mean - 1) <= 4 * sqrt(2 / df / nights)))
            th_fail("%d cycles: pooled variance mean %.4f, relative variance %.4f, %.4f +- "
                    "%.4f for %g degrees", n, mean, var, 2 / df, 4 * sd, df);
    }
    ideal_blocks(tr, 3, truth, 1e-3, &seed);   /* one kernel: C K C K C K C */
    for (int i = 0; i < 3; i++) {
        tr[1].ratio[i] = tr[1].jpb[i] / (0.5 * (tr[0].jpb[i] + tr[0].jpb[i + 1]));
        tr[1].cb[i][0] = (short)i;
        tr[1].cb[i][1] = (short)(i + 1);
    }
    tr[0].n = 4;
    tr[1].n = 3;
    tb_meter_pool(&m, tr, 2, 0);
    assert_true(m.pooled_df == 4);
}

/* The ratios' lag-1 floor of t's mean's relative variance (meter_figures.c's lag_var, as its
 * comment defines it: (S0 + 2 S1) / (n (n - 3)) over the mean squared); NAN below six
 * ratios. */
static double lag_floor(const struct tb_meter_track *t)
{
    int n = t->n;
    double mean = 0, s0 = 0, s1 = 0;
    if (n < 6)
        return NAN;
    for (int i = 0; i < n; i++)
        mean += t->ratio[i] / n;
    for (int i = 0; i < n; i++) {
        s0 += pow(t->ratio[i] - mean, 2);
        s1 += i + 1 < n ? (t->ratio[i] - mean) * (t->ratio[i + 1] - mean) : 0;
    }
    return (s0 + 2 * s1) / ((double)n * (n - 3)) / (mean * mean);
}

/* The row says the degrees of the t its cycles' interval took (energy_ratio_df), and the
 * interval is that t times the mean's sd: the kernel's own residual's (3n - 2 interleaved
 * below six cycles, 3n - 3 from six: t x s |a|), the size's pool's where the pool's interval
 * was the wider (t x s_pool |a|); from six cycles the ratios' lag-1 floor's variance where it
 * was the larger of either's, at the own's or the pool's t (the floor's own 1.32 degrees at six
 * cycles made the interval 7.5 times the ideal at the 90th percentile: not taken). */
static void test_row_says_its_degrees(void **state)
{
    static struct tb_meter_track tr[1 + KERNELS];
    struct tb_power_cfg pc = { .max_rel_ci = 1, .target_rel_ci = 1, .max_power_w = 1e3 };
    struct tb_meter m = { .pc = &pc, .steady = true };
    const double truth[KERNELS] = { 0.8, 1.3 };
    unsigned long long seed = 5745;
    int seen[3] = { 0 };
    for (int night = 0; night < 200; night++) {
        int n = night % 2 ? 3 : 6;
        struct tb_meter_result out[KERNELS];
        ideal_blocks(tr, n, truth, 1e-3, &seed);
        interleaved_night(&m, tr, n, out);
        for (int k = 0; k < KERNELS; k++) {
            double df, a2, ss = tb_meter_blocks_ss(&tr[1 + k], &tr[0], &df, &a2);
            double lag = lag_floor(&tr[1 + k]);
            double v[2] = { a2 * ss / df, a2 * m.pooled_rel_sd * m.pooled_rel_sd };
            double d[2] = { df, (double)m.pooled_df }, hw[2];
            bool floor[2];
            assert_true(df == 3.0 * n - (n < TB_RERUN_TREND_CYCLES ? 2 : 3));
            for (int c = 0; c < 2; c++) {
                floor[c] = lag > v[c];
                hw[c] = tb_t95_df(d[c]) * sqrt(floor[c] ? lag : v[c]);
            }
            int took = hw[0] >= hw[1] ? 0 : 1;
            double want = d[took];
            seen[floor[took] ? 2 : took]++;
            if (fabs(out[k].energy_ratio_df - want) > 1e-9 * want ||
                fabs(out[k].energy_ratio_ci95 / out[k].energy_ratio / hw[took] - 1) > 1e-9)
                th_fail("%d cycles, kernel %d: energy_ratio_df %g, the %s's %g; half-width "
                        "%.6g%%, t x sd %.6g%%", n, k, out[k].energy_ratio_df,
                        floor[took] ? "lag floor" : took ? "pool" : "own", want,
                        100 * out[k].energy_ratio_ci95 / out[k].energy_ratio, 100 * hw[took]);
        }
    }
    assert_true(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);   /* every kind of row was seen */
    struct tb_meter_result copy;
    struct tb_meter_end end = { 0 };
    tb_meter_figures(&m, &tr[0], &tr[0], true, NAN, NAN, &end, NULL, &copy);
    assert_true(isnan(copy.energy_ratio_df));
}

/* The row's systematic part (energy_ratio_sys_ci95) is its track's sys_rel in the ratio's
 * units, and energy_ratio_ci95 its root sum of squares with the cycles' part; empty (NAN)
 * where the track has none and for the copy. */
static void test_row_says_its_systematic_part(void **state)
{
    static struct tb_meter_track tr[1 + KERNELS];
    struct tb_power_cfg pc = { .max_rel_ci = 1, .target_rel_ci = 1, .max_power_w = 1e3 };
    struct tb_meter m = { .pc = &pc, .steady = true };
    const double truth[KERNELS] = { 0.8, 1.3 };
    unsigned long long seed = 5748;
    struct tb_meter_result bare[KERNELS], out[KERNELS], copy;
    ideal_blocks(tr, 4, truth, 1e-3, &seed);
    interleaved_night(&m, tr, 4, bare);
    tr[1].sys_rel = 0.001;
    interleaved_night(&m, tr, 4, out);
    th_assert_close(out[0].energy_ratio_sys_ci95, 0.001 * out[0].energy_ratio, 1e-15);
    th_assert_close(out[0].energy_ratio_ci95, hypot(bare[0].energy_ratio_ci95,
                                                    0.001 * out[0].energy_ratio), 1e-15);
    assert_true(isnan(out[1].energy_ratio_sys_ci95));
    struct tb_meter_end end = { 0 };
    tb_meter_figures(&m, &tr[0], &tr[0], true, NAN, NAN, &end, NULL, &copy);
    assert_true(isnan(copy.energy_ratio_sys_ci95));
}

/* ---- past the copy's track: nights as the meter stores them (meter.c, kernel_pair) ---- */

#define MAX_K 6
#define SEQ (2 * MAX_K * TB_METER_MAX_CYCLES + 1)

/* Block p of the night's sequence (C0 K C1 K C2 ..., a second each): its stamp, the
 * midpoint of its span (a tenth of a second in to nine tenths). */
static int64_t seq_mid(int p)
{
    return (int64_t)p * 1000000000 + 500000000;
}

/* A night of k kernels interleaved over cycles cycles as the meter keeps it: the copy's track
 * holds its first TB_METER_MAX_CYCLES blocks, a block past it is -2 in the kernels' tracks
 * with its J per byte and stamp (cj, ct); every block's stamps ta and tb. Each block's log
 * J per byte off by an independent normal error of sd, plus drift per second of its time.
 * The size's pool (tb_meter_pool), then each kernel's figures into out[0..k). */
static void metered_night(struct tb_meter *m, struct tb_meter_track *tr, int k, int cycles,
                          double sd, double drift, unsigned long long *seed,
                          struct tb_meter_result *out)
{
    static double c[SEQ];
    memset(tr, 0, (size_t)(1 + k) * sizeof(*tr));
    for (int j = 0; j <= k * cycles; j++) {
        c[j] = 1e-10 * exp(sd * sim_gauss(seed) + drift * (double)seq_mid(2 * j) * 1e-9);
        if (j < TB_METER_MAX_CYCLES) {
            tr[0].jpb[j] = c[j];
            tr[0].ratio[j] = 1;
            tr[0].ta[j] = seq_mid(2 * j) - 400000000;
            tr[0].tb[j] = seq_mid(2 * j) + 400000000;
            tr[0].n = j + 1;
        }
    }
    for (int q = 0; q < k; q++) {
        struct tb_meter_track *t = &tr[1 + q];
        for (int i = 0; i < cycles; i++) {
            int a = k * i + q, p = 2 * a + 1;
            double jpb = (0.8 + 0.1 * q) * 1e-10 *
                         exp(sd * sim_gauss(seed) + drift * (double)seq_mid(p) * 1e-9);
            t->around[i] = 0.5 * (c[a] + c[a + 1]);
            t->ratio[i] = jpb / t->around[i];
            t->jpb[i] = jpb;
            t->ta[i] = seq_mid(p) - 400000000;
            t->tb[i] = seq_mid(p) + 400000000;
            for (int s = 0; s < 2; s++) {
                t->cb[i][s] = (short)(a + s < TB_METER_MAX_CYCLES ? a + s : -2);
                t->cj[i][s] = c[a + s];
                t->cta[i][s] = seq_mid(2 * (a + s)) - 400000000;
                t->ctb[i][s] = seq_mid(2 * (a + s)) + 400000000;
            }
        }
        t->n = cycles;
    }
    tb_meter_pool(m, tr, 1 + (size_t)k, 0);
    struct tb_meter_end end = { 0 };
    for (int q = 0; q < k; q++)
        tb_meter_figures(m, &tr[1 + q], &tr[0], false, NAN, NAN, &end, NULL, &out[q]);
}

/* #57, the review: past the copy's 64-block track each copy block counts once in the size's
 * pool, however many kernels took it (matched by its stamp), and each block's time for the
 * drift is its own stamp's. Two kernels over 40 cycles and six over 12 fill the copy's track
 * (81 and 73 copy blocks): the pool's degrees are the blocks less the columns, 4n + 1 - 6 =
 * 155 and 145 - 14 = 131, and its variance estimate's mean over ideal nights is the true
 * variance within 4 sds of a chi-square's mean (2 / df / nights). Before: 171 and 139
 * degrees (each block past the track once per kernel), E[s^2] / sigma^2 0.91 and 0.94. */
static void test_pool_past_the_copy_track(void **state)
{
    static struct tb_meter_track tr[1 + MAX_K];
    struct tb_power_cfg pc = { .max_rel_ci = 1, .target_rel_ci = 1, .max_power_w = 1e3 };
    struct tb_meter m = { .pc = &pc, .steady = true };
    const int shape[][2] = { { 2, 40 }, { 6, 12 } }, nights = th_quick() ? 60 : 400;
    unsigned long long seed = 5746;
    for (size_t c = 0; c < sizeof(shape) / sizeof(shape[0]); c++) {
        int k = shape[c][0], n = shape[c][1];
        double df = 2.0 * k * n + 1 - (2 * k + 2), s = 0;
        for (int night = 0; night < nights; night++) {
            struct tb_meter_result out[MAX_K];
            metered_night(&m, tr, k, n, 1e-3, 0, &seed, out);
            if ((double)m.pooled_df != df)
                th_fail("%d kernels x %d cycles: the pool's degrees %zu, %g blocks less "
                        "columns", k, n, m.pooled_df, df);
            s += m.pooled_rel_sd * m.pooled_rel_sd / 1e-6;
        }
        print_message("%d x %d: E[s^2] / sigma^2 %.4f over %d nights\n", k, n, s / nights,
                      nights);
        if (!(fabs(s / nights - 1) <= 4 * sqrt(2 / df / nights)))
            th_fail("%d kernels x %d cycles: E[s^2] / sigma^2 %.4f, 1 +- %.4f", k, n,
                    s / nights, 4 * sqrt(2 / df / nights));
    }
}

/* A linear drift both the copy and the kernels share (a warming board), over blocks past the
 * copy's track: the ratios cancel it and the model's time column holds it, so the pool's
 * spread and every row's half-width are those of the same night without it (to the second
 * order of a ratio's arithmetic mean of two copy blocks). Before: each kernel's blocks past
 * the track timed by its cycle's index, a sawtooth against the copy's: the pool's sd 4.1x
 * at 2 x 40. */
static void test_drift_past_the_copy_track(void **state)
{
    static struct tb_meter_track tr[1 + MAX_K];
    struct tb_power_cfg pc = { .max_rel_ci = 1, .target_rel_ci = 1, .max_power_w = 1e3 };
    struct tb_meter m = { .pc = &pc, .steady = true };
    const int shape[][2] = { { 2, 40 }, { 6, 12 } };
    for (size_t c = 0; c < sizeof(shape) / sizeof(shape[0]); c++) {
        int k = shape[c][0], n = shape[c][1];
        struct tb_meter_result flat[MAX_K], drift[MAX_K];
        unsigned long long s0 = 5747 + c, s1 = s0;
        metered_night(&m, tr, k, n, 1e-3, 0, &s0, flat);
        double sd0 = m.pooled_rel_sd;
        metered_night(&m, tr, k, n, 1e-3, 2e-4, &s1, drift);
        print_message("%d x %d: pooled sd %.3g without a drift, %.3g with\n", k, n, sd0,
                      m.pooled_rel_sd);
        if (!(fabs(m.pooled_rel_sd / sd0 - 1) < 0.01))
            th_fail("%d kernels x %d cycles: pooled sd %.4g with a drift, %.4g without", k, n,
                    m.pooled_rel_sd, sd0);
        for (int q = 0; q < k; q++) {
            double a = flat[q].energy_ratio_ci95 / flat[q].energy_ratio,
                   b = drift[q].energy_ratio_ci95 / drift[q].energy_ratio;
            if (!(fabs(b / a - 1) < 0.02))
                th_fail("%d kernels x %d cycles, kernel %d: half-width %.4g%% with a drift, "
                        "%.4g%% without", k, n, q, 100 * b, 100 * a);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_two_kernels_coverage),
        TH_TEST(test_two_kernels_pool_degrees),
        TH_TEST(test_row_says_its_degrees),
        TH_TEST(test_row_says_its_systematic_part),
        TH_TEST(test_pool_past_the_copy_track),
        TH_TEST(test_drift_past_the_copy_track),
    };
    return cmocka_run_group_tests_name("power_rerun_kernels", tests, NULL, NULL);
}
