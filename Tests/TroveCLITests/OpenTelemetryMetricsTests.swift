import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `trove serve` with the standard `OTEL_METRICS_EXPORTER=otlp` (and no `--otel`: traces stay off) against
/// the real OTLP receiver: the counters `/metrics` shows arrive over OTLP with the same values, and
/// `/metrics` still shows them.
@Suite(.serialized) struct OpenTelemetryMetricsTests {
    @Test func theServersAndThePipelinesCountersGoOverOTLPAndStayOnMetrics() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = try FixtureServer(serving: Fixtures.images, under: "/")
        try await origin.start()
        let output = work.appendingPathComponent("export.jsonl")
        let collector = try await OTLPReceiver.start(writingTo: output)
        let server = TroveServeProcess(
            port: try freeLoopbackPort(),
            arguments: [
                "--cache-dir", work.appendingPathComponent("cache").path, "--allow-loopback-sources",
                "--health-grace", "0", "--log-level", "error"
            ],
            environment: [
                "OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)",
                "OTEL_SERVICE_NAME": "trove-tests", "OTEL_METRIC_EXPORT_INTERVAL": "200"
            ])
        try await server.start()

        // Two transforms of one source (one fetch), and three sources the origin does not have (404s: a fetch
        // each).
        for width in [30, 40] {
            let path = "/insecure/rs:fit:\(width):\(width)/plain/\(origin.url("/tiles.png").absoluteString)@png"
            #expect(await get(port: server.port, path: path)?.status == 200)
        }
        for index in 0..<3 {
            let path = "/insecure/plain/\(origin.url("/none-\(index).png").absoluteString)@png"
            #expect(await get(port: server.port, path: path)?.status == 404)
        }
        let shown = try await Self.metric(port: server.port, "trove_serve_requests_total{status=\"404\"}")
        let fetchesShown = try await Self.metric(port: server.port, "trove_fetches_total")
        var exported: Double?
        var fetchesExported: Double?
        _ = await eventually(within: .seconds(20)) {
            exported = try? await Self.latest(in: output, "trove_serve_requests_total", status: "404")
            fetchesExported = try? await Self.latest(in: output, "trove_fetches_total")
            return exported == 3 && fetchesExported == 4
        }
        await server.stop()
        collector.stop()
        await origin.stop()

        #expect(shown == 3)
        #expect(exported == 3)
        #expect(fetchesShown == 4)
        #expect(fetchesExported == 4)
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.contains("\"trove-tests\"") })
        // No span: traces are off without --otel.
        #expect(!lines.contains { $0.contains("\"span_id\"") })
    }

    /// The latest value the receiver wrote for `name` (with `status` when given), or nil.
    static func latest(in file: URL, _ name: String, status: String? = nil) async throws -> Double? {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> Double? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["metric"] as? String == name,
                status == nil || (object["attributes"] as? [String: Any])?["status"] as? String == status
            else { return nil }
            return (object["value"] as? NSNumber)?.doubleValue
        }.last
    }

    /// The value of the line of `/metrics` that starts with `series` and a space.
    static func metric(port: Int, _ series: String) async throws -> Double {
        let text = await get(port: port, path: "/metrics", keepingBody: true)?.text ?? ""
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(series + " ") }, "\(text)")
        return try #require(Double(line.dropFirst(series.count + 1)))
    }
}
