import CWebP
import Foundation
import TroveCore

/// Animated WebP through libwebp's `WebPAnimEncoder`, which finds the rectangle each frame changes and
/// writes only that. It merges a frame identical to the one before into that frame (adding the delays), so
/// such a pair decodes as one frame.
enum WebPAnimationEncoding {
    /// WebP stores a frame's duration in 24 bits of milliseconds.
    static let maxDelayMilliseconds = 0xFF_FFFF

    /// Encodes every frame of `image` (full-size RGBA8 frames) with `config`, its delays and loop count.
    static func encode(_ image: Image, config: WebPConfig) throws -> Data {
        var config = config
        var animation = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&animation) != 0 else {
            throw WebPErrors.encoding("the libwebp library does not match the headers Trove was built with")
        }
        // The container stores 16 bits; 0 means forever, as in `Image.loopCount`.
        animation.anim_params.loop_count = Int32(min(max(image.loopCount, 0), 0xFFFF))
        guard let encoder = WebPAnimEncoderNew(Int32(image.width), Int32(image.height), &animation) else {
            throw WebPErrors.encoding("libwebp could not start an animation of \(image.width)x\(image.height)")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        func lastError() -> TroveError {
            WebPErrors.encoding(WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? "unknown error")
        }

        // Each frame is added at the time it starts; a last nil frame marks when the final one ends.
        var start = 0
        for (index, frame) in image.frames.enumerated() {
            let added = try WebPPictureImport.withPicture(
                width: image.width, height: image.height,
                pixels: frame.pixels, argb: true
            ) { picture in
                WebPAnimEncoderAdd(encoder, &picture, Int32(start), &config)
            }
            guard added != 0 else { throw lastError() }
            start += milliseconds(frame.delay)
            guard start <= Int(Int32.max) else {
                throw WebPErrors.encoding("the animation is longer than WebP's timeline at frame \(index + 1)")
            }
        }
        guard WebPAnimEncoderAdd(encoder, nil, Int32(start), nil) != 0 else { throw lastError() }
        var output = WebPData()
        WebPDataInit(&output)
        defer { WebPDataClear(&output) }
        guard WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes else { throw lastError() }
        return Data(bytes: bytes, count: output.size)
    }

    /// A frame delay in whole milliseconds (rounded), clamped to what one WebP frame can hold.
    static func milliseconds(_ delay: Duration) -> Int {
        let (seconds, attoseconds) = delay.components
        let total = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return Int(min(max(total.rounded(), 0), Double(maxDelayMilliseconds)))
    }
}
