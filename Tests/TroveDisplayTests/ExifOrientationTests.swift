import Foundation
import Testing
import Trove
import TroveCodec
import TroveTestSupport

/// Every EXIF orientation in JPEG (APP1), WebP (EXIF chunk) and PNG (eXIf), written by Pillow, through
/// `ImagePipeline`: the picture comes out as Pillow's `exif_transpose` displays it, every box applies to the
/// displayed size, and opting out keeps the stored pixels with the orientation written into the output.
@Suite struct ExifOrientationTests {
    static let files = DisplayFixtures.entries("exif-orientation")

    @Test(arguments: files.map(\.name))
    func aPlainLoadIsTheDisplayedPicture(_ name: String) async throws {
        let entry = try #require(DisplayFixtures.manifest.files[name])
        let response = try await DisplayFixtures.pipeline().image(for: DisplayFixtures.url(name))
        let referenceName = try #require(entry.reference)
        let reference = try DisplayFixtures.reference(referenceName)
        #expect(response.image.orientation == .up)
        #expect(response.image.width == entry.displayedWidth && response.image.height == entry.displayedHeight)
        // Pillow's decode of the same file: libjpeg-turbo and libwebp on both sides, so within a level.
        #expect(DisplayFixtures.largestDifference(response.image, reference) <= 2, "\(name)")
        // The bytes are the source's own, which display the same: they carry the orientation.
        #expect(response.data == (try DisplayFixtures.data(name)))
    }

    @Test(arguments: files.map(\.name))
    func aBoxAppliesToTheDisplayedSize(_ name: String) async throws {
        let entry = try #require(DisplayFixtures.manifest.files[name])
        // A box as wide as the displayed picture and half its height: only the displayed size fits it exactly.
        let box = ResizeTransformer(
            width: entry.displayedWidth / 2, height: entry.displayedHeight / 2, mode: .fit, filter: .lanczos3)
        let request = ImageRequest(url: DisplayFixtures.url(name), transforms: [box], outputFormat: .png)
        let response = try await DisplayFixtures.pipeline().image(for: request)
        #expect(response.image.width == entry.displayedWidth / 2 && response.image.height == entry.displayedHeight / 2)
        let referenceName = try #require(entry.reference)
        let expected = try box.transform(try DisplayFixtures.reference(referenceName))
        #expect(DisplayFixtures.largestDifference(response.image, expected) <= 3, "\(name)")
        // The written PNG carries no orientation: it displays as it is.
        let written = try PNGDecoder().decode(response.data, limits: .default)
        #expect(written.orientation == .up && written.width == response.image.width)
    }

    @Test(
        arguments: files.filter { $0.exifOrientation != 1 }.map(\.name), ["png", "jpeg", "webp", "avif", "heic", "jxl"])
    func optingOutKeepsTheStoredPixelsAndWritesTheOrientation(_ name: String, format: String) async throws {
        let entry = try #require(DisplayFixtures.manifest.files[name])
        let stored = try #require(entry.exifOrientation)
        let orientation = try #require(ExifOrientation(rawValue: stored))
        let registry = try DisplayFixtures.registry()
        let pipeline = try ImagePipeline(registry: registry, configuration: .memoryOnly)
        let request = ImageRequest(
            url: DisplayFixtures.url(name), options: .keepsStoredOrientation,
            outputFormat: ImageFormat(rawValue: format),
            encodingOptions: EncodingOptions(quality: 0.95))
        let response = try await pipeline.image(for: request)
        #expect(response.image.orientation == orientation)
        #expect(response.image.width == (orientation.swapsAxes ? entry.displayedHeight : entry.displayedWidth))
        // Read back by Trove's own decoders: the output says the same orientation, and turned upright it is
        // the displayed picture.
        let decoder = try #require(registry.decoder(for: response.data))
        let written = try decoder.decode(response.data, limits: .default)
        // libheif applies a HEIC's irot and imir itself; the other decoders report the orientation.
        #expect(written.orientation == (format == "heic" ? .up : orientation), "\(name) as \(format)")
        let shown = try OrientTransformer().transform(written)
        let referenceName = try #require(entry.reference)
        let reference = try DisplayFixtures.reference(referenceName)
        try #require(shown.width == reference.width && shown.height == reference.height)
        #expect(psnr(shown, reference) > 30, "\(name) as \(format)")
    }

    @Test func optedOutAndUprightResultsNeverShareAKey() throws {
        let pipeline = try DisplayFixtures.pipeline()
        let url = DisplayFixtures.url("exif-jpeg-o6.jpg")
        let box = ResizeTransformer(width: 20, height: 20)
        let upright = pipeline.cacheKey(for: ImageRequest(url: url, transforms: [box]))
        let stored = pipeline.cacheKey(for: ImageRequest(url: url, transforms: [box], options: .keepsStoredOrientation))
        #expect(upright.raw == stored.raw && upright.processed != stored.processed)
    }
}
