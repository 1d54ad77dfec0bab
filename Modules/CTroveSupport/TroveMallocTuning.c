#include "TroveMallocTuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int trove_keep_freed_buffers_for_reuse(void) {
#if defined(__GLIBC__)
    // Fixed values also turn off glibc's sliding thresholds, which start at 128 KiB.
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 256 << 20) == 1;
#else
    return 0;
#endif
}

int trove_return_free_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
