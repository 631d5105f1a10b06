/* test_config.c: the sweep and board files: a good file's values, the shipped files, every
 * kind of bad file against the exact message it must produce (kept in the file's
 * "# expect:" lines), --set overrides and their errors, kernel names, element aliases made
 * canonical, a tuned sweep never injected. The files as read (src/config/guard.c):
 * test_config_files.c. */
#include "helpers.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/backend.h"
#include "config/config.h"
#include "lib/elements.h"
#include "lib/util.h"
#include "measure/point_rules.h"
#include "measure/runner.h"
#include "cmd/tune.h"

static const struct tb_device_info gpu80 = {
    .name = "fake GPU", .max_threads_per_block = 1024, .mem_bytes = (size_t)80 << 30,
};

/* The checks a run makes against the kernel table and the device: names, then limits. */
static int check_for(const struct tb_config *c, const struct tb_backend *be,
                     const struct tb_device_info *dev, struct tb_diag *d)
{
    return tb_point_rules_check_names(c, be->id, true, d) + tb_point_rules_check_device(c, dev, d);
}

static bool has_msg(const struct tb_diag *d, const char *want)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->msgs[i], want))
            return true;
    return false;
}

static void dump_diag(const struct tb_diag *d)
{
    for (size_t i = 0; i < d->n; i++)
        print_message("    got: %s\n", d->msgs[i]);
}

static void test_good_file(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    tb_config_init(&c);
    assert_int_equal(tb_config_load(&c, th_fixture("config/good.cfg"), NULL, &d), 0);
#ifdef TB_HAVE_CUDA
    assert_int_equal(check_for(&c, &tb_backend_cuda, &gpu80, &d), 0);
#else
    /* without CUDA the GPU kernel is named, but said to be unavailable */
    assert_int_equal(check_for(&c, &tb_backend_cuda, &gpu80, &d), 2);
    /* the reason is the kernel row's own, so the message follows the table */
    char want[256];
    snprintf(want, sizeof(want), "good.cfg:3: kernel 'smem_pad' is not available: %s",
             tb_kernel_find("smem_pad", TB_BACKEND_CUDA)->unavailable);
    assert_non_null(strstr(d.msgs[1], want));
    assert_non_null(strstr(d.msgs[1], "built without kernel images"));
#endif
    assert_int_equal(c.sweep.n_kernels, 2);
    assert_string_equal(c.sweep.kernels[1], "smem_pad");
    assert_int_equal(c.sweep.n_sizes, 2);
    assert_int_equal(c.sweep.sizes[1].rows, 8191);
    assert_int_equal(c.sweep.sizes[1].cols, 12289);
    assert_int_equal(c.sweep.n_blocks, 3);
    assert_int_equal(c.sweep.blocks[2].x, 256);
    assert_int_equal(c.sweep.blocks[2].y, 1);
    assert_int_equal(c.sweep.warmup, 5);
    assert_false(c.sweep.verify);
    assert_string_equal(c.sweep.cache, "cold");
    assert_int_equal(c.sweep.min_reps, 20);
    assert_int_equal(c.sweep.max_reps, 200);
    assert_true(c.sweep.max_time_ms == 900.0); /* an integer accepted for a number */
    assert_string_equal(c.sweep.out_dir, "/tmp/x");
    assert_int_equal(c.sweep.gzip_level, 9);
    assert_int_equal(c.sweep.keep_logs, 30);
    tb_config_free(&c);
    tb_diag_free(&d);
}

static void test_shipped_files_load(void **state)
{
    const char *sweeps[] = { "conf/default.cfg", "conf/gpu-bench.cfg", "conf/gpu-check.cfg", "conf/gpu-power.cfg" };
    for (size_t i = 0; i < sizeof(sweeps) / sizeof(*sweeps); i++) {
        struct tb_config c;
        struct tb_diag d = { 0 };
        tb_config_init(&c);
        tb_config_load(&c, sweeps[i], "boards/generic.cfg", &d);
        if (d.n)
            dump_diag(&d);
        assert_int_equal(d.n, 0);
        tb_config_free(&c);
    }
    DIR *dir = opendir("boards");
    assert_non_null(dir);
    struct dirent *e;
    int boards = 0;
    while ((e = readdir(dir))) {
        if (!strstr(e->d_name, ".cfg"))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "boards/%s", e->d_name);
        struct tb_config c;
        struct tb_diag d = { 0 };
        tb_config_init(&c);
        tb_config_load(&c, NULL, path, &d);
        if (d.n) {
            print_message("  %s\n", path);
            dump_diag(&d);
        }
        assert_int_equal(d.n, 0);
        assert_true(c.board.name[0] != '\0');
        tb_config_free(&c);
        boards++;
    }
    closedir(dir);
    assert_true(boards >= 1);
}

