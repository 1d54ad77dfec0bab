// libavif's public API (encoder, decoder, RGB conversion); avif.h includes what it needs.
#include <avif/avif.h>
