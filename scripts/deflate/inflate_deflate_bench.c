// zlib against libdeflate on whole buffers, same inputs, same run: for each zlib stream given (a PNG's
// IDAT data), the median time to inflate it with zlib's uncompress() and with libdeflate_zlib_decompress(),
// then to deflate the inflated bytes at level 6 with compress2() and with libdeflate_zlib_compress().
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

enum { MAX_RUNS = 41 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *times, int count) {
    qsort(times, count, sizeof *times, ascending);
    return times[count / 2];
}

int main(int argc, char **argv) {
    struct libdeflate_decompressor *decompressor = libdeflate_alloc_decompressor();
    struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(6);
    for (int f = 1; f < argc; f++) {
        FILE *file = fopen(argv[f], "rb");
        if (!file) { perror(argv[f]); return 1; }
        fseek(file, 0, SEEK_END);
        long size = ftell(file);
        rewind(file);
        unsigned char *stream = malloc(size);
        if (fread(stream, 1, size, file) != (size_t)size) { perror(argv[f]); return 1; }
        fclose(file);

        uLongf rawSize = 1u << 30;
        unsigned char *raw = malloc(rawSize);
        if (uncompress(raw, &rawSize, stream, size) != Z_OK) { fprintf(stderr, "%s: not zlib\n", argv[f]); return 1; }
        uLong bound = compressBound(rawSize);
        unsigned char *packed = malloc(bound);
        // Fewer runs for the 70 MB image: its zlib deflate alone takes seconds.
        int runs = rawSize > 50000000 ? 3 : MAX_RUNS;
        double zInflate[MAX_RUNS], dInflate[MAX_RUNS], zDeflate[MAX_RUNS], dDeflate[MAX_RUNS];
        size_t zSize = 0, dSize = 0;
        for (int r = 0; r < runs; r++) {
            uLongf produced = rawSize;
            double start = now();
            uncompress(raw, &produced, stream, size);
            zInflate[r] = now() - start;

            size_t actual;
            start = now();
            libdeflate_zlib_decompress(decompressor, stream, size, raw, rawSize, &actual);
            dInflate[r] = now() - start;

            uLongf written = bound;
            start = now();
            compress2(packed, &written, raw, rawSize, 6);
            zDeflate[r] = now() - start;
            zSize = written;

            start = now();
            dSize = libdeflate_zlib_compress(compressor, raw, rawSize, packed, bound);
            dDeflate[r] = now() - start;
        }
        double zi = median(zInflate, runs), di = median(dInflate, runs);
        double zd = median(zDeflate, runs), dd = median(dDeflate, runs);
        printf("%s (%lu bytes raw): inflate zlib %.2f ms, libdeflate %.2f ms (%.2fx faster); "
               "deflate 6 zlib %.1f ms / %zu B, libdeflate %.1f ms / %zu B (%.2fx faster)\n",
               argv[f], (unsigned long)rawSize, zi * 1e3, di * 1e3, zi / di, zd * 1e3, zSize, dd * 1e3, dSize, zd / dd);
        free(stream);
        free(raw);
        free(packed);
    }
    libdeflate_free_compressor(compressor);
    libdeflate_free_decompressor(decompressor);
    return 0;
}
