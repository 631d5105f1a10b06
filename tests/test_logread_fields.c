/* test_logread_fields.c: what the log reader makes of a log's rows and metadata: impossible
 * numbers flagged, the one number parser, too many columns said, machine-ids and device ids
 * that keep hosts and GPUs apart, metadata values and the keys doc/log-format.md lists; the
 * energy figures by their column names, and the rerun interval of logs from before its
 * column. Hostile files: test_logread.c. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "log/csvlog.h"
#include "log/log_meta.h"
#include "log/logread.h"

#define HEAD "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,block_x,block_y,gbps," \
             "rel_sem,status,frac_peak,frac_copy,gbps_per_w\n"

static void must_have(const char *text, const char *want)
{
    if (!text || !strstr(text, want))
        th_fail("missing '%s' in:\n%.3000s", want, text ? text : "(null)");
}

/* Reads path into a fresh set; stderr into *said. Returns tb_logread's result. */
static int read_one(struct tb_logset *s, const char *path, char **said)
{
    tb_logset_init(s, "compare");
    th_stderr_begin();
    int rc = tb_logread(s, path);
    *said = th_stderr_end();
    return rc;
}

/* inf, NaN, negative, 1e308 GB/s, 5e-324 GB/s (below 1 MB/s: a timer gone wrong, once shown
 * as 0.0 among best points, #40) and a figure 50 times the peak: flagged, never usable;
 * secondary figures that cannot be are no figures; 12.5 is possible. */
