/* modes_plan.c: the mode sweep's steps from the configuration's axes, checked against the
 * board before anything runs (see modes.h): what the board cannot do is a FILE:LINE error
 * (exit 2), never a step skipped at 3 a.m. Nothing here writes or runs nvpmodel. */
#include "jetson/modes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jetson/modes_int.h"
#include "lib/util.h"

/* One cap axis against the board: the file nvpmodel writes here (file: "GPU max_freq"; "":
 * none, nowhere_why says why) and none of its caps named twice. false (said in d) when
 * there is no file to write. */
static bool cap_axis_ok(const char *setting, const char *at, const long *caps, size_t n,
                        const char *path, const char *nowhere_why, const char *file,
                        struct tb_diag *d)
{
    if (!path[0]) {
        tb_diag_add(d, "%s: 'sweep.%s': no %s file to write on this board: %s", at, setting,
                    file, nowhere_why);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (caps[j] == caps[i]) {
                tb_diag_add(d, "%s: 'sweep.%s': %ld MHz is named twice (entries %zu and %zu): "
                            "each cap once", at, setting, caps[i], j + 1, i + 1);
                break;
            }
    return true;
}

/* The GPU caps against the board (cap_axis_ok), and each cap a clock of its table (devfreq
 * runs a cap between two clocks at the lower one, and one above the highest at the highest:
 * either would log a clock the GPU never had). */
static void check_gpu_caps(const struct tb_mode_axes *ax, const char *root,
                           const struct tb_mode_files *f, struct tb_diag *d)
{
    if (!cap_axis_ok("gpu_max_mhz", ax->gpu_max_mhz_at, ax->gpu_max_mhz, ax->n_gpu_max_mhz,
                     f->gpu_max, f->gpu_why, "GPU max_freq", d))
        return;
    double clk[64];
    size_t nc = tb_modes_gpu_clocks(root, f->gpu_max, clk, 64);
    if (!nc)
        return;   /* no table to check against: the step reads the clock back */
    double top = 0;
    char list[400] = "";
    for (size_t j = 0, len = 0; j < nc; j++) {
        top = clk[j] > top ? clk[j] : top;
        if (len < sizeof(list))
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%.0f", j ? " " : "",
                                    clk[j]);
    }
    for (size_t i = 0; i < ax->n_gpu_max_mhz; i++) {
        double cap = (double)ax->gpu_max_mhz[i];
        bool in_table = false;
        for (size_t j = 0; j < nc && !in_table; j++)
            in_table = tb_modes_near(clk[j] * 1e6, cap);
        if (in_table)
            continue;
        if (cap > top)
            tb_diag_add(d, "%s: 'sweep.gpu_max_mhz': %.0f MHz is above the GPU's highest clock, "
                        "%.0f MHz (its available_frequencies: %s MHz)", ax->gpu_max_mhz_at,
                        cap, top, list);
        else
            tb_diag_add(d, "%s: 'sweep.gpu_max_mhz': %.0f MHz is not a clock of the GPU "
                        "(its available_frequencies: %s MHz): devfreq would run it at the one "
                        "below", ax->gpu_max_mhz_at, cap, list);
    }
}

/* A name the table lacks: the nearest name, else the table's names. */
static void no_such_mode(const struct tb_mode_axes *ax, const struct tb_mode_table *t,
                         const char *name, struct tb_diag *d)
{
    const char *names[64];
    size_t k = 0;
    for (size_t j = 0; j < t->n && k < 64; j++)
        names[k++] = t->v[j].name;
    const char *sug = tb_suggest(name, names, k);
    char list[512] = "";
    for (size_t j = 0, len = 0; j < t->n && len < sizeof(list); j++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s (%d)", j ? ", " : "",
                                t->v[j].name, t->v[j].id);
    if (sug)
        tb_diag_add(d, "%s: 'sweep.power_modes': nvpmodel.conf has no mode '%s' (did you "
                    "mean '%s'?)", ax->power_modes_at, name, sug);
    else
        tb_diag_add(d, "%s: 'sweep.power_modes': nvpmodel.conf has no mode '%s' (it has %s)",
                    ax->power_modes_at, name, list);
}

/* How long the log's label of m is: "NAME (ID)". */
static size_t label_len(const struct tb_mode_def *m)
{
    char id[24];
    return strlen(m->name) + (size_t)snprintf(id, sizeof(id), " (%d)", m->id);
}

