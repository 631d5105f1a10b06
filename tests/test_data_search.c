/* test_data_search.c: where the tool finds its boards/ and conf/ (src/measure/board.c): a
 * root run from a world-writable folder never reads a boards/ planted there by another user
 * (whose tegrastats.command it would run as root), and an empty ./conf or ./boards of the
 * user's own falls back to the tool's data, saying so (#50). The binary runs from a copy in
 * a folder of root's with its boards/ and conf/ beside it (the build tree's place), so the
 * tool's own data is there to fall back to. Needs root (to plant as nobody); skipped else. */
#include "helpers.h"

#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util.h"

static char runner[PATH_MAX];   /* what runs the binary: "" or cross-test's "qemu-aarch64 " */

/* The tool copied to scratch/tool with its data beside it; its path. */
static const char *carried_tool(const char *scratch)
{
    static char bin[PATH_MAX];
    char cmd[4 * PATH_MAX], path[PATH_MAX];
    th_bin_split(runner, sizeof(runner), path, sizeof(path));   /* qemu's under cross-test */
    snprintf(bin, sizeof(bin), "%s/tool/transpose-bench", scratch);
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/tool' && cp '%s' '%s' && cp -R boards conf "
             "'%s/tool/' && chmod -R go-w '%s/tool'", scratch, path, bin, scratch, scratch);
    assert_int_equal(system(cmd), 0);
    return bin;
}

