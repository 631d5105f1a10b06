/* test_power_rerun.c: the run-to-run spread a rerun on another night adds (src/energy/rerun.c),
 * as arithmetic: the board file's settings alone without two earlier runs (an estimate with
 * its own degrees of freedom); the spread of their figures pulled toward the settings; a
 * spread their own cycles explain teaches nothing more; odd nights, steps and broken nights
 * teach little; a two-state card keeps its switches. Which logs count: test_power_rerun_logs.c. */
#include "rerun_logs.h"

static void test_settings_alone_before_two_runs(void **state)
{
    char *dir = th_tmpdir(), line[512], row[256];
    struct tb_log_rec me;
    me_vec16(&me);
    struct tb_rerun_sd sd;
    struct tb_rerun *r = tb_rerun_learn(dir, "lab", "", "lab-h200", IMAGES, line,
                                        sizeof(line));
    th_must_have(line, "0 earlier log(s)");
    tb_rerun_sd(r, &me, &pc, &sd);
    assert_int_equal(sd.runs, 0);
    th_assert_close(sd.ratio, 0.004, 1e-12);
    th_assert_close(sd.abs, 0.008, 1e-12);
    /* the settings are an estimate of a few degrees of freedom, not known (#57) */
    th_assert_close(sd.ratio_df, TB_RERUN_PRIOR_DF, 1e-12);
    th_assert_close(sd.cap.ratio_df, TB_RERUN_PRIOR_DF, 1e-12);
    tb_rerun_free(r);
    vec16_row(row, sizeof(row), 1.20, 0.001, 0.180, 4, 0);
    write_log(dir, "lab", 1, row);
    r = learn(dir);
    tb_rerun_sd(r, &me, &pc, &sd);   /* one run: no spread to learn */
    assert_int_equal(sd.runs, 0);
    th_assert_close(sd.ratio, 0.004, 1e-12);
    tb_rerun_free(r);
    tb_rerun_sd(NULL, &me, &pc, &sd);
    assert_int_equal(sd.runs, 0);
    /* a folder that cannot be opened: said, the settings alone */
    r = tb_rerun_learn("/nonexistent-tb-dir", "lab", "", "lab-h200", IMAGES, line,
                       sizeof(line));
    assert_non_null(r);
    th_must_have(line, "cannot open '/nonexistent-tb-dir'");
    tb_rerun_free(r);
    th_rmtree(dir);
    free(dir);
}

/* Nights of vec16, newest first: ratio[i] with its cycles' interval ci_rel[i] of it (over
 * cycles) and J/GB jpg[i]; what is learned from them. */
static void nights(const double *ratio, const double *ci_rel, const double *jpg, int n,
                   int cycles, struct tb_rerun_sd *sd)
{
    char *dir = th_tmpdir(), row[256];
    for (int i = 0; i < n; i++) {
        vec16_row(row, sizeof(row), ratio[i], ci_rel[i] * ratio[i], jpg[i], cycles, 0);
        write_log(dir, "lab", n - i, row);   /* the newest the latest day */
    }
    struct tb_rerun *r = learn(dir);
    struct tb_log_rec me;
    me_vec16(&me);
    tb_rerun_sd(r, &me, &pc, sd);
    tb_rerun_free(r);
    th_rmtree(dir);
    free(dir);
}



/* Four nights alternating 1 and e^0.01 (J/GB 1 and e^0.02), cycles so tight they explain
 * none of it: every successive difference 0.01, the learned variance (K p^2 + 3 s^2) /
 * (K + 3), the settings counting as K differences; its degrees of freedom the settings'
 * and the three differences' (one series of four runs: 2 x 9 / 8) together, not infinite
 * (#57: the prior is an estimate too). */
