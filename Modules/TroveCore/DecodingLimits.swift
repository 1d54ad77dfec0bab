/// Bounds a decoder checks before it allocates, so a hostile file cannot exhaust memory.
public struct DecodingLimits: Sendable, Equatable {
    /// Largest `width * height` accepted (default 100 megapixels).
    public var maxPixels: Int
    /// Largest decompressed size in bytes a decoder may produce (default 1 GiB).
    public var maxDecodedBytes: Int
    /// Most animation frames decoded (default 1,000); every frame also counts toward `maxDecodedBytes`.
    public var maxFrames: Int

    /// Limits with the given bounds; the defaults are 100 megapixels, 1 GiB decoded, 1,000 frames.
    public init(maxPixels: Int = 100_000_000, maxDecodedBytes: Int = 1 << 30, maxFrames: Int = 1000) {
        self.maxPixels = maxPixels
        self.maxDecodedBytes = maxDecodedBytes
        self.maxFrames = maxFrames
    }

    /// The default limits: 100 megapixels, 1 GiB of decoded bytes, 1,000 frames.
    public static let `default` = DecodingLimits()

    /// Throws `imageTooLarge` when the declared size is over the limits; call it before allocating.
    /// The reported limit is in pixels: whichever of the two limits binds for this pixel size.
    public func check(width: Int, height: Int, bytesPerPixel: Int = 4) throws {
        let pixelLimit = Swift.min(maxPixels, maxDecodedBytes / Swift.max(bytesPerPixel, 1))
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if width < 0 || height < 0 || overflow || pixels > pixelLimit {
            throw TroveError.imageTooLarge(width: width, height: height, limit: pixelLimit)
        }
    }

    /// Throws `tooManyFrames` when an animation declares more frames than allowed, or when all its frames
    /// at full size would be over `maxDecodedBytes`; call it before decoding the frames.
    public func check(frames: Int, width: Int, height: Int, bytesPerPixel: Int = 4) throws {
        let (frameBytes, overflowA) = (width * bytesPerPixel).multipliedReportingOverflow(by: height)
        let (total, overflowB) = frameBytes.multipliedReportingOverflow(by: Swift.max(frames, 1))
        if frames > maxFrames || overflowA || overflowB || total > maxDecodedBytes {
            throw TroveError.tooManyFrames(
                frames: frames,
                limit: Swift.min(
                    maxFrames,
                    maxDecodedBytes / Swift.max(frameBytes, 1)))
        }
    }
}
