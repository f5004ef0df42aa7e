#ifndef MANDEL_STREAM_CHECK_H
#define MANDEL_STREAM_CHECK_H

// Checks a PNG's zlib stream as it goes by, fed in pieces that end anywhere, without
// keeping what it inflates: that it inflates (zlib's own checks), to no more bytes than a
// limit, that every filtered row begins with a filter type from 0 to 4, and, once the
// Adler-32 that follows the stream is fed, that the stream ended there and its Adler-32 is
// the one fed. A join runs it over the parts' chunks so that a forged part whose CRCs
// were recomputed cannot make it write a PNG a checker rejects.

#include <stddef.h>
#include <stdint.h>

/// The state of one stream's check (opaque).
typedef struct mandel_stream_check mandel_stream_check;

/// Starts checking a stream of filtered rows of `row_bytes` each (the filter type byte and
/// the pixels' bytes). Returns NULL if memory ran out.
mandel_stream_check *mandel_stream_check_start(uint64_t row_bytes);

/// Inflates the next `size` bytes of the stream, refusing to inflate past `most_inflated`
/// bytes in all. Returns 0, or -1 with what is wrong in `error` (then the check is spent).
int mandel_stream_check_feed(mandel_stream_check *check, const uint8_t *bytes, size_t size, uint64_t most_inflated,
                             char *error, size_t error_capacity);

/// Bytes inflated so far.
uint64_t mandel_stream_check_inflated(const mandel_stream_check *check);

/// The Adler-32 of the bytes inflated so far.
uint32_t mandel_stream_check_adler(const mandel_stream_check *check);

/// Feeds the stream's Adler-32 (`adler`, big-endian as it follows the stream) and checks that
/// the stream ends exactly there. Returns 0, or -1 with what is wrong in `error`.
int mandel_stream_check_finish(mandel_stream_check *check, uint32_t adler, char *error, size_t error_capacity);

/// Frees the check.
void mandel_stream_check_end(mandel_stream_check *check);

#endif