static void test_spread_pulled_toward_the_settings(void **state)
{
    double e1 = exp(0.01), e2 = exp(0.02);
    const double ratio[] = { 1, e1, 1, e1 }, jpg[] = { 1, e2, 1, e2 }, ci[] = { 1e-6, 1e-6, 1e-6, 1e-6 };
    struct tb_rerun_sd sd;
    nights(ratio, ci, jpg, 4, 4, &sd);
    assert_int_equal(sd.runs, 4);
    double s = sd_of_steps(0.01), sa = sd_of_steps(0.02);
    th_assert_close(sd.ratio, sqrt((K * 0.004 * 0.004 + 3 * s * s) / (K + 3)), 1e-5);
    th_assert_close(sd.abs, sqrt((K * 0.008 * 0.008 + 3 * sa * sa) / (K + 3)), 1e-5);
    assert_true(sd.ratio > 0.004 && sd.ratio < s);   /* between the two */
    th_assert_close(sd.ratio_df, TB_RERUN_PRIOR_DF + 18.0 / 8.0, 1e-12);
}

/* The same nights, each with cycles whose own interval explains their whole spread (a run's
 * mean has variance (ci / t)^2, t at its definition's degrees: these logs of November 2026,
 * without energy_ratio_df, Welch-Satterthwaite's): nothing beyond the cycles is learned for
 * the ratio
 * (the setting's weight alone is left, shrunk by three runs that saw nothing more); J/GB's
 * logged interval already holds such a term, so its spread is taken whole. */
static void test_spread_the_cycles_explain_teaches_nothing(void **state)
{
    int cycles = 4;
    double e1 = exp(0.01), s = sd_of_steps(0.01);
    double c = s * tb_t95_df(tb_rerun_cycles_df_welch(cycles));
    const double ratio[] = { 1, e1, 1, e1 }, ci[] = { c, c, c, c };
    struct tb_rerun_sd sd;
    nights(ratio, ci, ratio, 4, cycles, &sd);
    assert_int_equal(sd.runs, 4);
    th_assert_close(sd.ratio, 0.004 * sqrt(K / (K + 3.0)), 2e-5);
    th_assert_close(sd.abs, sqrt((K * 0.008 * 0.008 + 3 * s * s) / (K + 3)), 1e-5);
}

/* What the earlier nights hold besides the board's own spread teaches little: seven nights
 * within 0.3% of each other with one of a ratio of 9000 among them (a broken night: its two
 * differences, over 4 times the median-based sd, are left out); 21 nights that stepped 4.5%
 * once (a new JetPack: one difference of 20, left out so; among 6, a first step cannot be
 * told from a two-state card's first switch, and it is kept: #57, rerun.c's first_cut);
 * one night of wide cycles among tight ones (its own variance
 * does not cancel the others' spread: the median of the runs' own; with four differences
 * the spread is the learned one, the setting no longer in it). Two nights, one odd:
 * no median leaves it out, the spread stops at 5 times the setting. */
static void test_an_odd_night_a_step_or_a_wide_run_teaches_little(void **state)
{
    const double tight[] = { 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6 };
    const double odd[] = { 1.000, 1.002, 9000, 0.998, 1.000, 1.003, 0.999 };
    const double step[] = { 1.045, 1.046, 1.044, 1.000, 1.001, 0.999, 1.000 };
    struct tb_rerun_sd sd;
    nights(odd, tight, odd, 7, 4, &sd);
    assert_int_equal(sd.runs, 7);
    if (!(sd.ratio < 0.004 && sd.abs < 0.008))
        th_fail("an odd night taught %g and %g", sd.ratio, sd.abs);
    nights(step, tight, step, 7, 4, &sd);
    if (!(sd.ratio > 0.012 && sd.abs > 0.012))   /* kept: sqrt(0.044^2 / 12) */
        th_fail("a first step (a switch?) taught only %g and %g", sd.ratio, sd.abs);
    double step21[21], tight21[21];
    for (int i = 0; i < 21; i++) {
        step21[i] = (i < 10 ? 1.045 : 1.000) * (1 + 0.001 * ((i * 7) % 5 - 2));
        tight21[i] = 1e-6;
    }
    nights(step21, tight21, step21, 21, 4, &sd);
    assert_int_equal(sd.pairs, 20);
    if (!(sd.ratio < 0.004 && sd.abs < 0.008))
        th_fail("a step taught %g and %g", sd.ratio, sd.abs);
    double e1 = exp(0.01), s = sd_of_steps(0.01);
    const double alt[] = { 1, e1, 1, e1, 1 }, wide[] = { 1e-6, 1e-6, 500, 1e-6, 1e-6 };
    nights(alt, wide, alt, 5, 4, &sd);   /* 4 differences: the learned spread alone */
    assert_int_equal(sd.pairs, TB_RERUN_POOL_MIN);
    th_assert_close(sd.ratio, s, 1e-5);
    const double two[] = { 1.0, 9000 };
    nights(two, tight, two, 2, 4, &sd);
    assert_int_equal(sd.runs, 2);
    th_assert_close(sd.ratio, 5 * 0.004, 1e-12);
    th_assert_close(sd.abs, 5 * 0.008, 1e-12);
}

