/* cublas.h: cuBLAS, the reference transpose (cublasSgeam), opened with dlopen when its row is
 * first asked about: any libcublas from 10 (JetPack 4) to 13. The handle belongs to the
 * device state (backend.c); the library, once found, to the process. */
#ifndef TB_CUDA_CUBLAS_H
#define TB_CUDA_CUBLAS_H

#include "cuda/driver.h"
#include "kernels.h"

/* cuBLAS statuses are returned as TB_CUBLAS_ERR_BASE + status, apart from CUresult. */
#define TB_CUBLAS_ERR_BASE 100000

/* NULL when cuBLAS can be loaded ($TB_CUBLAS_LIB, else the usual names and directories),
 * else why not. */
const char *tb_cublas_unusable(void);
/* The transpose of l through cublasSgeam on stream s, creating *h on first use; 0, -ENOENT
 * without cuBLAS, or TB_CUBLAS_ERR_BASE + status. */
int tb_cublas_geam(cublasHandle_t *h, CUstream s, const struct tb_launch *l);
/* Destroys *h if it was created. */
void tb_cublas_release(cublasHandle_t *h);

#endif
