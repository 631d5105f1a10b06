/* pattern.h: the input values every backend fills matrices with, so that the host can
 * say what any output element must be without keeping a copy of the input.
 * Values are exact, non-zero, never NaN, and differ between neighbours and seeds. */
#ifndef TB_PATTERN_H
#define TB_PATTERN_H

#include <stdint.h>

#ifdef __CUDACC__
#define TB_HD __host__ __device__ __forceinline__
#else
#define TB_HD static inline
#endif

TB_HD uint32_t tb_pattern_hash(uint64_t seed, uint64_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ULL + seed * 0xD1B54A32D192ED03ULL + 1;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return (uint32_t)(x >> 16);
}

/* Writes the value of element i (elements of elem_size bytes) to one, a single element.
 * Floats (4 bytes) are whole numbers 1..2^24, exact through cuBLAS's alpha*A + 0*B. */
TB_HD void tb_pattern_value(void *one, int elem_size, uint64_t seed, uint64_t i)
{
    uint32_t h = tb_pattern_hash(seed, i);
    switch (elem_size) {
    case 1: *(uint8_t *)one = (uint8_t)(h | 1); break;
    case 2: *(uint16_t *)one = (uint16_t)(h | 1); break;
    case 4: *(float *)one = (float)((h & 0xFFFFFFu) + 1u); break;
    default: *(uint64_t *)one = ((uint64_t)h << 32) | (h ^ 0x5555u) | 1u; break;
    }
}

/* Writes element i of the matrix at base. */
TB_HD void tb_pattern_store(void *base, int elem_size, uint64_t seed, uint64_t i)
{
    tb_pattern_value((unsigned char *)base + i * (uint64_t)elem_size, elem_size, seed, i);
}

#endif
