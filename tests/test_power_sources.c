/* test_power_sources.c: the table of power sources (src/power/sources.c) is the one place
 * that lists them. A source added by its file and its one row there, and nothing else (the
 * test meter of tests/fake_meter.c, whose row the test-only executable's table carries),
 * is detected by "auto" where its device is and not where it is absent, listed with its
 * help line, named in power.source's help, sampled through a CPU night and logged with
 * the model its row documents; on the fake clock (TB_FAKE_CLOCK=1). In process: the
 * table's names are what power.source's help and its error give, every source's
 * documented models are reached through its row. Fixture: TH_TEST. */
#include "helpers.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "power/power.h"

/* A board whose power.source is "auto", read under root: no INA3221 there, no tegrastats
 * to run; with_meter: root holds the test meter's file (5 W). */
static char *meter_board(const char *dir, bool with_meter)
{
    char root[PATH_MAX], text[2 * PATH_MAX + 512];
    snprintf(root, sizeof(root), "%s/root", dir);
    free(th_write(root, with_meter ? "test-meter/power_mw" : "etc/hostname",
                  with_meter ? "5000\n" : "bench\n"));
    snprintf(text, sizeof(text),
             "board = { name = \"meter-bench\"; peak_gbps = 68.0; };\n"
             "power = { source = \"auto\"; interval_ms = 20; window_ms = 700; min_readings = 2; "
             "max_rel_ci = 10.0; idle_ms = 400; settle_s = 0; total_rail = \"METER_IN\"; "
             "sysfs_root = \"%s\"; tegrastats = { command = \"%s/no-tegrastats\"; }; };\n",
             root, dir);
    return th_write(dir, "board.cfg", text);
}

/* The line of `list` that names source name ("" when none). */
static const char *list_line(const char *out, const char *name, char *buf, size_t n)
{
    char key[64];
    snprintf(key, sizeof(key), "\n  %s ", name);
    const char *l = strstr(out, key);
    buf[0] = '\0';
    if (l)
        snprintf(buf, n, "%.*s", (int)strcspn(l + 1, "\n"), l + 1);
    return buf;
}

/* Detected where its file is, not where it is absent; its help line is listed. */
static void test_new_source_detected_by_its_row(void **state)
{
    th_use_fake_clock();
    const char *dir = th_scratch();
    char line[512], sub[PATH_MAX];
    char *board = meter_board(dir, true);
    assert_int_equal(th_runf("list -b %s", board), 0);
    list_line(th_out(), "test-meter", line, sizeof(line));
    if (!strstr(line, "TEST BUILD ONLY: tests/fake_meter.c") || !strstr(line, "usable here"))
        th_fail("list says of the test meter: '%s' in\n%s", line, th_out());
    free(board);
    snprintf(sub, sizeof(sub), "%s/absent", dir);
    board = meter_board(sub, false);
    assert_int_equal(th_runf("list -b %s", board), 0);
    list_line(th_out(), "test-meter", line, sizeof(line));
    if (!strstr(line, "not usable: ") || !strstr(line, "test-meter/power_mw"))
        th_fail("with no meter, list says: '%s'", line);
    free(board);
    /* the setting's help names it, from the same table */
    assert_int_equal(th_runf("help settings power.source"), 0);
    th_must_have(th_out(), "test-meter");
}

/* A CPU night with power.source "auto" on the board where the meter is: it is picked,
 * sampled (its 5 W with +-20 mW of noise in the rows) and logged, its cadence line saying
 * the model of its row. */
static void test_new_source_through_a_night(void **state)
{
    th_use_fake_clock();
    setenv("TB_FAKE_CLOCK_WORK", "100", 1);   /* its load: 10 ms of real work a second */
    const char *dir = th_scratch();
    char *out, args[2048], v[64];
    char *board = meter_board(dir, true);
    snprintf(args, sizeof(args), "run --device cpu -b %s --sizes 128x128 --kernels blocked "
             "--blocks 16x16 --set sweep.stop.min_time_ms=5 --set power.rounds=1 -o %%s", board);
    char *text = th_run_log(args, 0, true, &out, NULL);
    th_must_have(out, " W (test-meter)\n");   /* its idle power, said by name */
    const char *header;
    assert_int_equal(th_data_rows(text, &header), 2);
    for (int i = 0; i < 2; i++) {
        const char *row = th_row_at(header, i);
        th_field(header, row, "power_source", v, sizeof(v));
        assert_string_equal(v, "test-meter");
        th_field(header, row, "rail_total", v, sizeof(v));
        assert_string_equal(v, "METER_IN");
        th_field(header, row, "power_total_w", v, sizeof(v));
        if (!(atof(v) >= 4.98 && atof(v) <= 5.02))
            th_fail("row %d: power_total_w '%s', not the meter's 5 W", i, v);
        th_field(header, row, "power_idle_w", v, sizeof(v));
        assert_true(atof(v) >= 4.98 && atof(v) <= 5.02);
        th_field(header, row, "power_samples", v, sizeof(v));
        assert_true(atoi(v) >= 3);
    }
    th_must_have(text, "# power_source: test-meter\n");
    th_must_have(text, "# power_cadence: model boxcar, tau 100 ms (tests/fake_meter.c: a mean "
                       "over each 100 ms");
    free(text);
    free(out);
    free(board);
}

/* In process (the tool's own table): power.source's help line and its error list every
 * row's name after "auto", in the table's order; every row's documented models are found
 * by key through it, and a key no row has is not. */
static void test_names_and_models_from_the_table(void **state)
{
    char names[512], want[512];
    tb_power_source_names(names, sizeof(names));
    size_t len = (size_t)snprintf(want, sizeof(want), "auto");
    int rows = 0;
    for (const struct tb_power_ops *const *p = tb_power_sources; *p; p++, rows++) {
        len += (size_t)snprintf(want + len, sizeof(want) - len, ", %s", (*p)->name);
        assert_ptr_equal(tb_power_find((*p)->name), *p);
        for (const struct tb_sensor_doc *d = (*p)->models; d && d->key; d++) {
            struct tb_sensor_model m;
            assert_int_equal(tb_power_model_documented(d->key, 2, &m), 0);
            assert_int_equal(m.kind, d->kind);
            assert_true(m.tau_ms[1] == d->tau_ms);
            assert_string_equal(m.from, d->doc);
        }
    }
    assert_true(rows >= 2);
    assert_string_equal(names, want);
    struct tb_sensor_model m;
    assert_int_equal(tb_power_model_documented("no-such-sensor", 2, &m), -1);
    assert_int_equal(m.kind, TB_SENSOR_UNKNOWN);
    /* a board naming no source of the table: the error lists them (FILE:LINE, exit 2) */
    const char *dir = th_scratch();
    char *board = th_write(dir, "b.cfg", "board = { name = \"x\"; };\n"
                                         "power = { source = \"qqqqqqqqqq\"; };\n");
    assert_int_equal(th_runf("list -b %s", board), 2);
    char said[640];
    snprintf(said, sizeof(said), "b.cfg:2: unknown power source 'qqqqqqqqqq' (%s)", names);
    th_must_have(th_err(), said);
    free(board);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        TH_TEST(test_new_source_detected_by_its_row),
        TH_TEST(test_new_source_through_a_night),
        TH_TEST(test_names_and_models_from_the_table),
    };
    return cmocka_run_group_tests_name("power_sources", tests, th_lock_setup, th_lock_teardown);
}
