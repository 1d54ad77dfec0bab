import Foundation
import TroveCore
import TroveSupport

/// Encodes RGBA8 and gray8 images as 8-bit, non-interlaced PNG, choosing a filter per row.
/// RGBA images whose pixels are all opaque are written as RGB (color type 2) to save a quarter of the data.
/// Only the still image is written; animation frames are not. An image that still carries its source's ICC
/// profile (the colour stage kept it) gets it back in an iCCP chunk, and its copyright notice in eXIf (EXIF's
/// fields) and in an iTXt XMP packet (all of its fields).
package struct PNGEncoder: ImageEncoder {
    /// The registry name, "png".
    package let name = "png"
    /// `.png`.
    package let format = ImageFormat.png

    /// IDAT chunks are cut at this size so no single chunk grows unbounded with the image.
    static let maxChunkData = 1 << 20

    /// The PNG encoder; its only setting comes per call (`EncodingOptions.compressionLevel`).
    package init() {}

    static func failure(_ reason: String) -> TroveError {
        TroveError.encodingFailed(format: .png, reason: reason)
    }

    /// Writes the image as PNG at zlib level `options.compressionLevel` (0...9; quality is ignored). Throws
    /// `encodingFailed` for a level out of range, an empty image, or a pixel buffer shorter than its size.
    package func encode(_ image: Image, options: EncodingOptions) throws -> Data {
        let level = options.compressionLevel
        guard (0...9).contains(level) else {
            throw Self.failure("compression level \(level) is out of range 0...9")
        }
        let width = image.width, height = image.height
        guard (1...PNGHeader.maxDimension).contains(width), (1...PNGHeader.maxDimension).contains(height) else {
            throw Self.failure("PNG needs a width and height of 1...2^31-1, got \(width)x\(height)")
        }
        let sourceBytesPerPixel = image.pixelFormat.bytesPerPixel
        let (needed, overflow) = image.bytesPerRow.multipliedReportingOverflow(by: height)
        guard image.bytesPerRow >= width * sourceBytesPerPixel, !overflow, image.pixels.count >= needed else {
            throw Self.failure(
                "pixel buffer of \(image.pixels.count) bytes is too small for \(width)x\(height) "
                    + "with \(image.bytesPerRow) bytes per row")
        }

        let colorType: PNGHeader.ColorType =
            switch image.pixelFormat {
            case .gray8: .gray
            case .rgba8: Self.isOpaque(image) ? .rgb : .rgba
            }
        let header = PNGHeader(width: width, height: height, bitDepth: 8, colorType: colorType, interlaced: false)
        let filtered = Self.filteredScanlines(image, header: header)
        let compressed = try filtered.withUnsafeBytes { raw in
            try ZlibCompressor.deflate(raw, level: level) { Self.failure("zlib could not compress: \($0)") }
        }

        var out = Data(PNGChunkReader.signature)
        var ihdr = Data()
        ihdr.append(bigEndian: UInt32(width))
        ihdr.append(bigEndian: UInt32(height))
        ihdr.append(contentsOf: [8, colorType.rawValue, 0, 0, 0])
        out.appendChunk(PNGChunk.ihdr, ihdr)
        if let profile = image.colorDescription?.embeddableProfile(for: image.pixelFormat) {
            out.appendChunk(PNGColorChunks.iccp, try Self.iccpChunk(profile, level: level))
        }
        // An orientation the pipeline kept (the stored pixels) goes with the notice, so the file displays as
        // its source did.
        if let tiff = ExifBlock.tiff(for: image.copyright, orientation: image.orientation) {
            out.appendChunk(PNGChunk.exif, Data(tiff))
        }
        if let notice = image.copyright, let packet = XMPRights.packet(for: notice) {
            out.appendChunk(PNGMetadataChunks.itxt, PNGMetadataChunks.xmpChunk(packet))
        }
        var start = 0
        repeat {
            let end = min(start + Self.maxChunkData, compressed.count)
            out.appendChunk(PNGChunk.idat, compressed[start..<end])
            start = end
        } while start < compressed.count
        out.appendChunk(PNGChunk.iend, Data())
        return out
    }

    /// An iCCP chunk's data: a profile name, its terminator, compression method 0, the zlib stream.
    private static func iccpChunk(_ profile: [UInt8], level: Int) throws -> Data {
        var chunk = Data("ICC profile".utf8)
        chunk.append(contentsOf: [0, 0])
        let compressed = try profile.withUnsafeBytes { raw in
            try ZlibCompressor.deflate(raw, level: max(level, 1)) { Self.failure("zlib could not compress: \($0)") }
        }
        chunk.append(contentsOf: compressed)
        return chunk
    }

    private static func isOpaque(_ image: Image) -> Bool {
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<image.height {
                let row = y * image.bytesPerRow
                for x in 0..<image.width where p[row + 4 * x + 3] != 255 { return false }
            }
            return true
        }
    }

    /// Every row in PNG sample layout, preceded by the filter-type byte of whichever of the five filters
    /// gives the smallest sum of absolute differences.
    private static func filteredScanlines(_ image: Image, header: PNGHeader) -> [UInt8] {
        let rowBytes = header.rowBytes(pixels: header.width)
        let distance = header.filterDistance
        let stripAlpha = image.pixelFormat == .rgba8 && header.colorType == .rgb
        return [UInt8](unsafeUninitializedCapacity: (rowBytes + 1) * header.height) { out, initialized in
            // Two rows in PNG layout (current and previous) and one scratch row per candidate filter.
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * 7)
            defer { scratch.deallocate() }
            var current = scratch, previous = scratch + rowBytes
            let candidates = scratch + 2 * rowBytes
            image.pixels.withUnsafeBufferPointer { pixels in
                guard let source = pixels.baseAddress, let outBase = out.baseAddress else { return }
                for y in 0..<header.height {
                    let sourceRow = source + y * image.bytesPerRow
                    if stripAlpha {
                        for x in 0..<header.width {
                            current[3 * x] = sourceRow[4 * x]
                            current[3 * x + 1] = sourceRow[4 * x + 1]
                            current[3 * x + 2] = sourceRow[4 * x + 2]
                        }
                    } else {
                        current.update(from: sourceRow, count: rowBytes)
                    }
                    let above: UnsafePointer<UInt8>? = y > 0 ? UnsafePointer(previous) : nil
                    var best: UInt8 = 0
                    var bestSum = Int.max
                    for type in PNGFilter.types {
                        let sum = PNGFilter.filter(
                            type, row: current, previous: above, count: rowBytes,
                            distance: distance, into: candidates + Int(type) * rowBytes)
                        if sum < bestSum { bestSum = sum; best = type }
                    }
                    let target = outBase + y * (rowBytes + 1)
                    target[0] = best
                    (target + 1).update(from: candidates + Int(best) * rowBytes, count: rowBytes)
                    swap(&current, &previous)
                }
            }
            initialized = out.count
        }
    }
}

extension Data {
    fileprivate mutating func append(bigEndian value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    /// Appends a PNG chunk: length, type, data, and the CRC of type and data.
    fileprivate mutating func appendChunk(_ type: UInt32, _ data: Data) {
        append(bigEndian: UInt32(data.count))
        let typeStart = count
        append(bigEndian: type)
        append(data)
        let crc = withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[typeStart...])) }
        append(bigEndian: crc)
    }
}
