import Foundation
import Testing
import Trove
import TroveCore
import TroveTestSupport

/// A colour file that embeds a gray ICC profile shows its colours, as browsers and libvips show it: the
/// profile is for another colour model and is ignored. Converting through it read one channel and turned the
/// picture gray.
@Suite struct MismatchedProfileTests {
    @Test func aGrayProfileOnAColourFileIsIgnored() async throws {
        try await withTemporaryDirectory { directory in
            let output = try await ColorCases.pillow(
                "make_mismatched_profile_cases.py", [directory.path, "/usr/share/color/icc/ghostscript/sgray.icc"])
            let cases = try JSONDecoder().decode([ColorCases.Case].self, from: output)
            #expect(cases.map(\.name) == ["mismatched.png", "mismatched.jpg", "mismatched.webp", "mismatched.avif"])
            let registry = try ColorCases.registry(color: true)
            for testCase in cases {
                let data = try Data(contentsOf: URL(fileURLWithPath: testCase.file))
                let decoder = try #require(registry.decoder(for: data))
                #expect(try decoder.decode(data, limits: .default).colorDescription == nil, "\(testCase.name)")

                let pipeline = try ImagePipeline(registry: registry, configuration: .memoryOnly)
                let image = try await pipeline.image(for: ImageRequest(url: URL(fileURLWithPath: testCase.file))).image
                let reference = try ColorCases.png(testCase.reference)
                #expect(psnr(image, reference) >= 40, "\(testCase.name): \(psnr(image, reference)) dB")
                // The top left is saturated red: a gray conversion would make its channels equal.
                let rgba = image.convertedToRGBA8().pixels
                #expect(Int(rgba[0]) - Int(rgba[1]) > 100, "\(testCase.name): \(rgba[0...2])")
            }
        }
    }
}
