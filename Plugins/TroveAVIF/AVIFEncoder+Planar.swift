import CAVIF
import Foundation
import TroveCore

extension AVIFEncoder: PlanarImageEncoder {
    /// Lossy only: lossless AVIF is 4:4:4 RGB, which 4:2:0 planes have already lost.
    package func takesPlanes(_ options: EncodingOptions) -> Bool { !options.lossless }

    /// Writes a lossy 4:2:0 AVIF from `planes` as they are: JFIF's full-range BT.601 YCbCr is what the RGBA
    /// encode converts to, so no sample changes on the way in. Settings and metadata as `encode(_:options:)`
    /// gives an RGBA image, the metadata from `metadata`. Throws `encodingFailed` for a size over
    /// `maxDimension` or `maxPixels`, or when libavif fails.
    package func encode(_ planes: YCbCrPlanes, metadata: Image, options: EncodingOptions) throws -> Data {
        try Self.checkSize(width: planes.width, height: planes.height)
        guard let image = avifImageCreate(UInt32(planes.width), UInt32(planes.height), 8, AVIF_PIXEL_FORMAT_YUV420)
        else { throw Self.failure("out of memory for a \(planes.width)x\(planes.height) frame") }
        defer { avifImageDestroy(image) }
        Self.describeAsSRGB(image, lossless: false)
        let allocated = avifImageAllocatePlanes(image, AVIF_PLANES_YUV.rawValue)
        guard allocated == AVIF_RESULT_OK else {
            throw Self.failure(
                "allocating a \(planes.width)x\(planes.height) frame: \(String(cString: avifResultToString(allocated)))"
            )
        }
        let targets = image.pointee.yuvPlanes, strides = image.pointee.yuvRowBytes
        let copies = [
            (planes.y, planes.width, planes.height, targets.0, strides.0),
            (planes.cb, planes.chromaWidth, planes.chromaHeight, targets.1, strides.1),
            (planes.cr, planes.chromaWidth, planes.chromaHeight, targets.2, strides.2)
        ]
        for (plane, width, height, target, stride) in copies {
            guard let target, Int(stride) >= width else { throw Self.failure("libavif allocated no room for a plane") }
            plane.withUnsafeBufferPointer { source in
                guard let source = source.baseAddress else { return }
                for row in 0..<height { (target + row * Int(stride)).update(from: source + row * width, count: width) }
            }
        }
        let encoder = try makeEncoder(options)
        defer { avifEncoderDestroy(encoder) }
        try Self.add(image, describedBy: metadata, delay: .zero, single: true, to: encoder)
        return try Self.finish(encoder)
    }
}
