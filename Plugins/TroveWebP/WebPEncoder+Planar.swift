import CWebP
import Foundation
import TroveCore

extension WebPEncoder: PlanarImageEncoder {
    /// Lossy only: lossless WebP keeps RGB, which 4:2:0 planes have already lost.
    package func takesPlanes(_ options: EncodingOptions) -> Bool { !options.lossless }

    /// Writes a lossy WebP from `planes` as libwebp's own YUV picture (no RGB import, no chroma averaging), with
    /// the settings and chunks `encode(_:options:)` gives an RGBA image, the chunks from `metadata`. VP8 stores
    /// BT.601 YCbCr in studio range, so JFIF's full-range samples are mapped there, as libwebp's RGB import would
    /// produce them. Throws `encodingFailed` when a side is outside 1...16383 pixels or libwebp fails.
    package func encode(_ planes: YCbCrPlanes, metadata: Image, options: EncodingOptions) throws -> Data {
        try Self.checkSize(width: planes.width, height: planes.height)
        var config = try Self.configuration(for: options)
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw WebPErrors.encoding("the libwebp library does not match the headers Trove was built with")
        }
        picture.width = Int32(planes.width)
        picture.height = Int32(planes.height)
        picture.use_argb = 0
        picture.colorspace = WEBP_YUV420
        guard WebPPictureAlloc(&picture) != 0 else { throw WebPErrors.encoding(picture.error_code) }
        defer { WebPPictureFree(&picture) }
        Self.copy(
            planes.y, width: planes.width, height: planes.height, to: picture.y, stride: Int(picture.y_stride),
            through: StudioRange.luma)
        Self.copy(
            planes.cb, width: planes.chromaWidth, height: planes.chromaHeight, to: picture.u,
            stride: Int(picture.uv_stride), through: StudioRange.chroma)
        Self.copy(
            planes.cr, width: planes.chromaWidth, height: planes.chromaHeight, to: picture.v,
            stride: Int(picture.uv_stride), through: StudioRange.chroma)
        let encoded = try Self.encode(&picture, config: &config)
        let chunks = WebPMetadataChunks.chunks(for: metadata)
        return chunks.isEmpty ? encoded : try WebPMetadataChunks.setting(chunks, in: encoded)
    }

    /// Copies a tightly packed `width x height` plane into libwebp's plane of `stride`, each sample mapped.
    private static func copy(
        _ plane: [UInt8], width: Int, height: Int, to target: UnsafeMutablePointer<UInt8>?, stride: Int,
        through table: [UInt8]
    ) {
        guard let target else { return }
        plane.withUnsafeBufferPointer { source in
            table.withUnsafeBufferPointer { table in
                guard let source = source.baseAddress, let table = table.baseAddress else { return }
                for row in 0..<height {
                    let from = source + row * width, to = target + row * stride
                    for x in 0..<width { to[x] = table[Int(from[x])] }
                }
            }
        }
    }
}

/// JFIF's full-range YCbCr (0...255) to the studio range VP8 stores: luma 16...235, chroma 16...240 about 128,
/// rounded to nearest.
enum StudioRange {
    static let luma: [UInt8] = (0..<256).map { UInt8((16 + Double($0) * 219 / 255).rounded()) }
    static let chroma: [UInt8] = (0..<256).map { UInt8((128 + (Double($0) - 128) * 224 / 255).rounded()) }
}
