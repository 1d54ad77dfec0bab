import Foundation
import TroveCore

extension Image {
    /// This image with only its first `count` animation frames, as a decoder keeps an animation longer than
    /// `DecodingLimits.maxFrames`: one kept frame (or none asked) is a still of the first frame.
    package func keepingFirstFrames(_ count: Int) -> Image {
        var image = self
        image.frames = count > 1 ? Array(frames.prefix(count)) : []
        return image
    }
}

extension ImageDecoder {
    /// The `maxFrames` limits, 0 through `frames`, at which decoding `data` does not give the whole decode's
    /// first frames (`keepingFirstFrames`: pixels, delays, loop count; one kept frame a still). Empty when the
    /// decoder keeps them as it should; every limit when the whole decode does not have `frames` frames.
    package func limitsNotKeepingFirstFrames(of data: Data, frames: Int) throws -> [Int] {
        let whole = try decode(data, limits: .default)
        guard whole.frames.count == frames else { return Array(0...frames) }
        return try (0...frames).filter { kept in
            try decode(data, limits: DecodingLimits(maxFrames: kept)) != whole.keepingFirstFrames(kept)
        }
    }
}
