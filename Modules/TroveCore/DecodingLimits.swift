/// Bounds a decoder checks before it allocates, so a hostile file cannot exhaust memory.
public struct DecodingLimits: Sendable, Equatable {
    /// Largest `width * height` accepted (default 100 megapixels).
    public var maxPixels: Int
    /// Largest decompressed size in bytes a decoder may produce (default 1 GiB).
    public var maxDecodedBytes: Int
    /// Most animation frames decoded (default 1,000): an animation with more keeps its first `maxFrames`
    /// and drops the rest, as imgproxy's `IMGPROXY_MAX_ANIMATION_FRAMES` does. Every kept frame also counts
    /// toward `maxDecodedBytes`; the first frame is always kept, so 0 reads as 1.
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

    /// How many of an animation's `frames` a decoder keeps: the first `maxFrames`, and at least one.
    package func keptFrames(of frames: Int) -> Int {
        Swift.max(1, Swift.min(frames, maxFrames))
    }

    /// Throws `tooLargeToDecode` when the frames an animation keeps (`keptFrames(of: frames)`) would be over
    /// `maxDecodedBytes` at full size; call it before decoding the frames. More frames than `maxFrames` is no
    /// error: the decoder stops after the kept ones.
    public func check(frames: Int, width: Int, height: Int, bytesPerPixel: Int = 4) throws {
        let (frameBytes, overflowA) = (width * bytesPerPixel).multipliedReportingOverflow(by: height)
        let (total, overflowB) = frameBytes.multipliedReportingOverflow(by: keptFrames(of: frames))
        if overflowA || overflowB || total > maxDecodedBytes {
            throw TroveError.tooLargeToDecode(
                needed: overflowA || overflowB ? Int.max : total, limit: maxDecodedBytes,
                setting: "DecodingLimits.maxDecodedBytes")
        }
    }
}
