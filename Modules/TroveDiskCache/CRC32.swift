import CZlib
import Foundation

/// zlib's CRC-32, the checksum every entry header carries for its original payload.
enum CRC32 {
    static func checksum(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { checksum($0) }
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress else { return 0 }
        var crc: uLong = 0
        var offset = 0
        // zlib takes a 32-bit length, so feed very large buffers in pieces.
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, 1 << 30)
            crc = crc32(crc, (base + offset).assumingMemoryBound(to: Bytef.self), uInt(chunk))
            offset += chunk
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
