#include "TroveJPEGShim.h"
#include "TroveJPEGInternal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

static void trove_error_exit(j_common_ptr cinfo) {
    trove_error_manager *manager = (trove_error_manager *)cinfo->err;
    manager->base.format_message(cinfo, manager->message);
    longjmp(manager->escape, 1);
}

// Warnings are not printed; the ones that matter (the data ended, a scan needed bits past it) are remembered.
static void trove_emit_message(j_common_ptr cinfo, int level) {
    trove_error_manager *manager = (trove_error_manager *)cinfo->err;
    if (level < 0) {
        manager->base.num_warnings++;
        if (manager->base.msg_code == JWRN_JPEG_EOF) manager->hit_end_of_file = 1;
        if (manager->base.msg_code == JWRN_HIT_MARKER) manager->ran_out_of_data = 1;
    }
}

int trove_data_missing(const trove_jpeg_decoder *decoder) {
    const trove_error_manager *errors = &decoder->errors;
    return errors->hit_end_of_file && (errors->ran_out_of_data || decoder->cinfo.progressive_mode);
}

static void trove_output_message(j_common_ptr cinfo) { (void)cinfo; }

void trove_install_errors(trove_error_manager *manager) {
    jpeg_std_error(&manager->base);
    manager->base.error_exit = trove_error_exit;
    manager->base.emit_message = trove_emit_message;
    manager->base.output_message = trove_output_message;
    manager->hit_end_of_file = 0;
    manager->ran_out_of_data = 0;
    manager->message[0] = '\0';
}

// Progressive files may hold thousands of tiny scans that each cost a pass over the image.
static void trove_check_scans(j_common_ptr cinfo) {
    trove_jpeg_decoder *decoder = (trove_jpeg_decoder *)cinfo->client_data;
    if (cinfo->is_decompressor && decoder->cinfo.input_scan_number > decoder->max_scans) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message,
                 "the file has more than %d progressive scans", decoder->max_scans);
        longjmp(decoder->errors.escape, 2);
    }
}

trove_jpeg_decoder *trove_jpeg_decoder_create(const unsigned char *data, size_t size, long max_memory, int max_scans) {
    trove_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->max_memory = max_memory;
    decoder->max_scans = max_scans;
    return decoder;
}

trove_jpeg_decoder *trove_jpeg_decoder_create_streaming(long max_memory, int max_scans) {
    trove_jpeg_decoder *decoder = trove_jpeg_decoder_create(NULL, 0, max_memory, max_scans);
    if (decoder) decoder->streaming = 1;
    return decoder;
}

void trove_jpeg_decoder_attach(trove_jpeg_decoder *decoder, const unsigned char *data, size_t size, int complete) {
    trove_source_attach(&decoder->source, data, size, complete);
}

void trove_jpeg_decoder_detach(trove_jpeg_decoder *decoder) { trove_source_detach(&decoder->source); }

size_t trove_jpeg_decoder_forget_consumed(trove_jpeg_decoder *decoder) {
    return trove_source_forget_consumed(&decoder->source);
}

int trove_decoder_suspended(const trove_jpeg_decoder *decoder) {
    return decoder->streaming && !decoder->source.complete;
}

// Joins the APP2 "ICC_PROFILE" markers (12-byte tag, 1-based sequence number, marker count, data) in
// sequence order into decoder->icc; leaves it NULL when the set is incomplete or inconsistent.
static void trove_join_icc(trove_jpeg_decoder *decoder) {
    static const unsigned char tag[12] = "ICC_PROFILE";  // with its NUL: 12 bytes
    jpeg_saved_marker_ptr parts[256] = { 0 };
    int count = 0;
    size_t total = 0;
    for (jpeg_saved_marker_ptr marker = decoder->cinfo.marker_list; marker; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 2 || marker->data_length < 14 || memcmp(marker->data, tag, 12) != 0) continue;
        int sequence = marker->data[12], markers = marker->data[13];
        if (markers == 0 || (count != 0 && markers != count) || sequence < 1 || sequence > markers || parts[sequence]) return;
        count = markers;
        parts[sequence] = marker;
        total += marker->data_length - 14;
    }
    if (count == 0 || total == 0) return;
    for (int sequence = 1; sequence <= count; sequence++) if (!parts[sequence]) return;
    unsigned char *icc = malloc(total);
    if (!icc) return;
    size_t offset = 0;
    for (int sequence = 1; sequence <= count; sequence++) {
        memcpy(icc + offset, parts[sequence]->data + 14, parts[sequence]->data_length - 14);
        offset += parts[sequence]->data_length - 14;
    }
    decoder->icc = icc;
    decoder->icc_size = total;
}

