/* test_config.c: the sweep and board files: a good file's values, every kind of bad file
 * against the exact message it must produce (kept in the file's "# expect:" lines),
 * --set overrides and their errors, files that are directories, binary or enormous,
 * element aliases made canonical, FIFOs and devices as files or @includes, @include
 * checked as the file is (FILE:LINE, wrap, the 1 MiB limit counted over both). */
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
}

static void test_not_a_config(void **state)
{
    char *dir = th_tmpdir();
    struct tb_config c;
    struct tb_diag d = { 0 };
    char want[PATH_MAX + 64];

    tb_config_init(&c);
    tb_config_load(&c, dir, NULL, &d);               /* a directory */
    snprintf(want, sizeof(want), "%s: is a directory, not a sweep file", dir);
    assert_true(has_msg(&d, want));
    tb_config_free(&c);
    tb_diag_free(&d);

    char bin[600];
    for (size_t i = 0; i < sizeof(bin); i++)
        bin[i] = (char)(i * 37 + 1);
    bin[sizeof(bin) - 1] = '\0';
    char *p = th_write(dir, "binary.cfg", bin);
    tb_config_init(&c);
    tb_config_load(&c, p, NULL, &d);
    assert_int_equal(d.n, 1);
    assert_non_null(strstr(d.msgs[0], "binary.cfg:"));
    tb_config_free(&c);
    tb_diag_free(&d);
    free(p);

    char *big = malloc((2 << 20) + 1);
    memset(big, '#', 2 << 20);
    big[2 << 20] = '\0';
    p = th_write(dir, "big.cfg", big);
    free(big);
    tb_config_init(&c);
    tb_config_load(&c, p, NULL, &d);
    snprintf(want, sizeof(want), "%s: 2097152 bytes is too large for a sweep file (limit 1048576)",
             p);
    assert_true(has_msg(&d, want));
    tb_config_free(&c);
    tb_diag_free(&d);
    free(p);

    tb_config_init(&c);
    tb_config_load(&c, "/nonexistent/x.cfg", NULL, &d);
    assert_true(has_msg(&d, "cannot read sweep file '/nonexistent/x.cfg': No such file or directory"));
    tb_config_free(&c);
    tb_diag_free(&d);
    th_rmtree(dir);
    free(dir);
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

/* Loads text as a sweep file at dir/name; returns the problems (caller frees). */
static struct tb_diag load_text(const char *dir, const char *name, const char *text,
                                bool board)
{
    char *p = th_write(dir, name, text);
    struct tb_config c;
    struct tb_diag d = { 0 };
    tb_config_init(&c);
    tb_config_load(&c, board ? NULL : p, board ? p : NULL, &d);
    tb_config_free(&c);
    free(p);
    return d;
}

/* A FIFO as a sweep file, a board file or an @include is refused at once with its name
 * (libconfig 1.5's fopen would block forever on it); so is an @include loop. */
static void test_fifo_config_and_include(void **state)
{
    char *dir = th_tmpdir(), fifo[PATH_MAX], want[PATH_MAX * 2], text[PATH_MAX + 128];
    snprintf(fifo, sizeof(fifo), "%s/fifo.cfg", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    for (int board = 0; board < 2; board++) {
        struct tb_config c;
        struct tb_diag d = { 0 };
        tb_config_init(&c);
        tb_config_load(&c, board ? NULL : fifo, board ? fifo : NULL, &d);
        snprintf(want, sizeof(want), "%s: is a FIFO, not a %s file", fifo, board ? "board" : "sweep");
        assert_int_equal(d.n, 1);
        assert_string_equal(d.msgs[0], want);
        tb_config_free(&c);
        tb_diag_free(&d);
    }
    snprintf(text, sizeof(text), "sweep = {\n  warmup = 1;\n  @include \"%s\"\n};\n", fifo);
    struct tb_diag d = load_text(dir, "inc.cfg", text, false);
    snprintf(want, sizeof(want), "%s/inc.cfg:3: @include %s: is a FIFO, not a sweep file", dir, fifo);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], want);
    tb_diag_free(&d);
    /* a device is no config either */
    d = load_text(dir, "dev.cfg", "sweep = {\n@include \"/dev/zero\"\n};\n", false);
    snprintf(want, sizeof(want), "%s/dev.cfg:2: @include /dev/zero: is a device or a socket, "
             "not a sweep file", dir);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], want);
    tb_diag_free(&d);
    snprintf(text, sizeof(text), "sweep = {\n@include \"%s/loop.cfg\"\n};\n", dir);
    d = load_text(dir, "loop.cfg", text, false);
    snprintf(want, sizeof(want), "%s/loop.cfg:2: @include nested too deep (a loop?)", dir);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], want);
    tb_diag_free(&d);
    th_rmtree(dir);
    free(dir);
}

