/* helpers.h: what several test programs share: temporary directories, running the real
 * binary, reading a gzipped log back, building fake sysfs trees from the fixture files. */
#ifndef TB_TEST_HELPERS_H
#define TB_TEST_HELPERS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <cmocka.h>

#include "fake_clock.h"   /* tb_clock_fake: every test program links the fake clock */

/* |a - b| <= eps, failing with both values. Our own: assert_float_equal came with cmocka
 * 1.1.4, and JetPack 4 ships 1.1.1 (use no cmocka API newer than that). */
#define th_assert_close(a, b, eps) th_assert_close_((double)(a), (double)(b), (double)(eps), \
                                                    #a, __FILE__, __LINE__)
void th_assert_close_(double a, double b, double eps, const char *what, const char *file,
                      int line);

/* Fails the test with a message (cmocka's fail_msg, in a form every version has). */
#define th_fail(...) do { print_error(__VA_ARGS__); print_error("\n"); fail(); } while (0)

/* Stderr to a temporary file between begin and end; end returns what was written (malloc),
 * so a test of bad input checks the tool's messages instead of printing them. */
void th_stderr_begin(void);
char *th_stderr_end(void);

/* A fresh directory under /tmp; removed with th_rmtree. */
char *th_tmpdir(void);
void th_rmtree(const char *path);
/* Writes text to dir/name (creating parent directories); returns the full path (malloc). */
char *th_write(const char *dir, const char *name, const char *text);
/* A plain log named name in dir of one host's night with n sizes (rows 1..n, 64 columns,
 * one row each): a page's input that grows with its sizes. Returns its path (free it). */
char *th_write_sizes_log(const char *dir, const char *name, int n);
/* Runs the tool (TB_BIN, else ./transpose-bench) with a shell-quoted argument string,
 * capturing stdout and stderr; returns the exit code. out/err may be NULL. */
int th_run(const char *args, char **out, char **err);
/* The end-to-end fixture: runs the tool with args (one "%s" in them is the log directory, a
 * fresh one), checks the exit code and that the directory holds that one log and nothing
 * else (no .part left behind), and returns the log's text (malloc; NULL when want_log is
 * false and none was written). The directory is removed; *out and *err get stdout and
 * stderr when not NULL. */
char *th_run_log(const char *args, int want_rc, bool want_log, char **out, char **err);

/* ---- the per-test fixture of the end-to-end and nightly suites ----
 * TH_TEST(f) runs test f between th_test_setup and th_test_teardown: the teardown puts the
 * environment back as it was before the test (a setenv in one test never reaches the
 * next), removes every scratch directory the test made and frees what its runs printed,
 * so a test holds only what it checks. */
#define TH_TEST(f) cmocka_unit_test_setup_teardown(f, th_test_setup, th_test_teardown)
int th_test_setup(void **state);
int th_test_teardown(void **state);
/* A fresh directory for this test ("/tmp/tb-test-XXXXXX"), removed by the teardown; the
 * path belongs to the fixture (do not free it). */
const char *th_scratch(void);
/* TB_BIN as a runner and a binary: cross-test's "qemu-aarch64 PATH" gives runner
 * "qemu-aarch64 " and path PATH; a plain TB_BIN (or none: ./transpose-bench) runner "". */
void th_bin_split(char *runner, size_t rn, char *path, size_t pn);
/* Runs the tool with args formatted as printf does (th_run); what it printed is then
 * th_out() and th_err(), kept until the teardown. Returns the exit code. */
int th_runf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *th_out(void);
const char *th_err(void);
/* Keeps p (malloc) until the teardown frees it; returns p. */
void *th_keep(void *p);

