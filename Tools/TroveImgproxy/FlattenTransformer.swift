import Trove

/// Composites the image over an opaque colour, leaving every pixel opaque: imgproxy's `background`, and
/// what it does (on white) before encoding to a format without alpha such as JPEG.
public struct FlattenTransformer: ImageTransformer, Equatable {
    /// The background colour, 0...255 a channel.
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// imgproxy's default background.
    public static let white = FlattenTransformer(red: 255, green: 255, blue: 255)

    public var identifier: String { "flatten(r=\(red),g=\(green),b=\(blue))" }

    public func transform(_ image: Image) throws -> Image {
        // Gray images carry no alpha: already opaque.
        guard image.pixelFormat == .rgba8 else { return image }
        var output = image.convertedToRGBA8()
        output.pixels = flattened(output.pixels)
        output.frames = output.frames.map { AnimationFrame(pixels: flattened($0.pixels), delay: $0.delay) }
        return output
    }

    private func flattened(_ pixels: [UInt8]) -> [UInt8] {
        var out = pixels
        let background = (UInt32(red), UInt32(green), UInt32(blue))
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
