/* nvml.h: the NVML source's ops (nvml.c; its row of the table, sources.c), for its tests.
 * Not here: its clock-event reasons' call (jetson/throttle.h declares it). */
#ifndef TB_NVML_H
#define TB_NVML_H

#include "power/power.h"

extern const struct tb_power_ops tb_power_nvml;

#endif
