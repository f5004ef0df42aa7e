// The reference orbit in MPFR, its steps as Doubles (and exactly where a Double cannot hold them);
// 1/zoom and the test of a number, in MPFR too.
#include "internal.h"

#include <stdlib.h>
#include <sys/mman.h>

int deep_is_number(const char *text) {
    mpfr_t value;
    mpfr_init2(value, 64);
    char *end = NULL;
    int read = mpfr_strtofr(value, text, &end, 10, MPFR_RNDN);
    (void)read;
    int ok = end != text && *end == 0 && mpfr_number_p(value);
    mpfr_clear(value);
    return ok;
}

deep_real deep_inverse_zoom(const char *zoom, long bits) {
    mpfr_t value;
    mpfr_init2(value, bits);
    deep_real result = {0, ZERO_EXPONENT};
    if (mpfr_set_str(value, zoom, 10, MPFR_RNDN) == 0 && mpfr_regular_p(value)) {
        mpfr_ui_div(value, 1, value, MPFR_RNDN);
        long exponent;
        double mantissa = mpfr_get_d_2exp(&exponent, value, MPFR_RNDN);
        result = real_make(mantissa, exponent);
    }
    mpfr_clear(value);
    return result;
}

/// Records step n's Z exactly (both parts below 2^-960): appended to the context's tiny steps.
static int record_tiny(deep_context *context, uint64_t n, mpfr_t x, mpfr_t y, uint64_t *capacity) {
    if (context->tiny_count == *capacity) {
        uint64_t grown = *capacity ? 2 * *capacity : 16;
        uint64_t *index = realloc(context->tiny_index, grown * sizeof(uint64_t));
        if (!index) return -1;
        context->tiny_index = index;
        deep_complex *value = realloc(context->tiny_value, grown * sizeof(deep_complex));
        if (!value) return -1;
        context->tiny_value = value;
        *capacity = grown;
    }
    long ex = 0, ey = 0;
    double mx = mpfr_zero_p(x) ? 0 : mpfr_get_d_2exp(&ex, x, MPFR_RNDN);
    double my = mpfr_zero_p(y) ? 0 : mpfr_get_d_2exp(&ey, y, MPFR_RNDN);
    long e = mx == 0 ? ey : my == 0 ? ex : (ex > ey ? ex : ey);
    context->tiny_index[context->tiny_count] = n;
    context->tiny_value[context->tiny_count] = complex_make(scalbn(mx, (int)(ex - e)), scalbn(my, (int)(ey - e)), e);
    context->tiny_count += 1;
    return 0;
}

double *deep_orbit_reserve(uint64_t limit) {
    if (limit >= UINT64_MAX / 16 - 1) return NULL;
    size_t bytes = (size_t)(limit + 1) * 2 * sizeof(double);
    // MAP_NORESERVE: the kernel counts no memory for it until a page is written (zeros until then).
    void *orbit = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return orbit == MAP_FAILED ? NULL : orbit;
}

void deep_orbit_release(double *orbit, uint64_t limit) {
    if (orbit) munmap(orbit, (size_t)(limit + 1) * 2 * sizeof(double));
}

/// Whether Z_n's ball holds 0 to first order: |Z| < radius·|dZ/dc| (the ball method of period
/// detection: the ball of points c within `radius` of the reference maps near Z + dZ·(c − c_ref), and
/// holds a nucleus of period n where that disk holds 0).
static int ball_holds_zero(deep_complex z, deep_complex derivative, deep_real radius) {
    return real_less(complex_modulus(z), real_multiply(radius, complex_modulus(derivative)));
}

uint64_t deep_steps_taken(const uint64_t *steps) { return __atomic_load_n(steps, __ATOMIC_RELAXED); }

