import CWebP
import TroveCore

/// Animated WebP through libwebp's `WebPAnimDecoder`, which composes each frame onto the canvas
/// (offsets, blending, disposal) so every frame Trove returns is full size.
enum WebPAnimationDecoding {
    /// Decodes the first `limits.maxFrames` frames and drops the rest. `Image.pixels` is the first frame;
    /// `frames` is empty when one frame is kept. The caller has checked the header's canvas size and the kept
    /// frames' bytes against `limits`.
    static func decode(_ bytes: UnsafeRawBufferPointer, limits: DecodingLimits) throws -> Image {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw WebPErrors.decoding("the file is empty")
        }
        var data = WebPData(bytes: base, size: bytes.count)
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw WebPErrors.decoding("the libwebp library does not match the headers Trove was built with")
        }
        options.color_mode = MODE_RGBA  // composed in straight alpha, like the still path
        options.use_threads = 0  // the pipeline already decodes on many tasks
        // Allocates the canvas: only reached after the caller's limit checks.
        guard let decoder = WebPAnimDecoderNew(&data, &options) else {
            throw WebPErrors.decoding("libwebp could not read the animation's chunks (corrupt or truncated)")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            throw WebPErrors.decoding("libwebp could not read the animation's canvas")
        }
        let width = Int(info.canvas_width), height = Int(info.canvas_height), count = Int(info.frame_count)
        // libwebp's own reading of the container, checked again before the frames are allocated.
        try limits.check(width: width, height: height)
        try limits.check(frames: count, width: width, height: height)

        let kept = limits.keptFrames(of: count)
        var frames: [AnimationFrame] = []
        frames.reserveCapacity(kept)
        var previousEnd: Int32 = 0
        // Frames past the kept ones are never decoded (imgproxy's IMGPROXY_MAX_ANIMATION_FRAMES).
        while frames.count < kept, WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var canvas: UnsafeMutablePointer<UInt8>?
            var end: Int32 = 0  // libwebp gives the time each frame ends, in ms
            guard WebPAnimDecoderGetNext(decoder, &canvas, &end) != 0, let canvas else {
                throw WebPErrors.decoding("frame \(frames.count + 1) of \(count) is corrupt or truncated")
            }
            let pixels = [UInt8](UnsafeBufferPointer(start: canvas, count: width * height * 4))
            frames.append(AnimationFrame(pixels: pixels, delay: .milliseconds(Int(end) - Int(previousEnd))))
            previousEnd = end
        }
        guard let first = frames.first else { throw WebPErrors.decoding("the animation has no frames") }
        return Image(
            width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4,
            pixels: first.pixels, sourceFormat: .webp, frames: frames.count > 1 ? frames : [],
            loopCount: Int(info.loop_count))
    }
}
