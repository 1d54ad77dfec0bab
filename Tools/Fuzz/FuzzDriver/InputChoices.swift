import Foundation
import TroveSupport

/// Choices drawn from a 64-bit FNV-1a hash of a fuzz input, so the same bytes always run the same variation
/// and one iteration runs one request (the request targets pick their request with it).
public struct InputChoices {
    private var bits: UInt64

    /// The choices `data` makes.
    public init(_ data: Data) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        bits = hash
    }

    /// A choice in 0..<count.
    public mutating func pick(_ count: Int) -> Int {
        let value = Int(bits % UInt64(count))
        bits /= UInt64(count)
        return value
    }

    /// One of `values`.
    public mutating func pick<T>(from values: [T]) -> T { values[pick(values.count)] }
}

/// `data` with every PNG chunk's CRC made right. PNGDecoder skips an ancillary chunk whose CRC is wrong and
/// refuses a critical one, so without this nearly every mutation of iCCP, gAMA, cHRM, sRGB, tRNS or the image
/// data would be thrown away before the colour stage or the reduced decode saw it (the decoder-only target
/// keeps fuzzing the CRC checks). A file with right CRCs is what a hostile server sends anyway.
public func repairingPNGChunkCRCs(_ data: Data) -> Data {
    var bytes = [UInt8](data)
    var offset = 8
    while offset + 12 <= bytes.count {
        let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let end = offset + 8 + length
        guard length <= bytes.count, end + 4 <= bytes.count else { break }
        let crc = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[offset + 4..<end])) }
        for index in 0..<4 { bytes[end + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
        offset = end + 4
    }
    return Data(bytes)
}
