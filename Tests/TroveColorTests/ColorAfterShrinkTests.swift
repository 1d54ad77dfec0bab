import Foundation
import Synchronization
import Testing
import Trove
import TroveColor
import TroveTestSupport

/// A still whose transforms open with a shrinking resize has its colours converted after that resize, on the
/// output's pixels, and still matches Pillow's convert-then-resize: decoded whole (WebP, AVIF, HEIC) or its rows
/// streamed into the resize (JPEG, PNG).
@Suite(.serialized) struct ColorAfterShrinkTests {
    /// The registry's LittleCMS converter, counting the pixels its transforms convert.
    final class CountingConverter: ColorConverter {
        let wrapped: any ColorConverter
        let converted = Mutex(0)
        var name: String { "counting" }

        init(wrapping wrapped: any ColorConverter) { self.wrapped = wrapped }

        func transformToSRGB(from description: ColorDescription, samples: ColorSamples) throws -> (any ColorTransform)?
        {
            guard let transform = try wrapped.transformToSRGB(from: description, samples: samples) else { return nil }
            return Counting(wrapped: transform, counter: self)
        }

        struct Counting: ColorTransform {
            let wrapped: any ColorTransform
            let counter: CountingConverter
            func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
                counter.converted.withLock { $0 += count }
                wrapped.apply(pixels, count: count)
            }
        }
    }

    /// The pipeline's image for `transforms` of `file`, and how many pixels were converted to sRGB.
    static func load(_ file: String, _ transforms: [any ImageTransformer]) async throws -> (Image, Int) {
        var registry = try ColorCases.registry(color: true)
        let counting = CountingConverter(wrapping: try #require(registry.colorConverter))
        try registry.register(colorConverter: counting, replacing: true)
        let pipeline = try ImagePipeline(registry: registry, configuration: .memoryOnly)
        let image = try await pipeline.image(
            for: ImageRequest(url: URL(fileURLWithPath: file), transforms: transforms)
        ).image
        return (image, counting.converted.withLock { $0 })
    }

    @Test(arguments: [
        "prophoto.webp", "adobergb.avif", "p3.heic", "prophoto.avif", "prophoto.jpg", "adobergb.jpg", "p3.png",
        "adobergb.png"
    ])
    func aShrunkStillIsConvertedAfterItsShrink(name: String) async throws {
        try await withTemporaryDirectory { directory in
            let cases = try await ColorCases.make(in: directory)
            let source = try #require(cases.first { $0.name == name })
            let resize = ResizeTransformer(width: 96, height: 64, mode: .fit)
            let reference = try resize.transform(try ColorCases.png(source.reference))

            let (image, converted) = try await Self.load(source.file, [resize])
            #expect(image.width == 96 && image.height == 64 && image.colorDescription == nil)
            // Converted once, at the output's size (the source is 192x128).
            #expect(converted == 96 * 64)
            #expect(psnr(image, reference) >= 36, "\(name): \(psnr(image, reference)) dB")

            // Left unconverted, the same image is far from the reference: the conversion is what matches it.
            let pipeline = try ImagePipeline(
                registry: try ColorCases.registry(color: false), configuration: .memoryOnly)
            let ignored = try await pipeline.image(
                for: ImageRequest(url: URL(fileURLWithPath: source.file), transforms: [resize])
            ).image
            #expect(psnr(ignored, reference) < psnr(image, reference) - 6, "\(name): \(psnr(ignored, reference)) dB")
        }
    }

    @Test func withoutALeadingShrinkTheDecodedImageIsConverted() async throws {
        try await withTemporaryDirectory { directory in
            let cases = try await ColorCases.make(in: directory)
            let source = try #require(cases.first { $0.name == "adobergb.avif" })
            let (whole, wholeConverted) = try await Self.load(source.file, [])
            #expect(whole.width == 192 && wholeConverted == 192 * 128)
            // A resize that enlarges runs on sRGB pixels, as every other transform does.
            let (larger, largerConverted) = try await Self.load(
                source.file, [ResizeTransformer(width: 384, height: 256, mode: .fit, upscale: true)])
            #expect(larger.width == 384 && largerConverted == 192 * 128)
            // A flip first: the resize is not leading, so the colours are converted before both.
            let (_, flippedConverted) = try await Self.load(
                source.file, [FlipTransformer(.h), ResizeTransformer(width: 96, height: 64, mode: .fit)])
            #expect(flippedConverted == 192 * 128)
        }
    }

    /// A JPEG whose EXIF says to turn it a quarter (orientation 6), its rows streamed into an `orient, resize`:
    /// converted once, on the upright output, and matching Pillow's conversion turned and resized.
    @Test(arguments: ["adobergb.jpg", "p3.jpg"])
    func aTurnedStreamedStillIsConvertedAfterItsShrink(name: String) async throws {
        try await withTemporaryDirectory { directory in
            let cases = try await ColorCases.make(in: directory)
            let source = try #require(cases.first { $0.name == name })
            let turned = directory.appendingPathComponent("turned-" + name)
            try Self.withOrientation6(try Data(contentsOf: URL(fileURLWithPath: source.file))).write(to: turned)
            let transforms: [any ImageTransformer] = [
                OrientTransformer(), ResizeTransformer(width: 64, height: 96, mode: .fit)
            ]
            let upright = try RotateTransformer(.clockwise90).transform(try ColorCases.png(source.reference))
            let reference = try ResizeTransformer(width: 64, height: 96, mode: .fit).transform(upright)

            let (image, converted) = try await Self.load(turned.path, transforms)
            #expect(image.width == 64 && image.height == 96 && image.colorDescription == nil)
            #expect(converted == 64 * 96)
            #expect(psnr(image, reference) >= 36, "\(name): \(psnr(image, reference)) dB")
        }
    }

    /// `jpeg` with an EXIF segment saying orientation 6 right after its SOI marker.
    static func withOrientation6(_ jpeg: Data) throws -> Data {
        try #require(jpeg.starts(with: [0xFF, 0xD8]))
        // A big-endian TIFF header, one IFD entry: Orientation (0x0112), SHORT, 1, value 6.
        let tiff: [UInt8] =
            [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01]
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00] + [0x00, 0x00, 0x00, 0x00]
        let segment = RightsMetadataTests.marker(0xE1, Array("Exif".utf8) + [0, 0] + tiff)
        return RightsMetadataTests.inserting(segment, into: jpeg)
    }
}
