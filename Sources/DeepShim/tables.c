// The two tables of approximations, bilinear (BLA) and quadratic, and the thread that builds them
// beside the reference orbit as its steps come.
#include "internal.h"

#include <stdlib.h>
#include <time.h>

/// orbit_exact while the orbit may still grow its tiny steps: under `lock` where it reads them.
static deep_complex orbit_exact_locked(const deep_context *context, uint64_t m, pthread_mutex_t *lock) {
    double zr = context->orbit[2 * m], zi = context->orbit[2 * m + 1];
    if (!lock || fabs(zr) >= TINY_BOUND || fabs(zi) >= TINY_BOUND) return orbit_exact(context, m);
    pthread_mutex_lock(lock);
    deep_complex z = orbit_exact(context, m);
    pthread_mutex_unlock(lock);
    return z;
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
        // Cancelled or too long, the table is given up as well.
        __atomic_store_n(&b.finished, length >= DEEP_ORBIT_TOO_LONG ? 2 : 1, __ATOMIC_RELEASE);
        pthread_join(thread, NULL);
        pthread_mutex_destroy(&b.tiny_lock);
    } else if (length < DEEP_ORBIT_TOO_LONG) {
        // No thread to build beside the orbit: built after it, as deep_build_table does.
        note_outcome(&b, build_available(&b, length, NULL));
    }
    if (b.cancelled) length = UINT64_MAX;
    if (length >= DEEP_ORBIT_TOO_LONG || b.failed || finish_table(&b) != 0) deep_free_table(context);
    return length;
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
