import Foundation
import Testing
import TroveCore
import TroveWebP

/// Encode -> decode round trips: lossless is exact, lossy q85 stays close, animations keep their frames,
/// delays and loop count; gray input is accepted; impossible sizes are refused.
@Suite struct WebPEncoderTests {
    let encoder = WebPEncoder()
    let decoder = WebPDecoder()

    /// A 37x23 gradient with every alpha level, including colour under fully transparent pixels (which
    /// libwebp would discard without `exact`).
    static func gradient(width: Int = 37, height: Int = 23) -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(x * 255 / (width - 1))
                pixels[i + 1] = UInt8(y * 255 / (height - 1))
                pixels[i + 2] = UInt8((x * 7 + y * 13) % 256)
                pixels[i + 3] = UInt8((x + y * width) % 256)
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    @Test func losslessRoundTripIsExact() throws {
        for source in [
            Self.gradient(), try decoder.decode(try WebPFixtures.webp("lossless-alpha"), limits: .default),
            try decoder.decode(try WebPFixtures.webp("lossy-alpha"), limits: .default)
        ] {
            let data = try encoder.encode(source, options: EncodingOptions(lossless: true))
            #expect(decoder.canDecode(data.prefix(32)))
            let decoded = try decoder.decode(data, limits: .default)
            #expect(decoded.width == source.width && decoded.height == source.height)
            #expect(decoded.pixels == source.pixels)
            #expect(decoded.frames.isEmpty)
        }
    }

    @Test func losslessEffortLevelsAllRoundTrip() throws {
        let source = Self.gradient()
        for level in [0, 3, 9] {
            let data = try encoder.encode(source, options: EncodingOptions(compressionLevel: level, lossless: true))
            #expect(try decoder.decode(data, limits: .default).pixels == source.pixels, "level \(level)")
        }
    }

    @Test func lossyQuality85StaysClose() throws {
        let photo = try decoder.decode(try WebPFixtures.webp("lossy-photo"), limits: .default)
        let data = try encoder.encode(photo, options: EncodingOptions(quality: 0.85))
        let decoded = try decoder.decode(data, limits: .default)
        #expect(decoded.width == 128 && decoded.height == 96)
        // Measured 40.3 dB (2,816 bytes) on this 128x96 photo with libwebp 1.2.4 and 1.6.0 alike; 37 dB
        // leaves room for other releases while still catching a wrong quality mapping or colour conversion.
        let psnr = WebPFixtures.psnrRGB(decoded.pixels, photo.pixels)
        #expect(psnr > 37, "PSNR \(psnr) dB")
        #expect(stride(from: 3, to: decoded.pixels.count, by: 4).allSatisfy { decoded.pixels[$0] == 255 })
        // Quality steers the trade-off: lower quality, fewer bytes.
        let small = try encoder.encode(photo, options: EncodingOptions(quality: 0.2))
        #expect(small.count < data.count)
    }

