// libavif's public API; avif.h includes what it needs.
#include <avif/avif.h>
