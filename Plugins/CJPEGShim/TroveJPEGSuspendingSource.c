// A libjpeg data source over a body that arrives in pieces. It never copies: before each libjpeg call the
// caller points it at the body so far (or at what follows the bytes it let the source forget), and it resumes
// at the offset libjpeg had consumed (libjpeg backs up to the start of a marker or MCU when it suspends, and
// those bytes are still in the caller's data). While the body is incomplete, running out of data suspends
// libjpeg; once it is complete, running out inserts an end marker with libjpeg's end-of-file warning, as
// jpeg_mem_src does, so a truncated file is named the same way.
#include "TroveJPEGInternal.h"

#include <jerror.h>

static void trove_source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean trove_source_fill(j_decompress_ptr cinfo) {
    static const JOCTET end_marker[2] = { 0xFF, JPEG_EOI };
    trove_suspending_source *source = (trove_suspending_source *)cinfo->src;
    if (!source->complete) return FALSE;
    WARNMS(cinfo, JWRN_JPEG_EOF);
    source->past_end = 1;
    source->base.next_input_byte = end_marker;
    source->base.bytes_in_buffer = 2;
    return TRUE;
}

static void trove_source_skip(j_decompress_ptr cinfo, long count) {
    trove_suspending_source *source = (trove_suspending_source *)cinfo->src;
    if (count <= 0) return;
    if ((size_t)count <= source->base.bytes_in_buffer) {
        source->base.next_input_byte += count;
        source->base.bytes_in_buffer -= (size_t)count;
        return;
    }
    // Bytes not here yet are skipped as they arrive; past a complete body's end there is nothing to skip.
    if (!source->complete) source->pending_skip += (size_t)count - source->base.bytes_in_buffer;
    source->base.next_input_byte += source->base.bytes_in_buffer;
    source->base.bytes_in_buffer = 0;
}

static void trove_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

void trove_source_install(j_decompress_ptr cinfo, trove_suspending_source *source) {
    source->base.init_source = trove_source_init;
    source->base.fill_input_buffer = trove_source_fill;
    source->base.skip_input_data = trove_source_skip;
    source->base.resync_to_restart = jpeg_resync_to_restart;
    source->base.term_source = trove_source_term;
    // What an attach made before libjpeg was set up (the first call's) stands.
    cinfo->src = &source->base;
}

void trove_source_attach(trove_suspending_source *source, const unsigned char *data, size_t size, int complete) {
    if (source->offset > size) source->offset = size;
    size_t skip = source->pending_skip < size - source->offset ? source->pending_skip : size - source->offset;
    source->offset += skip;
    source->pending_skip -= skip;
    source->data = data;
    source->size = size;
    source->complete = complete;
    source->past_end = 0;
    // An empty body (every byte read already) may come without storage.
    source->base.next_input_byte = data ? data + source->offset : data;
    source->base.bytes_in_buffer = size - source->offset;
}

void trove_source_detach(trove_suspending_source *source) {
    // Past the end, libjpeg reads the inserted marker, not the caller's data.
    source->offset = source->past_end || !source->data ? source->size
                                                        : (size_t)(source->base.next_input_byte - source->data);
    source->data = NULL;
}

size_t trove_source_forget_consumed(trove_suspending_source *source) {
    // libjpeg never goes back before where it suspended (it backs up only to the start of the marker or MCU
    // it stopped in, which is where `offset` points), so the bytes before it are never read again.
    size_t consumed = source->offset;
    source->offset = 0;
    return consumed;
}
