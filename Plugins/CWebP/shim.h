// libwebp's still codec (decode.h, encode.h) and its animation layers: WebPAnimDecoder in demux.h,
// WebPAnimEncoder in mux.h.
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#include <webp/mux.h>
