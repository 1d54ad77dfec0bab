// A thin C layer over libjpeg-turbo for TroveJPEG. libjpeg reports fatal errors through a callback that
// must not return; Swift cannot longjmp, so every libjpeg call runs here behind setjmp and failures come
// back as a status code plus a message.
#ifndef TROVE_JPEG_SHIM_H
#define TROVE_JPEG_SHIM_H

#include <stddef.h>

typedef struct trove_jpeg_decoder trove_jpeg_decoder;

/// What the header says, read before anything large is allocated.
typedef struct {
    int width;
    int height;
    /// Components in the file: 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK.
    int components;
    /// libjpeg's J_COLOR_SPACE of the file.
    int color_space;
    int progressive;
    /// The payload of the first APP1 "Exif" segment (after "Exif\0\0"), or NULL.
    const unsigned char *exif;
    size_t exif_length;
    /// The ICC profile from the APP2 "ICC_PROFILE" markers, joined in sequence order, or NULL when there is
    /// none or its markers do not add up (a missing, repeated or out-of-range sequence number).
    const unsigned char *icc;
    size_t icc_length;
    /// The first four components' sampling factors across and down (0 past `components`).
    int sampling_h[4];
    int sampling_v[4];
} trove_jpeg_header;

/// Starts a decoder over `data` (which must outlive it). `max_memory` bounds libjpeg's working memory;
/// `max_scans` bounds the number of progressive scans (a CPU-exhaustion guard). NULL when out of memory.
trove_jpeg_decoder *trove_jpeg_decoder_create(const unsigned char *data, size_t size, long max_memory, int max_scans);
/// Starts a decoder that is fed its body as the body arrives: before each call below, point it at the body
/// so far (or what follows the bytes it forgot) with trove_jpeg_decoder_attach, and detach it after. Where
/// the bytes run out, a call returns 2 (suspended) and is made again once more have arrived; the header and
/// the planar calls are read this way.
/// Bounded as trove_jpeg_decoder_create bounds. NULL when out of memory.
trove_jpeg_decoder *trove_jpeg_decoder_create_streaming(long max_memory, int max_scans);
/// Points a streaming decoder at the body so far: `size` bytes that start with every byte of the last
/// attach's (less those trove_jpeg_decoder_forget_consumed let go), valid until the detach. `complete`
/// (nonzero) says no more will come: a call then finishes or fails as a decoder over the whole file would.
void trove_jpeg_decoder_attach(trove_jpeg_decoder *decoder, const unsigned char *data, size_t size, int complete);
/// Remembers where a streaming decoder stopped in the attached body, which may then move or be freed.
void trove_jpeg_decoder_detach(trove_jpeg_decoder *decoder);
/// After a detach: the number of bytes at the start of the attached body that libjpeg has read for good (it
/// resumes after them). They are forgotten: the next attach's body starts with the first byte after them.
size_t trove_jpeg_decoder_forget_consumed(trove_jpeg_decoder *decoder);
/// Reads the header. Returns 0 on success, 2 when a streaming decoder needs more of the body, -1 on failure
/// (see trove_jpeg_decoder_error).
int trove_jpeg_decoder_read_header(trove_jpeg_decoder *decoder, trove_jpeg_header *header);
/// Asks libjpeg-turbo's scaled IDCT to decode at `scale_num`/8 of the stored size (1...8; 8 is full size),
/// and reports the output size that gives (libjpeg rounds each side up). Call after the header is read and
/// before decoding. Returns 0 on success, -1 on failure (see trove_jpeg_decoder_error).
int trove_jpeg_decoder_set_scale(trove_jpeg_decoder *decoder, int scale_num, int *output_width, int *output_height);
/// Decodes the whole image (at the scale set; full size by default) as straight RGBA8 (alpha 255) into
/// `rgba`, `output width * 4` bytes a row, converting gray and CMYK/YCCK. A file that ends early is an error.
/// Returns 0 on success, -1 on failure.
int trove_jpeg_decoder_decode_rgba(trove_jpeg_decoder *decoder, unsigned char *rgba, size_t capacity);
/// Makes a CMYK or YCCK file's decode deliver libjpeg's CMYK samples as they are (inverted when the file has
/// an Adobe marker) instead of converting them to RGBA, for the caller to convert through a colour profile.
/// Call before decoding; it changes nothing for other files.
void trove_jpeg_decoder_keep_cmyk(trove_jpeg_decoder *decoder);
/// Receives one decoded row (`output width * 4` bytes of straight RGBA8, valid only during the call) and the
/// caller's context. Returns 0 to go on, anything else to stop the decode.
typedef int (*trove_jpeg_row_callback)(void *context, const unsigned char *rgba_row);
/// Decodes as trove_jpeg_decoder_decode_rgba does, but hands each row to `callback` from one row buffer
/// instead of writing a whole image. Returns 0 on success, 1 when the callback stopped it, -1 on failure.
int trove_jpeg_decoder_decode_rows(trove_jpeg_decoder *decoder, trove_jpeg_row_callback callback, void *context);
/// One plane of a planar decode, at the scale set.
typedef struct {
    /// Samples across and rows down (libjpeg's downsampled size).
    int width;
    int height;
    /// Samples in each row handed over: the width padded to whole (scaled) DCT blocks.
    int buffer_width;
    /// Rows each iMCU row brings: the vertical sampling factor times the scaled DCT size.
    int rows_per_group;
    /// The sampling factor times the scaled DCT size, across and down: the luma's over a plane's is how many
    /// pixels that plane's samples span.
    int h_scale;
    int v_scale;
} trove_jpeg_plane;

