/* test_outfile.c: the one rule for every file the tool writes that is not a log
 * (lib/outfile.h), fed what an adversary leaves at an output's name: a device, a FIFO, a
 * directory, a log, an input under another name, the other output, an empty name; and a
 * FIFO put at the name between the check and the rename. The real binary's tune, compare
 * and history go through it (the end-to-end test at the bottom). */
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/outfile.h"

static int check1(const char *out, const char *in)
{
    const char *outs[] = { out }, *ins[] = { in };
    return tb_outfile_check("test", outs, 1, ins, in ? 1 : 0);
}

static void must_refuse(const char *out, const char *in, const char *words)
{
    th_stderr_begin();
    int rc = check1(out, in);
    char *err = th_stderr_end();
    if (rc != -1 || !strstr(err, words))
        th_fail("'%s': rc %d, said '%s', wanted '%s'", out, rc, err, words);
    free(err);
}

/* What is at the name decides: only a regular file (or a link, replaced) is ever replaced;
 * /dev/null, a FIFO and a directory are refused (as root, tune --out /dev/null once made
 * the machine's /dev/null a regular file). */
static void test_only_regular_files_are_replaced(void **state)
{
    char *d = th_tmpdir(), fifo[PATH_MAX], link[PATH_MAX];
    snprintf(fifo, sizeof(fifo), "%s/fifo", d);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    must_refuse("/dev/null", NULL, "is a character device: refused");
    must_refuse(fifo, NULL, "is a FIFO: refused");
    must_refuse(d, NULL, "is a directory: refused");
    must_refuse("", NULL, "empty output name");
    char *old = th_write(d, "old.html", "<p>an earlier page</p>\n");
    assert_int_equal(check1(old, NULL), 0);
    snprintf(link, sizeof(link), "%s/link.cfg", d);
    assert_int_equal(symlink("/dev/null", link), 0);   /* a link is replaced, never followed */
    assert_int_equal(check1(link, NULL), 0);
    char *log = th_write(d, "night.cfg", "# transpose-bench 1.0 log\n");
    must_refuse(log, NULL, "is an existing log: refused");
    must_refuse("x/y.csv.gz", NULL, "has a log's name");
    free(old);
    free(log);
    th_rmtree(d);
    free(d);
}

/* An input under another name (./x, a hard link) and two outputs of one file. */
static void test_inputs_and_other_outputs(void **state)
{
    char *d = th_tmpdir(), *in = th_write(d, "sweep.cfg", "sweep = {};\n");
    char dotted[PATH_MAX + 8], hard[PATH_MAX + 8], a[PATH_MAX + 8], b[PATH_MAX + 16];
    snprintf(dotted, sizeof(dotted), "%s/./sweep.cfg", d);
    snprintf(hard, sizeof(hard), "%s/hard.cfg", d);
    assert_int_equal(link(in, hard), 0);
    must_refuse(dotted, in, "is one of the files it reads: refused");
    must_refuse(hard, in, "is one of the files it reads: refused");
    snprintf(a, sizeof(a), "%s/X.svg", d);
    snprintf(b, sizeof(b), "%s/../%s/X.svg", d, strrchr(d, '/') + 1);
    const char *outs[] = { a, NULL, b };
    th_stderr_begin();
    int rc = tb_outfile_check("compare", outs, 3, NULL, 0);
    char *err = th_stderr_end();
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "two outputs name one file"));
    free(err);
    const char *two[] = { a, hard };
    assert_int_equal(tb_outfile_check("compare", two, 2, NULL, 0), 0);
    free(in);
    th_rmtree(d);
    free(d);
}

/* The rule again at the rename: a FIFO put at the name after the check is not replaced,
 * and our temporary is gone; a free name gets our file. */
