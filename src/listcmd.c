/* listcmd.c: see listcmd.h. It opens the GPU to say which image it runs: list is where a
 * user finds out, before a night, whether the board can be measured at all. */
#include "listcmd.h"

#include <limits.h>
#include <string.h>

#include "backend.h"
#include "board.h"
#include "csvlog.h"
#include "power/power.h"
#include "util.h"

int tb_list_columns(FILE *out)
{
    fprintf(out, "| column | unit | meaning |\n|---|---|---|\n");
    for (size_t i = 0; i < tb_n_columns; i++)
        fprintf(out, "| `%s` | %s | %s |\n", tb_columns[i].name, tb_columns[i].unit,
                tb_columns[i].doc);
    return 0;
}

static void list_kernels(FILE *out)
{
    fprintf(out, "kernels:\n  %-16s %-7s %-10s %-8s %-44s %s\n", "name", "backend", "available",
            "elements", "block-shape rule", "description");
    for (const struct tb_kernel *k = tb_kernels; k->name; k++) {
        char no[256] = "";
        if (!k->launch)
            tb_strlcpy(no, k->unavailable, sizeof(no));
        else
            tb_kernel_usable(k, no, sizeof(no));
        fprintf(out, "  %-16s %-7s %-10s %-8s %-44s %s%s%s\n", k->name,
                tb_backend_name(k->backend), no[0] ? "no" : "yes",
                k->elem_sizes == (1u << 4) ? "float" : "all", k->rule_text, k->description,
                no[0] ? "; " : "", no);
    }
}

/* The kernel images this binary carries, and whether GPU 0 can run them and which. */
static void list_gpu(FILE *out)
{
    fprintf(out, "\nkernel images: %s\n", tb_cuda_images());
    const struct tb_backend *be = &tb_backend_cuda;
    char why[1024];
    struct tb_device_info dev;
    if (be->probe(0, why, sizeof(why)) != 0 || be->open(0, &dev, why, sizeof(why)) != 0) {
        fprintf(out, "GPU cuda:0: not usable: %s\n", why);
        return;
    }
    fprintf(out, "GPU cuda:0: %s, sm_%d%d, driver's CUDA %s: usable, runs %s\n", dev.name,
            dev.cc_major, dev.cc_minor, dev.driver_version, dev.image);
    be->close();
}

int tb_list(struct tb_config *cfg, struct tb_diag *diag, const char *board_file, FILE *out)
{
    list_kernels(out);
    list_gpu(out);
    char board_path[PATH_MAX], board_why[512];
    if (tb_board_pick(cfg, board_file, NULL, board_path, sizeof(board_path), board_why,
                      sizeof(board_why)) < 0)
        tb_diag_add(diag, "cannot find a board file: %s (give one with -b)", board_why);
    else
        tb_config_load(cfg, NULL, board_path, diag);
    if (diag->n) {
        tb_diag_print(diag);
        return -1;
    }
    char variant[256];
    fprintf(out, "\nboard: %s (%s)\n", board_path, board_why);
    if (tb_board_variant(cfg, variant, sizeof(variant)))
        fprintf(out, "board variant: %s\n", variant);
    fprintf(out, "\npower sources (auto tries them in this order; board '%s'):\n", cfg->board.name);
    for (const struct tb_power_ops *const *p = tb_power_sources; *p; p++) {
        char why[512] = "";
        int usable = !(*p)->unavailable && (*p)->probe(&cfg->board.power, why, sizeof(why)) == 0;
        fprintf(out, "  %-11s %-38s %s%s\n", (*p)->name, (*p)->help,
                usable ? "usable here" : "not usable: ",
                usable ? "" : ((*p)->unavailable ? (*p)->unavailable : why));
    }
    return 0;
}
