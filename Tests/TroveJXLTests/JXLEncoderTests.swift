import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveJXL

/// Trove's JPEG XL written and read back through libjxl: lossless exactly, lossy close to the source,
/// alpha, animation timing and loop count, orientation; the quality and speed mappings.
@Suite struct JXLEncoderTests {
    /// A 48x32 picture with smooth gradients, hard edges and alpha from 0 to 255.
    static func picture(width: Int = 48, height: Int = 32, alpha: Bool = true, shift: Int = 0) -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8((x + shift) * 255 / width % 256)
                pixels[i + 1] = UInt8(y * 255 / height)
                pixels[i + 2] = (x / 8 + y / 8) % 2 == 0 ? 200 : 40
                pixels[i + 3] = alpha ? UInt8((x * 5 + y * 3) % 256) : 255
            }
        }
        return Image(
            width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: pixels,
            sourceFormat: .unknown)
    }

    @Test(arguments: [true, false])
    func losslessRoundTripsExactly(alpha: Bool) throws {
        let source = Self.picture(alpha: alpha)
        let data = try JXLEncoder().encode(source, options: EncodingOptions(lossless: true))
        #expect(JXLDecoder().canDecode(data))
        let decoded = try JXLDecoder().decode(data, limits: .default)
        #expect(decoded.width == 48 && decoded.height == 32)
        #expect(decoded.pixels == source.pixels)
    }

    @Test func lossyKeepsThePictureAndAlpha() throws {
        let opaque = try JXLFixtures.reference("lossy-photo")  // a 160x107 photo
        let high = try JXLEncoder().encode(opaque, options: EncodingOptions(quality: 0.95))
        let low = try JXLEncoder().encode(opaque, options: EncodingOptions(quality: 0.5))
        let psnrHigh = psnr(try JXLDecoder().decode(high, limits: .default), opaque)
        let psnrLow = psnr(try JXLDecoder().decode(low, limits: .default), opaque)
        #expect(psnrHigh >= 42, "quality 0.95: \(psnrHigh) dB")
        #expect(
            psnrLow < psnrHigh && low.count < high.count, "0.5: \(psnrLow) dB \(low.count) B; 0.95: \(high.count) B")
        // With alpha, colours count as seen (premultiplied): libjxl may change what is invisible.
        let translucent = try JXLFixtures.reference("lossy-alpha")  // a 120x90 photo with soft alpha
        let decoded = try JXLDecoder().decode(
            try JXLEncoder().encode(translucent, options: EncodingOptions(quality: 0.95)), limits: .default)
        let colour = psnr(decoded, translucent, premultiplied: true)
        let alpha = psnr(decoded, translucent, channels: [3])
        #expect(colour >= 42 && alpha >= 42, "colour \(colour) dB, alpha \(alpha) dB")
    }

    @Test func opaqueImagesGetNoAlphaChannel() throws {
        let opaque = try JXLEncoder().encode(Self.picture(alpha: false), options: EncodingOptions(lossless: true))
        let withAlpha = try JXLEncoder().encode(Self.picture(alpha: true), options: EncodingOptions(lossless: true))
        let decoded = try JXLDecoder().decode(opaque, limits: .default)
        #expect(stride(from: 3, to: decoded.pixels.count, by: 4).allSatisfy { decoded.pixels[$0] == 255 })
        #expect(opaque.count < withAlpha.count)
    }

    @Test func animationKeepsFramesDelaysAndLoopCount() throws {
        let frames = (0..<3).map { index in
            AnimationFrame(pixels: Self.picture(shift: index * 7).pixels, delay: .milliseconds(40 + index * 30))
        }
        let source = Image(
            width: 48, height: 32, pixelFormat: .rgba8, bytesPerRow: 48 * 4, pixels: frames[0].pixels,
            sourceFormat: .unknown, frames: frames, loopCount: 3)
        let data = try JXLEncoder().encode(source, options: EncodingOptions(lossless: true))
        #expect(try JXLDecoder().info(data) == ImageInfo(format: .jxl, width: 48, height: 32, frameCount: 3))
        let decoded = try JXLDecoder().decode(data, limits: .default)
        #expect(decoded.frames.map(\.delay) == [.milliseconds(40), .milliseconds(70), .milliseconds(100)])
        #expect(decoded.frames.map(\.pixels) == frames.map(\.pixels))
        #expect(decoded.loopCount == 3)
    }

    @Test func orientationIsWrittenAndReportedNotApplied() throws {
        var source = Self.picture()
        source.orientation = .right
        let data = try JXLEncoder().encode(source, options: EncodingOptions(lossless: true))
        let decoded = try JXLDecoder().decode(data, limits: .default)
        // Stored pixels, stored size: the `orient` transform turns it, once.
        #expect(decoded.orientation == .right)
        #expect(decoded.width == 48 && decoded.height == 32 && decoded.pixels == source.pixels)
        #expect(try JXLDecoder().info(data)?.width == 48)
    }

    @Test func qualityMapsToCjxlDistances() {
        #expect(abs(JXLEncoder.distance(forQuality: 0.9) - 1.0) < 1e-5)
        #expect(abs(JXLEncoder.distance(forQuality: 0.85) - 1.45) < 1e-5)
        #expect(abs(JXLEncoder.distance(forQuality: 1) - 0.1) < 1e-5)
        #expect(abs(JXLEncoder.distance(forQuality: 0.3) - 6.4) < 1e-5)
        #expect(abs(JXLEncoder.distance(forQuality: 0.2) - (6.4 + 6.25 / 6.25)) < 1e-5)
        #expect(JXLEncoder.distance(forQuality: 0) == 25)
        #expect(JXLEncoder.distance(forQuality: .nan) == JXLEncoder.distance(forQuality: 0.85))
        #expect(JXLEncoder.effort(forSpeed: 3) == 7)
        #expect(JXLEncoder.effort(forSpeed: 0) == 9 && JXLEncoder.effort(forSpeed: 10) == 1)
    }

    @Test func mismatchedFramesAreRefused() throws {
        let source = Image(
            width: 4, height: 4, pixelFormat: .rgba8, bytesPerRow: 16, pixels: [UInt8](repeating: 9, count: 64),
            sourceFormat: .unknown,
            frames: [
                AnimationFrame(pixels: [UInt8](repeating: 9, count: 64), delay: .milliseconds(10)),
                AnimationFrame(pixels: [UInt8](repeating: 9, count: 60), delay: .milliseconds(10))
            ])
        #expect(
            throws: TroveError.encodingFailed(
                format: .jxl, reason: "frame 2 holds 60 bytes, not 64 (4x4 RGBA8)")
        ) { try JXLEncoder().encode(source, options: EncodingOptions()) }
    }
}
