/* tegrastats.h: the tegrastats source's ops (its row of the table, sources.c) and its line
 * parser, exposed for tests and fuzzing. */
#ifndef TB_TEGRASTATS_H
#define TB_TEGRASTATS_H

#include "power/power.h"

extern const struct tb_power_ops tb_power_tegrastats;

struct tb_tegrastats_reading {
    int n_rails;
    char rail[TB_POWER_MAX_RAILS][TB_RAIL_NAME];
    float rail_mw[TB_POWER_MAX_RAILS];    /* `cur`, the first value */
    float gpu_load_pct, gpu_clock_mhz;    /* GR3D_FREQ; NAN when absent */
    float emc_load_pct, emc_clock_mhz;    /* EMC_FREQ */
    float gpu_temp_c;                     /* GPU@..C; NAN when absent or offline (-256C) */
};

/* Parses one line; returns how many known fields it held (0: not a tegrastats line). */
int tb_tegrastats_parse(const char *line, struct tb_tegrastats_reading *r);

#endif
