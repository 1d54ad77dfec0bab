import Foundation
import Testing
import TroveCore
import TroveWebP

/// Stills and animations decode like Pillow (libwebp too, a newer release); the header is read without
/// decoding; broken input is refused with a reason naming WebP.
@Suite struct WebPDecoderTests {
    let decoder = WebPDecoder()

    @Test(arguments: WebPFixtures.stills)
    func stillDecodesLikePillow(name: String) throws {
        let entry = try WebPFixtures.manifest(name)
        let image = try decoder.decode(try WebPFixtures.webp(name), limits: .default)
        #expect(image.width == entry.width && image.height == entry.height)
        #expect(image.pixelFormat == .rgba8 && image.bytesPerRow == image.width * 4)
        #expect(image.sourceFormat == .webp && image.frames.isEmpty)
        let reference = try WebPFixtures.reference(name)
        // Lossless is exact by definition; lossy may differ by a rounding between libwebp releases.
        let tolerance = entry.lossless ? 0 : 1
        #expect(WebPFixtures.maxDifference(image.pixels, reference.pixels) <= tolerance)
    }

    @Test func alphaIsStraightAndReal() throws {
        let image = try decoder.decode(try WebPFixtures.webp("lossy-alpha"), limits: .default)
        let alphas = Set(stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] })
        #expect(alphas.contains(0) && alphas.contains(255))
        #expect(alphas.count > 50)  // a fade, not a mask
        let opaque = try decoder.decode(try WebPFixtures.webp("lossy-photo"), limits: .default)
        #expect(stride(from: 3, to: opaque.pixels.count, by: 4).allSatisfy { opaque.pixels[$0] == 255 })
    }

    @Test(arguments: WebPFixtures.animations)
    func animationDecodesLikePillow(name: String) throws {
        let entry = try WebPFixtures.manifest(name)
        let image = try decoder.decode(try WebPFixtures.webp(name), limits: .default)
        #expect(image.width == entry.width && image.height == entry.height)
        #expect(image.frames.count == entry.frames)
        #expect(image.frames.map(\.delay) == (entry.delays_ms ?? []).map { .milliseconds($0) })
        #expect(image.loopCount == entry.loop)
        #expect(image.pixels == image.frames.first?.pixels)
        let tolerance = entry.lossless ? 0 : 1
        for (index, frame) in image.frames.enumerated() {
            let reference = try WebPFixtures.reference(name, frame: index)
            #expect(frame.pixels.count == entry.width * entry.height * 4)
            #expect(WebPFixtures.maxDifference(frame.pixels, reference.pixels) <= tolerance, "frame \(index)")
        }
    }

    @Test func infoReadsTheHeaderOnly() throws {
        #expect(
            try decoder.info(try WebPFixtures.webp("lossy-photo"))
                == ImageInfo(format: .webp, width: 128, height: 96, frameCount: 1))
        #expect(
            try decoder.info(try WebPFixtures.webp("lossless-alpha"))
                == ImageInfo(format: .webp, width: 96, height: 96, frameCount: 1))
        #expect(
            try decoder.info(try WebPFixtures.webp("lossy-alpha"))
                == ImageInfo(format: .webp, width: 120, height: 90, frameCount: 1))
        #expect(
            try decoder.info(try WebPFixtures.webp("animated"))
                == ImageInfo(format: .webp, width: 64, height: 48, frameCount: 4))
        // A size no decoder would allocate is still reported, so the caller can refuse it by its limits.
        #expect(
            try decoder.info(WebPFixtures.vp8xHeader(width: 100_000, height: 100_000))
                == ImageInfo(format: .webp, width: 100_000, height: 100_000, frameCount: 1))
    }

    @Test func canDecodeRecognisesTheRIFFWebPSignature() throws {
        for name in WebPFixtures.stills + WebPFixtures.animations {
            #expect(decoder.canDecode(try WebPFixtures.webp(name).prefix(ImageFormat.sniffLength)))
        }
        #expect(decoder.canDecode(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8)))
        #expect(!decoder.canDecode(Data("RIFF\u{24}\u{0}\u{0}\u{0}WAVEfmt ".utf8)))
        #expect(!decoder.canDecode(Data("RIFF".utf8)))
        #expect(!decoder.canDecode(Data("WEBPRIFF\u{0}\u{0}\u{0}\u{0}".utf8)))
        #expect(!decoder.canDecode(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
        #expect(!decoder.canDecode(Data()))
    }

    @Test func pluginRegistersTheDecoderAndEncoder() throws {
        var registry = PluginRegistry()
        try registry.install(TroveWebPPlugin())
        #expect(registry.decoder(for: try WebPFixtures.webp("lossy-photo").prefix(32))?.name == "webp")
        #expect(try registry.decoder(for: .webp).name == "webp")
        #expect(try registry.encoder(for: .webp).name == "webp")
        #expect(registry.installedPlugins.contains(PluginInfo(name: "webp", version: "1.0.0")))
    }
}
