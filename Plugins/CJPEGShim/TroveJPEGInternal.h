// What TroveJPEGShim.c and TroveJPEGProgressive.c share: libjpeg's error manager made to longjmp back to
// the shim, and the conversion of CMYK output rows. Not part of the module's public header.
#ifndef TROVE_JPEG_INTERNAL_H
#define TROVE_JPEG_INTERNAL_H

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>

// libjpeg's error manager, extended with where to jump back to and what went wrong.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    int hit_end_of_file;
    char message[JMSG_LENGTH_MAX];
} trove_error_manager;

/// Sets up `manager` so that libjpeg's fatal errors longjmp to `manager->escape` with the message kept,
/// and warnings are counted, not printed.
void trove_install_errors(trove_error_manager *manager);

/// Converts one row of libjpeg's CMYK output to RGBA8 (alpha 255); `inverted` for Adobe's inverted inks.
void trove_cmyk_to_rgba(const JSAMPLE *cmyk, unsigned char *rgba, JDIMENSION width, int inverted);

#endif
