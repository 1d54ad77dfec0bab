import Foundation

/// `jpeg` with `icc` embedded as its ICC profile, one APP2 segment right after the SOI marker, as a camera or
/// phone tags its photos (ICC.1, annex B.4); nil when `jpeg` does not start with SOI or the profile needs more
/// than one segment.
public func taggingJPEG(_ jpeg: Data, icc: [UInt8]) -> Data? {
    guard jpeg.starts(with: [0xFF, 0xD8]), icc.count < 65_000 else { return nil }
    // "ICC_PROFILE", a NUL, then this segment's number and the count of segments, both 1.
    let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + icc
    let length = payload.count + 2
    return Data([0xFF, 0xD8, 0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload) + jpeg.dropFirst(2)
}
