#include "TroveMallocTuning.h"

// A C library header first: glibc defines __GLIBC__ in <features.h>, which every one of its headers
// includes. Tested before any include, the macro is never defined and both functions do nothing.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int trove_keep_freed_buffers_for_reuse(void) {
#if defined(__GLIBC__)
    // Fixed values also turn off glibc's sliding thresholds, which start at 128 KiB. The trim threshold
    // bounds what each arena keeps at its heap's top: a thread's arena is never given back otherwise
    // (malloc_trim reaches only the main arena's top), and there are up to eight arenas a core.
    int mapped = mallopt(M_MMAP_THRESHOLD, 32 << 20);
    int trimmed = mallopt(M_TRIM_THRESHOLD, 16 << 20);
    return mapped == 1 && trimmed == 1;
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
