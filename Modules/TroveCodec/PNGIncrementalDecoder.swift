import Foundation
import TroveCore
import TroveSupport

/// Shows a PNG as it arrives: an interlaced one after each complete Adam7 pass (pass 1 as 8x8 blocks, then
/// ever finer, each missing pixel repeated from the top-left pixel of its block), one that is not
/// interlaced as the rows so far over transparency. The chunk walk and the inflater keep their place
/// between calls, so each call inflates only the new image data, and each scanline is unfiltered once,
/// into a canvas kept for the next preview. The IDAT CRCs are left to the full decode.
final class PNGIncrementalDecoder: IncrementalImageDecoder {
    private let limits: DecodingLimits
    /// Where the next unread chunk (or the rest of the current IDAT) starts in the file.
    private var offset = PNGChunkReader.signature.count
    /// The end of the current IDAT chunk's data while inside it.
    private var imageDataEnd: Int?
    private var header: PNGHeader?
    private var palette: [UInt8]?
    private var transparency: [UInt8]?
    private var sawImageData = false
    private var finished = false
    /// Set by the first failure, which every later call repeats.
    private var failure: (any Error)?
    private var image: ImageState?

    /// What exists once the image data starts: the inflated scanlines, the canvas, and how far both are.
    private final class ImageState {
        let passes: [PNGPass]
        let expander: PNGRowExpander
        let inflater: ZlibFeedInflater
        /// Every pass's filtered scanlines, as the header sizes them, plus one byte that catches a longer stream.
        let raw: UnsafeMutableRawBufferPointer
        let rawCount: Int
        /// The exact pixels of the scanlines shown so far; the rest zero.
        var canvas: [UInt8]
        /// Scanlines unfiltered into the canvas, counted across passes in file order.
        var scanlinesShown = 0

        init(passes: [PNGPass], expander: PNGRowExpander, inflater: ZlibFeedInflater, rawCount: Int, pixels: Int) {
            self.passes = passes
            self.expander = expander
            self.inflater = inflater
            self.rawCount = rawCount
            raw = .allocate(byteCount: rawCount + 1, alignment: 16)
            canvas = [UInt8](repeating: 0, count: pixels * 4)
        }

        deinit { raw.deallocate() }
    }

    init(limits: DecodingLimits) {
        self.limits = limits
    }

    func preview(_ data: Data) throws -> Image? {
        if let failure { throw failure }
        do {
            return try decodePreview(data)
        } catch {
            failure = error
            throw error
        }
    }

    private func decodePreview(_ data: Data) throws -> Image? {
        guard !finished else { return nil }
        try data.withUnsafeBytes { bytes in try read(bytes) }
        guard let header, let image else { return nil }
        let pixels: [UInt8]
        if header.interlaced {
            let complete = Self.completePasses(image.passes, header: header, produced: image.inflater.produced)
            let scanlines = image.passes.prefix(complete).reduce(0) { $0 + $1.height }
            guard scanlines > image.scanlinesShown else { return nil }
            try reconstruct(image, header: header, upTo: scanlines)
            finished = complete == image.passes.count
            pixels =
                finished ? image.canvas : Self.filled(image.canvas, header: header, after: image.passes[complete - 1])
        } else {
            let rows = min(header.height, image.inflater.produced / (header.rowBytes(pixels: header.width) + 1))
            guard rows > image.scanlinesShown else { return nil }
            try reconstruct(image, header: header, upTo: rows)
            finished = rows == header.height
            pixels = image.canvas
        }
        return Image(
            width: header.width, height: header.height, pixelFormat: .rgba8, bytesPerRow: header.width * 4,
            pixels: pixels, sourceFormat: .png)
    }

    // MARK: - Reading

