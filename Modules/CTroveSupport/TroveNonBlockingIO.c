// Reads that cannot block, so a disk-cache hit whose file is in the page cache can be served on the
// caller's thread (even one of Swift's cooperative pool) without a hop to the I/O queue. Anything that
// would need the disk answers -EAGAIN and the caller takes the I/O queue instead.

#define _GNU_SOURCE
#include "TroveNonBlockingIO.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/syscall.h>
#include <sys/uio.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef RESOLVE_CACHED
#define RESOLVE_CACHED 0x20
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif

/// The kernel's struct open_how (linux/openat2.h), spelled out so older headers still build.
struct trove_open_how {
    unsigned long long flags;
    unsigned long long mode;
    unsigned long long resolve;
};

int trove_open_if_cached(const char *path) {
    struct trove_open_how how = { O_RDONLY | O_CLOEXEC, 0, RESOLVE_CACHED };
    long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd >= 0) return (int)fd;
    // ENOSYS (kernel before 5.6) and EINVAL (before 5.12, no RESOLVE_CACHED) mean "not possible here".
    return (errno == ENOSYS || errno == EINVAL) ? -EAGAIN : -errno;
}

ssize_t trove_read_if_cached(int fd, void *buffer, size_t count, off_t offset) {
    struct iovec vector = { buffer, count };
    ssize_t got = preadv2(fd, &vector, 1, offset, RWF_NOWAIT);
    if (got >= 0) return got;
    return (errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL) ? -EAGAIN : -errno;
}

#else

int trove_open_if_cached(const char *path) {
    (void)path;
    return -EAGAIN;
}

ssize_t trove_read_if_cached(int fd, void *buffer, size_t count, off_t offset) {
    (void)fd; (void)buffer; (void)count; (void)offset;
    return -EAGAIN;
}

#endif
