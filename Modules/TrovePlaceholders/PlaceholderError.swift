/// Why a ThumbHash or BlurHash could not be made or read. Each message names the algorithm, what was wrong
/// and what was expected.
package enum PlaceholderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A width or height below 1, or a size whose byte count does not fit in an `Int`.
    case invalidSize(width: Int, height: Int)
    /// ThumbHash input over `limit` pixels on a side (it takes at most 100x100: downscale first).
    case imageTooLarge(width: Int, height: Int, limit: Int)
    /// `bytesPerRow` is shorter than `width * 4`, the bytes of one RGBA8 row.
    case invalidBytesPerRow(bytesPerRow: Int, width: Int)
    /// The pixel buffer holds `actual` bytes where the size and row stride need `needed`.
    case bufferTooSmall(needed: Int, actual: Int)
    /// BlurHash component counts outside 1...9.
    case invalidComponentCount(x: Int, y: Int)
    /// A BlurHash decode `punch` that is not a finite number above 0.
    case invalidPunch(Double)
    /// A ThumbHash of `actual` bytes where its header calls for at least `needed`.
    case thumbHashTooShort(needed: Int, actual: Int)
    /// Text that is not standard base64 (A-Z a-z 0-9 + /, optional = padding); `offset` is where it fails.
    case invalidBase64(offset: Int)
    /// A BlurHash shorter than the 6 characters of the smallest one (1x1 components).
    case blurHashTooShort(length: Int)
    /// A BlurHash whose first character declares `x` by `y` components, which take `expected` characters.
    case blurHashLengthMismatch(expected: Int, actual: Int, x: Int, y: Int)
    /// A character outside BlurHash's base-83 alphabet at `offset` (in UTF-8 bytes).
    case invalidBlurHashCharacter(String, offset: Int)

    /// What went wrong, in one sentence.
    package var description: String {
        switch self {
        case .invalidSize(let width, let height):
            return "image size \(width)x\(height) is invalid: width and height must be at least 1"
        case .imageTooLarge(let width, let height, let limit):
            return "ThumbHash encodes images of at most \(limit)x\(limit) pixels, got \(width)x\(height): "
                + "downscale first"
        case .invalidBytesPerRow(let bytesPerRow, let width):
            return "bytesPerRow \(bytesPerRow) is shorter than a row of \(width) RGBA8 pixels (\(width) * 4 bytes)"
        case .bufferTooSmall(let needed, let actual):
            return "the pixel buffer holds \(actual) bytes, but the size and row stride need \(needed)"
        case .invalidComponentCount(let x, let y):
            return "BlurHash component counts must be 1...9 each, got \(x)x\(y)"
        case .invalidPunch(let punch):
            return "BlurHash punch must be a finite number above 0, got \(punch)"
        case .thumbHashTooShort(let needed, let actual):
            return "ThumbHash is \(actual) bytes, but its header calls for at least \(needed)"
        case .invalidBase64(let offset):
            return "ThumbHash text is not standard base64 (bad character or padding at offset \(offset))"
        case .blurHashTooShort(let length):
            return "BlurHash is \(length) characters, shorter than the 6 of the smallest (1x1 components)"
        case .blurHashLengthMismatch(let expected, let actual, let x, let y):
            return "BlurHash is \(actual) characters, but its first character declares \(x)x\(y) components, "
                + "which take \(expected)"
        case .invalidBlurHashCharacter(let character, let offset):
            return "BlurHash has \(character) at offset \(offset), which is not in its base-83 alphabet"
        }
    }
}