static void test_impossible_numbers_are_flagged(void **state)
{
    char *dir = th_tmpdir(), *said;
    char *path = th_write(dir, "x.csv", HEAD
        "h_b_20261101T020000Z,b,d,inf,float,64,64,8,8,inf,0.01,ok,,,\n"
        "h_b_20261101T020000Z,b,d,nan,float,64,64,8,8,nan,0.01,ok,,,\n"
        "h_b_20261101T020000Z,b,d,neg,float,64,64,8,8,-5,0.01,ok,,,\n"
        "h_b_20261101T020000Z,b,d,huge,float,64,64,8,8,1e308,0.01,ok,,,\n"
        "h_b_20261101T020000Z,b,d,peak,float,64,64,8,8,500,0.01,suspect,50,,\n"
        "h_b_20261101T020000Z,b,d,tiny,float,64,64,8,8,5e-324,0.01,ok,,1e308,-3\n"
        "h_b_20261101T020000Z,b,d,fine,float,64,64,8,8,12.5,0.01,ok,0.5,0.9,2\n"
        "# end: complete, 7 rows\n");
    struct tb_logset s;
    assert_int_equal(read_one(&s, path, &said), 7);
    const bool usable[7] = { false, false, false, false, false, false, true };
    for (int i = 0; i < 7; i++)
        if (tb_log_usable(&s.v[i]) != usable[i])
            th_fail("row %d (%s): usable %d", i, s.v[i].kernel, !usable[i]);
    assert_true(s.v[0].impossible && s.v[2].impossible && s.v[3].impossible &&
                s.v[4].impossible && s.v[5].impossible);
    assert_true(isnan(s.v[5].frac_copy) && isnan(s.v[5].gbps_per_w));
    th_assert_close(s.v[6].frac_copy, 0.9, 1e-12);
    must_have(said, "x.csv:3: inf 64x64: impossible figures (gbps 'inf'); flagged");
    must_have(said, "x.csv:6: huge 64x64: impossible figures (gbps '1e308')");
    free(said);
    free(path);
    tb_logset_free(&s);
    /* a log full of them: ten named, then a count, not a flood */
    char text[4096];
    size_t len = (size_t)snprintf(text, sizeof(text), "%s", HEAD);
    for (int i = 0; i < 15; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len,
                                "h_b_20261101T020000Z,b,d,k,float,64,64,8,8,inf,0.01,ok,,,\n");
    path = th_write(dir, "many.csv", text);
    assert_int_equal(read_one(&s, path, &said), 15);
    int named = 0;
    for (const char *p = said; (p = strstr(p, "impossible figures (gbps")); p++)
        named++;
    assert_int_equal(named, 10);
    must_have(said, "many.csv: 15 rows with impossible figures in all (the first 10 named above)");
    free(said);
    free(path);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

/* One number parser for every reader (tb_log_number: compare's --threshold syntax): hex
 * "0x10" (strtod's 16) is no figure and its row impossible, "-0" is no GB/s per W, and a
 * figure whose interval cannot be (1e-300 GB/s per W, -1e308) goes with it. history and
 * compare then agree: neither shows or judges such a night. */
static void test_one_number_parser(void **state)
{
    assert_true(isnan(tb_log_number("0x10")));
    assert_true(isnan(tb_log_number(" 1")));
    assert_true(isnan(tb_log_number("1e")));
    assert_true(isnan(tb_log_number("infinity")));
    assert_true(isnan(tb_log_number("")));
    th_assert_close(tb_log_number("-2.5e1"), -25, 0);
    th_assert_close(tb_log_number("12.5"), 12.5, 0);
    const char *dir = th_scratch();
    char text[2048], *said;
    const char *head = "# log_format: 1\nrun_id,board,device,kernel,elem,rows,cols,block_x,"
                       "block_y,gbps,rel_sem,status,frac_copy,gbps_per_w,gbps_per_w_ci95\n";
    const char *gbps[4] = { "10", "10", "10", "0x10" };
    for (int n = 1; n <= 4; n++) {
        snprintf(text, sizeof(text), "%sh_x_202611%02dT023000Z,b,d,k,float,64,64,8,8,%s,0.01,ok,"
                 "-0,1e-300,-1e308\nh_x_202611%02dT023000Z,b,d,memcpy,float,64,64,0,0,20,0.01,"
                 "ok,1,2,0.1\n# end: complete, 2 rows\n", head, n, gbps[n - 1], n);
        char name[64];
        snprintf(name, sizeof(name), "h_x_202611%02dT023000Z.csv", n);
        free(th_write(dir, name, text));
    }
    struct tb_logset s;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/h_x_20261104T023000Z.csv", dir);
    assert_int_equal(read_one(&s, path, &said), 2);
    assert_true(s.v[0].impossible);
    assert_false(tb_log_usable(&s.v[0]));
    must_have(said, "h_x_20261104T023000Z.csv:3: k 64x64: impossible figures (gbps '0x10')");
    assert_true(isnan(s.v[0].frac_copy));
    assert_true(isnan(s.v[0].gbps_per_w) && isnan(s.v[0].gbps_per_w_ci95));
    th_assert_close(s.v[1].gbps_per_w, 2, 0);
    th_assert_close(s.v[1].gbps_per_w_ci95, 0.1, 1e-12);
    free(said);
    tb_logset_free(&s);
    /* the commands: night 4 of k is left out, never "higher" at 16 GB/s; no 0.000 GB/s/W */
    assert_int_equal(th_runf("history %s/h_x_*.csv", dir), 0);
    assert_null(strstr(th_out(), "16.0"));
    assert_null(strstr(th_out(), "higher"));
    assert_null(strstr(th_out(), "0.000"));
    must_have(th_err(), "impossible figures (gbps '0x10')");
    assert_int_equal(th_runf("compare %s/h_x_*.csv", dir), 0);
    assert_null(strstr(th_out(), "16.0"));
    assert_null(strstr(th_out(), "0.000"));
}

/* A header of 10,000 columns is said as what it is (too many columns, with the limit), not
 * as "not a transpose-bench log (no 'board' column)" while board is its second column; a
 * header whose quote is never closed says that. */
static void test_too_many_columns_said(void **state)
{
    char *dir = th_tmpdir(), *said;
    size_t cap = 200000, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "# log_format: 1\nrun_id,board,device,kernel,elem,rows,"
                            "cols,block_x,block_y,gbps");
    for (int i = 0; i < 9990; i++)
        len += (size_t)snprintf(text + len, cap - len, ",x%d", i);
    snprintf(text + len, cap - len, "\nh_x_20261101T023000Z,b,d,k,float,64,64,8,8,10\n"
             "# end: complete, 1 rows\n");
    char *path = th_write(dir, "wide.csv", text);
    struct tb_logset s;
    read_one(&s, path, &said);
    assert_int_equal(s.n, 0);
    must_have(said, "wide.csv:2: the header has 10000 columns, more than the 256 a log may have");
    assert_null(strstr(said, "not a transpose-bench log"));
    free(said);
    tb_logset_free(&s);
    free(path);
    path = th_write(dir, "quote.csv", "# log_format: 1\nrun_id,\"board,device,kernel,elem,rows,"
                    "cols,gbps\n# end: complete, 0 rows\n");
    read_one(&s, path, &said);
    must_have(said, "quote.csv:2: the header is no CSV line (a quote not closed)");
    free(said);
    tb_logset_free(&s);
    free(path);
    free(text);
    th_rmtree(dir);
    free(dir);
}

