#ifndef MANDEL_PALETTE_LANES_H
#define MANDEL_PALETTE_LANES_H

#include <math.h>
#include <stdint.h>
#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>
/// How many pixels at a time `mandel_palette_paint` colours where this header is compiled.
#define MANDEL_PALETTE_LANES 8
#elif defined(__AVX2__)
#include <immintrin.h>
#define MANDEL_PALETTE_LANES 4
#else
#define MANDEL_PALETTE_LANES 1
#endif

// Smooth colouring, eight pixels at a time (four with 256-bit vectors): a palette's colour at a position is two
// divisions, a search among the stops, three blends and three roundings, which Swift's
// SIMD types would compile lane by lane (their conversions and rounding are per-lane
// calls). Every lane does the scalar path's operations in its order, and no multiply
// is fused with an add, so the bytes are the scalar path's.
#pragma STDC FP_CONTRACT OFF

/// The rows of a palette's table: `segments` values each, segment k being the stretch
/// of the gradient that ends at stop k (the last wraps from the last stop to the first).
enum {
    MANDEL_PALETTE_START,  ///< the lower stop's position
    MANDEL_PALETTE_SPAN,  ///< from the lower stop to the upper, wrapping; 1 where that is not positive
    MANDEL_PALETTE_BASE,  ///< three rows: the lower stop's red, green and blue
    MANDEL_PALETTE_RISE = MANDEL_PALETTE_BASE + 3,  ///< three rows: the upper stop's minus the lower's
    MANDEL_PALETTE_ENDS = MANDEL_PALETTE_RISE + 3,  ///< the stops' positions (segments − 1 values), in order
};

/// Where `position` falls in the cycle after `offset`, in [0, 1); a position too large to
/// keep its fraction, or not a number, counts as 0.
static inline double mandel_palette_place(double position, double offset) {
    double t = __builtin_isfinite(position) ? position + offset : offset;
    return t - floor(t);
}

