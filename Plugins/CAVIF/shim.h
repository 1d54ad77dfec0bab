// libavif's public API (encoder, decoder, RGB conversion); avif.h includes what it needs.
#include <avif/avif.h>

// Swift does not import avif.h's three-factor macro; the same value as a constant.
static const uint32_t trove_avif_default_image_count_limit = AVIF_DEFAULT_IMAGE_COUNT_LIMIT;
