/* The library's share of serve-bench's transform, alone: libjpeg-turbo decodes the source at the
 * smallest M/8 scale that still covers the output (as trove's shrink-on-load does) and encodes an
 * output-sized JPEG from the decoded pixels, with no resize, no HTTP and no other work. Prints the seconds
 * REPEATS rounds took on one thread: the most any server on this library could do per core.
 *
 *   jpeg-floor SOURCE.jpg REPEATS WIDTH HEIGHT QUALITY
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <jpeglib.h>

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: jpeg-floor SOURCE.jpg REPEATS WIDTH HEIGHT QUALITY\n");
        return 2;
    }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 1; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *source = malloc((size_t)size);
    if (!source || fread(source, 1, (size_t)size, file) != (size_t)size) { perror("read"); return 1; }
    fclose(file);
    int repeats = atoi(argv[2]), width = atoi(argv[3]), height = atoi(argv[4]), quality = atoi(argv[5]);
    unsigned char *pixels = NULL;

    double start = seconds_now();
    for (int round = 0; round < repeats; round++) {
        struct jpeg_decompress_struct in;
        struct jpeg_error_mgr in_errors;
        in.err = jpeg_std_error(&in_errors);
        jpeg_create_decompress(&in);
        jpeg_mem_src(&in, source, (unsigned long)size);
        jpeg_read_header(&in, TRUE);
        in.out_color_space = JCS_EXT_RGBA;
        in.scale_denom = 8;
        for (in.scale_num = 1; in.scale_num < 8; in.scale_num++) {
            jpeg_calc_output_dimensions(&in);
            if ((int)in.output_width >= width && (int)in.output_height >= height) break;
        }
        jpeg_start_decompress(&in);
        size_t row_bytes = (size_t)in.output_width * 4;
        if (!pixels) pixels = malloc(row_bytes * in.output_height);
        while (in.output_scanline < in.output_height) {
            JSAMPROW row = pixels + row_bytes * in.output_scanline;
            jpeg_read_scanlines(&in, &row, 1);
        }
        jpeg_finish_decompress(&in);
        jpeg_destroy_decompress(&in);

        struct jpeg_compress_struct out;
        struct jpeg_error_mgr out_errors;
        unsigned char *encoded = NULL;
        unsigned long encoded_size = 0;
        out.err = jpeg_std_error(&out_errors);
        jpeg_create_compress(&out);
        jpeg_mem_dest(&out, &encoded, &encoded_size);
        out.image_width = (JDIMENSION)width;
        out.image_height = (JDIMENSION)height;
        out.input_components = 4;
        out.in_color_space = JCS_EXT_RGBA;
        jpeg_set_defaults(&out);
        jpeg_set_quality(&out, quality, TRUE);
        jpeg_start_compress(&out, TRUE);
        while (out.next_scanline < out.image_height) {
            JSAMPROW row = pixels + row_bytes * out.next_scanline;
            jpeg_write_scanlines(&out, &row, 1);
        }
        jpeg_finish_compress(&out);
        jpeg_destroy_compress(&out);
        free(encoded);
    }
    printf("%f\n", seconds_now() - start);
    free(pixels);
    free(source);
    return 0;
}