/// Writes the colour at `position` cycles into the gradient, after `offset`, into `pixel[0...2]`.
static inline void mandel_palette_color(
    double position, double offset, const double *table, long segments, uint8_t *pixel) {
    double t = mandel_palette_place(position, offset);
    // The stops are in order: the first one above t ends t's segment, and its index is
    // the number of stops not above it.
    const double *ends = table + MANDEL_PALETTE_ENDS * segments;
    long k = 0;
    for (long stop = 0; stop < segments - 1; stop++) k += ends[stop] <= t;
    double offsetInSegment = t - table[MANDEL_PALETTE_START * segments + k];
    if (offsetInSegment < 0) offsetInSegment += 1;
    double mix = offsetInSegment / table[MANDEL_PALETTE_SPAN * segments + k];
    for (int channel = 0; channel < 3; channel++) {
        double rise = table[(MANDEL_PALETTE_RISE + channel) * segments + k] * mix;
        pixel[channel] = (uint8_t)round(table[(MANDEL_PALETTE_BASE + channel) * segments + k] + rise);
    }
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
/// `round` (halves away from zero) of every lane.
static inline __m512d mandel_palette_round8(__m512d value) {
    __m512d whole = _mm512_roundscale_pd(value, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m512d part = _mm512_sub_pd(value, whole);  // exact
    __m512d one = _mm512_set1_pd(1);
    whole = _mm512_mask_add_pd(whole, _mm512_cmp_pd_mask(part, _mm512_set1_pd(0.5), _CMP_GE_OQ), whole, one);
    return _mm512_mask_sub_pd(whole, _mm512_cmp_pd_mask(part, _mm512_set1_pd(-0.5), _CMP_LE_OQ), whole, one);
}
#endif
#if defined(__AVX2__)
/// `round` (halves away from zero) of every lane.
static inline __m256d mandel_palette_round4(__m256d value) {
    __m256d whole = _mm256_round_pd(value, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256d part = _mm256_sub_pd(value, whole);  // exact
    __m256d one = _mm256_set1_pd(1);
    whole = _mm256_blendv_pd(whole, _mm256_add_pd(whole, one), _mm256_cmp_pd(part, _mm256_set1_pd(0.5), _CMP_GE_OQ));
    return _mm256_blendv_pd(whole, _mm256_sub_pd(whole, one), _mm256_cmp_pd(part, _mm256_set1_pd(-0.5), _CMP_LE_OQ));
}
#endif

/// Writes `lanes` pixels as RGB from their channels, `channels[c * lanes + lane]`.
static inline void mandel_palette_interleave(const int32_t *channels, int lanes, uint8_t *pixel) {
    for (int lane = 0; lane < lanes; lane++) {
        pixel[lane * 3] = (uint8_t)channels[lane];
        pixel[lane * 3 + 1] = (uint8_t)channels[lanes + lane];
        pixel[lane * 3 + 2] = (uint8_t)channels[2 * lanes + lane];
    }
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
/// The first `count` pixels rounded down to eights, eight at a time; returns how many it coloured.
static inline long mandel_palette_paint_8(
    const uint32_t *counts, const float *smooth, long count, uint32_t limit, double cycle, double offset,
    const double *table, long segments, uint8_t *pixels) {
    long index = 0;
    const double *ends = table + MANDEL_PALETTE_ENDS * segments;
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1);
    for (; index + 8 <= count; index += 8) {
        __m512d position = _mm512_div_pd(_mm512_cvtps_pd(_mm256_loadu_ps(smooth + index)), _mm512_set1_pd(cycle));
        __mmask8 finite = _mm512_cmp_pd_mask(_mm512_sub_pd(position, position), zero, _CMP_EQ_OQ);
        __m512d t = _mm512_set1_pd(offset);
        t = _mm512_mask_add_pd(t, finite, position, t);
        t = _mm512_sub_pd(t, _mm512_roundscale_pd(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
        __m512i k = _mm512_setzero_si512();
        for (long stop = 0; stop < segments - 1; stop++) {
            __mmask8 passed = _mm512_cmp_pd_mask(_mm512_set1_pd(ends[stop]), t, _CMP_LE_OQ);
            k = _mm512_mask_add_epi64(k, passed, k, _mm512_set1_epi64(1));
        }
        __m512d offsetInSegment = _mm512_sub_pd(t, _mm512_i64gather_pd(k, table + MANDEL_PALETTE_START * segments, 8));
        offsetInSegment = _mm512_mask_add_pd(
            offsetInSegment, _mm512_cmp_pd_mask(offsetInSegment, zero, _CMP_LT_OQ), offsetInSegment, one);
        __m512d mix =
            _mm512_div_pd(offsetInSegment, _mm512_i64gather_pd(k, table + MANDEL_PALETTE_SPAN * segments, 8));
        __mmask8 inSet = _mm256_cmpge_epu32_mask(
            _mm256_loadu_si256((const __m256i *)(counts + index)), _mm256_set1_epi32((int)limit));
        int32_t channels[3][8];
        for (int channel = 0; channel < 3; channel++) {
            __m512d base = _mm512_i64gather_pd(k, table + (MANDEL_PALETTE_BASE + channel) * segments, 8);
            __m512d rise = _mm512_i64gather_pd(k, table + (MANDEL_PALETTE_RISE + channel) * segments, 8);
            __m512d value = mandel_palette_round8(_mm512_add_pd(base, _mm512_mul_pd(rise, mix)));
            _mm256_storeu_si256(
                (__m256i *)channels[channel], _mm256_maskz_mov_epi32(~inSet, _mm512_cvttpd_epi32(value)));
        }
        mandel_palette_interleave(&channels[0][0], 8, pixels + index * 3);
    }
    return index;
}
#endif

#if defined(__AVX2__)
/// The first `count` pixels rounded down to fours, four at a time; returns how many it coloured.
static inline long mandel_palette_paint_4_lanes(
    const uint32_t *counts, const float *smooth, long count, uint32_t limit, double cycle, double offset,
    const double *table, long segments, uint8_t *pixels) {
    long index = 0;
    // The same steps with four lanes, masks as all-ones lanes and blends instead of masked operations.
    const double *ends = table + MANDEL_PALETTE_ENDS * segments;
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1), offsets = _mm256_set1_pd(offset);
    for (; index + 4 <= count; index += 4) {
        __m256d position = _mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(smooth + index)), _mm256_set1_pd(cycle));
        __m256d finite = _mm256_cmp_pd(_mm256_sub_pd(position, position), zero, _CMP_EQ_OQ);
        __m256d t = _mm256_blendv_pd(offsets, _mm256_add_pd(position, offsets), finite);
        t = _mm256_sub_pd(t, _mm256_round_pd(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
        __m256i k = _mm256_setzero_si256();
        for (long stop = 0; stop < segments - 1; stop++) {
            // A passed stop's lane is all ones, which is −1.
            __m256d passed = _mm256_cmp_pd(_mm256_set1_pd(ends[stop]), t, _CMP_LE_OQ);
            k = _mm256_sub_epi64(k, _mm256_castpd_si256(passed));
        }
        __m256d offsetInSegment = _mm256_sub_pd(t, _mm256_i64gather_pd(table + MANDEL_PALETTE_START * segments, k, 8));
        offsetInSegment = _mm256_blendv_pd(
            offsetInSegment, _mm256_add_pd(offsetInSegment, one), _mm256_cmp_pd(offsetInSegment, zero, _CMP_LT_OQ));
        __m256d mix =
            _mm256_div_pd(offsetInSegment, _mm256_i64gather_pd(table + MANDEL_PALETTE_SPAN * segments, k, 8));
        // Unsigned counts: a count is at least the limit where the larger of the two is the count.
        __m128i laneCounts = _mm_loadu_si128((const __m128i *)(counts + index));
        __m128i inSet = _mm_cmpeq_epi32(_mm_max_epu32(laneCounts, _mm_set1_epi32((int)limit)), laneCounts);
        int32_t channels[3][4];
        for (int channel = 0; channel < 3; channel++) {
            __m256d base = _mm256_i64gather_pd(table + (MANDEL_PALETTE_BASE + channel) * segments, k, 8);
            __m256d rise = _mm256_i64gather_pd(table + (MANDEL_PALETTE_RISE + channel) * segments, k, 8);
            __m256d value = mandel_palette_round4(_mm256_add_pd(base, _mm256_mul_pd(rise, mix)));
            _mm_storeu_si128((__m128i *)channels[channel], _mm_andnot_si128(inSet, _mm256_cvttpd_epi32(value)));
        }
        mandel_palette_interleave(&channels[0][0], 4, pixels + index * 3);
    }
    return index;
}
#endif

/// Smooth colouring of pixels `index ..< count`, one at a time: black where the count reached
/// `limit`, elsewhere the colour `smooth / cycle` cycles into the gradient, as RGB into `pixels`.
static inline void mandel_palette_paint_from(
    long index, const uint32_t *counts, const float *smooth, long count, uint32_t limit, double cycle, double offset,
    const double *table, long segments, uint8_t *pixels) {
    for (; index < count; index++) {
        uint8_t *pixel = pixels + index * 3;
        if (counts[index] >= limit) {
            pixel[0] = pixel[1] = pixel[2] = 0;
        } else {
            mandel_palette_color((double)smooth[index] / cycle, offset, table, segments, pixel);
        }
    }
}

/// Smooth colouring (see `mandel_palette_paint`) four pixels at a time wherever the processor has
/// AVX2, also where `mandel_palette_paint` takes eight, so that the machine the tests run on tests
/// both paths.
static inline void mandel_palette_paint_4(
    const uint32_t *counts, const float *smooth, long count, uint32_t limit, double cycle, double offset,
    const double *table, long segments, uint8_t *pixels) {
#if defined(__AVX2__)
    long done = mandel_palette_paint_4_lanes(counts, smooth, count, limit, cycle, offset, table, segments, pixels);
    mandel_palette_paint_from(done, counts, smooth, count, limit, cycle, offset, table, segments, pixels);
#else
    mandel_palette_paint_from(0, counts, smooth, count, limit, cycle, offset, table, segments, pixels);
#endif
}

/// Smooth colouring of `count` pixels: black where the count reached `limit`, elsewhere
/// the colour `smooth / cycle` cycles into the gradient, written as RGB into `pixels`;
/// eight at a time with AVX-512, four with AVX2.
static inline void mandel_palette_paint(
    const uint32_t *counts, const float *smooth, long count, uint32_t limit, double cycle, double offset,
    const double *table, long segments, uint8_t *pixels) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    long done = mandel_palette_paint_8(counts, smooth, count, limit, cycle, offset, table, segments, pixels);
    mandel_palette_paint_from(done, counts, smooth, count, limit, cycle, offset, table, segments, pixels);
#else
    mandel_palette_paint_4(counts, smooth, count, limit, cycle, offset, table, segments, pixels);
#endif
}

/// Gray colouring of a row: the set black; outside it white for the fastest escapes, darker
/// as the count nears the limit, `255 − ⌊count · (255 / limit)⌋`, the operations of the Swift
/// loop it replaced. A plain loop, which the compiler turns into vector code (Swift's
/// per-lane conversions and rounding did not; the row's colouring was 13% of a gray render).
static inline void mandel_gray_row(const uint32_t *counts, long count, uint32_t limit, uint8_t *pixels) {
    double scale = 255.0 / (double)limit;
    for (long index = 0; index < count; index++) {
        uint32_t escape = counts[index];
        pixels[index] = escape >= limit ? 0 : (uint8_t)(255.0 - floor((double)escape * scale));
    }
}

#endif
