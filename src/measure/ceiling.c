/* ceiling.c: see ceiling.h. The facts: Tegra's EMC clock counts half the DRAM data rate on
 * every Jetson memory (doc/power.md, "Ceilings"): Orin's 3199 MHz is LPDDR5-6400 (102.4 GB/s
 * on 128 bits) and 2133 MHz gives 68.3 GB/s, the Nano's 1600 MHz is LPDDR4-3200 (25.6 GB/s
 * on 64 bits), AGX Xavier's 2133 MHz LPDDR4x-4266 (136.5 GB/s on 256), TX2's 1866 MHz
 * LPDDR4-3733 (59.7 GB/s on 128). A ceiling is never an error: the worst case is the board
 * file's peak with the reason a better one could not be had. */
#include "measure/ceiling.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "jetson/emc.h"
#include "jetson/nvpmodel.h"
#include "lib/util.h"

/* One row per memory type the board files name (board.dram_type's choices). */
static const struct {
    const char *type;
    double transfers_per_clock;
} dram_types[] = {
    { "LPDDR4", 2 },    /* Nano/TX1 1600 MHz -> 3200 MT/s; TX2 1866 -> 3733 */
    { "LPDDR4x", 2 },   /* AGX Xavier 2133 MHz -> 4266 MT/s; Xavier NX 1866 -> 3733 */
    { "LPDDR5", 2 },    /* Orin 3199 MHz -> 6400 MT/s (102.4 GB/s on 128 bits), 2133 -> 68.3 */
};

double tb_ceiling_transfers_per_clock(const char *dram_type)
{
    for (size_t i = 0; dram_type && i < ARRAY_SIZE(dram_types); i++)
        if (!strcasecmp(dram_type, dram_types[i].type))
            return dram_types[i].transfers_per_clock;
    return 0;
}

double tb_ceiling_bus_gbps(const struct tb_board_cfg *b)
{
    if (b->dram_bus_bits <= 0 || b->dram_mts <= 0)
        return 0;
    return b->dram_bus_bits / 8.0 * b->dram_mts / 1000.0;
}

double tb_ceiling_board_gbps(const struct tb_board_cfg *b)
{
    return b->peak_gbps > 0 ? b->peak_gbps : tb_ceiling_bus_gbps(b);
}

static void from_board(const struct tb_board_cfg *b, struct tb_ceiling *c)
{
    c->gbps = c->board_gbps = tb_ceiling_board_gbps(b);
    c->emc_mhz = NAN;
    c->source = TB_CEILING_BOARD;
}

/* The ceiling at emc_mhz: 0, or -EINVAL with why saying what the board file lacks. */
static int at_emc(const struct tb_board_cfg *b, double emc_mhz, struct tb_ceiling *c)
{
    double per_clock = tb_ceiling_transfers_per_clock(b->dram_type);
    if (b->dram_bus_bits <= 0 || per_clock <= 0) {
        snprintf(c->why, sizeof(c->why), "board file '%s' gives no %s: the EMC clock cannot "
                 "be turned into a peak", b->name, b->dram_bus_bits <= 0 ? "board.dram_bus_bits"
                 : "board.dram_type");
        return -EINVAL;
    }
    c->gbps = emc_mhz * per_clock * b->dram_bus_bits / 8.0 / 1000.0;
    c->emc_mhz = emc_mhz;
    return 0;
}

int tb_ceiling_live(const struct tb_board_cfg *b, double emc_mhz, struct tb_ceiling *c)
{
    memset(c, 0, sizeof(*c));
    from_board(b, c);
    if (!(emc_mhz > 0)) {
        snprintf(c->why, sizeof(c->why), "no EMC clock reading");
        return -EINVAL;
    }
    if (at_emc(b, emc_mhz, c) < 0) {
        from_board(b, c);
        return -EINVAL;
    }
    c->source = TB_CEILING_LIVE;
    snprintf(c->why, sizeof(c->why), "EMC %.0f MHz x %g transfers (%s) x %d bits", emc_mhz,
             tb_ceiling_transfers_per_clock(b->dram_type), b->dram_type, b->dram_bus_bits);
    return 0;
}

void tb_ceiling_emc_why(const char *root, int as_root, char *why, size_t n)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/sys/kernel/debug", root);
    DIR *d = opendir(dir);
    int err = d ? 0 : errno;
    if (d)
        closedir(d);
    if (!as_root || err == EACCES || err == EPERM)
        snprintf(why, n, "EMC clock needs root (debugfs; no world-readable EMC devfreq entry)");
    else
        snprintf(why, n, "no EMC clock found (EMC devfreq entry, debugfs clk/emc)%s",
                 err == ENOENT ? ": debugfs not mounted" : "");
}

/* NULL: tb_root(); "/" is the real root, written "" so that paths shown lose only it. */
static const char *root_of(const char *root)
{
    if (!root)
        root = tb_root();
    return strcmp(root, "/") ? root : "";
}

/* The current nvpmodel mode's EMC cap, else the board file's peak; emc_why says why no
 * live clock stands behind it. */
