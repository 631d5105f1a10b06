/* power.c: what every source and the sampler share of the sample type: a reading cleared
 * to "nothing read". The floor under the sources (nvml.c fills its readings from it) and
 * the sampler; the table of sources is sources.c. */
#include "power/power.h"

#include <math.h>

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
