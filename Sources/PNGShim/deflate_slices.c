#include "DeflateSlices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void set_message(char *destination, size_t capacity, const char *message) {
    if (capacity == 0) return;
    snprintf(destination, capacity, "%s", message ? message : "unknown zlib error");
}

/// One row with the Sub filter: its type byte (1), then each byte minus the byte one pixel to its left,
/// every byte first inverted when `invert` (a bilevel row, whose 1 is black, in a PNG, whose 0 is).
static void filter_sub(const uint8_t *row, size_t row_bytes, size_t bpp, int invert, uint8_t *out) {
    out[0] = 1;
    uint8_t flip = invert ? 0xFF : 0;
    size_t lead = bpp < row_bytes ? bpp : row_bytes;
    for (size_t i = 0; i < lead; i++) out[1 + i] = row[i] ^ flip;
    for (size_t i = bpp; i < row_bytes; i++) out[1 + i] = (uint8_t)((row[i] ^ flip) - (row[i - bpp] ^ flip));
}

/// The last `min(32 KiB, ...)` bytes of the filtered stream of `rows`, written to `tail`
/// (capacity MANDEL_DEFLATE_WINDOW); returns how many, or -1 if memory ran out.
static long filtered_tail(const uint8_t *rows, uint32_t row_count, size_t row_bytes, size_t bpp, int invert,
                          uint8_t *tail) {
    size_t stride = row_bytes + 1;
    // Rows needed to fill the window, at most the ones given.
    size_t needed = (MANDEL_DEFLATE_WINDOW + stride - 1) / stride;
    size_t count = needed < row_count ? needed : row_count;
    size_t from_rows = count * stride;
    size_t kept = from_rows >= MANDEL_DEFLATE_WINDOW ? MANDEL_DEFLATE_WINDOW : from_rows;
    uint8_t *scratch = malloc(stride);
    if (!scratch) return -1;
    size_t skip = from_rows - kept;  // bytes of the first filtered row that fall outside the window
    uint8_t *out = tail;
    for (size_t r = row_count - count; r < row_count; r++) {
        filter_sub(rows + r * row_bytes, row_bytes, bpp, invert, scratch);
        size_t offset = skip < stride ? skip : stride;
        memcpy(out, scratch + offset, stride - offset);
        out += stride - offset;
        skip -= offset;
    }
    free(scratch);
    return (long)kept;
}