/* An included file is checked as the file itself is: its problems carry its own FILE:LINE,
 * its integers are checked for libconfig 1.5's wrap, and what a commented-out @include
 * names is not opened. */
static void test_include_checked_like_the_file(void **state)
{
    char *dir = th_tmpdir(), text[PATH_MAX * 2], want[PATH_MAX * 2];
    free(th_write(dir, "bad.inc", "warmup = -1;\n"));
    free(th_write(dir, "wrap.inc", "\n\nwarmup = 4294967297;\n"));
    snprintf(text, sizeof(text), "sweep = {\n  kernels = [\"naive_row\"];\n  sizes = ([64, 64]);\n"
             "  @include \"%s/bad.inc\"\n  /*\n  @include \"/dev/zero\"\n  */\n};\n", dir);
    struct tb_diag d = load_text(dir, "a.cfg", text, false);
    snprintf(want, sizeof(want), "%s/bad.inc:1: 'sweep.warmup' must be between 0 and 1000000, "
             "got -1", dir);
    if (d.n != 1)
        dump_diag(&d);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], want);
    tb_diag_free(&d);
    snprintf(text, sizeof(text), "sweep = {\n@include \"%s/wrap.inc\"\n};\n", dir);
    d = load_text(dir, "b.cfg", text, false);
    snprintf(want, sizeof(want), "%s/wrap.inc:3: the integer 4294967297 does not fit in 32 bits; "
             "libconfig 1.5 would wrap it: write 4294967297L if you mean it", dir);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], want);
    tb_diag_free(&d);
    th_rmtree(dir);
    free(dir);
}

/* @include cannot get past the 1 MiB limit: a file and its includes count together. */
static void test_include_size_bound(void **state)
{
    char *dir = th_tmpdir(), want[PATH_MAX * 2];
    size_t part = 600 << 10;   /* each under the limit, the two over it */
    char *big = malloc(part + 1);
    assert_non_null(big);
    memset(big, '#', part);
    big[part - 1] = '\n';
    big[part] = '\0';
    free(th_write(dir, "big.inc", big));
    char head[PATH_MAX + 64];
    snprintf(head, sizeof(head), "@include \"%s/big.inc\"\n", dir);
    memcpy(big, head, strlen(head));
    struct tb_diag d = load_text(dir, "main.cfg", big, false);
    snprintf(want, sizeof(want), "%s/main.cfg:1: @include %s/big.inc: %zu bytes is too large for "
             "a sweep file (limit 1048576, for a file and its @includes together)", dir, dir, part);
    if (d.n != 1)
        dump_diag(&d);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], want);
    tb_diag_free(&d);
    /* the same include from a small file is fine */
    char small[PATH_MAX + 160];
    snprintf(small, sizeof(small), "%ssweep = { kernels = [\"naive_row\"]; sizes = ([64, 64]); };\n",
             head);
    d = load_text(dir, "small.cfg", small, false);
    if (d.n)
        dump_diag(&d);
    assert_int_equal(d.n, 0);
    tb_diag_free(&d);
    free(big);
    th_rmtree(dir);
    free(dir);
}

/* The guard's comment tracker knows strings, as libconfig's scanner does: "/" "*" inside a
 * string opens no comment, so an @include after it is still checked (a FIFO refused at
 * once, a directory named as such, a 3 MB file counted against the 1 MiB budget) rather
 * than left to libconfig's fopen (a hang, an unbounded read). */
static void test_include_after_comment_in_string(void **state)
{
    char *dir = th_tmpdir(), fifo[PATH_MAX], text[PATH_MAX * 2], want[PATH_MAX * 3];
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(text, sizeof(text), "sweep = {\n  kernels = [\"copy_row /* x\"];\n"
             "  @include \"%s\"\n};\n", fifo);
    struct tb_diag d = load_text(dir, "fifo.cfg", text, false);
    snprintf(want, sizeof(want), "%s/fifo.cfg:3: @include %s: is a FIFO, not a sweep file", dir, fifo);
    assert_true(has_msg(&d, want));
    tb_diag_free(&d);
    /* a directory: libconfig alone would give its own words, not these */
    snprintf(text, sizeof(text), "x = \"/*\";\n@include \"%s\"\n", dir);
    d = load_text(dir, "dir.cfg", text, false);
    snprintf(want, sizeof(want), "%s/dir.cfg:2: @include %s: is a directory, not a sweep file", dir, dir);
    if (!has_msg(&d, want))
        dump_diag(&d);
    assert_true(has_msg(&d, want));
    tb_diag_free(&d);
    /* 3 MB after a string holding "/" "*" (and a "#", which is no comment in a string) */
    size_t big_n = 3u << 20;
    char *big = malloc(big_n + 1);
    assert_non_null(big);
    memset(big, '#', big_n);
    big[big_n - 1] = '\n';
    big[big_n] = '\0';
    free(th_write(dir, "big.inc", big));
    free(big);
    snprintf(text, sizeof(text), "x = \"# /*\";\n@include \"%s/big.inc\"\n", dir);
    d = load_text(dir, "big.cfg", text, false);
    snprintf(want, sizeof(want), "%s/big.cfg:2: @include %s/big.inc: %zu bytes is too large for "
             "a sweep file (limit 1048576, for a file and its @includes together)", dir, dir, big_n);
    if (!has_msg(&d, want))
        dump_diag(&d);
    assert_true(has_msg(&d, want));
    tb_diag_free(&d);
    /* a real comment still hides its @include (a quote in it opens no string) */
    d = load_text(dir, "hidden.cfg", "sweep = { kernels = [\"naive_row\"]; sizes = ([64, 64]); "
                  "element = \"float\"; };\n/* \"\n@include \"/dev/zero\"\n*/\n", false);
    if (d.n)
        dump_diag(&d);
    assert_int_equal(d.n, 0);
    tb_diag_free(&d);
    th_rmtree(dir);
    free(dir);
}

