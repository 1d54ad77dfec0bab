import Foundation
import Testing
import Trove
import TroveCodec
import TroveColor
import TroveCore
import TroveJXL
import TroveTestSupport

/// Found by the request fuzzers (Tools/Fuzz, FuzzRequestWebP and FuzzRequestHEIF; the inputs are in
/// Tests/Fixtures/fuzz-regressions): a file whose RGB ICC profile is damaged (a tone curve LittleCMS cannot read),
/// asked for with `keepsColorProfile` and JPEG XL out, killed the process. The colour stage kept the profile
/// without checking it could be used, the JPEG XL encoder handed it to libjxl, and libjxl, unable to link it for
/// its XYB conversion, aborted (a JXL_CHECK, SIGILL) instead of returning an error. Debug and release alike. A
/// stage that keeps profiles now keeps only one its converter can build a transform from; a damaged one is
/// treated as sRGB and dropped, as when converting, so no encoder is handed it.
@Suite struct KeptDamagedProfileTests {
    static let fixtures = ["keep-damaged-icc-to-jxl.webp", "keep-damaged-icc-to-jxl.heic"]

    static func registry() throws -> PluginRegistry {
        var registry = try ColorCases.registry(color: true)
        try registry.install(TroveJXLPlugin())
        return registry
    }

    /// The 64x64 thumbnail's shrink-on-load resize, which the fuzzer asked for.
    static let resize = ResizeTransformer(width: 64, height: 64, mode: .fit, filter: .lanczos3)

    /// The damaged profile a fixture carries (decoded as the request decodes it, without colour management),
    /// checked to be one the encoders would embed and LittleCMS refuses.
    static func damagedProfile(_ data: Data, _ decoder: any ImageDecoder) throws -> ColorDescription {
        let (image, _) = try decoder.decode(data, limits: .default, for: [OrientTransformer(), resize])
        let description = try #require(image.colorDescription)
        #expect(description.embeddableProfile(for: .rgba8) != nil, "an RGB profile, which a kept image carries")
        #expect(throws: ColorConversionError.self) {
            try LCMSColorConverter().transformToSRGB(from: description, samples: .rgba8)
        }
        return description
    }

    @Test(arguments: fixtures)
    func aDamagedProfileIsNotKeptAndJPEGXLEncodes(_ name: String) async throws {
        let file = Fixtures.url("fuzz-regressions/\(name)")
        let data = try Data(contentsOf: file)
        let registry = try Self.registry()
        let decoder = try #require(registry.decoder(for: data))
        _ = try Self.damagedProfile(data, decoder)

        // The decode a request runs, as the fuzzer ran it: shrink-on-load for orient and a 64x64 fit.
        let (decoded, _) = try decoder.decode(
            data, limits: .default, for: [OrientTransformer(), Self.resize], colorConverter: registry.colorConverter,
            keepsColorProfile: true)
        // Checked before any encoder sees the image: before the fix, encoding it aborted the test process.
        try #require(decoded.colorDescription == nil, "a profile nothing can use is not kept")

        // The request that crashed, lossy (libjxl's XYB) at the default effort and at 9, the most butteraugli.
        let pipeline = try ImagePipeline(registry: registry, configuration: .memoryOnly)
        for options in [EncodingOptions(), EncodingOptions(quality: 0.5, speed: 1)] {
            let response = try await pipeline.image(
                for: ImageRequest(
                    url: file, transforms: [Self.resize], options: .keepsColorProfile, outputFormat: .jxl,
                    encodingOptions: options))
            let written = try JXLDecoder().decode(response.data, limits: .default)
            #expect(written.colorDescription?.iccProfile == nil, "tagged sRGB, not with the damaged profile")
            #expect(max(written.width, written.height) <= 64)
        }
    }

    /// The 16-bit route: a decoder hands 16-bit samples to the converter before rounding them, and declined
    /// them under a profile the stage kept. Under the damaged profile the samples are now treated as sRGB,
    /// exactly as when converting, and the profile is dropped.
    @Test func aDamagedProfileOnSixteenBitSamplesIsTreatedAsSRGB() throws {
        let webp = try Data(contentsOf: Fixtures.url("fuzz-regressions/\(Self.fixtures[0])"))
        let registry = try Self.registry()
        let webpDecoder = try #require(registry.decoder(for: webp))
        let profile = try #require(try Self.damagedProfile(webp, webpDecoder).iccProfile)
        let png = try SixteenBitPNGColorTests.png(
            colorType: 2, extra: try SixteenBitPNGColorTests.iccp(profile)
        ) { [$0, 65535 - $0, $0 / 2] }
        func decode(keeping: Bool) throws -> Image {
            try PNGDecoder().decode(
                png, limits: .default, for: [], colorConverter: registry.colorConverter, keepsColorProfile: keeping
            ).0
        }
        let kept = try decode(keeping: true)
        #expect(kept.colorDescription == nil)
        let converted = try decode(keeping: false)
        #expect(kept == converted)
    }
}
