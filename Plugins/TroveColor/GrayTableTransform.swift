import CLCMS2
import TroveCore

/// 8-bit gray under a gray profile (an RGBA8 pixel whose red is the gray sample, as decoders hand gray over) to
/// sRGB: lcms's result for each of the 256 gray values, worked out once, so each pixel is one look-up and the
/// bytes are the ones lcms itself gives. Alpha is left as it is.
package final class GrayTableTransform: ColorTransform {
    /// R, G, B for each gray value.
    private let table: [UInt8]

    /// The table of `transform`, an lcms transform from `trove_lcms_gray_in_rgba8` to `trove_lcms_rgba8`.
    init(lcms transform: cmsHTRANSFORM) {
        var pixels = (0..<256).flatMap { value -> [UInt8] in [UInt8(value), UInt8(value), UInt8(value), 255] }
        pixels.withUnsafeMutableBufferPointer { buffer in
            cmsDoTransform(transform, buffer.baseAddress, buffer.baseAddress, 256)
        }
        table = (0..<256).flatMap { value in pixels[4 * value..<4 * value + 3] }
    }

    package func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
        table.withUnsafeBufferPointer { table in
            guard let table = table.baseAddress else { return }
            for index in 0..<count {
                let pixel = pixels + 4 * index
                let entry = table + 3 * Int(pixel[0])
                pixel[0] = entry[0]
                pixel[1] = entry[1]
                pixel[2] = entry[2]
            }
        }
    }
}