/* Two hosts named nano with their own machine-ids stay apart; an old log of a name only one
 * machine-id goes with takes it, one of a name several machines share stays without. */
static void test_machine_ids_keep_hosts_apart(void **state)
{
    char *dir = th_tmpdir(), text[2048], name[64];
    struct tb_logset s;
    tb_logset_init(&s, "history");
    const char *hosts[4] = { "nano", "nano", "nano", "orin" };
    const char *ids[4] = { "aaaa", "bbbb", "", "" };
    th_stderr_begin();
    for (int i = 0; i < 4; i++) {
        snprintf(text, sizeof(text), "# run_id: %s_b_2026110%dT020000Z\n%s%s%s"
                 "run_id,board,kernel,rows,cols,gbps,status\n"
                 "%s_b_2026110%dT020000Z,b,k,64,64,%d,ok\n# end: complete, 1 rows\n",
                 hosts[i], i + 1, ids[i][0] ? "# machine_id: " : "", ids[i],
                 ids[i][0] ? "\n" : "", hosts[i], i + 1, 10 + i);
        snprintf(name, sizeof(name), "l%d.csv", i);
        char *p = th_write(dir, name, text);
        assert_int_equal(tb_logread(&s, p), 1);
        free(p);
    }
    /* orin's machine-id appears in a later log of its own */
    char *p = th_write(dir, "l4.csv", "# run_id: orin_b_20261106T020000Z\n# machine_id: cccc\n"
                       "run_id,board,kernel,rows,cols,gbps,status\n"
                       "orin_b_20261106T020000Z,b,k,64,64,20,ok\n");
    assert_int_equal(tb_logread(&s, p), 1);
    free(th_stderr_end());
    free(p);
    tb_logset_fill_ids(&s);
    assert_string_equal(s.v[0].host_id, "aaaa");
    assert_string_equal(s.v[1].host_id, "bbbb");
    assert_string_equal(s.v[2].host_id, "");       /* nano: two machines, not guessed */
    assert_string_equal(s.v[3].host_id, "cccc");   /* orin: one machine */
    assert_true(tb_log_host_cmp(s.v[0].host, s.v[0].host_id, s.v[1].host, s.v[1].host_id) != 0);
    assert_int_equal(tb_log_host_cmp(s.v[3].host, s.v[3].host_id, s.v[4].host, s.v[4].host_id),
                     0);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

/* Two GPUs of one model in one host (their device_id lines: NVML's UUIDs) are two devices;
 * an old log without the line joins the one device of its host and name that logged one,
 * and where two did it stays without (a series of its own), never guessed; a log of
 * another device name is never given one. */
static void test_device_ids_keep_gpus_apart(void **state)
{
    char *dir = th_tmpdir(), text[2048], name[64];
    struct tb_logset s;
    tb_logset_init(&s, "history");
    const char *hosts[5] = { "lab", "lab", "lab", "solo", "solo" };
    const char *devs[5] = { "H200", "H200", "H200", "L4", "L4" };
    const char *ids[5] = { "GPU-aaaa", "GPU-bbbb", "", "GPU-cccc", "" };
    th_stderr_begin();
    for (int i = 0; i < 5; i++) {
        snprintf(text, sizeof(text), "# run_id: %s_b_2026110%dT020000Z\n# device: %s\n%s%s%s"
                 "run_id,board,device,kernel,rows,cols,gbps,status\n"
                 "%s_b_2026110%dT020000Z,b,%s,k,64,64,%d,ok\n# end: complete, 1 rows\n",
                 hosts[i], i + 1, devs[i], ids[i][0] ? "# device_id: " : "", ids[i],
                 ids[i][0] ? "\n" : "", hosts[i], i + 1, devs[i], 10 + i);
        snprintf(name, sizeof(name), "l%d.csv", i);
        char *p = th_write(dir, name, text);
        assert_int_equal(tb_logread(&s, p), 1);
        free(p);
    }
    free(th_stderr_end());
    assert_string_equal(s.v[0].device_id, "GPU-aaaa");
    assert_true(tb_log_device_cmp(&s.v[0], &s.v[1]) != 0);   /* two GPUs, one name */
    assert_int_equal(tb_log_device_cmp(&s.v[0], &s.v[2]), 0);   /* no id: by the name */
    assert_true(tb_log_device_cmp(&s.v[2], &s.v[3]) != 0);
    tb_logset_fill_device_ids(&s);
    assert_string_equal(s.v[2].device_id, "");            /* lab: two GPUs, not guessed */
    assert_string_equal(s.v[4].device_id, "GPU-cccc");    /* solo: one */
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

/* The metadata keys: the reader finds them by the same table the writers use. */
static void test_meta_value(void **state)
{
    assert_string_equal(tb_meta_value("# machine_id: abc", TB_META_machine_id), "abc");
    assert_null(tb_meta_value("# machine_idx: abc", TB_META_machine_id));
    assert_null(tb_meta_value("machine_id: abc", TB_META_machine_id));
    assert_string_equal(tb_meta_value("# end: complete, 3 rows", TB_META_end), "complete, 3 rows");
    assert_true(tb_meta_known("gpu_devfreq"));
    assert_false(tb_meta_known("gpu_devfreqs"));
}

/* doc/log-format.md's metadata table is src/log/log_meta.h's list, row for row
 * (scripts/log-format-doc.sh writes it). */
static void test_doc_lists_every_key(void **state)
{
    char *doc = th_read_gz("doc/log-format.md");
    assert_non_null(doc);
    const char *at = strstr(doc, "## Metadata keys");
    assert_non_null(at);
    for (size_t i = 0; i < TB_META_N; i++) {
        char row[1024];
        snprintf(row, sizeof(row), "| `%s` | %s | %s |\n", tb_meta_keys[i].key,
                 tb_meta_keys[i].when, tb_meta_keys[i].doc);
        const char *hit = strstr(at, row);
        if (!hit)
            th_fail("doc/log-format.md lacks the row (run scripts/log-format-doc.sh):\n%s", row);
        at = hit;   /* in the list's order */
    }
    free(doc);
}

/* The energy figures by their column names (log/energy_figures.h): a row the writer made,
 * each figure a value of its own, read back from the log and taken as the runner's summary
 * takes it (tb_log_rec_from_row): every figure the record keeps is the column's, in both. */
static void test_energy_figures_by_their_column_names(void **state)
{
    char *dir = th_tmpdir(), *said;
    struct tb_row row;
    tb_row_init(&row);
    row.run_id = "h_b_20261101T020000Z";
    row.board = "b";
    row.device = "d";
    row.kernel = "k";
    row.elem = "float";
    row.rows = row.cols = 64;
    row.gbps = 12.5;
    row.status = TB_STATUS_OK;
    double v = 2;   /* whole numbers: each column's format keeps them */
#define SET(name, keep, max) row.name = v++;
    TB_ENERGY_FIGURES(SET)
#undef SET
    static char text[16384];
    size_t len = (size_t)snprintf(text, sizeof(text), "# log_format: 1\n");
    tb_header_format(text + len, sizeof(text) - len);
    len = strlen(text);
    text[len++] = '\n';
    tb_row_format(&row, text + len, sizeof(text) - len);
    len = strlen(text);
    snprintf(text + len, sizeof(text) - len, "\n# end: complete, 1 rows\n");
    char *p = th_write(dir, "h_b_20261101T020000Z.csv", text);
    struct tb_logset s;
    assert_int_equal(read_one(&s, p, &said), 1);
    struct tb_log_rec mine;
    tb_log_rec_from_row(&row, &mine);
    int kept = 0;
#define NO(name)
#define KEPT(name) assert_true(s.v[0].name == row.name && mine.name == row.name); kept++;
#define CHECK(name, keep, max) TB_CHECK_##keep(name)
#define TB_CHECK_NO(name) NO(name)
#define TB_CHECK_POS(name) KEPT(name)
#define TB_CHECK_SIGNED(name) KEPT(name)
#define TB_CHECK_COUNT(name) KEPT(name)
    TB_ENERGY_FIGURES(CHECK)
    assert_int_equal(kept, 13);
    free(said);
    free(p);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

/* A log from before energy_ratio_rerun_ci95: the record's energy_ratio_rerun_ci95 is its
 * energy_ratio_ci95 (then where a rerun lands), which history judges by; with the column,
 * each its own. Each kept figure by its rule: a count cut to whole, a temperature and the
 * dynamic energy below 0 kept, a negative J/GB no figure. */
static void test_rerun_interval_of_old_logs(void **state)
{
    char *dir = th_tmpdir(), *said;
    char *p = th_write(dir, "old.csv", "# log_format: 1\nrun_id,board,device,kernel,elem,rows,"
                       "cols,gbps,energy_ratio,energy_ratio_ci95,power_cycles,gpu_temp_c,"
                       "dyn_pj_per_byte,j_per_gb\n"
                       "h_b_20261101T020000Z,b,d,k,float,64,64,10,1.1,0.02,2.7,-5,-3,-1\n"
                       "h_b_20261101T020000Z,b,d,k,float,64,64,10,1.1,0.02,0,400,-3,0.2\n"
                       "# end: complete, 2 rows\n");
    struct tb_logset s;
    assert_int_equal(read_one(&s, p, &said), 2);
    th_assert_close(s.v[0].energy_ratio_ci95, 0.02, 0);
    th_assert_close(s.v[0].energy_ratio_rerun_ci95, 0.02, 0);
    assert_int_equal(s.v[0].power_cycles, 2);
    assert_int_equal(s.v[1].power_cycles, 0);
    th_assert_close(s.v[0].gpu_temp_c, -5, 0);
    assert_true(isnan(s.v[1].gpu_temp_c));
    th_assert_close(s.v[0].dyn_pj_per_byte, -3, 0);
    assert_true(isnan(s.v[0].j_per_gb));
    th_assert_close(s.v[1].j_per_gb, 0.2, 0);
    free(said);
    free(p);
    tb_logset_free(&s);
    p = th_write(dir, "new.csv", "# log_format: 1\nrun_id,board,device,kernel,elem,rows,"
                 "cols,gbps,energy_ratio,energy_ratio_ci95,energy_ratio_rerun_ci95\n"
                 "h_b_20261101T020000Z,b,d,k,float,64,64,10,1.1,0.02,0.05\n"
                 "h_b_20261101T020000Z,b,d,k,float,64,64,10,1.1,0.02,\n"
                 "# end: complete, 2 rows\n");
    assert_int_equal(read_one(&s, p, &said), 2);
    th_assert_close(s.v[0].energy_ratio_ci95, 0.02, 0);
    th_assert_close(s.v[0].energy_ratio_rerun_ci95, 0.05, 0);
    th_assert_close(s.v[1].energy_ratio_rerun_ci95, 0.02, 0);   /* none written: the cycles' */
    free(said);
    free(p);
    tb_logset_free(&s);
    th_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_impossible_numbers_are_flagged),
        TH_TEST(test_one_number_parser),
        cmocka_unit_test(test_too_many_columns_said),
        cmocka_unit_test(test_machine_ids_keep_hosts_apart),
        cmocka_unit_test(test_device_ids_keep_gpus_apart),
        cmocka_unit_test(test_meta_value),
        cmocka_unit_test(test_doc_lists_every_key),
        cmocka_unit_test(test_energy_figures_by_their_column_names),
        cmocka_unit_test(test_rerun_interval_of_old_logs),
    };
    return cmocka_run_group_tests_name("logread", tests, NULL, NULL);
}
