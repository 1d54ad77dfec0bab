#ifndef TROVE_MALLOC_TUNING_H
#define TROVE_MALLOC_TUNING_H

/// For a long-running server: glibc's malloc serves blocks under 32 MiB from the heap and keeps up to
/// 256 MiB of freed heap, instead of mapping each large block fresh and returning freed memory at once.
/// Does nothing on other C libraries. Returns 1 when both settings took.
int trove_keep_freed_buffers_for_reuse(void);

/// Gives back to the system the free memory glibc's malloc still holds, in every arena (`malloc_trim(0)`):
/// what a server that keeps freed buffers for reuse returns now and then, so its resident memory follows what
/// it holds. Does nothing on other C libraries. Returns 1 when some memory was returned.
int trove_return_free_memory(void);

#endif
