import Foundation
import Testing
import Trove
import TroveJPEG
import TroveTestSupport
import TroveTransformers

/// A turned JPEG of a size its scaled IDCT does not divide (1001x667 read at 3/8: 376x251, the last column and row
/// part of a block) resizes alike whether decoded whole and turned before the resize (the plan starts past the
/// copy's partial pixels on an axis the turn reverses) or streamed as stored rows into a resize planned on the
/// stored image. Without the start, the orientations that reverse an axis read 24-29 dB apart.
@Suite struct ReducedTurnedDecodeTests {
    @Test(arguments: (2...8).compactMap(ExifOrientation.init(rawValue:)))
    func wholeAndStreamedDecodesAgree(_ orientation: ExifOrientation) throws {
        let upright = try JPEGDecoder().decode(
            Data(contentsOf: Fixtures.url("planar/large-1001x667.jpg")), limits: .default)
        let inverse: ExifOrientation = orientation == .right ? .left : orientation == .left ? .right : orientation
        var stored = try Transposition(undoing: inverse).apply(to: upright, orientation: orientation)
        stored.colorDescription = nil
        let data = try JPEGEncoder().encode(stored, options: EncodingOptions(quality: 0.95))
        let transforms: [any ImageTransformer] = [
            OrientTransformer(), ResizeTransformer(width: 333, height: 333, mode: .fit, filter: .lanczos3)
        ]
        func decode(streaming: Bool) throws -> Image {
            var (image, rest) = try JPEGDecoder().decode(
                data, limits: .default, for: transforms, reducingGap: 1, streamsRows: streaming)
            for step in rest { image = try step.transform(image) }
            return image
        }
        let whole = try decode(streaming: false), streamed = try decode(streaming: true)
        try #require(whole.width == streamed.width && whole.height == streamed.height, "\(orientation)")
        #expect(whole.width == 333 && whole.height == 222)
        #expect(psnr(whole, streamed) >= 45, "\(orientation): \(psnr(whole, streamed)) dB")
    }
}
