/* tune.c: see tune.h. "Fastest" is the highest median GB/s of a point that counts as a
 * result (tb_log_usable: measured, output not wrong); kernels without a block keep [0, 0]. */
#include "cmd/tune.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/board.h"
#include "log/csvlog.h"
#include "lib/outfile.h"
#include "lib/util.h"

/* Writes the sweep's own settings (not its lists: the points replace them) through the
 * config dump, nesting "sweep.stop.min_reps" into groups: whatever setting the schema gains
 * is in the tuned file with no change here. Settings arrive grouped, in schema order. */
struct nest {
    FILE *f;
    char open[TB_STR];   /* the group path now open below "sweep", "" when none */
};

static void tuned_setting(void *ctx, const char *path, const char *value)
{
    struct nest *n = ctx;
    static const char *const skip[] = { "sweep.kernels", "sweep.sizes", "sweep.blocks" };
    if (strncmp(path, "sweep.", 6) || !strncmp(path, "sweep.points", 12))
        return;
    for (size_t i = 0; i < ARRAY_SIZE(skip); i++)
        if (!strcmp(path, skip[i]))
            return;
    const char *rest = path + 6, *dot = strrchr(rest, '.');
    char group[TB_STR] = "";
    if (dot)
        snprintf(group, sizeof(group), "%.*s", (int)(dot - rest), rest);
    if (strcmp(group, n->open)) {
        if (n->open[0])
            fprintf(n->f, "  };\n");
        if (group[0])
            fprintf(n->f, "  %s = {\n", group);   /* one level: the schema has no deeper */
        tb_strlcpy(n->open, group, sizeof(n->open));
    }
    fprintf(n->f, "%s  %s = %s;\n", group[0] ? "  " : "", dot ? dot + 1 : rest, value);
}

void tb_tune_default_path(const struct tb_config *cfg, char *out, size_t n)
{
    char confdir[PATH_MAX], board[TB_STR];
    tb_strlcpy(board, cfg->board.name, sizeof(board));
    tb_log_name_part(board, sizeof(board));
    const char *dir = tb_data_dir("conf", confdir, sizeof(confdir)) == 0 &&
                      access(confdir, W_OK) == 0 ? confdir : cfg->sweep.out_dir;
    snprintf(out, n, "%.*s/tuned-%s-%s.cfg", PATH_MAX / 2, dir, board, cfg->sweep.element);
}

int tb_tune_write(const char *path, const struct tb_config *cfg, const struct tb_runner_result *res,
                  const char *device, const char *log_path, size_t measured, size_t total)
{
    char tmp[PATH_MAX + 32];
    /* our own new file, never through a link planted at the name (lib/outfile.h) */
    int fd = tb_outfile_tmp(path, tmp, sizeof(tmp));
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return error("cannot write tuned sweep '%s': %s", tmp, strerror(e));
    }
    char utc[32], board[256], dev[256], logp[PATH_MAX + 64];
    tb_utc_stamp(utc, sizeof(utc), true);
    /* names from a board file, a driver and a path, in a comment of a file that is read as
     * configuration: cleaned (util.h), so no line break in them can start a setting */
    tb_text_clean(board, sizeof(board), cfg->board.name, false);
    tb_text_clean(dev, sizeof(dev), device, false);
    tb_text_clean(logp, sizeof(logp), log_path, false);
    fprintf(f, "# Written by `transpose-bench tune` on %s for board '%s' (%s).\n"
               "# Each kernel's fastest block per size by median GB/s; measured %zu of %zu\n"
               "# candidate points (%.0f%%). Log: %s\n"
               "sweep = {\n  points = (\n", utc, board, dev, measured, total,
            total ? 100.0 * (double)measured / (double)total : 0.0, logp);
    int written = 0;
    for (size_t i = 0; i < res->n_rows; i++) {
        const struct tb_log_rec *r = &res->rows[i];
        bool best = tb_log_usable(r);
        for (size_t j = 0; j < res->n_rows && best; j++) {
            const struct tb_log_rec *q = &res->rows[j];
            if (j != i && tb_log_usable(q) && !strcmp(q->kernel, r->kernel) && q->rows == r->rows &&
                q->cols == r->cols && (q->gbps > r->gbps || (q->gbps == r->gbps && j < i)))
                best = false;
        }
        if (!best)
            continue;
        /* the comma goes before each entry after the first: libconfig lists take no trailing one */
        /* L beyond 32 bits: libconfig 1.5 would read a plain literal wrapped */
        fprintf(f, "    %s{ kernel = \"%s\"; size = [ %ld%s, %ld%s ]; block = [ %d, %d ]; }  "
                   "# %.1f GB/s, %.3f of copy\n", written ? ", " : "  ", r->kernel, r->rows,
                r->rows > INT_MAX ? "L" : "", r->cols, r->cols > INT_MAX ? "L" : "", r->bx, r->by,
                r->gbps, r->frac_copy);
        written++;
    }
    fprintf(f, "  );\n");
    struct nest n = { f, "" };
    tb_config_dump(cfg, tuned_setting, &n);
    fprintf(f, "%s};\n", n.open[0] ? "  };\n" : "");
    if (fclose(f) != 0 || written == 0) {
        int e = errno;
        remove(tmp);   /* our own temporary */
        if (written == 0)
            return error("tune: no point was measured, nothing to write to '%s'", path);
        return error("cannot write tuned sweep '%s': %s", path, strerror(e));
    }
    /* the outputs' rule again at the last moment: never over a device, a FIFO or a log */
    return tb_outfile_commit("tune", tmp, path) < 0 ? -1 : written;
}

void tb_tune_path(const struct tb_config *cfg, const char *out_opt, char *out, size_t n)
{
    if (out_opt)
        tb_strlcpy(out, out_opt, n);
    else
        tb_tune_default_path(cfg, out, n);
}

int tb_tune_check_out(const struct tb_config *cfg, const char *out_opt, const char *sweep_path,
                      const char *board_path)
{
    char out[PATH_MAX];
    tb_tune_path(cfg, out_opt, out, sizeof(out));
    const char *outs[] = { out }, *in[] = { sweep_path, board_path };
    return tb_outfile_check("tune", outs, 1, in, 2);
}