/* Nights whose ratios repeat to the logged digits (half the differences 0, their median 0)
 * with one broken night among them: its two differences are past 4 sqrt 2 times the
 * settings' sd, left out; the repeats teach a spread below the settings' (it was the broken
 * night's alone, ln 9000 / sqrt 6: 370%). */
static void test_repeats_and_a_broken_night(void **state)
{
    const double tight[] = { 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6 };
    const double odd[] = { 1.2, 1.2, 1.2, 9000, 1.2, 1.2, 1.2 };
    struct tb_rerun_sd sd;
    nights(odd, tight, odd, 7, 4, &sd);
    assert_int_equal(sd.runs, 7);
    assert_int_equal(sd.pairs, 6);
    if (!(sd.ratio < 0.004 && sd.abs < 0.008))
        th_fail("a broken night among repeats taught %g and %g", sd.ratio, sd.abs);
}

/* Six nights with a broken one in the middle: five differences, two left out. The three
 * kept are fewer than TB_RERUN_POOL_MIN, so the settings still weigh in (K differences'
 * worth) and the sd's degrees of freedom are theirs and the three kept differences' (the
 * series' 50 / 14 times 3 of 5), not those of three differences alone. */
static void test_a_broken_night_leaves_fewer_differences(void **state)
{
    const double tight[] = { 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6 };
    const double odd[] = { 1.000, 1.002, 0.999, 9000, 1.001, 1.000 };
    struct tb_rerun_sd sd;
    nights(odd, tight, odd, 6, 4, &sd);
    assert_int_equal(sd.pairs, 5);
    double d1 = log(1.002 / 1.000), d2 = log(0.999 / 1.002), d3 = log(1.000 / 1.001);
    double s2 = (d1 * d1 + d2 * d2 + d3 * d3) / 6;   /* mean d^2 / 2 of the three kept */
    th_assert_close(sd.ratio, sqrt((K * 0.004 * 0.004 + 3 * s2) / (K + 3)), 1e-5);
    th_assert_close(sd.ratio_df, TB_RERUN_PRIOR_DF + 50.0 / 14.0 * 3.0 / 5.0, 1e-12);
    assert_true(isnan(sd.ratio_excess));
}

/* The pooled spread's degrees of freedom: 2 m^2 / (3 m - 1) for each series' m successive
 * differences (neighbours share a run), summed over the series, times the share of the
 * differences kept. Two series of 5 and 3 runs: 32/11 + 8/5. The first with a broken night
 * in the middle of six runs instead (its two differences left out): (50/14 + 8/5) x 5/7. */
static void test_pooled_degrees_of_freedom(void **state)
{
    struct tb_rerun_run v[9];
    struct tb_rerun_sd sd;
    const double a[] = { 1.000, 1.003, 0.998, 1.002, 0.999 }, b[] = { 2.000, 2.004, 1.997 };
    int n = 0;
    for (int i = 0; i < 5; i++)
        v[n++] = (struct tb_rerun_run){ 0, a[i], a[i], 1e-12, 4, 2 * 4 - 2 };
    for (int i = 0; i < 3; i++)
        v[n++] = (struct tb_rerun_run){ 1, b[i], b[i], 1e-12, 4, 2 * 4 - 2 };
    tb_rerun_pool(v, (size_t)n, &pc, &sd);
    assert_int_equal(sd.pairs, 6);
    th_assert_close(sd.ratio_df, 32.0 / 11.0 + 8.0 / 5.0, 1e-12);
    const double c[] = { 1.000, 1.003, 0.998, 9000, 1.002, 0.999 };
    n = 0;
    for (int i = 0; i < 6; i++)
        v[n++] = (struct tb_rerun_run){ 0, c[i], c[i], 1e-12, 4, 2 * 4 - 2 };
    for (int i = 0; i < 3; i++)
        v[n++] = (struct tb_rerun_run){ 1, b[i], b[i], 1e-12, 4, 2 * 4 - 2 };
    tb_rerun_pool(v, (size_t)n, &pc, &sd);
    assert_int_equal(sd.pairs, 7);
    th_assert_close(sd.ratio_df, (50.0 / 14.0 + 8.0 / 5.0) * 5.0 / 7.0, 1e-12);
}

