/* driver.h: the few CUDA driver API and cuBLAS types, constants and entry points that the
 * CUDA backend uses, declared here so that host C builds with no CUDA headers. The
 * libraries are opened with dlopen at run time (libcuda.so.1 by driver.c, libcublas.so.* by
 * cublas.c); symbol names are those of the ABI, with the _v2 suffixes that cuda.h maps its
 * names to. Values are the driver API's own (cuda.h, CUDA 10.2 to 13): never renumber them. */
#ifndef TB_CUDA_DRIVER_H
#define TB_CUDA_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/watchdog.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;   /* 64-bit hosts (LP64) only, as every board is */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_ECC_UNCORRECTABLE = 214,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
};

enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
    CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
    CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

enum { CU_STREAM_NON_BLOCKING = 1 };
enum { CU_EVENT_DEFAULT = 0 };
enum { CU_FUNC_ATTRIBUTE_PTX_VERSION = 5, CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6 };
/* cuModuleLoadDataEx options: the JIT's error log, so that a refused PTX says why */
enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };

/* The entry points, as (name, symbol, return, parameters): driver.c defines a
 * pointer for each and resolves `symbol` with dlsym. */
#define TB_CUDA_DRIVER_API(X)                                                              \
    X(cuInit, "cuInit", CUresult, (unsigned flags))                                        \
    X(cuDriverGetVersion, "cuDriverGetVersion", CUresult, (int *v))                        \
    X(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult e, const char **s))        \
    X(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult e, const char **s))            \
    X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int *n))                            \
    X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice *d, int ordinal))                    \
    X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char *name, int len, CUdevice d))     \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int *v, int attr, CUdevice d)) \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t *bytes, CUdevice d))      \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext *c, CUdevice d)) \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", CUresult, (CUdevice d))      \
    X(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset", CUresult, (CUdevice d))          \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext c))                         \
    X(cuModuleLoadData, "cuModuleLoadData", CUresult, (CUmodule *m, const void *image))    \
    X(cuModuleLoadDataEx, "cuModuleLoadDataEx", CUresult, (CUmodule *m, const void *image, \
      unsigned n, int *options, void **values))                                            \
    X(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule m))                            \
    X(cuModuleGetFunction, "cuModuleGetFunction", CUresult, (CUfunction *f, CUmodule m, const char *name)) \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", CUresult, (int *v, int attr, CUfunction f)) \
    X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *p, size_t bytes))               \
    X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr p))                                \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", CUresult, (void *dst, CUdeviceptr src, size_t n, CUstream s)) \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", CUresult, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)) \
    X(cuMemsetD8Async, "cuMemsetD8Async", CUresult, (CUdeviceptr p, unsigned char v, size_t n, CUstream s)) \
    X(cuLaunchKernel, "cuLaunchKernel", CUresult, (CUfunction f, unsigned gx, unsigned gy, \
      unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s,        \
      void **params, void **extra))                                                        \
    X(cuStreamCreate, "cuStreamCreate", CUresult, (CUstream *s, unsigned flags))           \
    X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream s))                  \
    X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream s))                       \
    X(cuEventCreate, "cuEventCreate", CUresult, (CUevent *e, unsigned flags))              \
    X(cuEventRecord, "cuEventRecord", CUresult, (CUevent e, CUstream s))                   \
    X(cuEventSynchronize, "cuEventSynchronize", CUresult, (CUevent e))                     \
    X(cuEventElapsedTime, "cuEventElapsedTime", CUresult, (float *ms, CUevent a, CUevent b)) \
    X(cuEventDestroy, "cuEventDestroy_v2", CUresult, (CUevent e))

/* cuBLAS, from libcublas.so.10 (JetPack 4) to .13: the handful the reference kernel uses. */
typedef struct cublasContext *cublasHandle_t;
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum { CUBLAS_STATUS_ALLOC_FAILED = 3 };
#define TB_CUBLAS_API(X)                                                                   \
    X(cublasCreate, "cublasCreate_v2", int, (cublasHandle_t *h))                           \
    X(cublasDestroy, "cublasDestroy_v2", int, (cublasHandle_t h))                          \
    X(cublasSetStream, "cublasSetStream_v2", int, (cublasHandle_t h, CUstream s))          \
    X(cublasSgeam, "cublasSgeam", int, (cublasHandle_t h, int ta, int tb, int m, int n,    \
      const float *alpha, const float *a, int lda, const float *beta, const float *b,      \
      int ldb, float *c, int ldc))

/* The driver's entry points, resolved by tb_cu_load (NULL before). */
#define TB_CU_EXTERN(fn, sym, ret, params) extern ret(*p_##fn) params;
TB_CUDA_DRIVER_API(TB_CU_EXTERN)
#undef TB_CU_EXTERN

/* Every driver call under the watchdog's deadline (watchdog.h): a GPU or driver that hangs
 * ends the run with its log's end line, never a night that never ends. Module loads (the
 * JIT) get the longer deadline. */
#define CU_WATCHED(kind, fn, ...) __extension__({                                         \
        tb_watch_begin(#fn, kind);                                                          \
        CUresult cu_rc_ = p_##fn(__VA_ARGS__);                                              \
        tb_watch_end();                                                                     \
        cu_rc_;                                                                             \
    })
#define CU(fn, ...) CU_WATCHED(TB_WATCH_CALL, fn, __VA_ARGS__)
#define CUL(fn, ...) CU_WATCHED(TB_WATCH_LOAD, fn, __VA_ARGS__)


/* Opens libcuda ($TB_CUDA_LIB, default libcuda.so.1) and cuInit's it, once: 0, or -1 with
 * the reason in tb_cu_why(). */
int tb_cu_load(void);
/* Why the driver cannot be used; "" when it can (or was not tried). */
const char *tb_cu_why(void);
/* Whether libcuda itself was found (a driver is installed), whatever cuInit said. */
bool tb_cu_present(void);
/* The driver's CUDA version, e.g. 12020; 0 before tb_cu_load. */
int tb_cu_driver_version(void);
/* "12.2" for 12020. */
void tb_cu_version_string(int v, char *buf, size_t n);
/* "CUDA_ERROR_X (description)" for e, one line of text, into buf (returned). */
const char *tb_cu_err(CUresult e, char *buf, size_t n);

#endif
