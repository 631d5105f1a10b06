/* test_power_rerun.c: the run-to-run spread a rerun on another night adds (src/energy/rerun.c),
 * learned from earlier logs written here as the tool writes them (plain text under a .csv.gz
 * name, which the reader takes as gzip does): the board file's settings alone without two
 * earlier runs; the spread of their figures pulled toward the settings; a spread their own
 * cycles explain teaches nothing more; only this host's, board's, device's, point's and
 * step's runs count, one row a run, power-capped rows left out (they teach capped rows
 * alone); a damaged log is left out. */
#include "helpers.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/stats.h"
#include "log/logread.h"
#include "energy/rerun.h"

static const struct tb_power_cfg pc = { .rerun_ratio_sd = 0.004, .rerun_abs_sd = 0.008 };

#define HEADER "host,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,status," \
               "verified,power_mode,energy_ratio,energy_ratio_ci95,j_per_gb,power_cycles," \
               "power_capped_blocks\n"

#define IMAGES "5f1e0a"   /* the kernel images' sha256 the learning run carries */

/* A log of host h and board lab-h200 started on day d (2026-11-d), of kernel images img
 * (NULL: a log from before the line), its rows as given, under its run's name with suffix
 * (the tool's "-1" where a name was taken). */
static void write_log_named(const char *dir, const char *h, int d, const char *img,
                            const char *suffix, const char *rows)
{
    char name[128], text[8192], line[96] = "";
    snprintf(name, sizeof(name), "%s_lab-h200_202611%02dT010000Z%s.csv.gz", h, d, suffix);
    if (img)
        snprintf(line, sizeof(line), "# images_sha256: %s\n", img);
    snprintf(text, sizeof(text), "# transpose-bench: 0.1.0\n# log_format: 1\n"
             "# run_id: %s_lab-h200_202611%02dT010000Z\n%s# host: %s\n"
             "# board: lab-h200, peak 4800.0 GB/s, has a GPU\n" HEADER "%s"
             "# end: complete\n", h, d, line, h, rows);
    free(th_write(dir, name, text));
}

/* A log of device dev_id (its device_id line; "" none) on host "lab", day d. */
static void write_log_dev(const char *dir, int d, const char *dev_id, const char *rows)
{
    char name[128], text[8192], line[160] = "";
    snprintf(name, sizeof(name), "lab_lab-h200_202611%02dT010000Z.csv.gz", d);
    if (dev_id[0])
        snprintf(line, sizeof(line), "# device_id: %s\n", dev_id);
    snprintf(text, sizeof(text), "# transpose-bench: 0.1.0\n# log_format: 1\n"
             "# run_id: lab_lab-h200_202611%02dT010000Z\n# images_sha256: " IMAGES "\n"
             "# host: lab\n# device: NVIDIA H200\n%s"
             "# board: lab-h200, peak 4800.0 GB/s, has a GPU\n" HEADER "%s"
             "# end: complete\n", d, line, rows);
    free(th_write(dir, name, text));
}

static void write_log_of(const char *dir, const char *h, int d, const char *img, const char *rows)
{
    write_log_named(dir, h, d, img, "", rows);
}

static void write_log(const char *dir, const char *h, int d, const char *rows)
{
    write_log_of(dir, h, d, IMAGES, rows);
}

/* One row of vec16 256x1 at 8192x8192 float on an H200 in no power mode. */
static void vec16_row(char *buf, size_t n, double ratio, double ci, double jpg, int cycles,
                      int capped)
{
    snprintf(buf, n, "lab,lab-h200,NVIDIA H200,vec16,float,8192,8192,256,1,3600,ok,ok,,"
             "%.5f,%.7g,%.5f,%d,%d\n", ratio, ci, jpg, cycles, capped);
}

static struct tb_rerun *learn(const char *dir)
{
    char line[512];
    struct tb_rerun *r = tb_rerun_learn(dir, "lab", "", "lab-h200", IMAGES, line,
                                        sizeof(line));
    assert_non_null(r);
    return r;
}

