/// Bounds a decoder checks before it allocates, so a hostile file cannot exhaust memory.
public struct DecodingLimits: Sendable, Equatable {
    /// Largest `width * height` accepted (default 100 megapixels).
    public var maxPixels: Int
    /// Largest decompressed size in bytes a decoder may produce (default 1 GiB).
    public var maxDecodedBytes: Int

    public init(maxPixels: Int = 100_000_000, maxDecodedBytes: Int = 1 << 30) {
        self.maxPixels = maxPixels
        self.maxDecodedBytes = maxDecodedBytes
    }

    public static let `default` = DecodingLimits()

    /// Throws `imageTooLarge` when the declared size is over the limits; call it before allocating.
    public func check(width: Int, height: Int, bytesPerPixel: Int = 4) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels || pixels * bytesPerPixel > maxDecodedBytes {
            throw TroveError.imageTooLarge(width: width, height: height, limit: maxPixels)
        }
    }
}
