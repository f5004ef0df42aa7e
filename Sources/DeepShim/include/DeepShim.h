// Deep zoom: the reference orbit and the oracle in MPFR, the pixels as perturbations of the
// orbit in doubles (or in an extended exponent where doubles underflow), with rebasing and a
// table of bilinear approximations (BLA), and beside it a table of quadratic ones for the steps
// where z² is not negligible. Written from the published descriptions of the technique (K. I.
// Martin's perturbation notes; Zhuoran's rebasing and BLA posts on fractalforums; mathr.co.uk's
// deep-zoom pages); the quadratic table is ours, its truncation bound derived here.
//
// The module's interface, in sections by the file of Sources/DeepShim that offers them; what those
// files share among themselves is in internal.h and extended.h beside them.
#ifndef DEEP_SHIM_H
#define DEEP_SHIM_H

#include <stddef.h>
#include <stdint.h>

// MARK: - The numbers, the tables' entries and a view's context (their arithmetic: extended.h)

/// A complex number with one binary exponent for both parts: (re + i·im)·2^e, with
/// max(|re|, |im|) in [0.5, 1), or re = im = 0 and e = DEEP_ZERO_EXPONENT.
typedef struct {
    double re, im;
    int64_t e;
} deep_complex;

/// A non-negative real m·2^e, m in [0.5, 1), or m = 0.
typedef struct {
    double m;
    int64_t e;
} deep_real;

/// One entry of a bilinear approximation: z after `length` steps is A·z + B·dc while |z| < R.
typedef struct {
    deep_complex a, b;
    deep_real r;
} deep_bla;

/// The same entry in plain doubles (R as a bound on max(|re|, |im|)), for deltas that a Double holds;
/// r = 0 where A or B does not fit.
typedef struct {
    double ar, ai, br, bi, r;
} deep_bla_double;

/// The shortest entries the quadratic table keeps: 2^4 steps.
#define DEEP_QUAD_LOWEST_LEVEL 4
/// One entry of the quadratic table: z after `length` steps is a·z + b·dc + p·z² + q·z·dc + r·dc²,
/// the terms of degree three and more dropped, while |z| < radius.
typedef struct {
    deep_complex a, b, p, q, r;
    deep_real radius;
} deep_quad;
/// The same entry in plain Doubles for deltas that a Double holds, with dc taken as dc' = dc·2^S
/// (S = quad_shift, so that dc' is about 1 at any depth): b and q scaled by 2^-S, r by 2^-2S; the
/// radius a bound on max(|re|, |im|), 0 where a coefficient does not fit.
typedef struct {
    double ar, ai, br, bi, pr, pi, qr, qi, rr, ri, radius, unused;
} deep_quad_double;
/// Everything the pixels of a deep view share, read-only once built.
typedef struct {
    /// Z_0 … Z_length of the reference orbit, re and im interleaved.
    double *orbit;
    /// The reference's last index: the step it escaped at, its period (see `period`), or the iteration limit.
    uint64_t length;
    /// Where the orbit looks for a period (set before it runs): the radius of the ball of points c around
    /// the reference that the view covers (its farthest sample); m = 0 for no look. The orbit stops at the
    /// first step n where the ball's image holds 0 to first order, |Z_n| < radius·|dZ_n/dc|: a nucleus of
    /// period n lies within about the radius (the ball method). Stopping there is exact at any n, for a
    /// pixel that reaches the orbit's end rebases onto its start, Z_0 = 0, with its whole value (pixels.c).
    deep_real period_radius;
    /// The period the orbit stopped at (its length), or 0 where it escaped or reached the limit.
    uint64_t period;
    /// The most steps the orbit may take without stopping (its memory's bound; 0 for the limit): past
    /// them it ends with DEEP_ORBIT_TOO_LONG.
    uint64_t most_steps;
    /// The steps whose Z is below 2^-960 in both parts, where a Double loses Z (0 past 2^-1074),
    /// increasing, with Z exactly enough (`tiny_count` of them, malloc'd by deep_reference_orbit).
    uint64_t tiny_count;
    uint64_t *tiny_index;
    deep_complex *tiny_value;
    /// The reference point as Doubles (for the smooth value's extra steps).
    double center_re, center_im;
    /// 1 / zoom: the factor from the zoom-1 pixel offsets of the sample grid to the deltas dc.
    deep_real inverse_zoom;
    /// Whether deltas need the extended exponent (the pixel step is below about 1e-290).
    int extended;
    /// BLA levels 1 … level_count: level k has level_sizes[k] entries of 2^k steps,
    /// entry j starting at reference index 1 + j·2^k. Nil when the table is not built.
    /// For m = 0 … length, entry_radii[m / 2]: for odd m the larger of the radii of the level-1 entry
    /// and of the lowest quadratic entry at m, which bound those of every entry starting at m, linear
    /// or quadratic; 0 where none starts.
    double *entry_radii;
    int level_count;
    uint64_t level_sizes[64];
    deep_bla *levels[64];
    deep_bla_double *levels_double[64];
    /// The quadratic table's levels DEEP_QUAD_LOWEST_LEVEL … quad_level_count (none below: their steps are
    /// too short to pay for a quadratic's arithmetic), laid out as the linear table's; quad_shift is S above.
    int quad_level_count;
    uint64_t quad_sizes[64];
    deep_quad_double *quad_levels[64];
    int64_t quad_shift;
    /// For m = 0 … length, four Doubles a step: Z_m and entry_radii's radius at m (0 where no
    /// entry starts), one load a step for the lanes and for a pixel stepped alone (deep_prepare_lanes);
    /// NULL until prepared, and then pixels are stepped apart, reading the orbit and entry_radii.
    double *lane_steps;
    /// The view in MPFR, for the pixels whose Double steps cannot be trusted (see deep_count_row);
    /// NULL to keep their Double counts. Owned by the caller (deep_exact_view_new).
    const struct deep_exact_view *exact;
} deep_context;

