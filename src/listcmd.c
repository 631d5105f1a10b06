/* listcmd.c: see listcmd.h. It opens the GPU to say which image it runs: list is where a
 * user finds out, before a night, whether the board can be measured at all. */
#include "listcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
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

/* gpu_ok: whether GPU 0 can be used here (list_gpu says why not): a CUDA kernel built into
 * the binary is still not available on a machine whose GPU cannot run it. */
static void list_kernels(FILE *out, bool gpu_ok)
{
    fprintf(out, "kernels:\n  %-16s %-7s %-10s %-8s %-44s %s\n", "name", "backend", "available",
            "elements", "block-shape rule", "description");
    for (const struct tb_kernel *k = tb_kernels; k->name; k++) {
        char no[256] = "";
        if (!tb_kernel_built(k))
            tb_strlcpy(no, k->unavailable, sizeof(no));
        else if (k->backend == TB_BACKEND_CUDA && !gpu_ok)
            tb_strlcpy(no, "no usable GPU here (see below)", sizeof(no));
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
    char gpu_why[1024];
    list_kernels(out, tb_backend_cuda.probe(0, gpu_why, sizeof(gpu_why)) == 0);
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

/* Writes all of buf to fd (a short write is an error: a full disk says ENOSPC only on the
 * next call) and syncs it. 0 or -errno. */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, buf + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -ENOSPC;
        done += (size_t)w;
    }
    return fsync(fd) < 0 && errno != EINVAL ? -errno : 0;
}

/* Whether path is a regular file (not a link) holding exactly buf. */
static bool same_file(const char *path, const unsigned char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return false;
    bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len;
    unsigned char chunk[65536];
    for (size_t off = 0; same && off < len;) {
        ssize_t r = read(fd, chunk, sizeof(chunk));
        if (r <= 0 || memcmp(chunk, buf + off, (size_t)r)) {
            same = false;
            break;
        }
        off += (size_t)r;
    }
    close(fd);
    return same;
}

/* One image to dir/name: written whole to a temporary (O_EXCL, never through a link),
 * synced, then given its name with link(2), never over an existing file. A file already
 * there with the same bytes is left as it is (list --images run twice into one folder);
 * one with other bytes is said and left. */
static int write_image(const char *dir, size_t i, const struct tb_image *im, FILE *out)
{
    char path[PATH_MAX], tmp[PATH_MAX];
    int n1 = snprintf(path, sizeof(path), "%s/transpose-bench.%zu.sm_%d.%s", dir, i, im->sm,
                      im->kind == TB_IMAGE_CUBIN ? "cubin" : "ptx");
    int n2 = snprintf(tmp, sizeof(tmp), "%s/.transpose-bench.%zu.%ld.tmp", dir, i,
                      (long)getpid());
    if (n1 < 0 || n2 < 0 || (size_t)n1 >= sizeof(path) || (size_t)n2 >= sizeof(tmp)) {
        fprintf(stderr, "transpose-bench: image %zu: the folder's name is too long for its "
                "file names (%s)\n", i, strerror(ENAMETOOLONG));
        return -ENAMETOOLONG;
    }
    unsigned char *buf;
    size_t len;
    int rc = tb_image_unpack(im, &buf, &len);
    if (rc < 0) {
        fprintf(stderr, "transpose-bench: image %zu: %s\n", i, strerror(-rc));
        return rc;
    }
    char desc[192];
    tb_image_describe(im, desc, sizeof(desc));
    if (same_file(path, buf, len)) {
        free(buf);
        fprintf(out, "%s: %s (already there, unchanged)\n", path, desc);
        return 0;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    rc = fd < 0 ? -errno : write_all(fd, buf, len);
    if (fd >= 0 && close(fd) && !rc)
        rc = -errno;
    free(buf);
    if (!rc && link(tmp, path) < 0)
        rc = -errno;
    if (fd >= 0)
        unlink(tmp);   /* ours, made above: the image has its name, or is not written */
    if (rc) {
        fprintf(stderr, "transpose-bench: cannot write '%s': %s%s\n", path, strerror(-rc),
                rc == -EEXIST ? " (a file with other contents: not replaced; remove it or "
                "choose another folder)" : "");
        return rc;
    }
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