/* power.rerun_ratio_sd = 0 (#50 item 11): no prior, and still learnt from the nights (the
 * cap of 5 times the setting once made it 0 for ever): two nights 1% apart teach their
 * spread whole; none: 0. */
static void test_zero_setting_still_learns(void **state)
{
    struct tb_power_cfg zero = pc;
    zero.rerun_ratio_sd = zero.rerun_abs_sd = 0;
    char *dir = th_tmpdir(), row[256];
    struct tb_log_rec me;
    me_vec16(&me);
    struct tb_rerun_sd sd;
    struct tb_rerun *r = learn(dir);
    tb_rerun_sd(r, &me, &zero, &sd);
    tb_rerun_free(r);
    assert_true(sd.ratio == 0 && sd.runs == 0);
    vec16_row(row, sizeof(row), 1.20, 1e-6, 0.18, 4, 0);
    write_log(dir, "lab", 1, row);
    vec16_row(row, sizeof(row), 1.212, 1e-6, 0.18, 4, 0);
    write_log(dir, "lab", 2, row);
    r = learn(dir);
    tb_rerun_sd(r, &me, &zero, &sd);
    tb_rerun_free(r);
    assert_int_equal(sd.runs, 2);
    th_assert_close(sd.ratio, sd_of_steps(log(1.212 / 1.2)), 1e-6);
    th_rmtree(dir);
    free(dir);
}

/* The first nights (#57): with no difference learned the settings are all there is, and the
 * rerun interval takes them as an estimate of TB_RERUN_PRIOR_DF degrees of freedom: where
 * the night's own spread is negligible its half-width is that many degrees' t times
 * sqrt(2) p, not 1.96's (64-75% of the next nights inside where the true spread was 2-3
 * times the setting); the power_rerun line says so. Once learned alone (4 differences) the
 * settings are out of it. */
static void test_prior_only_interval_carries_its_uncertainty(void **state)
{
    struct tb_rerun_sd sd;
    tb_rerun_pool(NULL, 0, &pc, &sd);
    assert_int_equal(sd.runs, 0);
    double hw = tb_rerun_halfwidth(&sd, 1e-7, 30, 3);
    th_assert_close(hw, tb_t95_df(TB_RERUN_PRIOR_DF) * sqrt(2.0) * 0.004, 1e-4);
    assert_true(hw > 2 * 1.96 * sqrt(2.0) * 0.004);
    char said[512];
    tb_rerun_settings_said(&pc, said, sizeof(said));
    th_must_have(said, "power.rerun_ratio_sd 0.40%");
    th_must_have(said, "rows of rerun_runs 0 rest on them alone (prior only)");
    th_must_have(said, "not as known");
    struct tb_power_cfg zero = pc;   /* no prior: nothing to say of it */
    zero.rerun_ratio_sd = 0;
    tb_rerun_settings_said(&zero, said, sizeof(said));
    assert_null(strstr(said, "prior only"));
    /* five runs 0.3% apart in turn: learned alone, its own degrees of freedom */
    struct tb_rerun_run v[5];
    for (int i = 0; i < 5; i++)
        v[i] = (struct tb_rerun_run){ 0, i % 2 ? 1.003 : 1.0, 1.0, 1e-12, 4, 2 * 4 - 2 };
    tb_rerun_pool(v, 5, &pc, &sd);
    th_assert_close(sd.ratio_df, 32.0 / 11.0, 1e-12);
}

/* A card in one of two states from night to night, 2% apart (13 nights, 5 of its 12
 * differences a switch, each night within 0.1% of its state): its switches are its spread,
 * not outliers (#57: the median's cut left them out, a spread of 0.05% where the next night
 * lay 2% away 5 times in 12). More than two and more than a fifth of the differences past
 * the median's cut are a second cluster: kept, and the spread is all twelve's. A broken
 * night among them (a ratio of 9000) is still left out. */
