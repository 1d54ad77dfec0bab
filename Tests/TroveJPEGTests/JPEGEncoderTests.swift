import Foundation
import Testing
import TroveCore

@testable import TroveJPEG

/// The encoder writes JPEGs libjpeg reads back close to the source, honouring quality; the plugin
/// registers both parts.
@Suite struct JPEGEncoderTests {
    /// A smooth gradient, which JPEG reproduces closely at high quality.
    static let gradient: Image = {
        let (w, h) = (64, 48)
        var pixels = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                pixels[i] = UInt8(x * 4); pixels[i + 1] = UInt8(y * 5); pixels[i + 2] = UInt8((x + y) * 2)
            }
        }
        return Image(width: w, height: h, pixels: pixels)
    }()

    func meanError(_ a: [UInt8], _ b: [UInt8]) -> Double {
        Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
    }

    @Test func roundTripStaysClose() throws {
        let data = try JPEGEncoder().encode(Self.gradient, options: EncodingOptions(quality: 0.95))
        #expect(JPEGDecoder().canDecode(data.prefix(ImageFormat.sniffLength)))
        let decoded = try JPEGDecoder().decode(data, limits: .default)
        #expect(decoded.width == 64 && decoded.height == 48)
        #expect(meanError(decoded.pixels, Self.gradient.pixels) < 2)
    }

    /// Transparent pixels are laid over white, as imgproxy and `trove serve` flatten before a JPEG: the left
    /// half, red under alpha 0, comes out white (its hidden red never shows); the right half, blue at alpha 128,
    /// half blue over white.
    @Test func transparentPixelsAreLaidOverWhite() throws {
        let (w, h) = (32, 16)
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        for index in 0..<(w * h) {
            let left = index % w < w / 2
            pixels.replaceSubrange(index * 4..<index * 4 + 4, with: left ? [255, 0, 0, 0] : [0, 0, 255, 128])
        }
        let data = try JPEGEncoder().encode(
            Image(width: w, height: h, pixels: pixels), options: EncodingOptions(quality: 1))
        let decoded = try JPEGDecoder().decode(data, limits: .default)
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(decoded.pixels[(y * w + x) * 4 + $0]) } }
        for (got, want) in [(pixel(4, 8), [255, 255, 255]), (pixel(27, 8), [127, 127, 255])] {
            #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 3 }, "\(got) for \(want)")
        }
    }

    @Test func lowerQualityMakesSmallerFiles() throws {
        let image = try JPEGDecoder().decode(try JPEGFixtures.rocket(), limits: .default)
        let high = try JPEGEncoder().encode(image, options: EncodingOptions(quality: 0.9))
        let low = try JPEGEncoder().encode(image, options: EncodingOptions(quality: 0.2))
        #expect(low.count < high.count / 2)
    }

    @Test func qualityMapsOntoLibjpegsScale() {
        #expect(JPEGEncoder.libjpegQuality(0) == 1)
        #expect(JPEGEncoder.libjpegQuality(1) == 100)
        #expect(JPEGEncoder.libjpegQuality(0.5) == 51)
        #expect(JPEGEncoder.libjpegQuality(7) == 100)
    }

    @Test func encodesGrayImages() throws {
        let gray = Image(width: 16, height: 8, pixelFormat: .gray8, pixels: (0..<128).map { UInt8($0 * 2) })
        let decoded = try JPEGDecoder().decode(
            try JPEGEncoder().encode(gray, options: EncodingOptions(quality: 1)),
            limits: .default)
        let expanded = gray.convertedToRGBA8().pixels
        #expect(meanError(decoded.pixels, expanded) < 2)
    }

    @Test func emptyImageIsRefused() {
        #expect(
            throws: TroveError.encodingFailed(
                format: .jpeg,
                reason: "JPEG sides must be 1...65500 pixels; this image is 0x5")
        ) {
            try JPEGEncoder().encode(Image(width: 0, height: 5, pixels: []), options: EncodingOptions())
        }
    }

    @Test func pluginRegistersDecoderAndEncoder() throws {
        var registry = PluginRegistry()
        try registry.install(TroveJPEGPlugin())
        #expect(registry.names(of: .decoder) == ["jpeg"])
        #expect(registry.names(of: .encoder) == ["jpeg"])
        #expect(registry.installedPlugins == [PluginInfo(name: "jpeg", version: "1.0.0")])
        let decoder = try #require(registry.decoder(for: try JPEGFixtures.jpeg("gray")))
        #expect(decoder.name == "jpeg")
    }
}
