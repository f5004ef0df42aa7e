#include "PNGShim.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <zlib.h>
#include <string.h>

static void copy_message(char *destination, size_t capacity, const char *message) {
    if (capacity == 0) return;
    snprintf(destination, capacity, "%s", message ? message : "unknown libpng error");
}

// libpng calls this on a fatal error; the error pointer is an error buffer.
static void record_error_and_jump(png_structp png, png_const_charp message) {
    char *buffer = (char *)png_get_error_ptr(png);
    if (buffer) copy_message(buffer, 256, message);
    png_longjmp(png, 1);
}

static void ignore_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
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
