import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// open + fstat + read the whole file + close: the least any cache read must do, the baseline of the disk
/// cache's read hits and of the pipeline's disk-hit-with-decode benchmark.
public func bareRead(_ path: String) throws -> Data {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw CocoaError(.fileReadUnknown) }
    var data = Data(count: Int(info.st_size))
    let ok = data.withUnsafeMutableBytes { buffer -> Bool in
        var done = 0
        while done < buffer.count {
            let got = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(done))
            if got <= 0 { return false }
            done += got
        }
        return true
    }
    guard ok else { throw CocoaError(.fileReadUnknown) }
    return data
}