// MARK: - orbit.c: numbers read in MPFR, and the reference orbit

/// Whether `text` is a number MPFR reads in full (base 10).
int deep_is_number(const char *text);

/// 1 / zoom of a decimal string, computed with `bits` of precision; zero when the text is not a number.
deep_real deep_inverse_zoom(const char *zoom, long bits);

/// What deep_reference_orbit returns when the orbit passed `context->most_steps` without ending.
#define DEEP_ORBIT_TOO_LONG 0xFFFFFFFFFFFFFFFEULL

/// Computes the reference orbit of c = re + i·im (decimal strings) with `bits` of precision,
/// up to `limit` steps, escape (|Z|² > 4) or the period found (see `period_radius`), into
/// `context->orbit` (room for 2·(limit + 1) doubles, deep_orbit_reserve) and its tiny steps. Checks
/// `*cancel` every step, and stores the steps taken so far in `*steps` every 4,096 (when not NULL;
/// an atomic store, read with deep_steps_taken). Sets and returns `context->length` (and
/// `context->period`), or returns UINT64_MAX when cancelled or out of memory, DEEP_ORBIT_TOO_LONG
/// past `context->most_steps`.
uint64_t deep_reference_orbit(
    const char *re, const char *im, long bits, uint64_t limit, deep_context *context, const volatile int *cancel,
    uint64_t *steps);

/// Room for Z_0 … Z_limit (2·(limit + 1) doubles) as address space only: a page is taken when the orbit
/// first writes it, so an orbit that stops at its period holds only its steps (and a limit of 4·10^9,
/// 64 GiB, can be reserved where that much memory is not). NULL when it cannot be reserved. Release it
/// with deep_orbit_release, with the same limit.
double *deep_orbit_reserve(uint64_t limit);
void deep_orbit_release(double *orbit, uint64_t limit);

/// The steps deep_reference_orbit has stored in `*steps`: an atomic load, from any thread.
uint64_t deep_steps_taken(const uint64_t *steps);

/// Frees the table and the tiny steps of `context` (not its orbit, which the caller owns).
void deep_free_context(deep_context *context);

// MARK: - exact.c: single pixels counted in MPFR, every step (the exact count and the oracle)

/// A view's centre and zoom in MPFR with `bits` of precision (and 64 more), and the shorter side
/// of its sample grid, for counting single pixels exactly: NULL when out of memory or a text is
/// not a number. Free with deep_exact_view_free.
struct deep_exact_view *deep_exact_view_new(const char *re, const char *im, const char *zoom, long bits, long min_side);
void deep_exact_view_free(struct deep_exact_view *view);

/// The escape count of the sample at dc = (offset_re + i·offset_im) / zoom from the centre,
/// every step in MPFR (the view's bits and 64 more), and z where it escaped (as Doubles). An
/// offset of the grid is taken as the grid means it, (2k + 1 − side)·3 / (2·min_side), not as
/// its Double.
uint64_t deep_exact_pixel(
    const struct deep_exact_view *view, double offset_re, double offset_im, uint64_t limit, double *escaped_re,
    double *escaped_im);

/// The escape count of one pixel of the view, every step in MPFR with `bits` of precision:
/// pixel (x, y) of a width × height picture samples re = cx + (x + 0.5 − W/2)·s,
/// im = cy − (y + 0.5 − H/2)·s, s = 3 / (zoom · min(W, H)). The reference oracle of the tests.
uint64_t deep_oracle_pixel(
    const char *re, const char *im, const char *zoom, long width, long height, long x, long y, long bits,
    uint64_t limit);

