// Deep zoom: the reference orbit and the oracle in MPFR, the pixels as perturbations of the
// orbit in doubles (or in an extended exponent where doubles underflow), with rebasing and a
// table of bilinear approximations (BLA), and beside it a table of quadratic ones for the steps
// where z² is not negligible. Written from the published descriptions of the technique (K. I.
// Martin's perturbation notes; Zhuoran's rebasing and BLA posts on fractalforums; mathr.co.uk's
// deep-zoom pages); the quadratic table is ours, its truncation bound derived here.
#include "DeepShim.h"

#include <math.h>
// No fused multiply-adds: the counts are then the same on every x86-64 processor, with FMA or
// without (with them, 450 of the 16,384 pixels of "5e227" 128×128 and 14 of "5e113" 1024² came out
// otherwise), so that parts rendered on different machines join into one picture. No slower here.
#pragma STDC FP_CONTRACT OFF
#include <mpfr.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

// MARK: - MPFR: the reference orbit, 1/zoom, the oracle

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

/// The table built beside the orbit (deep_reference_orbit_and_table): what the orbit's loop and the
/// table's thread share while both run.
typedef struct {
    deep_context *context;
    deep_real max_delta;
    double epsilon;
    /// Z_0 … Z_frontier are in the orbit (an atomic store by the orbit's loop, an atomic load by the builder).
    uint64_t frontier;
    /// 0 while the orbit runs, 1 once it is done (context->length set), 2 when it was cancelled (atomic).
    int finished;
    /// Held around the tiny steps' arrays, which the orbit's loop grows (realloc) and the builder reads.
    pthread_mutex_t tiny_lock;
    /// Entries built so far and allocated, per level; whether memory ran out.
    uint64_t built[64], capacity[64];
    int failed, cancelled;
    /// The render's cancel flag, which the builder reads every 4,096 steps (NULL: never cancelled).
    const volatile int *cancel;
    /// The quadratic table: its level-1 entries built so far; per level, the entry waiting for the
    /// one after it to be merged with (quad_waiting[k] says whether there is one); the Double entries
    /// built and allocated per level.
    uint64_t quad_built;
    deep_quad quad_pending[64];
    int quad_waiting[64];
    uint64_t quad_capacity[64];
} table_builder;

/// Where a Double no longer holds a step of the orbit with full precision (both parts below this).
#define TINY_BOUND 0x1p-960
#define TINY_EXPONENT (-960)

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

uint64_t deep_steps_taken(const uint64_t *steps) { return __atomic_load_n(steps, __ATOMIC_RELAXED); }

/// deep_reference_orbit, publishing its frontier to `beside` (when not NULL) every 1,024 steps.
static uint64_t reference_orbit(
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
        if (beside && (n & 1023) == 1023) __atomic_store_n(&beside->frontier, n + 1, __ATOMIC_RELEASE);
        if (steps && (n & 4095) == 4095) __atomic_store_n(steps, n + 1, __ATOMIC_RELAXED);
        // Every step: a step takes 0.6 µs at 830 bits and 18 ms at 3.3 million (--zoom 1e1000000),
        // where 4,096 steps between looks kept a cancel waiting for over a minute.
        if (cancel && *cancel) {
            last = UINT64_MAX;
            break;
        }
    }
    if (steps && last != UINT64_MAX) __atomic_store_n(steps, last, __ATOMIC_RELAXED);
    mpfr_clears(cr, ci, x, y, x2, y2, t, (mpfr_ptr)0);
    if (last != UINT64_MAX) context->length = last;
    return last;
}

uint64_t deep_reference_orbit(
    const char *re, const char *im, long bits, uint64_t limit, deep_context *context, const volatile int *cancel,
    uint64_t *steps) {
    return reference_orbit(re, im, bits, limit, context, cancel, steps, NULL);
}

