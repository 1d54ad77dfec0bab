import Foundation
import MetricsTestKit
import Testing
import TroveAVIF
import TroveCodec
import TroveColor
import TroveCore
import TroveJPEG
import TroveTestSupport
import TroveTransformers
import TroveWebP

@testable import Trove

/// The planar path (`PlanarRoute`) against the RGBA path, in one run: a result made from YCbCr planes must be
/// what the RGBA path makes, within 45 dB PSNR on the decoded RGB and at most 2% more bytes at the same
/// quality; every case the rule sends the RGBA way must go there and give exactly its bytes.
@Suite struct PlanarPathTests {
    /// The JPEG decoder without its planar side: a registry with it makes every result the RGBA way, as before
    /// the planar path existed (rows still stream into a leading resize).
    struct RGBAOnlyJPEGDecoder: RowStreamingImageDecoder, EmbeddedMetadataReading {
        let inner = JPEGDecoder()
        var name: String { inner.name }
        var format: ImageFormat { inner.format }
        func canDecode(_ header: Data) -> Bool { inner.canDecode(header) }
        func decode(_ data: Data, limits: DecodingLimits) throws -> Image { try inner.decode(data, limits: limits) }
        func decode(_ data: Data, options: DecodingOptions) throws -> Image { try inner.decode(data, options: options) }
        func decode(_ data: Data, options: DecodingOptions, into sink: any ImageRowSink) throws {
            try inner.decode(data, options: options, into: sink)
        }
        func info(_ data: Data) throws -> ImageInfo? { try inner.info(data) }
        func exif(_ data: Data) -> [UInt8]? { inner.exif(data) }
        func embeddedMetadata(_ data: Data) -> EmbeddedMetadata { inner.embeddedMetadata(data) }
    }

    /// Sees every decoded image, so the pipeline must decode one.
    final class SeeingDelegate: PipelineDelegate {
        func didDecode(_ image: Image, for request: ImageRequest) throws -> Image { image }
    }

    /// With colour management, as `trove serve` runs: a source's profile is converted on the RGBA way.
    static func registry(planar: Bool) throws -> PluginRegistry {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        try registry.install(TroveWebPPlugin())
        try registry.install(TroveAVIFPlugin())
        try registry.install(TroveColorPlugin())
        if !planar { try registry.register(decoder: RGBAOnlyJPEGDecoder(), replacing: true) }
        return registry
    }

    /// One result through a fresh pipeline, and how many results it made from planes.
    static func make(
        _ fixture: String, spec: String, planar: Bool, format: ImageFormat = .jpeg, quality: Double = 0.8,
        delegate: (any PipelineDelegate)? = nil, options: ImageRequest.Options = []
    ) async throws -> (response: ImageResponse, planarResults: Int) {
        try await make(
            Fixtures.url(fixture), spec: spec, planar: planar, format: format, quality: quality, delegate: delegate,
            options: options)
    }

    /// One result of the source at `url` through a fresh pipeline, and how many results it made from planes.
    static func make(
        _ url: URL, spec: String, planar: Bool, format: ImageFormat = .jpeg, quality: Double = 0.8,
        delegate: (any PipelineDelegate)? = nil, options: ImageRequest.Options = []
    ) async throws -> (response: ImageResponse, planarResults: Int) {
        let registry = try registry(planar: planar)
        let metrics = TestMetrics()
        return try await withTemporaryDirectory { directory in
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.metricsFactory = metrics
            configuration.delegate = delegate
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            var request = ImageRequest(
                url: url, transforms: try registry.transformers(forSpec: spec), options: options)
            request.outputFormat = format
            request.encodingOptions = EncodingOptions(quality: quality)
            let response = try await pipeline.image(for: request)
            let planarResults = (try? metrics.expectCounter("trove_results_planar_total").totalValue) ?? 0
            return (response, Int(planarResults))
        }
    }

    static let photos = [
        "planar/coffee-420.jpg", "planar/coffee-422.jpg", "planar/coffee-444.jpg", "planar/rocket-420.jpg",
        "planar/chelsea-420-progressive.jpg", "planar/large-1001x667.jpg",
        // sRGB's own profile embedded (Ghostscript's v2 tables, colord's v4 curves): the RGBA way converts
        // from it, the planar way need not.
        "planar/coffee-420-srgb-v2.jpg", "planar/coffee-420-srgb-v4.jpg"
    ]
    static let resizes = [
        "resize:w=300,h=300,mode=fit,filter=lanczos3", "resize:w=200,h=200,mode=fill,filter=lanczos3",
        "resize:w=151,h=97,mode=stretch", "resize:w=64,h=64,mode=fit,filter=bicubic"
    ]

