// libdeflate (Debian's libdeflate-dev): whole-buffer DEFLATE/zlib compression and decompression, faster than
// zlib for both when the whole input and the output size are known (PNG image data, disk entries).
#include <libdeflate.h>
