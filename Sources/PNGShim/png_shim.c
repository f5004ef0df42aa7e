#include "PNGShim.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <zlib.h>
#include <string.h>

struct mandel_png_writer {
    png_structp png;
    png_infop info;
    FILE *file;
    uint32_t height;
    uint32_t rows_written;
    char error[256];
};

static void copy_message(char *destination, size_t capacity, const char *message) {
    if (capacity == 0) return;
    snprintf(destination, capacity, "%s", message ? message : "unknown libpng error");
}

// libpng calls this on a fatal error; the error pointer is the writer or an error buffer.
static void record_error_and_jump(png_structp png, png_const_charp message) {
    char *buffer = (char *)png_get_error_ptr(png);
    if (buffer) copy_message(buffer, 256, message);
    png_longjmp(png, 1);
}

static void ignore_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

mandel_png_writer *mandel_png_writer_create(FILE *file, uint32_t width, uint32_t height, int channels,
                                            int bit_depth, mandel_png_compression compression,
                                            const mandel_png_text *texts, size_t text_count, char *error,
                                            size_t error_capacity) {
    if ((channels != 1 && channels != 3) || (bit_depth != 8 && !(bit_depth == 1 && channels == 1))) {
        copy_message(error, error_capacity, "a PNG pixel here has 1 or 3 channels");
        return NULL;
    }
    mandel_png_writer *writer = calloc(1, sizeof *writer);
    if (!writer) {
        copy_message(error, error_capacity, "out of memory");
        return NULL;
    }
    writer->file = file;
    writer->height = height;
    writer->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, writer->error, record_error_and_jump,
                                          ignore_warning);
    if (writer->png) writer->info = png_create_info_struct(writer->png);
    if (!writer->png || !writer->info) {
        copy_message(error, error_capacity, "libpng could not start a PNG (out of memory)");
        mandel_png_writer_destroy(writer);
        return NULL;
    }
    // volatile: assigned after setjmp and read after a longjmp back to it.
    png_textp volatile chunks = NULL;
    if (setjmp(png_jmpbuf(writer->png))) {
        copy_message(error, error_capacity, writer->error);
        free(chunks);
        mandel_png_writer_destroy(writer);
        return NULL;
    }
    png_init_io(writer->png, file);
    // libpng refuses sides over 1,000,000 unless told otherwise; the PNG format allows 2^31 - 1.
    png_set_user_limits(writer->png, 0x7fffffff, 0x7fffffff);
    switch (compression) {
    case MANDEL_PNG_FAST:
        png_set_filter(writer->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
        png_set_compression_strategy(writer->png, Z_RLE);
        break;
    case MANDEL_PNG_BALANCED:
        // Measured on mandel's pictures: Sub alone is 1.2-3.5x faster than libpng's
        // adaptive choice among all five filters and within 1% of its size
        // (smooth gradients suit Sub); the adaptive choice at level 9 was both
        // slower and larger than Sub at level 9.
        png_set_filter(writer->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
        png_set_compression_level(writer->png, 6);
        break;
    case MANDEL_PNG_SMALL:
        png_set_filter(writer->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
        png_set_compression_level(writer->png, 9);
        break;
    }
    png_set_IHDR(writer->png, writer->info, width, height, bit_depth,
                 channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (text_count > 0) {
        chunks = calloc(text_count, sizeof *chunks);
        if (!chunks) png_error(writer->png, "out of memory");
        for (size_t i = 0; i < text_count; i++) {
            chunks[i].compression = PNG_TEXT_COMPRESSION_NONE;
            chunks[i].key = (png_charp)texts[i].key;
            chunks[i].text = (png_charp)texts[i].text;
        }
        png_set_text(writer->png, writer->info, chunks, (int)text_count);
    }
    png_write_info(writer->png, writer->info);
    // A PNG's 0 is black; the rows given have 1 for black.
    if (bit_depth == 1) png_set_invert_mono(writer->png);
    free(chunks);
    return writer;
}

int mandel_png_writer_write_rows(mandel_png_writer *writer, const uint8_t *rows, size_t bytes_per_row,
                                 uint32_t row_count) {
    if (row_count > writer->height - writer->rows_written) {
        copy_message(writer->error, sizeof writer->error, "more rows than the image has");
        return -1;
    }
    if (setjmp(png_jmpbuf(writer->png))) return -1;
    for (uint32_t row = 0; row < row_count; row++) {
        png_write_row(writer->png, rows + (size_t)row * bytes_per_row);
    }
    writer->rows_written += row_count;
    return 0;
}

int mandel_png_writer_finish(mandel_png_writer *writer) {
    if (writer->rows_written != writer->height) {
        copy_message(writer->error, sizeof writer->error, "the image is missing rows");
        return -1;
    }
    if (setjmp(png_jmpbuf(writer->png))) return -1;
    png_write_end(writer->png, NULL);
    // libpng's default flush ignores errors; a full disk often shows only here.
    if (fflush(writer->file) != 0 || ferror(writer->file)) {
        copy_message(writer->error, sizeof writer->error, "write error (disk full?)");
        return -1;
    }
    return 0;
}

const char *mandel_png_writer_error(const mandel_png_writer *writer) { return writer->error; }

void mandel_png_writer_destroy(mandel_png_writer *writer) {
    if (!writer) return;
    if (writer->png) png_destroy_write_struct(&writer->png, writer->info ? &writer->info : NULL);
    free(writer);
}

int mandel_png_read(const char *path, mandel_png_image *image, char *error, size_t error_capacity) {
    memset(image, 0, sizeof *image);
    char message[256] = "";
    FILE *file = fopen(path, "rb");
    if (!file) {
        copy_message(error, error_capacity, "cannot open the file");
        return -1;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, message, record_error_and_jump, ignore_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        copy_message(error, error_capacity, "out of memory");
        if (png) png_destroy_read_struct(&png, NULL, NULL);
        fclose(file);
        return -1;
    }
    // volatile: assigned after setjmp and read after a longjmp back to it.
    png_bytepp volatile row_pointers = NULL;
    if (setjmp(png_jmpbuf(png))) {
        copy_message(error, error_capacity, message);
        free(row_pointers);
        mandel_png_image_free(image);
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        return -1;
    }
    png_init_io(png, file);
    png_read_info(png, info);
    image->width = png_get_image_width(png, info);
    image->height = png_get_image_height(png, info);
    image->bit_depth = png_get_bit_depth(png, info);
    image->color_type = png_get_color_type(png, info);
    if (image->bit_depth == 1 && image->color_type == PNG_COLOR_TYPE_GRAY) {
        // A bilevel picture is read as 8-bit gray: 0 black, 255 white.
        png_set_expand_gray_1_2_4_to_8(png);
        png_read_update_info(png, info);
    } else if (image->bit_depth != 8) {
        png_error(png, "only 8-bit and 1-bit gray PNGs are read here");
    }
    image->channels = png_get_channels(png, info);
    size_t stride = (size_t)image->width * (size_t)image->channels;
    image->pixels = malloc(stride * image->height);
    row_pointers = malloc(sizeof *row_pointers * image->height);
    if (!image->pixels || !row_pointers) png_error(png, "out of memory");
    for (uint32_t row = 0; row < image->height; row++) row_pointers[row] = image->pixels + row * stride;
    png_read_image(png, row_pointers);
    png_read_end(png, info);
    png_textp chunks = NULL;
    int count = png_get_text(png, info, &chunks, NULL);
    if (count > 0) {
        image->keys = calloc((size_t)count, sizeof(char *));
        image->texts = calloc((size_t)count, sizeof(char *));
        if (!image->keys || !image->texts) png_error(png, "out of memory");
        image->text_count = (size_t)count;
        for (int i = 0; i < count; i++) {
            image->keys[i] = strdup(chunks[i].key);
            image->texts[i] = strdup(chunks[i].text ? chunks[i].text : "");
        }
    }
    free(row_pointers);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(file);
    return 0;
}

void mandel_png_image_free(mandel_png_image *image) {
    free(image->pixels);
    for (size_t i = 0; i < image->text_count; i++) {
        if (image->keys) free(image->keys[i]);
        if (image->texts) free(image->texts[i]);
    }
    free(image->keys);
    free(image->texts);
    memset(image, 0, sizeof *image);
}
