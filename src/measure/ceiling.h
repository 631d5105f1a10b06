/* ceiling.h: the memory-bandwidth ceiling a point is judged against, following the memory
 * (EMC) clock: bus width x transfers per EMC clock x the EMC rate, where the rate comes from
 * the EMC clock read inside the point's window (devfreq, or debugfs as root: jetson/emc.h;
 * tegrastats' EMC_FREQ), else the current nvpmodel mode's EMC cap (jetson/nvpmodel.h:
 * readable without root), else the board file's peak, with the reason the EMC rate was not
 * read. The run's ceiling comes once (tb_ceiling_read), each point's from its window
 * (tb_ceiling_window); in a mode sweep's step, never above the EMC cap read back after the
 * step settled (tb_ceiling_step_cap). An Orin Nano Super in its 15W or 7W mode (EMC capped at 2133 MHz) gets
 * 68.3 GB/s, not 102.4. Not here: frac_peak itself (the runner), other clocks. */
#ifndef TB_CEILING_H
#define TB_CEILING_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

#define TB_CEILING_LIVE "live EMC"
#define TB_CEILING_CAP "nvpmodel EMC cap"
#define TB_CEILING_BOARD "board file"

struct tb_ceiling {
    double gbps;          /* the peak to judge against, GB/s; 0 unknown */
    double emc_mhz;       /* the EMC rate it follows (live or cap); NAN: the board file's */
    double board_gbps;    /* the board file's peak (peak_gbps, else bus x dram_mts); 0 none */
    double step_cap_mhz;  /* a mode step's EMC cap read back, bounding a window's live
                           * reading too (tb_ceiling_step_cap); 0 none */
    const char *source;   /* TB_CEILING_LIVE, _CAP or _BOARD: a log cell */
    char why[384];        /* where it came from, and why the EMC rate was not read (a log
                           * note), e.g. "EMC clock needs root (debugfs); nvpmodel mode 15W
                           * (0) caps EMC at 2133 MHz" */
};

/* Transfers per EMC clock of a board's memory type (board.dram_type): 2 for LPDDR4,
 * LPDDR4x and LPDDR5 as Tegra reports the EMC clock (Orin: 3199 MHz = LPDDR5-6400,
 * 102.4 GB/s on 128 bits; Nano: 1600 MHz = LPDDR4-3200, 25.6 GB/s on 64). 0 when the type
 * is unknown or not given. */
double tb_ceiling_transfers_per_clock(const char *dram_type);

/* The peak the board file's DRAM settings imply: dram_bus_bits / 8 x dram_mts / 1000 GB/s;
 * 0 when they are not given. */
double tb_ceiling_bus_gbps(const struct tb_board_cfg *b);

/* The board file's peak: board.peak_gbps (which the Super variant and --set may have
 * changed), else the bus's; 0 when neither is known. */
double tb_ceiling_board_gbps(const struct tb_board_cfg *b);

/* The ceiling at an EMC rate the caller read (MHz; e.g. tegrastats' EMC_FREQ, or the EMC
 * clock read inside a point's window): source "live EMC". 0; or -EINVAL when the rate is
 * NAN or not positive or the board file gives no bus width, rate or memory type: then c
 * holds the board file's peak with the reason in why. */
int tb_ceiling_live(const struct tb_board_cfg *b, double emc_mhz, struct tb_ceiling *c);

/* The run's ceiling, read under root ("" the real one, NULL tb_root()) once at the start:
 * the current nvpmodel mode's EMC cap, else the board file's peak; never the live EMC
 * clock, which at idle is the idle clock (the EMC scales down with load). Never fails:
 * c->source says which, c->why why no better one (whether the EMC clock is readable, and if
 * not why: "EMC clock needs root (debugfs; ...)"). */
void tb_ceiling_read(const struct tb_board_cfg *b, const char *root, struct tb_ceiling *c);

/* A mode step's ceiling: c (tb_ceiling_read's, read after the step settled) lowered to
 * the EMC rate cap_mhz, the nvpmodel EMC cap file read back after the step settled (MHz;
 * 0 or NAN: none), when that gives less. asked: the step asked that cap
 * (sweep.emc_max_mhz); else the file is below what the mode's table gave (the mode's own
 * cap, or none). Lowered, c->source is TB_CEILING_CAP, c->step_cap_mhz cap_mhz and c->why
 * says where the rate came from and what it replaced ("EMC 1600 MHz: the cap asked
 * (emc_max_mhz), read back after the step settled; without it 68.3 GB/s (nvpmodel EMC
 * cap): ..."). A GPU cap never lowers it: a transpose is bound by memory. 1 lowered, 0
 * not (no cap, one no lower, or a board file that cannot turn it into a peak: why then
 * says so). */
/* How a step's EMC cap is known: the nvpmodel cap file read back, the cap asked read back,
 * or the cap asked and written, its file root's to read (R32/R35 as a normal user). */
enum { TB_STEP_CAP_FILE, TB_STEP_CAP_ASKED, TB_STEP_CAP_ASKED_UNREAD };
int tb_ceiling_step_cap(const struct tb_board_cfg *b, double cap_mhz, int asked,
                        struct tb_ceiling *c);

/* A point's ceiling: live from the EMC clock read inside its window (emc_mhz, e.g. the
 * window's struct tb_power_figures.emc_clock_mhz; NAN when none), else the run's
 * (tb_ceiling_read); never a live reading above the run's step_cap_mhz (the run's then). */
void tb_ceiling_window(const struct tb_board_cfg *b, const struct tb_ceiling *run,
                       double emc_mhz, struct tb_ceiling *c);

/* The EMC clock read now under root (tb_emc_find) as a live ceiling, else tb_ceiling_read's:
 * for a caller that reads inside a window with no sampler to do it. */
void tb_ceiling_now(const struct tb_board_cfg *b, const char *root, struct tb_ceiling *c);

/* Why no EMC clock file read under root: "EMC clock needs root (debugfs)" when not root
 * (as_root false) or debugfs refuses, else that none was found. For tb_ceiling_read and
 * tests. */
void tb_ceiling_emc_why(const char *root, int as_root, char *why, size_t n);

#endif
