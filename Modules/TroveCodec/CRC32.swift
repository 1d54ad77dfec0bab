import CZlib
import Foundation

/// The CRC-32 of PNG chunks, gzip and the disk cache's entry header (zlib's table-driven implementation).
public enum CRC32 {
    /// The CRC of `bytes`; pass an earlier result as `seed` to continue a running checksum.
    public static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return seed }
        return UInt32(truncatingIfNeeded: crc32_z(UInt(seed), base.assumingMemoryBound(to: Bytef.self),
                                                  bytes.count))
    }

    /// The CRC of `data`; pass an earlier result as `seed` to continue a running checksum.
    public static func checksum(_ data: Data, seed: UInt32 = 0) -> UInt32 {
        data.withUnsafeBytes { checksum($0, seed: seed) }
    }
}
