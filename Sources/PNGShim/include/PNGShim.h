#ifndef MANDEL_PNG_SHIM_H
#define MANDEL_PNG_SHIM_H

// A small C layer over libpng. libpng reports errors with longjmp, which must
// never cross a Swift frame, so every call that can fail runs here, under a
// setjmp that this file owns, and reports failure as a return value.

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/// One tEXt chunk: a Latin-1 keyword (1-79 bytes) and its text.
typedef struct mandel_png_text {
    const char *key;
    const char *text;
} mandel_png_text;

/// A PNG being written row by row.
typedef struct mandel_png_writer mandel_png_writer;

/// How hard the encoder works: the trade between encoding time and file size.
typedef enum {
    /// The Sub filter on every row and zlib's run-length strategy: about 3x faster than balanced, 20-90% larger.
    MANDEL_PNG_FAST = 0,
    /// The Sub filter on every row, zlib level 6: as small as libpng's default here, and faster.
    MANDEL_PNG_BALANCED = 1,
    /// The Sub filter on every row, zlib level 9: 5-15% smaller than balanced, 4-6x slower.
    MANDEL_PNG_SMALL = 2,
} mandel_png_compression;

/// Starts a PNG on an open file and writes its header and text chunks: 8-bit
/// (channels 1 = gray, 3 = RGB), or 1-bit gray (bit_depth 1, channels 1) from rows
/// where a 1 bit is black, as in a PBM. Returns NULL on failure, with a message in
/// `error` (always NUL-terminated).
mandel_png_writer *mandel_png_writer_create(FILE *file, uint32_t width, uint32_t height, int channels,
                                            int bit_depth, mandel_png_compression compression, const mandel_png_text *texts,
                                            size_t text_count, char *error, size_t error_capacity);

/// Writes the next `row_count` rows, `bytes_per_row` apart in memory. Returns 0, or -1 on failure.
int mandel_png_writer_write_rows(mandel_png_writer *writer, const uint8_t *rows, size_t bytes_per_row,
                                 uint32_t row_count);

/// Writes the end of the image and flushes the file. Returns 0, or -1 on failure.
int mandel_png_writer_finish(mandel_png_writer *writer);

/// The message of the last failure.
const char *mandel_png_writer_error(const mandel_png_writer *writer);

/// Frees the writer; does not close the file.
void mandel_png_writer_destroy(mandel_png_writer *writer);

/// A PNG read back into memory: 8-bit samples, rows top to bottom, plus its text chunks.
typedef struct mandel_png_image {
    uint32_t width;
    uint32_t height;
    int channels;
    int bit_depth;
    int color_type;
    uint8_t *pixels;
    size_t text_count;
    char **keys;
    char **texts;
} mandel_png_image;

/// Reads a PNG file. Returns 0, or -1 with a message in `error`.
int mandel_png_read(const char *path, mandel_png_image *image, char *error, size_t error_capacity);

/// Frees what mandel_png_read allocated.
void mandel_png_image_free(mandel_png_image *image);

#endif