static void test_a_two_state_card_keeps_its_switches(void **state)
{
    static const int st[] = { 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0 };
    struct tb_rerun_run v[14];
    double ss = 0, prev = 0;
    for (int i = 0; i < 13; i++) {
        double x = 1.2 * (st[i] ? 1.02 : 1.0) * (1 + 0.0005 * ((i * 7) % 5 - 2));
        v[i] = (struct tb_rerun_run){ 0, x, x, 1e-12, 4, 2 * 4 - 2 };
        if (i)
            ss += pow(log(x / prev), 2);
        prev = x;
    }
    struct tb_rerun_sd sd;
    tb_rerun_pool(v, 13, &pc, &sd);
    assert_int_equal(sd.pairs, 12);
    th_assert_close(sd.ratio, sqrt(ss / 24), 1e-9);
    assert_true(sd.ratio > 0.007);
    /* a broken night between the sixth and the seventh: its two differences out, and the
     * one it stands in for (the sixth to the seventh) is not there */
    double gone = pow(log(v[6].ratio / v[5].ratio), 2);
    memmove(v + 7, v + 6, 7 * sizeof(v[0]));
    v[6] = (struct tb_rerun_run){ 0, 9000, 9000, 1e-12, 4, 2 * 4 - 2 };
    tb_rerun_pool(v, 14, &pc, &sd);
    assert_int_equal(sd.pairs, 13);
    th_assert_close(sd.ratio, sqrt((ss - gone) / 22), 1e-9);
    assert_true(isnan(sd.ratio_q95));   /* 12 differences: too few for their own bound */
}

/* The same card over 25 nights (9 switches in 24 differences; then 16): a normal interval
 * of their variance, 1.96 x sqrt(mean d^2) or so, lies past every switch and would hold a
 * two-point mixture's next difference nearly always (98-100% in meter-sim); of 24
 * exchangeable differences the next is at or below the ceil(0.95 x 25)-th smallest, the
 * largest, 95% of the time or more, and the rerun interval is that bound (never below the
 * night's own part: a night of wide cycles keeps its own). */
static void test_a_two_state_card_takes_its_own_bound(void **state)
{
    static const int st[] = { 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0,
                              0, 1, 1, 1 };
    struct tb_rerun_run v[25];
    double hi = 0, prev = 0, ss = 0;
    for (int i = 0; i < 25; i++) {
        double x = 1.2 * (st[i] ? 1.02 : 1.0) * (1 + 0.0005 * ((i * 7) % 5 - 2));
        v[i] = (struct tb_rerun_run){ 0, x, x, 1e-12, 4, 2 * 4 - 2 };
        if (i) {
            hi = fmax(hi, fabs(log(x / prev)));
            ss += pow(log(x / prev), 2);
        }
        prev = x;
    }
    struct tb_rerun_sd sd;
    tb_rerun_pool(v, 25, &pc, &sd);
    assert_int_equal(sd.pairs, 24);
    th_assert_close(sd.ratio_q95, hi, 1e-12);
    th_assert_close(tb_rerun_halfwidth(&sd, 1e-6, 30, 4), hi, 1e-12);
    assert_true(hi < 1.96 * sqrt(ss / 24));   /* the normal one's, narrower than it was */
    struct tb_rerun_sd none = sd;   /* the night's own part alone: no spread between */
    none.ratio = 0;
    none.pairs = 0;
    none.ratio_excess = none.ratio_q95 = NAN;
    double own = tb_rerun_halfwidth(&sd, 0.05, 30, 4);   /* 5% a cycle tonight */
    assert_true(own > hi);
    th_assert_close(own, tb_rerun_halfwidth(&none, 0.05, 30, 4), 1e-12);
    /* switches more than half the differences (16 of 24): the median lies among them and
     * its cut keeps all; the 25th percentile's finds them, and the bound is theirs too */
    static const int st2[] = { 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1,
                               0, 1, 0, 0 };
    hi = 0;
    for (int i = 0; i < 25; i++) {
        double x = 1.2 * (st2[i] ? 1.02 : 1.0) * (1 + 0.0005 * ((i * 7) % 5 - 2));
        v[i] = (struct tb_rerun_run){ 0, x, x, 1e-12, 4, 2 * 4 - 2 };
        if (i)
            hi = fmax(hi, fabs(log(x / v[i - 1].ratio)));
    }
    tb_rerun_pool(v, 25, &pc, &sd);
    assert_int_equal(sd.pairs, 24);
    th_assert_close(sd.ratio_q95, hi, 1e-12);
}

