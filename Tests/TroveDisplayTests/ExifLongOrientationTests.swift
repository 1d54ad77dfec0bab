import Foundation
import Testing
import Trove
import TroveTestSupport

/// EXIF orientation 6 stored as a LONG rather than EXIF's SHORT (written by
/// scripts/fixtures/make_exif_long_orientation_fixtures.py from the Pillow fixtures): libexif, so libvips and
/// imgproxy, exiftool and Pillow all turn such a picture, so Trove does too, in JPEG, WebP and PNG alike.
@Suite struct ExifLongOrientationTests {
    static let names = ["exif-long-jpeg-o6.jpg", "exif-long-webp-o6.webp", "exif-long-png-o6.png"]

    /// The Pillow fixture the file was rewritten from, whose reference display it shares.
    static func referenceName(_ name: String) -> String {
        name.replacingOccurrences(of: "exif-long-", with: "exif-")
            .replacingOccurrences(of: ".jpg", with: "-ref.png")
            .replacingOccurrences(of: ".webp", with: "-ref.png")
            .replacingOccurrences(of: "o6.png", with: "o6-ref.png")
    }

    @Test(arguments: names)
    func theHeaderReportsTheOrientation(_ name: String) throws {
        let data = try DisplayFixtures.data(name)
        let decoder = try #require(try DisplayFixtures.registry().decoder(for: data))
        #expect(try decoder.info(data)?.orientation == .right)
    }

    @Test(arguments: names)
    func aLoadShowsThePictureTurned(_ name: String) async throws {
        let response = try await DisplayFixtures.pipeline().image(for: DisplayFixtures.url(name))
        let reference = try DisplayFixtures.reference(Self.referenceName(name))
        try #require(response.image.width == reference.width && response.image.height == reference.height)
        #expect(DisplayFixtures.largestDifference(response.image, reference) <= 2, "\(name)")
    }
}