    /// At quality 100 (every quantiser step 1, so the encoder keeps what it is given) the two paths' files decode
    /// to within 45 dB of each other. At the server's quality 80 the planar file is at most 2% larger, and as
    /// close to the RGBA path's own pixels (its image before encoding) as the RGBA path's file is, within
    /// 0.5 dB: at 80 the quantiser turns any difference of a level into whole steps, so two files of inputs a
    /// level apart decode about 42 dB apart whichever path made them (a ±1 dither of the RGBA path's own input
    /// does that), and PSNR between the two files measures the quantiser, not the path.
    @Test(arguments: photos, resizes)
    func photosMatchTheRGBAPath(_ fixture: String, spec: String) async throws {
        try await Self.expectPlanarMatchesRGBA(Fixtures.url(fixture), fixture, spec: spec)
    }

    /// Photos under a profile other than sRGB's, each converted to sRGB: resized from planes and converted at
    /// the output's size, they match the RGBA path (which converts the rows and resizes them) as
    /// `photosMatchTheRGBAPath` asks, but within 44.5 dB at quality 100: the conversion to sRGB magnifies a
    /// level of difference in a wide gamut's values (ProPhoto's to 300 px: 44.7 dB, where the planar path's
    /// chroma is the file's own samples and the RGBA path's is libjpeg's upsampling resized back). Both paths
    /// are as close to the photo converted first and resized after, within 0.25 dB. The conversion shows: each
    /// result is far from the same photo read as sRGB. The profiles are colord's and Ghostscript's; a gray
    /// profile on a colour JPEG and a damaged one are used on neither path (the photo is read as sRGB, its
    /// planes encoded as they are).
    @Test(
        arguments: [
            ("colord/AdobeRGB1998.icc", 40.0), ("colord/ProPhotoRGB.icc", 40), ("colord/WideGamutRGB.icc", 40),
            ("ghostscript/a98.icc", 40), ("colord/Rec709.icc", 60), ("ghostscript/sgray.icc", .infinity),
            ("damaged", .infinity)
        ], [resizes[0], resizes[2]])
    func taggedPhotosMatchTheRGBAPath(_ profile: (String, Double), spec: String) async throws {
        let (name, unconvertedBelow) = profile
        let icc =
            name == "damaged"
            ? [UInt8]("acsp but no profile".utf8)
            : [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/" + name)))
        let photo = try Data(contentsOf: Fixtures.url("planar/coffee-420.jpg"))
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("tagged.jpg")
            try #require(taggingJPEG(photo, icc: icc)).write(to: url)
            let results = try await Self.expectPlanarMatchesRGBA(url, name, spec: spec, agreement: 44.5)
            let plain = try await Self.make("planar/coffee-420.jpg", spec: spec, planar: true, quality: 0.8)
            let difference = psnr(
                try JPEGDecoder().decode(results.planar80.data, limits: .default),
                try JPEGDecoder().decode(plain.response.data, limits: .default))
            guard unconvertedBelow.isFinite else {
                #expect(results.planar80.data == plain.response.data, "\(name): read as sRGB")
                return
            }
            #expect(difference < unconvertedBelow, "\(name): \(difference) dB from the photo read as sRGB")
            // Converted, the file carries no profile.
            #expect(try JPEGDecoder().decode(results.planar80.data, limits: .default).colorDescription == nil)
            // Converted at the source's size, then resized.
            var reference = try JPEGDecoder().decode(Data(contentsOf: url), limits: .default)
            let registry = try Self.registry(planar: true)
            let description = try #require(reference.colorDescription)
            let transform = try #require(
                try registry.colorConverter?.transformToSRGB(from: description, samples: .rgba8))
            transform.apply(to: &reference)
            for transformer in try registry.transformers(forSpec: spec) {
                reference = try transformer.transform(reference)
            }
            let planarError = psnr(results.planar100, reference), rgbaError = psnr(results.rgba100, reference)
            #expect(planarError >= rgbaError - 0.25, "\(name) \(spec): \(planarError) vs \(rgbaError) dB")
            print(
                "planar \(name) \(spec): to the photo converted first \(String(format: "%.2f", planarError)) dB, the "
                    + "RGBA path \(String(format: "%.2f", rgbaError)) dB")
        }
    }

    /// The planar result of `url` against the RGBA path's, as `photosMatchTheRGBAPath` compares them, the two
    /// within `agreement` dB at quality 100; returns both decoded at quality 100, and the planar result at 80.
    @discardableResult
    static func expectPlanarMatchesRGBA(
        _ url: URL, _ fixture: String, spec: String, agreement bar: Double = 45
    ) async throws -> (planar100: Image, rgba100: Image, planar80: ImageResponse) {
        let planar = try await Self.make(url, spec: spec, planar: true, quality: 1)
        let rgba = try await Self.make(url, spec: spec, planar: false, quality: 1)
        #expect(planar.planarResults == 1 && rgba.planarResults == 0)
        let decodedPlanar = try JPEGDecoder().decode(planar.response.data, limits: .default)
        let decodedRGBA = try JPEGDecoder().decode(rgba.response.data, limits: .default)
        try #require(decodedPlanar.width == decodedRGBA.width && decodedPlanar.height == decodedRGBA.height)
        let agreement = psnr(decodedPlanar, decodedRGBA)
        #expect(agreement >= bar, "\(fixture) \(spec): \(agreement) dB at quality 100")

        let planar80 = try await Self.make(url, spec: spec, planar: true, quality: 0.8)
        let rgba80 = try await Self.make(url, spec: spec, planar: false, quality: 0.8)
        let ratio = Double(planar80.response.data.count) / Double(rgba80.response.data.count)
        #expect(
            ratio <= 1.02, "\(fixture) \(spec): \(planar80.response.data.count) vs \(rgba80.response.data.count) bytes")
        let intended = rgba80.response.image
        let planarError = psnr(try JPEGDecoder().decode(planar80.response.data, limits: .default), intended)
        let rgbaError = psnr(try JPEGDecoder().decode(rgba80.response.data, limits: .default), intended)
        #expect(planarError >= rgbaError - 0.5, "\(fixture) \(spec): \(planarError) vs \(rgbaError) dB")
        let between = psnr(
            try JPEGDecoder().decode(planar80.response.data, limits: .default),
            try JPEGDecoder().decode(rgba80.response.data, limits: .default))
        print(
            "planar \(fixture) \(spec): q100 \(String(format: "%.2f", agreement)) dB; q80 size ratio "
                + "\(String(format: "%.4f", ratio)), to the RGBA pixels \(String(format: "%.2f", planarError)) vs "
                + "\(String(format: "%.2f", rgbaError)) dB, files \(String(format: "%.2f", between)) dB apart")
        // The image handed back is the encoded planes' own, at the output's size.
        #expect(planar80.response.image.width == intended.width && planar80.response.image.height == intended.height)
        return (decodedPlanar, decodedRGBA, planar80.response)
    }

    /// A JPEG shrunk to lossy WebP or AVIF from planes, against the RGBA path. Neither format is near-lossless
    /// at its highest quality (VP8's finest quantiser steps by 4, and the RGBA path's WebP file is only 37-45 dB
    /// from its own input on these photos), so files are compared with the pixels they were made to carry: at
    /// qualities 1 and 0.8 the planar file is as close to the RGBA path's own pixels (its image before
    /// encoding) as the RGBA path's file is, within 0.5 dB, and at 0.8 it is at most 2% larger than the RGBA
    /// path's file would be at the same closeness (interpolated between its files at 0.7, 0.8 and 0.9). The
    /// planar file is the more faithful one, and so up to 3% larger at the same quality setting. AVIF's two
    /// files also decode within 45 dB of each other at quality 1.
    @Test(arguments: photos, [ImageFormat.webp, .avif])
    func photosToWebPAndAVIFMatchTheRGBAPath(_ fixture: String, format: ImageFormat) async throws {
        let spec = "resize:w=300,h=300,mode=fit,filter=lanczos3"
        let decoder: any ImageDecoder = format == .webp ? WebPDecoder() : AVIFDecoder()
        func decoded(_ response: ImageResponse) throws -> Image {
            try decoder.decode(response.data, limits: .default).convertedToRGBA8()
        }
        func make(planar: Bool, quality: Double) async throws -> (response: ImageResponse, planarResults: Int) {
            try await Self.make(fixture, spec: spec, planar: planar, format: format, quality: quality)
        }
        let planar = try await make(planar: true, quality: 1)
        let rgba = try await make(planar: false, quality: 1)
        #expect(planar.planarResults == 1 && rgba.planarResults == 0)
        let intended = rgba.response.image.convertedToRGBA8()
        let planarError = psnr(try decoded(planar.response), intended)
        let rgbaError = psnr(try decoded(rgba.response), intended)
        #expect(planarError >= rgbaError - 0.5, "\(fixture) \(format) at 1: \(planarError) vs \(rgbaError) dB")
        let agreement = psnr(try decoded(planar.response), try decoded(rgba.response))
        if format == .avif { #expect(agreement >= 45, "\(fixture): \(agreement) dB at quality 1") }

        let planar80 = try await make(planar: true, quality: 0.8)
        let planar80Error = psnr(try decoded(planar80.response), intended)
        var curve: [(error: Double, logBytes: Double)] = []
        for quality in [0.7, 0.8, 0.9] {
            let response = try await make(planar: false, quality: quality).response
            curve.append((psnr(try decoded(response), intended), log(Double(response.data.count))))
        }
        let rgba80Error = curve[1].error
        #expect(planar80Error >= rgba80Error - 0.5, "\(fixture) \(format) at 0.8: \(planar80Error) vs \(rgba80Error)")
        let ratio = Double(planar80.response.data.count) / exp(Self.logBytes(at: planar80Error, on: curve))
        #expect(ratio <= 1.02, "\(fixture) \(format): \(ratio) of the RGBA path's bytes at the same PSNR")
        print(
            "planar \(fixture) → \(format): at 1 \(String(format: "%.2f", planarError)) vs "
                + "\(String(format: "%.2f", rgbaError)) dB to the RGBA pixels, files "
                + "\(String(format: "%.2f", agreement)) dB apart; at 0.8 \(String(format: "%.2f", planar80Error)) vs "
                + "\(String(format: "%.2f", rgba80Error)) dB, \(String(format: "%.4f", ratio))× the bytes at equal PSNR"
        )
    }

    /// The log of the byte count the RGBA path would need for `error` dB, on a line through its two files
    /// nearest in PSNR (`curve` in increasing quality).
    static func logBytes(at error: Double, on curve: [(error: Double, logBytes: Double)]) -> Double {
        let points = curve.sorted { $0.error < $1.error }
        let upper =
            points.firstIndex { $0.error >= error }.map { min(max($0, 1), points.count - 1) } ?? points.count - 1
        let (a, b) = (points[upper - 1], points[upper])
        guard b.error > a.error else { return b.logBytes }
        return a.logBytes + (error - a.error) / (b.error - a.error) * (b.logBytes - a.logBytes)
    }

    /// Each case the rule sends the RGBA way: no planar result, and the RGBA path's bytes exactly.
    @Test(arguments: [
        ("planar/coffee-420.jpg", "resize:w=300,h=300,mode=fit", ImageFormat.png, false, "output not JPEG"),
        ("planar/coffee-420.jpg", "resize:w=300,h=300,mode=fit|round:radius=20", .jpeg, false, "rounded corners"),
        ("planar/coffee-420.jpg", "resize:w=300,h=300,mode=fit|grayscale", .jpeg, false, "a transform after"),
        ("planar/coffee-420.jpg", "resize:w=900,h=900,mode=fit,upscale=true", .jpeg, false, "an enlarging resize"),
        ("planar/coffee-420.jpg", "resize:w=300,h=300,mode=fit,filter=nearest", .jpeg, false, "nearest"),
        ("planar/coffee-420.jpg", "resize:w=300,h=300,mode=fit", .jpeg, true, "a delegate sees the decode"),
        ("jpeg/gray.jpg", "resize:w=50,h=50,mode=fit", .jpeg, false, "greyscale source"),
        ("jpeg/cmyk.jpg", "resize:w=50,h=50,mode=fit", .jpeg, false, "CMYK source"),
        ("planar/one-1x1.jpg", "resize:w=1,h=1,mode=fit", .jpeg, false, "nothing to shrink")
    ])
    func fallbacksGoTheRGBAWay(
        _ fixture: String, spec: String, format: ImageFormat, delegate: Bool, why: String
    ) async throws {
        let seeing: (any PipelineDelegate)? = delegate ? SeeingDelegate() : nil
        let tried = try await Self.make(fixture, spec: spec, planar: true, format: format, delegate: seeing)
        let rgba = try await Self.make(fixture, spec: spec, planar: false, format: format, delegate: seeing)
        #expect(tried.planarResults == 0, "\(why)")
        #expect(tried.response.data == rgba.response.data, "\(why)")
    }

    /// A turned source (EXIF orientations 2-8) is turned upright plane by plane at the output's size: the RGBA
    /// path's result within 45 dB at quality 100, and the upright source's result, turned back, within 30 dB
    /// (a wrong turn or mirror is under 15). The sources are photos stored turned by Trove's encoder at quality
    /// 95 under each orientation; odd outputs (chroma averaged after the turn) and even ones (chroma turned at
    /// half size), a fit and a crop.
    @Test(
        arguments: (2...8).compactMap(ExifOrientation.init(rawValue:)),
        [
            ("planar/large-1001x667.jpg", "resize:w=333,h=333,mode=fit,filter=lanczos3"),
            ("planar/coffee-420.jpg", "resize:w=300,h=300,mode=fit,filter=lanczos3"),
            ("planar/rocket-420.jpg", "resize:w=200,h=150,mode=fill")
        ])
    func turnedSourcesAreTurnedFromPlanes(_ orientation: ExifOrientation, source: (String, String)) async throws {
        let (fixture, spec) = source
        let upright = try JPEGDecoder().decode(Data(contentsOf: Fixtures.url(fixture)), limits: .default)
        // Stored so that `orientation` shows it upright: the turn that undoes the inverse orientation.
        let inverse: ExifOrientation = orientation == .right ? .left : orientation == .left ? .right : orientation
        var stored = try Transposition(undoing: inverse).apply(to: upright, orientation: orientation)
        stored.colorDescription = nil
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("turned.jpg")
            try JPEGEncoder().encode(stored, options: EncodingOptions(quality: 0.95)).write(to: url)
            let planar = try await Self.make(url, spec: spec, planar: true, quality: 1)
            let rgba = try await Self.make(url, spec: spec, planar: false, quality: 1)
            let straight = try await Self.make(fixture, spec: spec, planar: false, quality: 1)
            #expect(planar.planarResults == 1 && rgba.planarResults == 0)
            let a = try JPEGDecoder().decode(planar.response.data, limits: .default)
            let b = try JPEGDecoder().decode(rgba.response.data, limits: .default)
            let c = try JPEGDecoder().decode(straight.response.data, limits: .default)
            try #require(a.width == b.width && a.height == b.height && a.width == c.width && a.height == c.height)
            #expect(a.orientation == .up)
            #expect(psnr(a, b) >= 45, "\(orientation) \(fixture) \(spec): \(psnr(a, b)) dB from the RGBA path")
            #expect(psnr(a, c) >= 30, "\(orientation) \(fixture) \(spec): \(psnr(a, c)) dB from the upright source")
        }
    }

    /// A phone's photo: turned (orientation 6) and under a profile other than sRGB's (Adobe RGB here). Turned
    /// and converted at the output's size from planes, it matches the RGBA path as `taggedPhotosMatchTheRGBAPath`
    /// asks.
    @Test func aTurnedTaggedPhotoIsTurnedAndConvertedFromPlanes() async throws {
        let upright = try JPEGDecoder().decode(
            Data(contentsOf: Fixtures.url("planar/rocket-420.jpg")), limits: .default)
        var stored = try Transposition(undoing: .left).apply(to: upright, orientation: .right)
        stored.colorDescription = nil
        let icc = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/AdobeRGB1998.icc")))
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("phone.jpg")
            let encoded = try JPEGEncoder().encode(stored, options: EncodingOptions(quality: 0.95))
            try #require(taggingJPEG(encoded, icc: icc)).write(to: url)
            let results = try await Self.expectPlanarMatchesRGBA(
                url, "turned Adobe RGB", spec: "resize:w=300,h=300,mode=fit,filter=lanczos3", agreement: 44.5)
            #expect(results.planar100.width == 300 && results.planar100.height < 300)
            let file = try JPEGDecoder().decode(results.planar80.data, limits: .default)
            #expect(file.orientation == .up && file.colorDescription == nil)
        }
    }

    /// A tagged photo to lossy WebP and AVIF: converted from planes and encoded as RGBA by the same encoder
    /// as the RGBA path, as close to the RGBA path's own pixels as its file is, within 0.5 dB.
    @Test(arguments: [ImageFormat.webp, .avif])
    func aTaggedPhotoToWebPAndAVIFIsConvertedFromPlanes(_ format: ImageFormat) async throws {
        let icc = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/AdobeRGB1998.icc")))
        let photo = try Data(contentsOf: Fixtures.url("planar/rocket-420.jpg"))
        let decoder: any ImageDecoder = format == .webp ? WebPDecoder() : AVIFDecoder()
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("tagged.jpg")
            try #require(taggingJPEG(photo, icc: icc)).write(to: url)
            let spec = "resize:w=300,h=300,mode=fit,filter=lanczos3"
            let planar = try await Self.make(url, spec: spec, planar: true, format: format, quality: 0.8)
            let rgba = try await Self.make(url, spec: spec, planar: false, format: format, quality: 0.8)
            #expect(planar.planarResults == 1 && rgba.planarResults == 0)
            let intended = rgba.response.image.convertedToRGBA8()
            let planarError = psnr(
                try decoder.decode(planar.response.data, limits: .default).convertedToRGBA8(), intended)
            let rgbaError = psnr(try decoder.decode(rgba.response.data, limits: .default).convertedToRGBA8(), intended)
            #expect(planarError >= rgbaError - 0.5, "\(format): \(planarError) vs \(rgbaError) dB")
            #expect(Double(planar.response.data.count) <= Double(rgba.response.data.count) * 1.02)
        }
    }

    /// Pillow's turned 48x32 photos (`Tests/Fixtures/orientation`, EXIF orientations 1-8): shrunk from planes,
    /// each within 45 dB of the RGBA path's result at quality 100.
    @Test(arguments: 1...8)
    func pillowsTurnedPhotosAreTurnedFromPlanes(_ orientation: Int) async throws {
        let fixture = "orientation/exif-jpeg-o\(orientation).jpg"
        let spec = "resize:w=21,h=21,mode=fit"
        let planar = try await Self.make(fixture, spec: spec, planar: true, quality: 1)
        let rgba = try await Self.make(fixture, spec: spec, planar: false, quality: 1)
        #expect(planar.planarResults == 1)
        let a = try JPEGDecoder().decode(planar.response.data, limits: .default)
        let b = try JPEGDecoder().decode(rgba.response.data, limits: .default)
        try #require(a.width == 21 && a.height == 14 && b.width == 21 && b.height == 14)
        #expect(psnr(a, b) >= 45, "orientation \(orientation): \(psnr(a, b)) dB")
    }

    /// A turned source whose result keeps the stored orientation goes the RGBA way, as it did.
    @Test func aTurnedSourceKeptAsStoredGoesTheRGBAWay() async throws {
        let spec = "resize:w=20,h=20,mode=fit"
        let tried = try await Self.make(
            "jpeg/orientation6.jpg", spec: spec, planar: true, options: [.keepsStoredOrientation])
        let rgba = try await Self.make(
            "jpeg/orientation6.jpg", spec: spec, planar: false, options: [.keepsStoredOrientation])
        #expect(tried.planarResults == 0)
        #expect(tried.response.data == rgba.response.data)
    }

    /// A result that keeps the source's profile (`keepsColorProfile`) goes the RGBA way even when it is sRGB's:
    /// the planar encoder writes no profile.
    @Test func anSRGBProfileTheResultKeepsGoesTheRGBAWay() async throws {
        let spec = "resize:w=300,h=300,mode=fit"
        let fixture = "planar/coffee-420-srgb-v2.jpg"
        let tried = try await Self.make(fixture, spec: spec, planar: true, options: [.keepsColorProfile])
        let rgba = try await Self.make(fixture, spec: spec, planar: false, options: [.keepsColorProfile])
        #expect(tried.planarResults == 0)
        #expect(tried.response.data == rgba.response.data)
        let kept = try JPEGDecoder().decode(tried.response.data, limits: .default).colorDescription?.iccProfile
        #expect(
            kept == [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/srgb.icc"))))
    }

    /// 4:2:0 sources at odd sizes, to odd outputs, small (chroma averaged), cropped (averaged) and not (chroma
    /// halved): planes give the RGBA path's result (at quality 100, as `photosMatchTheRGBAPath` compares).
    @Test(arguments: [
        ("planar/tiny-17x9.jpg", "resize:w=5,h=5,mode=fit"), ("planar/tiny-17x9.jpg", "resize:w=16,h=3,mode=stretch"),
        ("planar/large-1001x667.jpg", "resize:w=333,h=333,mode=fit,filter=lanczos3"),
        ("planar/rocket-420.jpg", "resize:w=511,h=511,mode=fit,filter=lanczos3"),
        ("planar/large-1001x667.jpg", "resize:w=301,h=151,mode=fill,filter=lanczos3"),
        ("planar/coffee-420.jpg", "resize:w=77,h=77,mode=fit,filter=lanczos3"),
        ("planar/chelsea-420-progressive.jpg", "resize:w=1,h=1,mode=stretch")
    ])
    func oddSizes(_ fixture: String, spec: String) async throws {
        let planar = try await Self.make(fixture, spec: spec, planar: true, quality: 1)
        let rgba = try await Self.make(fixture, spec: spec, planar: false, quality: 1)
        #expect(planar.planarResults == 1)
        let a = try JPEGDecoder().decode(planar.response.data, limits: .default)
        let b = try JPEGDecoder().decode(rgba.response.data, limits: .default)
        try #require(a.width == b.width && a.height == b.height)
        #expect(psnr(a, b) >= 45, "\(fixture) \(spec)")
    }

    /// A truncated or damaged JPEG fails the request on the planar path as on the RGBA one, and leaves
    /// nothing cached: the next request fails the same way without a result to read.
    @Test(arguments: [0.5, 0.9])
    func damagedSourcesFailAndCacheNothing(keeping fraction: Double) async throws {
        let whole = try Data(contentsOf: Fixtures.url("planar/coffee-420.jpg"))
        var damaged = whole.prefix(Int(Double(whole.count) * fraction))
        if fraction > 0.8 { damaged.append(contentsOf: [UInt8](repeating: 0xFF, count: 64)) }
        let registry = try Self.registry(planar: true)
        try await withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent("damaged.jpg")
            try Data(damaged).write(to: source)
            let metrics = TestMetrics()
            var configuration = PipelineConfiguration(cacheDirectory: directory.appendingPathComponent("cache"))
            configuration.metricsFactory = metrics
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            var request = ImageRequest(
                url: source, transforms: try registry.transformers(forSpec: "resize:w=300,h=300,mode=fit"))
            request.outputFormat = .jpeg
            await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: request) }
            await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: request) }
            await pipeline.flush()
            #expect(((try? metrics.expectCounter("trove_results_planar_total").totalValue) ?? 0) == 0)
            #expect(((try? metrics.expectCounter("trove_results_processed_total").totalValue) ?? 0) == 0)
        }
    }
}

