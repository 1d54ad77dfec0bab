import Foundation
import TroveCore
import TroveSupport

/// Decodes PNG files of every color type and bit depth, interlaced or not, to straight-alpha RGBA8.
/// 16-bit samples are rounded to 8 bits; pixels are returned as stored (no gamma or ICC conversion), with
/// what the iCCP (inflated), sRGB, gAMA and cHRM chunks say in `Image.colorDescription`. Given a
/// `DecodingOptions.colorConverter`, 16-bit samples are converted to sRGB before they are rounded.
/// Progressive: while a file arrives, it can show it after each Adam7 pass, or the rows so far.
package struct PNGDecoder: ProgressiveImageDecoder {
    /// The registry name, "png".
    package let name = "png"
    /// `.png`.
    package let format = ImageFormat.png

    /// The PNG decoder; it has no settings.
    package init() {}

    /// The eight-byte PNG signature.
    package func canDecode(_ header: Data) -> Bool {
        header.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    static func failure(_ reason: String) -> TroveError {
        TroveError.decodingFailed(format: .png, reason: reason)
    }

    /// Decodes at full size. Throws `imageTooLarge` when the header's size is over `limits`, and
    /// `decodingFailed` for a damaged file (a bad critical-chunk CRC, a truncated or corrupt stream, ...).
    package func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        try data.withUnsafeBytes { bytes in
            let file = try PNGFileLayout(bytes, limits: limits)
            let color = PNGColorPlan(file: file, converter: nil)
            return try Self.decodeWhole(bytes, file: file, limits: limits, color: color)
        }
    }

    /// 2: a box average is a poor last step (it aliases where a resampling filter would not), so the
    /// pipeline's resample is left at least a halving, as libvips' resize and Pillow's `thumbnail` leave it.
    package var leastReducingGap: Double { 2 }

    /// True: the box makes ceil(side / 2^k) pixels, the last of a side standing for part of a block.
    package var reducesByBlocks: Bool { true }

    /// With `options.minimumSize`, box-averages 2^k x 2^k blocks while the rows are unfiltered, for the
    /// largest k that keeps both sides at least that size (a partial block at an edge counts as one pixel),
    /// so the full-size image is never allocated. Adam7 files, whose rows come in seven passes, decode at
    /// full size. Limits apply to the stored size.
    package func decode(_ data: Data, options: DecodingOptions) throws -> Image {
        try data.withUnsafeBytes { bytes in
            let file = try PNGFileLayout(bytes, limits: options.limits)
            let shift =
                options.minimumSize.map {
                    Self.reductionShift(width: file.header.width, height: file.header.height, minimum: $0)
                } ?? 0
            let color = PNGColorPlan(file: file, converter: options.colorConverter)
            guard shift > 0, !file.header.interlaced else {
                return try Self.decodeWhole(bytes, file: file, limits: options.limits, color: color)
            }
            return try Self.decodeReduced(bytes, file: file, shift: shift, color: color)
        }
    }

    /// An incremental decode that shows an interlaced file after each Adam7 pass, and one that is not
    /// interlaced as its rows so far, refusing a size over `limits` as soon as the header has arrived.
    package func makeIncrementalDecoder(limits: DecodingLimits) -> any IncrementalImageDecoder {
        PNGIncrementalDecoder(limits: limits)
    }

    /// The EXIF block (a TIFF structure) of the eXIf chunk, after "Exif\0\0" when a writer copied JPEG's
    /// identifier before it, as Pillow and exiftool read it; without one that can be read, of ImageMagick's raw
    /// profile text chunk (`PNGRawProfile`). Looked for before the image data, where the PNG specification
    /// places eXIf; nil when there is neither, or both are damaged. Only those chunks' CRCs are computed.
    package func exif(_ data: Data) -> [UInt8]? {
        data.withUnsafeBytes { PNGMetadataChunks.exif(in: $0) }
    }

    /// The EXIF block's orientation (`exif(_:)`); `.up` without one.
    static func orientation(in bytes: UnsafeRawBufferPointer) -> ExifOrientation {
        PNGMetadataChunks.exif(in: bytes).flatMap { ExifBlock(tiff: $0)?.orientation } ?? .up
    }

    /// The size from the IHDR chunk and the EXIF block's orientation, without inflating the image data (a
    /// compressed raw profile is inflated, bounded by `PNGRawProfile.maxTextBytes`).
    package func info(_ data: Data) throws -> ImageInfo? {
        try data.withUnsafeBytes { bytes in
            let header = try Self.header(in: bytes)
            return ImageInfo(
                format: .png, width: header.width, height: header.height, orientation: Self.orientation(in: bytes))
        }
    }

    /// The IHDR chunk of a file's bytes, read without inflating anything: the signature, then IHDR first.
    static func header(in bytes: UnsafeRawBufferPointer) throws -> PNGHeader {
        guard bytes.starts(with: PNGChunkReader.signature) else {
            throw failure("invalid PNG signature; not a PNG file")
        }
        var reader = PNGChunkReader(bytes)
        guard let first = try reader.next(), first.type == PNGChunk.ihdr else {
            throw failure("the first chunk is not IHDR")
        }
        return try PNGHeader(parsing: UnsafeRawBufferPointer(rebasing: bytes[first.data]))
    }

    /// The largest k such that both sides reduced by 2^k (rounding up) are still at least `minimum`.
    static func reductionShift(width: Int, height: Int, minimum: PixelSize) -> Int {
        func reduced(_ shift: Int) -> (width: Int, height: Int) {
            (PNGBoxReducer.reducedLength(width, shift: shift), PNGBoxReducer.reducedLength(height, shift: shift))
        }
        var shift = 0
        // Stop at 1x1, where a further halving changes nothing.
        while shift < 30, reduced(shift).width > 1 || reduced(shift).height > 1,
            reduced(shift + 1).width >= minimum.width, reduced(shift + 1).height >= minimum.height
        {
            shift += 1
        }
        return shift
    }

    /// Inflates every scanline at once and expands them into the full-size RGBA image, colours as `color` says.
    static func decodeWhole(
        _ bytes: UnsafeRawBufferPointer, file: PNGFileLayout,
        limits: DecodingLimits, color: PNGColorPlan
    ) throws -> Image {
        let passes = PNGPass.passes(for: file.header)
        let rawCount = try Self.scanlineByteCount(header: file.header, passes: passes, limits: limits)
        // The spare byte tells a stream longer than the header implies (read to the header's rows) from one
        // that fits by chance.
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: rawCount + 1, alignment: 16)
        defer { raw.deallocate() }
        try Self.inflateScanlines(bytes, ranges: file.imageData, into: raw, expected: rawCount)
        let expander = PNGRowExpander(
            header: file.header,
            palette: file.palette.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) },
            transparency: file.transparency.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) },
            wideTransform: color.wideTransform)
        let pixels = try Self.reconstruct(raw, header: file.header, passes: passes, expander: expander)
        return Image(
            width: file.header.width, height: file.header.height, pixelFormat: .rgba8,
            bytesPerRow: file.header.width * 4, pixels: pixels, sourceFormat: .png,
            orientation: orientation(in: bytes), colorDescription: color.description)
    }

    /// The inflated size of all passes' scanlines, each with its filter-type byte.
    static func scanlineByteCount(header: PNGHeader, passes: [PNGPass], limits: DecodingLimits) throws -> Int {
        var total = 0
        for pass in passes {
            let (rows, overflow1) = pass.height.multipliedReportingOverflow(by: header.rowBytes(pixels: pass.width) + 1)
            let (sum, overflow2) = total.addingReportingOverflow(rows)
            guard !overflow1 && !overflow2 else {
                throw TroveError.imageTooLarge(width: header.width, height: header.height, limit: limits.maxPixels)
            }
            total = sum
        }
        return total
    }

    /// Inflates all IDAT data into `raw` in one go; fewer than `expected` bytes is an error, so a truncated
    /// file never yields a partial image. As libpng, browsers and Pillow do, a stream that holds every scanline
    /// is read even when its zlib end (the Adler-32 check) is missing or more data follows the last scanline.
    static func inflateScanlines(
        _ bytes: UnsafeRawBufferPointer, ranges: [Range<Int>],
        into raw: UnsafeMutableRawBufferPointer, expected: Int
    ) throws {
        switch ZlibInflater.inflate(bytes, ranges: ranges, into: raw, keepsPrefix: true) {
        case .finished(let produced) where produced >= expected, .truncated(let produced) where produced >= expected:
            return
        case .outputFull:
            return
        case .finished(let produced), .truncated(let produced):
            throw failure(
                "image data is truncated: it inflates to \(produced) of the \(expected) bytes its IHDR implies")
        case .corrupt(let reason):
            throw failure("corrupt image data in IDAT: \(reason)")
        }
    }

    /// Unfilters each pass's scanlines in place and expands them straight into their places in the
    /// RGBA result, in one pass over the data.
    private static func reconstruct(
        _ raw: UnsafeMutableRawBufferPointer, header: PNGHeader, passes: [PNGPass],
        expander: PNGRowExpander
    ) throws -> [UInt8] {
        let width = header.width
        return try [UInt8](unsafeUninitializedCapacity: width * header.height * 4) { output, initialized in
            guard let outBase = output.baseAddress, let rawBase = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            else { return }
            var offset = 0
            for (passIndex, pass) in passes.enumerated() {
                let rowBytes = header.rowBytes(pixels: pass.width)
                var previous: UnsafePointer<UInt8>?
                for y in 0..<pass.height {
                    let row = rawBase + offset + 1
                    guard
                        PNGFilter.unfilter(
                            rawBase[offset], row: row, previous: previous, count: rowBytes,
                            distance: header.filterDistance)
                    else {
                        let place = header.interlaced ? "row \(y) of pass \(passIndex + 1)" : "row \(y)"
                        throw failure("invalid filter type \(rawBase[offset]) in \(place)")
                    }
                    let start = ((pass.yStart + y * pass.yStep) * width + pass.xStart) * 4
                    expander.expand(
                        row, count: pass.width, into: UnsafeMutableRawPointer(outBase + start),
                        step: pass.xStep * 4)
                    previous = UnsafePointer(row)
                    offset += rowBytes + 1
                }
            }
            // Adam7's passes together cover every pixel, so the whole buffer is now written.
            initialized = output.count
        }
    }
}
