import Foundation
import Testing
import TroveCore
import TroveJXL
import TroveTestSupport

/// Trove's JPEG XL files open in libjxl (pillow-jxl-plugin's own build, through
/// scripts/pillow/decode_jxl.py) with the right size and pixels.
@Suite struct JXLPillowTests {
    struct Decoded: Decodable {
        var opened: Bool
        var error: String?
        var format: String?
        var width: Int?
        var height: Int?
    }

    @Test func troveFilesOpenInLibjxl() async throws {
        let photo = try JXLFixtures.reference("lossy-photo")  // 160x107, opaque
        let alpha = try JXLFixtures.reference("lossy-alpha")  // 120x90, soft alpha
        var animation = JXLEncoderTests.picture()
        animation.frames = (0..<3).map {
            AnimationFrame(pixels: JXLEncoderTests.picture(shift: $0 * 5).pixels, delay: .milliseconds(50))
        }
        let cases: [(name: String, image: Image, options: EncodingOptions)] = [
            ("lossy", photo, EncodingOptions(quality: 0.85)),
            ("lossless", photo, EncodingOptions(lossless: true)),
            ("lossy-alpha", alpha, EncodingOptions(quality: 0.85)),
            ("lossless-alpha", alpha, EncodingOptions(lossless: true)),
            ("animation", animation, EncodingOptions(lossless: true))
        ]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-jxl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments: [String] = []
        var encoded: [Data] = []
        for item in cases {
            let data = try JXLEncoder().encode(item.image, options: item.options)
            encoded.append(data)
            let file = directory.appendingPathComponent("\(item.name).jxl")
            try data.write(to: file)
            arguments += [file.path, directory.appendingPathComponent("\(item.name).rgba").path]
        }

        let root = JXLFixtures.repositoryRoot
        let result = try await runSubprocess(
            root.appendingPathComponent("scripts/pillow/python.sh"),
            [root.appendingPathComponent("scripts/pillow/decode_jxl.py").path] + arguments)
        try #require(result.status == 0, "decode_jxl.py failed: \(result.stderr)")
        let reports = try JSONDecoder().decode([Decoded].self, from: result.stdout)
        try #require(reports.count == cases.count)

        for (index, item) in cases.enumerated() {
            let report = reports[index]
            #expect(report.opened, "\(item.name): libjxl could not open Trove's file: \(report.error ?? "")")
            #expect(report.format == "JXL", "\(item.name)")
            #expect(report.width == item.image.width && report.height == item.image.height, "\(item.name)")
            let pixels = [UInt8](try Data(contentsOf: directory.appendingPathComponent("\(item.name).rgba")))
            if item.options.lossless {
                // For the animation, its last frame: the plugin decodes every frame and keeps the last.
                let expected = item.image.frames.last?.pixels ?? item.image.pixels
                #expect(pixels == expected, "\(item.name): libjxl's decode differs from the source")
            } else {
                // Both libjxl builds decode Trove's lossy file alike, and it is close to the source.
                let ours = try JXLDecoder().decode(encoded[index], limits: .default)
                let agreement = JXLFixtures.psnr(pixels, ours.pixels, channels: 0..<4)
                let fidelity = JXLFixtures.psnr(pixels, item.image.pixels)
                #expect(agreement >= 45, "\(item.name): \(agreement) dB between the two libjxl decodes")
                #expect(fidelity >= 30, "\(item.name): \(fidelity) dB against the source")
            }
        }
    }
}