// MARK: - tables.c: the tables of approximations, built after the orbit or beside it

/// Builds the BLA levels of `context` (its orbit set) and its quadratic levels for deltas up to
/// `max_delta` in modulus, with tolerance `epsilon`, after the orbit, on this thread, looking at
/// `*cancel` (when not NULL) every 4,096 steps. Returns 0; or -1 when memory runs out, -2 when
/// cancelled, and then no table.
int deep_build_table(deep_context *context, deep_real max_delta, double epsilon, const volatile int *cancel);

/// deep_reference_orbit with the table of deep_build_table (tolerance `epsilon`, deltas up to
/// `max_delta`; `context->extended` set before) built beside it on a thread of its own, entry for
/// entry as the orbit's steps come: what is left of the table when the orbit ends is the entries
/// of its last steps. Sets `*orbit_seconds` to the orbit's time. No table when cancelled or out of
/// memory (then level_count is 0); built after the orbit when no thread can be started.
uint64_t deep_reference_orbit_and_table(
    const char *re, const char *im, long bits, uint64_t limit, deep_context *context, const volatile int *cancel,
    uint64_t *steps, deep_real max_delta, double epsilon, double *orbit_seconds);

/// The entries that the table beside the orbit builds when the orbit has Z_0 … Z_frontier, built
/// into `context`'s levels (read none of the orbit past Z_frontier), their counts per level in
/// `level_sizes` (64 of them): for the tests that check so. Returns 0, or -1 when memory runs out.
int deep_build_table_prefix(
    deep_context *context, deep_real max_delta, double epsilon, uint64_t frontier, uint64_t *level_sizes);

/// Frees the table of `context` (and its lane steps, which hold the table's radii).
void deep_free_table(deep_context *context);

// MARK: - rows.c: the pixels, a row at a time, stepped together in lanes (a pixel's own steps: pixels.c)

/// Prepares `context->lane_steps` from its orbit and table, once both are done (again after the
/// table changes). Returns 0, or -1 when memory runs out (the pixels are then stepped apart).
int deep_prepare_lanes(deep_context *context);

/// Counts `count` samples of one row: sample i is at dc = (offsets_re[i] + i·offset_im) / zoom.
/// Writes counts (the limit for points that do not escape) and, when `smooth` is not NULL,
/// smooth values. Returns the useful iterations.
///
/// Each pixel carries a bound on the absolute error of its Double delta, grown as each step
/// amplifies it (by 2·|Z + z|) and adds its rounding. A pixel whose bound passes 2^-30, or
/// whose escape is within the bound of the bailout, may have the wrong count: with
/// `context->exact` set, it is counted again in MPFR (deep_exact_pixel) where that costs at most
/// 2^25 bits × steps. `untrusted` (when not NULL) counts them: [0] those counted again, [1] all.
uint64_t deep_count_row(
    const deep_context *context, const double *offsets_re, double offset_im, int count, uint64_t limit,
    int use_table, uint32_t *counts, float *smooth, uint64_t *untrusted);

/// deep_count_row with every pixel stepped on its own, none in lanes beside others: the same counts,
/// for the tests that check so.
uint64_t deep_count_row_apart(
    const deep_context *context, const double *offsets_re, double offset_im, int count, uint64_t limit,
    int use_table, uint32_t *counts, float *smooth, uint64_t *untrusted);

/// The error bound past which a pixel's Double orbit is not trusted at all, even where its
/// escape is clear of the bound: the orbit may have passed within the bound of the bailout
/// circle at an earlier step. With it every count was the MPFR loop's at the 28 views measured
/// (1–3% of the pixels counted again in MPFR); without it, 2 of 4,096 pixels were still wrong at
/// one view of seven (docs/deep-zoom.md, "Exact by default").
#define DEEP_UNTRUSTED_ERROR 0x1p-7

/// Whether a pixel that escapes with |Z + z|² = `full` (past 4) and `error`, the bound on its
/// delta's error, is untrusted, to be counted again in MPFR: its bound is past
/// DEEP_UNTRUSTED_ERROR, or its escape lies within twice its bound of the circle
/// (|Z + z| − 2 ≤ 2·bound), where the error could undo it. Here, not in pixels.c, so that the
/// tests can check the rule itself: no view measured had a pixel that only it catches.
static inline int deep_escape_untrusted(double full, double error) {
    return error > DEEP_UNTRUSTED_ERROR || __builtin_sqrt(full) - 2 <= 2 * error;
}

#endif