    @Test func lossyKeepsAlpha() throws {
        let source = try decoder.decode(try WebPFixtures.webp("lossy-alpha"), limits: .default)
        let decoded = try decoder.decode(
            try encoder.encode(source, options: EncodingOptions(quality: 0.85)),
            limits: .default)
        // libwebp's alpha plane is lossless at the default alpha quality (100).
        let alpha = { (image: Image) in stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] } }
        #expect(alpha(decoded) == alpha(source))
    }

    @Test func speedPicksTheMethod() throws {
        let photo = try decoder.decode(try WebPFixtures.webp("lossy-photo"), limits: .default)
        for speed in [0, 5, 10] {
            let data = try encoder.encode(photo, options: EncodingOptions(quality: 0.85, speed: speed))
            let psnr = WebPFixtures.psnrRGB(try decoder.decode(data, limits: .default).pixels, photo.pixels)
            #expect(psnr > 30, "speed \(speed): PSNR \(psnr) dB")
        }
    }

    @Test func grayImagesAreConverted() throws {
        let width = 19, height = 11
        let gray = (0..<width * height).map { UInt8($0 % 256) }
        let image = Image(width: width, height: height, pixelFormat: .gray8, pixels: gray)
        let decoded = try decoder.decode(
            try encoder.encode(image, options: EncodingOptions(lossless: true)),
            limits: .default)
        #expect(decoded.pixelFormat == .rgba8)
        #expect(decoded.pixels == gray.flatMap { [$0, $0, $0, 255] })
    }

    @Test func paddedRowsAreRead() throws {
        let source = Self.gradient(width: 10, height: 4)
        var padded = [UInt8]()
        for y in 0..<4 { padded += source.pixels[y * 40..<(y + 1) * 40] + [9, 9, 9, 9, 9, 9] }
        let image = Image(width: 10, height: 4, bytesPerRow: 46, pixels: padded)
        let decoded = try decoder.decode(
            try encoder.encode(image, options: EncodingOptions(lossless: true)),
            limits: .default)
        #expect(decoded.pixels == source.pixels)
    }

    @Test func impossibleSizesAreRefused() {
        for (width, height) in [(0, 10), (16_384, 1), (1, 16_384)] {
            let image = Image(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 4))
            #expect(
                throws: TroveError.encodingFailed(
                    format: .webp,
                    reason: "WebP sides must be 1...16383 pixels; "
                        + "this image is \(width)x\(height)")
            ) {
                try encoder.encode(image, options: EncodingOptions())
            }
        }
    }

    /// Frames as an animated GIF decoder would hand them over: full-size, each with its delay.
    static func animation(loopCount: Int) -> Image {
        let width = 40, height = 30
        let frames = (0..<5).map { index in
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    let inside = abs(x - 8 - index * 6) < 6 && abs(y - 15) < 8
                    pixels[i] = inside ? 200 : UInt8(x * 6)
                    pixels[i + 1] = inside ? UInt8(40 * index) : UInt8(y * 8)
                    pixels[i + 2] = 90
                    pixels[i + 3] = inside ? 255 : UInt8(128 + y * 4)
                }
            }
            return AnimationFrame(pixels: pixels, delay: .milliseconds([30, 70, 110, 20, 500][index]))
        }
        return Image(width: width, height: height, pixels: frames[0].pixels, frames: frames, loopCount: loopCount)
    }

    @Test(arguments: [0, 3])
    func animationLosslessRoundTripKeepsFramesDelaysAndLoop(loopCount: Int) throws {
        let source = Self.animation(loopCount: loopCount)
        let data = try encoder.encode(source, options: EncodingOptions(lossless: true))
        #expect(try decoder.info(data) == ImageInfo(format: .webp, width: 40, height: 30, frameCount: 5))
        let decoded = try decoder.decode(data, limits: .default)
        #expect(decoded.frames.count == 5)
        #expect(decoded.frames.map(\.delay) == source.frames.map(\.delay))
        #expect(decoded.loopCount == loopCount)
        #expect(decoded.pixels == source.frames[0].pixels)
        for (index, (got, want)) in zip(decoded.frames, source.frames).enumerated() {
            #expect(got.pixels == want.pixels, "frame \(index)")
        }
    }

    @Test func animatedFixtureReencodesToTheSameAnimation() throws {
        for name in WebPFixtures.animations {
            let source = try decoder.decode(try WebPFixtures.webp(name), limits: .default)
            let lossless = try decoder.decode(
                try encoder.encode(source, options: EncodingOptions(lossless: true)),
                limits: .default)
            #expect(lossless.frames == source.frames && lossless.loopCount == 2, "\(name)")
            let lossy = try decoder.decode(
                try encoder.encode(source, options: EncodingOptions(quality: 0.85)),
                limits: .default)
            #expect(lossy.frames.count == 4 && lossy.loopCount == 2)
            #expect(lossy.frames.map(\.delay) == source.frames.map(\.delay))
            for (index, (got, want)) in zip(lossy.frames, source.frames).enumerated() {
                // As seen over black: lossy WebP may change the colour under fully transparent pixels.
                let psnr = WebPFixtures.psnrRGB(
                    WebPFixtures.premultiplied(got.pixels),
                    WebPFixtures.premultiplied(want.pixels))
                // Measured 38.9...45.0 dB over the eight frames with libwebp 1.2.4.
                #expect(psnr > 35, "\(name) frame \(index): PSNR \(psnr) dB")
            }
        }
    }
}
