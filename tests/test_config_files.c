/* test_config_files.c: the configuration files as they are read (src/config/guard.c):
 * files that are directories, binary or enormous, FIFOs and devices as files or @includes,
 * @include checked as the file is (FILE:LINE, wrap, the 1 MiB limit counted over both, a
 * comment inside a string, the including file's folder), Windows line ends. Values and
 * messages: test_config.c. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_a_config),
        cmocka_unit_test(test_fifo_config_and_include),
        cmocka_unit_test(test_include_checked_like_the_file),
        cmocka_unit_test(test_include_size_bound),
        cmocka_unit_test(test_include_after_comment_in_string),
        cmocka_unit_test(test_include_from_the_files_folder),
        cmocka_unit_test(test_windows_files),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
