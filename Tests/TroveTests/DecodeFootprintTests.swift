import Testing
import Trove

/// What a decode reserves, by route: rows for a streamed shrink-on-load, the canvas, every frame and the
/// transform outputs for a whole decode.
@Suite struct DecodeFootprintTests {
    static let fit = ResizeTransformer(width: 100, height: 80, mode: .fit, filter: .lanczos3)

    static func footprint(
        _ width: Int, _ height: Int, frames: Int = 1, _ transforms: [any ImageTransformer], streams: Bool = false,
        buffer: Int = 0
    ) -> DecodeFootprint {
        DecodeFootprint(
            info: ImageInfo(format: .png, width: width, height: height, frameCount: frames),
            transforms: transforms, streams: streams, reducingGap: 1, limits: .default, streamingBufferBytes: buffer)
    }

    @Test func aStillDecodedWholeHoldsItsCanvasAndDecoderScratch() {
        let footprint = Self.footprint(100, 50, [])
        #expect(footprint.route == .wholeImage)
        // RGBA8 pixels, and a byte a pixel of decoder scratch (GIF's palette indices).
        #expect(footprint.bytes == 100 * 50 * 4 + 100 * 50)
    }

    @Test func anAnimationHoldsEveryFrameTheCanvasAndEachFramesTransformOutput() {
        let canvas = 1000 * 800 * 4
        let footprint = Self.footprint(1000, 800, frames: 25, [Self.fit])
        #expect(footprint.route == .wholeImage)
        #expect(footprint.bytes == 25 * canvas + canvas + 1000 * 800 + 25 * (100 * 80 * 4))
    }

    @Test func aStreamedShrinkHoldsRowsNotTheImage() {
        let streamed = Self.footprint(1000, 800, [Self.fit], streams: true)
        #expect(streamed.route == .streamedRows)
        // The decoder's strip (16 rows of up to 8 bytes a pixel), the resize's float window (6 input rows per
        // output row for each step of a 10x reduction, plus 2), and the output.
        #expect(streamed.bytes == 1000 * 16 * 8 + 100 * 16 * (6 * 10 + 2) + 100 * 80 * 4)
        // The same source decoded whole holds the canvas.
        let whole = Self.footprint(1000, 800, [Self.fit], streams: false)
        #expect(whole.route == .wholeImage)
        #expect(whole.bytes == 1000 * 800 * 4 + 1000 * 800 + 100 * 80 * 4)
        #expect(streamed.bytes * 10 < whole.bytes)
    }

    @Test func whatTheDecoderHoldsWhileStreamingIsAddedToTheStreamedRoute() {
        let rows = Self.footprint(1000, 800, [Self.fit], streams: true).bytes
        // A PNG's inflated image data, for example (`PNGDecoder.scanlineBytes(of:)`).
        let streamed = Self.footprint(1000, 800, [Self.fit], streams: true, buffer: 800 * 3001)
        #expect(streamed.route == .streamedRows && streamed.bytes == rows + 800 * 3001)
        // A whole decode holds the image, not the decoder's streaming buffer.
        #expect(
            Self.footprint(1000, 800, [Self.fit], buffer: 800 * 3001).bytes
                == Self.footprint(1000, 800, [Self.fit]).bytes)
    }

    @Test func anAnimationNeverStreams() {
        #expect(Self.footprint(1000, 800, frames: 2, [Self.fit], streams: true).route == .wholeImage)
    }

    @Test func aTransformThatKeepsTheSizeCountsAnotherCopy() {
        let footprint = Self.footprint(100, 50, [GrayscaleTransformer()])
        #expect(footprint.bytes == 100 * 50 * 4 + 100 * 50 + 100 * 50 * 4)
    }

    @Test func orientCopiesOnlyAnImageTheHeaderSaysIsTurned() {
        func footprint(_ format: ImageFormat, _ orientation: ExifOrientation) -> Int {
            DecodeFootprint(
                info: ImageInfo(format: format, width: 100, height: 50, orientation: orientation),
                transforms: [OrientTransformer()], streams: false, reducingGap: 1, limits: .default
            ).bytes
        }
        #expect(footprint(.gif, .up) == 100 * 50 * 4 + 100 * 50)
        #expect(footprint(.jpeg, .up) == 100 * 50 * 4 + 100 * 50)
        #expect(footprint(.jpeg, .right) == 100 * 50 * 4 + 100 * 50 + 100 * 50 * 4)
    }

    @Test func aTurnedImageStreamsAndCountsItsTurnedResult() {
        // 4000x3000 stored, displayed 3000x4000: the fit box is planned on the displayed size (60x80), and the
        // turned result is one more small copy beside a strip of the wider stored rows, not a whole reduced decode.
        let info = ImageInfo(format: .jpeg, width: 4000, height: 3000, orientation: .right)
        let upright = ImageInfo(format: .jpeg, width: 3000, height: 4000)
        let turned = DecodeFootprint(
            info: info, transforms: [OrientTransformer(), Self.fit], streams: true, reducingGap: 2, limits: .default)
        let plain = DecodeFootprint(
            info: upright, transforms: [OrientTransformer(), Self.fit], streams: true, reducingGap: 2, limits: .default)
        #expect(turned.route == .streamedRows && plain.route == .streamedRows)
        #expect(turned.bytes > plain.bytes && turned.bytes < plain.bytes + 2 * 300 * 400 * 4)
    }

    @Test func anUnreadableHeaderCostsTheDecodersOwnLimit() {
        let footprint = DecodeFootprint(
            info: nil, transforms: [], streams: true, reducingGap: 1, limits: DecodingLimits(maxDecodedBytes: 12345))
        #expect(
            footprint
                == DecodeFootprint(
                    info: ImageInfo(format: .png, width: 0, height: 0), transforms: [], streams: true, reducingGap: 1,
                    limits: DecodingLimits(maxDecodedBytes: 12345)))
        #expect(footprint.route == .unknownHeader && footprint.bytes == 12345)
    }

    @Test func the49MegapixelGIFFitsA256MiBBudgetAndThe25FrameAnimationOnly512MiB() {
        let gif = DecodeFootprint(
            info: ImageInfo(format: .gif, width: 7000, height: 7000),
            transforms: [OrientTransformer(), ResizeTransformer(width: 300, height: 300)], streams: false,
            reducingGap: 1, limits: .default)
        #expect(gif.bytes <= 256 << 20)
        let animation = Self.footprint(2000, 2000, frames: 25, [ResizeTransformer(width: 300, height: 300)])
        #expect(animation.bytes > 256 << 20 && animation.bytes <= 512 << 20)
    }
}

/// Byte counts as the budget's messages write them.
@Suite struct ByteCountTextTests {
    @Test func wholeUnitsThenOneDecimal() {
        #expect(ByteCountText.text(1) == "1 byte")
        #expect(ByteCountText.text(1000) == "1000 bytes")
        #expect(ByteCountText.text(16 << 10) == "16 KiB")
        #expect(ByteCountText.text(256 << 20) == "256 MiB")
        #expect(ByteCountText.text(3 << 29) == "1.5 GiB")
        #expect(ByteCountText.text(7680) == "7.5 KiB")
        // Every text reads back as a count near the original.
        #expect(ByteCountText.parse("256M") == 256 << 20)
    }
}