static void test_commit_checks_again(void **state)
{
    char *d = th_tmpdir(), out[PATH_MAX], tmp[PATH_MAX + 32];
    snprintf(out, sizeof(out), "%s/tuned.cfg", d);
    assert_int_equal(check1(out, NULL), 0);
    int fd = tb_outfile_tmp(out, tmp, sizeof(tmp));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "x\n", 2), 2);
    close(fd);
    assert_int_equal(mkfifo(out, 0600), 0);
    th_stderr_begin();
    assert_int_equal(tb_outfile_commit("tune", tmp, out), -1);
    free(th_stderr_end());
    struct stat st;
    assert_int_equal(lstat(out, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(access(tmp, F_OK), -1);
    unlink(out);
    fd = tb_outfile_tmp(out, tmp, sizeof(tmp));
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tb_outfile_commit("tune", tmp, out), 0);
    assert_int_equal(lstat(out, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    th_rmtree(d);
    free(d);
}

/* The temporary's name cannot be guessed (it was NAME.PID.part): a file, a link or a FIFO
 * planted at the old name, or at any name given before, does not refuse the write, and
 * nothing planted is written through or removed. */
static void test_temporary_cannot_be_planted(void **state)
{
    char *d = th_tmpdir(), out[PATH_MAX], planted[PATH_MAX + 32], tmp[PATH_MAX + 32];
    char first[PATH_MAX + 32], victim[PATH_MAX];
    snprintf(out, sizeof(out), "%s/page.html", d);
    snprintf(victim, sizeof(victim), "%s/victim", d);
    int v = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(v >= 0);
    close(v);
    snprintf(planted, sizeof(planted), "%s.%ld.part", out, (long)getpid());
    assert_int_equal(symlink(victim, planted), 0);   /* the old name, as a link */
    int fd = tb_outfile_tmp(out, tmp, sizeof(tmp));
    if (fd < 0)
        th_fail("a planted %s refused the write: %s", planted, strerror(errno));
    assert_string_not_equal(tmp, planted);
    assert_int_equal(strncmp(tmp, out, strlen(out)), 0);   /* beside it, ending .part */
    assert_string_equal(tmp + strlen(tmp) - 5, ".part");
    assert_int_equal(write(fd, "<p>x</p>\n", 9), 9);
    close(fd);
    strcpy(first, tmp);
    fd = tb_outfile_tmp(out, tmp, sizeof(tmp));   /* a second name is another */
    assert_true(fd >= 0);
    close(fd);
    assert_string_not_equal(tmp, first);
    unlink(tmp);
    assert_int_equal(tb_outfile_commit("test", first, out), 0);
    char *page = th_read_gz(out), *vt = th_read_gz(victim);
    assert_string_equal(page, "<p>x</p>\n");
    assert_string_equal(vt, "");   /* the link's target never written */
    struct stat st;
    assert_int_equal(lstat(planted, &st), 0);   /* nor the planted name removed */
    assert_true(S_ISLNK(st.st_mode));
    free(page);
    free(vt);
    th_rmtree(d);
    free(d);
}

/* The temporary's name cannot be guessed (two of one output differ, neither holds the
 * pid), ends .part, and others may read it as open(0644) under the umask gave. */
static void test_temporary_is_unpredictable(void **state)
{
    char *d = th_tmpdir(), out[PATH_MAX], t1[PATH_MAX + 32], t2[PATH_MAX + 32], pid[32];
    snprintf(out, sizeof(out), "%s/n.prom", d);
    mode_t old = umask(027);
    int a = tb_outfile_tmp(out, t1, sizeof(t1)), b = tb_outfile_tmp(out, t2, sizeof(t2));
    umask(old);
    assert_true(a >= 0 && b >= 0);
    assert_string_not_equal(t1, t2);
    snprintf(pid, sizeof(pid), ".%ld.", (long)getpid());
    assert_null(strstr(t1 + strlen(out), pid));
    assert_int_equal(strncmp(t1, out, strlen(out)), 0);
    assert_string_equal(t1 + strlen(t1) - 5, ".part");
    struct stat st;
    assert_int_equal(fstat(a, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    close(a);
    close(b);
    unlink(t1);
    unlink(t2);
    th_rmtree(d);
    free(d);
}

/* A name with a control character is refused for every output, as -o refuses it: a page's
 * name with a newline (compare --html) was accepted. */
static void test_control_characters_refused(void **state)
{
    must_refuse("a\nb.html", NULL, "control character");
    must_refuse("a\tb.svg", NULL, "control character");
    must_refuse("a\033[2Jb.cfg", NULL, "control character");
    const char *d = th_scratch();
    assert_int_equal(th_runf("compare --html '%s/a\nb.html' %s", d,
                             th_fixture("logs/h100-bench-subset.csv.gz")), 2);
    th_must_have(th_err(), "the output name has a control character");
    char page[PATH_MAX];
    snprintf(page, sizeof(page), "%s/a\nb.html", d);
    assert_int_equal(access(page, F_OK), -1);
}

/* The real binary: tune --out a FIFO, a log, '' and the sweep file it reads exits 2 before
 * measuring, each left as it was; compare --plot X.svg --html X.svg exits 2. */
static void test_commands_use_the_rule(void **state)
{
    const char *d = th_scratch();
    char fifo[PATH_MAX], *log = th_write(d, "old.cfg", "# transpose-bench 1.0 log\n");
    char *sweep = th_write(d, "s.cfg",
                           "sweep = { kernels = [\"copy_row\"]; sizes = ([64, 64]); };\n");
    snprintf(fifo, sizeof(fifo), "%s/fifo", d);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *outs[] = { fifo, log, "", sweep };
    for (size_t i = 0; i < sizeof(outs) / sizeof(*outs); i++) {
        int rc = th_runf("tune --device cpu -c %s -o %s/logs --seconds 1 -q --out '%s'", sweep,
                         d, outs[i]);
        if (rc != 2 || !strstr(th_err(), "refused"))
            th_fail("tune --out '%s': exit %d, said %s", outs[i], rc, th_err());
    }
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    char *text = th_read_gz(log);
    assert_string_equal(text, "# transpose-bench 1.0 log\n");
    free(text);
    assert_int_equal(th_runf("compare --plot %s/X.svg --html %s/X.svg %s", d, d,
                             th_fixture("logs/h100-bench-subset.csv.gz")), 2);
    assert_non_null(strstr(th_err(), "two outputs name one file"));
    free(log);
    free(sweep);
}

/* run --metrics (#58 item 8): a sweep file the night's sweep @includes, the lock file (by
 * its name, and by another name of its inode) are refused as the metrics file, exit 2
 * before anything runs, each left as it was; a missing folder is found at the start (exit
 * 2, no log), not after the night; the tool's own metrics file is replaced night after
 * night. */
static void test_metrics_never_replaces_what_the_run_reads(void **state)
{
    const char *d = th_scratch();
    const char *inc_text = "kernels = [\"copy_row\"];\n";
    char *inc = th_write(d, "inc.cfg", inc_text), lock[PATH_MAX], alias[PATH_MAX];
    char *sweep = th_write(d, "s.cfg", "sweep = {\n@include \"inc.cfg\"\nsizes = ([64, 64]); };\n");
    snprintf(lock, sizeof(lock), "%s/the.lock", d);
    snprintf(alias, sizeof(alias), "%s/alias.prom", d);
    free(th_write(d, "the.lock", ""));
    assert_int_equal(link(lock, alias), 0);
    setenv("TB_LOCK_FILE", lock, 1);
    const char *outs[] = { inc, lock, alias };
    for (size_t i = 0; i < sizeof(outs) / sizeof(*outs); i++) {
        int rc = th_runf("run --device cpu -q -c %s -o %s/logs%zu --metrics %s", sweep, d, i,
                         outs[i]);
        if (rc != 2 || !strstr(th_err(), "refused"))
            th_fail("--metrics '%s': exit %d, said %s", outs[i], rc, th_err());
        char logs[PATH_MAX];
        snprintf(logs, sizeof(logs), "%s/logs%zu", d, i);
        assert_int_equal(th_count_files(logs), 0);
    }
    char *text = th_read_gz(inc);
    assert_string_equal(text, inc_text);
    free(text);
    struct stat st;
    assert_int_equal(stat(lock, &st), 0);
    assert_int_equal(st.st_size, 0);
    assert_int_equal(st.st_nlink, 2);   /* the lock and its other name: neither replaced */
    /* a folder that is not there: exit 2 at the start, no log */
    assert_int_equal(th_runf("run --device cpu -q -c %s -o %s/logs9 --metrics %s/none/n.prom",
                             sweep, d, d), 2);
    th_must_have(th_err(), "none': No such file or directory: refused before the run");
    char logs9[PATH_MAX];
    snprintf(logs9, sizeof(logs9), "%s/logs9", d);
    assert_int_equal(th_count_files(logs9), 0);
    /* a folder where no file can be made though access(2) says yes to root (procfs): found
     * by making our temporary at the start, exit 2 and no log (it failed after the night) */
    assert_int_equal(th_runf("run --device cpu -q -c %s -o %s/logs7 --metrics /proc/self/fd/1",
                             sweep, d), 2);
    th_must_have(th_err(), "--metrics '/proc/self/fd/1': cannot make a file in its folder "
                           "'/proc/self/fd'");
    char logs7[PATH_MAX];
    snprintf(logs7, sizeof(logs7), "%s/logs7", d);
    assert_int_equal(th_count_files(logs7), 0);
    /* our own file: replaced on the next night */
    for (int night = 0; night < 2; night++)
        assert_int_equal(th_runf("run --device cpu -q -c %s -o %s/logs8 --metrics %s/n.prom",
                                 sweep, d, d), 0);
    /* the start's trial temporary is gone: nothing but what was there and n.prom */
    DIR *dir = opendir(d);
    assert_non_null(dir);
    for (struct dirent *e; (e = readdir(dir));)
        if (strstr(e->d_name, ".part"))
            th_fail("left in %s: %s", d, e->d_name);
    closedir(dir);
    free(inc);
    free(sweep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_regular_files_are_replaced),
        cmocka_unit_test(test_inputs_and_other_outputs),
        cmocka_unit_test(test_commit_checks_again),
        cmocka_unit_test(test_temporary_cannot_be_planted),
        cmocka_unit_test(test_control_characters_refused),
        cmocka_unit_test(test_temporary_is_unpredictable),
        TH_TEST(test_commands_use_the_rule),
        TH_TEST(test_metrics_never_replaces_what_the_run_reads),
    };
    return cmocka_run_group_tests_name("outfile", tests, NULL, NULL);
}
