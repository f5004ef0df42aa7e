// The reference orbit's step on two threads, where its numbers are long enough for that to pay:
// the orbit's thread computes (x + y)(x − y) + cr, a second thread 2xy + ci, both from step n's x
// and y into step n + 1's, and they meet once a step. The same MPFR operations in the same order
// on the same numbers as one thread's step, so the same orbit, bit for bit.
//
// Measured (Benchmarks/deep-zoom/orbit-threads, this 2-core AMD EPYC, 2026-11-28): a meeting
// costs about 0.35 µs, and each step's numbers cross between the processors' caches, so two
// threads lose below about 1,500 bits (1.6× slower at 240, 1.1× at 830) and win above it (0.81 of
// one thread's time at 1,847 bits, 0.64 at 3,682, 0.52 at 25,000).
#define _GNU_SOURCE
#include "internal.h"

#include <immintrin.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Spins before sleeping: a meeting is due within a step (under a microsecond at 1,500 bits, about
/// 10 µs at 12,000), but a thread that spins while the other waits for a processor stalls both.
#define SPINS 4096

static void futex_wait(_Atomic uint32_t *word, uint32_t seen) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/// Whether `count` (steps, modulo 2^32) has reached `target`.
static int reached(uint32_t count, uint32_t target) { return (int32_t)(count - target) >= 0; }

/// Waits until `*count` reaches `target` or `*quit` is set: spinning first, then asleep on the
/// futex, with `*sleeping` set so that the other thread wakes it.
static void await_count(_Atomic uint32_t *count, uint32_t target, _Atomic int *sleeping, const _Atomic int *quit) {
    for (int spin = 0; spin < SPINS; spin++) {
        if (reached(atomic_load_explicit(count, memory_order_acquire), target)) return;
        _mm_pause();
    }
    atomic_store(sleeping, 1);
    for (;;) {
        uint32_t seen = atomic_load(count);
        if (reached(seen, target) || (quit && atomic_load(quit))) break;
        futex_wait(count, seen);
    }
    atomic_store(sleeping, 0);
}

/// Sets `*count` and wakes the other thread if it sleeps on it.
static void publish(_Atomic uint32_t *count, uint32_t value, _Atomic int *sleeping) {
    atomic_store(count, value);
    if (atomic_load(sleeping)) futex_wake(count);
}

/// The second thread: step n's 2xy + ci into y[(n + 1) & 1], once step n's x is there.
static void *imaginary_steps(void *argument) {
    orbit_pair *pair = argument;
    mpfr_ptr product = pair->product.value;
    for (uint32_t n = 0;; n++) {
        await_count(&pair->real_done.count, n, &pair->imaginary_sleeping.flag, &pair->quit.flag);
        if (atomic_load(&pair->quit.flag)) return NULL;
        int now = n & 1, next = now ^ 1;
        mpfr_mul(product, pair->x[now].value, pair->y[now].value, MPFR_RNDN);
        mpfr_mul_2ui(product, product, 1, MPFR_RNDN);
        mpfr_add(pair->y[next].value, product, pair->ci, MPFR_RNDN);
        publish(&pair->imaginary_done.count, n + 1, &pair->real_sleeping.flag);
    }
}

/// Whether an orbit of `bits` takes two threads: `context->orbit_threads` where set (1 or 2), else
/// from DEEP_ORBIT_PAIR_BITS on, where this process may run on two processors or more.
static int wants_pair(const deep_context *context, long bits) {
    if (context->orbit_threads == 1 || context->orbit_threads == 2) return context->orbit_threads == 2;
    if (bits < DEEP_ORBIT_PAIR_BITS) return 0;
    cpu_set_t allowed;
    return sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) >= 2;
}

/// A number of `bits` whose limbs lie on cache lines of their own (freed by free_number).
static int init_number(mpfr_ptr number, long bits) {
    size_t bytes = (mpfr_custom_get_size(bits) + 127) / 128 * 128;
    void *limbs = aligned_alloc(128, bytes);
    if (!limbs) return -1;
    mpfr_custom_init(limbs, bits);
    mpfr_custom_init_set(number, MPFR_ZERO_KIND, 1, bits, limbs);
    return 0;
}

static void free_number(mpfr_ptr number) { free(mpfr_custom_get_significand(number)); }

/// The pair's numbers, as an array to allocate and free them together.
static void numbers(orbit_pair *pair, mpfr_ptr all[7]) {
    mpfr_ptr each[7] = {pair->x[0].value, pair->x[1].value, pair->y[0].value, pair->y[1].value, pair->sum.value,
        pair->difference.value, pair->product.value};
    for (int i = 0; i < 7; i++) all[i] = each[i];
}

int orbit_pair_start(orbit_pair *pair, const deep_context *context, long bits, mpfr_srcptr ci) {
    if (!wants_pair(context, bits)) return -1;
    mpfr_ptr all[7];
    numbers(pair, all);
    for (int i = 0; i < 7; i++) {
        if (init_number(all[i], bits) != 0) {
            while (i-- > 0) free_number(all[i]);
            return -1;
        }
    }
    pair->ci = ci;
    atomic_init(&pair->real_done.count, 0);
    atomic_init(&pair->imaginary_done.count, 0);
    atomic_init(&pair->real_sleeping.flag, 0);
    atomic_init(&pair->imaginary_sleeping.flag, 0);
    atomic_init(&pair->quit.flag, 0);
    if (pthread_create(&pair->thread, NULL, imaginary_steps, pair) != 0) {
        for (int i = 0; i < 7; i++) free_number(all[i]);
        return -1;
    }
    return 0;
}

void orbit_pair_step(orbit_pair *pair, uint64_t n, mpfr_srcptr cr, mpfr_ptr *x, mpfr_ptr *y) {
    int now = n & 1, next = now ^ 1;
    mpfr_ptr sum = pair->sum.value, difference = pair->difference.value, real = pair->x[next].value;
    mpfr_add(sum, pair->x[now].value, pair->y[now].value, MPFR_RNDN);
    mpfr_sub(difference, pair->x[now].value, pair->y[now].value, MPFR_RNDN);
    mpfr_mul(real, sum, difference, MPFR_RNDN);
    mpfr_add(real, real, cr, MPFR_RNDN);
    // Step n + 1's x is there, and step n's x and y are read here: the second thread may go on to
    // step n + 1 (it reads the same x and y, and writes the y of step n, which nothing reads now).
    publish(&pair->real_done.count, (uint32_t)(n + 1), &pair->imaginary_sleeping.flag);
    await_count(&pair->imaginary_done.count, (uint32_t)(n + 1), &pair->real_sleeping.flag, NULL);
    *x = real;
    *y = pair->y[next].value;
}

void orbit_pair_stop(orbit_pair *pair) {
    atomic_store(&pair->quit.flag, 1);
    futex_wake(&pair->real_done.count);
    pthread_join(pair->thread, NULL);
    mpfr_ptr all[7];
    numbers(pair, all);
    for (int i = 0; i < 7; i++) free_number(all[i]);
}
