// Planar YCbCr in and out of libjpeg-turbo: jpeg_read_raw_data hands over each component's samples as the
// IDCT makes them (no upsampling, no colour conversion), and jpeg_write_raw_data takes them back (no colour
// conversion, no downsampling). Both work an iMCU row at a time: max_v_samp_factor block rows, each
// component bringing v_samp_factor of them, every row as wide as the component's whole blocks.
#include "TroveJPEGShim.h"
#include "TroveJPEGInternal.h"

#include <stdlib.h>
#include <string.h>
#include <jerror.h>

// Whether libjpeg can hand this file over as planes the caller understands: YCbCr in three components,
// luma at the largest sampling factors (1 or 2 each way), both chroma components at 1x1.
static int trove_planar_layout_supported(const struct jpeg_decompress_struct *cinfo) {
    if (cinfo->jpeg_color_space != JCS_YCbCr || cinfo->num_components != 3) return 0;
    const jpeg_component_info *c = cinfo->comp_info;
    if (c[0].h_samp_factor < 1 || c[0].h_samp_factor > 2 || c[0].v_samp_factor < 1 || c[0].v_samp_factor > 2) return 0;
    if (c[0].h_samp_factor != cinfo->max_h_samp_factor || c[0].v_samp_factor != cinfo->max_v_samp_factor) return 0;
    for (int ci = 1; ci < 3; ci++) {
        if (c[ci].h_samp_factor != 1 || c[ci].v_samp_factor != 1) return 0;
    }
    return 1;
}

int trove_jpeg_decoder_start_planes(trove_jpeg_decoder *decoder, trove_jpeg_planar_layout *layout) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->errors.escape)) return -1;
    memset(layout, 0, sizeof *layout);
    if (!trove_planar_layout_supported(cinfo)) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message,
                 "the file's components are not YCbCr at 4:4:4, 4:2:2, 4:4:0 or 4:2:0");
        return -1;
    }
    cinfo->raw_data_out = TRUE;
    cinfo->out_color_space = JCS_YCbCr;
    // A file of several scans is read whole here; a streaming decoder's call comes back for the rest.
    if (!jpeg_start_decompress(cinfo)) return 2;
    layout->width = (int)cinfo->output_width;
    layout->height = (int)cinfo->output_height;
    layout->group_rows = cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size;
    for (int ci = 0; ci < 3; ci++) {
        const jpeg_component_info *component = &cinfo->comp_info[ci];
        trove_jpeg_plane *plane = &layout->planes[ci];
        plane->width = (int)component->downsampled_width;
        plane->height = (int)component->downsampled_height;
        plane->buffer_width = (int)(component->width_in_blocks * (JDIMENSION)component->DCT_scaled_size);
        plane->rows_per_group = component->v_samp_factor * component->DCT_scaled_size;
        plane->h_scale = component->h_samp_factor * component->DCT_scaled_size;
        plane->v_scale = component->v_samp_factor * component->DCT_scaled_size;
        // What the rows must hold, checked here so the reads below never run past a buffer.
        if (plane->width < 1 || plane->height < 1 || plane->width > plane->buffer_width ||
            plane->rows_per_group < 1 || plane->rows_per_group > 64) {
            snprintf(decoder->errors.message, sizeof decoder->errors.message, "unexpected planar layout");
            return -1;
        }
    }
    if (layout->group_rows < 1 || layout->planes[0].width != layout->width ||
        layout->planes[0].height != layout->height) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message, "unexpected planar layout");
        return -1;
    }
    return 0;
}

int trove_jpeg_decoder_read_planes(trove_jpeg_decoder *decoder, trove_jpeg_planes_callback callback, void *context) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    JSAMPARRAY *rows = decoder->plane_rows;
    int stopped = 0;
    if (setjmp(decoder->errors.escape)) return -1;
    // Row buffers from libjpeg's pool, so a longjmp cannot leak them; made once, as a streaming decoder's
    // call that suspended mid-row comes back to finish it in the same buffers.
    for (int ci = 0; ci < 3; ci++) {
        if (rows[ci]) continue;
        const jpeg_component_info *component = &cinfo->comp_info[ci];
        rows[ci] = (*cinfo->mem->alloc_sarray)(
            (j_common_ptr)cinfo, JPOOL_IMAGE, component->width_in_blocks * (JDIMENSION)component->DCT_scaled_size,
            (JDIMENSION)(component->v_samp_factor * component->DCT_scaled_size));
    }
    JDIMENSION group_rows = (JDIMENSION)(cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size);
    while (cinfo->output_scanline < cinfo->output_height) {
        JDIMENSION read = jpeg_read_raw_data(cinfo, rows, group_rows);
        if (read == 0 && trove_decoder_suspended(decoder)) return 2;
        if (read != group_rows) break;
        if (trove_data_missing(decoder)) break;
        if (callback(context, (const unsigned char *const *const *)rows) != 0) {
            stopped = 1;
            break;
        }
    }
    if (stopped) return 1;
    // jpeg_read_raw_data counts whole iMCU rows: the scanline ends at or past the height.
    if (trove_data_missing(decoder) || cinfo->output_scanline < cinfo->output_height) {
        snprintf(decoder->errors.message, sizeof decoder->errors.message,
                 "the file ends before the image data does (it is truncated)");
        return -1;
    }
    // Reads on to the end marker, which may not have arrived yet.
    if (!jpeg_finish_decompress(cinfo)) return 2;
    return 0;
}

