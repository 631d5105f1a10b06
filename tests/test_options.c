/* test_options.c: one rule per class of command-line value, fed what an adversary types:
 * numbers in hex, past any sense, with blanks or text after them (the one number parser,
 * util.h's tb_parse_number), words after a command that takes none, an empty folder, a size
 * listed twice. Each is exit 2 with the option named, before anything is measured. */
#include "helpers.h"

#include <limits.h>
#include <math.h>

#include "lib/util.h"

static void test_one_number_parser(void **state)
{
    double v = -1;
    const char *good[] = { "16", "2.5", "1e3", "0.25", ".5", "5.", "1E+2" };
    const double want[] = { 16, 2.5, 1000, 0.25, 0.5, 5, 100 };
    for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
        assert_int_equal(tb_parse_number(good[i], 0, true, 1e6, &v), 0);
        th_assert_close(v, want[i], 1e-12);
    }
    const char *bad[] = { "0x10", "0X1p4", "inf", "nan", " 5", "5 ", "5s", "", "-1", "+1",
                          "1e", "1e+", ".", "1e999", "0", "1e7" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
        if (tb_parse_number(bad[i], 0, true, 1e6, &v) == 0)
            th_fail("'%s' read as %g", bad[i], v);
    assert_int_equal(tb_parse_number("0", 0, false, 100, &v), 0);   /* closed at lo */
    assert_int_equal(tb_parse_number("-2", -5, false, 5, &v), 0);
    th_assert_close(v, -2, 0);
    long a, b;
    assert_int_equal(tb_parse_pair("64x32", &a, &b), 0);
    assert_true(a == 64 && b == 32);
    const char *pairs[] = { "0x10x4", " 64x64", "+64x64", "64x-4", "64x", "x64",
                            "1234567890123456789x1" };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(*pairs); i++)
        if (tb_parse_pair(pairs[i], &a, &b) == 0)
            th_fail("'%s' read as %ldx%ld", pairs[i], a, b);
}

/* The real binary: every form below is exit 2 saying what was wrong, nothing measured. */
static void test_bad_values_exit_2(void **state)
{
    const char *d = th_scratch();
    const char *log = th_fixture("logs/h100-bench-subset.csv.gz");
    struct { const char *args, *says; } cases[] = {
        { "power --seconds 0x10", "--seconds '0x10'" },
        { "power --seconds 1e308", "--seconds '1e308'" },
        { "compare --threshold 0x10 @", "--threshold '0x10'" },
        { "compare --threshold 1e308 @", "--threshold '1e308'" },
        { "tune --device cpu --seconds 0x10 -o @", "--seconds '0x10'" },
        { "power extra", "unexpected argument 'extra'" },
        { "list extra", "unexpected argument 'extra'" },
        { "version extra", "unexpected argument 'extra'" },
        { "help run extra", "unexpected argument 'extra'" },
        { "run --device cpu --set output.dir= --sizes 8x8", "'output.dir' is empty" },
        { "run --device cpu -o '' --sizes 8x8", "'output.dir' is empty" },
        { "run --device cpu --sizes 64x64,64x64 -o @", "[64, 64] is listed already" },
        { "run --device cpu --kernels copy_row,copy_row --sizes 8x8 -o @",
          "'copy_row' is listed already" },
        { "run --device cpu --blocks 8x8,8x8 --sizes 8x8 -o @", "[8, 8] is listed already" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        const char *arg = strstr(cases[i].args, "compare") ? log : d, *at;
        char args[PATH_MAX + 256];
        if ((at = strchr(cases[i].args, '@')))
            snprintf(args, sizeof(args), "%.*s%s%s", (int)(at - cases[i].args), cases[i].args,
                     arg, at + 1);
        else
            snprintf(args, sizeof(args), "%s", cases[i].args);
        int rc = th_runf("%s", args);
        if (rc != 2 || !strstr(th_err(), cases[i].says))
            th_fail("'%s': exit %d, said: %s", cases[i].args, rc, th_err());
    }
    assert_int_equal(th_count_files(d), 0);   /* no log: nothing measured */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_number_parser),
        TH_TEST(test_bad_values_exit_2),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
