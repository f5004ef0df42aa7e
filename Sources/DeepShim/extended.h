// Numbers with an extended exponent (deep_complex and deep_real of DeepShim.h), the arithmetic of
// the orbit's tiny steps, the tables' entries and the pixels' extended deltas: static inline, so that
// the loops that use them inline them. Internal to DeepShim, beside its .c files (not in include/,
// whose headers SwiftPM makes the module that Swift imports). Every file of DeepShim includes it
// first (through internal.h), so the FP_CONTRACT pragma below holds for all of their code.
#ifndef DEEP_EXTENDED_H
#define DEEP_EXTENDED_H

#include "DeepShim.h"

#include <math.h>
// No fused multiply-adds: the counts are then the same on every x86-64 processor, with FMA or
// without (with them, 450 of the 16,384 pixels of "5e227" 128×128 and 14 of "5e113" 1024² came out
// otherwise), so that parts rendered on different machines join into one picture. No slower here.
#pragma STDC FP_CONTRACT OFF
#include <string.h>

#define ZERO_EXPONENT (-(INT64_C(1) << 40))

// MARK: - Numbers with an extended exponent

/// 2^k for k in [-1022, 1023], without a call into libm (scalbn is not inlined).
static inline double power_of_two(int k) {
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/// The biased exponent field of x: 0 for zero and subnormals, 2047 for infinities and NaN.
static inline int exponent_field(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (int)((bits >> 52) & 0x7ff);
}

static inline deep_complex complex_make(double re, double im, int64_t e) {
    double largest = fmax(fabs(re), fabs(im));
    if (largest == 0) return (deep_complex){0, 0, ZERO_EXPONENT};
    int field = exponent_field(largest);
    if (field > 0 && field < 2000) {
        // frexp's exponent, and an exact scaling by a power of two: the same numbers, without the calls.
        int k = field - 1022;
        double scale = power_of_two(-k);
        return (deep_complex){re * scale, im * scale, e + k};
    }
    int k;
    frexp(largest, &k);
    return (deep_complex){scalbn(re, -k), scalbn(im, -k), e + k};
}

static inline deep_real real_make(double m, int64_t e) {
    if (m == 0) return (deep_real){0, ZERO_EXPONENT};
    int field = exponent_field(m);
    if (field > 0 && field < 2000) {
        // As complex_make: frexp's result, by an exact scaling, without the call.
        int k = field - 1022;
        return (deep_real){m * power_of_two(-k), e + k};
    }
    int k;
    double mantissa = frexp(m, &k);
    return (deep_real){mantissa, e + k};
}

static inline double scaled(double m, int64_t e) {
    if (e < -1100) return 0;
    if (e > 1100) return m * INFINITY;
    return scalbn(m, (int)e);
}

static inline deep_complex complex_multiply(deep_complex a, deep_complex b) {
    return complex_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re, a.e + b.e);
}

static inline deep_complex complex_add(deep_complex a, deep_complex b) {
    if (a.e < b.e) {
        deep_complex t = a;
        a = b;
        b = t;
    }
    int64_t shift = b.e - a.e;
    if (shift < -120) return a;
    double scale = power_of_two((int)shift);
    return complex_make(a.re + b.re * scale, a.im + b.im * scale, a.e);
}

static inline deep_complex complex_scale(deep_complex a, deep_real r) {
    return complex_make(a.re * r.m, a.im * r.m, a.e + r.e);
}

static inline deep_real complex_modulus(deep_complex a) { return real_make(hypot(a.re, a.im), a.e); }

static inline deep_real real_multiply(deep_real a, deep_real b) { return real_make(a.m * b.m, a.e + b.e); }

static inline deep_real real_divide(deep_real a, deep_real b) { return real_make(a.m / b.m, a.e - b.e); }

/// max(0, a − b).
static inline deep_real real_subtract(deep_real a, deep_real b) {
    if (b.m == 0) return a;
    if (a.m == 0) return a;
    int64_t shift = b.e - a.e;
    if (shift < -120) return a;
    if (shift > 120) return (deep_real){0, ZERO_EXPONENT};
    double difference = a.m - scalbn(b.m, (int)shift);
    return difference > 0 ? real_make(difference, a.e) : (deep_real){0, ZERO_EXPONENT};
}

static inline int real_less(deep_real a, deep_real b) {
    if (a.m == 0) return b.m > 0;
    if (b.m == 0) return 0;
    if (a.e != b.e) return a.e < b.e;
    return a.m < b.m;
}

/// Whether max(|re|, |im|) of `z` is below `r`.
static inline int complex_within(deep_complex z, deep_real r) {
    if (r.m == 0) return 0;
    double largest = fmax(fabs(z.re), fabs(z.im));
    if (largest == 0) return 1;
    if (z.e < r.e - 1) return 1;
    if (z.e > r.e) return 0;
    return largest * power_of_two((int)(z.e - r.e)) < r.m;
}

#endif
