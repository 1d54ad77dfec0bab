extension Image {
    /// The image laid over an opaque colour (0...255 a channel), every pixel then opaque: what a format
    /// without alpha needs (imgproxy flattens onto white before a JPEG). Gray and already opaque images,
    /// frames included, come back as they are, with no copy made.
    package func flattened(red: UInt8, green: UInt8, blue: UInt8) -> Image {
        guard pixelFormat == .rgba8,
            !(Self.isOpaque(pixels) && frames.allSatisfy({ Self.isOpaque($0.pixels) }))
        else { return self }
        var output = convertedToRGBA8()
        let background = (UInt32(red), UInt32(green), UInt32(blue))
        output.pixels = Self.flattened(output.pixels, onto: background)
        output.frames = output.frames.map {
            AnimationFrame(pixels: Self.flattened($0.pixels, onto: background), delay: $0.delay)
        }
        return output
    }

    /// Whether every RGBA8 pixel's alpha is 255: the AND of all pixels, four bytes at a time, keeps 255 in the
    /// alpha byte only then. A reduction without branches, so it runs at memory speed.
    package static func isOpaque(_ pixels: [UInt8]) -> Bool {
        pixels.withUnsafeBytes { raw in
            let pixelCount = raw.count / 4
            var all = UInt32.max
            for index in 0..<pixelCount {
                all &= raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
            }
            return withUnsafeBytes(of: all) { $0[3] } == 255
        }
    }

    private static func flattened(_ pixels: [UInt8], onto background: (UInt32, UInt32, UInt32)) -> [UInt8] {
        var out = pixels
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
