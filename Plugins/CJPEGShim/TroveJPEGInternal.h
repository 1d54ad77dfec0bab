// What the shim's C files share: libjpeg's error manager made to longjmp back to the shim, the one-shot
// decoder, and the conversion of CMYK output rows. Not part of the module's public header.
#ifndef TROVE_JPEG_INTERNAL_H
#define TROVE_JPEG_INTERNAL_H

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>

// libjpeg's error manager, extended with where to jump back to and what went wrong.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    // The data ran out (libjpeg then inserts an end marker), and whether a scan needed bits past it.
    int hit_end_of_file;
    int ran_out_of_data;
    char message[JMSG_LENGTH_MAX];
} trove_error_manager;

// A one-shot decoder over a whole file in memory (TroveJPEGShim.c; TroveJPEGPlanar.c reads it as planes).
struct trove_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    trove_error_manager errors;
    struct jpeg_progress_mgr progress;
    const unsigned char *data;
    size_t size;
    long max_memory;
    int max_scans;
    int created;
    int keep_cmyk;
    unsigned char *icc;
    size_t icc_size;
};

/// Sets up `manager` so that libjpeg's fatal errors longjmp to `manager->escape` with the message kept,
/// and warnings are counted, not printed.
void trove_install_errors(trove_error_manager *manager);

/// Whether image data is missing: the file ended where a scan still needed bits, or (progressive) before
/// its end marker, where later scans may be missing. A sequential file whose every row decoded and that
/// lacks only its end marker is whole, as libjpeg, browsers and libvips show it.
int trove_data_missing(const struct trove_jpeg_decoder *decoder);

/// Converts one row of libjpeg's CMYK output, Adobe's inverted inks, to RGBA8 (alpha 255).
void trove_cmyk_to_rgba(const JSAMPLE *cmyk, unsigned char *rgba, JDIMENSION width);

#endif
