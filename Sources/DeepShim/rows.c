// A row of pixels (deep_count_row): four of them stepped together in vector lanes where each comes to a
// plain single step, their counts finished in MPFR where the Doubles cannot decide them, and their
// smooth values.
#include "internal.h"

#include <stdlib.h>

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
