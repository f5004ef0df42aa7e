#ifndef MANDEL_PNG_SHIM_H
#define MANDEL_PNG_SHIM_H

// A small C layer over libpng, for reading PNGs back, and over zlib, for writing them
// (DeflateSlices.h). libpng reports errors with longjmp, which must never cross a
// Swift frame, so every libpng call that can fail runs here, under a setjmp that this
// file owns, and reports failure as a return value.

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "DeflateSlices.h"
#include "StreamCheck.h"

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