/// The rule itself, case by case, without decoding.
@Suite struct PlanarRouteTests {
    let resize = ResizeTransformer(width: 300, height: 300, mode: .fit, filter: .lanczos3)
    let header = ImageInfo(format: .jpeg, width: 1200, height: 800)

    func candidate(
        _ transforms: [any ImageTransformer], decoder: any ImageDecoder = JPEGDecoder(),
        encoder: (any ImageEncoder)? = JPEGEncoder(), options: EncodingOptions = EncodingOptions(),
        delegate: Bool = false, header: ImageInfo?? = .none
    ) -> Result<PlanarRoute, PlanarRoute.Fallback> {
        PlanarRoute.candidate(
            transforms: transforms, decoder: decoder, encoder: encoder, options: options, hasDelegate: delegate,
            header: header ?? self.header)
    }

    func fallback(_ result: Result<PlanarRoute, PlanarRoute.Fallback>) -> PlanarRoute.Fallback? {
        if case let .failure(why) = result { return why }
        return nil
    }

    /// Returns opaque images as they are, as imgproxy's flatten does.
    struct Flatten: OpaqueInvariantTransformer {
        var identifier: String { "flatten" }
        func transform(_ image: Image) throws -> Image { image }
    }

    @Test func aShrinkingResizeOfAJPEGToAJPEGIsPlanar() {
        #expect(fallback(candidate([resize])) == nil)
        #expect(fallback(candidate([OrientTransformer(), resize])) == nil)
        #expect(fallback(candidate([OrientTransformer(), resize, Flatten()])) == nil)
    }