/* A two-state card's first nights (#57): four nights, 4% apart from the third on (one switch
 * of three differences, each night within 0.05% of its state). The median's cut made the
 * switch a broken night's and the next night's interval +-1.2%, where the next switch lies
 * 3.9% away; kept (within TB_STEPS_OUT sds of the widest spread the learner takes from so
 * few), the spread is the three's pulled toward the settings and the interval holds a
 * switch back (a broken night of a ratio of 9000 is still left out: the tests above). */
static void test_a_first_switch_is_kept(void **state)
{
    const double x[] = { 1.2, 1.2 * 1.0005, 1.2 * 1.04, 1.2 * 1.04 * 0.9995 };
    struct tb_rerun_run v[4];
    double ss = 0;
    for (int i = 0; i < 4; i++) {
        v[i] = (struct tb_rerun_run){ 0, x[i], x[i], 1e-12, 4, 2 * 4 - 2 };
        ss += i ? pow(log(x[i] / x[i - 1]), 2) : 0;
    }
    struct tb_rerun_sd sd;
    tb_rerun_pool(v, 4, &pc, &sd);
    assert_int_equal(sd.pairs, 3);
    th_assert_close(sd.ratio, sqrt((K * 0.004 * 0.004 + ss / 2) / (K + 3)), 1e-9);
    double hw = tb_rerun_halfwidth(&sd, 1e-4, 30, 4);
    if (!(hw > log(1.04)))
        th_fail("a first switch of 3.9%%: the next night's interval +-%.2f%%", 100 * hw);
}

/* One log of vec16 on host lab started at stamp (YYYYMMDDTHHMMSSZ), one row of a night of
 * cycles cycles whose mean's relative sd is sd_mean, its energy_ratio_ci95 t(t_df) times that;
 * where df > 0 the log has the energy_ratio_df column and the row says df there. */
static void sys_log(const char *dir, const char *stamp, int cycles, double sd_mean,
                    double t_df, const char *df, double sys)
{
    char name[128], text[2048], row[256];
    double cyc = sd_mean * tb_t95_df(t_df);
    vec16_row(row, sizeof(row), 1.2, 1.2 * (sys > 0 ? hypot(cyc, sys) : cyc), 0.18, cycles, 0);
    if (df)   /* the same row, its degrees (and its systematic part) after the last column */
        snprintf(strchr(row, '\n'), sizeof(row) - strlen(row), sys > 0 ? ",%s,%.6g\n" :
                 ",%s\n", df, 1.2 * sys);
    snprintf(name, sizeof(name), "lab_lab-h200_%s.csv.gz", stamp);
    snprintf(text, sizeof(text), "# transpose-bench: 0.1.0\n# log_format: 1\n"
             "# run_id: lab_lab-h200_%s\n# images_sha256: " IMAGES "\n# host: lab\n"
             "# board: lab-h200, peak 4800.0 GB/s, has a GPU\n%.*s%s\n%s%s# end: complete\n",
             stamp, (int)strlen(HEADER) - 1, HEADER, !df ? "" : sys > 0 ?
             ",energy_ratio_df,energy_ratio_sys_ci95" : ",energy_ratio_df", row, row);
    free(th_write(dir, name, text));
}

static void df_log_text(const char *dir, const char *stamp, int cycles, double sd_mean,
                        double t_df, const char *df)
{
    sys_log(dir, stamp, cycles, sd_mean, t_df, df, 0);
}

static void df_log(const char *dir, const char *stamp, int cycles, double sd_mean, double t_df,
                   double df)
{
    char text[32];
    snprintf(text, sizeof(text), "%g", df);
    df_log_text(dir, stamp, cycles, sd_mean, t_df, df > 0 ? text : NULL);
}

