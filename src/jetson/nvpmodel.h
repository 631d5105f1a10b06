/* nvpmodel.h: the Jetson power mode as nvpmodel left it, read without root: the current
 * mode's ID from /var/lib/nvpmodel/status ("pmode:0001"), its name and the caps it sets
 * (EMC and GPU MAX_FREQ, Hz in the file) from /etc/nvpmodel.conf, both under a root so
 * tests use fake trees. Used by the ceiling (the EMC cap bounds the memory bandwidth) and
 * by the throttle snapshots (a mode changed mid-run). Not here: setting a mode, the
 * clocks a mode leaves live (devfreq, emc.h). */
#ifndef TB_NVPMODEL_H
#define TB_NVPMODEL_H

#include <stdbool.h>
#include <stddef.h>

struct tb_nvpmodel {
    int mode_id;               /* -1: unknown */
    char mode_name[64];        /* e.g. "15W", "MAXN_SUPER"; "" unknown */
    bool from_default;         /* no status file: the conf's "< PM_CONFIG DEFAULT=N >" */
    double emc_cap_mhz;        /* the mode's "EMC MAX_FREQ": > 0 a cap; 0 the mode sets none
                                * (-1, 0 or no such line); NAN unknown (no conf, no mode) */
    double gpu_cap_mhz;        /* the mode's "GPU MAX_FREQ", same rules */
    double emc_top_mhz;        /* R36's nvpmodel_clk_cap/emc (world-readable): the EMC's top
                                * rate now, under the mode's cap or held lower by firmware;
                                * NAN where there is none or it does not read */
    char emc_top_path[96];     /* the file it came from (not rooted); "" */
    char why[256];             /* what could not be read and why; "" when all was */
};

/* Reads root + /var/lib/nvpmodel/status and root + /etc/nvpmodel.conf, and R36's EMC top
 * rate file where the conf names it (MAX_FREQ_KNEXT of PARAM EMC) and it reads (a link to the
 * board's own file on L4T: followed, its target must be a regular file) by bounded reads
 * (safeio.h). root "" is the real one. Fills m whatever happens (unknowns as above);
 * returns 0 when the mode and its caps are known, -ENOENT or another -errno otherwise. */
int tb_nvpmodel_read(const char *root, struct tb_nvpmodel *m);

/* The part of tb_nvpmodel_read that reads the conf's text (jetson/modes.h's parser):
 * mode_id (-1: take the conf's PM_CONFIG DEFAULT, setting from_default) selects the mode;
 * fills the name and caps (not emc_top_mhz).
 * 0, or -ENOENT when the text has no such mode (why filled). */
int tb_nvpmodel_parse(const char *conf, int mode_id, struct tb_nvpmodel *m);

/* "pmode:0002 fmode:quiet" -> 2; -1 when the line names no mode. */
int tb_nvpmodel_parse_status(const char *line);

#endif
