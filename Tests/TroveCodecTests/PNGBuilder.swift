import Foundation
import TroveCodec
import TroveSupport

/// Builds PNG files chunk by chunk, for tests that need precisely broken or unusual files.
struct PNGBuilder {
    var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

    static func ihdr(
        width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 6,
        interlace: UInt8 = 0
    ) -> [UInt8] {
        be32(width) + be32(height) + [bitDepth, colorType, 0, 0, interlace]
    }

    /// Appends a chunk with a correct CRC, or with `crc` when given.
    mutating func chunk(_ type: String, _ data: [UInt8], crc: UInt32? = nil) {
        let typeAndData = Array(type.utf8) + data
        bytes += Self.be32(UInt32(data.count)) + typeAndData
        bytes += Self.be32(crc ?? typeAndData.withUnsafeBytes { CRC32.checksum($0) })
    }

    /// A complete PNG of `rows` (each already prefixed with its filter byte), zlib-compressed at level 6.
    static func png(ihdr: [UInt8], rows: [UInt8], extraBeforeIDAT: [(String, [UInt8])] = []) throws -> Data {
        var builder = PNGBuilder()
        builder.chunk("IHDR", ihdr)
        for (type, data) in extraBeforeIDAT { builder.chunk(type, data) }
        builder.chunk("IDAT", [UInt8](try ZlibCompressor().compress(Data(rows), level: 6)))
        builder.chunk("IEND", [])
        return Data(builder.bytes)
    }
}
