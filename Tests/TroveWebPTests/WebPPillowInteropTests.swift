import Foundation
import Testing
import TroveCore
import TroveTestSupport
import TroveWebP

/// What Trove writes opens in Pillow: the lossless file decodes to exactly the pixels Trove encoded, and
/// the q85 lossy file is as faithful as Pillow's own q85 encoding of the same pixels.
@Suite struct WebPPillowInteropTests {
    /// What scripts/pillow/check_webp.py prints.
    struct Report: Decodable {
        var libwebp: String
        var lossless_format: String
        var lossless_size: [Int]
        var lossless_identical: Bool
        var lossless_max_difference: Int
        var lossy_format: String
        var lossy_size: [Int]
        var trove_psnr: Double
        var pillow_psnr: Double
        var trove_bytes: Int
        var pillow_bytes: Int
    }

    @Test func troveOutputOpensInPillow() async throws {
        let photo = try WebPDecoder().decode(try WebPFixtures.webp("lossy-photo"), limits: .default)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-webp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source.rgba")
        let lossless = directory.appendingPathComponent("lossless.webp")
        let lossy = directory.appendingPathComponent("q85.webp")
        try Data(photo.pixels).write(to: source)
        try WebPEncoder().encode(photo, options: EncodingOptions(lossless: true)).write(to: lossless)
        try WebPEncoder().encode(photo, options: EncodingOptions(quality: 0.85)).write(to: lossy)

        let output = try await Self.runPillow(
            script: "scripts/pillow/check_webp.py",
            arguments: [
                source.path, "\(photo.width)", "\(photo.height)", lossless.path, lossy.path, "85"
            ])
        let report = try JSONDecoder().decode(Report.self, from: output)
        #expect(report.lossless_format == "WEBP" && report.lossy_format == "WEBP")
        #expect(report.lossless_size == [128, 96] && report.lossy_size == [128, 96])
        #expect(report.lossless_identical, "Pillow's decode differs by up to \(report.lossless_max_difference)")
        // Different libwebp releases (Trove's system one, Pillow's bundled one) make slightly different
        // choices at the same quality; within 1 dB is the same quality.
        let comparison =
            "Trove q85 \(report.trove_psnr) dB (\(report.trove_bytes) B), "
            + "Pillow q85 \(report.pillow_psnr) dB (\(report.pillow_bytes) B, libwebp \(report.libwebp))"
        #expect(abs(report.trove_psnr - report.pillow_psnr) <= 1, "\(comparison)")
    }

    /// Runs a script under scripts/pillow/python.sh (a python3 with Pillow) and returns its standard output;
    /// throws if it exits with a failure.
    static func runPillow(script: String, arguments: [String]) async throws -> Data {
        let root = WebPFixtures.repositoryRoot
        let result = try await runSubprocess(
            root.appendingPathComponent("scripts/pillow/python.sh"),
            [root.appendingPathComponent(script).path] + arguments)
        guard result.status == 0 else { throw PillowFailure(status: result.status) }
        return result.stdout
    }

    struct PillowFailure: Error, CustomStringConvertible {
        var status: Int32
        var description: String { "the Pillow script exited with status \(status) (its stderr is above)" }
    }
}