static void me_vec16(struct tb_log_rec *me)
{
    memset(me, 0, sizeof(*me));
    strcpy(me->host, "lab");
    strcpy(me->board, "lab-h200");
    strcpy(me->device, "NVIDIA H200");
    strcpy(me->kernel, "vec16");
    strcpy(me->elem, "float");
    me->rows = me->cols = 8192;
    me->bx = 256;
    me->by = 1;
    me->gpu_cap_mhz = me->emc_cap_mhz = NAN;
}

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

/* The sd whose successive nights all differ by a factor e^l: the differences' root mean
 * square over sqrt 2 (tb_sd_of_steps_rms). */
static double sd_of_steps(double l)
{
    return l / sqrt(2.0);
}

#define K TB_RERUN_PRIOR_RUNS   /* the settings' weight, in differences */

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
 * mean has variance (ci / t)^2, t by tb_rerun_cycles_df): nothing beyond the cycles is learned for the ratio
 * (the setting's weight alone is left, shrunk by three runs that saw nothing more); J/GB's
 * logged interval already holds such a term, so its spread is taken whole. */
static void test_spread_the_cycles_explain_teaches_nothing(void **state)
{
    int cycles = 4;
    double e1 = exp(0.01), s = sd_of_steps(0.01);
    double c = s * tb_t95((size_t)tb_rerun_cycles_df(cycles));
    const double ratio[] = { 1, e1, 1, e1 }, ci[] = { c, c, c, c };
    struct tb_rerun_sd sd;
    nights(ratio, ci, ratio, 4, cycles, &sd);
    assert_int_equal(sd.runs, 4);
    th_assert_close(sd.ratio, 0.004 * sqrt(K / (K + 3.0)), 2e-5);
    th_assert_close(sd.abs, sqrt((K * 0.008 * 0.008 + 3 * s * s) / (K + 3)), 1e-5);
}

/* What the earlier nights hold besides the board's own spread teaches little: seven nights
 * within 0.3% of each other with one of a ratio of 9000 among them (a broken night: its two
 * differences, over 4 times the median-based sd, are left out); nights that stepped 4.5%
 * once (a new JetPack: one difference, left out so); one night of wide cycles among tight ones (its own variance
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
        v[n++] = (struct tb_rerun_run){ 0, a[i], a[i], 1e-12, 4 };
    for (int i = 0; i < 3; i++)
        v[n++] = (struct tb_rerun_run){ 1, b[i], b[i], 1e-12, 4 };
    tb_rerun_pool(v, (size_t)n, &pc, &sd);
    assert_int_equal(sd.pairs, 6);
    th_assert_close(sd.ratio_df, 32.0 / 11.0 + 8.0 / 5.0, 1e-12);
    const double c[] = { 1.000, 1.003, 0.998, 9000, 1.002, 0.999 };
    n = 0;
    for (int i = 0; i < 6; i++)
        v[n++] = (struct tb_rerun_run){ 0, c[i], c[i], 1e-12, 4 };
    for (int i = 0; i < 3; i++)
        v[n++] = (struct tb_rerun_run){ 1, b[i], b[i], 1e-12, 4 };
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
        v[i] = (struct tb_rerun_run){ 0, i % 2 ? 1.003 : 1.0, 1.0, 1e-12, 4 };
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
        v[i] = (struct tb_rerun_run){ 0, x, x, 1e-12, 4 };
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
    v[6] = (struct tb_rerun_run){ 0, 9000, 9000, 1e-12, 4 };
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
        v[i] = (struct tb_rerun_run){ 0, x, x, 1e-12, 4 };
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
        v[i] = (struct tb_rerun_run){ 0, x, x, 1e-12, 4 };
        if (i)
            hi = fmax(hi, fabs(log(x / v[i - 1].ratio)));
    }
    tb_rerun_pool(v, 25, &pc, &sd);
    assert_int_equal(sd.pairs, 24);
    th_assert_close(sd.ratio_q95, hi, 1e-12);
}

/* Rows that are not this point's, or cannot teach, are left out: another kernel, size,
 * block, device or power mode; a power-capped row; a row without the cycles' interval; a
 * second row of one run; another host's log; a log of other kernel images (a new build's
 * kernels move their ratios: no night's spread) or from before the images were logged; a
 * damaged file. Two runs of the point remain. */
static void test_only_this_points_runs_count(void **state)
{
    char *dir = th_tmpdir(), a[256], b[256], rows[4096];
    vec16_row(a, sizeof(a), 1.19, 1e-6, 0.18, 4, 0);
    vec16_row(b, sizeof(b), 1.50, 1e-6, 0.30, 4, 0);   /* a second row of run 1: not taken */
    snprintf(rows, sizeof(rows), "%s%s"
             "lab,lab-h200,NVIDIA H200,tile2x2,float,8192,8192,32,8,3600,ok,ok,,1.9,1e-6,0.3,4,0\n"
             "lab,lab-h200,NVIDIA H200,vec16,float,4096,4096,256,1,3600,ok,ok,,1.9,1e-6,0.3,4,0\n"
             "lab,lab-h200,NVIDIA H200,vec16,float,8192,8192,128,1,3600,ok,ok,,1.9,1e-6,0.3,4,0\n"
             "lab,lab-h200,NVIDIA H100,vec16,float,8192,8192,256,1,3600,ok,ok,,1.9,1e-6,0.3,4,0\n"
             "lab,lab-h200,NVIDIA H200,vec16,float,8192,8192,256,1,3600,ok,ok,MAXN,1.9,1e-6,0.3,4,0\n",
             a, b);
    write_log(dir, "lab", 1, rows);
    vec16_row(a, sizeof(a), 1.90, 1e-6, 0.90, 4, 3);            /* capped: 3 of 4 */
    vec16_row(b, sizeof(b), 1.21, 1e-6, 0.19, 4, 0);
    snprintf(rows, sizeof(rows), "%s%s", a, b);   /* the capped row is skipped, b taken */
    write_log(dir, "lab", 2, rows);
    vec16_row(a, sizeof(a), 1.90, NAN, 0.90, 4, 0);            /* no cycles' interval */
    write_log(dir, "lab", 3, a);
    vec16_row(a, sizeof(a), 1.90, 1e-6, 0.90, 4, 0);
    write_log(dir, "other", 4, a);                               /* another host's */
    write_log_of(dir, "lab", 6, "77aa00", a);                    /* other kernel images */
    write_log_of(dir, "lab", 7, NULL, a);                        /* before the line */
    free(th_write(dir, "lab_lab-h200_20261105T010000Z.csv.gz", "\x1f\x8b\x08\x00garbage"));
    th_stderr_begin();
    struct tb_rerun *r = learn(dir);
    free(th_stderr_end());
    struct tb_log_rec me;
    me_vec16(&me);
    struct tb_rerun_sd sd;
    tb_rerun_sd(r, &me, &pc, &sd);
    assert_int_equal(sd.runs, 2);
    /* 1.21 and 1.19: one difference, ln(1.21 / 1.19) */
    double s = sd_of_steps(log(1.21 / 1.19));
    th_assert_close(sd.ratio, sqrt((K * 0.004 * 0.004 + s * s) / (K + 1)), 1e-6);
    tb_rerun_free(r);
    th_rmtree(dir);
    free(dir);
}

/* A card always at its power limit (the lent H200: every kernel at 691-701 of 700 W) learns
 * from its capped nights: two logs whose vec16 row was capped (3 of 4 blocks) 0.1% apart,
 * then two uncapped nights of it 1.8% apart, newer. A third night's uncapped row learns
 * from the uncapped pair alone (ln(1.12 / 1.10), no step to or from a capped night), a
 * capped one from the capped pair alone (ln(1.2012 / 1.2)), and its interval is the narrower
 * for it; the capped nights alone teach the uncapped row nothing (the settings). */
static void test_capped_rows_learn_from_capped_rows(void **state)
{
    char *dir = th_tmpdir(), row[256];
    const double capped[] = { 1.2000, 1.2012 }, free_[] = { 1.10, 1.12 };
    for (int d = 0; d < 2; d++) {
        vec16_row(row, sizeof(row), capped[d], 1e-6, 0.18, 4, 3);
        write_log(dir, "lab", 1 + d, row);
    }
    struct tb_log_rec me;
    me_vec16(&me);
    struct tb_rerun_sd sd, cap;
    struct tb_rerun *r = learn(dir);
    tb_rerun_sd(r, &me, &pc, &sd);
    tb_rerun_free(r);
    assert_int_equal(sd.runs, 0);   /* the uncapped row: capped nights teach it nothing */
    th_assert_close(sd.ratio, 0.004, 1e-12);
    assert_int_equal(sd.cap.runs, 2);
    double sc = sd_of_steps(log(1.2012 / 1.2));
    th_assert_close(sd.cap.ratio, sqrt((K * 0.004 * 0.004 + sc * sc) / (K + 1)), 1e-6);
    for (int d = 0; d < 2; d++) {
        vec16_row(row, sizeof(row), free_[d], 1e-6, 0.18, 4, 0);
        write_log(dir, "lab", 3 + d, row);
    }
    r = learn(dir);
    tb_rerun_sd(r, &me, &pc, &sd);
    tb_rerun_free(r);
    double su = sd_of_steps(log(1.12 / 1.10));
    assert_int_equal(sd.runs, 2);
    th_assert_close(sd.ratio, sqrt((K * 0.004 * 0.004 + su * su) / (K + 1)), 1e-6);
    tb_rerun_as_capped(&sd, &cap);
    assert_int_equal(cap.runs, 2);
    assert_int_equal(cap.pairs, 1);
    th_assert_close(cap.ratio, sqrt((K * 0.004 * 0.004 + sc * sc) / (K + 1)), 1e-6);
    /* the capped night's rerun interval from its own kind's spread: narrower than the
     * uncapped series' (which holds a 1.8% step) */
    double hw_cap = tb_rerun_halfwidth(&cap, 0.001, 3, 4), hw = tb_rerun_halfwidth(&sd, 0.001, 3, 4);
    assert_true(hw_cap < hw);
    th_rmtree(dir);
    free(dir);
}

/* Two H200s in one host writing to one folder (their device_ids, NVML's UUIDs): GPU a's
 * nights agree to 0.05%, GPU b's alternate by 5%; each learns its own spread, not one
 * spread of both (b's 12 times a's, once). A night whose GPU gave no UUID is neither as far
 * as anyone knows: it learns from neither's logs (#58 item 10: it learnt both GPUs' 12
 * runs), the settings alone, and from the unidentified logs of its name once there are
 * some (three nights 0.1% apart, beside a and b's). */
static void test_two_gpus_of_one_host_learn_apart(void **state)
{
    char *dir = th_tmpdir(), row[256];
    for (int d = 1; d <= 6; d++) {
        vec16_row(row, sizeof(row), d % 2 ? 1.2000 : 1.2006, 1e-6, 0.18, 4, 0);
        write_log_dev(dir, d, "GPU-aaaa", row);
        vec16_row(row, sizeof(row), d % 2 ? 1.20 : 1.26, 1e-6, 0.18, 4, 0);
        write_log_dev(dir, 10 + d, "GPU-bbbb", row);
    }
    struct tb_log_rec me;
    me_vec16(&me);
    struct tb_rerun_sd a, b, both;
    struct tb_rerun *r = learn(dir);
    strcpy(me.device_id, "GPU-aaaa");
    tb_rerun_sd(r, &me, &pc, &a);
    strcpy(me.device_id, "GPU-bbbb");
    tb_rerun_sd(r, &me, &pc, &b);
    me.device_id[0] = '\0';
    tb_rerun_sd(r, &me, &pc, &both);
    tb_rerun_free(r);
    assert_int_equal(a.runs, 6);
    assert_int_equal(b.runs, 6);
    th_assert_close(a.ratio, sd_of_steps(log(1.2006 / 1.2)), 1e-6);
    th_assert_close(b.ratio, sd_of_steps(log(1.26 / 1.2)), 1e-6);
    assert_int_equal(both.runs, 0);   /* neither identified GPU's runs */
    th_assert_close(both.ratio, 0.004, 1e-12);
    for (int d = 21; d <= 23; d++) {
        vec16_row(row, sizeof(row), d % 2 ? 1.2000 : 1.2012, 1e-6, 0.18, 4, 0);
        write_log_dev(dir, d, "", row);
    }
    r = learn(dir);
    tb_rerun_sd(r, &me, &pc, &both);
    tb_rerun_free(r);
    assert_int_equal(both.runs, 3);   /* the unidentified logs alone */
    th_assert_close(both.ratio, sqrt((K * 0.004 * 0.004 + 2 * pow(sd_of_steps(log(1.2012 / 1.2)),
                                                                 2)) / (K + 2)), 1e-6);
    th_rmtree(dir);
    free(dir);
}

/* With power.points = fastest a kernel is one series whichever block was fastest: vec16's
 * fastest block changes from night to night (256x1, 128x2, its ratio 1.20 and 1.21) and
 * the nights teach that step; with power.points = all each block is its own series, whose
 * nights agree. */
static void test_fastest_block_changes_one_series(void **state)
{
    char *dir = th_tmpdir(), row[256];
    for (int d = 1; d <= 5; d++) {
        snprintf(row, sizeof(row), "lab,lab-h200,NVIDIA H200,vec16,float,8192,8192,%s,3600,ok,"
                 "ok,,%.5f,1e-6,0.18,4,0\n", d % 2 ? "256,1" : "128,2", d % 2 ? 1.2 : 1.21);
        write_log(dir, "lab", d, row);
    }
    struct tb_power_cfg fastest = pc, all = pc;
    strcpy(fastest.points, "fastest");
    strcpy(all.points, "all");
    struct tb_log_rec me;
    me_vec16(&me);
    struct tb_rerun_sd f, a;
    struct tb_rerun *r = learn(dir);
    tb_rerun_sd(r, &me, &fastest, &f);
    tb_rerun_sd(r, &me, &all, &a);
    tb_rerun_free(r);
    assert_int_equal(f.runs, 5);
    assert_int_equal(f.pairs, 4);
    th_assert_close(f.ratio, sd_of_steps(log(1.21 / 1.2)), 1e-6);
    /* each block its own series: 256x1's three nights and 128x2's two agree, 3 differences
     * of 0 beside the setting's K */
    assert_int_equal(a.runs, 5);
    assert_int_equal(a.pairs, 3);
    th_assert_close(a.ratio, 0.004 * sqrt(K / (K + 3.0)), 1e-9);
    th_rmtree(dir);
    free(dir);
}

/* The learner's thread waits here while stalled (a stuck file system's stand-in for an
 * open that never returns): the tool's weak hook, replaced for this program. */
static atomic_int stalled;
void tb_rerun_test_stall(void);
void tb_rerun_test_stall(void)
{
    while (atomic_load(&stalled))
        sched_yield();
}

/* Log folders as a night finds them (#50 item 8): a FIFO, a folder and a dangling link
 * named like logs of this host and board beside two good nights are passed over at once
 * (no open of them blocks) and the nights are learnt from; a learner held in a call that
 * does not return is left behind at the limit, or at once when a signal has asked the run
 * to stop, with the settings alone and the line saying why; it ends when its call does. */
static void test_a_stuck_log_does_not_stall_the_night(void **state)
{
    char *dir = th_tmpdir(), row[256], path[PATH_MAX], line[512];
    vec16_row(row, sizeof(row), 1.20, 1e-6, 0.18, 4, 0);
    write_log(dir, "lab", 1, row);
    vec16_row(row, sizeof(row), 1.21, 1e-6, 0.18, 4, 0);
    write_log(dir, "lab", 3, row);
    snprintf(path, sizeof(path), "%s/lab_lab-h200_20261102T010000Z.csv.gz", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(path, sizeof(path), "%s/lab_lab-h200_20261104T010000Z.csv.gz", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/lab_lab-h200_20261105T010000Z.csv.gz", dir);
    assert_int_equal(symlink("/nonexistent/log.csv.gz", path), 0);
    volatile sig_atomic_t stop = 0;
    th_stderr_begin();
    struct tb_rerun *r = tb_rerun_learn_bounded(dir, "lab", "", "lab-h200", IMAGES, 30, &stop,
                                                line, sizeof(line));
    free(th_stderr_end());
    assert_non_null(r);
    th_must_have(line, "2 earlier log(s)");
    struct tb_log_rec me;
    me_vec16(&me);
    struct tb_rerun_sd sd;
    tb_rerun_sd(r, &me, &pc, &sd);
    assert_int_equal(sd.runs, 2);
    tb_rerun_free(r);
    atomic_store(&stalled, 1);
    assert_null(tb_rerun_learn_bounded(dir, "lab", "", "lab-h200", IMAGES, 0, &stop, line,
                                       sizeof(line)));
    th_must_have(line, "were not read within 0 s");
    th_must_have(line, "the board file's settings alone");
    stop = 1;   /* SIGTERM's handler: the limit is not waited for */
    assert_null(tb_rerun_learn_bounded(dir, "lab", "", "lab-h200", IMAGES, 3600, &stop, line,
                                       sizeof(line)));
    th_must_have(line, "(stopped by a signal)");
    atomic_store(&stalled, 0);   /* the stuck calls return: their threads end on their own */
    th_rmtree(dir);
    free(dir);
}

/* Point vec16's spread as learned from dir now, its messages kept off stderr. */
static void vec16_sd(const char *dir, struct tb_rerun_sd *sd)
{
    struct tb_log_rec me;
    me_vec16(&me);
    th_stderr_begin();
    struct tb_rerun *r = learn(dir);
    free(th_stderr_end());
    tb_rerun_sd(r, &me, &pc, sd);
    tb_rerun_free(r);
}

/* One night's log and a copy of it kept under a second name (the same run_id): one run, so
 * the settings alone, not a spread of 0 from a run and itself pulling them down; a second
 * night then makes two runs, not three. */
static void test_a_copy_of_a_log_is_one_run(void **state)
{
    char *dir = th_tmpdir(), row[256];
    vec16_row(row, sizeof(row), 1.20, 1e-6, 0.18, 4, 0);
    write_log(dir, "lab", 1, row);
    write_log_named(dir, "lab", 1, IMAGES, "-1", row);
    struct tb_rerun_sd sd;
    vec16_sd(dir, &sd);
    assert_int_equal(sd.runs, 0);
    th_assert_close(sd.ratio, 0.004, 1e-12);
    vec16_row(row, sizeof(row), 1.22, 1e-6, 0.18, 4, 0);
    write_log(dir, "lab", 2, row);
    vec16_sd(dir, &sd);
    assert_int_equal(sd.runs, 2);
    th_rmtree(dir);
    free(dir);
}

/* What learning from dir says: its power_rerun line into line, its stderr into *err. */
static struct tb_rerun *learn_said(const char *dir, char *line, size_t n, char **err)
{
    th_stderr_begin();
    struct tb_rerun *r = tb_rerun_learn(dir, "lab", "", "lab-h200", IMAGES, line, n);
    *err = th_stderr_end();
    assert_non_null(r);
    return r;
}

/* Six nights whose logs hold 20000 rows each (a tune run's size): the newest five fill the
 * learner's 100000 rows, and the oldest is not opened at all, said in the power_rerun line,
 * rather than one "more than 100000 rows in all logs" error for it and every older log at
 * every night's start. */
static void test_rows_bound_stops_the_reading(void **state)
{
    char *dir = th_tmpdir(), row[256];
    vec16_row(row, sizeof(row), 1.20, 1e-6, 0.18, 4, 0);
    for (int d = 1; d <= 6; d++) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/lab_lab-h200_202611%02dT010000Z.csv.gz", dir, d);
        FILE *f = fopen(path, "w");   /* plain text, which the reader takes as gzip does */
        assert_non_null(f);
        fprintf(f, "# log_format: 1\n# run_id: lab_lab-h200_202611%02dT010000Z\n# host: lab\n"
                "# images_sha256: " IMAGES "\n# board: lab-h200, peak 4800.0 GB/s, has a GPU\n"
                HEADER, d);
        for (int i = 0; i < TB_RERUN_MAX_ROWS_PER_LOG + (d == 6); i++)
            fputs(row, f);   /* the newest one row past the bound a log (a tune run's) */
        assert_int_equal(fclose(f), 0);
    }
    char line[512], *err;
    struct tb_rerun *r = learn_said(dir, line, sizeof(line), &err);
    assert_null(strstr(err, "more than"));   /* cut silently, every night: the line says */
    th_must_have(line, "5 earlier log(s)");
    th_must_have(line, "1 older one(s) not read");
    struct tb_log_rec me;
    me_vec16(&me);
    struct tb_rerun_sd sd;
    tb_rerun_sd(r, &me, &pc, &sd);
    assert_int_equal(sd.runs, 5);   /* one row a run, of the five read */
    free(err);
    tb_rerun_free(r);
    th_rmtree(dir);
    free(dir);
}

/* A gzip bomb named like a log of this host and board: a megabyte or so that inflates to
 * 48 MB of empty lines. Each of four is read to the learner's 32 MB a log and no further,
 * and after 128 MB in all the older ones are not opened (not 1 GB a log, a minute each on
 * a Nano at every night's start). */
static void test_bytes_bound_stops_a_bomb(void **state)
{
    char *dir = th_tmpdir();
    static char blank[1 << 20];
    memset(blank, '\n', sizeof(blank));
    for (int d = 1; d <= 5; d++) {
        char path[PATH_MAX], head[512];
        snprintf(path, sizeof(path), "%s/lab_lab-h200_202611%02dT010000Z.csv.gz", dir, d);
        snprintf(head, sizeof(head), "# log_format: 1\n# run_id: lab_lab-h200_202611%02dT"
                 "010000Z\n# host: lab\n# board: lab-h200, peak 4800.0 GB/s, has a GPU\n"
                 HEADER, d);
        gzFile z = gzopen(path, "wb1");
        assert_non_null(z);
        assert_true(gzputs(z, head) > 0);
        for (int k = 0; k < 48; k++)
            assert_int_equal(gzwrite(z, blank, sizeof(blank)), (int)sizeof(blank));
        assert_int_equal(gzclose(z), Z_OK);
    }
    char line[512], *err;
    struct tb_rerun *r = learn_said(dir, line, sizeof(line), &err);
    assert_null(strstr(err, "more than"));   /* cut silently: the line says */
    th_must_have(line, "4 earlier log(s)");
    th_must_have(line, "1 older one(s) not read");
    free(err);
    tb_rerun_free(r);
    th_rmtree(dir);
    free(dir);
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
        TH_TEST(test_only_this_points_runs_count),
        TH_TEST(test_zero_setting_still_learns),
        TH_TEST(test_prior_only_interval_carries_its_uncertainty),
        TH_TEST(test_a_two_state_card_keeps_its_switches),
        TH_TEST(test_a_two_state_card_takes_its_own_bound),
        TH_TEST(test_a_copy_of_a_log_is_one_run),
        TH_TEST(test_capped_rows_learn_from_capped_rows),
        TH_TEST(test_two_gpus_of_one_host_learn_apart),
        TH_TEST(test_fastest_block_changes_one_series),
        TH_TEST(test_a_stuck_log_does_not_stall_the_night),
        TH_TEST(test_rows_bound_stops_the_reading),
        TH_TEST(test_bytes_bound_stops_a_bomb),
    };
    return cmocka_run_group_tests_name("power_rerun", tests, NULL, NULL);
}
