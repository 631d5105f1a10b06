/* cublas.c: cuBLAS opened at run time for the reference row (cublas.h). A missing library
 * skips that row with the reason; it never stops a sweep. */
#include "cuda/cublas.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/safeio.h"
#include "lib/util.h"

#define DECLARE_PTR(fn, sym, ret, params) static ret(*p_##fn) params;
TB_CUBLAS_API(DECLARE_PTR)
#undef DECLARE_PTR

static void *libcublas;
static char cublas_why[512];

/* libcublas of any version from 10 (JetPack 4) on, where the loader finds it or in the
 * toolkit's usual directories (not always on the loader's path). */
const char *tb_cublas_unusable(void)
{
    static bool tried;
    if (tried)
        return cublas_why[0] ? cublas_why : NULL;
    tried = true;
    static const char *const names[] = {
        "libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so.10",
    };
    static const char *const dirs[] = {
        "", "/usr/local/cuda/lib64/", "/usr/local/cuda/targets/aarch64-linux/lib/",
        "/usr/lib/aarch64-linux-gnu/",
    };
    const char *env = getenv("TB_CUBLAS_LIB");
    char path[256];
    if (env && *env) {
        char refused[160];   /* a FIFO would block dlopen for ever */
        libcublas = tb_lib_refused(env, refused, sizeof(refused)) ? NULL
                    : dlopen(env, RTLD_NOW | RTLD_LOCAL);
        tb_strlcpy(path, env, sizeof(path));
    }
    for (size_t d = 0; !env && !libcublas && d < ARRAY_SIZE(dirs); d++)
        for (size_t i = 0; !libcublas && i < ARRAY_SIZE(names); i++) {
            snprintf(path, sizeof(path), "%s%s", dirs[d], names[i]);
            libcublas = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    if (!libcublas) {
        snprintf(cublas_why, sizeof(cublas_why), "cuBLAS not found (libcublas.so.10 to .13%s%s)",
                 env ? ", TB_CUBLAS_LIB=" : "", env ? env : "");
        return cublas_why;
    }
#define RESOLVE_BLAS(fn, sym, ret, params)                                                 \
    if (!(*(void **)&p_##fn = dlsym(libcublas, sym))) {                                    \
        snprintf(cublas_why, sizeof(cublas_why), "'%s' has no %s", path, sym);             \
        return cublas_why;                                                                 \
    }
    TB_CUBLAS_API(RESOLVE_BLAS)
#undef RESOLVE_BLAS
    return NULL;
}

void tb_cublas_release(cublasHandle_t *h)
{
    if (*h)
        p_cublasDestroy(*h);
    *h = NULL;
}

/* Row-major rows x cols is column-major cols x rows (lda = cols); C = op_T(A) is then
 * column-major rows x cols, i.e. row-major cols x rows: the transpose. beta = 0 with
 * B = C (allowed in place when ldb == ldc and B is not transposed). */
int tb_cublas_geam(cublasHandle_t *h, CUstream s, const struct tb_launch *l)
{
    if (tb_cublas_unusable())
        return -ENOENT;
    int st;
    if (!*h) {
        if ((st = p_cublasCreate(h)) != 0) {
            *h = NULL;
            return TB_CUBLAS_ERR_BASE + st;
        }
        p_cublasSetStream(*h, s);
    }
    const float alpha = 1.0f, beta = 0.0f;
    st = p_cublasSgeam(*h, CUBLAS_OP_T, CUBLAS_OP_N, (int)l->rows, (int)l->cols, &alpha,
                       (const float *)l->in, (int)l->cols, &beta, (const float *)l->out,
                       (int)l->rows, (float *)l->out, (int)l->rows);
    return st ? TB_CUBLAS_ERR_BASE + st : 0;
}
