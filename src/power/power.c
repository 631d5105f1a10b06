/* power.c: what every source, the sampler and its readers share of the power types: a
 * reading cleared to "nothing read", and what a cadence says its total is. The floor under
 * the sources (nvml.c fills its readings from it) and the sampler; the table of sources is
 * sources.c. */
#include "power/power.h"

#include <math.h>
#include <string.h>

void tb_power_sample_clear(struct tb_power_sample *s)
{
    s->t_ns = 0;
    for (int i = 0; i < TB_POWER_MAX_RAILS; i++) {
        s->rail_mw[i] = NAN;
        s->rail_t_ns[i] = 0;
    }
    s->gpu_load_pct = s->gpu_clock_mhz = s->emc_load_pct = s->emc_clock_mhz = s->gpu_temp_c = NAN;
    s->mem_temp_c = NAN;
    s->energy_mj = NAN;
    s->reasons = 0;
    s->has_reasons = false;
}

bool tb_power_cadence_counter(const struct tb_power_cadence *c)
{
    return !strcmp(c->how, "energy counter");
}