/// What a planar decode delivers: the image's size at the scale set and its Y, Cb and Cr planes.
typedef struct {
    int width;
    int height;
    /// Luma rows per iMCU row.
    int group_rows;
    trove_jpeg_plane planes[3];
} trove_jpeg_planar_layout;

/// Starts a planar decode (libjpeg's raw data: no upsampling, no colour conversion) at the scale set, and
/// fills `layout`. Only YCbCr files with luma at 1 or 2 each way and both chroma components at 1x1 (4:4:4,
/// 4:2:2, 4:4:0, 4:2:0); anything else fails. Call after the header (and any scale) and before any other
/// decode. Returns 0 on success, 2 when a streaming decoder needs more of a file of several scans (all of
/// whose scans are read here), -1 on failure (see trove_jpeg_decoder_error).
int trove_jpeg_decoder_start_planes(trove_jpeg_decoder *decoder, trove_jpeg_planar_layout *layout);
/// Receives one iMCU row: for each plane, its `rows_per_group` rows of `buffer_width` samples (those past the
/// plane's height are padding), valid only during the call. Returns 0 to go on, anything else to stop.
typedef int (*trove_jpeg_planes_callback)(void *context, const unsigned char *const *const *rows);
/// Decodes every iMCU row of a started planar decode into `callback`. A file that ends early is an error.
/// Returns 0 on success, 1 when the callback stopped it, 2 when a streaming decoder needs more of the body
/// (the next call goes on in the row it stopped in; rows handed over are not handed over again), -1 on
/// failure.
int trove_jpeg_decoder_read_planes(trove_jpeg_decoder *decoder, trove_jpeg_planes_callback callback, void *context);
/// The last error's message (empty when there was none); valid until the decoder is destroyed.
const char *trove_jpeg_decoder_error(const trove_jpeg_decoder *decoder);
void trove_jpeg_decoder_destroy(trove_jpeg_decoder *decoder);

typedef struct trove_jpeg_progressive trove_jpeg_progressive;

/// Starts an incremental decode, for showing a file while it arrives: one of several scans (progressive)
/// scan by scan in libjpeg's buffered-image mode, one of a single scan (baseline) as its rows so far. `max_memory` and `max_scans` bound it as they bound trove_jpeg_decoder_create.
/// NULL when out of memory.
trove_jpeg_progressive *trove_jpeg_progressive_create(long max_memory, int max_scans);
/// Reads as far as `data` goes. Each call's `data` must start with the bytes of the previous call's (the
/// body so far); it need only stay valid during the call. The header is read first: when it has been,
/// `*header_ready` is set and `header` filled, and the call returns without allocating anything, so the
/// caller can check its limits before the next call allocates libjpeg's coefficient buffers.
/// Returns how many scans can be shown so far (0 or more): complete ones, the last of them once the next
/// has begun or the image has ended. -1 on failure; after a failure every call fails.
int trove_jpeg_progressive_consume(trove_jpeg_progressive *decoder, const unsigned char *data, size_t size,
                                   trove_jpeg_header *header, int *header_ready);
/// Writes the image as the showable scans show it (with whatever has arrived of the next one) as straight
/// RGBA8, `width * 4` bytes a row, into `rgba`. Call after consume has reported at least one showable scan,
/// with the same `data`. Returns 0 on success, -1 on failure.
int trove_jpeg_progressive_render(trove_jpeg_progressive *decoder, const unsigned char *data, size_t size,
                                  unsigned char *rgba, size_t capacity);
/// Whether the file has a single scan and decoding has started (the call after the header): its previews
/// are its rows so far, read with trove_jpeg_progressive_read_rows (consume then reports no scans).
int trove_jpeg_progressive_is_sequential(const trove_jpeg_progressive *decoder);
/// For a single-scan file: decodes the rows that have arrived into `rgba`, which must be the same buffer
/// (`width * 4` bytes a row) on every call, as rows already read are not written again. Returns how many
/// rows it holds, or -1 on failure.
int trove_jpeg_progressive_read_rows(trove_jpeg_progressive *decoder, const unsigned char *data, size_t size,
                                     unsigned char *rgba, size_t capacity);
/// The last error's message (empty when there was none); valid until the decoder is destroyed.
const char *trove_jpeg_progressive_error(const trove_jpeg_progressive *decoder);
void trove_jpeg_progressive_destroy(trove_jpeg_progressive *decoder);

/// Encodes pixels (`components` 4 = RGBA with alpha ignored, 1 = gray) at quality 1...100 into a buffer
/// the caller releases with trove_jpeg_free. Returns 0 on success, -1 with a message in `error`.
int trove_jpeg_encode(const unsigned char *pixels, int width, int height, size_t bytes_per_row, int components,
                      int quality, unsigned char **output, unsigned long *output_size,
                      char *error, size_t error_capacity);
/// Encodes Y, Cb and Cr planes (full-range JFIF YCbCr, chroma at half the luma's size each way rounded up:
/// 4:2:0) with jpeg_write_raw_data, with the tables trove_jpeg_encode uses, into a buffer the caller releases
/// with trove_jpeg_free. `plane_widths`/`plane_heights` must be exactly those sizes and `strides` at least the
/// widths. Returns 0 on success, -1 with a message in `error`.
int trove_jpeg_encode_planes(const unsigned char *const planes[3], const size_t strides[3],
                             const int plane_widths[3], const int plane_heights[3], int quality,
                             unsigned char **output, unsigned long *output_size, char *error, size_t error_capacity);
void trove_jpeg_free(unsigned char *buffer);

#endif
