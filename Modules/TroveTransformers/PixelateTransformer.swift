import TroveCore

/// Replaces each `size x size` block (aligned to the top-left corner; blocks on the right and bottom edges
/// may be smaller) with its average colour, weighted by alpha so transparent pixels lend no colour.
/// imgproxy's `pixelate`.
public struct PixelateTransformer: ImageTransformer, Equatable {
    /// Largest block side accepted.
    package static let maximumSize = 4096

    /// The block side in pixels, 1...`maximumSize`; 1 leaves the image as it is.
    package let size: Int

    /// `size` is clamped to 1...maximumSize.
    public init(size: Int) {
        self.size = min(max(size, 1), Self.maximumSize)
    }

    /// "pixelate(size=N)".
    public var identifier: String { "pixelate(size=\(size))" }

    /// The image and every frame in blocks, as RGBA8.
    public func transform(_ image: Image) throws -> Image {
        guard size > 1, image.width > 0, image.height > 0 else { return image }
        let width = image.width, height = image.height, block = size
        return try image.mappingEveryFrame { src, dst in
            var blockY = 0
            while blockY < height {
                let rows = min(block, height - blockY)
                var blockX = 0
                while blockX < width {
                    let columns = min(block, width - blockX)
                    var red = 0, green = 0, blue = 0, alpha = 0
                    for y in blockY..<(blockY + rows) {
                        var i = (y * width + blockX) * 4
                        for _ in 0..<columns {
                            let a = Int(src[i + 3])
                            red += Int(src[i]) * a
                            green += Int(src[i + 1]) * a
                            blue += Int(src[i + 2]) * a
                            alpha += a
                            i += 4
                        }
                    }
                    let count = rows * columns
                    let pixel: (UInt8, UInt8, UInt8, UInt8) =
                        alpha == 0
                        ? (0, 0, 0, 0)
                        : (
                            UInt8((red + alpha / 2) / alpha), UInt8((green + alpha / 2) / alpha),
                            UInt8((blue + alpha / 2) / alpha), UInt8((alpha + count / 2) / count)
                        )
                    for y in blockY..<(blockY + rows) {
                        var i = (y * width + blockX) * 4
                        for _ in 0..<columns {
                            dst[i] = pixel.0
                            dst[i + 1] = pixel.1
                            dst[i + 2] = pixel.2
                            dst[i + 3] = pixel.3
                            i += 4
                        }
                    }
                    blockX += block
                }
                blockY += block
            }
        }
    }
}
