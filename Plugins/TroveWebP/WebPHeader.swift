import TroveCore

/// What a WebP file's RIFF container declares, read by Trove itself before libwebp sees the bytes: the
/// canvas size (so limits are checked first, even for sizes libwebp would reject as corrupt) and, for an
/// animation, how many frames it holds. Nothing here allocates in proportion to the declared size.
struct WebPHeader: Equatable {
    /// Canvas width in pixels, as declared.
    var width: Int
    /// Canvas height in pixels, as declared.
    var height: Int
    /// Whether the extended header (VP8X) sets the animation flag.
    var isAnimated: Bool
    /// ANMF chunks in the container for an animation (possibly 0 in a broken file); 1 for a still image.
    var frameCount: Int

    /// Parses the RIFF header and the first chunk (VP8, VP8L or VP8X); for an animation, walks the chunk
    /// headers to count frames. Throws `decodingFailed` when the bytes are not a WebP header.
    init(_ bytes: UnsafeRawBufferPointer) throws {
        func failure(_ reason: String) -> TroveError { .decodingFailed(format: .webp, reason: reason) }
        func le16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func le24(_ at: Int) -> Int { le16(at) | Int(bytes[at + 2]) << 16 }
        func le32(_ at: Int) -> Int { le24(at) | Int(bytes[at + 3]) << 24 }
        func fourCC(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }

        // RIFF header (12 bytes) plus the first chunk's header (8).
        guard bytes.count >= 20 else {
            throw failure("the file is too short to hold a WebP header (\(bytes.count) bytes)")
        }
        guard fourCC(0) == "RIFF", fourCC(8) == "WEBP" else {
            throw failure("the file does not start with a RIFF/WEBP header")
        }
        let chunk = fourCC(12)
        switch chunk {
        case "VP8X":
            // Flags (1 byte), reserved (3), canvas width - 1 and height - 1 (24 bits each).
            guard bytes.count >= 30 else { throw failure("the file ends inside the extended (VP8X) header") }
            width = le24(24) + 1
            height = le24(27) + 1
            isAnimated = bytes[20] & 0x02 != 0
        case "VP8L":
            // Signature byte 0x2F, then 14 bits of width - 1 and 14 bits of height - 1.
            guard bytes.count >= 25 else { throw failure("the file ends inside the lossless (VP8L) header") }
            guard bytes[20] == 0x2F else { throw failure("the lossless (VP8L) bitstream signature is missing") }
            let bits = le32(21)
            width = (bits & 0x3FFF) + 1
            height = ((bits >> 14) & 0x3FFF) + 1
            isAnimated = false
        case "VP8 ":
            // A 3-byte frame tag, the start code 9D 01 2A, then 14-bit width and height (2 scale bits above).
            guard bytes.count >= 30 else { throw failure("the file ends inside the lossy (VP8) header") }
            guard bytes[23] == 0x9D, bytes[24] == 0x01, bytes[25] == 0x2A else {
                throw failure("the lossy (VP8) key frame start code is missing")
            }
            width = le16(26) & 0x3FFF
            height = le16(28) & 0x3FFF
            isAnimated = false
        default:
            let printable = chunk.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }
            throw failure(
                printable
                    ? "the first chunk is '\(chunk)', not VP8, VP8L or VP8X"
                    : "the first chunk's name is not text: the file is not WebP")
        }
        guard width > 0, height > 0 else {
            throw failure("the header declares an empty image (\(width)x\(height))")
        }
        frameCount = isAnimated ? Self.countFrames(bytes, riffEnd: min(bytes.count, 8 + le32(4))) : 1
    }

    /// Counts ANMF chunks by hopping over chunk headers (each payload is padded to an even length); a chunk
    /// that runs past the end stops the count, and libwebp reports the truncation when it decodes.
    private static func countFrames(_ bytes: UnsafeRawBufferPointer, riffEnd: Int) -> Int {
        var offset = 12
        var frames = 0
        while offset + 8 <= riffEnd {
            if bytes[offset] == UInt8(ascii: "A"), bytes[offset + 1] == UInt8(ascii: "N"),
                bytes[offset + 2] == UInt8(ascii: "M"), bytes[offset + 3] == UInt8(ascii: "F")
            {
                frames += 1
            }
            let size =
                Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            offset += 8 + size + (size & 1)
        }
        return frames
    }
}
