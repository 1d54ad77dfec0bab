import TroveCore

/// One image in a GIF file as the first pass over the file found it: where its pieces are, not its pixels.
struct GIFFrameLayout {
    var left = 0, top = 0, width = 0, height = 0
    var interlaced = false
    /// Byte range of the local color table, if the frame has one.
    var localPalette: Range<Int>?
    var minimumCodeSize = 0
    /// Byte ranges of the LZW data sub-blocks, in order.
    var dataBlocks: [Range<Int>] = []
    /// From the Graphic Control Extension that preceded the frame.
    var delayCentiseconds = 0
    var disposal = GIFDisposal.none
    var transparentIndex: Int?
}

/// What happens to a frame's area before the next frame is drawn (GIF89a Graphic Control Extension).
enum GIFDisposal: Int {
    /// 0 (unspecified) and 1 (do not dispose): the frame stays.
    case none = 1
    /// 2: the frame's area is cleared to transparent before the next frame.
    case restoreBackground = 2
    /// 3: the canvas returns to what it was before this frame was drawn.
    case restorePrevious = 3
}

/// The structure of a whole GIF file, read without decoding any pixels so that limits can be checked
/// (and truncation found) before anything large is allocated.
struct GIFLayout {
    let screenWidth: Int
    let screenHeight: Int
    let globalPalette: Range<Int>?
    let frames: [GIFFrameLayout]
    /// How many times the animation plays (`Image.loopCount`: 0 is forever). Without the NETSCAPE2.0
    /// looping extension a GIF plays once; with it, its count N repeats the animation N more times (0:
    /// forever), as browsers play it.
    let loopCount: Int

    static func failure(_ reason: String) -> TroveError {
        TroveError.decodingFailed(format: .gif, reason: reason)
    }

    init(_ bytes: UnsafeRawBufferPointer) throws {
        var reader = GIFByteReader(bytes)
        guard let signature = reader.take(6),
            Array(signature) == Array("GIF87a".utf8) || Array(signature) == Array("GIF89a".utf8)
        else {
            throw Self.failure("the file does not start with the GIF87a or GIF89a signature")
        }
        guard let width = reader.uint16(), let height = reader.uint16(), let flags = reader.byte(),
            reader.take(2) != nil
        else {
            throw Self.failure("the file ends inside the logical screen descriptor (it is truncated)")
        }
        guard width > 0 && height > 0 else {
            throw Self.failure("the logical screen is \(width)x\(height); both sides must be at least 1")
        }
        screenWidth = width
        screenHeight = height
        globalPalette = flags & 0x80 != 0 ? try reader.palette(sizeBits: flags & 7, owner: "global color table") : nil

        var frames: [GIFFrameLayout] = []
        var pending = GIFFrameLayout()
        var loopCount = 1
        scan: while true {
            guard let introducer = reader.byte() else {
                throw Self.failure(
                    "the file ends after \(frames.count) frame(s) without the trailer byte 0x3B "
                        + "(it is truncated)")
            }
            switch introducer {
            case 0x3B:
                break scan
            case 0x21:
                guard let label = reader.byte() else {
                    throw Self.failure("the file ends inside an extension (it is truncated)")
                }
                if label == 0xF9 {
                    try Self.readGraphicControl(&reader, into: &pending)
                } else if label == 0xFF {
                    loopCount = try Self.readApplication(&reader) ?? loopCount
                } else {
                    _ = try reader.subBlocks(owner: "extension 0x\(String(label, radix: 16))")
                }
            case 0x2C:
                var frame = pending
                pending = GIFFrameLayout()
                guard let left = reader.uint16(), let top = reader.uint16(), let w = reader.uint16(),
                    let h = reader.uint16(), let frameFlags = reader.byte()
                else {
                    throw Self.failure(
                        "the file ends inside the descriptor of frame \(frames.count + 1) (it is truncated)")
                }
                (frame.left, frame.top, frame.width, frame.height) = (left, top, w, h)
                frame.interlaced = frameFlags & 0x40 != 0
                if frameFlags & 0x80 != 0 {
                    frame.localPalette = try reader.palette(
                        sizeBits: frameFlags & 7,
                        owner: "local color table of frame \(frames.count + 1)")
                }
                guard frame.localPalette != nil || globalPalette != nil else {
                    throw Self.failure("frame \(frames.count + 1) has no color table (neither local nor global)")
                }
                guard let codeSize = reader.byte() else {
                    throw Self.failure(
                        "the file ends before the image data of frame \(frames.count + 1) "
                            + "(it is truncated)")
                }
                guard (2...8).contains(codeSize) else {
                    throw Self.failure(
                        "frame \(frames.count + 1) has an LZW minimum code size of \(codeSize); "
                            + "it must be 2...8")
                }
                frame.minimumCodeSize = Int(codeSize)
                frame.dataBlocks = try reader.subBlocks(owner: "image data of frame \(frames.count + 1)")
                frames.append(frame)
            default:
                throw Self.failure("unknown block type 0x\(String(introducer, radix: 16)) at byte \(reader.offset - 1)")
            }
        }
        guard !frames.isEmpty else { throw Self.failure("the file holds no image") }
        self.frames = frames
        self.loopCount = loopCount
    }