/* What the reader learns from the logs in dir, for the vector16 row; dir removed, freed. */
static struct tb_rerun_sd learned(char *dir)
{
    struct tb_rerun *r = learn(dir);
    struct tb_log_rec me;
    me_vec16(&me);
    struct tb_rerun_sd out;
    tb_rerun_sd(r, &me, &pc, &out);
    tb_rerun_free(r);
    th_rmtree(dir);
    free(dir);
    return out;
}

/* The per-cycle spread the reader reads back from one row (tb_rerun_sd's within_rel_sd, the
 * median of one over its bias at the row's degrees), and those degrees (within_df). */
static double within_of(const char *stamp, int cycles, double sd, double t_df, double df,
                        double *within_df)
{
    char *dir = th_tmpdir();
    df_log(dir, stamp, cycles, sd / sqrt(cycles), t_df, df);
    struct tb_rerun_sd out = learned(dir);
    *within_df = out.within_df;
    return out.within_rel_sd;
}

/* #57: each row's energy_ratio_ci95 is read back with the degrees its t had. A size of two
 * kernels interleaved over two cycles took t(4) (3n - 2), which the row says
 * (energy_ratio_df); read with one kernel's t(2) its per-cycle spread came back
 * t(4) / t(2) = 0.65x. A log without the column is read by its start: from #57's definition
 * on (2026-12-07T21:05:54Z) one kernel's 2n - 2; before it Welch-Satterthwaite's degrees
 * (1.78 at two cycles: read with t(2) the spread came back 1.24x, its variance 53% high).
 * The spread read back is the row's over the median's bias at those degrees,
 * (1 - 2 / (9 df))^(3/2) (rerun.c, median_var). */
static void test_each_row_read_with_its_own_degrees(void **state)
{
    const double sd = 0.002;
    const struct { const char *stamp; double t_df, df, read_df; } c[] = {
        { "20261207T220000Z", 4, 4, 4 },   /* interleaved, the column said */
        { "20261207T220000Z", 2, 0, 2 },   /* no column, #57's definition */
        { "20261120T010000Z", tb_rerun_cycles_df_welch(2), 0, tb_rerun_cycles_df_welch(2) },
        { "20261207T210553Z", tb_rerun_cycles_df_welch(2), 0, tb_rerun_cycles_df_welch(2) },
    };
    for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
        double wdf, w = within_of(c[k].stamp, 2, sd, c[k].t_df, c[k].df, &wdf);
        double b = 1 - 2 / (9 * c[k].read_df), want = sd / pow(b, 1.5);
        if (fabs(w / want - 1) > 1e-6 || fabs(wdf - c[k].read_df) > 1e-9)
            th_fail("%s, t(%.2f), column %g: per-cycle sd %.6f%% of %.2f degrees read back, "
                    "%.6f%% of %.2f wanted", c[k].stamp, c[k].t_df, c[k].df, 100 * w, wdf,
                    100 * want, c[k].read_df);
    }
    th_assert_close(tb_rerun_cycles_df_welch(2), 0.875 * 0.875 / (0.625 * 0.625 + 0.0625 / 1.6),
                    1e-12);
}

/* #57, the review: an energy_ratio_df that is no number of degrees from 1 to
 * TB_LOG_RATIO_DF_MAX (a hand edit, a broken writer) is no figure: the row is read by its
 * log's start (here after #57's definition: one kernel's 2n - 2 at two cycles), and the log
 * says so once, naming its file, the line and the column. Before: 1e6 was read at t = 1.96
 * (the per-cycle spread 0.439% where the date's t(2) gives 0.239%, 1.84x), 0.5 and 0.01 at
 * t(1) while within_df kept them, 0, -3, nan, inf and abc fell back without a word. Degrees
 * that are not whole (1.31579, a Satterthwaite count) are read as they are, without a word. */