/// Z_m with its full precision: the Double of the orbit, or the tiny step's exact value.
static deep_complex orbit_exact(const deep_context *context, uint64_t m) {
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

/// orbit_exact while the orbit may still grow its tiny steps: under `lock` where it reads them.
static deep_complex orbit_exact_locked(const deep_context *context, uint64_t m, pthread_mutex_t *lock) {
    double zr = context->orbit[2 * m], zi = context->orbit[2 * m + 1];
    if (!lock || fabs(zr) >= TINY_BOUND || fabs(zi) >= TINY_BOUND) return orbit_exact(context, m);
    pthread_mutex_lock(lock);
    deep_complex z = orbit_exact(context, m);
    pthread_mutex_unlock(lock);
    return z;
}

/// The escape count of c = cr + i·ci, every step in MPFR with `bits` of precision (bailout |z|² > 4),
/// and z where it escaped (as Doubles; 0 for a point that reaches `limit`): the oracle's loop and the
/// exact count's.
static uint64_t mpfr_escape_count(
    const mpfr_t cr, const mpfr_t ci, long bits, uint64_t limit, double *escaped_re, double *escaped_im) {
    mpfr_t t, zr, zi, x2, y2;
    mpfr_inits2(bits, t, zr, zi, x2, y2, (mpfr_ptr)0);
    mpfr_set_zero(zr, 1);
    mpfr_set_zero(zi, 1);
    uint64_t count = limit;
    *escaped_re = 0;
    *escaped_im = 0;
    for (uint64_t n = 0; n < limit; n++) {
        mpfr_sqr(x2, zr, MPFR_RNDN);
        mpfr_sqr(y2, zi, MPFR_RNDN);
        mpfr_add(t, x2, y2, MPFR_RNDN);
        if (mpfr_cmp_ui(t, 4) > 0) {
            count = n;
            *escaped_re = mpfr_get_d(zr, MPFR_RNDN);
            *escaped_im = mpfr_get_d(zi, MPFR_RNDN);
            break;
        }
        mpfr_mul(t, zr, zi, MPFR_RNDN);
        mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
        mpfr_add(zi, t, ci, MPFR_RNDN);
        mpfr_sub(zr, x2, y2, MPFR_RNDN);
        mpfr_add(zr, zr, cr, MPFR_RNDN);
    }
    mpfr_clears(t, zr, zi, x2, y2, (mpfr_ptr)0);
    return count;
}

uint64_t deep_oracle_pixel(
    const char *re, const char *im, const char *zoom, long width, long height, long x, long y, long bits,
    uint64_t limit) {
    mpfr_t cr, ci, s, t;
    mpfr_inits2(bits, cr, ci, s, t, (mpfr_ptr)0);
    mpfr_set_str(s, zoom, 10, MPFR_RNDN);
    mpfr_mul_si(s, s, width < height ? width : height, MPFR_RNDN);
    mpfr_ui_div(s, 3, s, MPFR_RNDN);
    // (x + 0.5 − W/2)·s = (2x + 1 − W)·s / 2, exactly as the convention reads.
    mpfr_set_str(cr, re, 10, MPFR_RNDN);
    mpfr_mul_si(t, s, 2 * x + 1 - width, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    mpfr_add(cr, cr, t, MPFR_RNDN);
    mpfr_set_str(ci, im, 10, MPFR_RNDN);
    mpfr_mul_si(t, s, 2 * y + 1 - height, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    mpfr_sub(ci, ci, t, MPFR_RNDN);
    double escaped_re, escaped_im;
    uint64_t count = mpfr_escape_count(cr, ci, bits, limit, &escaped_re, &escaped_im);
    mpfr_clears(cr, ci, s, t, (mpfr_ptr)0);
    return count;
}

struct deep_exact_view {
    mpfr_t re, im, zoom;
    long bits;
    /// The sample grid's shorter side: its zoom-1 offsets are (2k + 1 − side)·3 / (2·min_side), as Doubles.
    long min_side;
};

struct deep_exact_view *deep_exact_view_new(
    const char *re, const char *im, const char *zoom, long bits, long min_side) {
    struct deep_exact_view *view = malloc(sizeof *view);
    if (!view) return NULL;
    view->bits = bits + 64;
    view->min_side = min_side;
    mpfr_inits2(view->bits, view->re, view->im, view->zoom, (mpfr_ptr)0);
    if (mpfr_set_str(view->re, re, 10, MPFR_RNDN) != 0 || mpfr_set_str(view->im, im, 10, MPFR_RNDN) != 0
        || mpfr_set_str(view->zoom, zoom, 10, MPFR_RNDN) != 0) {
        deep_exact_view_free(view);
        return NULL;
    }
    return view;
}

void deep_exact_view_free(struct deep_exact_view *view) {
    if (!view) return;
    mpfr_clears(view->re, view->im, view->zoom, (mpfr_ptr)0);
    free(view);
}

/// offset / zoom, with the offset as the grid means it: the Double offset is k·u rounded, u =
/// 3 / (2·min_side) and k an odd or even integer, so k is recovered and the point taken exactly
/// (the pixels the MPFR loop of the tests computes). An offset off that lattice is taken as it is.
static void exact_offset(const struct deep_exact_view *view, double offset, mpfr_t result) {
    double unit = 3.0 / (double)view->min_side / 2;
    double steps = round(offset / unit);
    if (view->min_side > 0 && fabs(steps) < 0x1p52 && fabs(offset - steps * unit) <= 0x1p-48 * fabs(offset)) {
        mpfr_set_d(result, steps * 3, MPFR_RNDN);
        mpfr_div_si(result, result, 2 * view->min_side, MPFR_RNDN);
    } else {
        mpfr_set_d(result, offset, MPFR_RNDN);
    }
    mpfr_div(result, result, view->zoom, MPFR_RNDN);
}

uint64_t deep_exact_pixel(
    const struct deep_exact_view *view, double offset_re, double offset_im, uint64_t limit, double *escaped_re,
    double *escaped_im) {
    mpfr_t cr, ci, t;
    mpfr_inits2(view->bits, cr, ci, t, (mpfr_ptr)0);
    exact_offset(view, offset_re, t);
    mpfr_add(cr, view->re, t, MPFR_RNDN);
    exact_offset(view, offset_im, t);
    mpfr_add(ci, view->im, t, MPFR_RNDN);
    uint64_t count = mpfr_escape_count(cr, ci, view->bits, limit, escaped_re, escaped_im);
    mpfr_clears(cr, ci, t, (mpfr_ptr)0);
    return count;
}

// MARK: - The BLA table

/// The entry for one step at reference index m: z ← 2·Z_m·z + dc, valid while z² is
/// negligible beside 2·Z_m·z: |z| < ε·|2·Z_m| (kept as a bound on max(|re|, |im|)).
static deep_bla single_step(const deep_context *context, uint64_t m, double epsilon, pthread_mutex_t *lock) {
    deep_complex a = orbit_exact_locked(context, m, lock);
    a.e += 1;
    deep_real r = complex_modulus(a);
    r = real_multiply(r, real_make(epsilon * M_SQRT1_2, 0));
    return (deep_bla){a, complex_make(1, 0, 0), r};
}

/// x's steps, then y's: A = Ay·Ax, B = Ay·Bx + By, R = min(Rx, (Ry − |Bx|·|dc|max) / |Ax|).
static deep_bla merge(deep_bla x, deep_bla y, deep_real max_delta) {
    deep_bla z;
    z.a = complex_multiply(y.a, x.a);
    z.b = complex_add(complex_multiply(y.a, x.b), y.b);
    deep_real ax = complex_modulus(x.a);
    deep_real reach = real_subtract(y.r, real_multiply(complex_modulus(x.b), max_delta));
    deep_real ry = ax.m == 0 ? (deep_real){0, ZERO_EXPONENT} : real_divide(reach, ax);
    z.r = real_less(ry, x.r) ? ry : x.r;
    return z;
}

static deep_bla_double plain_entry(deep_bla entry, int extended) {
    deep_bla_double plain = {0, 0, 0, 0, 0};
    if (entry.a.e > 1000 || entry.r.m == 0) return plain;
    plain.ar = scaled(entry.a.re, entry.a.e);
    plain.ai = scaled(entry.a.im, entry.a.e);
    if (entry.b.e > 1000) {
        // Only a view whose deltas underflow a double has such a B, and there B·dc is
        // negligible beside A·z once z is a double (see deep_count_row).
        if (!extended) return plain;
    } else {
        plain.br = scaled(entry.b.re, entry.b.e);
        plain.bi = scaled(entry.b.im, entry.b.e);
    }
    plain.r = entry.r.e > 1000 ? INFINITY : scaled(entry.r.m, entry.r.e);
    return plain;
}

// MARK: - The quadratic table

/// How close to Z_m a delta may come inside a quadratic entry: |z| < θ·|Z_m| at every step it spans,
/// so that no rebase (|Z + z| < |z|) can fall inside one, where nothing tests for it.
#define QUAD_THETA 0.25

/// a + b, as complex_add adds numbers with no imaginary part (both keep the mantissa in [0.5, 1)).
static inline deep_real real_add(deep_real a, deep_real b) {
    deep_complex sum = complex_add((deep_complex){a.m, 0, a.e}, (deep_complex){b.m, 0, b.e});
    return (deep_real){sum.re, sum.e};
}

static inline deep_real real_square_root(deep_real a) {
    if (a.m == 0) return a;
    double m = a.m;
    int64_t e = a.e;
    if (e & 1) {
        m *= 2;
        e -= 1;
    }
    return real_make(sqrt(m), e / 2);
}

/// |a| without hypot's care (a's parts are at most 1 in modulus, so their squares neither overflow nor
/// matter where they underflow): the radii are bounds with a margin far wider than its rounding.
static inline deep_real quad_modulus(deep_complex a) { return real_make(sqrt(a.re * a.re + a.im * a.im), a.e); }

/// One step at reference index m, exactly: z ← 2·Z_m·z + z² + dc, held while |z| < θ·|Z_m| (no
/// rebase) and |z| ≤ 2 − |Z_m| (no escape: |Z + z| ≤ 2).
static deep_quad quad_single_step(const deep_context *context, uint64_t m, pthread_mutex_t *lock) {
    deep_complex z = orbit_exact_locked(context, m, lock);
    deep_complex zero = {0, 0, ZERO_EXPONENT};
    deep_quad step = {.a = z, .b = complex_make(1, 0, 0), .p = complex_make(1, 0, 0), .q = zero, .r = zero};
    step.a.e += 1;
    deep_real modulus = quad_modulus(z);
    step.radius = real_multiply(modulus, real_make(QUAD_THETA, 0));
    deep_real room = real_subtract(real_make(2, 0), modulus);
    if (real_less(room, step.radius)) step.radius = room;
    return step;
}

/// x's steps, then y's. With x = L + Q (L = a·z + b·dc, Q = p·z² + q·z·dc + r·dc²), y(x) keeps the
/// terms up to degree 2 and drops Q·(p_y·(2L + Q) + q_y·dc). The radius keeps z within x's, keeps x's
/// result within y's (|p|R² + (|a| + |q|δ)R + |b|δ + |r|δ² ≤ R_y, δ the largest |dc|), and keeps the
/// dropped terms below ε·|a_y|·|L| (|L| bounded by |a|R + |b|δ), as the linear table keeps z² below
/// ε·|2Z·z|: that condition is tried at R and R halved until it holds.
static deep_quad quad_merge(deep_quad x, deep_quad y, deep_real max_delta, double epsilon) {
    deep_quad z;
    z.a = complex_multiply(y.a, x.a);
    z.b = complex_add(complex_multiply(y.a, x.b), y.b);
    z.p = complex_add(complex_multiply(y.a, x.p), complex_multiply(y.p, complex_multiply(x.a, x.a)));
    deep_complex twice_ab = complex_multiply(x.a, x.b);
    twice_ab.e += 1;
    z.q = complex_add(complex_add(complex_multiply(y.a, x.q), complex_multiply(y.p, twice_ab)),
        complex_multiply(y.q, x.a));
    z.r = complex_add(complex_add(complex_multiply(y.a, x.r), complex_multiply(y.p, complex_multiply(x.b, x.b))),
        complex_add(complex_multiply(y.q, x.b), y.r));
    deep_real ax = quad_modulus(x.a), bx = quad_modulus(x.b), px = quad_modulus(x.p),
              qx = quad_modulus(x.q), rx = quad_modulus(x.r);
    deep_real ay = quad_modulus(y.a), py = quad_modulus(y.p), qy = quad_modulus(y.q);
    const deep_real delta = max_delta, two = real_make(2, 0), tolerance = real_make(epsilon, 0);
    // x's result within y's radius: αR² + βR + γ ≤ R_y, the positive root in its stable form.
    deep_real alpha = px, beta = real_add(ax, real_multiply(qx, delta));
    deep_real gamma = real_add(real_multiply(bx, delta), real_multiply(rx, real_multiply(delta, delta)));
    deep_real room = real_subtract(y.radius, gamma);
    deep_real radius = x.radius;
    if (room.m == 0) {
        radius = room;
    } else {
        deep_real root = real_square_root(
            real_add(real_multiply(beta, beta), real_multiply(real_make(4, 0), real_multiply(alpha, room))));
        deep_real reach = real_divide(real_multiply(two, room), real_add(beta, root));
        if (real_less(reach, radius)) radius = reach;
    }
    // The dropped terms, first at the radius where their leading part 2|p_y||p_x|R²·|a_x|R meets
    // ε|a_y|·|a_x|R, then halved until the whole bound holds (40 halvings, then no entry).
    if (px.m != 0 && py.m != 0) {
        deep_real leading =
            real_square_root(real_divide(real_multiply(tolerance, ay), real_multiply(two, real_multiply(py, px))));
        if (real_less(leading, radius)) radius = leading;
    }
    for (int halvings = 0; radius.m != 0; halvings++) {
        if (halvings == 40) {
            radius = (deep_real){0, ZERO_EXPONENT};
            break;
        }
        deep_real linear = real_add(real_multiply(ax, radius), real_multiply(bx, delta));
        deep_real quadratic = real_add(
            real_add(real_multiply(px, real_multiply(radius, radius)), real_multiply(qx, real_multiply(radius, delta))),
            real_multiply(rx, real_multiply(delta, delta)));
        deep_real dropped = real_multiply(quadratic,
            real_add(real_multiply(py, real_add(real_multiply(two, linear), quadratic)), real_multiply(qy, delta)));
        if (!real_less(real_multiply(tolerance, real_multiply(ay, linear)), dropped)) break;
        radius.e -= 1;
    }
    z.radius = radius;
    return z;
}

/// Whether the coefficient c·2^-shift fits a Double.
static inline int quad_fits(deep_complex c, int64_t shift) {
    return (c.re == 0 && c.im == 0) || c.e - shift < 1000;
}

static deep_quad_double quad_plain_entry(deep_quad entry, int64_t shift) {
    deep_quad_double plain = {0};
    if (entry.radius.m == 0 || !quad_fits(entry.a, 0) || !quad_fits(entry.b, shift) || !quad_fits(entry.p, 0)
        || !quad_fits(entry.q, shift) || !quad_fits(entry.r, 2 * shift)) {
        return plain;
    }
    plain.ar = scaled(entry.a.re, entry.a.e);
    plain.ai = scaled(entry.a.im, entry.a.e);
    plain.br = scaled(entry.b.re, entry.b.e - shift);
    plain.bi = scaled(entry.b.im, entry.b.e - shift);
    plain.pr = scaled(entry.p.re, entry.p.e);
    plain.pi = scaled(entry.p.im, entry.p.e);
    plain.qr = scaled(entry.q.re, entry.q.e - shift);
    plain.qi = scaled(entry.q.im, entry.q.e - shift);
    plain.rr = scaled(entry.r.re, entry.r.e - 2 * shift);
    plain.ri = scaled(entry.r.im, entry.r.e - 2 * shift);
    plain.radius = entry.radius.e > 1000 ? INFINITY : scaled(entry.radius.m, entry.radius.e) * M_SQRT1_2;
    return plain;
}

/// Takes the next entry of level k (entries come in order): kept in Doubles from the lowest level
/// kept, then merged with the one before it when that one waits, into level k + 1. So the entries
/// are those of merging the pairs of each level, level by level, holding one exact entry a level.
/// Returns -1 when memory runs out.
static int quad_take(table_builder *b, int k, deep_quad entry) {
    deep_context *context = b->context;
    for (; k < 64; k++) {
        if (k >= DEEP_QUAD_LOWEST_LEVEL) {
            uint64_t index = context->quad_sizes[k];
            if (index == b->quad_capacity[k]) {
                uint64_t grown = index ? 2 * index : 1024;
                deep_quad_double *level = realloc(context->quad_levels[k], grown * sizeof(deep_quad_double));
                if (!level) return -1;
                context->quad_levels[k] = level;
                b->quad_capacity[k] = grown;
            }
            context->quad_levels[k][index] = quad_plain_entry(entry, context->quad_shift);
            context->quad_sizes[k] = index + 1;
            if (k > context->quad_level_count) context->quad_level_count = k;
        }
        if (!b->quad_waiting[k]) {
            b->quad_pending[k] = entry;
            b->quad_waiting[k] = 1;
            return 0;
        }
        b->quad_waiting[k] = 0;
        entry = quad_merge(b->quad_pending[k], entry, b->max_delta, b->epsilon);
    }
    return 0;
}

/// A builder of the table of `context`, which has no table yet.
static table_builder table_builder_make(deep_context *context, deep_real max_delta, double epsilon) {
    // dc' = dc·2^S is the pixel's zoom-1 offset times 1/zoom's mantissa (in [0.5, 1)): near 1 at any depth.
    context->quad_shift = -context->inverse_zoom.e;
    return (table_builder){.context = context, .max_delta = max_delta, .epsilon = epsilon};
}

/// Builds every entry whose steps are known: with Z_0 … Z_frontier in the orbit, level 1 has
/// (frontier − 1) / 2 entries (the last step of entry j is Z_{2j+2}, and the table of an orbit of
/// length L has (L − 1) / 2), and level k half of level k − 1's. Entries are built in order, each as
/// deep_build_table builds it, so a table built beside the orbit equals one built after it.
/// Returns -1 when memory runs out, -2 when the render was cancelled.
static int build_available(table_builder *b, uint64_t frontier, pthread_mutex_t *lock) {
    deep_context *context = b->context;
    for (int k = 1; k < 64; k++) {
        uint64_t available = k == 1 ? (frontier >= 1 ? (frontier - 1) / 2 : 0) : b->built[k - 1] / 2;
        if (available <= b->built[k]) {
            if (available == 0) break;
            continue;
        }
        if (available > b->capacity[k]) {
            uint64_t grown = b->capacity[k] ? 2 * b->capacity[k] : 4096;
            while (grown < available) grown *= 2;
            deep_bla *level = realloc(context->levels[k], grown * sizeof(deep_bla));
            if (level) context->levels[k] = level;
            deep_bla_double *plain = realloc(context->levels_double[k], grown * sizeof(deep_bla_double));
            if (plain) context->levels_double[k] = plain;
            if (!level || !plain) return -1;
            b->capacity[k] = grown;
        }
        deep_bla *level = context->levels[k];
        deep_bla_double *plain = context->levels_double[k];
        for (uint64_t j = b->built[k]; j < available; j++) {
            if (k == 1) {
                uint64_t m = 1 + 2 * j;
                level[j] = merge(
                    single_step(context, m, b->epsilon, lock), single_step(context, m + 1, b->epsilon, lock),
                    b->max_delta);
            } else {
                deep_bla *below = context->levels[k - 1];
                level[j] = merge(below[2 * j], below[2 * j + 1], b->max_delta);
            }
            plain[j] = plain_entry(level[j], context->extended);
            // An entry's radius is at most that of the half it starts with (merge takes the
            // minimum); kept so where plain_entry drops that half, so that the level-1 radius at m
            // bounds every entry's at m (see entry_radii).
            if (k > 1 && !(plain[j].r <= context->levels_double[k - 1][2 * j].r)) {
                plain[j].r = context->levels_double[k - 1][2 * j].r;
            }
        }
        b->built[k] = available;
    }
    // The quadratic table's level-1 entries, and through quad_take the levels above.
    uint64_t pairs = frontier >= 1 ? (frontier - 1) / 2 : 0;
    for (; b->quad_built < pairs; b->quad_built++) {
        // After the orbit, what is left of the quadratic table may take seconds (long orbits at low
        // precision, whose steps are cheaper than its entries): a cancel is not kept waiting.
        if ((b->quad_built & 2047) == 0 && b->cancel && *b->cancel) return -2;
        uint64_t m = 1 + 2 * b->quad_built;
        deep_quad pair = quad_merge(
            quad_single_step(context, m, lock), quad_single_step(context, m + 1, lock), b->max_delta, b->epsilon);
        if (quad_take(b, 1, pair) != 0) return -1;
    }
    return 0;
}

/// The table once every entry is built: its levels' sizes and entry_radii. Returns -1 when memory runs out.
static int finish_table(table_builder *b) {
    deep_context *context = b->context;
    context->level_count = 0;
    for (int k = 1; k < 64 && b->built[k] > 0; k++) {
        context->level_sizes[k] = b->built[k];
        context->level_count = k;
    }
    if (context->level_count > 0) {
        // entry_radii[m / 2] for m = 0 … length: for odd m the level-1 radius (or the lowest quadratic
        // entry's, below, where wider), 0 where no entry starts.
        uint64_t count = context->length / 2 + 1;
        context->entry_radii = calloc(count, sizeof(double));
        if (!context->entry_radii) return -1;
        for (uint64_t j = 0; j < context->level_sizes[1]; j++) {
            context->entry_radii[j] = context->levels_double[1][j].r;
        }
        // The lowest quadratic entry at m (which bounds the longer ones there) where it is the wider.
        const int lowest = DEEP_QUAD_LOWEST_LEVEL;
        for (uint64_t j = 0; j < context->quad_sizes[lowest]; j++) {
            uint64_t m = 1 + (j << lowest);
            double radius = context->quad_levels[lowest][j].radius;
            if (radius > context->entry_radii[m >> 1]) context->entry_radii[m >> 1] = radius;
        }
    }
    return 0;
}

int deep_build_table(deep_context *context, deep_real max_delta, double epsilon, const volatile int *cancel) {
    deep_free_table(context);
    table_builder b = table_builder_make(context, max_delta, epsilon);
    b.cancel = cancel;
    int built = build_available(&b, context->length, NULL);
    if (built == 0 && finish_table(&b) != 0) built = -1;
    if (built != 0) deep_free_table(context);
    return built;
}

int deep_build_table_prefix(
    deep_context *context, deep_real max_delta, double epsilon, uint64_t frontier, uint64_t *level_sizes) {
    deep_free_table(context);
    table_builder b = table_builder_make(context, max_delta, epsilon);
    int built = build_available(&b, frontier, NULL);
    for (int k = 0; k < 64; k++) level_sizes[k] = b.built[k];
    // The entries stay in context->levels (level_count set) for the caller to read, then deep_free_table.
    for (int k = 1; k < 64 && b.built[k] > 0; k++) context->level_count = k;
    if (built != 0) deep_free_table(context);
    return built;
}

static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/// Records what build_available returned (0, -1 out of memory, -2 cancelled) in `b`, and returns it.
static int note_outcome(table_builder *b, int built) {
    if (built == -2) b->cancelled = 1;
    else if (built != 0) b->failed = 1;
    return built;
}

/// The table's thread: builds what the orbit's frontier allows, every 200 µs, until the orbit is
/// done (then the rest) or cancelled.
static void *build_beside(void *argument) {
    table_builder *b = argument;
    for (;;) {
        int finished = __atomic_load_n(&b->finished, __ATOMIC_ACQUIRE);
        if (finished == 2) return NULL;
        if (finished == 1) {
            // The orbit is done and no longer touches the tiny steps.
            note_outcome(b, build_available(b, b->context->length, NULL));
            return NULL;
        }
        uint64_t frontier = __atomic_load_n(&b->frontier, __ATOMIC_ACQUIRE);
        // Cancelled, the orbit stops too; out of memory, the render goes on without a table.
        if (note_outcome(b, build_available(b, frontier, &b->tiny_lock)) != 0) return NULL;
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
    }
}

uint64_t deep_reference_orbit_and_table(
    const char *re, const char *im, long bits, uint64_t limit, deep_context *context, const volatile int *cancel,
    uint64_t *steps, deep_real max_delta, double epsilon, double *orbit_seconds) {
    double start = monotonic_seconds();
    deep_free_table(context);
    table_builder b = table_builder_make(context, max_delta, epsilon);
    b.cancel = cancel;
    pthread_t thread;
    int beside = pthread_mutex_init(&b.tiny_lock, NULL) == 0;
    if (beside && pthread_create(&thread, NULL, build_beside, &b) != 0) {
        pthread_mutex_destroy(&b.tiny_lock);
        beside = 0;
    }
    uint64_t length = reference_orbit(re, im, bits, limit, context, cancel, steps, beside ? &b : NULL);
    *orbit_seconds = monotonic_seconds() - start;
    if (beside) {
        __atomic_store_n(&b.finished, length == UINT64_MAX ? 2 : 1, __ATOMIC_RELEASE);
        pthread_join(thread, NULL);
        pthread_mutex_destroy(&b.tiny_lock);
    } else if (length != UINT64_MAX) {
        // No thread to build beside the orbit: built after it, as deep_build_table does.
        note_outcome(&b, build_available(&b, length, NULL));
    }
    if (b.cancelled) length = UINT64_MAX;
    if (length == UINT64_MAX || b.failed || finish_table(&b) != 0) deep_free_table(context);
    return length;
}

void deep_free_context(deep_context *context) {
    deep_free_table(context);
    free(context->tiny_index);
    free(context->tiny_value);
    context->tiny_index = NULL;
    context->tiny_value = NULL;
    context->tiny_count = 0;
}

void deep_free_table(deep_context *context) {
    // Every level, not only level_count's: a table given up half-built may have more.
    for (int k = 1; k < 64; k++) {
        free(context->levels[k]);
        free(context->levels_double[k]);
        context->levels[k] = NULL;
        context->levels_double[k] = NULL;
        context->level_sizes[k] = 0;
    }
    for (int k = 0; k < 64; k++) {
        free(context->quad_levels[k]);
        context->quad_levels[k] = NULL;
        context->quad_sizes[k] = 0;
    }
    context->quad_level_count = 0;
    free(context->entry_radii);
    context->entry_radii = NULL;
    context->level_count = 0;
    free(context->lane_steps);
    context->lane_steps = NULL;
}

// MARK: - Pixels

/// The longest entry of the levels lowest … count (level k having sizes[k] entries of 2^k steps, entry
/// j starting at reference index 1 + j·2^k) that starts at m (≥ 1), fits in `room` steps and passes
/// `within_test` (which reads `level` and `q`, m − 1); its level, or 0.
#define FIND_IN_LEVELS(count, sizes, lowest, m, room, within_test)                                                   \
    ({                                                                                                               \
        int found = 0;                                                                                               \
        uint64_t q = (m) - 1;                                                                                        \
        int top = q ? __builtin_ctzll(q) : 63;                                                                       \
        if (top > (count)) top = (count);                                                                            \
        for (int level = top; level >= (lowest); level--) {                                                          \
            if ((UINT64_C(1) << level) > (room)) continue;                                                           \
            uint64_t j = q >> level;                                                                                 \
            if (j >= (sizes)[level]) continue;                                                                       \
            if (within_test) {                                                                                       \
                found = level;                                                                                       \
                break;                                                                                               \
            }                                                                                                        \
        }                                                                                                            \
        found;                                                                                                       \
    })

/// The longest linear entry at m that holds z (|z| bounded by `within_test`); its level, or 0.
#define FIND_LEVEL(context, m, room, within_test)                                                                     \
    FIND_IN_LEVELS((context)->level_count, (context)->level_sizes, 1, m, room, within_test)

/// The longest quadratic entry at m that holds a z whose max(|re|, |im|) is `largest`; its level, or 0.
#define FIND_QUAD_LEVEL(context, m, room, largest)                                                                    \
    FIND_IN_LEVELS((context)->quad_level_count, (context)->quad_sizes, DEEP_QUAD_LOWEST_LEVEL, m, room,               \
        (largest) < (context)->quad_levels[level][q >> level].radius)

/// Whether |a| < |b|.
static inline int complex_smaller(deep_complex a, deep_complex b) {
    double a2 = a.re * a.re + a.im * a.im, b2 = b.re * b.re + b.im * b.im;
    if (a2 == 0) return b2 > 0;
    if (b2 == 0) return 0;
    int64_t shift = a.e - b.e;
    if (shift > 2) return 0;
    if (shift < -2) return 1;
    return a2 * power_of_two((int)(2 * shift)) < b2;
}

/// A delta below 2^-500 in modulus (its squared modulus below PLAIN_NORM) is kept extended: its
/// square would lose precision in a Double (or vanish past 2^-1074), and so would the rebasing
/// test that compares squares. An extended delta goes back to Doubles above 2^-480
/// (PLAIN_EXPONENT, a margin so that a delta does not switch at every step).
#define PLAIN_NORM 0x1p-1000
#define PLAIN_EXPONENT (-480)

/// |z|² of a Double pair: one expression for the pixel loop and the lanes, so that both round alike.
static inline double plain_norm(double re, double im) { return re * re + im * im; }

/// One perturbation step in Doubles, z ← (2Z + z)·z + dc: one expression for the pixel loop and the lanes.
static inline void plain_step(double *zr, double *zi, double Zr, double Zi, double dcr, double dci) {
    double ar = 2 * Zr + *zr, ai = 2 * Zi + *zi;
    double nr = ar * *zr - ai * *zi + dcr;
    *zi = ar * *zi + ai * *zr + dci;
    *zr = nr;
}

/// A generous bound on one step's rounding, relative to the magnitudes of its terms (8 ulps).
#define STEP_ROUNDING 0x1p-50
/// The error bound past which a pixel's Double orbit is not trusted at all, even where its
/// escape is clear of the bound: the orbit may have passed within the bound of the bailout
/// circle at an earlier step. With it every count was the MPFR loop's at the 28 views measured
/// (1–3% of the pixels counted again in MPFR); without it, 2 of 4,096 pixels were still wrong at
/// one view of seven (docs/deep-zoom.md, "Exact by default").
#define UNTRUSTED_ERROR 0x1p-7

/// The error bound of z after the step z ← (2Z + z)·z + dc, from `error` before it: the error is
/// amplified by the step's derivative 2(Z + z) (|Z + z|² is `full`), and the step adds its
/// rounding, that of Z_m (a Double of the exact orbit) and that of dc. One expression for the
/// pixel loop and the lanes.
static inline double step_error(
    double error, double full, double Zr, double Zi, double zr, double zi, double dcr, double dci) {
    double ar = 2 * Zr + zr, ai = 2 * Zi + zi;
    return 2 * sqrt(full) * error
        + STEP_ROUNDING * ((fabs(ar) + fabs(ai) + fabs(Zr) + fabs(Zi)) * (fabs(zr) + fabs(zi)) + fabs(dcr) + fabs(dci));
}

/// A pixel under way: its delta dc, and where its orbit is, so that it can be set aside in the
/// Double loop (where most single steps are) and resumed.
typedef struct {
    deep_complex dc;
    /// dc in Doubles; where it underflows it is negligible beside any z the Double loop holds (≥ 2^-500).
    double dcr, dci;
    /// dc·2^S for the quadratic table (see deep_quad_double).
    double scaled_dcr, scaled_dci;
    /// A zero z takes its first step in Doubles when dc is large enough to stay there.
    int plain_start;
    /// Whether the pixel was set aside in the Double loop (and is resumed there).
    int paused;
    uint64_t n, m;
    double zr, zi;
    /// A bound on the absolute error of the Double z (see step_error); 0 while z is extended.
    double error;
    /// Whether the count may be wrong: the error bound passed UNTRUSTED_ERROR, or the escape was within it.
    int untrusted;
    /// z where the orbit escaped.
    double escaped_re, escaped_im;
} pixel_state;

static void pixel_begin(const deep_context *context, pixel_state *state, double offset_re, double offset_im) {
    deep_complex dc = complex_scale(complex_make(offset_re, offset_im, 0), context->inverse_zoom);
    *state = (pixel_state){.dc = dc, .dcr = scaled(dc.re, dc.e), .dci = scaled(dc.im, dc.e),
        .scaled_dcr = scaled(dc.re, dc.e + context->quad_shift),
        .scaled_dci = scaled(dc.im, dc.e + context->quad_shift),
        .plain_start = dc.e > PLAIN_EXPONENT};
}

/// Runs one pixel until its count is known (returns 1, the count in `state->n`), or, when
/// `may_pause`, until it is about to take a plain single step, with no table entry possible, after
/// at least one step of its own (returns 0): steps that `lanes_step` takes for several pixels at once.
/// z is a Double pair while |z| ≥ 2^-500, extended below; it switches both ways, for a pixel's
/// orbit passes close to 0 (and its delta shrinks) wherever the reference's does.
static int pixel_run(const deep_context *context, pixel_state *state, uint64_t limit, int use_table, int may_pause) {
    const double *orbit = context->orbit;
    const double *lane_steps = context->lane_steps;
    const uint64_t end = context->length;
    use_table = use_table && context->level_count > 0;
    const deep_complex dc = state->dc;
    const double dcr = state->dcr, dci = state->dci;
    const double scaled_dcr = state->scaled_dcr, scaled_dci = state->scaled_dci;
    const int plain_start = state->plain_start;
    uint64_t n = state->n, m = state->m;
    double zr = state->zr, zi = state->zi;
    double error = state->error;
    deep_complex z = {0, 0, ZERO_EXPONENT};
    int taken = 0;
    // The step at which z last became extended: its steps there add their rounding, relative to z.
    uint64_t extended_from = n;
#define PIXEL_DONE(count, re, im)                                                                                    \
    do {                                                                                                             \
        state->n = (count);                                                                                          \
        state->escaped_re = (re);                                                                                    \
        state->escaped_im = (im);                                                                                    \
        return 1;                                                                                                    \
    } while (0)
    if (state->paused || plain_start) goto plain;
extended:
    // Extended: z = (re + i·im)·2^e. The bound starts again where z leaves this range: what it
    // carried is not followed through it. (After a rebase onto a tiny Z + z, the next step
    // squares that error away; where z itself shrinks, its error shrinks with it. Neither is
    // where the wrong counts measured came from: those were orbits that left the reference's
    // and wandered near the set in Doubles.)
    error = 0;
    extended_from = n;
    for (;;) {
        if (n >= limit) PIXEL_DONE(limit, 0, 0);
        if (use_table && m >= 1) {
            uint64_t room = end - m < limit - n ? end - m : limit - n;
            int level = FIND_LEVEL(context, m, room, complex_within(z, context->levels[level][q >> level].r));
            if (level) {
                const deep_bla *entry = &context->levels[level][(m - 1) >> level];
                z = complex_add(complex_multiply(entry->a, z), complex_multiply(entry->b, dc));
                m += UINT64_C(1) << level;
                n += UINT64_C(1) << level;
                taken = 1;
                if (z.e > PLAIN_EXPONENT) break;
                continue;
            }
        }
        deep_complex Z = orbit_exact(context, m);
        double Zr = orbit[2 * m], Zi = orbit[2 * m + 1];
        if (Zr * Zr + Zi * Zi > 4) {
            // z is negligible beside an escaping Z.
            PIXEL_DONE(n, Zr + scaled(z.re, z.e), Zi + scaled(z.im, z.e));
        }
        deep_complex full = complex_add(Z, z);
        if (m == end || complex_smaller(full, z)) {
            // Rebase: continue from the orbit's start with the whole Z + z as the delta.
            z = full;
            m = 0;
            Z = (deep_complex){0, 0, ZERO_EXPONENT};
        }
        // z ← (2Z + z)·z + dc
        deep_complex twice = Z;
        twice.e += 1;
        z = complex_add(complex_multiply(complex_add(twice, z), z), dc);
        m += 1;
        n += 1;
        taken = 1;
        if (z.e > PLAIN_EXPONENT) break;
    }
    zr = scaled(z.re, z.e);
    zi = scaled(z.im, z.e);
    error += STEP_ROUNDING * (fabs(zr) + fabs(zi)) * (double)(1 + n - extended_from);
plain:
    for (;;) {
        if (n >= limit) {
            state->untrusted |= error > UNTRUSTED_ERROR;
            PIXEL_DONE(limit, 0, 0);
        }
        double norm = plain_norm(zr, zi);
        if (norm < PLAIN_NORM && (norm != 0 || !plain_start)) {
            z = complex_make(zr, zi, 0);
            goto extended;
        }
        // Z_m and entry_radii's radius at m, which bounds every entry's that starts there, linear or quadratic
        // (entries start at odd m only, 1 + j·2^k; the radius is 0 at even m): one load from the lanes' steps
        // where they are prepared, where they sit side by side, rather than two from the orbit and the radii.
        double Zr, Zi, radius;
        if (lane_steps) {
            const double *step = lane_steps + 4 * m;
            Zr = step[0];
            Zi = step[1];
            radius = step[2];
        } else {
            Zr = orbit[2 * m];
            Zi = orbit[2 * m + 1];
            radius = use_table && (m & 1) ? context->entry_radii[m >> 1] : 0;
        }
        double largest = fmax(fabs(zr), fabs(zi));
        if (use_table && largest < radius) {
            const double z_sum = fabs(zr) + fabs(zi);
            uint64_t room = end - m < limit - n ? end - m : limit - n;
            int level = FIND_LEVEL(context, m, room, largest < context->levels_double[level][q >> level].r);
            int quad_level = level < context->quad_level_count ? FIND_QUAD_LEVEL(context, m, room, largest) : 0;
            if (quad_level > level) {
                // z ← (a + p·z + q·dc')·z + (b + r·dc')·dc'
                const deep_quad_double *entry = &context->quad_levels[quad_level][(m - 1) >> quad_level];
                double tr = entry->pr * zr - entry->pi * zi + entry->qr * scaled_dcr - entry->qi * scaled_dci;
                double ti = entry->pr * zi + entry->pi * zr + entry->qr * scaled_dci + entry->qi * scaled_dcr;
                double ur = entry->rr * scaled_dcr - entry->ri * scaled_dci + entry->br;
                double ui = entry->rr * scaled_dci + entry->ri * scaled_dcr + entry->bi;
                double nr = (entry->ar + tr) * zr - (entry->ai + ti) * zi + ur * scaled_dcr - ui * scaled_dci;
                zi = (entry->ar + tr) * zi + (entry->ai + ti) * zr + ur * scaled_dci + ui * scaled_dcr;
                zr = nr;
                level = quad_level;
                // The derivative is a + 2p·z + q·dc'; the rounding (and the table's tolerance) is
                // relative to the terms.
                const double dc_sum = fabs(scaled_dcr) + fabs(scaled_dci);
                const double a_sum = fabs(entry->ar) + fabs(entry->ai), p_sum = fabs(entry->pr) + fabs(entry->pi);
                const double q_sum = fabs(entry->qr) + fabs(entry->qi);
                error = (sqrt(entry->ar * entry->ar + entry->ai * entry->ai) + 2 * p_sum * z_sum + q_sum * dc_sum) * error
                    + STEP_ROUNDING
                        * ((a_sum + p_sum * z_sum + q_sum * dc_sum) * z_sum
                            + (fabs(entry->br) + fabs(entry->bi) + (fabs(entry->rr) + fabs(entry->ri)) * dc_sum) * dc_sum);
            } else if (level) {
                const deep_bla_double *entry = &context->levels_double[level][(m - 1) >> level];
                double nr = entry->ar * zr - entry->ai * zi + entry->br * dcr - entry->bi * dci;
                zi = entry->ar * zi + entry->ai * zr + entry->br * dci + entry->bi * dcr;
                zr = nr;
                error = sqrt(entry->ar * entry->ar + entry->ai * entry->ai) * error
                    + STEP_ROUNDING
                        * ((fabs(entry->ar) + fabs(entry->ai)) * z_sum
                            + (fabs(entry->br) + fabs(entry->bi)) * (fabs(dcr) + fabs(dci)));
            }
            if (level) {
                m += UINT64_C(1) << level;
                n += UINT64_C(1) << level;
                taken = 1;
                continue;
            }
        } else if (may_pause && taken) {
            state->paused = 1;
            state->n = n;
            state->m = m;
            state->zr = zr;
            state->zi = zi;
            state->error = error;
            return 0;
        }
        double fr = Zr + zr, fi = Zi + zi;
        double full = plain_norm(fr, fi);
        if (full > 4) {
            state->untrusted |= error > UNTRUSTED_ERROR || sqrt(full) - 2 <= 2 * error;
            PIXEL_DONE(n, fr, fi);
        }
        if (full < norm || m == end) {
            // Rebase: continue from the orbit's start with the whole Z + z as the delta.
            error += STEP_ROUNDING * (fabs(fr) + fabs(fi));
            zr = fr;
            zi = fi;
            m = 0;
            Zr = 0;
            Zi = 0;
            if (full < PLAIN_NORM) {
                // Z + z is too small for Doubles: the step is taken extended.
                z = complex_make(zr, zi, 0);
                goto extended;
            }
        }
        error = step_error(error, full, Zr, Zi, zr, zi, dcr, dci);
        plain_step(&zr, &zi, Zr, Zi, dcr, dci);
        m += 1;
        n += 1;
        taken = 1;
    }
#undef PIXEL_DONE
}

/// Pixels stepped together, so that their steps overlap (one step's latency is its chain of
/// multiplications, about 12 cycles, which one pixel alone waits out), in vectors of this many lanes.
#define LANES 4
typedef double lane_doubles __attribute__((vector_size(LANES * sizeof(double))));
typedef int64_t lane_integers __attribute__((vector_size(LANES * sizeof(int64_t))));

/// Each lane's step is one aligned load of its own: Z_m and the radius side by side, and no test
/// of m's parity (the radius is 0 at even m), where reading Z_m and entry_radii[m / 2] for four
/// different m took eight scalar loads, four more and the lanes' m taken out of a vector.
int deep_prepare_lanes(deep_context *context) {
    free(context->lane_steps);
    context->lane_steps = aligned_alloc(32, 32 * (context->length + 1));
    if (!context->lane_steps) return -1;
    for (uint64_t m = 0; m <= context->length; m++) {
        double *step = context->lane_steps + 4 * m;
        step[0] = context->orbit[2 * m];
        step[1] = context->orbit[2 * m + 1];
        step[2] = context->level_count > 0 && (m & 1) ? context->entry_radii[m >> 1] : 0;
        step[3] = 0;
    }
    return 0;
}

/// |v| of each lane.
static inline lane_doubles lane_abs(lane_doubles v) {
    return (lane_doubles)((lane_integers)v & ((lane_integers){0} + INT64_MAX));
}

/// Takes plain single steps of the paused pixels `lanes` together, until one of them comes to
/// anything else (the limit, an escape, a rebase, a table entry or an extended delta within
/// reach): the steps and tests of `pixel_run`'s Double loop, in the same expressions. Returns the
/// lanes (a bit each) that came to something else, which `pixel_run` takes on from there.
static unsigned lanes_step(const deep_context *context, pixel_state *lanes, uint64_t limit, int use_table) {
    const lane_doubles no_radius = {0};
    const int radii = use_table && context->level_count > 0;
    const lane_integers magnitude = (lane_integers){0} + INT64_MAX;
    lane_doubles zr, zi, dcr, dci, error;
    const double *p[LANES];
    // The steps every lane can take before one of them comes to the limit or the orbit's end.
    uint64_t room = UINT64_MAX;
    for (int i = 0; i < LANES; i++) {
        zr[i] = lanes[i].zr;
        zi[i] = lanes[i].zi;
        dcr[i] = lanes[i].dcr;
        dci[i] = lanes[i].dci;
        error[i] = lanes[i].error;
        p[i] = context->lane_steps + 4 * lanes[i].m;
        uint64_t left = limit - lanes[i].n;
        uint64_t to_end = context->length - lanes[i].m;
        if (left < room) room = left;
        if (to_end < room) room = to_end;
    }
    uint64_t taken = 0;
    unsigned stopped = 0;
    for (;; taken++) {
        if (taken == room) {
            for (int i = 0; i < LANES; i++) {
                if (lanes[i].n + taken == limit || lanes[i].m + taken == context->length) stopped |= 1u << i;
            }
            break;
        }
        // Four lanes' (Z_re, Z_im, radius, 0), turned into Z_re, Z_im and radius of the four lanes.
        lane_doubles s0, s1, s2, s3;
        memcpy(&s0, p[0] + 4 * taken, sizeof s0);
        memcpy(&s1, p[1] + 4 * taken, sizeof s1);
        memcpy(&s2, p[2] + 4 * taken, sizeof s2);
        memcpy(&s3, p[3] + 4 * taken, sizeof s3);
        lane_doubles lo01 = __builtin_shufflevector(s0, s1, 0, 4, 2, 6);
        lane_doubles lo23 = __builtin_shufflevector(s2, s3, 0, 4, 2, 6);
        lane_doubles hi01 = __builtin_shufflevector(s0, s1, 1, 5, 3, 7);
        lane_doubles hi23 = __builtin_shufflevector(s2, s3, 1, 5, 3, 7);
        lane_doubles Zr = __builtin_shufflevector(lo01, lo23, 0, 1, 4, 5);
        lane_doubles radius = __builtin_shufflevector(lo01, lo23, 2, 3, 6, 7);
        lane_doubles Zi = __builtin_shufflevector(hi01, hi23, 0, 1, 4, 5);
        if (!radii) radius = no_radius;
        // max(|re|, |im|) < radius, as pixel_run tests it (the radius is 0 at even m).
        lane_doubles absolute_r = (lane_doubles)((lane_integers)zr & magnitude);
        lane_doubles absolute_i = (lane_doubles)((lane_integers)zi & magnitude);
        lane_integers table = (absolute_r < radius) & (absolute_i < radius);
        lane_doubles norm = zr * zr + zi * zi;
        lane_doubles fr = Zr + zr, fi = Zi + zi;
        lane_doubles full = fr * fr + fi * fi;
        lane_integers go = (norm >= PLAIN_NORM) & ~table & (full <= 4) & ~(full < norm);
#if defined(__AVX__)
        // The lanes' sign bits in one instruction (a lane's test is all ones or all zeros).
        unsigned going = (unsigned)__builtin_ia32_movmskpd256((lane_doubles)go);
#else
        unsigned going = 0;
        for (int i = 0; i < LANES; i++) going |= (unsigned)(go[i] != 0) << i;
#endif
        if (going != (1u << LANES) - 1) {
            stopped = ~going & ((1u << LANES) - 1);
            break;
        }
        // The error bound, as step_error; then z ← (2Z + z)·z + dc, as plain_step.
        lane_doubles ar = 2 * Zr + zr, ai = 2 * Zi + zi;
        error = 2 * __builtin_elementwise_sqrt(full) * error
            + STEP_ROUNDING
                * ((lane_abs(ar) + lane_abs(ai) + lane_abs(Zr) + lane_abs(Zi)) * (lane_abs(zr) + lane_abs(zi))
                    + lane_abs(dcr) + lane_abs(dci));
        lane_doubles nr = ar * zr - ai * zi + dcr;
        zi = ar * zi + ai * zr + dci;
        zr = nr;
    }
    for (int i = 0; i < LANES; i++) {
        lanes[i].zr = zr[i];
        lanes[i].zi = zi[i];
        lanes[i].error = error[i];
        lanes[i].n += taken;
        lanes[i].m += taken;
    }
    return stopped;
}

/// The smooth value of an orbit that escaped at `step` with z: four more steps (fewer if |z|²
/// passes 1e20), then k + 1 − log₂(ln |z_k|), as the Double kernel computes it.
static float smooth_value(uint64_t step, double zr, double zi, double cr, double ci) {
    for (int taken = 0; taken < 4 && zr * zr + zi * zi < 1e20; taken++) {
        double zr2 = zr * zr, zi2 = zi * zi;
        zi = 2 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        step += 1;
    }
    double log_modulus = 0.5 * log(zr * zr + zi * zi);
    double value = (double)step + 1 - log2(log_modulus);
    return (float)(value > 0 ? value : 0);
}

/// The most MPFR work spent on one untrusted pixel, in bits × steps: 2^25, 10 to 30 ms (all of a
/// count of 100,000 at 300 bits, of 20,000 at 1,600). Past it the pixel keeps its Double count:
/// at a deep minibrot a pixel of a million steps in thousands of bits takes seconds. Decided by
/// the pixel's own count, so that every strategy makes the same pixels.
#define EXACT_BUDGET 0x1p25

static int exact_affordable(const struct deep_exact_view *view, uint64_t count) {
    return (double)count * (double)view->bits <= EXACT_BUDGET;
}

/// Counts a pixel whose Double steps cannot be trusted again, in MPFR (its count and escape).
static void finish_exactly(
    const deep_context *context, pixel_state *state, double offset_re, double offset_im, uint64_t limit) {
    state->n = deep_exact_pixel(context->exact, offset_re, offset_im, limit, &state->escaped_re, &state->escaped_im);
}

/// deep_count_row, its pixels stepped together in lanes or each on its own.
static uint64_t count_row(
    const deep_context *context, const double *offsets_re, double offset_im, int count, uint64_t limit,
    int use_table, uint32_t *counts, float *smooth, int together, uint64_t *untrusted) {
    uint64_t total = 0;
    pixel_state lanes[LANES];
    int holds[LANES];
    int next = 0;
    unsigned stopped = (1u << LANES) - 1;
    for (int i = 0; i < LANES; i++) holds[i] = -1;
#define PIXEL_FINISH(lane)                                                                                           \
    do {                                                                                                             \
        pixel_state *done = &lanes[lane];                                                                            \
        int index = holds[lane];                                                                                     \
        if (done->untrusted && untrusted) untrusted[1] += 1;                                                         \
        if (done->untrusted && context->exact && exact_affordable(context->exact, done->n)) {                       \
            finish_exactly(context, done, offsets_re[index], offset_im, limit);                                      \
            if (untrusted) untrusted[0] += 1;                                                                        \
        }                                                                                                            \
        counts[index] = (uint32_t)done->n;                                                                           \
        total += done->n;                                                                                            \
        if (smooth) {                                                                                                \
            smooth[index] = done->n >= limit                                                                         \
                ? (float)limit                                                                                       \
                : smooth_value(done->n, done->escaped_re, done->escaped_im,                                          \
                      context->center_re + scaled(done->dc.re, done->dc.e),                                          \
                      context->center_im + scaled(done->dc.im, done->dc.e));                                         \
        }                                                                                                            \
        holds[lane] = -1;                                                                                            \
    } while (0)
    for (;;) {
        // Every lane that stopped runs its pixel on its own up to a pause (taking the next pixel when
        // one is done)...
        int all = together;
        for (int i = 0; i < LANES; i++) {
            if (!(stopped >> i & 1)) continue;
            for (;;) {
                if (holds[i] < 0) {
                    if (next >= count) break;
                    holds[i] = next;
                    pixel_begin(context, &lanes[i], offsets_re[next], offset_im);
                    next += 1;
                }
                if (!pixel_run(context, &lanes[i], limit, use_table, together)) break;
                PIXEL_FINISH(i);
            }
            all &= holds[i] >= 0;
        }
        if (!all) break;
        // ... then all of them step together.
        stopped = lanes_step(context, lanes, limit, use_table);
    }
    // The last pixels of the row, fewer than the lanes, run alone (or all of them, apart).
    for (int i = 0; i < LANES; i++) {
        if (holds[i] < 0) continue;
        pixel_run(context, &lanes[i], limit, use_table, 0);
        PIXEL_FINISH(i);
    }
#undef PIXEL_FINISH
    return total;
}

uint64_t deep_count_row(
    const deep_context *context, const double *offsets_re, double offset_im, int count, uint64_t limit,
    int use_table, uint32_t *counts, float *smooth, uint64_t *untrusted) {
    return count_row(
        context, offsets_re, offset_im, count, limit, use_table, counts, smooth, context->lane_steps != NULL,
        untrusted);
}

uint64_t deep_count_row_apart(
    const deep_context *context, const double *offsets_re, double offset_im, int count, uint64_t limit,
    int use_table, uint32_t *counts, float *smooth, uint64_t *untrusted) {
    return count_row(context, offsets_re, offset_im, count, limit, use_table, counts, smooth, 0, untrusted);
}
