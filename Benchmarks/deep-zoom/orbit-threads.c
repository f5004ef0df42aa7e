// Whether two threads pay for the reference orbit's two multiplications (issue 43): the orbit
// of z² + c in MPFR as orbit.c computes it, one thread doing x² − y² = (x + y)(x − y) and 2xy in
// turn, against two threads doing one multiplication each, meeting once a step.
//
//   orbit-threads RE IM BITS STEPS [ROUNDS]
//
// Prints, per round, microseconds a step both ways, each thread's own busy time in the second,
// and whether both orbits are the same Doubles (the same MPFR operations in the same order, so
// they must be). The two threads meet at a spin barrier on counters of their own cache lines;
// every number, and its limbs, lies on lines of its own, so what the second thread costs is the
// meeting and the numbers crossing between the processors' caches, not false sharing. Run it
// with real-time priority (chrt) on a shared machine: a spinning thread that is descheduled
// stalls the other for a whole time slice (under a load of 7 here, a step took 80 times longer).
#include <immintrin.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
    mpfr_t v;
} __attribute__((aligned(128))) padded_number;

typedef struct {
    _Atomic long steps;
} __attribute__((aligned(128))) padded_counter;

static padded_number cr, ci, xs[2], ys[2], sum, difference, product;
static padded_counter arrived[2];
static long steps_wanted;
static double busy[2];

/// A number of `bits` whose limbs lie on cache lines of their own.
static void init_padded(mpfr_ptr number, long bits) {
    size_t bytes = (mpfr_custom_get_size(bits) + 127) / 128 * 128;
    void *limbs = aligned_alloc(128, bytes);
    if (!limbs) abort();
    mpfr_custom_init(limbs, bits);
    mpfr_custom_init_set(number, MPFR_ZERO_KIND, 0, bits, limbs);
}

/// One thread: both multiplications in turn, as orbit.c does. Returns 0, or the step it escaped at.
static long one_thread(long bits, double *real) {
    mpfr_t x, y, a, b, t;
    mpfr_inits2(bits, x, y, a, b, t, (mpfr_ptr)0);
    mpfr_set_zero(x, 1);
    mpfr_set_zero(y, 1);
    long escaped = 0;
    for (long n = 0; n < steps_wanted; n++) {
        mpfr_add(a, x, y, MPFR_RNDN);
        mpfr_sub(b, x, y, MPFR_RNDN);
        mpfr_mul(t, x, y, MPFR_RNDN);
        mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
        mpfr_add(y, t, ci.v, MPFR_RNDN);
        mpfr_mul(x, a, b, MPFR_RNDN);
        mpfr_add(x, x, cr.v, MPFR_RNDN);
        real[n] = mpfr_get_d(x, MPFR_RNDN);
        double im = mpfr_get_d(y, MPFR_RNDN);
        if (!escaped && real[n] * real[n] + im * im > 4) escaped = n + 1;
    }
    mpfr_clears(x, y, a, b, t, (mpfr_ptr)0);
    return escaped;
}

static void wait_for(int other, long step) {
    while (atomic_load_explicit(&arrived[other].steps, memory_order_acquire) < step) _mm_pause();
}

/// The second thread: 2xy + ci into the next buffer, then the meeting.
static void *imaginary_part(void *unused) {
    (void)unused;
    busy[1] = 0;
    for (long n = 0; n < steps_wanted; n++) {
        int now_at = n & 1, next = now_at ^ 1;
        double start = now();
        mpfr_mul(product.v, xs[now_at].v, ys[now_at].v, MPFR_RNDN);
        mpfr_mul_2ui(product.v, product.v, 1, MPFR_RNDN);
        mpfr_add(ys[next].v, product.v, ci.v, MPFR_RNDN);
        busy[1] += now() - start;
        atomic_store_explicit(&arrived[1].steps, n + 1, memory_order_release);
        wait_for(0, n + 1);
    }
    return NULL;
}

/// Two threads: this one (x + y)(x − y) + cr, the other 2xy + ci, both reading this step's
/// buffers and writing the next's, meeting once a step.
static void two_threads(double *real) {
    mpfr_set_zero(xs[0].v, 1);
    mpfr_set_zero(ys[0].v, 1);
    atomic_store(&arrived[0].steps, 0);
    atomic_store(&arrived[1].steps, 0);
    pthread_t other;
    if (pthread_create(&other, NULL, imaginary_part, NULL) != 0) abort();
    busy[0] = 0;
    for (long n = 0; n < steps_wanted; n++) {
        int now_at = n & 1, next = now_at ^ 1;
        double start = now();
        mpfr_add(sum.v, xs[now_at].v, ys[now_at].v, MPFR_RNDN);
        mpfr_sub(difference.v, xs[now_at].v, ys[now_at].v, MPFR_RNDN);
        mpfr_mul(xs[next].v, sum.v, difference.v, MPFR_RNDN);
        mpfr_add(xs[next].v, xs[next].v, cr.v, MPFR_RNDN);
        real[n] = mpfr_get_d(xs[next].v, MPFR_RNDN);
        busy[0] += now() - start;
        atomic_store_explicit(&arrived[0].steps, n + 1, memory_order_release);
        wait_for(1, n + 1);
    }
    pthread_join(other, NULL);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: orbit-threads RE IM BITS STEPS [ROUNDS]\n");
        return 64;
    }
    long bits = atol(argv[3]);
    steps_wanted = atol(argv[4]);
    int rounds = argc > 5 ? atoi(argv[5]) : 3;
    if (bits < MPFR_PREC_MIN || steps_wanted < 1 || rounds < 1) return 64;
    mpfr_ptr numbers[] = {cr.v, ci.v, xs[0].v, xs[1].v, ys[0].v, ys[1].v, sum.v, difference.v, product.v};
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) init_padded(numbers[i], bits);
    mpfr_set_str(cr.v, argv[1], 10, MPFR_RNDN);
    mpfr_set_str(ci.v, argv[2], 10, MPFR_RNDN);
    double *alone = malloc(steps_wanted * sizeof(double)), *paired = malloc(steps_wanted * sizeof(double));
    if (!alone || !paired) return 71;
    for (int round = 0; round < rounds; round++) {
        double start = now();
        long escaped = one_thread(bits, alone);
        double middle = now();
        two_threads(paired);
        double end = now();
        double one = (middle - start) / steps_wanted * 1e6, two = (end - middle) / steps_wanted * 1e6;
        printf("bits %ld, %ld steps%s: one thread %.3f us a step, two threads %.3f (busy %.3f and %.3f), "
               "ratio %.2f, same orbit: %s\n",
               bits, steps_wanted, escaped ? " (the orbit escaped: later steps are on infinities)" : "", one, two,
               busy[0] / steps_wanted * 1e6, busy[1] / steps_wanted * 1e6, two / one,
               memcmp(alone, paired, steps_wanted * sizeof(double)) == 0 ? "yes" : "NO");
    }
    return 0;
}
