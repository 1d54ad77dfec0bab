#ifndef TROVE_NON_BLOCKING_IO_H
#define TROVE_NON_BLOCKING_IO_H

#include <stddef.h>
#include <sys/types.h>

/// Opens `path` read-only only if every component of it is in the kernel's lookup cache, so the call
/// cannot wait for the disk (Linux openat2 with RESOLVE_CACHED). Returns a descriptor, or -errno:
/// -EAGAIN when the lookup would need I/O, or always where the system has no such call.
int trove_open_if_cached(const char *path);

/// Reads up to `count` bytes at `offset` only from the page cache (Linux preadv2 with RWF_NOWAIT), so the
/// call cannot wait for the disk. Returns the bytes read (maybe fewer than asked when only part is
/// cached), or -errno: -EAGAIN when nothing is cached, or always where the system has no such call.
ssize_t trove_read_if_cached(int fd, void *buffer, size_t count, off_t offset);

#endif