int mandel_deflate_slice(const uint8_t *rows, uint32_t row_count, size_t row_bytes, size_t bpp, int invert,
                         uint32_t previous_count, mandel_deflate_settings settings, int finish,
                         mandel_deflated_slice *out, char *error, size_t error_capacity) {
    memset(out, 0, sizeof *out);
    size_t stride = row_bytes + 1;
    size_t filtered_size = stride * row_count;
    uint8_t *filtered = malloc(filtered_size ? filtered_size : 1);
    uint8_t window[MANDEL_DEFLATE_WINDOW];
    long window_size = 0;
    if (previous_count > 0) {
        window_size = filtered_tail(rows - (size_t)previous_count * row_bytes, previous_count, row_bytes, bpp, invert,
                                    window);
    }
    if (!filtered || window_size < 0) {
        free(filtered);
        set_message(error, error_capacity, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < row_count; r++) {
        filter_sub(rows + (size_t)r * row_bytes, row_bytes, bpp, invert, filtered + r * stride);
    }

    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // Raw deflate (negative window bits): the zlib header and trailer are written once, around every slice.
    if (deflateInit2(&stream, settings.level, Z_DEFLATED, -15, 8, settings.strategy) != Z_OK) {
        free(filtered);
        set_message(error, error_capacity, "zlib could not start (out of memory)");
        return -1;
    }
    // Run-length matching (the fast setting) looks one byte back and no further: the dictionary's last
    // byte gives the same stream as all 32 KiB of it, which zlib would hash for nothing (on a 256x256
    // tile's 16 slices of 16 rows that hashing took twice as long as compressing the rows).
    const uint8_t *dictionary = window;
    if (settings.strategy == Z_RLE && window_size > 1) {
        dictionary = window + window_size - 1;
        window_size = 1;
    }
    if (window_size > 0 && deflateSetDictionary(&stream, dictionary, (uInt)window_size) != Z_OK) {
        deflateEnd(&stream);
        free(filtered);
        set_message(error, error_capacity, "zlib refused the dictionary");
        return -1;
    }
    // deflateBound covers a finished stream; a sync flush adds at most a few bytes more.
    size_t capacity = deflateBound(&stream, (uLong)filtered_size) + 64;
    out->data = malloc(capacity);
    if (!out->data) {
        deflateEnd(&stream);
        free(filtered);
        set_message(error, error_capacity, "out of memory");
        return -1;
    }
    int flush_mode = finish ? Z_FINISH : Z_SYNC_FLUSH;
    // zlib counts in 32 bits: input and output go in pieces of at most CHUNK bytes.
    const size_t chunk = 0x40000000;
    size_t fed = 0;
    int failed = 0;
    for (;;) {
        size_t pending = filtered_size - fed;
        uInt piece = pending > chunk ? (uInt)chunk : (uInt)pending;
        int last = piece == pending;
        stream.next_in = filtered + fed;
        stream.avail_in = piece;
        for (;;) {
            size_t room = capacity - stream.total_out;
            if (room == 0) {
                failed = 1;
                break;
            }
            stream.next_out = out->data + stream.total_out;
            stream.avail_out = room > chunk ? (uInt)chunk : (uInt)room;
            int status = deflate(&stream, last ? flush_mode : Z_NO_FLUSH);
            if (status == Z_STREAM_ERROR) {
                failed = 1;
                break;
            }
            if (stream.avail_in > 0) continue;
            if (!last) break;
            // A flush is complete when deflate leaves output space unused; a finish when it says so.
            if (finish ? status == Z_STREAM_END : stream.avail_out > 0) break;
        }
        fed += piece;
        if (failed || last) break;
    }
    out->size = stream.total_out;
    deflateEnd(&stream);
    // adler32 takes 32-bit lengths too.
    uLong adler = adler32(0, NULL, 0);
    for (size_t done = 0; done < filtered_size;) {
        uInt piece = filtered_size - done > chunk ? (uInt)chunk : (uInt)(filtered_size - done);
        adler = adler32(adler, filtered + done, piece);
        done += piece;
    }
    out->adler = (uint32_t)adler;
    out->filtered_size = filtered_size;
    free(filtered);
    if (failed) {
        mandel_deflated_slice_free(out);
        set_message(error, error_capacity, "zlib could not compress a slice");
        return -1;
    }
    return 0;
}

void mandel_deflated_slice_free(mandel_deflated_slice *slice) {
    free(slice->data);
    slice->data = NULL;
    slice->size = 0;
}

uint32_t mandel_adler32_combine(uint32_t first, uint32_t second, size_t second_size) {
    return (uint32_t)adler32_combine(first, second, (z_off_t)second_size);
}

uint32_t mandel_crc32(uint32_t crc, const uint8_t *bytes, size_t size) {
    uLong value = crc;
    for (size_t done = 0; done < size;) {
        uInt piece = size - done > 0x40000000 ? 0x40000000 : (uInt)(size - done);
        value = crc32(value, bytes + done, piece);
        done += piece;
    }
    return (uint32_t)value;
}

int mandel_inflate_check(const uint8_t *stream_bytes, size_t size, uint64_t *inflated_size, char *error,
                         size_t error_capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) {
        set_message(error, error_capacity, "zlib could not start (out of memory)");
        return -1;
    }
    uint8_t out[65536];
    uint64_t total = 0;
    size_t fed = 0;
    int status = Z_OK;
    while (status == Z_OK) {
        if (stream.avail_in == 0) {
            size_t piece = size - fed > 0x40000000 ? 0x40000000 : size - fed;
            stream.next_in = (Bytef *)(stream_bytes + fed);
            stream.avail_in = (uInt)piece;
            fed += piece;
        }
        stream.next_out = out;
        stream.avail_out = sizeof out;
        status = inflate(&stream, Z_NO_FLUSH);
        total += sizeof out - stream.avail_out;
        if (status == Z_BUF_ERROR && stream.avail_in == 0 && fed == size) break;
    }
    int failed = status != Z_STREAM_END || stream.avail_in != 0 || fed != size;
    if (failed) {
        set_message(error, error_capacity, stream.msg ? stream.msg : "the stream ends early or goes on after its end");
    }
    inflateEnd(&stream);
    *inflated_size = total;
    return failed ? -1 : 0;
}
