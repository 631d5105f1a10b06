/* sources.c: THE table of power sources, one row per source; nothing else in the tool lists
 * them. A row names the source's ops (struct tb_power_ops, power.h), which carry all the rest
 * knows of it: its name, its one-line help, why it is compiled out, its detection (probe),
 * open/sample/close, its documented sensor models and what it is (flags). Adding a source
 * is its own file and one row here. The order is the auto-probe order: the direct sensors
 * first (cheapest and finest), then tegrastats, then NVML for desktop GPUs, then none.
 * Test builds (-DTB_TEST_SOURCES, build/tests/transpose-bench-hooks) add their rows first
 * through the same list, never the tool a user runs. Not here: any source's own code. */
#include "power/power.h"

#include <stdio.h>
#include <string.h>

#ifdef TB_TEST_SOURCES
#define TEST_ROWS(X) X(test_meter)   /* tests/fake_meter.c */
#else
#define TEST_ROWS(X)
#endif

/* the rows: X(id) is the source whose ops are tb_power_<id> */
#define SOURCES(X) TEST_ROWS(X) \
    X(ina3221)                  \
    X(tegrastats)               \
    X(nvml)                     \
    X(none)

#define DECLARE(id) extern const struct tb_power_ops tb_power_##id;
#define ROW(id) &tb_power_##id,
SOURCES(DECLARE)

const struct tb_power_ops *const tb_power_sources[] = { SOURCES(ROW) NULL };

const struct tb_power_ops *tb_power_find(const char *name)
{
    for (const struct tb_power_ops *const *p = tb_power_sources; *p; p++)
        if (!strcmp((*p)->name, name))
            return *p;
    return NULL;
}

const struct tb_power_ops *tb_power_pick(const char *name, const struct tb_power_cfg *pc,
                                         char *why, size_t n)
{
    why[0] = '\0';
    if (strcmp(name, "auto")) {
        const struct tb_power_ops *ops = tb_power_find(name);
        if (!ops)
            snprintf(why, n, "unknown power source '%s'", name);
        return ops;
    }
    const struct tb_power_ops *const *p;
    for (p = tb_power_sources; *p && !((*p)->flags & TB_POWER_NOTHING); p++) {
        char w[256];
        if (!(*p)->unavailable && (*p)->probe(pc, w, sizeof(w)) == 0)
            return *p;
    }
    snprintf(why, n, "no power source works on this board");
    return *p ? *p : &tb_power_none;   /* the rows end on the one that measures nothing */
}

void tb_power_source_names(char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "auto");
    for (const struct tb_power_ops *const *p = tb_power_sources; *p && len < n; p++)
        len += (size_t)snprintf(buf + len, n - len, ", %s", (*p)->name);
}

int tb_power_model_documented(const char *key, int rails, struct tb_sensor_model *m)
{
    for (const struct tb_power_ops *const *p = tb_power_sources; *p; p++)
        if ((*p)->models && tb_sensor_model_documented((*p)->models, key, rails, m) == 0)
            return 0;
    return tb_sensor_model_documented(NULL, key, rails, m);   /* m UNKNOWN, -1 */
}