uint64_t reference_orbit(
    const char *re, const char *im, long bits, uint64_t limit, deep_context *context, const volatile int *cancel,
    uint64_t *steps, table_builder *beside) {
    double *orbit = context->orbit;
    mpfr_t cr, ci, x, y, x2, y2, t;
    mpfr_inits2(bits, cr, ci, x, y, x2, y2, t, (mpfr_ptr)0);
    mpfr_set_str(cr, re, 10, MPFR_RNDN);
    mpfr_set_str(ci, im, 10, MPFR_RNDN);
    mpfr_set_zero(x, 1);
    mpfr_set_zero(y, 1);
    free(context->tiny_index);
    free(context->tiny_value);
    context->tiny_index = NULL;
    context->tiny_value = NULL;
    context->tiny_count = 0;
    uint64_t capacity = 0;
    orbit[0] = 0;
    orbit[1] = 0;
    uint64_t last = limit;
    if (steps) __atomic_store_n(steps, 0, __ATOMIC_RELAXED);
    // Period detection: Z_n and dZ_n/dc (from dZ_0 = 0: dZ_{n+1} = 2·Z_n·dZ_n + 1), in extended numbers,
    // for dZ/dc grows past any Double (to about 1/radius) and Z_n may pass below one.
    const int detects = context->period_radius.m > 0;
    deep_complex previous = {0, 0, ZERO_EXPONENT}, derivative = {0, 0, ZERO_EXPONENT};
    const deep_complex one = complex_make(1, 0, 0);
    context->period = 0;
    for (uint64_t n = 0; n < limit; n++) {
        // Two multiplications: x² − y² = (x + y)(x − y), and 2xy (a squaring costs 0.8 of a
        // multiplication here, so three squarings, (x + y)² − x² − y² for 2xy, cost more).
        mpfr_add(x2, x, y, MPFR_RNDN);
        mpfr_sub(y2, x, y, MPFR_RNDN);
        mpfr_mul(t, x, y, MPFR_RNDN);
        mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
        mpfr_add(y, t, ci, MPFR_RNDN);
        mpfr_mul(x, x2, y2, MPFR_RNDN);
        mpfr_add(x, x, cr, MPFR_RNDN);
        double zr = mpfr_get_d(x, MPFR_RNDN);
        double zi = mpfr_get_d(y, MPFR_RNDN);
        orbit[2 * (n + 1)] = zr;
        orbit[2 * (n + 1) + 1] = zi;
        if (fabs(zr) < TINY_BOUND && fabs(zi) < TINY_BOUND) {
            if (beside) pthread_mutex_lock(&beside->tiny_lock);
            int recorded = record_tiny(context, n + 1, x, y, &capacity);
            if (beside) pthread_mutex_unlock(&beside->tiny_lock);
            if (recorded != 0) {
                last = UINT64_MAX;
                break;
            }
        }
        if (zr * zr + zi * zi > 4) {
            last = n + 1;
            break;
        }
        if (detects) {
            deep_complex twice = previous;
            twice.e += 1;
            derivative = complex_add(complex_multiply(twice, derivative), one);
            int tiny = context->tiny_count > 0 && context->tiny_index[context->tiny_count - 1] == n + 1;
            previous = tiny ? context->tiny_value[context->tiny_count - 1] : complex_make(zr, zi, 0);
            if (ball_holds_zero(previous, derivative, context->period_radius)) {
                context->period = n + 1;
                last = n + 1;
                break;
            }
        }
        if (context->most_steps && n + 1 >= context->most_steps && n + 1 < limit) {
            last = DEEP_ORBIT_TOO_LONG;
            break;
        }
        if (beside && (n & 1023) == 1023) __atomic_store_n(&beside->frontier, n + 1, __ATOMIC_RELEASE);
        if (steps && (n & 4095) == 4095) __atomic_store_n(steps, n + 1, __ATOMIC_RELAXED);
        // Every step: a step takes 0.6 µs at 830 bits and 18 ms at 3.3 million (--zoom 1e1000000),
        // where 4,096 steps between looks kept a cancel waiting for over a minute.
        if (cancel && *cancel) {
            last = UINT64_MAX;
            break;
        }
    }
    if (steps && last < DEEP_ORBIT_TOO_LONG) __atomic_store_n(steps, last, __ATOMIC_RELAXED);
    mpfr_clears(cr, ci, x, y, x2, y2, t, (mpfr_ptr)0);
    if (last < DEEP_ORBIT_TOO_LONG) context->length = last;
    return last;
}

uint64_t deep_reference_orbit(
    const char *re, const char *im, long bits, uint64_t limit, deep_context *context, const volatile int *cancel,
    uint64_t *steps) {
    return reference_orbit(re, im, bits, limit, context, cancel, steps, NULL);
}

deep_complex orbit_exact(const deep_context *context, uint64_t m) {
    double zr = context->orbit[2 * m], zi = context->orbit[2 * m + 1];
    if (fabs(zr) >= TINY_BOUND || fabs(zi) >= TINY_BOUND) return complex_make(zr, zi, 0);
    uint64_t low = 0, high = context->tiny_count;
    while (low < high) {
        uint64_t middle = low + (high - low) / 2;
        if (context->tiny_index[middle] < m) low = middle + 1;
        else high = middle;
    }
    if (low < context->tiny_count && context->tiny_index[low] == m) return context->tiny_value[low];
    return complex_make(zr, zi, 0);
}

void deep_free_context(deep_context *context) {
    deep_free_table(context);
    free(context->tiny_index);
    free(context->tiny_value);
    context->tiny_index = NULL;
    context->tiny_value = NULL;
    context->tiny_count = 0;
}
