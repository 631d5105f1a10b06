/* test_messages.c: messages a user read as nonsense (#58 item 14): a row the CSV splitter
 * cannot take was "-1 fields where the header has 81"; it says how many fields it has, or
 * that a quote is not closed. (The lock's "uid -1": test_lock_place.) */
#include "helpers.h"

#include "log/logread.h"

static void test_row_field_count_never_minus_one(void **state)
{
    char *dir = th_tmpdir();
    size_t cap = 8192, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "# log_format: 1\nrun_id,board,device,kernel,elem,rows,"
                            "cols,block_x,block_y,gbps\n"
                            "h_b_20261101T023000Z,b,d,k,float,64,64,8,8,10\n"
                            "h_b_20261101T023000Z,b,d,k,float,64,64,8,8,10");
    for (int i = 0; i < 290; i++)   /* 300 fields: more than the splitter takes */
        len += (size_t)snprintf(text + len, cap - len, ",%d", i);
    snprintf(text + len, cap - len, "\nh_b_20261101T023000Z,\"b,d,k,float,64,64,8,8,10\n"
             "# end: complete, 3 rows\n");
    char *path = th_write(dir, "odd.csv", text);
    struct tb_logset s;
    tb_logset_init(&s, "compare");
    th_stderr_begin();
    assert_int_equal(tb_logread(&s, path), 1);
    char *said = th_stderr_end();
    th_must_have(said, "odd.csv:4: 300 fields where the header has 10; row skipped");
    th_must_have(said, "odd.csv:5: no CSV line (a quote not closed); row skipped");
    assert_null(strstr(said, "-1 fields"));
    free(said);
    tb_logset_free(&s);
    free(path);
    free(text);
    th_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_field_count_never_minus_one),
    };
    return cmocka_run_group_tests_name("messages", tests, NULL, NULL);
}
