import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove
import TroveTestSupport

@Suite struct DataPipelineTests {
    @Test func jsonIsCachedInMemoryAndOnDiskAndRevalidated() async throws {
        let json = Data(#"{"users":[{"id":1,"name":"Ada"}]}"#.utf8)
        let changed = Data(#"{"users":[]}"#.utf8)
        let modified = Date(timeIntervalSince1970: 1_790_000_000)
        try await withServerAndCache([
            "/api/users.json": .conditional(json, contentType: "application/json", lastModified: modified)
        ]) {
            server, directory in
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.retryPolicy = .none
            let url = server.url("/api/users.json")
            let pipeline = try DataPipeline(configuration: configuration)
            let first = try await pipeline.data(for: url)
            #expect(first.data == json && first.source == .network && first.contentType == "application/json")
            #expect(try await pipeline.data(for: url).source == .memory)
            await pipeline.flush()
            #expect(try await DataPipeline(configuration: configuration).data(for: url).source == .disk)
            #expect(server.requestCount(for: "/api/users.json") == 1)

            // Not an image, and that is fine here: nothing is decoded.
            let refreshed = try await pipeline.data(for: DataRequest(url: url, cachePolicy: .refresh))
            #expect(refreshed.data == json)
            #expect(server.requestLog(for: "/api/users.json").last?.headers["if-none-match"] != nil)

            server.setRoute(
                "/api/users.json", .conditional(changed, contentType: "application/json", lastModified: modified + 5))
            var events: [PipelineEvent<DataResponse>] = []
            for try await event in pipeline.task(for: DataRequest(url: url, cachePolicy: .refresh)).events {
                if case .progress = event { continue }
                events.append(event)
            }
            guard events.count == 2, case let .cached(old) = events[0], case let .final(new) = events[1] else {
                Issue.record("expected cached then final, got \(events)"); return
            }
            #expect(old.data == json && new.data == changed && new.source == .network)
            #expect(try await pipeline.data(for: url).data == changed)
        }
    }

    @Test func concurrentDataRequestsAreCoalesced() async throws {
        let gate = FixtureGate()
        try await withServerAndCache([
            "/blob": .gated(Data(repeating: 7, count: 100_000), contentType: "application/octet-stream", gate: gate)
        ]) {
            server, directory in
            let metrics = TestMetrics()
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.metricsFactory = metrics
            let pipeline = try DataPipeline(configuration: configuration)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 { group.addTask { try await pipeline.data(for: server.url("/blob")).data.count } }
                #expect(await eventually { gate.arrivals >= 1 })
                // All ten wait on the one download before the origin answers.
                #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 9 })
                gate.open()
                for try await count in group { #expect(count == 100_000) }
            }
            #expect(server.requestCount(for: "/blob") == 1)
        }
    }
}
