#ifndef MANDEL_DEFLATE_SLICES_H
#define MANDEL_DEFLATE_SLICES_H

// PNG image data compressed in slices that can run in parallel, the way pigz does:
// each slice of rows is Sub-filtered and deflated on its own, with the 32 KiB of
// filtered data before it as the dictionary, and ends with a sync flush (the last
// with a finish), so that the raw deflate pieces, concatenated in order, are one
// deflate stream. The zlib header goes before the first piece and the Adler-32 of
// all the filtered data, joined from the slices' with adler32_combine, after the
// last. zlib does the compressing; nothing here longjmps.

#include <stddef.h>
#include <stdint.h>

/// The most dictionary a deflate stream can use: its window.
#define MANDEL_DEFLATE_WINDOW 32768

/// zlib's settings for each of mandel's compression choices.
typedef struct mandel_deflate_settings {
    int level;
    int strategy;
} mandel_deflate_settings;

/// One slice, compressed.
typedef struct mandel_deflated_slice {
    /// The raw deflate piece (malloc'ed; free with mandel_deflated_slice_free).
    uint8_t *data;
    size_t size;
    /// The Adler-32 of the slice's filtered bytes, and how many there were.
    uint32_t adler;
    size_t filtered_size;
} mandel_deflated_slice;

/// Filters `row_count` rows (`row_bytes` each, `bytes_per_pixel` apart for the Sub filter,
/// every byte inverted first when `invert`) and deflates them as one slice of the stream.
/// The dictionary is the filtered tail (at most 32 KiB) of the `previous_count` rows just
/// before `rows` in memory. `finish` ends the deflate stream. Returns 0, or -1 with a
/// message in `error`.
int mandel_deflate_slice(const uint8_t *rows, uint32_t row_count, size_t row_bytes, size_t bytes_per_pixel,
                         int invert, uint32_t previous_count, mandel_deflate_settings settings, int finish,
                         mandel_deflated_slice *out, char *error, size_t error_capacity);

/// Frees a slice's data.
void mandel_deflated_slice_free(mandel_deflated_slice *slice);

/// The Adler-32 of two pieces joined, from each piece's and the second's length.
uint32_t mandel_adler32_combine(uint32_t first, uint32_t second, size_t second_size);

/// Continues a CRC-32 (start from 0) over `size` bytes.
uint32_t mandel_crc32(uint32_t crc, const uint8_t *bytes, size_t size);

/// Inflates a whole zlib stream, checking it to its Adler-32 and that nothing follows.
/// Returns 0 with the inflated size, or -1 with zlib's message in `error`.
int mandel_inflate_check(const uint8_t *stream, size_t size, uint64_t *inflated_size, char *error,
                         size_t error_capacity);

#endif