int trove_jpeg_decoder_read_header(trove_jpeg_decoder *decoder, trove_jpeg_header *header) {
    // A streaming decoder comes back here after a suspension: libjpeg is set up once.
    if (!decoder->created) {
        trove_install_errors(&decoder->errors);
        decoder->cinfo.err = &decoder->errors.base;
    }
    if (setjmp(decoder->errors.escape)) return -1;
    if (!decoder->created) {
        jpeg_create_decompress(&decoder->cinfo);
        decoder->created = 1;
        decoder->cinfo.client_data = decoder;
        decoder->cinfo.mem->max_memory_to_use = decoder->max_memory;
        decoder->progress.progress_monitor = trove_check_scans;
        decoder->cinfo.progress = &decoder->progress;
        if (decoder->streaming) {
            trove_source_install(&decoder->cinfo, &decoder->source);
        } else {
            jpeg_mem_src(&decoder->cinfo, decoder->data, (unsigned long)decoder->size);
        }
        jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
        jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 2, 0xFFFF);
    }
    if (jpeg_read_header(&decoder->cinfo, TRUE) == JPEG_SUSPENDED) return 2;
    if (decoder->errors.hit_end_of_file) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "the file ends inside its header");
        return -1;
    }
    memset(header, 0, sizeof *header);
    header->width = (int)decoder->cinfo.image_width;
    header->height = (int)decoder->cinfo.image_height;
    header->components = decoder->cinfo.num_components;
    header->color_space = decoder->cinfo.jpeg_color_space;
    header->progressive = decoder->cinfo.progressive_mode ? 1 : 0;
    for (jpeg_saved_marker_ptr marker = decoder->cinfo.marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 6 && memcmp(marker->data, "Exif\0\0", 6) == 0) {
            header->exif = marker->data + 6;
            header->exif_length = marker->data_length - 6;
            break;
        }
    }
    trove_join_icc(decoder);
    header->icc = decoder->icc;
    header->icc_length = decoder->icc ? decoder->icc_size : 0;
    for (int ci = 0; ci < decoder->cinfo.num_components && ci < 4; ci++) {
        header->sampling_h[ci] = decoder->cinfo.comp_info[ci].h_samp_factor;
        header->sampling_v[ci] = decoder->cinfo.comp_info[ci].v_samp_factor;
    }
    return 0;
}

void trove_jpeg_decoder_keep_cmyk(trove_jpeg_decoder *decoder) { decoder->keep_cmyk = 1; }

int trove_jpeg_decoder_set_scale(trove_jpeg_decoder *decoder, int scale_num, int *output_width, int *output_height) {
    if (setjmp(decoder->errors.escape)) return -1;
    if (scale_num < 1 || scale_num > 8) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "scale %d/8 is not in 1/8...8/8", scale_num);
        return -1;
    }
    decoder->cinfo.scale_num = (unsigned int)scale_num;
    decoder->cinfo.scale_denom = 8;
    jpeg_calc_output_dimensions(&decoder->cinfo);
    *output_width = (int)decoder->cinfo.output_width;
    *output_height = (int)decoder->cinfo.output_height;
    return 0;
}

// CMYK JPEGs store Adobe's inverted ink values (255 is no ink), so R = C * K / 255 for the stored C and K.
// Read so with or without an Adobe APP14 marker: libjpeg writes the marker for every CMYK file whatever its
// inks, and Pillow, libvips and browsers read a file without one as inverted too.
void trove_cmyk_to_rgba(const JSAMPLE *cmyk, unsigned char *rgba, JDIMENSION width) {
    for (JDIMENSION x = 0; x < width; x++) {
        unsigned c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        rgba[4 * x] = (unsigned char)((c * k + 127) / 255);
        rgba[4 * x + 1] = (unsigned char)((m * k + 127) / 255);
        rgba[4 * x + 2] = (unsigned char)((y * k + 127) / 255);
        rgba[4 * x + 3] = 255;
    }
}

// After the last scanline read: finishes a whole image, or names a truncated one. Called inside the
// decoding function's setjmp, which catches an error jpeg_finish_decompress raises.
static int trove_finish_decode(trove_jpeg_decoder *decoder) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (!trove_data_missing(decoder) && cinfo->output_scanline == cinfo->output_height) {
        jpeg_finish_decompress(cinfo);
    }
    if (trove_data_missing(decoder) || cinfo->output_scanline < cinfo->output_height) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message,
                 "the file ends before the image data does (it is truncated)");
        return -1;
    }
    return 0;
}

