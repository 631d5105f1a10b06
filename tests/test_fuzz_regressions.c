/* test_fuzz_regressions.c: every input the fuzzers found a problem with, replayed through
 * the same entry point. Under `make test SAN=1` (CI) a regression aborts here. */
#include "helpers.h"

#include <dirent.h>
#include <limits.h>

#include "measure/backend.h"
#include "log/logread.h"
#include "config/config.h"

static void test_compare_inputs(void **state)
{
    /* a row whose rows/cols field is out of long's range: skipped, reported, no UB */
    struct tb_logset r;
    tb_logset_init(&r, "compare");
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s", th_fixture("fuzz-regressions/compare-huge-rows.csv.gz"));
    th_stderr_begin();
    tb_logread(&r, path);
    char *said = th_stderr_end();
    assert_true(r.problems > 0);
    assert_non_null(strstr(said, "compare-huge-rows.csv.gz:"));   /* each named by file:line */
    free(said);
    for (size_t i = 0; i < r.n; i++)
        assert_true(r.v[i].rows >= 1 && r.v[i].cols >= 1);
    tb_logset_free(&r);
}

static void test_config_inputs(void **state)
{
    DIR *d = opendir(th_fixture("fuzz-regressions"));
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "config-", 7))
            continue;
        char rel[PATH_MAX], path[PATH_MAX];
        snprintf(rel, sizeof(rel), "fuzz-regressions/%s", e->d_name);
        snprintf(path, sizeof(path), "%s", th_fixture(rel));
        struct tb_config c;
        struct tb_diag dg = { 0 };
        tb_config_init(&c);
        assert_true(tb_config_load(&c, path, NULL, &dg) > 0);   /* an error, with a line */
        assert_non_null(strstr(dg.msgs[0], e->d_name));
        tb_config_free(&c);
        tb_diag_free(&dg);
        n++;
    }
    closedir(d);
    assert_true(n >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_inputs),
        cmocka_unit_test(test_config_inputs),
    };
    return cmocka_run_group_tests_name("fuzz_regressions", tests, NULL, NULL);
}