static void from_cap(const struct tb_board_cfg *b, const char *root, const char *emc_why,
                     struct tb_ceiling *c)
{
    struct tb_nvpmodel m;
    int rc = tb_nvpmodel_read(root, &m);
    memset(c, 0, sizeof(*c));
    from_board(b, c);
    if (rc < 0) {
        snprintf(c->why, sizeof(c->why), "%.150s; %.220s", emc_why, m.why);
        return;
    }
    char mode[128];
    snprintf(mode, sizeof(mode), "nvpmodel mode %s (%d)%s", m.mode_name, m.mode_id,
             m.from_default ? ", the default: no status file" : "");
    /* R36 says the EMC's top rate itself: the mode's cap, or lower where firmware holds it
     * (an Orin Nano Super on R36.4.3 keeps 2133 MHz in MAXN_SUPER, whose table caps none) */
    if (m.emc_top_mhz > 0 && at_emc(b, m.emc_top_mhz, c) == 0) {
        c->source = TB_CEILING_CAP;
        snprintf(c->why, sizeof(c->why), "%.100s; %.100s: %.90s reads the EMC's top rate, "
                 "%.0f MHz (the mode's table: %s)", emc_why, mode, m.emc_top_path,
                 m.emc_top_mhz, m.emc_cap_mhz > 0 ? "a cap" : "no cap");
        return;
    }
    if (m.emc_cap_mhz > 0 && at_emc(b, m.emc_cap_mhz, c) == 0) {
        c->source = TB_CEILING_CAP;
        snprintf(c->why, sizeof(c->why), "%.150s; %s caps EMC at %.0f MHz", emc_why, mode,
                 m.emc_cap_mhz);
        return;
    }
    from_board(b, c);
    if (m.emc_cap_mhz > 0)   /* a cap the board file cannot turn into a peak */
        snprintf(c->why + strlen(c->why), sizeof(c->why) - strlen(c->why), "; %s caps EMC "
                 "at %.0f MHz", mode, m.emc_cap_mhz);
    else if (isnan(m.emc_cap_mhz))
        snprintf(c->why, sizeof(c->why), "%.150s; %s: its EMC MAX_FREQ is not a number",
                 emc_why, mode);
    else
        snprintf(c->why, sizeof(c->why), "%.150s; %s sets no EMC cap", emc_why, mode);
}

void tb_ceiling_read(const struct tb_board_cfg *b, const char *root, struct tb_ceiling *c)
{
    char path[PATH_MAX], emc_why[200];
    root = root_of(root);
    if (tb_emc_find(root, path, sizeof(path)) == 0)
        snprintf(emc_why, sizeof(emc_why), "EMC clock readable (%.120s): a window's reading "
                 "gives the live peak", path + strlen(root));
    else
        tb_ceiling_emc_why(root, geteuid() == 0, emc_why, sizeof(emc_why));
    from_cap(b, root, emc_why, c);
}

void tb_ceiling_now(const struct tb_board_cfg *b, const char *root, struct tb_ceiling *c)
{
    char path[PATH_MAX], why[PATH_MAX + 160], emc_why[200];
    root = root_of(root);
    if (tb_emc_find(root, path, sizeof(path)) < 0) {
        tb_ceiling_emc_why(root, geteuid() == 0, emc_why, sizeof(emc_why));
        from_cap(b, root, emc_why, c);
        return;
    }
    double emc = tb_emc_read_mhz(path, why, sizeof(why));
    if (tb_ceiling_live(b, emc, c) == 0) {
        size_t l = strlen(c->why);
        snprintf(c->why + l, sizeof(c->why) - l, " (%.200s)", path + strlen(root));
        return;
    }
    /* read but unusable (the board file lacks its DRAM), or gone since it was found */
    snprintf(emc_why, sizeof(emc_why), "%.199s", isnan(emc) ? why : c->why);
    from_cap(b, root, emc_why, c);
}

int tb_ceiling_step_cap(const struct tb_board_cfg *b, double cap_mhz, int asked,
                        struct tb_ceiling *c)
{
    if (!(cap_mhz > 0))
        return 0;
    const char *what = asked == TB_STEP_CAP_ASKED_UNREAD ? "the cap asked (emc_max_mhz), "
                       "written; its file is root's to read, so not read back"
                       : asked ? "the cap asked (emc_max_mhz), read back after the step settled"
                       : "the nvpmodel EMC cap file read back after the step settled, "
                         "below the mode's table";
    struct tb_ceiling capped = *c;
    if (at_emc(b, cap_mhz, &capped) < 0) {
        size_t l = strlen(c->why);
        snprintf(c->why + l, sizeof(c->why) - l, "; EMC %.0f MHz, %s, not used: %.150s",
                 cap_mhz, what, capped.why);
        return 0;
    }
    /* the lower of the two: a cap at or above what the mode already gives changes nothing
     * (0: the board file gave no peak at all, so the cap's is better) */
    if (c->gbps > 0 && capped.gbps >= c->gbps)
        return 0;
    capped.source = TB_CEILING_CAP;
    capped.step_cap_mhz = cap_mhz;
    snprintf(capped.why, sizeof(capped.why), "EMC %.0f MHz: %s; without it %.1f GB/s (%s): "
             "%.200s", cap_mhz, what, c->gbps, c->source, c->why);
    *c = capped;
    return 1;
}

void tb_ceiling_window(const struct tb_board_cfg *b, const struct tb_ceiling *run,
                       double emc_mhz, struct tb_ceiling *c)
{
    struct tb_ceiling live;
    /* a live reading above the step's cap is a stale or misread clock: the cap holds it */
    if (tb_ceiling_live(b, emc_mhz, &live) == 0 &&
        !(run->step_cap_mhz > 0 && live.emc_mhz > run->step_cap_mhz))
        *c = live;
    else
        *c = *run;
}