/* Reads a gzip (or plain) file whole; NULL when unreadable. */
char *th_read_gz(const char *path);
/* The single file in dir whose name ends with suffix (NULL if none or several). */
char *th_find_one(const char *dir, const char *suffix);
size_t th_count_files(const char *dir);
/* Field of a CSV row by header column name; writes into buf. -1 when absent. */
int th_field(const char *header, const char *row, const char *col, char *buf, size_t n);
/* The path of a fixture file (under tests/fixtures). */
const char *th_fixture(const char *rel);
/* Builds a fake sysfs tree under root from an ina3221 fixture file (hwmon<N> -> hwmonN). */
int th_build_sysfs(const char *root, const char *fixture, int hwmon_index);
/* Makes root an Orin Nano Super's as a normal user sees it: its model string, the nvpmodel
 * status of mode, /etc/nvpmodel.conf a link to the fixture (as on L4T), debugfs present but
 * holding no EMC file. */
void th_orin_super_root(const char *root, int mode);
/* Every non-comment, non-empty line of a fixture file; returns the count (lines malloc'd). */
size_t th_fixture_lines(const char *rel, char ***lines);

/* Fails the test unless text holds want (showing the text). */
void th_must_have(const char *text, const char *want);
/* The text of the one log (.csv.gz) in dir (malloc); fails the test without one. */
char *th_the_log(const char *dir);
/* The stand-in libcuda (tests/fake_cuda.c) of this build ($TB_BUILD), as an absolute path. */
const char *th_fake_cuda_lib(void);
/* TB_BIN from now on: the test-only executable, $TB_BUILD/tests/transpose-bench-hooks (its
 * test kernels, its fake INA3221 driver: tests/fake_ina_driver.c), through $TB_RUNNER. */
void th_use_hooks_binary(void);
/* The fake clock for the tool this test runs (TB_FAKE_CLOCK=1): the test-only executable in
 * place of the tool in TB_BIN, whatever runs it (timeout, qemu: the words before it kept),
 * since the shipped tool carries no fake clock (lib/clock.h). Undone by the teardown. */
void th_use_fake_clock(void);
/* Whether the quick form is asked (TB_TEST_QUICK=1, which scripts/run-tests.sh sets under
 * valgrind and qemu): a slow program then runs the same paths with fewer seeds or nights. */
bool th_quick(void);
/* This process's own folder (mkdtemp: mode 0700, a name no one can guess), made on the first
 * call and removed when the process exits: where its fixed names go (lock files), never /tmp
 * itself, where another user could plant a link at a name derived from the pid. */
const char *th_own_dir(void);
/* A group fixture (cmocka_run_group_tests' setup and teardown): TB_LOCK_FILE of this
 * process, th_own_dir()/lock (th_lock_file), removed at the end. */
int th_lock_setup(void **state);
int th_lock_teardown(void **state);
const char *th_lock_file(void);
/* The one log (.csv.gz) in dir, its path (malloc); fails the test without one. */
char *th_only_log(const char *dir);
/* How many data rows a log's text holds (not comments, not the header); *header: the header
 * line (NULL when none). */
int th_data_rows(const char *text, const char **header);
/* Data row i (0-based) after the header, comment lines skipped. */
const char *th_row_at(const char *header, int i);
/* TB_LOCK_FILE of this process: th_own_dir()/SUITE.lock (suites run at once: make test
 * beside make test-valgrind). */
void th_own_lock(const char *suite);
/* The tool (TB_BIN, else ./transpose-bench) started in the background through sh with args
 * (which may redirect stderr: "2>FILE"; else stdout and stderr go to /dev/null); its pid. */
pid_t th_spawn_tool(const char *args);
/* The exit status of pid (128 + the signal when killed), which must end within seconds: a
 * real process's deadline, polled; past it the process is killed and the test fails. */
int th_reap(pid_t pid, int seconds);
/* The .part log in dir once it holds at least rows data rows (rows 0: once it is there); its
 * path (malloc), NULL when that did not come within seconds. */
char *th_wait_part(const char *dir, int rows, double seconds);
/* Whether this build carries kernel images (CUDA=0 builds carry none). */
bool th_have_images(void);

#endif
