/* fake_meter.c: a power source that exists only in the test-only executable
 * (build/tests/transpose-bench-hooks), added to the table of sources by its one row there
 * (src/power/sources.c, -DTB_TEST_SOURCES) and nothing else: it shows that a new meter (an
 * external USB meter, a bench supply) is one file and one row. It stands for a meter whose
 * device shows as a folder: it is detected where POWER_ROOT/test-meter/power_mw is a
 * regular file (POWER_ROOT is power.sysfs_root), whose number (mW) is the level it reads
 * from then on. Its one rail, METER_IN, is a mean over each 100 ms of the tool's clock (a
 * boxcar, said in its model row), the level plus a fixed sequence of -20..+20 mW of noise
 * (readings that all agree to the bit would give an interval of 0). Tests only. */
#include "power/power.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/safeio.h"

#define METER_PERIOD_NS 100000000LL   /* a new mean every 100 ms */
#define METER_MAX_MW 1000000L         /* 1 kW: beyond it the file is not a meter's */

struct meter_state {
    long level_mw;
};

/* The level its file holds: 0 with *mw, or -errno with why filled. */
static int meter_level(const struct tb_power_cfg *pc, long *mw, char *why, size_t n)
{
    char path[PATH_MAX], buf[32], *end;
    if (snprintf(path, sizeof(path), "%s/test-meter/power_mw", pc->sysfs_root) >=
        (int)sizeof(path))
        return snprintf(why, n, "power.sysfs_root is too long"), -ENAMETOOLONG;
    int rc = tb_safeio_read(path, buf, sizeof(buf), NULL, 0, 1000, why, n);
    if (rc < 0)
        return rc;
    long v = strtol(buf, &end, 10);
    if (end == buf || (*end && *end != '\n') || v < 0 || v > METER_MAX_MW)
        return snprintf(why, n, "'%s' holds '%.20s', not a power in mW", path, buf), -EINVAL;
    *mw = v;
    return 0;
}

static int meter_probe(const struct tb_power_cfg *pc, char *why, size_t n)
{
    long mw;
    return meter_level(pc, &mw, why, n);
}

static int meter_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                      char *why, size_t n)
{
    struct meter_state *s = st;
    int rc = meter_level(pc, &s->level_mw, why, n);
    if (rc < 0)
        return rc;
    rails->n = 1;
    snprintf(rails->name[0], sizeof(rails->name[0]), "METER_IN");
    return 0;
}

/* The mean of the 100 ms period now in: the level and the noise of that period's number. */
static int meter_sample(void *st, struct tb_power_sample *smp, char *why, size_t n)
{
    const struct meter_state *s = st;
    unsigned long long k = (unsigned long long)(tb_now_ns() / METER_PERIOD_NS);
    unsigned long long h = (k + 1) * 0x9E3779B97F4A7C15ULL;   /* the period's own noise */
    h ^= h >> 29;
    smp->rail_mw[0] = (float)(s->level_mw + (long)(h % 41) - 20);
    return 0;
}

static void meter_close(void *st) {}

static const struct tb_sensor_doc meter_models[] = {
    { "test-meter", TB_SENSOR_BOXCAR, 100, 0, 0,
      "tests/fake_meter.c: a mean over each 100 ms, as its file says" },
    { NULL, TB_SENSOR_UNKNOWN, 0, 0, 0, NULL },
};

static void meter_cadence(void *st, struct tb_power_cadence *c)
{
    tb_sensor_model_documented(meter_models, "test-meter", 1, &c->model);
    c->period_ms = (double)METER_PERIOD_NS / 1e6;
    snprintf(c->how, sizeof(c->how), "documented");
    snprintf(c->detail, sizeof(c->detail), "a new mean every 100 ms (tests/fake_meter.c)");
    snprintf(c->scope, sizeof(c->scope), "the test meter's input");
}

extern const struct tb_power_ops tb_power_test_meter;
const struct tb_power_ops tb_power_test_meter = {
    .name = "test-meter",
    .help = "TEST BUILD ONLY: tests/fake_meter.c",
    .models = meter_models,
    .state_size = sizeof(struct meter_state),
    .probe = meter_probe,
    .open = meter_open,
    .sample = meter_sample,
    .close = meter_close,
    .cadence = meter_cadence,
};
