import Foundation
import Testing
import TroveCore

@testable import TroveAVIF

/// The encoder writes AVIFs that decode back close to the source at quality 0.85, exactly when lossless,
/// with alpha, and as sequences with their delays; quality maps to libavif's quantizers as documented.
@Suite struct AVIFEncoderTests {
    let encoder = AVIFEncoder()
    let decoder = AVIFDecoder()

    func roundTrip(_ image: Image, _ options: EncodingOptions = EncodingOptions()) throws -> (Data, Image) {
        let data = try encoder.encode(image, options: options)
        #expect(decoder.canDecode(data.prefix(ImageFormat.sniffLength)))
        return (data, try decoder.decode(data, limits: .default))
    }

    @Test func photoAtQuality85StaysClose() throws {
        let source = try AVIFFixtures.png("photo-source.png")
        let (data, decoded) = try roundTrip(source)
        #expect(decoded.width == source.width && decoded.height == source.height)
        // Measured 35.8 dB at the default speed 8, as Pillow's own quality=85 file of this source
        // (AVIFPillowTests compares the two).
        #expect(AVIFFixtures.psnr(decoded.pixels, source.pixels, channels: 0..<3) >= 35)
        #expect(stride(from: 3, to: decoded.pixels.count, by: 4).allSatisfy { decoded.pixels[$0] == 255 })
        #expect(data.count < source.pixels.count / 8)
    }

    @Test func alphaIsKept() throws {
        let source = try AVIFFixtures.png("alpha-source.png")
        let (_, decoded) = try roundTrip(source)
        // Measured 49 dB for alpha, 38 for colour.
        #expect(AVIFFixtures.psnr(decoded.pixels, source.pixels, channels: 3..<4) >= 45)
        #expect(AVIFFixtures.psnr(decoded.pixels, source.pixels, channels: 0..<3) >= 36)
        #expect(decoded.pixels[3] <= 8)
    }

    @Test func losslessIsExact() throws {
        for file in ["photo-source.png", "alpha-source.png"] {
            let source = try AVIFFixtures.png(file)
            let (_, decoded) = try roundTrip(source, EncodingOptions(lossless: true))
            #expect(decoded.pixels == source.pixels, "\(file)")
        }
    }

