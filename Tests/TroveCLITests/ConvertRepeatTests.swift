import Foundation
import Testing
import TroveTestSupport

/// `trove convert --repeat N`: the same work N times in one process (serve-bench's floor), the same file
/// written as one run writes, and the count and seconds reported.
@Suite struct ConvertRepeatTests {
    @Test func repeatingWritesTheSameResultAndReportsTheRounds() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        let source = Fixtures.images.appendingPathComponent("rocket.jpg").path
        let once = work.appendingPathComponent("once.jpg").path, thrice = work.appendingPathComponent("thrice.jpg").path
        let arguments = ["--transform", "resize:w=60,h=60,mode=fit", "--format", "jpeg", "--quality", "80", "--json"]
        let single = try await cli.run(["convert", source, once] + arguments)
        let repeated = try await cli.run(["convert", source, thrice, "--repeat", "3"] + arguments)
        #expect(single.status == 0 && repeated.status == 0, "stderr: \(single.stderr) \(repeated.stderr)")
        #expect(single.jsonLines.first?["repeats"] == nil)
        let report = try #require(repeated.jsonLines.first)
        #expect(report["repeats"] as? Int == 3)
        #expect((report["seconds"] as? Double).map { $0 > 0 } == true)
        #expect(report["width"] as? Int == 60 || report["height"] as? Int == 60)
        let onceBytes = try Data(contentsOf: URL(fileURLWithPath: once))
        let thriceBytes = try Data(contentsOf: URL(fileURLWithPath: thrice))
        #expect(onceBytes == thriceBytes)

        let refused = try await cli.run(["convert", source, thrice, "--repeat", "0"])
        #expect(refused.status != 0 && refused.stderr.contains("--repeat must be 1 or more, not 0"))
    }
}
