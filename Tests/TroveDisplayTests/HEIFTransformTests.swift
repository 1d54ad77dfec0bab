import Foundation
import Testing
import Trove
import TroveTestSupport

/// The HEIF family's display rules, as MIAF orders them: the clean aperture ('clap'), then the rotation
/// ('irot', anti-clockwise), then the mirror ('imir'). AVIF files from avifenc (clap boxes patched where
/// avifenc refuses them), HEIC files with the properties added to their boxes; references from avifdec with the
/// rules applied, and from heif-convert.
@Suite struct HEIFTransformTests {
    @Test(
        arguments: DisplayFixtures.entries("avif-transform").map(\.name)
            + DisplayFixtures.entries("heic-transform").map(\.name))
    func everyFileDisplaysAsItsReference(_ name: String) async throws {
        let entry = try #require(DisplayFixtures.manifest.files[name])
        let response = try await DisplayFixtures.pipeline().image(for: DisplayFixtures.url(name))
        #expect(response.image.orientation == .up)
        try #require(
            response.image.width == entry.displayedWidth && response.image.height == entry.displayedHeight,
            "\(name): \(response.image.width)x\(response.image.height)")
        let referenceName = try #require(entry.reference)
        let reference = try DisplayFixtures.reference(referenceName)
        // The same libavif and libheif decode both sides; the transforms must put every pixel in its place.
        #expect(DisplayFixtures.largestDifference(response.image, reference) <= 2, "\(name)")
    }

    @Test func aCropStrictModeRefusesIsShown() async throws {
        // A 45x29 crop at the origin of a 4:2:0 file: odd sizes under subsampling, which libavif 0.11's strict
        // mode refuses ("crop rect X offset and width must both be even") and the format allows.
        let response = try await DisplayFixtures.pipeline().image(for: DisplayFixtures.url("avif-clap-odd-420.avif"))
        #expect(response.image.width == 45 && response.image.height == 29)
    }

    @Test func aCropBetweenPixelsIsIgnoredAsBrowsersDo() async throws {
        // Its edges fall on half pixels, which MIAF does not allow: the whole picture is shown.
        let response = try await DisplayFixtures.pipeline().image(for: DisplayFixtures.url("avif-clap-halfpixel.avif"))
        let reference = try DisplayFixtures.reference("avif-clap-halfpixel-ref.png")
        #expect(response.image.width == 48 && response.image.height == 32)
        #expect(DisplayFixtures.largestDifference(response.image, reference) <= 2)
    }

    @Test func anExifOrientationInsideHEIFIsIgnored() async throws {
        // EXIF says 6; the file has no irot: HEIF readers apply only irot and imir, so it stays as stored.
        let only = try await DisplayFixtures.pipeline().image(for: DisplayFixtures.url("heic-exif6-only.heic"))
        let entry = try #require(DisplayFixtures.manifest.files["heic-exif6-only.heic"])
        #expect(only.image.width == entry.displayedWidth && only.image.height == entry.displayedHeight)
    }

    @Test(arguments: ["avif", "heic"])
    func aKeptOrientationIsWrittenAsIrotAndImir(_ format: String) async throws {
        // The stored pixels of an EXIF-6 JPEG, kept, and written as irot/imir: readers turn them.
        let registry = try DisplayFixtures.registry()
        let pipeline = try ImagePipeline(registry: registry, configuration: .memoryOnly)
        for orientation in 2...8 {
            let name = "exif-jpeg-o\(orientation).jpg"
            let request = ImageRequest(
                url: DisplayFixtures.url(name), options: .keepsStoredOrientation,
                outputFormat: ImageFormat(rawValue: format), encodingOptions: EncodingOptions(quality: 0.95))
            let response = try await pipeline.image(for: request)
            let writtenDecoder = try #require(registry.decoder(for: response.data))
            let written = try writtenDecoder.decode(response.data, limits: .default)
            // libheif turns a HEIC itself; an AVIF reports its irot/imir as the orientation.
            let shown = try OrientTransformer().transform(written)
            let reference = try DisplayFixtures.reference("exif-jpeg-o\(orientation)-ref.png")
            try #require(shown.width == reference.width && shown.height == reference.height, "\(name) as \(format)")
            #expect(psnr(shown, reference) > 30, "\(name) as \(format)")
        }
    }
}
