#ifndef TROVE_MALLOC_TUNING_H
#define TROVE_MALLOC_TUNING_H

/// For a long-running server: glibc's malloc serves blocks under 32 MiB from the heap and keeps up to
/// 256 MiB of freed heap, instead of mapping each large block fresh and returning freed memory at once.
/// Does nothing on other C libraries. Returns 1 when both settings took.
int trove_keep_freed_buffers_for_reuse(void);

#endif
