import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveHEIF

/// HEIFEncoder (x265 through libheif) writes files the decoder and pillow-heif read back close to the source;
/// the plugin registers it only where libheif can encode HEVC.
@Suite struct HEIFEncoderTests {
    let encoder = HEIFEncoder()
    let decoder = HEIFDecoder()

    @Test func pluginRegistersTheEncoderOnlyWhenLibheifCanEncode() throws {
        var registry = PluginRegistry()
        try registry.install(TroveHEIFPlugin())
        #expect(try registry.decoder(for: .heic).name == "heic")
        #expect(registry.format(of: try HEIFFixtures.data("photo.heic")) == .heic)
        #expect(((try? registry.encoder(for: .heic)) != nil) == TroveHEIFPlugin.canEncode)
        // Debian bookworm's libheif1 links x265.
        #expect(TroveHEIFPlugin.canEncode)
    }

    @Test func lossyRoundTripStaysCloseToTheSource() throws {
        let source = try HEIFFixtures.png("photo-source.png")
        let data = try encoder.encode(source, options: EncodingOptions(quality: 0.85))
        #expect(decoder.canDecode(data.prefix(ImageFormat.sniffLength)))
        let image = try decoder.decode(data, limits: .default)
        #expect(image.width == 160 && image.height == 107)
        #expect(stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 })
        let quality = psnr(image, source)
        #expect(quality >= 32, "\(quality) dB")
        // Lower quality is a smaller file and a worse picture.
        let rough = try encoder.encode(source, options: EncodingOptions(quality: 0.3))
        #expect(rough.count < data.count)
        #expect(psnr(try decoder.decode(rough, limits: .default), source) < quality)
        #expect(image.colorDescription?.cicp == .init(primaries: 1, transfer: 13, matrix: 6, fullRange: true))
    }

    @Test func alphaIsWrittenWhenSomePixelIsNotOpaque() throws {
        let source = try HEIFFixtures.png("alpha-source.png")
        let image = try decoder.decode(
            try encoder.encode(source, options: EncodingOptions(quality: 0.9)), limits: .default)
        #expect(psnr(image, source, channels: [3]) >= 35)
        #expect(psnr(image, source, premultiplied: true) >= 30)
    }

    @Test func losslessIsRefusedWithTheReason() throws {
        let source = try HEIFFixtures.png("marker-source.png")
        #expect(
            throws: TroveError.encodingFailed(
                format: .heic,
                reason:
                    "this libheif cannot write HEIC without loss (its RGB conversion rounds); use PNG or WebP lossless")
        ) {
            try encoder.encode(source, options: EncodingOptions(lossless: true))
        }
    }

    @Test func badSizesAreRefusedWithTheReason() {
        #expect(
            throws: TroveError.encodingFailed(
                format: .heic, reason: "HEIC sides must be 1...32767 pixels; this image is 0x0")
        ) {
            try encoder.encode(Image(width: 0, height: 0, pixels: []), options: EncodingOptions())
        }
    }

    @Test func pillowHeifOpensTroveHEIC() async throws {
        let source = try HEIFFixtures.png("photo-source.png")
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let file = work.appendingPathComponent("trove.heic")
        try encoder.encode(source, options: EncodingOptions(quality: 0.85)).write(to: file)
        let script = """
            import sys, pillow_heif
            pillow_heif.register_heif_opener()
            from PIL import Image
            im = Image.open(sys.argv[1]); im.load()
            print(im.format, im.size[0], im.size[1])
            """
        let root = Fixtures.root.deletingLastPathComponent().deletingLastPathComponent()
        let result = try await runSubprocess(
            root.appendingPathComponent("scripts/pillow/python.sh"), ["-c", script, file.path])
        try #require(result.status == 0, "pillow-heif failed: \(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "HEIF 160 107\n")
    }
}