// Copies `count` rows of a plane into an iMCU row's buffer rows, repeating the last column out to the
// blocks' width and the last row down past the plane's end (raw input is not edge-extended by libjpeg).
static void trove_fill_rows(JSAMPARRAY buffer, int count, const unsigned char *plane, size_t stride, int width,
                            int height, int first_row, int buffer_width) {
    for (int r = 0; r < count; r++) {
        int source_row = first_row + r < height ? first_row + r : height - 1;
        const unsigned char *from = plane + stride * (size_t)source_row;
        memcpy(buffer[r], from, (size_t)width);
        memset(buffer[r] + width, from[width - 1], (size_t)(buffer_width - width));
    }
}

int trove_jpeg_encode_planes(const unsigned char *const planes[3], const size_t strides[3],
                             const int plane_widths[3], const int plane_heights[3], int quality, unsigned char **output, unsigned long *output_size,
                             char *error, size_t error_capacity) {
    struct jpeg_compress_struct cinfo;
    trove_error_manager errors;
    // Touched after setjmp, so volatile keeps its value across the longjmp.
    volatile int created = 0;
    *output = NULL;
    *output_size = 0;
    int width = plane_widths[0], height = plane_heights[0];
    if (width < 1 || height < 1 || width > 65500 || height > 65500) {
        snprintf(error, error_capacity, "JPEG sides must be 1...65500 pixels");
        return -1;
    }
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
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_YCbCr;
    // The defaults for YCbCr are what trove_jpeg_encode's RGBA input gets: 2x2 luma, 1x1 chroma (4:2:0),
    // the same quantisation tables and Huffman coding, so the two paths' files compare like for like.
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.raw_data_in = TRUE;
    cinfo.comp_info[0].h_samp_factor = 2;
    cinfo.comp_info[0].v_samp_factor = 2;
    for (int ci = 1; ci < 3; ci++) {
        cinfo.comp_info[ci].h_samp_factor = 1;
        cinfo.comp_info[ci].v_samp_factor = 1;
    }
    jpeg_start_compress(&cinfo, TRUE);
    JSAMPARRAY rows[3];
    int plane_width[3], plane_height[3], buffer_width[3], rows_per_group[3];
    for (int ci = 0; ci < 3; ci++) {
        jpeg_component_info *component = &cinfo.comp_info[ci];
        plane_width[ci] = (int)component->downsampled_width;
        plane_height[ci] = (int)component->downsampled_height;
        buffer_width[ci] = (int)(component->width_in_blocks * DCTSIZE);
        rows_per_group[ci] = component->v_samp_factor * DCTSIZE;
        rows[ci] = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE, (JDIMENSION)buffer_width[ci],
                                              (JDIMENSION)rows_per_group[ci]);
        // The caller's planes must be exactly what libjpeg reads, or the copies below would run past them.
        if (plane_widths[ci] != plane_width[ci] || plane_heights[ci] != plane_height[ci] ||
            (size_t)plane_widths[ci] > strides[ci]) {
            snprintf(error, error_capacity, "plane %d is %dx%d; libjpeg reads %dx%d", ci, plane_widths[ci],
                     plane_heights[ci], plane_width[ci], plane_height[ci]);
            jpeg_destroy_compress(&cinfo);
            free(*output);
            *output = NULL;
            return -1;
        }
    }
    JDIMENSION group_rows = (JDIMENSION)(cinfo.max_v_samp_factor * DCTSIZE);
    for (int group = 0; cinfo.next_scanline < cinfo.image_height; group++) {
        for (int ci = 0; ci < 3; ci++) {
            trove_fill_rows(rows[ci], rows_per_group[ci], planes[ci], strides[ci], plane_width[ci], plane_height[ci],
                            group * rows_per_group[ci], buffer_width[ci]);
        }
        jpeg_write_raw_data(&cinfo, rows, group_rows);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return 0;
}
