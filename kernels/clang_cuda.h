/* clang_cuda.h: what nvcc's headers give kernels/cuda_transpose.cu, for clang in CUDA
 * device-only mode without any CUDA installation (-nocudainc -nocudalib): the keywords, the
 * builtin variables, the vector types the kernels use and the few intrinsics they call.
 * Force-included by the Makefile (clang -include); nvcc never sees it. Not a general CUDA
 * header: only what our kernels need, each as the PTX nvcc's headers would produce. */
#ifndef TB_CLANG_CUDA_H
#define TB_CLANG_CUDA_H

#if !defined(__clang__) || !defined(__CUDA__)
#error "clang_cuda.h is for clang -x cuda only"
#endif

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#ifndef __CUDACC__
#define __CUDACC__
#endif

/* threadIdx, blockIdx, blockDim, gridDim, warpSize: clang's own definitions */
#include <__clang_cuda_builtin_vars.h>

struct __align__(8) float2 { float x, y; };
struct __align__(16) float4 { float x, y, z, w; };
struct __align__(8) uint2 { unsigned x, y; };
struct __align__(16) uint4 { unsigned x, y, z, w; };
typedef struct float2 float2;
typedef struct float4 float4;
typedef struct uint2 uint2;
typedef struct uint4 uint4;

static __device__ __forceinline__ float2 make_float2(float x, float y)
{
    float2 r = { x, y };
    return r;
}
static __device__ __forceinline__ float4 make_float4(float x, float y, float z, float w)
{
    float4 r = { x, y, z, w };
    return r;
}
static __device__ __forceinline__ uint2 make_uint2(unsigned x, unsigned y)
{
    uint2 r = { x, y };
    return r;
}
static __device__ __forceinline__ uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w)
{
    uint4 r = { x, y, z, w };
    return r;
}

static __device__ __forceinline__ long long clock64(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
    return t;
}

/* the high word of a x b: mul.hi.u32 */
static __device__ __forceinline__ unsigned __umulhi(unsigned a, unsigned b)
{
    return __nvvm_mulhi_ui(a, b);
}

/* shfl.sync.down.b32 needs PTX ISA 6.0: the lowest ISA these kernels build at */
static __device__ __forceinline__ unsigned __shfl_down_sync(unsigned mask, unsigned v,
                                                           unsigned delta, int width = 32)
{
    int c = ((32 - width) << 8) | 0x1f;
    return __nvvm_shfl_sync_down_i32(mask, v, delta, c);
}
/* (hi:lo) >> (shift & 31), low word: shf.r.wrap.b32 */
static __device__ __forceinline__ unsigned __funnelshift_r(unsigned lo, unsigned hi,
                                                          unsigned shift)
{
    unsigned r;
    asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
    return r;
}

/* byte n of the result = byte (s >> 4n) & 7 of y:x (x bytes 0-3): prmt.b32, default mode */
static __device__ __forceinline__ unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    unsigned r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s));
    return r;
}

#endif
