/* test_dist_docs.c: the pages a board's tarball carries (scripts/dist-docs.sh, which
 * dist.sh calls; #58): the Nano's nightly.md names the Nano's folders and tarball, never
 * the Orin Nano's of the page's examples, and every doc/... it names that the tarball lacks
 * is said to be in the source tree only; power.md, which it sends readers to, is there. */
#include "helpers.h"

#include <sys/stat.h>

static void test_nano_tarball_pages(void **state)
{
    const char *d = th_scratch();
    char cmd[1024], path[1024];
    snprintf(cmd, sizeof(cmd), "scripts/dist-docs.sh %s/stage jetson-nano", d);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof(path), "%s/stage/doc/power.md", d);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    snprintf(path, sizeof(path), "%s/stage/doc/nightly.md", d);
    char *page = th_read_gz(path);
    assert_non_null(page);
    assert_null(strstr(page, "jetson-orin-nano"));
    th_must_have(page, "$HOME/transpose-bench-jetson-nano/transpose-bench run --quiet");
    th_must_have(page, "tar xzf transpose-bench-jetson-nano.tar.gz");
    th_must_have(page, "doc/cross-compile.md, in the source tree only");
    th_must_have(page, "doc/fleet/, in the source tree only");
    assert_null(strstr(page, "doc/power.md, in the source tree only"));   /* it is carried */
    /* every doc/ path the page names is carried, or said not to be */
    for (const char *p = strstr(page, "doc/"); p; p = strstr(p + 4, "doc/")) {
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-");
        while (n && (p[n - 1] == '.' || p[n - 1] == '-'))
            n--;
        char ref[256], carried[1400];
        snprintf(ref, sizeof(ref), "%.*s", (int)n, p);
        snprintf(carried, sizeof(carried), "%s/stage/%s", d, ref);
        if (stat(carried, &st) != 0 && strncmp(p + n, ", in the source tree only", 25))
            th_fail("the page names '%s', which the tarball lacks, unsaid", ref);
    }
    free(page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_nano_tarball_pages),
    };
    return cmocka_run_group_tests_name("dist_docs", tests, NULL, NULL);
}
