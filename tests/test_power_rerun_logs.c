/* test_power_rerun_logs.c: which earlier logs teach the rerun spread (src/energy/rerun.c):
 * only this host's, board's, device's, point's and step's runs count, one row a run, a copy
 * of a log once, power-capped rows apart, two GPUs of one host apart; a stuck log, a row
 * bomb and a byte bomb never hold the night. The spread's arithmetic: test_power_rerun.c. */
#include "rerun_logs.h"

#include <stdint.h>

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
    th_must_have(line, "were not read before a signal asked the run to end: the board file's "
                       "settings alone");
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

/* One gzip member of n bytes at p (level 1), into *len bytes (malloc). */
static unsigned char *gz_member(const void *p, size_t n, size_t *len)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    assert_int_equal(deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
                     Z_OK);
    size_t cap = deflateBound(&z, (uLong)n);
    unsigned char *out = malloc(cap);
    assert_non_null(out);
    z.next_in = (unsigned char *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* A gzip bomb named like a log of this host and board: a megabyte or so that inflates to
 * 48 MB of empty lines. Each of four is read to the learner's 32 MB a log and no further,
 * and after 128 MB in all the older ones are not opened (not 1 GB a log, a minute each on
 * a Nano at every night's start). Each file is its header's gzip member, then one member
 * of a megabyte of newlines 48 times (as `cat a.gz b.gz` joins them; compressed once: 240
 * MB deflated cost 10 s of the program's 20 under valgrind, #59). */
static void test_bytes_bound_stops_a_bomb(void **state)
{
    char *dir = th_tmpdir();
    static char blank[1 << 20];
    memset(blank, '\n', sizeof(blank));
    size_t mb_len;
    unsigned char *mb = gz_member(blank, sizeof(blank), &mb_len);
    for (int d = 1; d <= 5; d++) {
        char path[PATH_MAX], head[512];
        snprintf(path, sizeof(path), "%s/lab_lab-h200_202611%02dT010000Z.csv.gz", dir, d);
        int hn = snprintf(head, sizeof(head), "# log_format: 1\n# run_id: lab_lab-h200_202611"
                          "%02dT010000Z\n# host: lab\n# board: lab-h200, peak 4800.0 GB/s, has "
                          "a GPU\n" HEADER, d);
        size_t hl;
        unsigned char *hz = gz_member(head, (size_t)hn, &hl);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(hz, 1, hl, f), hl);
        for (int k = 0; k < 48; k++)
            assert_int_equal(fwrite(mb, 1, mb_len, f), mb_len);
        assert_int_equal(fclose(f), 0);
        free(hz);
    }
    free(mb);
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
        TH_TEST(test_only_this_points_runs_count),
        TH_TEST(test_a_copy_of_a_log_is_one_run),
        TH_TEST(test_capped_rows_learn_from_capped_rows),
        TH_TEST(test_two_gpus_of_one_host_learn_apart),
        TH_TEST(test_fastest_block_changes_one_series),
        TH_TEST(test_a_stuck_log_does_not_stall_the_night),
        TH_TEST(test_rows_bound_stops_the_reading),
        TH_TEST(test_bytes_bound_stops_a_bomb),
    };
    return cmocka_run_group_tests_name("power_rerun_logs", tests, NULL, NULL);
}