    @Test func sequenceKeepsFramesAndDelays() throws {
        let original = try decoder.decode(try AVIFFixtures.data("sequence.avif"), limits: .default)
        var image = original
        image.frames[2].delay = .milliseconds(333)
        let (data, decoded) = try roundTrip(image, EncodingOptions(quality: 0.9))
        #expect(data.prefix(12).suffix(4).elementsEqual("avis".utf8))
        #expect(decoded.frames.count == 4)
        #expect(
            decoded.frames.map(\.delay) == [
                .milliseconds(100), .milliseconds(200), .milliseconds(333),
                .milliseconds(50)
            ])
        for (a, b) in zip(decoded.frames, image.frames) {
            // Measured 35.9...37.6 dB at quality 0.9.
            #expect(AVIFFixtures.psnr(a.pixels, b.pixels) >= 34)
        }
    }

    @Test func lowerQualityMakesSmallerFiles() throws {
        let source = try AVIFFixtures.png("photo-source.png")
        let high = try encoder.encode(source, options: EncodingOptions(quality: 0.9))
        let low = try encoder.encode(source, options: EncodingOptions(quality: 0.3))
        #expect(low.count < high.count / 2)
    }

    @Test func qualityMapsOntoQuantizersLikeLibavif1() {
        #expect(AVIFEncoder.quantizer(forQuality: 0.85) == 9)
        #expect(AVIFEncoder.quantizer(forQuality: 1) == 0)
        #expect(AVIFEncoder.quantizer(forQuality: 0) == 63)
        #expect(AVIFEncoder.quantizer(forQuality: 0.5) == 32)
        #expect(AVIFEncoder.quantizer(forQuality: 7) == 0)
        #expect(AVIFEncoder.quantizer(forQuality: .nan) == 9)
    }

    @Test func encodesGrayImages() throws {
        let gray = Image(width: 16, height: 8, pixelFormat: .gray8, pixels: (0..<128).map { UInt8($0 * 2) })
        let (_, decoded) = try roundTrip(gray, EncodingOptions(quality: 1))
        #expect(AVIFFixtures.psnr(decoded.pixels, gray.convertedToRGBA8().pixels) >= 40)
    }

    @Test func emptyImageIsRefused() {
        #expect(
            throws: TroveError.encodingFailed(
                format: .avif,
                reason: "AVIF sides must be 1...32768 pixels and 268435456 pixels in all, what libavif reads; "
                    + "this image is 0x5")
        ) {
            try encoder.encode(Image(width: 0, height: 5, pixels: []), options: EncodingOptions())
        }
    }

    /// Found by FuzzPipeline (Tests/Fixtures/fuzz-regressions/gif-24x64276-turned-to-avif.gif, a 24x64276 GIF
    /// turned to 64276x24): an AVIF wider than libavif's decoder reads (32768) was written, which neither
    /// libavif nor a browser opens. Such a size is refused, on the RGBA and the planar way alike.
    @Test func aSideLibavifCannotReadIsRefused() throws {
        let wide = Image(width: 32769, height: 2, pixels: [UInt8](repeating: 200, count: 32769 * 2 * 4))
        #expect(throws: TroveError.self) { try encoder.encode(wide, options: EncodingOptions()) }
        let planes = try #require(
            YCbCrPlanes(
                width: 32769, height: 2, y: [UInt8](repeating: 100, count: 32769 * 2),
                cb: [UInt8](repeating: 128, count: 16385), cr: [UInt8](repeating: 128, count: 16385)))
        #expect(throws: TroveError.self) {
            try encoder.encode(planes, metadata: Image(width: 0, height: 0, pixels: []), options: EncodingOptions())
        }
        // The largest side it reads is written, and reads back.
        let widest = Image(width: 32768, height: 1, pixels: [UInt8](repeating: 90, count: 32768 * 4))
        let decoded = try AVIFDecoder().decode(try encoder.encode(widest, options: EncodingOptions()), limits: .default)
        #expect(decoded.width == 32768 && decoded.height == 1)
    }

    @Test func pluginRegistersDecoderAndEncoder() throws {
        var registry = PluginRegistry()
        try registry.install(TroveAVIFPlugin())
        #expect(registry.names(of: .decoder) == ["avif"])
        #expect(registry.names(of: .encoder) == ["avif"])
        #expect(registry.installedPlugins == [PluginInfo(name: "avif", version: "1.0.0")])
        #expect(registry.decoder(for: try AVIFFixtures.data("sequence.avif"))?.name == "avif")
        #expect(try registry.encoder(for: .avif).name == "avif")
    }

    /// The plugin's encoder speed is the speed of every encode that names none (`trove serve --avif-speed`):
    /// its files are the encoder's at that speed, byte for byte, and another speed's differ.
    @Test func thePluginsEncoderSpeedIsTheDefaultSpeed() throws {
        let source = try AVIFFixtures.png("photo-source.png")
        func viaPlugin(_ plugin: TroveAVIFPlugin) throws -> Data {
            var registry = PluginRegistry()
            try registry.install(plugin)
            return try registry.encoder(for: .avif).encode(source, options: EncodingOptions())
        }
        func atSpeed(_ speed: Int) throws -> Data {
            try encoder.encode(source, options: EncodingOptions(speed: speed))
        }
        let fastest = try viaPlugin(TroveAVIFPlugin(encoderSpeed: 10))
        #expect(fastest == (try atSpeed(10)))
        #expect(try viaPlugin(TroveAVIFPlugin()) == (try atSpeed(8)))
        #expect(try viaPlugin(TroveAVIFPlugin(encoderSpeed: 5)) == (try atSpeed(5)))
        #expect(fastest != (try atSpeed(5)))
        // Out of libavif's range: clamped, as a request's speed is.
        #expect(try viaPlugin(TroveAVIFPlugin(encoderSpeed: 99)) == fastest)
    }
}
