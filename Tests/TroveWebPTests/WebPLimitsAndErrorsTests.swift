import Foundation
import Testing
import TroveCore
import TroveTestSupport
import TroveWebP

/// Sizes and frame counts over the limits are refused from the header before anything is allocated;
/// garbage and truncated files are refused with `decodingFailed` naming WebP.
@Suite struct WebPLimitsAndErrorsTests {
    let decoder = WebPDecoder()

    @Test func hugeDeclaredCanvasIsRefusedBeforeAllocating() {
        // 10^10 pixels: 40 GB of RGBA. Only the 30-byte header exists, so reaching libwebp would fail
        // differently; the error shows the limit check ran first.
        let header = WebPFixtures.vp8xHeader(width: 100_000, height: 100_000)
        #expect(throws: TroveError.imageTooLarge(width: 100_000, height: 100_000, limit: 100_000_000)) {
            try decoder.decode(header, limits: .default)
        }
        let animated = WebPFixtures.vp8xHeader(width: 100_000, height: 100_000, animated: true)
        #expect(throws: TroveError.imageTooLarge(width: 100_000, height: 100_000, limit: 100_000_000)) {
            try decoder.decode(animated, options: DecodingOptions(minimumSize: PixelSize(width: 10, height: 10)))
        }
    }

    @Test func realFileOverTheLimitIsRefused() throws {
        #expect(throws: TroveError.imageTooLarge(width: 128, height: 96, limit: 10_000)) {
            try decoder.decode(try WebPFixtures.webp("lossy-photo"), limits: DecodingLimits(maxPixels: 10_000))
        }
        // VP8L and VP8X headers are read too, not only VP8.
        #expect(throws: TroveError.imageTooLarge(width: 96, height: 96, limit: 9_000)) {
            try decoder.decode(try WebPFixtures.webp("lossless-alpha"), limits: DecodingLimits(maxPixels: 9_000))
        }
        #expect(throws: TroveError.imageTooLarge(width: 120, height: 90, limit: 10_000)) {
            try decoder.decode(try WebPFixtures.webp("lossy-alpha"), limits: DecodingLimits(maxPixels: 10_000))
        }
    }

    @Test func framesPastMaxFramesAreDropped() throws {
        // 4 frames of 64x48: the first frames as the whole decode has them, for every limit.
        #expect(try decoder.limitsNotKeepingFirstFrames(of: try WebPFixtures.webp("animated"), frames: 4) == [])
    }

    @Test func theKeptFramesMustFitTheByteLimit() throws {
        let data = try WebPFixtures.webp("animated")  // 4 frames of 64x48: 12,288 bytes each
        // All 4 frames do not fit in 40,000 bytes; 3 do.
        #expect(
            throws: TroveError.tooLargeToDecode(
                needed: 4 * 12_288, limit: 40_000, setting: "DecodingLimits.maxDecodedBytes")
        ) {
            try decoder.decode(data, limits: DecodingLimits(maxDecodedBytes: 40_000))
        }
        #expect(
            try decoder.decode(data, limits: DecodingLimits(maxDecodedBytes: 40_000, maxFrames: 3)).frames.count == 3)
    }

    @Test func scaledDecodeKeepsTheAspectRatioAndMeetsTheMinimum() throws {
        let photo = try WebPFixtures.webp("lossy-photo")  // 128x96
        func size(_ width: Int, _ height: Int, _ name: String = "lossy-photo") throws -> PixelSize {
            let options = DecodingOptions(minimumSize: PixelSize(width: width, height: height))
            let image = try decoder.decode(try WebPFixtures.webp(name), options: options)
            #expect(image.pixels.count == image.width * image.height * 4)
            return PixelSize(width: image.width, height: image.height)
        }
        // Height binds: 96 -> 32 is a third, so 128 -> 42.67, rounded up to stay at least the minimum.
        #expect(try size(32, 32) == PixelSize(width: 43, height: 32))
        // Width binds: 128 -> 64 is half.
        #expect(try size(64, 16) == PixelSize(width: 64, height: 48))
        // The smallest 4:3 size at least 1x1, rounded up.
        #expect(try size(1, 1) == PixelSize(width: 2, height: 1))
        // Never larger than the image: a request at or beyond its size gets full size.
        #expect(try size(128, 96) == PixelSize(width: 128, height: 96))
        #expect(try size(200, 10) == PixelSize(width: 128, height: 96))
        #expect(try size(500, 500) == PixelSize(width: 128, height: 96))
        // Lossless and alpha stills scale too; animations are always full size.
        #expect(try size(24, 24, "lossless-alpha") == PixelSize(width: 24, height: 24))
        #expect(try size(30, 20, "lossy-alpha") == PixelSize(width: 30, height: 23))
        #expect(try size(16, 16, "animated") == PixelSize(width: 64, height: 48))

        // The reduced image shows the same picture: its average colour matches the full decode's.
        let full = try decoder.decode(photo, limits: .default)
        let half = try decoder.decode(photo, options: DecodingOptions(minimumSize: PixelSize(width: 64, height: 48)))
        func mean(_ image: Image, _ channel: Int) -> Double {
            let values = stride(from: channel, to: image.pixels.count, by: 4).map { Double(image.pixels[$0]) }
            return values.reduce(0, +) / Double(values.count)
        }
        for channel in 0..<3 {
            #expect(abs(mean(full, channel) - mean(half, channel)) < 2, "channel \(channel)")
        }
    }

    @Test func garbageIsRefusedNamingWebP() {
        let cases: [Data] = [
            Data(),
            Data("RIFF".utf8),
            Data("not an image at all, just some text".utf8),
            Data("RIFF\u{20}\u{0}\u{0}\u{0}WEBPJUNK\u{0}\u{0}\u{0}\u{0}".utf8) + Data(count: 20),
            Data("RIFF\u{20}\u{0}\u{0}\u{0}WEBPVP8 \u{14}\u{0}\u{0}\u{0}".utf8) + Data(repeating: 0x55, count: 20),
            // A 16x16 lossless header followed by bits that are no valid entropy code.
            Data("RIFF\u{20}\u{0}\u{0}\u{0}WEBPVP8L\u{14}\u{0}\u{0}\u{0}\u{2F}".utf8) + Data([0x0F, 0xC0, 0x03, 0x00])
                + Data(repeating: 0xFF, count: 15)
        ]
        for data in cases {
            #expect(throws: TroveError.self, "\(data.count) bytes decoded") {
                try decoder.decode(data, limits: .default)
            }
            #expect {
                try decoder.decode(data, limits: .default)
            } throws: { error in
                guard case let TroveError.decodingFailed(format, reason) = error else { return false }
                return format == .webp && !reason.isEmpty
            }
        }
        #expect(
            throws: TroveError.decodingFailed(
                format: .webp,
                reason: "the first chunk is 'JUNK', not VP8, VP8L or VP8X")
        ) {
            try decoder.decode(cases[3], limits: .default)
        }
    }

    @Test(arguments: WebPFixtures.stills + WebPFixtures.animations)
    func everyTruncationIsAnError(name: String) throws {
        let data = [UInt8](try WebPFixtures.webp(name))
        for length in stride(from: 0, to: data.count - 1, by: 5) {
            #expect {
                try decoder.decode(Data(data[0..<length]), limits: .default)
            } throws: { error in
                guard case let TroveError.decodingFailed(format, _) = error else { return false }
                return format == .webp
            }
        }
        #expect(throws: TroveError.self) { try decoder.decode(Data(data.dropLast()), limits: .default) }
    }

    @Test func truncatedStillSaysSo() throws {
        let data = try WebPFixtures.webp("lossy-photo")
        #expect(
            throws: TroveError.decodingFailed(
                format: .webp,
                reason: "the file ends before the image data does (it is truncated)")
        ) {
            try decoder.decode(data.prefix(data.count / 2), limits: .default)
        }
    }

    @Test func corruptedBitstreamIsAnError() throws {
        var data = [UInt8](try WebPFixtures.webp("lossless-alpha"))
        // Overwrite the entropy-coded body, keeping the header: libwebp must notice, not crash.
        for i in 40..<data.count { data[i] = UInt8(truncatingIfNeeded: i &* 151) }
        #expect {
            try decoder.decode(Data(data), limits: .default)
        } throws: { error in
            guard case let TroveError.decodingFailed(format, _) = error else { return false }
            return format == .webp
        }
    }
}