/* Each bad-*.cfg names the messages it must produce in "# expect:" lines. */
static void test_bad_files(void **state)
{
    DIR *dir = opendir(th_fixture("config"));
    assert_non_null(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(dir))) {
        if (strncmp(e->d_name, "bad-", 4))
            continue;
        char path[PATH_MAX], rel[PATH_MAX];
        snprintf(rel, sizeof(rel), "config/%s", e->d_name);
        snprintf(path, sizeof(path), "%s", th_fixture(rel));
        bool board = !strncmp(e->d_name, "bad-board-", 10);
        struct tb_config c;
        struct tb_diag d = { 0 };
        tb_config_init(&c);
        tb_config_load(&c, board ? NULL : path, board ? path : NULL, &d);
        check_for(&c, &tb_backend_cuda, &gpu80, &d);
        FILE *f = fopen(path, "r");
        char line[1024];
        int expects = 0;
        while (fgets(line, sizeof(line), f)) {
            if (strncmp(line, "# expect: {file}", 16))
                continue;
            line[strcspn(line, "\n")] = '\0';
            char want[PATH_MAX + 1024];
            snprintf(want, sizeof(want), "%s%s", path, line + 16);
            if (!has_msg(&d, want)) {
                print_message("  %s: missing message\n    want: %s\n", e->d_name, want);
                dump_diag(&d);
                fail();
            }
            expects++;
        }
        fclose(f);
        assert_true(expects > 0);
        assert_int_equal(d.n, (size_t)expects); /* and nothing else */
        tb_config_free(&c);
        tb_diag_free(&d);
        files++;
    }
    closedir(dir);
    assert_true(files >= 15);
}

static void test_set_overrides(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    tb_config_init(&c);
    assert_int_equal(tb_config_add_set(&c, "sweep.warmup=7", &d), 0);
    assert_int_equal(tb_config_add_set(&c, "power.source=none", &d), 0);   /* bare word */
    assert_int_equal(tb_config_add_set(&c, "sweep.sizes=([3,5])", &d), 0);
    assert_int_equal(tb_config_add_set(&c, "power.tegrastats.command=/x/y --z", &d), 0);
    tb_config_load(&c, th_fixture("config/good.cfg"), NULL, &d);
    assert_int_equal(d.n, 0);
    assert_int_equal(c.sweep.warmup, 7);
    assert_string_equal(c.board.power.source, "none");
    assert_int_equal(c.sweep.n_sizes, 1);
    assert_int_equal(c.sweep.sizes[0].rows, 3);
    assert_string_equal(c.board.power.tegrastats_command, "/x/y --z");
    assert_string_equal(c.sweep.sizes[0].at.text, "--set sweep.sizes=([3,5])");
    tb_config_free(&c);
}

static void test_set_errors(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    tb_config_init(&c);
    assert_int_equal(tb_config_add_set(&c, "nonsense", &d), -1);
    tb_config_add_set(&c, "sweep.warmpu=3", &d);
    tb_config_add_set(&c, "sweep.warmup=-3", &d);
    tb_config_add_set(&c, "sweep.stop=3", &d);
    tb_config_load(&c, th_fixture("config/good.cfg"), NULL, &d);
    assert_true(has_msg(&d, "--set 'nonsense': expected KEY=VALUE, e.g. --set sweep.warmup=5"));
    assert_true(has_msg(&d, "--set sweep.warmpu=3: unknown setting 'sweep.warmpu' (did you mean "
                            "'sweep.warmup'?)"));
    assert_true(has_msg(&d, "--set sweep.warmup=-3: 'sweep.warmup' must be between 0 and 1000000, "
                            "got -3"));
    assert_true(has_msg(&d, "--set sweep.stop=3: 'sweep.stop' is a group; set one of its settings"));
    assert_int_equal(d.n, 4);
    tb_config_free(&c);
    tb_diag_free(&d);
    /* a board's name is UTF-8 text of visible characters (a tab once went into every log);
     * UTF-8 beyond ASCII is taken as it is */
    tb_config_init(&c);
    tb_config_add_set(&c, "board.name=lab\tnano", &d);
    tb_config_load(&c, th_fixture("config/good.cfg"), NULL, &d);
    assert_true(has_msg(&d, "--set board.name=lab\tnano: 'board.name': byte 4 (0x09) is a control "
                            "character: the name is written into every log and label, where it "
                            "would be read back as '?': use UTF-8 text of visible characters"));
    assert_int_equal(d.n, 1);
    tb_config_free(&c);
    tb_diag_free(&d);
    tb_config_init(&c);
    tb_config_add_set(&c, "board.name=lab-\xc3\xa9t\xc3\xa9", &d);
    tb_config_load(&c, th_fixture("config/good.cfg"), NULL, &d);
    assert_int_equal(d.n, 0);
    assert_string_equal(c.board.name, "lab-\xc3\xa9t\xc3\xa9");
    tb_config_free(&c);
    tb_diag_free(&d);
}

static void test_cpu_backend_kernel_names(void **state)
{
    static const struct tb_device_info cpu = { .name = "cpu", .max_threads_per_block = 1 << 30 };
    struct tb_config c;
    struct tb_diag d = { 0 };
    tb_config_init(&c);
    tb_config_add_set(&c, "sweep.kernels=[\"smem_pad\", \"blokced\"]", &d);
    tb_config_load(&c, th_fixture("config/good.cfg"), NULL, &d);
    check_for(&c, &tb_backend_cpu, &cpu, &d);
    assert_true(has_msg(&d, "--set sweep.kernels=[\"smem_pad\", \"blokced\"]: kernel 'smem_pad' "
                            "exists on the cuda backend, not on cpu (this run uses cpu)"));
    assert_true(has_msg(&d, "--set sweep.kernels=[\"smem_pad\", \"blokced\"]: unknown kernel "
                            "'blokced' (did you mean 'blocked'?)"));
    tb_config_free(&c);
    tb_diag_free(&d);
}

