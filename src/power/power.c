/* power.c: THE table of power sources. Its order is the auto-probe order: the direct
 * sensors first (cheapest and finest), then tegrastats, then NVML for desktop GPUs. */
#include "power/power.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const struct tb_power_ops *const tb_power_sources[] = {
    &tb_power_ina3221,
    &tb_power_tegrastats,
    &tb_power_nvml,
    &tb_power_none,
    NULL,
};

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
    for (const struct tb_power_ops *const *p = tb_power_sources; *p; p++) {
        char w[256];
        if (*p == &tb_power_none)
            break;
        if (!(*p)->unavailable && (*p)->probe(pc, w, sizeof(w)) == 0)
            return *p;
    }
    snprintf(why, n, "no power source works on this board");
    return &tb_power_none;
}

void tb_power_sample_clear(struct tb_power_sample *s)
{
    s->t_ns = 0;
    for (int i = 0; i < TB_POWER_MAX_RAILS; i++)
        s->rail_mw[i] = NAN;
    s->gpu_load_pct = s->gpu_clock_mhz = s->emc_load_pct = s->emc_clock_mhz = s->gpu_temp_c = NAN;
    s->mem_temp_c = NAN;
    s->energy_mj = NAN;
    s->reasons = 0;
    s->has_reasons = false;
}
