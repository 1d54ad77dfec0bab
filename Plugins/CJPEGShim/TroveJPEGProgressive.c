// Incremental decoding for previews: libjpeg's buffered-image mode over a suspending data source for a
// file of several scans, a plain output pass read row by row as data arrives for a file of one. Each call
// points the source (TroveJPEGSuspendingSource.c) at the caller's bytes so far; the body is never complete
// for it, so running out of data always suspends.
#include "TroveJPEGShim.h"
#include "TroveJPEGInternal.h"

#include <stdlib.h>
#include <string.h>
#include <jerror.h>


enum trove_progressive_state { reading_header, header_read, decoding, failed };

struct trove_jpeg_progressive {
    struct jpeg_decompress_struct cinfo;
    trove_error_manager errors;
    trove_suspending_source source;
    long max_memory;
    int max_scans;
    int created;
    enum trove_progressive_state state;
    int completed_scans;
    /// One scan (baseline or sequential): shown as its rows so far, not scan by scan.
    int sequential;
    int cmyk;
    /// One CMYK output row, from libjpeg's image pool (freed with the decoder, so a longjmp cannot leak it).
    JSAMPARRAY cmyk_row;
    /// The last output pass ended before the next scan's start had arrived; it is finished before the next.
    int finish_pending;
};

trove_jpeg_progressive *trove_jpeg_progressive_create(long max_memory, int max_scans) {
    trove_jpeg_progressive *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->max_memory = max_memory;
    decoder->max_scans = max_scans;
    decoder->state = reading_header;
    return decoder;
}

static void trove_fill_header(trove_jpeg_progressive *decoder, trove_jpeg_header *header) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    memset(header, 0, sizeof *header);
    header->width = (int)cinfo->image_width;
    header->height = (int)cinfo->image_height;
    header->components = cinfo->num_components;
    header->color_space = cinfo->jpeg_color_space;
    header->progressive = cinfo->progressive_mode ? 1 : 0;
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 6 && memcmp(marker->data, "Exif\0\0", 6) == 0) {
            header->exif = marker->data + 6;
            header->exif_length = marker->data_length - 6;
            break;
        }
    }
}

// Runs until the data runs out (or the image ends), counting completed scans. Longjmps on errors.
static void trove_absorb(trove_jpeg_progressive *decoder) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (decoder->state == header_read) {
        decoder->sequential = !jpeg_has_multiple_scans(cinfo);
        cinfo->buffered_image = decoder->sequential ? FALSE : TRUE;
        decoder->cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
        cinfo->out_color_space = decoder->cmyk ? JCS_CMYK : JCS_EXT_RGBA;
        if (!jpeg_start_decompress(cinfo)) return;
        decoder->state = decoding;
    }
    if (decoder->sequential) return;  // its rows are read as they come, by trove_jpeg_progressive_read_rows
    for (;;) {
        int status = jpeg_consume_input(cinfo);
        if (cinfo->input_scan_number > decoder->max_scans) {
            snprintf(decoder->errors.message, sizeof decoder->errors.message,
                     "the file has more than %d progressive scans", decoder->max_scans);
            longjmp(decoder->errors.escape, 2);
        }
        if (status == JPEG_SCAN_COMPLETED) decoder->completed_scans++;
        if (status == JPEG_SUSPENDED || status == JPEG_REACHED_EOI) return;
    }
}

// The scans an output pass can show without waiting for input. A complete scan counts once the next one
// has begun (or the image has ended): block smoothing of a DC scan looks two block rows ahead, so an
// output pass of the scan being read waits for input until the next scan starts.
static int trove_showable_scans(trove_jpeg_progressive *decoder) {
    if (decoder->state != decoding || decoder->sequential) return 0;
    int complete = decoder->completed_scans;
    if (jpeg_input_complete(&decoder->cinfo) || decoder->cinfo.input_scan_number > complete) return complete;
    return complete - 1;
}

int trove_jpeg_progressive_consume(trove_jpeg_progressive *decoder, const unsigned char *data, size_t size,
                                   trove_jpeg_header *header, int *header_ready) {
    *header_ready = 0;
    if (decoder->state == failed) return -1;
    if (setjmp(decoder->errors.escape)) {
        decoder->state = failed;
        return -1;
    }
    if (decoder->state == reading_header) {
        if (!decoder->created) {
            trove_install_errors(&decoder->errors);
            decoder->cinfo.err = &decoder->errors.base;
            jpeg_create_decompress(&decoder->cinfo);
            decoder->created = 1;
            decoder->cinfo.mem->max_memory_to_use = decoder->max_memory;
            trove_source_install(&decoder->cinfo, &decoder->source);
            jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
        }
        trove_source_attach(&decoder->source, data, size, 0);
        int status = jpeg_read_header(&decoder->cinfo, TRUE);
        trove_source_detach(&decoder->source);
        if (status != JPEG_HEADER_OK) return 0;
        decoder->state = header_read;
        trove_fill_header(decoder, header);
        *header_ready = 1;
        return 0;
    }
    trove_source_attach(&decoder->source, data, size, 0);
    trove_absorb(decoder);
    trove_source_detach(&decoder->source);
    return trove_showable_scans(decoder);
}

