import Foundation
import Testing
import Trove
import TroveTestSupport

/// Gray AVIF at 8, 10 and 12 bits, monochrome (4:0:0) and with flat chroma at 4:2:0, 4:2:2 and 4:4:4, against
/// avifdec's 8-bit decode of the same file.
@Suite struct MonochromeAVIFTests {
    @Test(arguments: DisplayFixtures.entries("avif-gray").map(\.name))
    func grayDecodesAsAvifdecDoes(_ name: String) async throws {
        let entry = try #require(DisplayFixtures.manifest.files[name])
        let depth = entry.bitDepth ?? 8
        let referenceName =
            depth == 8
            ? name.replacingOccurrences(of: ".avif", with: "-ref.png")
            : name.replacingOccurrences(of: ".avif", with: "-ref8.png")
        let response = try await DisplayFixtures.pipeline().image(for: DisplayFixtures.url(name))
        let reference = try DisplayFixtures.reference(referenceName)
        try #require(response.image.width == reference.width && response.image.height == reference.height)
        let quality = psnr(response.image, reference)
        #expect(quality >= 44, "\(name): \(quality) dB from avifdec")
    }
}
