import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TroveServer

@Suite struct OperationsTests {
    @Test func healthMetricsAndMethods() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }

        let health = try await harness.request("/health")
        #expect(health.status == .ok)
        #expect(health.text == "ok\n")

        let post = try await harness.request("/health", method: .post)
        #expect(post.status == .methodNotAllowed)

        let metrics = try await harness.request("/metrics")
        #expect(metrics.status == .ok)
        #expect(metrics.header(.contentType)?.hasPrefix("text/plain") == true)
        // The requests above were counted by status.
        #expect(metrics.text.contains(#"trove_serve_requests_total{status="200"} 1"#))
        #expect(metrics.text.contains(#"trove_serve_requests_total{status="405"} 1"#))
        #expect(metrics.text.contains("trove_serve_request_duration_seconds_bucket"))
    }
}
