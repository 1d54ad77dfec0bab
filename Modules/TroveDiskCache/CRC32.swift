import CTroveSupport
import Foundation

/// zlib's CRC-32, the checksum every entry header carries for its original payload, computed by
/// carry-less multiplication where the CPU has it (see CTroveSupport), so verifying a payload on
/// every read costs a fraction of reading it.
enum CRC32 {
    static func checksum(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { checksum($0) }
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        return trove_crc32(0, base, bytes.count)
    }
}
