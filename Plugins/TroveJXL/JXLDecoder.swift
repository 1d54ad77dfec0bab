import CJXL
import Foundation
import TroveCore

/// Decodes JPEG XL (a bare codestream or the container) through libjxl to straight-alpha RGBA8: lossy and
/// lossless, any bit depth (rounded to 8 bits), grey or colour, with or without alpha, and animations,
/// every frame composed to full size with its delay and the loop count. The EXIF orientation is reported in
/// `Image.orientation` and not applied (libjxl is told to keep it), so the `orient` transform applies it
/// once. The colours of the pixels go to `Image.colorDescription`: CICP for an enumerated colour space,
/// else the ICC profile.
package struct JXLDecoder: ImageDecoder, EmbeddedMetadataReading {
    /// The registry name, "jxl".
    package let name = "jxl"
    /// `.jxl`, stills and animations alike.
    package let format = ImageFormat.jxl
    /// Threads libjxl may use for one image.
    package var maxThreads: Int

    /// - Parameter maxThreads: threads for one decode; 2 keeps a server's concurrent decodes from
    ///   oversubscribing its cores.
    package init(maxThreads: Int = 2) {
        self.maxThreads = maxThreads
    }

    /// The codestream marker FF 0A, or the container's 12-byte signature box.
    package func canDecode(_ header: Data) -> Bool {
        JXLSignature.matches(header)
    }

    static func failure(_ reason: String) -> TroveError {
        TroveError.decodingFailed(format: .jxl, reason: reason)
    }

    /// Decodes the image, or an animation's first `limits.maxFrames` frames (the rest are dropped; one kept
    /// frame is a still). The header's size is checked against `limits` before libjxl decodes or Trove
    /// allocates any pixel; an animation's frames are first counted from their headers, and the kept ones'
    /// bytes checked too.
    package func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        try data.withUnsafeBytes { bytes in
            let decoder = try LibjxlDecoder(
                bytes, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME, JXL_DEC_FULL_IMAGE],
                threads: maxThreads)
            var basic: JxlBasicInfo?
            var color: ColorDescription?
            var frames: [AnimationFrame] = []
            // The frames decoded: 1 for a still, else the kept ones counted from the frames' headers.
            var keptFrames = 1
            var delay = Duration.zero
            while true {
                let status = decoder.next()
                switch status {
                case JXL_DEC_BASIC_INFO:
                    let info = try decoder.basicInfo()
                    let width = Int(info.xsize), height = Int(info.ysize)
                    try limits.check(width: width, height: height)
                    if info.have_animation != 0 {
                        keptFrames = try Self.countFrames(bytes, stoppingAfter: max(limits.maxFrames, 1))
                        try limits.check(frames: keptFrames, width: width, height: height)
                    }
                    basic = info
                case JXL_DEC_COLOR_ENCODING:
                    color = decoder.colorDescription()
                case JXL_DEC_FRAME:
                    guard let basic else { throw Self.failure("libjxl reported a frame before the header") }
                    guard frames.count < keptFrames else {
                        throw Self.failure("libjxl decodes more frames than the \(keptFrames) their headers list")
                    }
                    delay = decoder.frameDelay(basic)
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    guard let basic else { throw Self.failure("libjxl asked for pixels before the header") }
                    let byteCount = Int(basic.xsize) * Int(basic.ysize) * 4
                    let pixels = try decoder.decodeFrame(
                        byteCount: byteCount, name: keptFrames > 1 ? "frame \(frames.count + 1)" : "the image")
                    frames.append(AnimationFrame(pixels: pixels, delay: delay))
                    // The frames after the kept ones are left undecoded.
                    if basic.have_animation != 0, frames.count == keptFrames {
                        return Self.image(basic: basic, frames: frames, color: color)
                    }
                case JXL_DEC_SUCCESS:
                    guard let basic, !frames.isEmpty else {
                        throw Self.failure("the JPEG XL file holds no image")
                    }
                    return Self.image(basic: basic, frames: frames, color: color)
                default:
                    let part =
                        basic == nil
                        ? "the header"
                        : frames.isEmpty && keptFrames == 1 ? "the image" : "frame \(frames.count + 1)"
                    throw decoder.failure(status, part)
                }
            }
        }
    }

    /// The decoded image: the first of `frames`, with all of them when there is more than one.
    private static func image(basic: JxlBasicInfo, frames: [AnimationFrame], color: ColorDescription?) -> Image {
        let width = Int(basic.xsize), height = Int(basic.ysize)
        return Image(
            width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4,
            pixels: frames[0].pixels, sourceFormat: .jxl, frames: frames.count > 1 ? frames : [],
            orientation: ExifOrientation(rawValue: Int(basic.orientation.rawValue)) ?? .up,
            loopCount: basic.have_animation != 0 ? Int(basic.animation.num_loops) : 0,
            colorDescription: color)
    }

    /// The TIFF structure of the container's `Exif` box, or nil (a bare codestream carries no metadata).
    /// The box opens with the offset of the TIFF header within the rest of it.
    package func exif(_ data: Data) -> [UInt8]? {
        guard data.starts(with: JXLSignature.container) else { return nil }
        return data.withUnsafeBytes { bytes -> [UInt8]? in
            guard let body = ISOBMFFBoxes.firstChild("Exif", in: bytes, within: 0..<bytes.count), body.count >= 4
            else { return nil }
            let start = body.lowerBound + 4 + ISOBMFFBoxes.bigEndian32(bytes, at: body.lowerBound)
            guard start < body.upperBound else { return nil }
            return Array(bytes[start..<body.upperBound])
        }
    }

    /// The container's Exif box (its TIFF structure) and its uncompressed "xml " box (the XMP packet); a
    /// Brotli-compressed ("brob") box is not read, nor is anything of a bare codestream.
    package func embeddedMetadata(_ data: Data) -> EmbeddedMetadata {
        guard data.starts(with: JXLSignature.container) else { return EmbeddedMetadata() }
        let xmp = data.withUnsafeBytes { bytes in
            ISOBMFFBoxes.firstChild("xml ", in: bytes, within: 0..<bytes.count).map { Array(bytes[$0]) }
        }
        return EmbeddedMetadata(exif: exif(data), xmp: xmp)
    }

    /// Size and orientation from the header and, for an animation, the frame count from the frames' headers; no
    /// pixel is decoded.
    package func info(_ data: Data) throws -> ImageInfo? {
        try data.withUnsafeBytes { bytes in
            let decoder = try LibjxlDecoder(bytes, events: [JXL_DEC_BASIC_INFO], threads: 1)
            let info = try decoder.readBasicInfo()
            let frames = info.have_animation != 0 ? try Self.countFrames(bytes, stoppingAfter: Int.max) : 1
            return ImageInfo(
                format: .jxl, width: Int(info.xsize), height: Int(info.ysize), frameCount: frames,
                orientation: ExifOrientation(rawValue: Int(info.orientation.rawValue)) ?? .up)
        }
    }

    /// The frames libjxl will return (zero-duration ones composed into the next, as when decoding), read
    /// from their headers without decoding pixels; counting stops at `limit`.
    static func countFrames(_ bytes: UnsafeRawBufferPointer, stoppingAfter limit: Int) throws -> Int {
        let decoder = try LibjxlDecoder(bytes, events: [JXL_DEC_FRAME], threads: 1)
        var count = 0
        while count < limit {
            let status = decoder.next()
            switch status {
            case JXL_DEC_FRAME: count += 1
            case JXL_DEC_SUCCESS: return count
            default: throw decoder.failure(status, "the header of frame \(count + 1)")
            }
        }
        return count
    }
}
