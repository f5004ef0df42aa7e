// One pixel of a deep view, as a perturbation of the reference orbit: its steps in Doubles or
// extended, its table entries, its rebases and the bound on its error, up to its count or up to a
// plain single step that rows.c takes in lanes beside other pixels.
#include "internal.h"

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

/// |z|² of a Double pair: one expression for the pixel loop and the lanes, so that both round alike.
static inline double plain_norm(double re, double im) { return re * re + im * im; }

/// One perturbation step in Doubles, z ← (2Z + z)·z + dc: one expression for the pixel loop and the lanes.
static inline void plain_step(double *zr, double *zi, double Zr, double Zi, double dcr, double dci) {
    double ar = 2 * Zr + *zr, ai = 2 * Zi + *zi;
    double nr = ar * *zr - ai * *zi + dcr;
    *zi = ar * *zi + ai * *zr + dci;
    *zr = nr;
}

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

void pixel_begin(const deep_context *context, pixel_state *state, double offset_re, double offset_im) {
    deep_complex dc = complex_scale(complex_make(offset_re, offset_im, 0), context->inverse_zoom);
    *state = (pixel_state){.dc = dc, .dcr = scaled(dc.re, dc.e), .dci = scaled(dc.im, dc.e),
        .scaled_dcr = scaled(dc.re, dc.e + context->quad_shift),
        .scaled_dci = scaled(dc.im, dc.e + context->quad_shift),
        .plain_start = dc.e > PLAIN_EXPONENT};
}

int pixel_run(const deep_context *context, pixel_state *state, uint64_t limit, int use_table, int may_pause) {
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
            state->untrusted |= error > DEEP_UNTRUSTED_ERROR;
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
            state->untrusted |= deep_escape_untrusted(full, error);
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
