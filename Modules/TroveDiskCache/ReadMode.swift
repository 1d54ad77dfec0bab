/// How a file is read. `blocking` is for the cache's I/O queue. `cachedOnly` may run on any thread, even
/// one of Swift's cooperative pool, because each call either completes from the kernel's caches (dentry
/// and page cache) or fails with `WouldBlock` at once instead of waiting for the disk. The caller then
/// takes the I/O queue, where the same read runs the blocking way and reports whatever was wrong.
enum ReadMode: Sendable {
    case blocking
    case cachedOnly
}

/// A `cachedOnly` read could not finish without the disk (or met anything but a clean hit).
struct WouldBlock: Error {}
