/* listcmd.c: see listcmd.h. It names the GPU and the image it would run through the
 * backend's identify, without a context (no image loaded, nothing JIT-compiled): list is
 * where a user finds out, before a night, whether the board can be measured at all, and
 * it must cost nothing and never touch the GPU being measured. */
#include "cmd/listcmd.h"

#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/backend.h"
#include "measure/board.h"
#include "log/csvlog.h"
#include "power/power.h"
#include "lib/elements.h"
#include "lib/util.h"
#include "config/config.h"
#include "lib/cli.h"

/* Whether everything written to out reached it: a full disk or /dev/full must not pass for a
 * whole listing. 0, or -EIO after the error. A write that failed before the last flush (stdio
 * keeps only its flag, and the flush may have nothing left to write) left its cause in errno,
 * which each lister clears before it prints: said where the flush sets none (a lister that
 * probes between its prints may leave a probe's there instead). */
static int out_done(FILE *out)
{
    int before = errno;
    errno = 0;
    if (fflush(out) != 0 || ferror(out)) {
        error("list: cannot write the output: %s",
              strerror(errno ? errno : before ? before : EIO));
        return -EIO;
    }
    return 0;
}

int tb_list_columns(FILE *out)
{
    errno = 0;
    fprintf(out, "| column | unit | meaning |\n|---|---|---|\n");
    for (size_t i = 0; i < tb_n_columns; i++)
        fprintf(out, "| `%s` | %s | %s |\n", tb_columns[i].name, tb_columns[i].unit,
                tb_columns[i].doc);
    return out_done(out);
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

/* The kernel images this binary carries, one line each (or why there are none), and
 * whether GPU 0 can run them, which one and why: from the backend's identify, with no
 * context. gpu_why: the probe's reason, "" when it found GPU 0 usable. */
static void list_gpu(FILE *out, const struct tb_backend *be, const char *gpu_why)
{
    char desc[192], file[64], buf[1024];
    size_t i = 0;
    for (; be->image && be->image(i, desc, sizeof(desc), file, sizeof(file), NULL, NULL) == 0; i++)
        fprintf(out, "%s  image %zu: %s\n", i ? "" : "\nkernel images:\n", i, desc);
    if (i == 0)
        fprintf(out, "\nkernel images: %s\n", be->images ? be->images(buf, sizeof(buf)) : "none");
    struct tb_device_info dev;
    char why[1024], name[512];   /* a driver's answer, shown cleaned (util.h) */
    if (be->identify(0, &dev, why, sizeof(why)) != 0) {
        fprintf(out, "GPU cuda:0: not usable: %s\n", gpu_why[0] ? gpu_why : why);
        return;
    }
    fprintf(out, "GPU cuda:0: %s, sm_%d%d, driver's CUDA %s: ",
            tb_text_clean(name, sizeof(name), dev.name, false), dev.cc_major, dev.cc_minor,
            dev.driver_version);
    if (gpu_why[0]) {
        fprintf(out, "not usable: %s\n", gpu_why);
        return;
    }
    fprintf(out, "usable, runs %s\n  why that image: %s\n", dev.image, dev.image_why);
    fprintf(out, "  (named without a context: whether the driver accepts the image shows when "
            "a run loads it, in its log's kernel_image line)\n");
}

int tb_list(struct tb_config *cfg, struct tb_diag *diag, const char *board_file, FILE *out)
{
    char gpu_why[1024] = "";
    const struct tb_backend *cuda = &tb_backend_cuda;
    if (cuda->probe(0, gpu_why, sizeof(gpu_why)) == 0)
        gpu_why[0] = '\0';
    else if (!gpu_why[0])
        tb_strlcpy(gpu_why, "the driver gave no reason", sizeof(gpu_why));
    errno = 0;
    list_kernels(out, !gpu_why[0]);
    list_gpu(out, cuda, gpu_why);
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
    return out_done(out);
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
        /* a write of nothing, or a failure that set no errno, is a disk that took no more:
         * never 0 (success) for a file not written whole */
        if (w <= 0)
            return w < 0 && errno ? -errno : -ENOSPC;
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
static int write_image(const char *dir, size_t i, const struct tb_backend *be, FILE *out)
{
    char path[PATH_MAX], tmp[PATH_MAX], desc[192], file[64];
    unsigned char *buf;
    size_t len;
    int rc = be->image(i, desc, sizeof(desc), file, sizeof(file), NULL, NULL);
    if (rc < 0)
        return rc;
    int n1 = snprintf(path, sizeof(path), "%s/transpose-bench.%zu.%s", dir, i, file);
    int n2 = snprintf(tmp, sizeof(tmp), "%s/.transpose-bench.%zu.%ld.tmp", dir, i,
                      (long)getpid());
    if (n1 < 0 || n2 < 0 || (size_t)n1 >= sizeof(path) || (size_t)n2 >= sizeof(tmp)) {
        fprintf(stderr, "transpose-bench: image %zu: the folder's name is too long for its "
                "file names (%s)\n", i, strerror(ENAMETOOLONG));
        return -ENAMETOOLONG;
    }
    rc = be->image(i, desc, sizeof(desc), file, sizeof(file), &buf, &len);
    if (rc < 0) {
        fprintf(stderr, "transpose-bench: image %zu: %s\n", i, strerror(-rc));
        return rc;
    }
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
    const struct tb_backend *be = &tb_backend_cuda;
    char desc[192], file[64], buf[1024];
    if (be->image(0, desc, sizeof(desc), file, sizeof(file), NULL, NULL) < 0) {
        fprintf(stderr, "transpose-bench: this binary carries no kernel images: %s\n",
                be->images(buf, sizeof(buf)));
        return -ENOENT;
    }
    errno = 0;
    for (size_t i = 0; be->image(i, desc, sizeof(desc), file, sizeof(file), NULL, NULL) == 0;
         i++) {
        int rc = write_image(dir, i, be, out);
        if (rc < 0)
            return rc;
    }
    return out_done(out);
}

/* ---- the command line ------------------------------------------------------------ */

enum { OPT_COLUMNS = TB_OPT_LONG, OPT_IMAGES, OPT_SET };

static const struct tb_opt_row list_opts[] = {
    { "columns", OPT_COLUMNS, NULL, "the log's columns (name, unit, meaning) instead" },
    { "images", OPT_IMAGES, "DIR", "write each kernel image to a file in DIR (PTX as text,\n"
                                   "cubins as ELF) for inspection" },
    { "board", 'b', "BOARD.cfg", "board file (default: detected, as run does)" },
    { "set", OPT_SET, "KEY=VAL...", "override a setting of the board file" },
    TB_OPT_END,
};

const struct tb_usage tb_list_usage = {
    "list", list_opts,
    "  Lists every kernel (backend, availability, block-shape rule), every embedded kernel\n"
    "  image and the one GPU 0 runs (and why), and every power source with whether it can\n"
    "  work here.\n",
};

int tb_list_main(int argc, char **argv)
{
    struct tb_getopt g;
    tb_getopt_begin(&g, tb_list_usage.opts);
    struct tb_config cfg;
    struct tb_diag diag = { 0 };
    tb_config_init(&cfg);
    const char *board_file = NULL;
    bool columns = false;
    const char *images = NULL;
    int opt;
    while ((opt = tb_getopt_next(&g, argc, argv)) != -1) {
        switch (opt) {
        case OPT_COLUMNS: columns = true; break;
        case OPT_IMAGES: images = optarg; break;
        case 'b': board_file = optarg; break;
        case OPT_SET: tb_config_add_set(&cfg, optarg, &diag); break;
        default:
            tb_usage_print(&tb_list_usage, stderr);
            tb_config_free(&cfg);
            return TB_EXIT_USAGE;
        }
    }
    if (tb_usage_no_operands(&tb_list_usage, argc, argv, optind) < 0) {
        tb_config_free(&cfg);
        tb_diag_free(&diag);
        return TB_EXIT_USAGE;
    }
    if (images) {
        tb_config_free(&cfg);
        return tb_list_images(images, stdout) < 0 ? TB_EXIT_FAIL : TB_EXIT_OK;
    }
    int rc = columns ? tb_list_columns(stdout) : tb_list(&cfg, &diag, board_file, stdout);
    tb_config_free(&cfg);
    tb_diag_free(&diag);
    return rc == -EIO ? TB_EXIT_FAIL : rc < 0 ? TB_EXIT_USAGE : TB_EXIT_OK;   /* -EIO: a full disk */
}
