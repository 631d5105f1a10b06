/* kernels.h: the one table of transpose kernels, for every backend, behind a plain C
 * interface. A row says what a kernel is, which block shapes it accepts, and how many
 * bytes it moves; the runner and `list` read nothing else. Kernel code lives in
 * cpu_kernels.c and the *.cu files; this header is C and C++ (nvcc) clean. */
#ifndef TB_KERNELS_H
#define TB_KERNELS_H

#include <signal.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tb_backend_id { TB_BACKEND_CPU = 0, TB_BACKEND_CUDA = 1 };

/* One launch: input rows x cols row-major, output cols x rows (copy kernels: rows x cols). */
struct tb_launch {
    const void *in;
    void *out;
    long rows, cols;
    int block_x, block_y;
    int elem_size;
    unsigned grid_x, grid_y; /* set by the launcher; 0 where there is no grid */
    const volatile sig_atomic_t *stop; /* CPU kernels return -EINTR soon after it is set */
};

/* A CPU kernel: returns 0, or a negative errno. */
typedef int (*tb_launch_fn)(struct tb_launch *l);

/* One launch of a GPU kernel, as its geometry function chooses it: the image entry point
 * (tb_<kernel>[_<variant>]_<element bytes>), grid, block, dynamic shared memory, and the two
 * values the entries take besides the matrix (tile rows in the grid, shared-memory padding).
 * The CUDA backend loads the entry and launches it; nothing in kernels/ calls a backend. */
struct tb_grid {
    char entry[48];
    unsigned gx, gy, bx, by, smem, tiles_y;
    int pad;
};
/* Fills g for l; 0, or -EINVAL for a shape the row's rules forbid (never reached in a sweep). */
typedef int (*tb_geometry_fn)(const struct tb_launch *l, struct tb_grid *g);
/* Returns 1 when the block shape suits the kernel, else 0 with the reason in why. */
typedef int (*tb_block_rule_fn)(int bx, int by, char *why, size_t n);
/* Returns 1 when the matrix shape suits the kernel, else 0 with the reason in why. */
typedef int (*tb_shape_rule_fn)(long rows, long cols, char *why, size_t n);

enum tb_kernel_flags {
    TB_KF_COPY = 1u << 0,     /* output has the input's shape: a bound, not a transpose */
    TB_KF_COPY_REF = 1u << 1, /* the backend's copy that frac_copy divides by */
    TB_KF_VENDOR = 1u << 2,   /* a library's kernel (cuBLAS), shown for reference */
    TB_KF_NO_BLOCK = 1u << 3, /* block shape has no meaning: one point per size */
    TB_KF_BUILTIN = 1u << 4,  /* the backend's own operation (memcpy, cuBLAS), no image entry */
    TB_KF_BEST = 1u << 5,     /* a candidate of `--kernels best` (the fast rows, not the seeds') */
};

struct tb_kernel {
    const char *name;
    const char *description;
    enum tb_backend_id backend;
    tb_launch_fn launch;        /* CPU kernels: the code; NULL on the GPU */
    tb_geometry_fn geometry;    /* GPU kernels: grid and entry point; NULL for built-ins */
    const char *unavailable;    /* NULL when the kernel is in this build, else why not */
    const char *rule_text;      /* the block-shape rule, in words */
    tb_block_rule_fn block_ok;  /* NULL: any block within the device's limits */
    double bytes_factor;        /* bytes moved = factor x rows x cols x elem_size */
    unsigned flags;
    unsigned elem_sizes;        /* bit mask of supported element sizes (1<<size) */
    tb_shape_rule_fn shape_ok;  /* NULL: any matrix shape */
};

/* The table, in `list` order, ended by a row with a NULL name. */
extern const struct tb_kernel tb_kernels[];

const char *tb_backend_name(enum tb_backend_id b);
/* Row for name on backend b, or NULL. */
const struct tb_kernel *tb_kernel_find(const char *name, enum tb_backend_id b);
/* The backend's reference copy (TB_KF_COPY_REF), or NULL. */
const struct tb_kernel *tb_kernel_copy_ref(enum tb_backend_id b);
/* Checks the block against the row's rule; 1 ok, 0 with why filled. */
int tb_kernel_block_ok(const struct tb_kernel *k, int bx, int by, char *why, size_t n);
/* Checks the matrix shape against the row's rule; 1 ok, 0 with why filled. */
int tb_kernel_shape_ok(const struct tb_kernel *k, long rows, long cols, char *why, size_t n);
/* 1 when the kernel is in this build (CPU code, or GPU images embedded), else 0. */
int tb_kernel_built(const struct tb_kernel *k);
/* Whether the kernel can run in this process (a built-in's library found: cuBLAS) is the
 * backends' to say: tb_kernel_usable, src/measure/backend.h. */

/* CPU kernels (cpu_kernels.c). */
int tb_cpu_naive_row(struct tb_launch *l);
int tb_cpu_blocked(struct tb_launch *l);
int tb_cpu_copy_row(struct tb_launch *l);

/* GPU kernels: their geometry (cuda_launch.c) over the entry points of the embedded images
 * (cuda_transpose.cu). memcpy and cublas_geam are the CUDA backend's built-ins. */
#define TB_CUDA_KERNELS(X) \
    X(copy_row) X(copy_col) X(copy_smem) \
    X(naive_row) X(naive_col) X(unroll4_row) X(unroll4_col) \
    X(diagonal_row) X(diagonal_col) X(smem) X(smem_pad) X(smem_rect) X(smem_rect_pad) \
    X(smem_unroll_pad) X(tiled) X(aligned64) X(tile2x2) X(vec16) X(bperm16) \
    X(bperm16w) X(vec16d) X(vec16w) X(strip) X(strip8)
#define TB_DECLARE_CUDA(n) int tb_cuda_##n(const struct tb_launch *l, struct tb_grid *g);
TB_CUDA_KERNELS(TB_DECLARE_CUDA)
#undef TB_DECLARE_CUDA

#ifdef __cplusplus
}
#endif
#endif
