#ifndef MANDEL_ATOMIC_SHIM_H
#define MANDEL_ATOMIC_SHIM_H

#include <stddef.h>
#include <stdint.h>

// Atomic operations on raw memory, which Swift's `Atomic` cannot address: it
// must own its storage. Everything is relaxed: the orders that matter come from
// the render's own hand-offs (a band's completion, a pass's completion).

/// Sets the bits of `*byte` selected by `mask` to those of `bits`, leaving the others
/// as they are, atomically with respect to other threads updating the others: two
/// tiles side by side may share a byte of a bilevel row.
static inline void mandel_update_bits(uint8_t *byte, uint8_t mask, uint8_t bits) {
    __atomic_fetch_and(byte, (uint8_t)(~mask | bits), __ATOMIC_RELAXED);
    __atomic_fetch_or(byte, (uint8_t)(mask & bits), __ATOMIC_RELAXED);
}

/// Adds one to `counts[bins[i]]` for each of the `count` bins, each an atomic increment:
/// many workers add to the same histogram at once.
static inline void mandel_increment_bins(uint64_t *counts, const uint32_t *bins, size_t count) {
    for (size_t i = 0; i < count; i++) {
        __atomic_fetch_add(&counts[bins[i]], 1, __ATOMIC_RELAXED);
    }
}

/// Copies `count` counters that other threads increment atomically, each read atomically.
static inline void mandel_load_counts(const uint64_t *counts, uint64_t *copy, size_t count) {
    for (size_t i = 0; i < count; i++) {
        copy[i] = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
    }
}

#endif
