// Deep zoom: the reference orbit and the oracle in MPFR, the pixels as perturbations of the
// orbit in doubles (or in an extended exponent where doubles underflow), with rebasing and a
// table of bilinear approximations (BLA). Written from the published descriptions of the
// technique (K. I. Martin's perturbation notes; Zhuoran's rebasing and BLA posts on
// fractalforums; mathr.co.uk's deep-zoom pages).
#include "DeepShim.h"

#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#define ZERO_EXPONENT (-(INT64_C(1) << 40))
/// Below this exponent a double cannot hold a value with its full precision; deltas stay extended.
#define PLAIN_EXPONENT (-1000)

// MARK: - Numbers with an extended exponent

static inline deep_complex complex_make(double re, double im, int64_t e) {
    double largest = fmax(fabs(re), fabs(im));
    if (largest == 0) return (deep_complex){0, 0, ZERO_EXPONENT};
    int k;
    frexp(largest, &k);
    return (deep_complex){scalbn(re, -k), scalbn(im, -k), e + k};
}

static inline deep_real real_make(double m, int64_t e) {
    if (m == 0) return (deep_real){0, ZERO_EXPONENT};
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
    return complex_make(a.re + scalbn(b.re, (int)shift), a.im + scalbn(b.im, (int)shift), a.e);
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
    return scalbn(largest, (int)(z.e - r.e)) < r.m;
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

uint64_t deep_reference_orbit(
    const char *re, const char *im, long bits, uint64_t limit, double *orbit, const volatile int *cancel) {
    mpfr_t cr, ci, x, y, x2, y2, t;
    mpfr_inits2(bits, cr, ci, x, y, x2, y2, t, (mpfr_ptr)0);
    mpfr_set_str(cr, re, 10, MPFR_RNDN);
    mpfr_set_str(ci, im, 10, MPFR_RNDN);
    mpfr_set_zero(x, 1);
    mpfr_set_zero(y, 1);
    orbit[0] = 0;
    orbit[1] = 0;
    uint64_t last = limit;
    for (uint64_t n = 0; n < limit; n++) {
        // Three squarings, no multiplication: 2xy = (x + y)² − x² − y².
        mpfr_sqr(x2, x, MPFR_RNDN);
        mpfr_sqr(y2, y, MPFR_RNDN);
        mpfr_add(t, x, y, MPFR_RNDN);
        mpfr_sqr(t, t, MPFR_RNDN);
        mpfr_sub(t, t, x2, MPFR_RNDN);
        mpfr_sub(t, t, y2, MPFR_RNDN);
        mpfr_add(y, t, ci, MPFR_RNDN);
        mpfr_sub(x, x2, y2, MPFR_RNDN);
        mpfr_add(x, x, cr, MPFR_RNDN);
        double zr = mpfr_get_d(x, MPFR_RNDN);
        double zi = mpfr_get_d(y, MPFR_RNDN);
        orbit[2 * (n + 1)] = zr;
        orbit[2 * (n + 1) + 1] = zi;
        if (zr * zr + zi * zi > 4) {
            last = n + 1;
            break;
        }
        if ((n & 4095) == 4095 && cancel && *cancel) {
            last = UINT64_MAX;
            break;
        }
    }
    mpfr_clears(cr, ci, x, y, x2, y2, t, (mpfr_ptr)0);
    return last;
}

uint64_t deep_oracle_pixel(
    const char *re, const char *im, const char *zoom, long width, long height, long x, long y, long bits,
    uint64_t limit) {
    mpfr_t cr, ci, s, t, zr, zi, x2, y2;
    mpfr_inits2(bits, cr, ci, s, t, zr, zi, x2, y2, (mpfr_ptr)0);
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
    mpfr_set_zero(zr, 1);
    mpfr_set_zero(zi, 1);
    uint64_t count = limit;
    for (uint64_t n = 0; n < limit; n++) {
        mpfr_sqr(x2, zr, MPFR_RNDN);
        mpfr_sqr(y2, zi, MPFR_RNDN);
        mpfr_add(t, x2, y2, MPFR_RNDN);
        if (mpfr_cmp_ui(t, 4) > 0) {
            count = n;
            break;
        }
        mpfr_mul(t, zr, zi, MPFR_RNDN);
        mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
        mpfr_add(zi, t, ci, MPFR_RNDN);
        mpfr_sub(zr, x2, y2, MPFR_RNDN);
        mpfr_add(zr, zr, cr, MPFR_RNDN);
    }
    mpfr_clears(cr, ci, s, t, zr, zi, x2, y2, (mpfr_ptr)0);
    return count;
}

// MARK: - The BLA table

/// The entry for one step at reference index m: z ← 2·Z_m·z + dc, valid while z² is
/// negligible beside 2·Z_m·z: |z| < ε·|2·Z_m| (kept as a bound on max(|re|, |im|)).
static deep_bla single_step(const double *orbit, uint64_t m, double epsilon) {
    deep_complex a = complex_make(2 * orbit[2 * m], 2 * orbit[2 * m + 1], 0);
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

int deep_build_table(deep_context *context, deep_real max_delta, double epsilon, int threads) {
    (void)threads;
    deep_free_table(context);
    uint64_t steps = context->length >= 1 ? context->length - 1 : 0;
    int k = 1;
    uint64_t size = steps / 2;
    while (size > 0 && k < 64) {
        deep_bla *level = malloc(size * sizeof(deep_bla));
        deep_bla_double *plain = malloc(size * sizeof(deep_bla_double));
        if (!level || !plain) {
            free(level);
            free(plain);
            deep_free_table(context);
            return -1;
        }
        for (uint64_t j = 0; j < size; j++) {
            if (k == 1) {
                uint64_t m = 1 + 2 * j;
                level[j] = merge(
                    single_step(context->orbit, m, epsilon), single_step(context->orbit, m + 1, epsilon), max_delta);
            } else {
                deep_bla *below = context->levels[k - 1];
                level[j] = merge(below[2 * j], below[2 * j + 1], max_delta);
            }
            plain[j] = plain_entry(level[j], context->extended);
        }
        context->levels[k] = level;
        context->levels_double[k] = plain;
        context->level_sizes[k] = size;
        context->level_count = k;
        k += 1;
        size /= 2;
    }
    return 0;
}

void deep_free_table(deep_context *context) {
    for (int k = 1; k <= context->level_count; k++) {
        free(context->levels[k]);
        free(context->levels_double[k]);
        context->levels[k] = NULL;
        context->levels_double[k] = NULL;
        context->level_sizes[k] = 0;
    }
    context->level_count = 0;
}

// MARK: - Pixels

/// The longest table entry that starts at reference index m (≥ 1), fits in `room` steps
/// and holds z (|z| bounded by `within`); its level, or 0.
#define FIND_LEVEL(context, m, room, within_test)                                                                     \
    ({                                                                                                               \
        int found = 0;                                                                                               \
        uint64_t q = (m) - 1;                                                                                        \
        int top = q ? __builtin_ctzll(q) : 63;                                                                       \
        if (top > (context)->level_count) top = (context)->level_count;                                              \
        for (int level = top; level >= 1; level--) {                                                                 \
            if ((UINT64_C(1) << level) > (room)) continue;                                                           \
            uint64_t j = q >> level;                                                                                 \
            if (j >= (context)->level_sizes[level]) continue;                                                        \
            if (within_test) {                                                                                       \
                found = level;                                                                                       \
                break;                                                                                               \
            }                                                                                                        \
        }                                                                                                            \
        found;                                                                                                       \
    })

/// One pixel: its count, and z where it escaped.
static uint64_t pixel(
    const deep_context *context, deep_complex dc, uint64_t limit, int use_table, double *escaped_re,
    double *escaped_im) {
    const double *orbit = context->orbit;
    const uint64_t end = context->length;
    use_table = use_table && context->level_count > 0;
    uint64_t n = 0, m = 0;
    double zr = 0, zi = 0;
    if (dc.e < PLAIN_EXPONENT) {
        // Extended: z = (re + i·im)·2^e while it is too small for a double.
        deep_complex z = {0, 0, ZERO_EXPONENT};
        for (;;) {
            if (n >= limit) return limit;
            if (use_table && m >= 1) {
                uint64_t room = end - m < limit - n ? end - m : limit - n;
                int level = FIND_LEVEL(
                    context, m, room, complex_within(z, context->levels[level][q >> level].r));
                if (level) {
                    const deep_bla *entry = &context->levels[level][(m - 1) >> level];
                    z = complex_add(complex_multiply(entry->a, z), complex_multiply(entry->b, dc));
                    m += UINT64_C(1) << level;
                    n += UINT64_C(1) << level;
                    if (z.e > PLAIN_EXPONENT) break;
                    continue;
                }
            }
            double Zr = orbit[2 * m], Zi = orbit[2 * m + 1];
            if (Zr * Zr + Zi * Zi > 4) {
                *escaped_re = Zr + scaled(z.re, z.e);
                *escaped_im = Zi + scaled(z.im, z.e);
                return n;
            }
            deep_complex twice = complex_make(2 * Zr, 2 * Zi, 0);
            z = complex_add(complex_add(complex_multiply(twice, z), complex_multiply(z, z)), dc);
            m += 1;
            n += 1;
            if (z.e > PLAIN_EXPONENT) break;
        }
        zr = scaled(z.re, z.e);
        zi = scaled(z.im, z.e);
    }
    // Plain doubles. dc may underflow to zero here, where it is negligible beside z.
    const double dcr = scaled(dc.re, dc.e), dci = scaled(dc.im, dc.e);
    for (;;) {
        if (n >= limit) return limit;
        if (use_table && m >= 1) {
            uint64_t room = end - m < limit - n ? end - m : limit - n;
            double largest = fmax(fabs(zr), fabs(zi));
            int level =
                FIND_LEVEL(context, m, room, largest < context->levels_double[level][q >> level].r);
            if (level) {
                const deep_bla_double *entry = &context->levels_double[level][(m - 1) >> level];
                double nr = entry->ar * zr - entry->ai * zi + entry->br * dcr - entry->bi * dci;
                double ni = entry->ar * zi + entry->ai * zr + entry->br * dci + entry->bi * dcr;
                zr = nr;
                zi = ni;
                m += UINT64_C(1) << level;
                n += UINT64_C(1) << level;
                continue;
            }
        }
        double Zr = orbit[2 * m], Zi = orbit[2 * m + 1];
        double fr = Zr + zr, fi = Zi + zi;
        double full = fr * fr + fi * fi;
        if (full > 4) {
            *escaped_re = fr;
            *escaped_im = fi;
            return n;
        }
        if (full < zr * zr + zi * zi || m == end) {
            // Rebase: continue from the orbit's start with the whole z as the delta.
            zr = fr;
            zi = fi;
            m = 0;
            Zr = 0;
            Zi = 0;
        }
        // z ← (2Z + z)·z + dc
        double ar = 2 * Zr + zr, ai = 2 * Zi + zi;
        double nr = ar * zr - ai * zi + dcr;
        zi = ar * zi + ai * zr + dci;
        zr = nr;
        m += 1;
        n += 1;
    }
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

uint64_t deep_count_row(
    const deep_context *context, const double *offsets_re, double offset_im, int count, uint64_t limit,
    int use_table, uint32_t *counts, float *smooth) {
    uint64_t total = 0;
    for (int i = 0; i < count; i++) {
        deep_complex dc = complex_scale(complex_make(offsets_re[i], offset_im, 0), context->inverse_zoom);
        double er = 0, ei = 0;
        uint64_t n = pixel(context, dc, limit, use_table, &er, &ei);
        counts[i] = (uint32_t)n;
        total += n;
        if (smooth) {
            smooth[i] = n >= limit ? (float)limit
                                   : smooth_value(n, er, ei, context->center_re + scaled(dc.re, dc.e),
                                         context->center_im + scaled(dc.im, dc.e));
        }
    }
    return total;
}
