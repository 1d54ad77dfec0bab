import Trove
import TroveTransformers

/// Composites the image over an opaque colour, leaving every pixel opaque: imgproxy's `background`, and
/// what it does (on white) before encoding to a format without alpha such as JPEG.
package struct FlattenTransformer: ImageTransformer, Equatable {
    /// The background colour.
    package var background: ImgproxyOptions.Color

    /// Flattens onto `background`.
    package init(_ background: ImgproxyOptions.Color) {
        self.background = background
    }

    /// Flattens onto this colour, 0...255 a channel.
    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.init(ImgproxyOptions.Color(red: red, green: green, blue: blue))
    }

    /// imgproxy's default background.
    package static let white = FlattenTransformer(red: 255, green: 255, blue: 255)

    /// `flatten(r=R,g=G,b=B)`, part of the cache key.
    package var identifier: String { "flatten(r=\(background.red),g=\(background.green),b=\(background.blue))" }

    /// The image with every pixel laid over the background colour, fully opaque.
    package func transform(_ image: Image) throws -> Image {
        // Gray images carry no alpha: already opaque.
        guard image.pixelFormat == .rgba8 else { return image }
        // Already opaque (every JPEG source is): nothing to composite, and no copy to make.
        if Self.isOpaque(image.pixels) && image.frames.allSatisfy({ Self.isOpaque($0.pixels) }) { return image }
        var output = image.convertedToRGBA8()
        output.pixels = flattened(output.pixels)
        output.frames = output.frames.map { AnimationFrame(pixels: flattened($0.pixels), delay: $0.delay) }
        return output
    }

    /// Whether every pixel's alpha is 255: the AND of all pixels, four bytes at a time, keeps 255 in the
    /// alpha byte only then. A reduction without branches, so it runs at memory speed.
    static func isOpaque(_ pixels: [UInt8]) -> Bool {
        pixels.withUnsafeBytes { raw in
            let pixelCount = raw.count / 4
            var all = UInt32.max
            for index in 0..<pixelCount {
                all &= raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
            }
            return withUnsafeBytes(of: all) { $0[3] } == 255
        }
    }

    private func flattened(_ pixels: [UInt8]) -> [UInt8] {
        var out = pixels
        let background = (UInt32(self.background.red), UInt32(self.background.green), UInt32(self.background.blue))
        out.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index + 3 < buffer.count {
                let alpha = UInt32(buffer[index + 3])
                if alpha != 255 {
                    let rest = 255 - alpha
                    // Rounded (a * c + (255 - a) * b) / 255.
                    buffer[index] = UInt8((UInt32(buffer[index]) * alpha + background.0 * rest + 127) / 255)
                    buffer[index + 1] = UInt8((UInt32(buffer[index + 1]) * alpha + background.1 * rest + 127) / 255)
                    buffer[index + 2] = UInt8((UInt32(buffer[index + 2]) * alpha + background.2 * rest + 127) / 255)
                    buffer[index + 3] = 255
                }
                index += 4
            }
        }
        return out
    }
}

/// An opaque image has nothing to lay over the background: `transform` returns it as it is.
extension FlattenTransformer: OpaqueInvariantTransformer {}