    @Test func aShrinkingResizeToLossyWebPOrAVIFIsPlanar() {
        #expect(fallback(candidate([resize], encoder: WebPEncoder())) == nil)
        #expect(fallback(candidate([resize], encoder: AVIFEncoder())) == nil)
    }

    @Test func requestLevelFallbacks() {
        let lossless = EncodingOptions(lossless: true)
        #expect(fallback(candidate([resize], encoder: WebPEncoder(), options: lossless)) == .losslessOutput)
        #expect(fallback(candidate([resize], encoder: AVIFEncoder(), options: lossless)) == .losslessOutput)
        #expect(fallback(candidate([resize], encoder: PNGEncoder())) == .noPlanarEncoder)
        #expect(fallback(candidate([resize], encoder: nil)) == .noPlanarEncoder)
        #expect(fallback(candidate([resize], decoder: PlanarPathTests.RGBAOnlyJPEGDecoder())) == .noPlanarDecoder)
        #expect(fallback(candidate([resize], delegate: true)) == .delegateSeesDecode)
        #expect(fallback(candidate([resize, RoundedCornersTransformer(radius: 8)])) == .transformsBeyondResize)
        #expect(fallback(candidate([GrayscaleTransformer()])) == .transformsBeyondResize)
        #expect(fallback(candidate([Flatten(), resize])) == .transformsBeyondResize)
        #expect(fallback(candidate([resize, Flatten(), GrayscaleTransformer()])) == .transformsBeyondResize)
        #expect(fallback(candidate([])) == .transformsBeyondResize)
        #expect(
            fallback(candidate([ResizeTransformer(width: 3000, height: 3000, mode: .fit, upscale: true)]))
                == .resizeNotPlanar)
        #expect(
            fallback(candidate([ResizeTransformer(width: 300, height: 300, mode: .fit, filter: .nearest)]))
                == .resizeNotPlanar)
        #expect(fallback(candidate([resize], header: .some(nil))) == .headerUnread)
        #expect(
            fallback(candidate([resize], header: ImageInfo(format: .jpeg, width: 1200, height: 800, frameCount: 2)))
                == .animated)
    }

    @Test func sourceLevelFallbacks() throws {
        let size = PixelSize(width: 1200, height: 800)
        func facts(
            _ model: PlanarSourceFacts.ColorModel = .yCbCr,
            sampling: [SamplingFactors] = [.init(2, 2), .init(1, 1), .init(1, 1)],
            orientation: ExifOrientation = .up, color: ColorDescription? = nil
        ) -> PlanarSourceFacts {
            PlanarSourceFacts(
                width: 1200, height: 800, colorModel: model, sampling: sampling, orientation: orientation,
                colorDescription: color)
        }
        #expect(PlanarRoute.fallback(for: facts(), storedSize: size) == nil)
        for luma in [SamplingFactors(1, 1), .init(2, 1), .init(1, 2)] {
            #expect(
                PlanarRoute.fallback(for: facts(sampling: [luma, .init(1, 1), .init(1, 1)]), storedSize: size) == nil)
        }
        #expect(PlanarRoute.fallback(for: facts(orientation: .right), storedSize: size) == .turned)
        #expect(PlanarRoute.fallback(for: facts(orientation: .right), storedSize: size, orientation: .right) == nil)
        #expect(PlanarRoute.fallback(for: facts(), storedSize: size, orientation: .left) == .turned)
        // Another profile is converted at the output's size, unless the result keeps it.
        let other = ColorDescription(iccProfile: [1, 2, 3])
        #expect(PlanarRoute.fallback(for: facts(color: other), storedSize: size) == nil)
        #expect(PlanarRoute.fallback(for: facts(color: other), storedSize: size, keepsProfile: true) == .colorProfile)
        let sRGB = ColorDescription(
            iccProfile: [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/sRGB.icc"))))
        #expect(PlanarRoute.fallback(for: facts(color: sRGB), storedSize: size) == nil)
        #expect(PlanarRoute.fallback(for: facts(color: sRGB), storedSize: size, keepsProfile: true) == .colorProfile)
        #expect(PlanarRoute.fallback(for: facts(.gray, sampling: [.init(1, 1)]), storedSize: size) == .notYCbCr)
        #expect(PlanarRoute.fallback(for: facts(.other), storedSize: size) == .notYCbCr)
        #expect(
            PlanarRoute.fallback(for: facts(sampling: [.init(4, 1), .init(1, 1), .init(1, 1)]), storedSize: size)
                == .sampling)
        #expect(
            PlanarRoute.fallback(for: facts(sampling: [.init(2, 2), .init(2, 2), .init(1, 1)]), storedSize: size)
                == .sampling)
        #expect(
            PlanarRoute.fallback(for: facts(), storedSize: PixelSize(width: 10, height: 10)) == .headerUnread)
    }
}
