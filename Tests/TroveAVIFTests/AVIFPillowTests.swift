import Foundation
import Testing
import TroveAVIF
import TroveCore
import TroveTestSupport

/// Trove's AVIF opens in Pillow and holds up against Pillow's own encoder at the same quality
/// (scripts/pillow/check_avif.py does the measuring; Pillow bundles libavif 1.x).
@Suite struct AVIFPillowTests {
    struct Report: Decodable {
        struct Encode: Decodable {
            var bytes: Int
            var psnr: Double
        }

        var opened: Bool
        var error: String?
        var format: String?
        var width: Int?
        var height: Int?
        var trove: Encode?
        var pillow: Encode?
    }

    @Test func troveQuality85OpensInPillowAndMatchesIt() async throws {
        let root = AVIFFixtures.repositoryRoot
        let sourcePath = AVIFFixtures.directory.appendingPathComponent("photo-source.png").path
        let source = try AVIFFixtures.png("photo-source.png")
        let data = try AVIFEncoder().encode(source, options: EncodingOptions(quality: 0.85))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-avif-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("trove-q85.avif")
        try data.write(to: output)

        let result = try await runSubprocess(
            root.appendingPathComponent("scripts/pillow/python.sh"),
            [root.appendingPathComponent("scripts/pillow/check_avif.py").path, output.path, sourcePath, "85"])
        let printed = result.stdout
        try #require(result.status == 0, "check_avif.py failed: \(result.stderr)")

        let report = try JSONDecoder().decode(Report.self, from: printed)
        #expect(report.opened, "Pillow could not open Trove's AVIF: \(report.error ?? "")")
        #expect(report.format == "AVIF" && report.width == 160 && report.height == 107)
        let trove = try #require(report.trove), pillow = try #require(report.pillow)
        #expect(trove.psnr >= pillow.psnr - 3, "Trove \(trove.psnr) dB, Pillow \(pillow.psnr) dB")
        #expect(trove.bytes <= 2 * pillow.bytes, "Trove \(trove.bytes) B, Pillow \(pillow.bytes) B")
        print(
            "AVIF q85 of photo-source.png: Trove \(trove.bytes) B at \(trove.psnr) dB; "
                + "Pillow \(pillow.bytes) B at \(pillow.psnr) dB")
    }
}
