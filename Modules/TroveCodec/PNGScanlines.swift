import Foundation

extension PNGDecoder {
    /// The most inflated image data (rows with their filter bytes) a streamed or reduced decode holds at once:
    /// a 4 MP RGBA or 5.5 MP RGB image. Above it rows are inflated one at a time.
    package static let wholeInflateLimit = 16 << 20

    /// The scanline bytes a streamed or reduced decode of `data` holds (`PNGScanlines`), from its IHDR: the
    /// whole inflated image data up to `wholeInflateLimit`, else two scanlines; 0 for data whose IHDR cannot
    /// be read (the decode says why). The decode memory budget counts it (`DecodeFootprint`).
    package static func scanlineBytes(of data: Data) -> Int {
        guard let header = data.withUnsafeBytes({ try? Self.header(in: $0) }) else { return 0 }
        return PNGScanlines.buffer(rowBytes: header.rowBytes(pixels: header.width), height: header.height).bytes
    }
}

/// A non-interlaced PNG's scanlines for a decode that uses each row as it comes (the row-streaming and
/// reduced decodes), each with its filter-type byte first. Image data of at most `wholeInflateLimit` bytes
/// is inflated at once by libdeflate, about twice as fast as zlib row by row on a photo's literal-heavy
/// stream, and the rows are read from that buffer; larger data is inflated a row at a time by zlib into two
/// scanlines, so memory stays bounded. A truncated or corrupt stream fails with the same message either way
/// (on the first route, before any row is handed out); an overlong one, or one without its Adler-32, gives
/// its rows either way, as libpng reads it.
final class PNGScanlines {
    private let rowBytes: Int
    private let height: Int
    private let buffer: UnsafeMutableRawBufferPointer
    /// The zlib stream when rows are inflated one at a time; nil when the buffer holds every row.
    private let stream: ZlibInflateStream?
    private var nextRow = 0

    /// The scanlines of `ranges` (the IDAT data in `bytes`) for `height` rows of `rowBytes` bytes after the
    /// filter byte, inflated at once when they take at most `wholeInflateLimit` bytes (and then any error in
    /// the stream is thrown here).
    init(
        _ bytes: UnsafeRawBufferPointer, ranges: [Range<Int>], rowBytes: Int, height: Int,
        wholeInflateLimit: Int = PNGDecoder.wholeInflateLimit
    ) throws {
        self.rowBytes = rowBytes
        self.height = height
        let (expected, inflatesWhole) = Self.buffer(
            rowBytes: rowBytes, height: height, wholeInflateLimit: wholeInflateLimit)
        if inflatesWhole {
            // The spare byte tells a stream longer than the header implies from one that fits by chance.
            let whole = UnsafeMutableRawBufferPointer.allocate(byteCount: expected + 1, alignment: 16)
            do {
                try PNGDecoder.inflateScanlines(bytes, ranges: ranges, into: whole, expected: expected)
            } catch {
                // Thrown before every property is set, so deinit does not run: the buffer is freed here.
                whole.deallocate()
                throw error
            }
            buffer = whole
            stream = nil
        } else {
            guard let stream = ZlibInflateStream(bytes, ranges: ranges) else {
                throw PNGDecoder.failure("corrupt image data in IDAT: zlib could not start (out of memory)")
            }
            buffer = .allocate(byteCount: expected, alignment: 16)
            self.stream = stream
        }
    }

    /// The buffer for `height` scanlines of `rowBytes` bytes after the filter byte: all of them when they take
    /// at most `wholeInflateLimit` bytes (`inflatesWhole`), else two. The decode and the memory budget
    /// (`PNGDecoder.scanlineBytes(of:)`) both size it here.
    static func buffer(
        rowBytes: Int, height: Int, wholeInflateLimit: Int = PNGDecoder.wholeInflateLimit
    ) -> (bytes: Int, inflatesWhole: Bool) {
        let line = rowBytes + 1
        let (whole, overflow) = line.multipliedReportingOverflow(by: height)
        return !overflow && whole <= wholeInflateLimit ? (whole, true) : (2 * line, false)
    }

    deinit { buffer.deallocate() }

    /// The next scanline, filter byte first. The row before it stays where it was (and unchanged) until the
    /// call after this one, so it can be the row above for unfiltering.
    func next() throws -> UnsafeMutablePointer<UInt8> {
        let y = nextRow
        nextRow += 1
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard let stream else { return base + y * (rowBytes + 1) }
        let line = base + (y & 1) * (rowBytes + 1)
        switch stream.read(into: UnsafeMutableRawBufferPointer(start: line, count: rowBytes + 1)) {
        case .filled:
            return line
        case .ended(let produced), .truncated(let produced):
            throw PNGDecoder.failure(
                "image data is truncated: it inflates to \(y * (rowBytes + 1) + produced) "
                    + "of the \(height * (rowBytes + 1)) bytes its IHDR implies")
        case .corrupt(let reason):
            throw PNGDecoder.failure("corrupt image data in IDAT: \(reason)")
        }
    }

    /// Checks, after the last row, that the stream's end is not corrupt (a wrong Adler-32 says a byte above
    /// was). A missing end, or data past the last row, is read as libpng and browsers read it: the rows are all
    /// there. The whole route checked the same while inflating.
    func finish() throws {
        guard let stream else { return }
        var extra: UInt8 = 0
        if case .corrupt(let reason) = withUnsafeMutableBytes(of: &extra, { stream.read(into: $0) }) {
            throw PNGDecoder.failure("corrupt image data in IDAT: \(reason)")
        }
    }
}
