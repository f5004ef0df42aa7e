#ifndef MANDEL_LANE_BITS_H
#define MANDEL_LANE_BITS_H

#include <stdint.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

// Vector lanes as bits, which Swift's SIMD types cannot say in one instruction: a
// comparison's mask is a k-register here, but Swift has no way to read it as an integer,
// and every fold of a mask written in Swift (`wrappedSum` of weighted lanes, an OR or a
// floating-point fold in halves) was compiled to lane-by-lane extracts, about 140
// instructions per 32 pixels.

/// Eight doubles, which Swift sees as `SIMD8<Double>`.
typedef double mandel_double8 __attribute__((ext_vector_type(8)));

/// Which lanes of four vectors equal `value`, as the bits of a word: lane i of vector k
/// is bit 31 − (8k + i), so the first lane of the first vector is the high bit (a PBM
/// row's leftmost pixel).
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

#endif