/* @include "common.cfg" is read from the including file's folder, not the working folder
 * (a common.cfg there too, with another value, is not read); a problem in it is said with
 * that file's own name; in an included file, a relative @include is taken only where that
 * file's folder is the working folder (libconfig 1.5 reads it from there), else refused. */
static void test_include_from_the_files_folder(void **state)
{
    char *dir = th_tmpdir(), cwd[PATH_MAX], sub[PATH_MAX], want[PATH_MAX * 2];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    const char *sweep = "sweep = { kernels = [\"naive_row\"]; sizes = ([64, 64]);\n"
                        "@include \"common.cfg\"\n};\n";
    snprintf(sub, sizeof(sub), "%s/a", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    free(th_write(sub, "common.cfg", "warmup = 7;\n"));
    free(th_write(sub, "main.cfg", sweep));
    free(th_write(dir, "common.cfg", "warmup = 3;\n"));   /* the working folder's */
    assert_int_equal(chdir(dir), 0);
    struct tb_config c;
    struct tb_diag d = { 0 };
    for (int absolute = 0; absolute < 2; absolute++) {   /* a/main.cfg, then DIR/a/main.cfg */
        char top[PATH_MAX];
        snprintf(top, sizeof(top), "%s%sa/main.cfg", absolute ? dir : "", absolute ? "/" : "");
        tb_config_init(&c);
        tb_config_load(&c, top, NULL, &d);
        if (d.n)
            dump_diag(&d);
        assert_int_equal(d.n, 0);
        assert_int_equal(c.sweep.warmup, 7);
        tb_config_free(&c);
    }
    /* a problem in the included file: its own name and line */
    free(th_write(sub, "common.cfg", "\nwarmup = -1;\n"));
    tb_config_init(&c);
    tb_config_load(&c, "a/main.cfg", NULL, &d);
    assert_true(has_msg(&d, "a/common.cfg:2: 'sweep.warmup' must be between 0 and 1000000, got -1"));
    tb_config_free(&c);
    tb_diag_free(&d);
    /* nested: a/mid.cfg's relative @include would be read from the working folder */
    free(th_write(sub, "common.cfg", "warmup = 7;\n"));
    free(th_write(sub, "mid.cfg", "@include \"common.cfg\"\n"));
    free(th_write(sub, "top.cfg", "sweep = { kernels = [\"naive_row\"]; sizes = ([64, 64]);\n"
                  "@include \"mid.cfg\"\n};\n"));
    tb_config_init(&c);
    tb_config_load(&c, "a/top.cfg", NULL, &d);
    snprintf(want, sizeof(want), "a/mid.cfg:1: @include \"common.cfg\": libconfig 1.5 reads an "
             "@include inside an included file from the working folder, not from that file's "
             "folder 'a': name it by its absolute path, or include it from the first file");
    if (!has_msg(&d, want))
        dump_diag(&d);
    assert_true(has_msg(&d, want));
    tb_config_free(&c);
    tb_diag_free(&d);
    /* the same from inside a/: every folder is the working one, so it is read */
    assert_int_equal(chdir(sub), 0);
    tb_config_init(&c);
    tb_config_load(&c, "top.cfg", NULL, &d);
    if (d.n)
        dump_diag(&d);
    assert_int_equal(d.n, 0);
    assert_int_equal(c.sweep.warmup, 7);
    tb_config_free(&c);
    assert_int_equal(chdir(cwd), 0);
    th_rmtree(dir);
    free(dir);
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

/* Files saved on Windows: a UTF-8 byte-order mark and CRLF line ends, in a sweep file and a
 * board file, are read as the same file without them (a BOM was "syntax error at line 1");
 * in an @include, which libconfig opens itself, a BOM is refused with the file, line 1 and
 * the fix; UTF-16 is refused saying how to save it. */
static void test_windows_files(void **state)
{
    char *good = th_read_gz(th_fixture("config/good.cfg"));
    assert_non_null(good);
    size_t n = strlen(good);
    char *win = malloc(2 * n + 4), *dir = th_tmpdir();
    strcpy(win, "\xef\xbb\xbf");
    for (size_t i = 0, w = 3; i <= n; i++) {
        if (good[i] == '\n')
            win[w++] = '\r';
        win[w++] = good[i];
    }
    struct tb_config a, b;
    struct tb_diag d = { 0 };
    tb_config_init(&a);
    tb_config_init(&b);
    char *p = th_write(dir, "win.cfg", win);
    assert_int_equal(tb_config_load(&a, th_fixture("config/good.cfg"), NULL, &d), 0);
    assert_int_equal(tb_config_load(&b, p, NULL, &d), 0);
    dump_diag(&d);
    assert_int_equal(d.n, 0);
    assert_int_equal(a.sweep.warmup, b.sweep.warmup);
    assert_int_equal(a.sweep.n_sizes, b.sweep.n_sizes);
    assert_string_equal(a.sweep.element, b.sweep.element);
    tb_config_free(&a);
    tb_config_free(&b);
    free(p);

    d = load_text(dir, "board.cfg", "\xef\xbb\xbf" "board = { name = \"win\";\r\n  peak_gbps = 25.6; };\r\n", true);
    dump_diag(&d);
    assert_int_equal(d.n, 0);
    tb_diag_free(&d);

    char text[PATH_MAX + 128], want[PATH_MAX * 3];
    free(th_write(dir, "inc.cfg", "\xef\xbb\xbf" "output = { gzip_level = 1; };\r\n"));
    snprintf(text, sizeof(text), "sweep = { kernels = [ \"*\" ]; sizes = ( [ 8, 8 ] ); };\n"
             "@include \"%s/inc.cfg\"\n", dir);
    d = load_text(dir, "main.cfg", text, false);
    snprintf(want, sizeof(want), "%s/main.cfg:2: @include %s/inc.cfg:1: the file starts with a "
             "UTF-8 byte-order mark, which libconfig cannot read in an @include: save it without "
             "one (sed -i '1s/^\\xEF\\xBB\\xBF//' '%s/inc.cfg')", dir, dir, dir);
    if (!has_msg(&d, want)) {
        print_message("    want: %s\n", want);
        dump_diag(&d);
        fail();
    }
    tb_diag_free(&d);

    d = load_text(dir, "mac.cfg", "sweep = { kernels = [ \"*\" ];\n sizes = ( [ 8, 8 ] ); };\r"
                  "output = { gzip_level = 1; };\r", false);
    snprintf(want, sizeof(want), "%s/mac.cfg:2: a carriage return without a line feed (old Mac "
             "line ends?): save the file with LF or CRLF line ends", dir);
    assert_true(has_msg(&d, want));
    tb_diag_free(&d);
    d = load_text(dir, "joined.cfg", "sweep = { kernels = [ \"*\" ];\n sizes = ( [ 8, 8 ] ); };\n"
                  "\xef\xbb\xbf" "output = { gzip_level = 1; };\n", false);
    snprintf(want, sizeof(want), "%s/joined.cfg:3: a byte-order mark (U+FEFF) inside the file (two "
             "files joined?): remove it", dir);
    assert_true(has_msg(&d, want));
    tb_diag_free(&d);

    p = th_write(dir, "u16.cfg", "\xff\xfes\x01w\x01");
    tb_config_init(&a);
    tb_config_load(&a, p, NULL, &d);
    snprintf(want, sizeof(want), "%s:1: the file is UTF-16 text (saved as \"Unicode\" on Windows): "
             "save it as UTF-8", p);
    assert_true(has_msg(&d, want));
    tb_config_free(&a);
    tb_diag_free(&d);
    free(p);
    free(win);
    free(good);
    th_rmtree(dir);
    free(dir);
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
        cmocka_unit_test(test_not_a_config),
        cmocka_unit_test(test_cpu_backend_kernel_names),
        cmocka_unit_test(test_element_names_canonical),
        cmocka_unit_test(test_fifo_config_and_include),
        cmocka_unit_test(test_include_checked_like_the_file),
        cmocka_unit_test(test_include_size_bound),
        cmocka_unit_test(test_include_after_comment_in_string),
        cmocka_unit_test(test_include_from_the_files_folder),
        cmocka_unit_test(test_set_value_one_line),
        cmocka_unit_test(test_windows_files),
        cmocka_unit_test(test_tuned_sweep_is_not_injected),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
