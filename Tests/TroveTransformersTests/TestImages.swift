import TroveCore

/// Builds a straight-alpha RGBA8 image from a per-pixel function.
func makeImage(width: Int, height: Int, _ pixel: (_ x: Int, _ y: Int) -> [UInt8]) -> Image {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(width * height * 4)
    for y in 0..<height {
        for x in 0..<width { bytes += pixel(x, y) }
    }
    return Image(width: width, height: height, pixels: bytes)
}

/// A single-colour image.
func solidImage(width: Int, height: Int, _ rgba: [UInt8]) -> Image {
    makeImage(width: width, height: height) { _, _ in rgba }
}

/// The RGBA bytes of one pixel of a tightly packed RGBA8 image.
func pixel(_ image: Image, _ x: Int, _ y: Int) -> [UInt8] {
    let start = (y * image.width + x) * 4
    return Array(image.pixels[start..<start + 4])
}

/// Character offset of the first occurrence of `needle` in `text` (test specs contain it).
func offset(of needle: String, in text: String) -> Int {
    guard let range = text.range(of: needle) else { return -1 }
    return text.distance(from: text.startIndex, to: range.lowerBound)
}
