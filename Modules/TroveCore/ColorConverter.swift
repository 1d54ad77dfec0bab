/// Converts pixels a decoder described (`ColorDescription`) to sRGB. TroveCore holds only this seam: the colour
/// maths lives in a plugin (TroveColor, on LittleCMS) that registers one with
/// `PluginRegistry.register(colorConverter:)`; the pipeline uses the latest registered, and without one it leaves
/// pixels as decoded.
public protocol ColorConverter: Sendable {
    /// The registry name, e.g. "lcms".
    var name: String { get }
    /// A transform from the described colours to sRGB for pixels laid out as `samples`, or nil when there is
    /// nothing to do (the description says sRGB, or nothing a converter can act on). Throws, with a reason a
    /// person can act on, when the description cannot be used (a damaged profile, a profile of another colour
    /// space, CICP code points it does not support): the caller then treats the pixels as sRGB and says so.
    func transformToSRGB(from description: ColorDescription, samples: ColorSamples) throws -> (any ColorTransform)?
}

/// How the pixels a `ColorTransform` converts are laid out. The transform works in place and always writes
/// RGBA8 (four bytes a pixel) from the start of the buffer it is given.
public enum ColorSamples: String, Sendable, Hashable, CaseIterable {
    /// Straight-alpha RGBA8; alpha is left as it is.
    case rgba8
    /// CMYK8 as libjpeg delivers a CMYK or YCCK JPEG's samples (inverted when `ColorDescription.cmyk` says so);
    /// the transform writes RGBA8 with alpha 255 over them.
    case cmyk8
    /// Straight-alpha RGBA16 in PNG's byte order (big-endian, eight bytes a pixel; gray repeated in R, G and
    /// B): converted before the samples are rounded to 8 bits. The transform writes RGBA8 over the first half
    /// of the buffer, alpha rounded to 8 bits.
    case rgba16BigEndian
}

/// A ready conversion to sRGB, safe to run from several threads at once.
public protocol ColorTransform: Sendable {
    /// Converts `count` pixels laid out as the transform's `ColorSamples` says, in place, leaving `count`
    /// RGBA8 pixels at the start of `pixels`.
    func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int)
}

extension ColorTransform {
    /// Converts an RGBA8 image's pixels and its animation frames in place (a gray image is made RGBA8 first),
    /// and clears its colour description: the result is sRGB.
    package func apply(to image: inout Image) {
        if image.pixelFormat != .rgba8 { image = image.convertedToRGBA8() }
        let width = image.width, rowBytes = image.bytesPerRow
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return }
            if rowBytes == width * 4 {
                apply(base, count: width * image.height)
            } else {
                for y in 0..<image.height { apply(base + y * rowBytes, count: width) }
            }
        }
        for index in image.frames.indices {
            image.frames[index].pixels.withUnsafeMutableBufferPointer { pixels in
                guard let base = pixels.baseAddress else { return }
                apply(base, count: pixels.count / 4)
            }
        }
        image.colorDescription = nil
    }
}
