// What the shim's C files share: libjpeg's error manager made to longjmp back to the shim, the data source
// for a body that arrives in pieces, the decoder, and the conversion of CMYK output rows. Not part of the
// module's public header.
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

// A data source over the body so far, or what is left of it once its start is forgotten
// (TroveJPEGSuspendingSource.c).
typedef struct {
    struct jpeg_source_mgr base;
    const unsigned char *data;
    size_t size;
    /// Where libjpeg resumes, as an offset into the body (pointers into the last call's data go stale).
    size_t offset;
    /// Bytes skip_input_data was asked to skip beyond what had arrived.
    size_t pending_skip;
    /// The body has ended: running out of data inserts an end marker instead of suspending.
    int complete;
    /// libjpeg is reading the inserted end marker.
    int past_end;
} trove_suspending_source;

/// Makes `source` (zeroed, or already attached) the decompressor's data source.
void trove_source_install(j_decompress_ptr cinfo, trove_suspending_source *source);
/// Points the source at the body so far (`size` bytes, which include every byte of the last attach's but
/// those trove_source_forget_consumed let go), resuming where libjpeg left off. `complete` says no more bytes
/// will come.
void trove_source_attach(trove_suspending_source *source, const unsigned char *data, size_t size, int complete);
/// Remembers where libjpeg stopped, before the caller's data may move.
void trove_source_detach(trove_suspending_source *source);
/// After a detach: how many bytes libjpeg has read for good; the next attach's data starts after them.
size_t trove_source_forget_consumed(trove_suspending_source *source);

// A decoder over a whole file in memory, or over a body fed as it arrives (`streaming`). TroveJPEGShim.c reads
// its header and decodes RGBA; TroveJPEGPlanar.c reads it as planes.
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
    /// Fed through `source` (trove_jpeg_decoder_attach): libjpeg suspends where the body so far ends.
    int streaming;
    trove_suspending_source source;
    /// The planar decode's iMCU row buffers (libjpeg's pool), kept across calls that suspend.
    JSAMPARRAY plane_rows[3];
};

/// Whether the last libjpeg call stopped because a streaming decoder's body so far ran out.
int trove_decoder_suspended(const struct trove_jpeg_decoder *decoder);

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
