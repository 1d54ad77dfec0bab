import Foundation
import TroveCore

/// What a PNG file's chunks say: the header, where the palette, transparency and image data lie, after
/// checking the signature, every CRC, chunk order, and the decoding limits.
struct PNGFileLayout {
    let header: PNGHeader
    /// PLTE chunk data, required for palette images.
    let palette: Range<Int>?
    /// tRNS chunk data, when it came before the image data.
    let transparency: Range<Int>?
    /// The IDAT chunks' data: together one zlib stream.
    let imageData: [Range<Int>]
    /// What the iCCP, sRGB, gAMA and cHRM chunks before the image data say; nil when there are none.
    let colorDescription: ColorDescription?

    init(_ bytes: UnsafeRawBufferPointer, limits: DecodingLimits) throws {
        let signature = PNGChunkReader.signature
        guard bytes.count >= signature.count, bytes.prefix(signature.count).elementsEqual(signature) else {
            let seen =
                bytes.isEmpty
                ? "none, the file is empty"
                : bytes.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
            throw PNGDecoder.failure(
                "invalid PNG signature (first bytes: \(seen)); not a PNG file, or one "
                    + "damaged by a text-mode transfer")
        }
        var reader = PNGChunkReader(bytes)
        guard let first = try reader.next() else {
            throw PNGDecoder.failure("missing IHDR chunk (file has no chunks)")
        }
        guard first.type == PNGChunk.ihdr else {
            throw PNGDecoder.failure("first chunk is \(first.name), expected IHDR")
        }
        let header = try PNGHeader(parsing: UnsafeRawBufferPointer(rebasing: bytes[first.data]))
        // Refuse oversized images at once, before anything is sized by the header, counting the inflated
        // scanlines (up to 8 bytes a pixel) as well as the RGBA result.
        try limits.check(
            width: header.width, height: header.height,
            bytesPerPixel: max(4, (header.bitsPerPixel + 7) / 8))

        var palette: Range<Int>?
        var transparency: Range<Int>?
        var imageData: [Range<Int>] = []
        var imageDataEnded = false
        var color = PNGColorChunks()
        chunks: while let chunk = try reader.next() {
            if !imageData.isEmpty && chunk.type != PNGChunk.idat { imageDataEnded = true }
            switch chunk.type {
            case PNGChunk.idat:
                guard !imageDataEnded else { throw PNGDecoder.failure("IDAT chunks are not consecutive") }
                imageData.append(chunk.data)
            case PNGChunk.iend:
                break chunks
            case PNGChunk.plte:
                try Self.checkPalette(chunk, header: header, seen: palette != nil, afterImageData: !imageData.isEmpty)
                palette = chunk.data
            case PNGChunk.trns where imageData.isEmpty:
                transparency = chunk.data
            case PNGChunk.ihdr:
                throw PNGDecoder.failure("second IHDR chunk")
            case _ where imageData.isEmpty && color.read(chunk, in: bytes):
                break
            default:
                // Ancillary chunks (text, gamma, time, ...) do not change the stored pixels.
                if chunk.isCritical { throw PNGDecoder.failure("unknown critical chunk \(chunk.name)") }
            }
        }
        guard !imageData.isEmpty else { throw PNGDecoder.failure("missing IDAT chunk (the file has no image data)") }
        // A file that ends after whole chunks without IEND is read as libpng, browsers and libvips read it: a
        // file cut inside a chunk fails its length or CRC, and one cut between IDAT chunks fails the inflate.
        if header.colorType == .palette && palette == nil {
            throw PNGDecoder.failure("missing PLTE chunk, required for color type 3")
        }
        self.header = header
        self.palette = palette
        self.transparency = transparency
        self.imageData = imageData
        let isGray = header.colorType == .gray || header.colorType == .grayAlpha
        colorDescription = isGray ? color.result : color.result?.forColorSamples()
    }

    private static func checkPalette(_ chunk: PNGChunk, header: PNGHeader, seen: Bool, afterImageData: Bool) throws {
        guard !seen else { throw PNGDecoder.failure("second PLTE chunk") }
        guard !afterImageData else { throw PNGDecoder.failure("PLTE chunk after IDAT") }
        switch header.colorType {
        case .gray, .grayAlpha:
            throw PNGDecoder.failure("PLTE chunk is not allowed for color type \(header.colorType.rawValue)")
        case .palette:
            let count = chunk.data.count
            guard count % 3 == 0, (1...256).contains(count / 3) else {
                throw PNGDecoder.failure("invalid PLTE chunk length \(count) (must be 3 to 768 and a multiple of 3)")
            }
        case .rgb, .rgba:
            break  // a suggested palette for truecolor images; not needed to decode
        }
    }
}
