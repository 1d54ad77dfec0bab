import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// The pipeline's and the server's log lines show source URLs as spans do: a source whose query carries a
/// token is logged without it.
@Suite struct ServeLogRedactionTests {
    @Test func aFailingRequestsLogLinesHoldNoQueryToken() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = try FixtureServer(serving: Fixtures.images, under: "/")
        try await origin.start()
        let log = work.appendingPathComponent("serve.log")
        let server = TroveServeProcess(
            port: try freeLoopbackPort(),
            arguments: [
                "--cache-dir", work.appendingPathComponent("cache").path, "--allow-loopback-sources",
                "--health-grace", "0", "--log-level", "info"
            ], errorLog: log)
        try await server.start()
        // A source the origin does not have, with a token in its query; encoded (base64url), as a source
        // with a query is sent, so only a decoded URL in a line can show the token.
        let source = origin.url("/missing.png").absoluteString + "?token=s3cr3t-t0ken&size=1"
        let encoded = Data(source.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(await get(port: server.port, path: "/insecure/rs:fit:20:20/\(encoded).png")?.status == 404)
        #expect(origin.requestLog(for: "/missing.png").count == 1)
        let lines = try await Self.lines(of: log, containing: "remembering lasting failure")
        await server.stop()
        await origin.stop()

        let redacted = origin.url("/missing.png").absoluteString
        let remembered = lines.filter { $0.contains("remembering lasting failure") }
        #expect(remembered.count == 1, "\(lines)")
        #expect(remembered.allSatisfy { $0.contains("url=\(redacted)") }, "\(remembered)")
        let failed = lines.filter { $0.contains("request failed") }
        #expect(failed.count == 1 && failed.allSatisfy { $0.contains(redacted) }, "\(lines)")
        #expect(!lines.contains { $0.contains("s3cr3t") || $0.contains("token=") }, "\(lines)")
    }

    /// The lines of `file` once one holds `text` (within 10 s).
    static func lines(of file: URL, containing text: String) async throws -> [Substring] {
        var lines: [Substring] = []
        _ = await eventually(within: .seconds(10)) {
            lines = ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.contains { $0.contains(text) }
        }
        return lines
    }
}