int trove_jpeg_decoder_decode_rows(trove_jpeg_decoder *decoder, trove_jpeg_row_callback callback, void *context) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    // Both row buffers come from libjpeg's pool, so a longjmp cannot leak them.
    JSAMPARRAY rgba_row, cmyk_row;
    int stopped = 0;
    if (setjmp(decoder->errors.escape)) return -1;
    int cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_start_decompress(cinfo);
    size_t row_bytes = (size_t)cinfo->output_width * 4;
    if (cinfo->output_components != 4) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "unexpected output layout");
        return -1;
    }
    // libjpeg-turbo's SIMD colour converters write a 16-byte aligned row with non-temporal stores, which
    // bypass the cache: right for a whole image read later, wrong for a row the callback reads at once (it
    // then waits on memory). Pool rows start 8-byte aligned at least, so 4 bytes past the start keeps
    // pixels 4-byte aligned and is never 16-byte aligned: the converters use ordinary stores.
    rgba_row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, (JDIMENSION)(row_bytes + 4), 1);
    rgba_row[0] += 4;
    cmyk_row = cmyk ? (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, (JDIMENSION)row_bytes, 1) : NULL;
    while (cinfo->output_scanline < cinfo->output_height) {
        if (cmyk && !decoder->keep_cmyk) {
            if (jpeg_read_scanlines(cinfo, cmyk_row, 1) != 1) break;
            trove_cmyk_to_rgba(cmyk_row[0], rgba_row[0], cinfo->output_width);
        } else {
            if (jpeg_read_scanlines(cinfo, rgba_row, 1) != 1) break;
        }
        if (trove_data_missing(decoder)) break;
        if (callback(context, rgba_row[0]) != 0) {
            stopped = 1;
            break;
        }
    }
    if (stopped) {
        // The caller holds the reason; libjpeg is left mid-image and only destroyed after this.
        return 1;
    }
    return trove_finish_decode(decoder);
}

int trove_jpeg_decoder_decode_rgba(trove_jpeg_decoder *decoder, unsigned char *rgba, size_t capacity) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    // The CMYK row buffer comes from libjpeg's pool, so a longjmp cannot leak it.
    JSAMPARRAY cmyk_row;
    if (setjmp(decoder->errors.escape)) return -1;
    int cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_start_decompress(cinfo);
    size_t row_bytes = (size_t)cinfo->output_width * 4;
    if (row_bytes * cinfo->output_height > capacity || cinfo->output_components != 4) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "unexpected output layout");
        return -1;
    }
    cmyk_row = NULL;
    if (cmyk) {
        cmyk_row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, (JDIMENSION)row_bytes, 1);
    }
    while (cinfo->output_scanline < cinfo->output_height) {
        unsigned char *row = rgba + row_bytes * cinfo->output_scanline;
        if (cmyk && !decoder->keep_cmyk) {
            if (jpeg_read_scanlines(cinfo, cmyk_row, 1) != 1) break;
            trove_cmyk_to_rgba(cmyk_row[0], row, cinfo->output_width);
        } else {
            JSAMPROW rows[1] = { row };
            if (jpeg_read_scanlines(cinfo, rows, 1) != 1) break;
        }
        if (trove_data_missing(decoder)) break;
    }
    return trove_finish_decode(decoder);
}

const char *trove_jpeg_decoder_error(const trove_jpeg_decoder *decoder) {
    return decoder->errors.message;
}

void trove_jpeg_decoder_destroy(trove_jpeg_decoder *decoder) {
    if (!decoder) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder->icc);
    free(decoder);
}

int trove_jpeg_encode(const unsigned char *pixels, int width, int height, size_t bytes_per_row, int components,
                      int quality, unsigned char **output, unsigned long *output_size,
                      char *error, size_t error_capacity) {
    struct jpeg_compress_struct cinfo;
    trove_error_manager errors;
    // Touched after setjmp, so volatile keeps its value across the longjmp.
    volatile int created = 0;
    *output = NULL;
    *output_size = 0;
    trove_install_errors(&errors);
    cinfo.err = &errors.base;
    if (setjmp(errors.escape)) {
        snprintf(error, error_capacity, "%s", errors.message);
        if (created) jpeg_destroy_compress(&cinfo);
        free(*output);
        *output = NULL;
        return -1;
    }
    jpeg_create_compress(&cinfo);
    created = 1;
    jpeg_mem_dest(&cinfo, output, output_size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_EXT_RGBA;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row[1] = { (JSAMPROW)(pixels + bytes_per_row * cinfo.next_scanline) };
        jpeg_write_scanlines(&cinfo, row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return 0;
}

void trove_jpeg_free(unsigned char *buffer) { free(buffer); }
