/* cuda_common.cuh: what the CUDA files share: the stream every launch goes to, grid
 * limits, and the cuBLAS error range. CUDA 10.2 and C++14 at most (JetPack 4). */
#ifndef TB_CUDA_COMMON_CUH
#define TB_CUDA_COMMON_CUH

#include <cuda_runtime.h>

extern cudaStream_t tb_cuda_stream;

/* gridDim.y and .z are limited to 65535: kernels loop over y when there are more tiles. */
#define TB_MAX_GRID_Y 65535u

/* cuBLAS statuses are returned as TB_CUBLAS_ERR_BASE + status, apart from cudaError_t. */
#define TB_CUBLAS_ERR_BASE 100000

/* Drops cuBLAS handles after a device reset (cuda_transpose.cu). */
extern "C" void tb_cuda_forget_handles(void);

static inline unsigned tb_div_up(long a, long b) { return (unsigned)((a + b - 1) / b); }
static inline unsigned tb_grid_y(unsigned tiles) { return tiles < TB_MAX_GRID_Y ? tiles : TB_MAX_GRID_Y; }

#endif
