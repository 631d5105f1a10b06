/* throttle.h: why a point throttled. A snapshot taken at a point's start and another at its
 * end, and their difference: the over-current event counters of the `soctherm_oc` hwmon
 * device (Orin in MAXN_SUPER halves CPU and GPU clocks for about 1 ms per event, which
 * devfreq's cur_freq never shows), the thermal zones, the GPU's devfreq min/max/cur and the
 * nvpmodel mode; the difference names one short cause for the log. On desktops, NVML's
 * clock-event reasons as a cause. Everything is read world-readable under a root (tests use
 * fake trees), by bounded reads; a missing file is NAN or -1, never an error of the run.
 * Not here: the log columns (the runner), the EMC ceiling (ceiling.h). */
#ifndef TB_THROTTLE_H
#define TB_THROTTLE_H

#include <stdbool.h>
#include <stddef.h>

#define TB_THROTTLE_OC 3          /* oc1..oc3_event_cnt */
#define TB_THROTTLE_ZONES 24
/* A zone at or above this is called hot when the caller passes it as hot_c: a threshold
 * chosen here below Orin's and Xavier's throttling temperatures, not a vendor figure. */
#define TB_THROTTLE_HOT_C 95.0

struct tb_throttle_zone {
    int index;                    /* N of thermal_zoneN */
    char type[32];                /* thermal_zoneN/type, e.g. "gpu-thermal", "GPU-therm" */
    double temp_c;                /* NAN: unreadable or the sensor is offline (-256 C) */
};

struct tb_throttle_snap {
    long long oc_cnt[TB_THROTTLE_OC];   /* -1: no soctherm_oc device or no such counter */
    char oc_hwmon[16];            /* the device's hwmon entry, e.g. "hwmon3"; "" none */
    int n_zones;
    struct tb_throttle_zone zone[TB_THROTTLE_ZONES];
    char unread[1200];            /* zones whose type or temp could not be read, and why:
                                   * "thermal_zone3/type (no answer within 2000 ms), ..." */
    char devfreq[64];             /* the GPU's devfreq entry; "" none */
    double gpu_cur_mhz, gpu_min_mhz, gpu_max_mhz;   /* NAN: unknown */
    int mode_id;                  /* nvpmodel mode, -1 unknown */
    char mode_name[64];           /* "" unknown */
};

struct tb_throttle_diff {
    long long oc_delta[TB_THROTTLE_OC];  /* end - start; -1 unknown (a counter that went
                                          * back, a driver reload, is unknown too) */
    long long oc_total;           /* sum of the known deltas; -1 none known */
    double max_temp_c;            /* the hottest zone at start or end; NAN none */
    char max_temp_zone[32];
    bool hot;                     /* max_temp_c >= hot_c */
    double gpu_max_start_mhz, gpu_max_end_mhz;   /* devfreq max_freq, NAN unknown */
    double gpu_cur_start_mhz, gpu_cur_end_mhz;   /* devfreq cur_freq (a DVFS clock is below
                                                  * its max at idle: no cause by itself) */
    bool capped;                  /* devfreq max_freq lowered during the point */
    bool below_max;               /* pinned at the start (min == max), cur below max at the end */
    bool mode_changed;
    bool throttled;               /* any of the above, or an OC event */
    char cause[96];               /* one short cause for the log, the strongest: "mode changed
                                   * MAXN_SUPER->15W", "devfreq max 1020->612 MHz", "oc3 +12",
                                   * "thermal gpu-thermal 97 C", "devfreq cur 612 < max 1020
                                   * MHz"; "" when nothing */
};

/* The GPU's devfreq entry under root + /sys/class/devfreq (root NULL: tb_root()), e.g.
 * "17000000.gpu", into name: 0, or -ENOENT ("" in name) when there is none. One rule for
 * the throttle snapshots and the run conditions (conditions.c). */
int tb_gpu_devfreq_find(const char *root, char *name, size_t n);

/* The thermal zones under root + /sys/class/thermal (root NULL: tb_root()), the lowest
 * indexes first, max at most (TB_THROTTLE_ZONES at most): listed, so a gap or a zone that
 * cannot be read never hides a later one; every type and temp read at once under one
 * deadline (TB_SAFEIO_DEADLINE_MS for the whole scan, however many hang). A zone whose type
 * cannot be read is left out, and it and any temp that cannot be read are named in unread
 * ("" when none). Returns the zones read into z. One scan for the throttle snapshots and the
 * run conditions' GPU temperature (conditions.c). */
int tb_thermal_zones(const char *root, struct tb_throttle_zone *z, int max, char *unread,
                     size_t unread_n);

/* Reads a snapshot under root ("" the real one; NULL tb_root()). Never fails. */
void tb_throttle_snap(const char *root, struct tb_throttle_snap *s);

/* The difference of two snapshots of one point; hot_c: a zone at or above it is hot (NAN:
 * never; TB_THROTTLE_HOT_C is a fair choice). Zones of a fixed reading (the Nano's
 * "PMIC-Die" reads 100 C always) are not counted. */
void tb_throttle_diff(const struct tb_throttle_snap *start, const struct tb_throttle_snap *end,
                      double hot_c, struct tb_throttle_diff *d);

/* NVML's clock-event (throttle) reasons bitmask as one short cause: the throttling bits by
 * weight ("HW power brake", "HW thermal", "HW slowdown", "SW thermal", "SW power cap",
 * "sync boost", "display clock", "app clocks"), joined by "+"; "" when none of them is set
 * (GPU idle, 0x1, is no throttling; unknown bits are named "0x..."). Returns buf. */
const char *tb_throttle_nvml_cause(unsigned long long mask, char *buf, size_t n);
/* Whether mask holds a reason that slows a running kernel (all but GPU idle). */
bool tb_throttle_nvml_throttled(unsigned long long mask);

/* nvml.c: the NVML source's clock-event reasons now, for the runner to call at a point's
 * end on the source's state (tb_power_nvml): nvmlDeviceGetCurrentClocksEventReasons, else
 * the older ...ThrottleReasons. 0 with *mask, or -ENOTSUP when the library has neither or
 * the GPU does not say. */
int tb_nvml_clock_reasons(void *nvml_state, unsigned long long *mask);

#endif