// Converts one CMYK row through the decoder's row buffer, or reads an RGBA row in place. Longjmps on errors.
static JDIMENSION trove_read_row(trove_jpeg_progressive *decoder, unsigned char *row, size_t row_bytes) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (!decoder->cmyk) {
        JSAMPROW rows[1] = { row };
        return jpeg_read_scanlines(cinfo, rows, 1);
    }
    if (!decoder->cmyk_row) {
        decoder->cmyk_row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, (JDIMENSION)row_bytes, 1);
    }
    JDIMENSION read = jpeg_read_scanlines(cinfo, decoder->cmyk_row, 1);
    if (read == 1) trove_cmyk_to_rgba(decoder->cmyk_row[0], row, cinfo->output_width);
    return read;
}

// Whether the whole RGBA output fits in `capacity` bytes as four components a pixel; else names the problem.
static int trove_output_fits(trove_jpeg_progressive *decoder, size_t capacity) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if ((size_t)cinfo->output_width * 4 * cinfo->output_height > capacity || cinfo->output_components != 4) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "unexpected output layout");
        return 0;
    }
    return 1;
}

// Reads rows into their places in `rgba` until the image ends or the input runs out (the source suspends).
static void trove_read_rows(trove_jpeg_progressive *decoder, unsigned char *rgba) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    size_t row_bytes = (size_t)cinfo->output_width * 4;
    while (cinfo->output_scanline < cinfo->output_height &&
           trove_read_row(decoder, rgba + row_bytes * cinfo->output_scanline, row_bytes) == 1) {
    }
}

int trove_jpeg_progressive_render(trove_jpeg_progressive *decoder, const unsigned char *data, size_t size,
                                  unsigned char *rgba, size_t capacity) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    int scans = trove_showable_scans(decoder);
    if (scans < 1) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "no complete scan to show yet");
        return -1;
    }
    if (setjmp(decoder->errors.escape)) {
        decoder->state = failed;
        return -1;
    }
    if (!trove_output_fits(decoder, capacity)) return -1;
    trove_source_attach(&decoder->source, data, size, 0);
    // A scan has become showable since, so the input is past the last pass's scan: this does not suspend.
    if (decoder->finish_pending && !jpeg_finish_output(cinfo)) {
        trove_source_detach(&decoder->source);
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "the next scan has not started yet");
        return -1;
    }
    decoder->finish_pending = 0;
    // Below the input's scan (or the last, once the image has ended): the output pass never waits for input.
    jpeg_start_output(cinfo, scans);
    trove_read_rows(decoder, rgba);
    int complete = cinfo->output_scanline == cinfo->output_height;
    // Finishing reads on to the next scan's start, which may not have arrived: then it is finished later.
    if (complete && !jpeg_finish_output(cinfo)) decoder->finish_pending = 1;
    trove_source_detach(&decoder->source);
    if (!complete) {
        // Only a damaged file makes the output wait for input it was promised; stop previewing it.
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "the preview pass ran out of data");
        decoder->state = failed;
        return -1;
    }
    return 0;
}

int trove_jpeg_progressive_is_sequential(const trove_jpeg_progressive *decoder) {
    return decoder->state == decoding && decoder->sequential;
}

int trove_jpeg_progressive_read_rows(trove_jpeg_progressive *decoder, const unsigned char *data, size_t size,
                                     unsigned char *rgba, size_t capacity) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (!trove_jpeg_progressive_is_sequential(decoder)) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "not a single-scan file being decoded");
        return -1;
    }
    if (setjmp(decoder->errors.escape)) {
        decoder->state = failed;
        return -1;
    }
    if (!trove_output_fits(decoder, capacity)) return -1;
    trove_source_attach(&decoder->source, data, size, 0);
    // jpeg_read_scanlines returns 0 when the data runs out (the source suspends); the next call goes on.
    trove_read_rows(decoder, rgba);
    trove_source_detach(&decoder->source);
    return (int)cinfo->output_scanline;
}

const char *trove_jpeg_progressive_error(const trove_jpeg_progressive *decoder) {
    return decoder->errors.message;
}

void trove_jpeg_progressive_destroy(trove_jpeg_progressive *decoder) {
    if (!decoder) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}