/* The modes named, as ids into ids[] (-1 unknown); each problem in d. */
static void check_modes(const struct tb_mode_axes *ax, const struct tb_mode_table *t,
                        int *ids, struct tb_diag *d)
{
    for (size_t i = 0; i < ax->n_power_modes && i < 256; i++) {
        const struct tb_mode_def *m = tb_modes_find(t, ax->power_modes[i]);
        ids[i] = m ? m->id : -1;
        if (!m)
            no_such_mode(ax, t, ax->power_modes[i], d);
        else if (m->name_cut || label_len(m) > TB_MODE_LABEL_MAX)
            /* the log's power_mode ("NAME (ID)") would be cut: two modes one point */
            tb_diag_add(d, "%s: 'sweep.power_modes': mode %d's name in nvpmodel.conf is too "
                        "long ('%.40s...': the log's \"NAME (ID)\" holds %d characters): two "
                        "modes could read as one operating point", ax->power_modes_at, m->id,
                        m->name, TB_MODE_LABEL_MAX);
    }
    if (ax->n_power_modes > 256)
        tb_diag_add(d, "%s: 'sweep.power_modes': more than 256 modes", ax->power_modes_at);
    /* one mode twice ("15W" and "0" are one): its rows would be one operating point twice */
    for (size_t i = 0; i < ax->n_power_modes && i < 256; i++)
        for (size_t j = 0; ids[i] >= 0 && j < i; j++)
            if (ids[j] == ids[i]) {
                const struct tb_mode_def *m = tb_modes_find_id(t, ids[i]);
                tb_diag_add(d, "%s: 'sweep.power_modes': entries %zu ('%s') and %zu ('%s') are "
                            "both mode %s (%d): each mode once", ax->power_modes_at, j + 1,
                            ax->power_modes[j], i + 1, ax->power_modes[i], m ? m->name : "?",
                            ids[i]);
                break;
            }
}

/* The steps: modes x GPU caps x EMC caps, in that order. */
static void make_steps(const struct tb_mode_axes *ax, const struct tb_mode_table *t,
                       const int *ids, struct tb_mode_step **steps, size_t *n)
{
    size_t nm = ax->n_power_modes ? ax->n_power_modes : 1;
    size_t ng = ax->n_gpu_max_mhz ? ax->n_gpu_max_mhz : 1;
    size_t ne = ax->n_emc_max_mhz ? ax->n_emc_max_mhz : 1;
    *steps = calloc(nm * ng * ne, sizeof(**steps));
    for (size_t i = 0; *steps && i < nm; i++)
        for (size_t g = 0; g < ng; g++)
            for (size_t e = 0; e < ne; e++) {
                struct tb_mode_step *s = &(*steps)[(*n)++];
                s->mode_id = ax->n_power_modes ? ids[i] : -1;
                const struct tb_mode_def *m = tb_modes_find_id(t, s->mode_id);
                tb_strlcpy(s->mode_name, m ? m->name : "", sizeof(s->mode_name));
                s->gpu_cap_mhz = ax->n_gpu_max_mhz ? (double)ax->gpu_max_mhz[g] : 0;
                s->emc_cap_mhz = ax->n_emc_max_mhz ? (double)ax->emc_max_mhz[e] : 0;
            }
}

int tb_modes_plan(const struct tb_mode_axes *ax, const char *root, struct tb_mode_step **steps,
                  size_t *n, struct tb_diag *d)
{
    size_t before = d->n;
    *steps = NULL;
    *n = 0;
    if (!ax->n_power_modes && !ax->n_gpu_max_mhz && !ax->n_emc_max_mhz)
        return 0;
    struct tb_mode_table t;
    char why[PATH_MAX + 200];
    const char *at = ax->n_power_modes ? ax->power_modes_at
                   : ax->n_gpu_max_mhz ? ax->gpu_max_mhz_at : ax->emc_max_mhz_at;
    const char *root_dir = root ? root : tb_root();
    if (tb_modes_table_read(root_dir, &t, why, sizeof(why)) < 0) {
        tb_diag_add(d, "%s: the power-mode sweep needs a Jetson's nvpmodel: %s (a desktop's "
                    "clocks and power limits are never changed)", at, why);
        return (int)(d->n - before);
    }
    int ids[256];
    check_modes(ax, &t, ids, d);
    struct tb_mode_files f;
    tb_modes_files(root_dir, &t, &f);
    if (ax->n_gpu_max_mhz)
        check_gpu_caps(ax, root_dir, &f, d);
    if (ax->n_emc_max_mhz)
        cap_axis_ok("emc_max_mhz", ax->emc_max_mhz_at, ax->emc_max_mhz, ax->n_emc_max_mhz,
                    f.emc, "the EMC MAX_FREQ files nvpmodel.conf names (MAX_FREQ, "
                    "MAX_FREQ_KNEXT) are not there (this kernel has no such cap)",
                    "EMC cap", d);
    if (d->n == before)
        make_steps(ax, &t, ids, steps, n);
    tb_modes_table_free(&t);
    return (int)(d->n - before);
}