static void test_degrees_that_cannot_be(void **state)
{
    const char *bad[] = { "1e6", "0.5", "0.01", "0", "-3", "nan", "inf", "abc", "0.999",
                          "8193" };
    const double sd = 0.002, b = 1 - 2 / (9 * 2.0), want = sd / pow(b, 1.5);
    for (size_t k = 0; k <= sizeof(bad) / sizeof(bad[0]); k++) {
        bool ok = k == sizeof(bad) / sizeof(bad[0]);
        char *dir = th_tmpdir();
        df_log_text(dir, "20261207T220000Z", 2, sd / sqrt(2), ok ? 1.31579 : 2,
                    ok ? "1.31579" : bad[k]);
        th_stderr_begin();
        struct tb_rerun *r = learn(dir);
        char *err = th_stderr_end();
        struct tb_log_rec me;
        me_vec16(&me);
        struct tb_rerun_sd out;
        tb_rerun_sd(r, &me, &pc, &out);
        tb_rerun_free(r);
        double read_df = ok ? 1.31579 : 2,
               w = ok ? sd / pow(1 - 2 / (9 * 1.31579), 1.5) : want;
        const char *said = strstr(err, "energy_ratio_df");
        bool once = said && !strstr(said + 1, "energy_ratio_df") &&
                    strstr(err, "lab_lab-h200_20261207T220000Z.csv.gz:8: column ");
        if (fabs(out.within_df - read_df) > 1e-9 || fabs(out.within_rel_sd / w - 1) > 1e-6 ||
            (ok ? said != NULL : !once))
            th_fail("energy_ratio_df '%s': read at %g degrees (%g wanted), sd %.6f%% (%.6f%%); "
                    "said: %s", ok ? "1.31579" : bad[k], out.within_df, read_df,
                    100 * out.within_rel_sd, 100 * w, err);
        free(err);
        th_rmtree(dir);
        free(dir);
    }
}

/* #57, the review: energy_ratio_ci95 holds the cycles' part and the systematic one (the
 * sensor constants, the register's step, the model's floor: energy_ratio_sys_ci95), and only
 * the cycles' part is t(df) times the night's own sd. A row of a cycles' part of 0.17% beside
 * a systematic 0.10% is read back as the cycles' part alone; before, the whole was divided
 * by t(df) and the own variance read (0.17^2 + 0.10^2) / 0.17^2 = 1.35x high. A log without
 * the column is read as before, the whole as the cycles'. */
static void test_own_variance_without_the_systematic_part(void **state)
{
    const double cyc = 0.0017, sys = 0.0010, sd = cyc / tb_t95_df(2) * sqrt(2);
    const double want = sd / pow(1 - 2 / (9 * 2.0), 1.5);
    for (int with = 1; with >= 0; with--) {
        char *dir = th_tmpdir();
        sys_log(dir, "20261207T223000Z", 2, sd / sqrt(2), 2, with ? "2" : NULL, sys);
        struct tb_rerun_sd out = learned(dir);
        double w = with ? want : want * hypot(cyc, sys) / cyc;
        if (fabs(out.within_rel_sd / w - 1) > 1e-4)
            th_fail("%s energy_ratio_sys_ci95: per-cycle sd %.6f%% read back, %.6f%% wanted "
                    "(the variance %.3fx)", with ? "with" : "without", 100 * out.within_rel_sd,
                    100 * w, pow(out.within_rel_sd / w, 2));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_settings_alone_before_two_runs),
        TH_TEST(test_spread_pulled_toward_the_settings),
        TH_TEST(test_spread_the_cycles_explain_teaches_nothing),
        TH_TEST(test_an_odd_night_a_step_or_a_wide_run_teaches_little),
        TH_TEST(test_repeats_and_a_broken_night),
        TH_TEST(test_a_broken_night_leaves_fewer_differences),
        TH_TEST(test_pooled_degrees_of_freedom),
        TH_TEST(test_zero_setting_still_learns),
        TH_TEST(test_prior_only_interval_carries_its_uncertainty),
        TH_TEST(test_a_two_state_card_keeps_its_switches),
        TH_TEST(test_a_two_state_card_takes_its_own_bound),
        TH_TEST(test_a_first_switch_is_kept),
        TH_TEST(test_each_row_read_with_its_own_degrees),
        TH_TEST(test_degrees_that_cannot_be),
        TH_TEST(test_own_variance_without_the_systematic_part),
    };
    return cmocka_run_group_tests_name("power_rerun", tests, NULL, NULL);
}