    /// The loop count of a NETSCAPE2.0 (or ANIMEXTS1.0) application extension, as `loopCount` counts it; nil
    /// for any other application's data.
    private static func readApplication(_ reader: inout GIFByteReader) throws -> Int? {
        let blocks = try reader.subBlocks(owner: "application extension")
        guard blocks.count >= 2, blocks[0].count == 11, blocks[1].count >= 3 else { return nil }
        let identifier = Array(reader.bytes[blocks[0]])
        guard identifier == Array("NETSCAPE2.0".utf8) || identifier == Array("ANIMEXTS1.0".utf8),
            reader.byte(at: blocks[1].lowerBound) == 1, let repeats = reader.uint16(at: blocks[1].lowerBound + 1)
        else { return nil }
        return repeats == 0 ? 0 : repeats + 1
    }

    private static func readGraphicControl(_ reader: inout GIFByteReader, into frame: inout GIFFrameLayout) throws {
        let blocks = try reader.subBlocks(owner: "graphic control extension")
        // The spec fixes this block at 4 bytes; a shorter one carries nothing usable, so it is ignored.
        guard let block = blocks.first, block.count >= 4, let flags = reader.byte(at: block.lowerBound),
            let delay = reader.uint16(at: block.lowerBound + 1), let transparent = reader.byte(at: block.lowerBound + 3)
        else { return }
        frame.disposal = GIFDisposal(rawValue: Int(flags >> 2) & 7) ?? .none
        frame.delayCentiseconds = delay
        frame.transparentIndex = flags & 1 != 0 ? Int(transparent) : nil
    }
}

/// Bounds-checked reading of a GIF file: every read returns nil instead of running past the end.
struct GIFByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> Int? {
        guard let value = uint16(at: offset) else { return nil }
        offset += 2
        return value
    }

    mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    func byte(at index: Int) -> UInt8? { index >= 0 && index < bytes.count ? bytes[index] : nil }

    /// A little-endian 16-bit value.
    func uint16(at index: Int) -> Int? {
        guard let low = byte(at: index), let high = byte(at: index + 1) else { return nil }
        return Int(low) | Int(high) << 8
    }

    /// Skips a color table of 2^(sizeBits+1) RGB entries and returns its range.
    mutating func palette(sizeBits: UInt8, owner: String) throws -> Range<Int> {
        let count = 3 << (Int(sizeBits) + 1)
        guard count <= bytes.count - offset else {
            throw GIFLayout.failure("the file ends inside the \(owner) (it is truncated)")
        }
        defer { offset += count }
        return offset..<offset + count
    }

    /// Reads a chain of length-prefixed sub-blocks up to its zero terminator and returns their ranges.
    mutating func subBlocks(owner: String) throws -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        while true {
            guard let length = byte() else {
                throw GIFLayout.failure("the file ends inside the \(owner) (it is truncated)")
            }
            if length == 0 { return ranges }
            guard Int(length) <= bytes.count - offset else {
                throw GIFLayout.failure("the file ends inside the \(owner) (it is truncated)")
            }
            ranges.append(offset..<offset + Int(length))
            offset += Int(length)
        }
    }
}
