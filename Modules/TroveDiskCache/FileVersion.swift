import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file as `fstat` saw it: which file (device and inode), its size, and its modification and change
/// times. Every change made through the file system moves at least one of these: a write or truncation
/// sets both times (and `chmod` or `utimes` set the change time, which no caller can set back), and a
/// rename over the path brings another inode. (A write through a shared memory mapping to a page that
/// is already dirty is the exception: it leaves the times alone.) A payload checked under one version can therefore be
/// trusted while its file still shows that version (`PayloadVerification.whenFileChanges`).
struct FileVersion: Equatable, Sendable {
    let identity: FileIdentity
    let size: Int
    let modified: Timestamp
    let changed: Timestamp

    /// Seconds and nanoseconds, compared exactly.
    struct Timestamp: Equatable, Sendable {
        let seconds: Int64
        let nanoseconds: Int64

        var timeIntervalSince1970: Double { Double(seconds) + Double(nanoseconds) / 1e9 }
    }

    init(_ info: stat) {
        identity = FileIdentity(info)
        size = Int(info.st_size)
        #if canImport(Darwin)
            modified = Timestamp(
                seconds: Int64(info.st_mtimespec.tv_sec), nanoseconds: Int64(info.st_mtimespec.tv_nsec))
            changed = Timestamp(seconds: Int64(info.st_ctimespec.tv_sec), nanoseconds: Int64(info.st_ctimespec.tv_nsec))
        #else
            modified = Timestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec))
            changed = Timestamp(seconds: Int64(info.st_ctim.tv_sec), nanoseconds: Int64(info.st_ctim.tv_nsec))
        #endif
    }

    /// Whether both times lie more than `grace` seconds before `now`. File systems stamp times from a
    /// coarse clock (a few milliseconds on Linux, two seconds on FAT), so a write landing in the same tick
    /// as the previous change can leave every field as it was. Only a version older than any tick is sure
    /// to look different after the next write, the rule git applies to its index ("racy clean" entries).
    func isSettled(at now: Date, grace: TimeInterval) -> Bool {
        let cutoff = now.timeIntervalSince1970 - grace
        return modified.timeIntervalSince1970 < cutoff && changed.timeIntervalSince1970 < cutoff
    }
}
