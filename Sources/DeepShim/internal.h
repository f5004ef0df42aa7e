// What the files of DeepShim share among themselves beyond DeepShim.h: internal, beside the .c files
// (SwiftPM makes include/ the module that Swift imports). The file that offers each part is named
// in its section.
#ifndef DEEP_INTERNAL_H
#define DEEP_INTERNAL_H

#include "extended.h"

#include <mpfr.h>
#include <pthread.h>
#include <stdatomic.h>

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

// MARK: - orbit_pair.c: the orbit's step on two threads, where its numbers are long enough

/// The precision from which the orbit's step takes two threads (where the process may run on two
/// processors): below it, meeting once a step costs more than a multiplication saves.
#define DEEP_ORBIT_PAIR_BITS 1500

/// Each on a cache line of its own: the two threads write them in turn every step.
typedef struct {
    mpfr_t value;
} __attribute__((aligned(128))) padded_number;
typedef struct {
    _Atomic uint32_t count;
} __attribute__((aligned(128))) padded_count;
typedef struct {
    _Atomic int flag;
} __attribute__((aligned(128))) padded_flag;

/// Two threads' step: x[n & 1], y[n & 1] hold step n's Z (from x[0] = y[0] = 0).
typedef struct {
    padded_number x[2], y[2], sum, difference, product;
    mpfr_srcptr ci;
    /// Steps whose x the orbit's thread, and whose y the second thread, has computed (modulo 2^32).
    padded_count real_done, imaginary_done;
    /// Whether each thread sleeps on the other's count; whether the second thread is to end.
    padded_flag real_sleeping, imaginary_sleeping, quit;
    pthread_t thread;
} orbit_pair;

/// Starts the second thread where the orbit's precision (and `context->orbit_threads`) asks for
/// it: 0, or −1 to step on one thread (also where its memory or thread cannot be had).
int orbit_pair_start(orbit_pair *pair, const deep_context *context, long bits, mpfr_srcptr ci);

/// Step n → n + 1 on both threads; `*x` and `*y` are then step n + 1's Z, to read until the next step.
void orbit_pair_step(orbit_pair *pair, uint64_t n, mpfr_srcptr cr, mpfr_ptr *x, mpfr_ptr *y);

/// Ends the second thread and frees the pair's numbers.
void orbit_pair_stop(orbit_pair *pair);

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
    /// Whether the count may be wrong: the error bound passed UNTRUSTED_ERROR, or the escape was within it.
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
