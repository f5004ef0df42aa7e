#ifndef MANDEL_BIT_SHIM_H
#define MANDEL_BIT_SHIM_H

#include <stdint.h>

/// Sets the bits of `*byte` selected by `mask` to those of `bits`, leaving the others
/// as they are, atomically with respect to other threads updating the others: two
/// tiles side by side may share a byte of a bilevel row. Relaxed: the band's
/// completion orders the pixels for their reader.
static inline void mandel_update_bits(uint8_t *byte, uint8_t mask, uint8_t bits) {
    __atomic_fetch_and(byte, (uint8_t)(~mask | bits), __ATOMIC_RELAXED);
    __atomic_fetch_or(byte, (uint8_t)(mask & bits), __ATOMIC_RELAXED);
}

#endif
