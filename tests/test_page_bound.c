/* test_page_bound.c: compare --html over a log of 10,000 sizes (#58 item 13): the page stops
 * at its bound (html.h's TB_HTML_MAX_BYTES) and says, on the page and on stderr, how many
 * sizes it left out and where they are; before, it grew without bound (50,000 sizes: 60 MB,
 * a 48 MB tmpfs filled). The text table keeps every size. */
#include "helpers.h"

#include <sys/stat.h>

#include "report/html.h"

static void test_compare_page_is_bounded(void **state)
{
    const char *d = th_scratch();
    char *log = th_write_sizes_log(d, "h_x_20261101T023000Z.csv", 10000);
    char page[4096];
    snprintf(page, sizeof(page), "%s/p.html", d);
    assert_int_equal(th_runf("compare --html %s %s", page, log), 0);
    struct stat st;
    assert_int_equal(stat(page, &st), 0);
    assert_true(st.st_size <= TB_HTML_MAX_BYTES + 64 * 1024);   /* one size's section past */
    th_must_have(th_err(), " of 10000 sizes (it stops at 8 MiB); ");
    th_must_have(th_err(), " left out: the text, CSV and JSON outputs have every one");
    char *html = th_read_gz(page);
    th_must_have(html, " of 10000 sizes left out: the page stops at 8 MiB");
    th_must_have(html, "</body></html>\n");
    free(html);
    th_must_have(th_out(), "10000 x 64");   /* the table: every size */
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TH_TEST(test_compare_page_is_bounded),
    };
    return cmocka_run_group_tests_name("page_bound", tests, NULL, NULL);
}
