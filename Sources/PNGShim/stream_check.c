#include "StreamCheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct mandel_stream_check {
    z_stream stream;
    uint64_t row_bytes;
    /// Where the next inflated byte falls in its row (0: it is a row's filter type).
    uint64_t into_row;
    int failed;
    uint8_t out[65536];
};

static int fail(mandel_stream_check *check, char *error, size_t capacity, const char *message) {
    check->failed = 1;
    if (capacity > 0) snprintf(error, capacity, "%s", message);
    return -1;
}

mandel_stream_check *mandel_stream_check_start(uint64_t row_bytes) {
    if (row_bytes == 0) return NULL;
    mandel_stream_check *check = calloc(1, sizeof *check);
    if (!check) return NULL;
    if (inflateInit(&check->stream) != Z_OK) {
        free(check);
        return NULL;
    }
    check->row_bytes = row_bytes;
    return check;
}

/// Checks the filter types among `count` inflated bytes and moves the row position on.
static int check_rows(mandel_stream_check *check, size_t count) {
    uint64_t first = check->into_row == 0 ? 0 : check->row_bytes - check->into_row;
    for (uint64_t at = first; at < count; at += check->row_bytes) {
        if (check->out[at] > 4) return -1;
    }
    check->into_row = (check->into_row + count) % check->row_bytes;
    return 0;
}

/// Inflates what is fed until zlib can go no further; returns zlib's last status, or -1 after a failure.
static int inflate_available(mandel_stream_check *check, uint64_t most_inflated, char *error, size_t capacity) {
    z_stream *stream = &check->stream;
    for (;;) {
        stream->next_out = check->out;
        stream->avail_out = sizeof check->out;
        int status = inflate(stream, Z_NO_FLUSH);
        size_t produced = sizeof check->out - stream->avail_out;
        if (status == Z_NEED_DICT) return fail(check, error, capacity, "the stream asks for a preset dictionary");
        if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
            char message[160];
            snprintf(message, sizeof message, "it does not inflate (%s)", stream->msg ? stream->msg : "zlib error");
            return fail(check, error, capacity, message);
        }
        if (stream->total_out > most_inflated) {
            return fail(check, error, capacity, "it inflates to more bytes than its rows hold");
        }
        if (check_rows(check, produced) != 0) {
            return fail(check, error, capacity, "a row's filter type is not one of 0 to 4");
        }
        // Done when zlib has taken every byte and had room to spare, or can do nothing more.
        if (status == Z_STREAM_END || status == Z_BUF_ERROR || (stream->avail_in == 0 && stream->avail_out > 0)) {
            return status;
        }
    }
}

int mandel_stream_check_feed(mandel_stream_check *check, const uint8_t *bytes, size_t size, uint64_t most_inflated,
                             char *error, size_t error_capacity) {
    if (check->failed) return fail(check, error, error_capacity, "the stream was already refused");
    z_stream *stream = &check->stream;
    for (size_t done = 0; done < size;) {
        uInt piece = size - done > 0x40000000 ? 0x40000000 : (uInt)(size - done);
        stream->next_in = (Bytef *)(bytes + done);
        stream->avail_in = piece;
        int status = inflate_available(check, most_inflated, error, error_capacity);
        if (status == -1) return -1;
        // The stream's end comes only after the Adler-32, which the join writes after the parts.
        if (status == Z_STREAM_END) {
            return fail(check, error, error_capacity, "its stream ends inside the image data, before its Adler-32");
        }
        if (stream->avail_in != 0) return fail(check, error, error_capacity, "zlib stopped inside the image data");
        done += piece;
    }
    return 0;
}

uint64_t mandel_stream_check_inflated(const mandel_stream_check *check) { return check->stream.total_out; }

uint32_t mandel_stream_check_adler(const mandel_stream_check *check) { return (uint32_t)check->stream.adler; }

int mandel_stream_check_finish(mandel_stream_check *check, uint32_t adler, char *error, size_t error_capacity) {
    if (check->failed) return fail(check, error, error_capacity, "the stream was already refused");
    uint8_t trailer[4] = {(uint8_t)(adler >> 24), (uint8_t)(adler >> 16), (uint8_t)(adler >> 8), (uint8_t)adler};
    z_stream *stream = &check->stream;
    stream->next_in = trailer;
    stream->avail_in = sizeof trailer;
    int status = inflate_available(check, check->stream.total_out, error, error_capacity);
    if (status == -1) return -1;
    if (status != Z_STREAM_END || stream->avail_in != 0) {
        return fail(check, error, error_capacity,
                    "its stream does not end with the last part (no final block, or the Adler-32 disagrees)");
    }
    return 0;
}

void mandel_stream_check_end(mandel_stream_check *check) {
    if (!check) return;
    inflateEnd(&check->stream);
    free(check);
}