    /// Walks the chunks that have arrived, feeding image data to the inflater as far as it goes.
    private func read(_ bytes: UnsafeRawBufferPointer) throws {
        if !sawSignature {
            guard bytes.count >= PNGChunkReader.signature.count else { return }
            guard bytes.prefix(PNGChunkReader.signature.count).elementsEqual(PNGChunkReader.signature) else {
                throw PNGDecoder.failure("invalid PNG signature; not a PNG file")
            }
            sawSignature = true
        }
        while true {
            if let end = imageDataEnd {
                let available = min(end, bytes.count)
                if available > offset {
                    try inflate(UnsafeRawBufferPointer(rebasing: bytes[offset..<available]))
                    offset = available
                }
                guard offset == end, bytes.count >= end + 4 else { return }
                imageDataEnd = nil
                offset = end + 4  // the CRC, checked by the full decode
                continue
            }
            guard bytes.count - offset >= 8 else { return }
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian)
            let type = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).bigEndian
            guard length <= Int(Int32.max) else {
                throw PNGDecoder.failure("\(PNGChunk.name(of: type)) chunk length \(length) exceeds the 2^31-1 limit")
            }
            let dataStart = offset + 8
            if type == PNGChunk.idat {
                try startImageData()
                imageDataEnd = dataStart + length
                offset = dataStart
                continue
            }
            // Other chunks are small: wait for the whole of one and check it.
            guard bytes.count - dataStart >= length + 4 else { return }
            let stored = bytes.loadUnaligned(fromByteOffset: dataStart + length, as: UInt32.self).bigEndian
            let chunkData = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<(dataStart + length)])
            let computed = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(dataStart + length)]))
            offset = dataStart + length + 4
            let chunk = PNGChunk(type: type, data: dataStart..<(dataStart + length))
            guard stored == computed || !chunk.isCritical else {
                throw PNGDecoder.failure("CRC mismatch in \(chunk.name) chunk (corrupt file)")
            }
            try take(chunk, data: chunkData)
            if type == PNGChunk.iend { return }
        }
    }

    private var sawSignature = false

    /// Keeps what a chunk before the image data says (header, palette, transparency).
    private func take(_ chunk: PNGChunk, data: UnsafeRawBufferPointer) throws {
        guard header != nil || chunk.type == PNGChunk.ihdr else {
            throw PNGDecoder.failure("first chunk is \(chunk.name), expected IHDR")
        }
        switch chunk.type {
        case PNGChunk.ihdr:
            guard header == nil else { throw PNGDecoder.failure("second IHDR chunk") }
            let parsed = try PNGHeader(parsing: data)
            // As the full decode does: refuse before anything is sized by the header.
            try limits.check(
                width: parsed.width, height: parsed.height, bytesPerPixel: max(4, (parsed.bitsPerPixel + 7) / 8))
            header = parsed
        case PNGChunk.plte where !sawImageData:
            palette = [UInt8](data)
        case PNGChunk.trns where !sawImageData:
            transparency = [UInt8](data)
        default:
            break  // ancillary chunks do not change the pixels; the full decode judges the rest
        }
    }

    /// At the first IDAT: sizes the scanline buffer and the canvas (the limits were checked with the header).
    private func startImageData() throws {
        guard !sawImageData else { return }
        sawImageData = true
        guard let header else { throw PNGDecoder.failure("first chunk is IDAT, expected IHDR") }
        if header.colorType == .palette && palette == nil {
            throw PNGDecoder.failure("missing PLTE chunk, required for color type 3")
        }
        let passes = PNGPass.passes(for: header)
        let rawCount = try PNGDecoder.scanlineByteCount(header: header, passes: passes, limits: limits)
        guard let inflater = ZlibFeedInflater() else {
            throw PNGDecoder.failure("zlib could not start (out of memory)")
        }
        let expander = palette.withOptionalBytes { palette in
            transparency.withOptionalBytes { transparency in
                PNGRowExpander(header: header, palette: palette, transparency: transparency)
            }
        }
        image = ImageState(
            passes: passes, expander: expander, inflater: inflater, rawCount: rawCount,
            pixels: header.width * header.height)
    }

    private func inflate(_ input: UnsafeRawBufferPointer) throws {
        guard let image else { return }
        let outcome = image.inflater.feed(input, into: image.raw)
        if case .corrupt(let reason) = outcome {
            throw PNGDecoder.failure("corrupt image data in IDAT: \(reason)")
        }
        // Data past the last scanline (the buffer's spare byte filled) is left unread, as the whole decode
        // leaves it.
    }

    // MARK: - Pictures

    /// How many passes' scanlines have all been inflated.
    private static func completePasses(_ passes: [PNGPass], header: PNGHeader, produced: Int) -> Int {
        var end = 0
        for (index, pass) in passes.enumerated() {
            end += pass.height * (header.rowBytes(pixels: pass.width) + 1)
            if end > produced { return index }
        }
        return passes.count
    }

    /// Unfilters the scanlines from where the canvas stands up to `target` (counted across passes in file
    /// order) into the canvas: once each, since unfiltering works in place.
    private func reconstruct(_ image: ImageState, header: PNGHeader, upTo target: Int) throws {
        guard let rawBase = image.raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        try image.canvas.withUnsafeMutableBytes { canvas in
            guard let outBase = canvas.baseAddress else { return }
            var passStart = 0  // the pass's first scanline, counted across passes
            var offset = 0  // its first byte in `raw`
            for (passIndex, pass) in image.passes.enumerated() {
                let stride = header.rowBytes(pixels: pass.width) + 1
                defer {
                    passStart += pass.height
                    offset += pass.height * stride
                }
                let first = max(image.scanlinesShown, passStart) - passStart
                let end = min(target, passStart + pass.height) - passStart
                guard first < end else { continue }
                for y in first..<end {
                    let at = offset + y * stride
                    let row = rawBase + at + 1
                    let previous = y > 0 ? UnsafePointer(row - stride) : nil
                    guard
                        PNGFilter.unfilter(
                            rawBase[at], row: row, previous: previous, count: stride - 1,
                            distance: header.filterDistance)
                    else {
                        let place = header.interlaced ? "row \(y) of pass \(passIndex + 1)" : "row \(y)"
                        throw PNGDecoder.failure("invalid filter type \(rawBase[at]) in \(place)")
                    }
                    let start = ((pass.yStart + y * pass.yStep) * header.width + pass.xStart) * 4
                    image.expander.expand(row, count: pass.width, into: outBase + start, step: pass.xStep * 4)
                }
            }
        }
        image.scanlinesShown = target
    }

    /// The canvas with every pixel the passes so far lack copied from the one that stands for its block:
    /// after a pass starting at (x, y) with steps (sx, sy), the known pixels form a grid of blocks
    /// x or sx wide and y or sy high (Adam7's 8x8, 4x8, 4x4, 2x4, 2x2, 1x2).
    private static func filled(_ canvas: [UInt8], header: PNGHeader, after pass: PNGPass) -> [UInt8] {
        let blockWidth = pass.xStart > 0 ? pass.xStart : pass.xStep
        let blockHeight = pass.xStart > 0 ? pass.yStep : (pass.yStart > 0 ? pass.yStart : pass.yStep)
        let width = header.width
        return [UInt8](unsafeUninitializedCapacity: canvas.count) { output, initialized in
            let target = UnsafeMutableRawBufferPointer(output)
            canvas.withUnsafeBytes { source in
                for y in 0..<header.height {
                    let anchorRow = (y / blockHeight * blockHeight) * width
                    for x in 0..<width {
                        let pixel = source.loadUnaligned(
                            fromByteOffset: (anchorRow + x / blockWidth * blockWidth) * 4, as: UInt32.self)
                        target.storeBytes(of: pixel, toByteOffset: (y * width + x) * 4, as: UInt32.self)
                    }
                }
            }
            initialized = canvas.count
        }
    }
}

extension Optional where Wrapped == [UInt8] {
    /// Runs `body` on the array's bytes, or on nil.
    fileprivate func withOptionalBytes<R>(_ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let self else { return body(nil) }
        return self.withUnsafeBytes { body($0) }
    }
}
