import TroveCore
import TroveSupport

/// One chunk of a PNG file: its four-letter type and where its data lies in the file.
struct PNGChunk {
    static let ihdr: UInt32 = 0x4948_4452
    static let plte: UInt32 = 0x504C_5445
    static let idat: UInt32 = 0x4944_4154
    static let iend: UInt32 = 0x4945_4E44
    static let trns: UInt32 = 0x7452_4E53
    static let exif: UInt32 = 0x6558_4966

    let type: UInt32
    let data: Range<Int>

    /// Critical chunks have an uppercase first letter (bit 5 clear); a decoder must understand them.
    var isCritical: Bool { type & 0x2000_0000 == 0 }

    var name: String { Self.name(of: type) }

    static func name(of type: UInt32) -> String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: type >> $0) }, as: UTF8.self)
    }
}

/// Walks the chunks of a PNG file after its signature, checking lengths and CRCs.
struct PNGChunkReader {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private let bytes: UnsafeRawBufferPointer
    private var offset = PNGChunkReader.signature.count

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The next chunk whose CRC is right, or nil at the exact end of the file. An ancillary chunk with a bad
    /// CRC is skipped (it carries nothing we need); a critical one is an error, as is a chunk cut short.
    mutating func next() throws -> PNGChunk? {
        while true {
            let remaining = bytes.count - offset
            if remaining == 0 { return nil }
            guard remaining >= 8 else {
                throw PNGDecoder.failure("file ends inside a chunk header at byte \(offset) (truncated file)")
            }
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian)
            let type = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).bigEndian
            let name = PNGChunk.name(of: type)
            guard Self.isValidType(type) else {
                throw PNGDecoder.failure("invalid chunk type bytes at byte \(offset + 4) (corrupt file)")
            }
            guard length <= Int(Int32.max) else {
                throw PNGDecoder.failure("\(name) chunk length \(length) exceeds the 2^31-1 limit")
            }
            guard remaining - 12 >= length else {
                throw PNGDecoder.failure(
                    "file ends inside \(name) chunk: it needs \(length + 12) bytes, \(remaining) remain "
                        + "(truncated file)")
            }
            let dataStart = offset + 8
            let stored = bytes.loadUnaligned(fromByteOffset: dataStart + length, as: UInt32.self).bigEndian
            let computed = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(dataStart + length)]))
            offset = dataStart + length + 4
            let chunk = PNGChunk(type: type, data: dataStart..<(dataStart + length))
            if stored == computed { return chunk }
            if chunk.isCritical {
                throw PNGDecoder.failure("CRC mismatch in \(name) chunk (corrupt file)")
            }
        }
    }

    /// Chunk types are four ASCII letters.
    private static func isValidType(_ type: UInt32) -> Bool {
        [24, 16, 8, 0].allSatisfy { shift in
            let byte = UInt8(truncatingIfNeeded: type >> shift)
            return (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
    }
}
