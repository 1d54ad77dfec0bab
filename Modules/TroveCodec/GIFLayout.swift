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
    /// False when the file ends inside the data (only a first frame is kept so).
    var dataComplete = true
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
        do {
            globalPalette =
                flags & 0x80 != 0 ? try reader.palette(sizeBits: flags & 7, owner: "global color table") : nil
        } catch let end as GIFEarlyEnd {
            throw Self.failure(end.reason)
        }

        var frames: [GIFFrameLayout] = []
        var pending = GIFFrameLayout()
        var loopCount = 1
        // A file that ends early, or goes on with bytes that are no block or a frame that cannot be read, ends
        // after its last whole frame, as browsers show it; only a file with no frame before that is an error.
        scan: while true {
            do {
                guard let introducer = reader.byte() else {
                    throw GIFEarlyEnd(
                        "the file ends after \(frames.count) frame(s) without the trailer byte 0x3B (it is truncated)")
                }
                switch introducer {
                case 0x3B:
                    break scan
                case 0x21:
                    guard let label = reader.byte() else {
                        throw GIFEarlyEnd("the file ends inside an extension (it is truncated)")
                    }
                    if label == 0xF9 {
                        try Self.readGraphicControl(&reader, into: &pending)
                    } else if label == 0xFF {
                        loopCount = try Self.readApplication(&reader) ?? loopCount
                    } else {
                        _ = try reader.subBlocks(owner: "extension 0x\(String(label, radix: 16))")
                    }
                case 0x2C:
                    let frame = try Self.readFrame(&reader, after: pending, number: frames.count + 1)
                    pending = GIFFrameLayout()
                    // A frame the file cuts is shown as far as its data goes when it is the first; an animation
                    // plays only its whole frames.
                    if frame.dataComplete || frames.isEmpty { frames.append(frame) }
                    if !frame.dataComplete { break scan }
                case 0x00:
                    // A stray zero between blocks (Pillow 12.0 wrote one after some files' global color table):
                    // skipped, as Pillow and GIF87a's "ignore until the next separator" read it.
                    continue scan
                default:
                    guard frames.isEmpty else { break scan }
                    throw Self.failure(
                        "unknown block type 0x\(String(introducer, radix: 16)) at byte \(reader.offset - 1)")
                }
            } catch let end as GIFEarlyEnd {
                guard frames.isEmpty else { break scan }
                throw Self.failure(end.reason)
            }
        }
        guard !frames.isEmpty else { throw Self.failure("the file holds no image") }
        self.frames = frames
        self.loopCount = loopCount
    }

    /// The frame whose image descriptor follows, with what the Graphic Control Extension before it set.
    private static func readFrame(
        _ reader: inout GIFByteReader, after control: GIFFrameLayout, number: Int
    ) throws -> GIFFrameLayout {
        var frame = control
        guard let left = reader.uint16(), let top = reader.uint16(), let w = reader.uint16(),
            let h = reader.uint16(), let frameFlags = reader.byte()
        else {
            throw GIFEarlyEnd("the file ends inside the descriptor of frame \(number) (it is truncated)")
        }
        (frame.left, frame.top, frame.width, frame.height) = (left, top, w, h)
        frame.interlaced = frameFlags & 0x40 != 0
        if frameFlags & 0x80 != 0 {
            frame.localPalette = try reader.palette(
                sizeBits: frameFlags & 7, owner: "local color table of frame \(number)")
        }
        guard let codeSize = reader.byte() else {
            throw GIFEarlyEnd("the file ends before the image data of frame \(number) (it is truncated)")
        }
        // The spec says 2...8; browsers read up to 11 (the widest that leaves room for a 12-bit code).
        guard (2...11).contains(codeSize) else {
            throw GIFEarlyEnd("frame \(number) has an LZW minimum code size of \(codeSize); it must be 2...11")
        }
        frame.minimumCodeSize = Int(codeSize)
        (frame.dataBlocks, frame.dataComplete) = reader.dataSubBlocks()
        guard frame.dataComplete || !frame.dataBlocks.isEmpty else {
            throw GIFEarlyEnd("the file ends inside the image data of frame \(number) (it is truncated)")
        }
        return frame
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

/// What stops the reading before the trailer (the file ends inside a block, or a frame cannot be read): the
/// end of the image once a frame is in, as browsers take it, else an error with this reason.
struct GIFEarlyEnd: Error {
    let reason: String

    init(_ reason: String) { self.reason = reason }
}
