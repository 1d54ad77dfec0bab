import FixtureServer
import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `trove serve --otel`'s traces of the two hits that take no fetch, against the real OTLP receiver: a
/// result-cache hit answered on the event loop, ahead of the router, is one server span under the client's;
/// a shared-tier hit (a second server with an empty disk, sharing a real redis-server) is the server span,
/// `trove.image` and the lookups that found the result there, then its decode: no fetch, no transform.
@Suite(.serialized) struct OpenTelemetryHitTests {
    static let route = OpenTelemetryServeTests.route

    @Test func aResultCacheHitOnTheEventLoopExportsOneServerSpanUnderTheClientsSpan() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = try FixtureServer(serving: Fixtures.images, under: "/")
        try await origin.start()
        let output = work.appendingPathComponent("spans.jsonl")
        let collector = try await OTLPReceiver.start(writingTo: output)
        let server = try await OpenTelemetryServeTests.server(work, collectorPort: collector.port)
        let path = "/insecure/rs:fit:50:50/plain/\(origin.url("/tiles.png").absoluteString)@png"

        #expect(await get(port: server.port, path: path)?.status == 200)
        // A browser's request (kept alive, in one read): answered from the result cache on the event loop.
        let hitTrace = "5bf92f3577b34da6a3ce929d0e0e4737"
        let hitParent = "10f067aa0ba902b8"
        let hit = await get(
            port: server.port, path: path, headers: ["traceparent": "00-\(hitTrace)-\(hitParent)-01"],
            keepAlive: true)
        #expect(hit?.status == 200)
        let spans = try await OpenTelemetryServeTests.spans(in: output, trace: hitTrace, until: "GET \(Self.route)")
        let metrics = await get(port: server.port, path: "/metrics", keepingBody: true)?.text ?? ""
        await server.stop()
        collector.stop()
        await origin.stop()

        #expect(metrics.contains("trove_serve_express_hits_total 1"), "\(metrics)")
        #expect(spans.count == 1, "\(spans.map(\.name))")
        let span = try #require(spans.first)
        #expect(span.name == "GET \(Self.route)")
        #expect(span.kind == 2)
        #expect(span.parent == hitParent)
        #expect(span.attributes["http.request.method"] as? String == "GET")
        #expect(span.attributes["http.route"] as? String == Self.route)
        #expect(span.attributes["http.response.status_code"] as? Int == 200)
        #expect(span.attributes.count == 3, "\(span.attributes)")
        #expect(span.resource["service.name"] as? String == "trove-tests")
    }

    /// The second server finds the result itself in the shared tier: no original, no transform, no fetch.
    @Test func aSharedTierHitExportsTheLookupsAndTheDecode() async throws {
        try await withRedisServer { redis in
            let work = try temporaryDirectory()
            defer { removeTemporaryDirectory(work) }
            let origin = try FixtureServer(serving: Fixtures.images, under: "/")
            try await origin.start()
            let output = work.appendingPathComponent("spans.jsonl")
            let collector = try await OTLPReceiver.start(writingTo: output)
            let shared = ["--shared-cache", redis.url().absoluteString]
            let path = "/insecure/rs:fit:50:50/plain/\(origin.url("/tiles.png").absoluteString)@png"

            // One server makes the result; the source and the result go into the tier.
            let first = try await OpenTelemetryServeTests.server(
                work, collectorPort: collector.port, cache: "cache-first", extra: shared)
            #expect(await get(port: first.port, path: path)?.status == 200)
            let stored = await eventually(within: .seconds(20)) {
                let text = await get(port: first.port, path: "/metrics", keepingBody: true)?.text ?? ""
                return text.split(separator: "\n").contains {
                    $0.hasPrefix("trove_shared_tier_stores_total") && $0.hasSuffix(" 2")
                }
            }
            #expect(stored, "the source and the result never reached the shared tier")
            await first.stop()

            // Another with an empty disk is asked for the same image: the tier answers, the origin is not asked.
            let second = try await OpenTelemetryServeTests.server(
                work, collectorPort: collector.port, cache: "cache-second", extra: shared)
            let trace = "6bf92f3577b34da6a3ce929d0e0e4738"
            let parent = "20f067aa0ba902b9"
            let answer = await get(
                port: second.port, path: path, headers: ["traceparent": "00-\(trace)-\(parent)-01"])
            #expect(answer?.status == 200)
            let spans = try await OpenTelemetryServeTests.spans(in: output, trace: trace, until: "GET \(Self.route)")
            await second.stop()
            collector.stop()
            #expect(origin.requestCount(for: "/tiles.png") == 1)
            await origin.stop()

            let request = try #require(spans.first { $0.kind == 2 }, "\(spans.map(\.name))")
            #expect(request.name == "GET \(Self.route)")
            #expect(request.parent == parent)
            #expect(request.attributes["http.response.status_code"] as? Int == 200)
            let image = try #require(spans.first { $0.name == "trove.image" })
            #expect(image.parent == request.id)
            #expect(image.attributes["trove.source"] as? String == "shared")
            let stages = ["trove.memory", "trove.processed_disk", "trove.shared_result", "trove.decode"]
            let children = spans.filter { $0.parent == image.id }.map(\.name)
            #expect(children.sorted() == stages.sorted(), "\(children)")
            #expect(spans.count == stages.count + 2, "\(spans.map(\.name))")
            let tier = try #require(spans.first { $0.name == "trove.shared_result" })
            #expect(tier.attributes["trove.hit"] as? Bool == true)
            #expect(tier.attributes["trove.source"] as? String == "shared")
            #expect((tier.attributes["trove.bytes"] as? Int ?? 0) > 0)
            let disk = try #require(spans.first { $0.name == "trove.processed_disk" })
            #expect(disk.attributes["trove.hit"] as? Bool == false)
        }
    }
}
