/* listcmd.c: see listcmd.h. It opens the GPU to say which image it runs: list is where a
 * user finds out, before a night, whether the board can be measured at all. */
#include "listcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "board.h"
#include "cuda/images.h"
#include "csvlog.h"
#include "power/power.h"
#include "elements.h"
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
        if (!tb_kernel_built(k))
            tb_strlcpy(no, k->unavailable, sizeof(no));
        else
            tb_kernel_usable(k, no, sizeof(no));
        char elems[64];
        fprintf(out, "  %-16s %-7s %-10s %-8s %-44s %s%s%s\n", k->name,
                tb_backend_name(k->backend), no[0] ? "no" : "yes",
                tb_elements_describe(k->elem_sizes, elems, sizeof(elems)), k->rule_text,
                k->description, no[0] ? "; " : "", no);
    }
}

/* The kernel images this binary carries, each on its own line, and whether GPU 0 can run
 * them, which one and why. */
static void list_gpu(FILE *out)
{
    fprintf(out, "\nkernel images: %s\n", tb_cuda_images());
    for (size_t i = 0; i < tb_image_count(); i++) {
        char desc[192];
        tb_image_describe(&tb_images[i], desc, sizeof(desc));
        fprintf(out, "  image %zu: %s\n", i, desc);
    }
    const struct tb_backend *be = &tb_backend_cuda;
    char why[1024];
    struct tb_device_info dev;
    if (be->probe(0, why, sizeof(why)) != 0 || be->open(0, &dev, why, sizeof(why)) != 0) {
        fprintf(out, "GPU cuda:0: not usable: %s\n", why);
        return;
    }
    char name[512];   /* a driver's answer, shown cleaned (util.h) as all text from outside */
    fprintf(out, "GPU cuda:0: %s, sm_%d%d, driver's CUDA %s: usable, runs %s\n",
            tb_text_clean(name, sizeof(name), dev.name, false),
            dev.cc_major, dev.cc_minor, dev.driver_version, dev.image);
    fprintf(out, "  why that image: %s\n", dev.image_why);
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
    char variant[256], c1[PATH_MAX * 2], c2[1024];   /* a model read from the device tree, a
                                                      * board file's name: cleaned (util.h) */
    fprintf(out, "\nboard: %s (%s)\n", tb_text_clean(c1, sizeof(c1), board_path, false),
            tb_text_clean(c2, sizeof(c2), board_why, false));
    if (tb_board_variant(cfg, variant, sizeof(variant)))
        fprintf(out, "board variant: %s\n", tb_text_clean(c2, sizeof(c2), variant, false));
    fprintf(out, "\npower sources (auto tries them in this order; board '%s'):\n",
            tb_text_clean(c2, sizeof(c2), cfg->board.name, false));
    for (const struct tb_power_ops *const *p = tb_power_sources; *p; p++) {
        char why[512] = "";
        int usable = !(*p)->unavailable && (*p)->probe(&cfg->board.power, why, sizeof(why)) == 0;
        fprintf(out, "  %-11s %-38s %s%s\n", (*p)->name, (*p)->help,
                usable ? "usable here" : "not usable: ",
                usable ? "" : ((*p)->unavailable ? (*p)->unavailable : why));
    }
    return 0;
}

/* One image to dir/name, never over an existing file nor through a link. */
static int write_image(const char *dir, size_t i, const struct tb_image *im, FILE *out)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/transpose-bench.%zu.sm_%d.%s", dir, i, im->sm,
             im->kind == TB_IMAGE_CUBIN ? "cubin" : "ptx");
    unsigned char *buf;
    size_t len;
    int rc = tb_image_unpack(im, &buf, &len);
    if (rc < 0) {
        fprintf(stderr, "transpose-bench: image %zu: %s\n", i, strerror(-rc));
        return rc;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    ssize_t w = fd < 0 ? -1 : write(fd, buf, len);
    rc = fd < 0 || w != (ssize_t)len ? -errno : 0;
    if (fd >= 0 && close(fd) && !rc)
        rc = -errno;
    free(buf);
    if (rc) {
        fprintf(stderr, "transpose-bench: cannot write '%s': %s\n", path, strerror(-rc ? -rc : EIO));
        return rc ? rc : -EIO;
    }
    char desc[192];
    tb_image_describe(im, desc, sizeof(desc));
    fprintf(out, "%s: %s\n", path, desc);
    return 0;
}

int tb_list_images(const char *dir, FILE *out)
{
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "transpose-bench: cannot create '%s': %s\n", dir, strerror(errno));
        return -errno;
    }
    if (!tb_image_count()) {
        fprintf(stderr, "transpose-bench: this binary carries no kernel images: %s\n",
                tb_cuda_images());
        return -ENOENT;
    }
    for (size_t i = 0; i < tb_image_count(); i++) {
        int rc = write_image(dir, i, &tb_images[i], out);
        if (rc < 0)
            return rc;
    }
    return 0;
}
