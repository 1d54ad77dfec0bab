import Foundation
import Testing
import Trove
import TroveTestSupport

/// An animation keeps every frame, its timing and how many times it plays through a conversion.
@Suite struct SequenceTests {
    /// GIF files from Pillow: no looping extension (plays once), NETSCAPE2.0 with 3 (plays 4 times, as browsers
    /// count it), and with 0 (forever).
    @Test(arguments: [("gif-once.gif", 1), ("gif-loop3.gif", 4), ("gif-forever.gif", 0)])
    func aGIFsLoopCountSurvivesConversion(_ name: String, plays: Int) async throws {
        let registry = try DisplayFixtures.registry()
        let pipeline = try ImagePipeline(registry: registry, configuration: .memoryOnly)
        let decoded = try await pipeline.image(for: DisplayFixtures.url(name)).image
        #expect(decoded.loopCount == plays)
        #expect(
            decoded.frames.map(\.delay) == [
                .milliseconds(100), .milliseconds(200), .milliseconds(50), .milliseconds(300)
            ])
        for format in ["webp", "jxl"] {
            let request = ImageRequest(url: DisplayFixtures.url(name), outputFormat: ImageFormat(rawValue: format))
            let response = try await pipeline.image(for: request)
            let writtenDecoder = try #require(registry.decoder(for: response.data))
            let written = try writtenDecoder.decode(response.data, limits: .default)
            #expect(written.loopCount == plays, "\(name) as \(format)")
            #expect(written.frames.count == 4, "\(name) as \(format)")
            #expect(written.frames.map(\.delay) == decoded.frames.map(\.delay), "\(name) as \(format)")
        }
    }
}
