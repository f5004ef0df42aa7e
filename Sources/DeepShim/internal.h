// What the files of DeepShim share among themselves beyond DeepShim.h: internal, beside the .c files
// (SwiftPM makes include/ the module that Swift imports). The file that offers each part is named
// in its section.
#ifndef DEEP_INTERNAL_H
#define DEEP_INTERNAL_H

#include "extended.h"

#include <mpfr.h>
#include <pthread.h>

// MARK: - tables.c: the table built beside the orbit, whose frontier and lock the orbit's loop keeps

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

// MARK: - orbit.c: the reference orbit as the table beside it sees it, and its steps exactly

/// Where a Double no longer holds a step of the orbit with full precision (both parts below this).
#define TINY_BOUND 0x1p-960
#define TINY_EXPONENT (-960)

/// deep_reference_orbit, publishing its frontier to `beside` (when not NULL) every 1,024 steps.
uint64_t reference_orbit(
    const char *re, const char *im, long bits, uint64_t limit, deep_context *context, const volatile int *cancel,
    uint64_t *steps, table_builder *beside);

/// Z_m with its full precision: the Double of the orbit, or the tiny step's exact value.
deep_complex orbit_exact(const deep_context *context, uint64_t m);

// MARK: - exact.c: a view in MPFR (rows.c reads its precision, to decide which pixels it can afford)

struct deep_exact_view {
    mpfr_t re, im, zoom;
    long bits;
    /// The sample grid's shorter side: its zoom-1 offsets are (2k + 1 − side)·3 / (2·min_side), as Doubles.
    long min_side;
};

// MARK: - pixels.c: one pixel under way, which rows.c steps in lanes beside others

/// A delta below 2^-500 in modulus (its squared modulus below PLAIN_NORM) is kept extended: its
/// square would lose precision in a Double (or vanish past 2^-1074), and so would the rebasing
/// test that compares squares. An extended delta goes back to Doubles above 2^-480
/// (PLAIN_EXPONENT, a margin so that a delta does not switch at every step).
#define PLAIN_NORM 0x1p-1000
#define PLAIN_EXPONENT (-480)

/// A generous bound on one step's rounding, relative to the magnitudes of its terms (8 ulps).
#define STEP_ROUNDING 0x1p-50

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
    /// Whether the count may be wrong: the error bound passed DEEP_UNTRUSTED_ERROR, or the escape was
    /// within twice it of the circle (deep_escape_untrusted).
    int untrusted;
    /// z where the orbit escaped.
    double escaped_re, escaped_im;
} pixel_state;

/// A pixel at this zoom-1 offset from the centre, before its first step.
void pixel_begin(const deep_context *context, pixel_state *state, double offset_re, double offset_im);

/// Runs one pixel until its count is known (returns 1, the count in `state->n`), or, when
/// `may_pause`, until it is about to take a plain single step, with no table entry possible, after
/// at least one step of its own (returns 0): steps that `lanes_step` takes for several pixels at once.
/// z is a Double pair while |z| ≥ 2^-500, extended below; it switches both ways, for a pixel's
/// orbit passes close to 0 (and its delta shrinks) wherever the reference's does.
int pixel_run(const deep_context *context, pixel_state *state, uint64_t limit, int use_table, int may_pause);

#endif
