#ifndef TROVE_MALLOC_TUNING_H
#define TROVE_MALLOC_TUNING_H

/// For a long-running server: glibc's malloc serves blocks under 32 MiB from the heap and lets each arena keep
/// up to 16 MiB free at its heap's top, instead of mapping each block over 128 KiB fresh and giving back a
/// heap's top as soon as 128 KiB of it are free. Does nothing on other C libraries. Returns 1 when both
/// settings took.
int trove_keep_freed_buffers_for_reuse(void);

/// Gives back to the system the free memory glibc's malloc still holds (`malloc_trim(0)`): the pages of free
/// blocks in every arena and the main arena's top; a thread arena's top stays, up to the trim threshold. What a
/// server that keeps freed buffers for reuse returns now and then, so its resident memory follows what it
/// holds. Does nothing on other C libraries. Returns 1 when some memory was returned.
int trove_return_free_memory(void);

#endif
