/* images.h: the kernel images embedded in the executable, as one table, and the rules that
 * pick the one a GPU runs: NVIDIA's compatibility rules written as code. Pure functions over
 * data (no driver calls), so every rule is tested on a machine without a GPU. The table
 * itself is generated at build time (scripts/kernel-images.sh -> kernel_images.c). */
#ifndef TB_CUDA_IMAGES_H
#define TB_CUDA_IMAGES_H

#include <stdbool.h>
#include <stddef.h>

enum tb_image_kind { TB_IMAGE_PTX = 0, TB_IMAGE_CUBIN = 1 };

struct tb_image {
    int sm;                      /* 53: the .target (PTX) or the architecture (cubin) */
    enum tb_image_kind kind;
    int ptx_isa;                 /* PTX .version x10 (65 = 6.5); 0 for a cubin */
    int cuda;                    /* a cubin's CUDA version x10 (130 = 13.0); 0 for PTX */
    const char *compiler;        /* "clang 19.1.7", "nvcc 13.0" */
    const unsigned char *gz, *gz_end;  /* the image, gzipped */
    size_t bytes;                /* its size unpacked */
};

/* The table, ended by a row whose compiler is NULL. */
extern const struct tb_image tb_images[];

/* Why the table is empty (the build's reason: CUDA=0, no GPU on the build machine, a board
 * file without sms, with what builds them), or "" when it is not. Generated with the table. */
extern const char tb_images_none_why[];

/* Number of rows of tb_images. */
size_t tb_image_count(void);

/* The newest PTX ISA (x10) a driver of CUDA version `driver` (12020 = 12.2) JIT-compiles. */
int tb_driver_ptx_isa(int driver);

/* What a GPU gets, and why. */
struct tb_image_pick {
    int cubin;                   /* index of the cubin to load, or -1 */
    int ptx;                     /* index of the PTX to JIT-compile (also the fallback for a
                                    refused cubin), or -1 */
    char why[320];               /* one line: the choice and its reason, or why none fits */
};

/* Picks among images[0..n) for a GPU sm_<sm> (integrated: a Tegra) under a driver of CUDA
 * version `driver`: a cubin for the exact SM whose CUDA major is not newer than the
 * driver's, else the PTX with the highest target not above the GPU's SM whose ISA the driver
 * JIT-compiles. Returns true when something fits. */
bool tb_image_pick(const struct tb_image *images, size_t n, int sm, bool integrated, int driver,
                   struct tb_image_pick *p);

/* One line per image, e.g. "sm_53 PTX ISA 6.5, clang 19.1.7, 2183459 bytes". */
void tb_image_describe(const struct tb_image *im, char *buf, size_t n);

/* The images in one line ("PTX sm_53 ISA 6.5 (clang 19.1.7)", ...), or "none (...)". */
const char *tb_images_summary(char *buf, size_t n);

/* Unpacks an image into a new buffer (NUL-terminated, so PTX is a C string); 0 or -errno. */
int tb_image_unpack(const struct tb_image *im, unsigned char **out, size_t *len);

/* From a PTX module, a module holding only entry `name` (the header, every declaration and
 * function, and that entry): what the driver JIT-compiles when a sweep first runs it.
 * Returns a malloc'd string, or NULL when the entry is not there (or out of memory). */
char *tb_ptx_only_entry(const char *ptx, const char *name);

#endif
