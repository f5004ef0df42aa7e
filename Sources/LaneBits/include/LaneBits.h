#ifndef MANDEL_LANE_BITS_H
#define MANDEL_LANE_BITS_H

#include <stdint.h>
#if defined(__AVX512F__) || defined(__AVX__)
#include <immintrin.h>
#endif

// Vector lanes as bits, which Swift's SIMD types cannot say in one instruction: a
// comparison's mask is a k-register (AVX-512) or a vector of all-ones lanes (AVX), but
// Swift has no way to read it as an integer, and every fold of a mask written in Swift
// (`wrappedSum` of weighted lanes, an OR or a floating-point fold in halves) was compiled
// to lane-by-lane extracts, about 140 instructions per 32 pixels.
//
// One function per width of the core's vectors (eight lanes where the processor has
// 512-bit vectors, four elsewhere); each has its processor's instructions and a portable
// loop, and both give the same bits.

/// Eight doubles, which Swift sees as `SIMD8<Double>`.
typedef double mandel_double8 __attribute__((ext_vector_type(8)));
/// Four doubles, which Swift sees as `SIMD4<Double>`.
typedef double mandel_double4 __attribute__((ext_vector_type(4)));

/// Four 64-bit integers, which Swift sees as `SIMD4<Int64>`.
typedef int64_t mandel_long4 __attribute__((ext_vector_type(4)));

/// Whether any lane of four vectors of four is 0: four compares, three ORs and one `vptest`,
/// where Swift's reductions of a mask took a chain of shuffles twice as long.
static inline int mandel_any_zero_4(mandel_long4 a, mandel_long4 b, mandel_long4 c, mandel_long4 d) {
#if defined(__AVX2__)
    __m256i zero = _mm256_setzero_si256();
    __m256i zeros = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi64((__m256i)a, zero), _mm256_cmpeq_epi64((__m256i)b, zero)),
        _mm256_or_si256(_mm256_cmpeq_epi64((__m256i)c, zero), _mm256_cmpeq_epi64((__m256i)d, zero)));
    return !_mm256_testz_si256(zeros, zeros);
#else
    int any = 0;
    for (int i = 0; i < 4; i++) any |= a[i] == 0 || b[i] == 0 || c[i] == 0 || d[i] == 0;
    return any;
#endif
}

/// Which lanes of four vectors of eight equal `value`, as the bits of a word: lane i of
/// vector k is bit 31 − (8k + i), so the first lane of the first vector is the high bit
/// (a PBM row's leftmost pixel).
static inline uint32_t mandel_equal_lanes(
    mandel_double8 v0, mandel_double8 v1, mandel_double8 v2, mandel_double8 v3, double value) {
    uint32_t word = 0;
#if defined(__AVX512F__)
    __m512d wanted = _mm512_set1_pd(value);
    word = (uint32_t)_mm512_cmp_pd_mask((__m512d)v0, wanted, _CMP_EQ_OQ)
        | (uint32_t)_mm512_cmp_pd_mask((__m512d)v1, wanted, _CMP_EQ_OQ) << 8
        | (uint32_t)_mm512_cmp_pd_mask((__m512d)v2, wanted, _CMP_EQ_OQ) << 16
        | (uint32_t)_mm512_cmp_pd_mask((__m512d)v3, wanted, _CMP_EQ_OQ) << 24;
#else
    for (int i = 0; i < 8; i++) {
        word |= (uint32_t)(v0[i] == value) << i | (uint32_t)(v1[i] == value) << (i + 8)
            | (uint32_t)(v2[i] == value) << (i + 16) | (uint32_t)(v3[i] == value) << (i + 24);
    }
#endif
    return __builtin_bitreverse32(word);
}

/// Which lanes of four vectors of four equal `value`, in the high half of a word: lane i of
/// vector k is bit 31 − (4k + i); the low 16 bits are 0.
static inline uint32_t mandel_equal_lanes_4(
    mandel_double4 v0, mandel_double4 v1, mandel_double4 v2, mandel_double4 v3, double value) {
    uint32_t word = 0;
#if defined(__AVX__)
    __m256d wanted = _mm256_set1_pd(value);
    word = (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd((__m256d)v0, wanted, _CMP_EQ_OQ))
        | (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd((__m256d)v1, wanted, _CMP_EQ_OQ)) << 4
        | (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd((__m256d)v2, wanted, _CMP_EQ_OQ)) << 8
        | (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd((__m256d)v3, wanted, _CMP_EQ_OQ)) << 12;
#else
    for (int i = 0; i < 4; i++) {
        word |= (uint32_t)(v0[i] == value) << i | (uint32_t)(v1[i] == value) << (i + 4)
            | (uint32_t)(v2[i] == value) << (i + 8) | (uint32_t)(v3[i] == value) << (i + 12);
    }
#endif
    return __builtin_bitreverse32(word);
}

#endif
