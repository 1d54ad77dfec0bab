import Foundation
import TroveCore

/// Decodes GIF87a/GIF89a files to straight-alpha RGBA8. Every frame is composed onto the logical screen
/// (honouring transparency, delay and disposal) the way browsers show it: the canvas starts transparent and
/// "restore to background" clears to transparent. The image's own pixels are the first frame; `frames`
/// holds every kept frame (at most `DecodingLimits.maxFrames`) when there is more than one.
package struct GIFDecoder: ImageDecoder {
    /// The registry name, "gif".
    package let name = "gif"
    /// `.gif`.
    package let format = ImageFormat.gif

    /// The GIF decoder; it has no settings.
    package init() {}

    /// "GIF87a" or "GIF89a".
    package func canDecode(_ header: Data) -> Bool {
        header.starts(with: "GIF87a".utf8) || header.starts(with: "GIF89a".utf8)
    }

    /// The logical screen's size and the number of frames, from the file's layout (no pixel is decoded).
    package func info(_ data: Data) throws -> ImageInfo? {
        try data.withUnsafeBytes { bytes in
            let layout = try GIFLayout(bytes)
            return ImageInfo(
                format: .gif, width: layout.screenWidth, height: layout.screenHeight,
                frameCount: max(1, layout.frames.count))
        }
    }

    /// Decodes the first `limits.maxFrames` frames at full size (GIF has no reduced decode); later frames are
    /// dropped, and one kept frame is a still. Throws `imageTooLarge` when the screen or a kept frame is over
    /// `limits`, `tooLargeToDecode` when the kept frames are over `maxDecodedBytes`, and `decodingFailed` for
    /// a damaged file.
    package func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        try data.withUnsafeBytes { bytes in
            let layout = try GIFLayout(bytes)
            let width = layout.screenWidth, height = layout.screenHeight
            try limits.check(width: width, height: height)
            // Counted from the file's layout, before any frame is decoded (an untrusted GIF may declare
            // thousands): only the kept ones are decoded, like imgproxy's IMGPROXY_MAX_ANIMATION_FRAMES.
            let kept = layout.frames.prefix(limits.keptFrames(of: layout.frames.count))
            // A frame may be larger than the screen, and its indices are decoded whole.
            for frame in kept { try limits.check(width: frame.width, height: frame.height) }
            // Every kept frame is held at full size, so they must fit the byte limit together.
            try limits.check(frames: kept.count, width: width, height: height)
            var canvas = GIFCanvas(width: width, height: height)
            var frames: [AnimationFrame] = []
            frames.reserveCapacity(kept.count)
            for (index, frame) in kept.enumerated() {
                let palette = GIFPalette(
                    bytes, range: frame.localPalette ?? layout.globalPalette,
                    transparentIndex: frame.transparentIndex)
                let indices: [UInt8], decodedRows: [Int]?
                do {
                    (indices, decodedRows) = try Self.indices(of: frame, number: index + 1, in: bytes)
                } catch  where index > 0 {
                    break  // an animation plays the frames before one whose data is damaged, as browsers do
                }
                canvas.draw(indices, frame: frame, palette: palette, decodedRows: decodedRows)
                frames.append(
                    AnimationFrame(
                        pixels: canvas.pixels,
                        delay: .milliseconds(frame.delayCentiseconds * 10)))
                // After the last frame the canvas is not needed: left alone, it shares its pixels with that
                // frame instead of being copied for a disposal nobody sees.
                if index < kept.count - 1 { canvas.dispose(frame) }
            }
            let first = frames[0].pixels
            return Image(
                width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: first,
                sourceFormat: .gif, frames: frames.count > 1 ? frames : [], loopCount: layout.loopCount)
        }
    }

    /// The frame's palette indices in display row order (interlaced rows put back in place), and when the
    /// data gave fewer pixels than the frame holds, how many of each display row's pixels it gave (from the
    /// left; nil when it gave every pixel).
    private static func indices(of frame: GIFFrameLayout, number: Int, in bytes: UnsafeRawBufferPointer) throws
        -> (indices: [UInt8], decodedRows: [Int]?)
    {
        // The sub-blocks are joined so the LZW reader sees one stream; their total is at most the file size.
        var stream = [UInt8]()
        stream.reserveCapacity(frame.dataBlocks.reduce(0) { $0 + $1.count })
        for block in frame.dataBlocks { stream.append(contentsOf: bytes[block]) }
        let count = frame.width * frame.height
        var decoded = [UInt8](repeating: 0, count: count)
        let written = try stream.withUnsafeBytes { input in
            try decoded.withUnsafeMutableBufferPointer { output in
                try GIFLZWDecoder.decode(input, minimumCodeSize: frame.minimumCodeSize, into: output, frame: number)
            }
        }
        // Stream row s holds the pixels s * width ..< (s + 1) * width of the data.
        let rowsGiven = { (s: Int) in min(frame.width, max(0, written - s * frame.width)) }
        guard frame.interlaced, frame.height > 1 else {
            return (decoded, written < count ? (0..<frame.height).map(rowsGiven) : nil)
        }
        var ordered = [UInt8](repeating: 0, count: count)
        var decodedRows = written < count ? [Int](repeating: 0, count: frame.height) : nil
        var sourceRow = 0
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            for row in stride(from: start, to: frame.height, by: step) {
                ordered[row * frame.width..<(row + 1) * frame.width] =
                    decoded[sourceRow * frame.width..<(sourceRow + 1) * frame.width]
                decodedRows?[row] = rowsGiven(sourceRow)
                sourceRow += 1
            }
        }
        return (ordered, decodedRows)
    }
}

/// A color table expanded to 256 RGBA entries; indices past its end are opaque black, the transparent
/// index (if any) is fully transparent. A frame with neither a local nor a global table gets a gray ramp
/// (index i is gray i), as Pillow shows one: the spec leaves such a table to the decoder.
struct GIFPalette {
    var entries = [UInt32](repeating: 0, count: 256)

    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>?, transparentIndex: Int?) {
        for i in 0..<256 {
            let gray = range == nil ? UInt8(i) : 0
            entries[i] = Self.pack(gray, gray, gray, 255)
        }
        if let range {
            for (i, offset) in stride(from: range.lowerBound, to: range.upperBound - 2, by: 3).enumerated()
            where i < 256 {
                entries[i] = Self.pack(bytes[offset], bytes[offset + 1], bytes[offset + 2], 255)
            }
        }
        if let transparentIndex, transparentIndex < 256 { entries[transparentIndex] = 0 }
    }

    /// RGBA bytes in memory order, as one little-endian word (Trove targets little-endian machines).
    private static func pack(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8) -> UInt32 {
        UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | UInt32(a) << 24
    }
}
