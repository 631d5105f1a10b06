/* test_ina3221_stamps.c: each INA3221 rail's stamp (rail_t_ns, issue #57) on a fake Orin NX
 * tree (the fixture's layout) whose rail reads block as JetPack 5's 5.10 driver's do: every
 * read of an hwmon *_input file waits SLOW_MS in the reader first (safeio's test hook, in
 * the reader process, as the driver's wait is in the kernel read). The reader reads the
 * files one after another in the rails' order (volt, then curr), so each rail's value is
 * ready two reads after the one before it: its stamp must be at least that much later,
 * never before its poll's start nor after its end (the poll's own stamp, t_ns: when its
 * last rail was read; before, its start, which every rail came after). Then the same under
 * the fake clock, where the reader's real time is no virtual time. Apart from
 * test_ina3221.c, which is at its size. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "fake_clock.h"
#include "lib/clock.h"
#include "lib/util.h"
#include "power/ina3221.h"
#include "power/power.h"

#define SLOW_MS 60   /* over INA_SLOW_READ_MS (50): the source takes reads to block */

/* safeio's weak hook (safeio_internal.h), called in the reader before each file's read:
 * an hwmon *_input file's read blocks SLOW_MS while TB_TEST_STAMP_SLOW is set. The readers
 * come from a spawner forked at the first read (fake_open, after the setenv), and keep the
 * environment they got then: reads stay slow for the rest of the program whatever a later
 * unsetenv does. A real sleep, in the reader process, as the driver's wait is in the kernel
 * read: no fake clock reaches it; the assertions are lower bounds on the stamps (a loaded
 * machine only makes reads slower) and the poll's own bounds. */
void tb_safeio_test_read(const char *path);
void tb_safeio_test_read(const char *path)
{
    size_t len = strlen(path);
    if (!getenv("TB_TEST_STAMP_SLOW") || !strstr(path, "/hwmon/") || len < 6 ||
        strcmp(path + len - 6, "_input"))
        return;
    struct timespec ts = { 0, SLOW_MS * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

struct fake {
    char *root;
    struct tb_power_cfg b;
    void *st;
    struct tb_power_rails rails;
};

/* The Orin NX tree, its total the rails' sum (so every rail is read each poll, slow or
 * not), opened. */
static void fake_open(struct fake *f)
{
    char why[256], p[1024];
    f->root = th_tmpdir();
    assert_true(th_build_sysfs(f->root, "ina3221/orin-nx.txt", 1) > 0);
    for (int ch = 2; ch <= 3; ch++) {   /* the fixture's idle rails read 0 V: powered */
        snprintf(p, sizeof(p), "sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1/in%d_input", ch);
        free(th_write(f->root, p, "5100\n"));
    }
    memset(&f->b, 0, sizeof(f->b));
    tb_strlcpy(f->b.sysfs_root, f->root, sizeof(f->b.sysfs_root));
    tb_strlcpy(f->b.total_rail, "sum", sizeof(f->b.total_rail));
    f->st = calloc(1, tb_power_ina3221.state_size);
    if (tb_power_ina3221.open(f->st, &f->b, &f->rails, why, sizeof(why)) != 0)
        th_fail("open: %s", why);
    assert_int_equal(f->rails.n, 3);
}

static void fake_close(struct fake *f)
{
    tb_power_ina3221.close(f->st);
    free(f->st);
    th_rmtree(f->root);
    free(f->root);
}

/* One reading: its stamps, and the poll's start (tb_now_ns' clock) in *start; its end is
 * its own stamp (t_ns: when its last rail was read), checked to lie before now. */
static void sample(struct fake *f, struct tb_power_sample *s, int64_t *start)
{
    char why[256];
    tb_power_sample_clear(s);
    *start = tb_now_ns();
    if (tb_power_ina3221.sample(f->st, s, why, sizeof(why)) != 0)
        th_fail("sample: %s", why);
    if (s->t_ns < *start || s->t_ns > tb_now_ns())
        th_fail("the poll stamped %lld ns after its start, now %lld", (long long)(s->t_ns -
                *start), (long long)(tb_now_ns() - *start));
}

/* Real clock, reads blocking SLOW_MS each: rail i's value is ready once its two files are
 * read, 2 (i + 1) reads after the poll's start, and rail i + 1's two reads after rail i's.
 * A stamp of the poll's start (rail_t_ns[i] = t0), or one that counted only some of the
 * reads, fails. */
static void test_blocking_reads_stamp_each_rail(void **state)
{
    struct fake f;
    struct tb_power_sample s;
    int64_t start, read = SLOW_MS * 1000000LL;
    setenv("TB_TEST_STAMP_SLOW", "1", 1);
    fake_open(&f);
    sample(&f, &s, &start);
    unsetenv("TB_TEST_STAMP_SLOW");
    for (int i = 0; i < f.rails.n; i++) {
        int64_t at = s.rail_t_ns[i];
        if (at < start + 2 * (i + 1) * read || at > s.t_ns)
            th_fail("rail %d stamped %.1f ms after its poll's start (at least %d: %d reads of "
                    "%d ms), the poll %.1f ms long", i, (double)(at - start) * 1e-6,
                    2 * (i + 1) * SLOW_MS, 2 * (i + 1), SLOW_MS, (double)(s.t_ns - start) * 1e-6);
        if (i && at < s.rail_t_ns[i - 1] + 2 * read)
            th_fail("rail %d stamped %.1f ms after rail %d: its two reads take %d at least", i,
                    (double)(at - s.rail_t_ns[i - 1]) * 1e-6, i - 1, 2 * SLOW_MS);
    }
    fake_close(&f);
}

/* Under the fake clock the reader's real time is no virtual time (the clock holds while it
 * answers): every stamp within the poll's virtual span [its start, t_ns], in the rails'
 * order, never in the future as reads' real durations added to a virtual start put them. */
static void test_fake_clock_stamps_within_the_poll(void **state)
{
    struct fake f;
    struct tb_power_sample s;
    int64_t start;
    tb_clock_fake(0);
    assert_true(tb_clock_is_fake());
    setenv("TB_TEST_STAMP_SLOW", "1", 1);
    fake_open(&f);
    sample(&f, &s, &start);
    unsetenv("TB_TEST_STAMP_SLOW");
    for (int i = 0; i < f.rails.n; i++)
        if (s.rail_t_ns[i] < (i ? s.rail_t_ns[i - 1] : start) || s.rail_t_ns[i] > s.t_ns)
            th_fail("rail %d stamped %.1f ms after its poll's start, the poll %.1f ms long "
                    "(virtual)", i, (double)(s.rail_t_ns[i] - start) * 1e-6,
                    (double)(s.t_ns - start) * 1e-6);
    fake_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {   /* the real clock's first: the fake one stays on */
        cmocka_unit_test(test_blocking_reads_stamp_each_rail),
        cmocka_unit_test(test_fake_clock_stamps_within_the_poll),
    };
    return cmocka_run_group_tests_name("ina3221_stamps", tests, NULL, NULL);
}
