/* conditions.h: what a night-to-night comparison depends on, read where it lives (world-
 * readable files, no root needed): on a Jetson the L4T release, the nvpmodel power mode
 * (ID and name), the GPU's devfreq clocks (current, the range this mode allows, the
 * available steps; pinned when min == max, as jetson_clocks leaves them) and the GPU's
 * temperature, and the EMC (memory) clock on every board. Every path is read under $TB_ROOT (tb_root_path), so tests use fake roots.
 * Not here: desktop GPUs (NVML reports theirs through the power source). */
#ifndef TB_CONDITIONS_H
#define TB_CONDITIONS_H

#include <stddef.h>

struct tb_conditions {
    char l4t[64];            /* "R35.4.1"; "" off a Jetson */
    int power_mode_id;       /* -1: unknown */
    char power_mode[64];     /* e.g. "MAXN", "15W"; "" unknown */
    char devfreq[64];        /* the GPU's devfreq entry, e.g. "17000000.ga10b"; "" none */
    double gpu_cur_mhz, gpu_min_mhz, gpu_max_mhz;   /* NAN: unknown */
    char gpu_avail_mhz[512]; /* the steps devfreq offers, MHz, space separated */
    int pinned;              /* 1 min == max (jetson_clocks), 0 DVFS, -1 unknown */
    double gpu_temp_c;       /* NAN: unknown */
    char thermal_unread[1200];/* thermal zones whose type or temp could not be read, and why
                              * (throttle.h's tb_thermal_zones); "" none */
    double emc_mhz;          /* the EMC (memory) clock at the start, NAN: unknown */
    char emc_path[256];      /* the file it came from (jetson/emc.h) */
};

void tb_conditions_read(struct tb_conditions *c);
/* The power mode as logs and compare show it: "MAXN (0)", "" when unknown. */
void tb_conditions_mode(const struct tb_conditions *c, char *buf, size_t n);
/* Calls emit(ctx, key, value) for each known condition, as log metadata. */
void tb_conditions_each(const struct tb_conditions *c,
                        void (*emit)(void *ctx, const char *key, const char *value), void *ctx);

#endif
