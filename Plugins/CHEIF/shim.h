// libheif's public API (contexts, handles, decoding, encoding); heif.h includes what it needs.
#include <libheif/heif.h>

// The message of a heif_error that reports success, for callbacks that hand one back to libheif (it must
// point at a string that outlives the call).
static const char *const trove_heif_success_message = "Success";
