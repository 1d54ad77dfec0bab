// libwebp's still decoder and encoder, and WebPAnimDecoder (libwebpdemux) for animations.
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