/* bin run in folder dir with args; its exit, stderr into *err (kept). */
static int run_in(const char *dir, const char *bin, const char *args, char **err)
{
    char cmd[4 * PATH_MAX], e[PATH_MAX + 8];
    snprintf(e, sizeof(e), "%s.err", dir);
    snprintf(cmd, sizeof(cmd), "cd '%s' && exec %s'%s' %s >/dev/null 2>'%s' </dev/null", dir,
             runner, bin, args, e);
    int st = system(cmd);
    FILE *f = fopen(e, "r");
    assert_non_null(f);
    char *text = calloc(1, 1 << 16);
    assert_non_null(text);
    size_t k = fread(text, 1, (1 << 16) - 1, f);
    text[k] = '\0';
    fclose(f);
    *err = th_keep(text);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

#define RUN_ARGS "run --device cpu --sizes 64x64 --kernels copy_row " \
                 "--set sweep.stop.min_time_ms=1 -o logs"

/* A world-writable folder (nobody's, 0777) whose boards/generic.cfg, nobody's, names a
 * tegrastats.command: root's run from there uses its own generic.cfg, says what it skipped,
 * and never runs the command. */
static void test_planted_boards_not_read(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    const char *s = th_scratch();
    char w[PATH_MAX], marker[PATH_MAX + 16], text[3 * PATH_MAX], p[6 * PATH_MAX], *err;
    const char *bin = carried_tool(s);
    snprintf(w, sizeof(w), "%s/shared", s);
    snprintf(marker, sizeof(marker), "%s/ran-as-root", s);
    snprintf(text, sizeof(text), "#!/bin/sh\ntouch '%s'\nsleep 1\n", marker);
    free(th_write(w, "evil.sh", text));
    snprintf(text, sizeof(text), "board = { name = \"generic\"; peak_gbps = 0.0; };\n"
             "power = { source = \"tegrastats\"; interval_ms = 50; window_ms = 1000; "
             "idle_ms = 1000; sysfs_root = \"/\"; tegrastats = { command = \"%s/evil.sh\"; }; "
             "};\n", w);
    free(th_write(w, "boards/generic.cfg", text));
    snprintf(p, sizeof(p), "chmod 0777 '%s' '%s/boards' '%s/evil.sh' && chown -R 65534:65534 "
             "'%s' && chmod a+rx '%s'", w, w, w, w, s);
    assert_int_equal(system(p), 0);
    int rc = run_in(w, bin, RUN_ARGS, &err);
    if (access(marker, F_OK) == 0)
        th_fail("the planted tegrastats.command ran as root (exit %d): %s", rc, err);
    if (rc != 0 || !strstr(err, "'./boards' of the working folder skipped (the working folder "
                                "is another user's or writable by others)"))
        th_fail("exit %d: %s", rc, err);
}

/* Root's own folder (0755) whose boards/ is root's (0755) too, but whose generic.cfg is, once,
 * a link to a file of nobody's (`ln -s ~alice/my.cfg boards/` by a careless admin) and, once,
 * nobody's own file (a tarball unpacked as root keeps its owners): nobody may rewrite it, so
 * its tegrastats.command is never run as root; the folder is skipped, naming the file. */
static void test_foreign_file_in_trusted_boards(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    const char *s = th_scratch();
    const char *bin = carried_tool(s);
    for (int link = 0; link <= 1; link++) {
        char lab[PATH_MAX], alice[PATH_MAX], marker[PATH_MAX + 16], text[3 * PATH_MAX],
             p[6 * PATH_MAX], *err;
        snprintf(lab, sizeof(lab), "%s/lab%d", s, link);
        snprintf(alice, sizeof(alice), "%s/alice%d", s, link);
        snprintf(marker, sizeof(marker), "%s/ran-as-root%d", s, link);
        snprintf(text, sizeof(text), "#!/bin/sh\ntouch '%s'\nsleep 1\n", marker);
        free(th_write(alice, "evil.sh", text));
        snprintf(text, sizeof(text), "board = { name = \"generic\"; peak_gbps = 0.0; };\n"
                 "power = { source = \"tegrastats\"; interval_ms = 50; window_ms = 1000; "
                 "idle_ms = 1000; sysfs_root = \"/\"; tegrastats = { command = \"%s/evil.sh\"; "
                 "}; };\n", alice);
        free(th_write(link ? alice : lab, link ? "my.cfg" : "boards/generic.cfg", text));
        if (link) {
            snprintf(p, sizeof(p), "%s/boards", lab);
            assert_int_equal(mkdir(lab, 0755), 0);
            assert_int_equal(mkdir(p, 0755), 0);
            snprintf(p, sizeof(p), "ln -s '%s/my.cfg' '%s/boards/generic.cfg'", alice, lab);
            assert_int_equal(system(p), 0);
        }
        snprintf(p, sizeof(p), "chmod 0755 '%s' '%s/boards' '%s/evil.sh' && chown -R "
                 "65534:65534 '%s' && chmod a+rx '%s' && chmod 0644 '%s/%s'", lab, lab, alice,
                 alice, s, link ? alice : lab, link ? "my.cfg" : "boards/generic.cfg");
        assert_int_equal(system(p), 0);
        if (!link) {
            snprintf(p, sizeof(p), "chown 65534:65534 '%s/boards/generic.cfg'", lab);
            assert_int_equal(system(p), 0);
        }
        int rc = run_in(lab, bin, RUN_ARGS, &err);
        if (access(marker, F_OK) == 0)
            th_fail("link %d: nobody's tegrastats.command ran as root (exit %d): %s", link, rc,
                    err);
        if (rc != 0 || !strstr(err, "'./boards' of the working folder skipped") ||
            !strstr(err, "generic.cfg"))
            th_fail("link %d: exit %d: %s", link, rc, err);
    }
}

/* An empty ./conf and ./boards in the user's own folder (an old unpack's): the night runs
 * on the tool's own data, saying what it skipped, where it once ended exit 2. */
static void test_empty_data_folders_fall_back(void **state)
{
    (void)state;
    const char *s = th_scratch();
    char home[PATH_MAX], p[PATH_MAX + 16], *err;
    const char *bin = carried_tool(s);
    snprintf(home, sizeof(home), "%s/home", s);
    snprintf(p, sizeof(p), "%s/conf", home);
    assert_int_equal(mkdir(home, 0755), 0);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/boards", home);
    assert_int_equal(mkdir(p, 0755), 0);
    int rc = run_in(home, bin, RUN_ARGS, &err);
    if (rc != 0 || !strstr(err, "'./boards' of the working folder skipped (it holds no .cfg "
                                "file)") || !strstr(err, "'./conf' of the working folder "
                                "skipped (it holds no .cfg file)"))
        th_fail("exit %d: %s", rc, err);
}

int main(void)
{
    th_own_lock("data-search");   /* per process, removed at its exit */
    const struct CMUnitTest tests[] = {
        TH_TEST(test_planted_boards_not_read),
        TH_TEST(test_foreign_file_in_trusted_boards),
        TH_TEST(test_empty_data_folders_fall_back),
    };
    return cmocka_run_group_tests_name("data_search", tests, NULL, NULL);
}