/* Every alias of the element table loads as its canonical name and size, so f32 and
 * float (or u16 and f16) are one series in the log, compare, history and tuned files. */
static void test_element_names_canonical(void **state)
{
    size_t seen = 0;
    for (const struct tb_element *e = tb_elements; e->name; e++) {
        for (int a = -1; a < (int)ARRAY_SIZE(e->aliases) && (a < 0 || e->aliases[a]); a++) {
            char set[64];
            snprintf(set, sizeof(set), "sweep.element=%s", a < 0 ? e->name : e->aliases[a]);
            struct tb_config c;
            struct tb_diag d = { 0 };
            tb_config_init(&c);
            tb_config_add_set(&c, set, &d);
            tb_config_load(&c, th_fixture("config/good.cfg"), NULL, &d);
            assert_int_equal(d.n, 0);
            assert_string_equal(c.sweep.element, e->name);
            assert_int_equal(c.sweep.elem_size, e->bytes);
            char tuned[PATH_MAX], want[64];   /* tune's file: one per canonical type */
            tb_tune_default_path(&c, tuned, sizeof(tuned));
            snprintf(want, sizeof(want), "/tuned-generic-%s.cfg", e->name);
            assert_true(strlen(tuned) > strlen(want));
            assert_string_equal(tuned + strlen(tuned) - strlen(want), want);
            tb_config_free(&c);
            seen++;
        }
    }
    assert_true(seen >= 8);   /* the four types and their aliases */
    assert_string_equal(tb_element_find("f32")->name, "float");
    assert_null(tb_element_find("complex"));
}

/* A --set value is one line: a second one could hold an @include libconfig would open
 * unchecked. */
static void test_set_value_one_line(void **state)
{
    struct tb_config c;
    struct tb_diag d = { 0 };
    tb_config_init(&c);
    tb_config_add_set(&c, "sweep.warmup=1\n@include \"/dev/zero\"", &d);
    tb_config_load(&c, th_fixture("config/good.cfg"), NULL, &d);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], "--set sweep.warmup=1\n@include \"/dev/zero\": a value is one "
                        "line (no line break in it)");
    tb_config_free(&c);
    tb_diag_free(&d);
}

/* The tuned sweep is configuration: a board or device name with a line break must not start
 * a setting in it, and its temporary file is never written through a link. */
static void test_tuned_sweep_is_not_injected(void **state)
{
    char *dir = th_tmpdir(), path[PATH_MAX], tmp[PATH_MAX + 64], victim[PATH_MAX];
    struct tb_config c;
    struct tb_diag d = { 0 };
    tb_config_init(&c);
    assert_int_equal(tb_config_load(&c, th_fixture("config/good.cfg"), NULL, &d), 0);
    tb_strlcpy(c.board.name, "x\nsweep = { warmup = 77; };\n#", sizeof(c.board.name));
    struct tb_log_rec row = { .kernel = "copy_row", .rows = 64, .cols = 64, .bx = 8, .by = 8,
                              .gbps = 10, .frac_copy = 1, .verified = TB_VERIFIED_OK,
                              .status = TB_STATUS_OK };
    struct tb_runner_result res = { .rows = &row, .n_rows = 1 };
    snprintf(path, sizeof(path), "%s/tuned.cfg", dir);
    snprintf(victim, sizeof(victim), "%s/victim", dir);
    free(th_write(dir, "victim", "keep me\n"));
    /* a link planted at the temporary's old, guessable name (NAME.PID.part) is neither
     * followed nor in the way: the temporary's name cannot be guessed (lib/outfile.h) */
    snprintf(tmp, sizeof(tmp), "%s.%ld.part", path, (long)getpid());
    assert_int_equal(symlink(victim, tmp), 0);
    assert_int_equal(tb_tune_write(path, &c, &res, "dev\r\nice", "log\n", 1, 1), 1);
    char *v = th_read_gz(victim);
    assert_string_equal(v, "keep me\n");
    free(v);
    struct stat st;
    assert_int_equal(lstat(tmp, &st), 0);   /* not ours: left as it was */
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(unlink(tmp), 0);
    char *text = th_read_gz(path);
    assert_non_null(strstr(text, "for board 'x?sweep = { warmup = 77; };?#' (dev??ice)"));
    assert_null(strstr(text, "warmup = 77;\n"));
    free(text);
    tb_config_free(&c);
    tb_diag_free(&d);
    th_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_shipped_files_load),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_cpu_backend_kernel_names),
        cmocka_unit_test(test_element_names_canonical),
        cmocka_unit_test(test_set_value_one_line),
        cmocka_unit_test(test_tuned_sweep_is_not_injected),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
