import FixtureServer
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing
import Trove
import TroveTestSupport

/// The pipeline's spans, through an `InMemoryTracer` each test passes in (`PipelineConfiguration.tracer`):
/// nothing is bootstrapped, so the other suites in this process stay untraced. Each test runs its request in
/// a span of its own (`test`), which must be the pipeline's root's parent.
@Suite struct TracingTests {
    private let shrink = ResizeTransformer(width: 64, height: 40, mode: .fit)

    @Test func aColdTransformIsOneTreeUnderTheCallersSpanAndTheOriginIsToldItsSpan() async throws {
        try await withServerAndCache { server, directory in
            let tracer = InMemoryTracer()
            let pipeline = try makePipeline(directory) { $0.tracer = tracer }
            // The query (a signature, say) and the user info must reach no span.
            let url = server.url("/images/tiles.png?sig=secret")
            let response = try await tracer.withSpan("test") { _ in
                try await pipeline.image(for: ImageRequest(url: url, transforms: [shrink]))
            }
            let spans = tracer.finishedSpans
            #expect(
                tree(spans) == [
                    "test",
                    "  trove.image",
                    "    trove.memory",
                    "    trove.processed_disk",
                    "    trove.original_disk",
                    "    trove.fetch",
                    "    trove.decode",
                    "    trove.transform",
                    "    trove.store"
                ])
            let root = try span("trove.image", in: spans)
            let address = "http://127.0.0.1:\(server.port ?? 0)/images/tiles.png"
            #expect(root.attributes.get("url.full") == .string(address))
            #expect(root.attributes.get("trove.source") == .string("network"))
            #expect(root.attributes.get("trove.output.width") == .int64(64))
            #expect(root.attributes.get("trove.output.height") == .int64(40))
            #expect(root.attributes.get("trove.output.format") == .string("png"))
            #expect(root.attributes.get("trove.bytes") == .int64(Int64(response.data.count)))
            #expect(try span("trove.memory", in: spans).attributes.get("trove.hit") == .bool(false))
            #expect(try span("trove.processed_disk", in: spans).attributes.get("trove.hit") == .bool(false))
            #expect(try span("trove.original_disk", in: spans).attributes.get("trove.hit") == .bool(false))

            let tiles = try pngData("tiles.png")
            let fetch = try span("trove.fetch", in: spans)
            #expect(fetch.attributes.get("url.full") == .string(address))
            #expect(fetch.attributes.get("http.response.status_code") == .int64(200))
            #expect(fetch.attributes.get("trove.bytes") == .int64(Int64(tiles.count)))
            let decode = try span("trove.decode", in: spans)
            #expect(decode.attributes.get("trove.input.width") == .int64(320))
            #expect(decode.attributes.get("trove.input.height") == .int64(200))
            #expect(decode.attributes.get("trove.input.format") == .string("png"))
            #expect(decode.attributes.get("trove.input.bytes") == .int64(Int64(tiles.count)))
            let transform = try span("trove.transform", in: spans)
            #expect(transform.attributes.get("trove.output.width") == .int64(64))
            #expect(transform.attributes.get("trove.output.format") == .string("png"))
            #expect(transform.attributes.get("trove.bytes") == .int64(Int64(response.data.count)))
            #expect(spans.allSatisfy { !mentions($0, "secret") })
            #expect(spans.allSatisfy { $0.status == nil && $0.errors.isEmpty })

            // The origin was sent the fetch span's context: the tracer's propagation fields (W3C `traceparent`
            // under an OpenTelemetry tracer; the in-memory tracer's own two here).
            let sent = try #require(server.requestLog(for: "/images/tiles.png").first)
            #expect(sent.header(InMemoryTracer.traceIDKey) == fetch.traceID)
            #expect(sent.header(InMemoryTracer.spanIDKey) == fetch.spanID)
            #expect(fetch.traceID == root.traceID)
        }
    }

    @Test func aMemoryHitIsOneSpanUnderTheCaller() async throws {
        try await withServerAndCache { server, directory in
            let tracer = InMemoryTracer()
            let pipeline = try makePipeline(directory) { $0.tracer = tracer }
            let request = ImageRequest(url: server.url("/images/tiles.png"), transforms: [shrink])
            _ = try await pipeline.image(for: request)
            tracer.clearAll()
            let hit = try await tracer.withSpan("test") { _ in try await pipeline.image(for: request) }
            #expect(hit.source == .memory)
            let spans = tracer.finishedSpans
            #expect(tree(spans) == ["test", "  trove.memory"])
            let memory = try span("trove.memory", in: spans)
            #expect(memory.attributes.get("trove.hit") == .bool(true))
            #expect(memory.attributes.get("trove.source") == .string("memory"))
            #expect(memory.attributes.get("trove.bytes") == .int64(Int64(hit.data.count)))
        }
    }

    @Test func aProcessedResultOnDiskAndAnOriginalOnDiskTakeOnlyTheirStages() async throws {
        try await withServerAndCache { server, directory in
            let url = server.url("/images/tiles.png")
            let first = try makePipeline(directory)
            _ = try await first.image(for: ImageRequest(url: url, transforms: [shrink]))
            await first.flush()

            // A new process: its memory is empty, its disk has the original and the processed result.
            let tracer = InMemoryTracer()
            let pipeline = try makePipeline(directory) { $0.tracer = tracer }
            let processed = try await tracer.withSpan("test") { _ in
                try await pipeline.image(for: ImageRequest(url: url, transforms: [shrink]))
            }
            #expect(processed.source == .disk)
            var spans = tracer.popFinishedSpans()
            #expect(
                tree(spans) == [
                    "test",
                    "  trove.image",
                    "    trove.memory",
                    "    trove.processed_disk",
                    "    trove.decode"
                ])
            #expect(try span("trove.image", in: spans).attributes.get("trove.source") == .string("disk"))
            let stored = try span("trove.processed_disk", in: spans)
            #expect(stored.attributes.get("trove.hit") == .bool(true))
            #expect(stored.attributes.get("trove.bytes") == .int64(Int64(processed.data.count)))
            #expect(try span("trove.decode", in: spans).attributes.get("trove.input.width") == .int64(64))

            // Another transform of the same source: made from the original on disk, without the origin.
            let other = ResizeTransformer(width: 32, height: 20, mode: .fit)
            let original = try await tracer.withSpan("test") { _ in
                try await pipeline.image(for: ImageRequest(url: url, transforms: [other]))
            }
            #expect(original.source == .disk)
            spans = tracer.popFinishedSpans()
            #expect(
                tree(spans) == [
                    "test",
                    "  trove.image",
                    "    trove.memory",
                    "    trove.processed_disk",
                    "    trove.original_disk",
                    "    trove.decode",
                    "    trove.transform",
                    "    trove.store"
                ])
            let root = try span("trove.image", in: spans)
            #expect(root.attributes.get("trove.source") == .string("disk"))
            #expect(root.attributes.get("trove.output.width") == .int64(32))
            let disk = try span("trove.original_disk", in: spans)
            #expect(disk.attributes.get("trove.hit") == .bool(true))
            #expect(disk.attributes.get("trove.bytes") == .int64(Int64(try pngData("tiles.png").count)))
            #expect(server.requestCount(for: "/images/tiles.png") == 1)
            await pipeline.flush()
        }
    }

    @Test func aSharedTierMissGoesToTheOriginAndAHitStopsThere() async throws {
        try await withServerAndCache { server, directory in
            let tier = HoldableSharedTier()
            let tracer = InMemoryTracer()
            func pipeline(_ name: String) throws -> ImagePipeline {
                var registry = PluginRegistry.standard
                try registry.register(sharedTier: tier)
                var configuration = PipelineConfiguration(cacheDirectory: directory.appendingPathComponent(name))
                configuration.sharedCache = URL(string: "holdable://tier")
                configuration.retryPolicy = .none
                configuration.tracer = tracer
                return try ImagePipeline(registry: registry, configuration: configuration)
            }
            let request = ImageRequest(url: server.url("/images/tiles.png"), transforms: [shrink])
            let first = try pipeline("first")
            let made = try await tracer.withSpan("test") { _ in try await first.image(for: request) }
            var spans = tracer.popFinishedSpans()
            #expect(
                tree(spans) == [
                    "test",
                    "  trove.image",
                    "    trove.memory",
                    "    trove.processed_disk",
                    "    trove.shared_result",
                    "    trove.original_disk",
                    "    trove.shared_tier",
                    "    trove.fetch",
                    "    trove.decode",
                    "    trove.transform",
                    "    trove.store"
                ])
            for name in ["trove.shared_result", "trove.shared_tier"] {
                let miss = try span(name, in: spans)
                #expect(miss.attributes.get("trove.hit") == .bool(false), "\(name)")
                #expect(miss.attributes.get("trove.lease") == .bool(true), "\(name)")
            }
            await first.flush()
            #expect(tier.storedCount == 2, "the source and the result")

            // Another process of the fleet: its own disk is empty, the shared tier has the result.
            let second = try pipeline("second")
            let shared = try await tracer.withSpan("test") { _ in try await second.image(for: request) }
            #expect(shared.source == .shared && shared.data == made.data)
            spans = tracer.popFinishedSpans()
            #expect(
                tree(spans) == [
                    "test",
                    "  trove.image",
                    "    trove.memory",
                    "    trove.processed_disk",
                    "    trove.shared_result",
                    "    trove.decode"
                ])
            #expect(try span("trove.image", in: spans).attributes.get("trove.source") == .string("shared"))
            let hit = try span("trove.shared_result", in: spans)
            #expect(hit.attributes.get("trove.hit") == .bool(true))
            #expect(hit.attributes.get("trove.bytes") == .int64(Int64(made.data.count)))

            // Another size there: a result nobody made yet, from the original the tier holds.
            let other = ImageRequest(
                url: server.url("/images/tiles.png"), transforms: [ResizeTransformer(width: 32, height: 20)])
            _ = try await tracer.withSpan("test") { _ in try await second.image(for: other) }
            spans = tracer.popFinishedSpans()
            #expect(
                tree(spans) == [
                    "test",
                    "  trove.image",
                    "    trove.memory",
                    "    trove.processed_disk",
                    "    trove.shared_result",
                    "    trove.original_disk",
                    "    trove.shared_tier",
                    "    trove.decode",
                    "    trove.transform",
                    "    trove.store"
                ])
            let original = try span("trove.shared_tier", in: spans)
            #expect(original.attributes.get("trove.hit") == .bool(true))
            #expect(original.attributes.get("trove.bytes") == .int64(Int64(try pngData("tiles.png").count)))
            #expect(server.requestCount(for: "/images/tiles.png") == 1)
            await second.flush()
        }
    }

    @Test func aFailingFetchRecordsItsErrorAndItsRetries() async throws {
        let tiles = try pngData("tiles.png")
        try await withServerAndCache([
            "/missing.png": .status(404),
            "/flaky.png": .sequence([.status(503), .file(tiles, contentType: "image/png")])
        ]) { server, directory in
            let tracer = InMemoryTracer()
            let pipeline = try makePipeline(directory) {
                $0.tracer = tracer
                $0.retryPolicy = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(1), jitter: 0)
            }
            await #expect(throws: TroveError.self) {
                try await tracer.withSpan("test") { _ in
                    try await pipeline.image(for: URL(string: "\(server.url("/missing.png"))?token=secret")!)
                }
            }
            var spans = tracer.popFinishedSpans()
            // No transforms: the processed result is the original, and the processed stage passes at once.
            #expect(
                tree(spans) == [
                    "test",
                    "  trove.image",
                    "    trove.memory",
                    "    trove.processed_disk",
                    "    trove.original_disk",
                    "    trove.fetch"
                ])
            // Recorded by kind, with the URL's query (a token) out of the message.
            for name in ["trove.fetch", "trove.image"] {
                let failed = try span(name, in: spans)
                #expect(failed.status?.code == .error)
                #expect(failed.errors.isEmpty)
                #expect(failed.attributes.get("error.type") == .string("not_found"))
                let exception = try #require(failed.events.first { $0.name == "exception" })
                #expect(exception.attributes.get("exception.type") == .string("not_found"))
                let message = try #require(failed.status?.message)
                #expect(exception.attributes.get("exception.message") == .string(message))
                #expect(message.contains("HTTP 404") && message.contains(server.url("/missing.png").absoluteString))
                #expect(!message.contains("token") && !message.contains("secret"), "\(message)")
            }

            _ = try await pipeline.image(for: server.url("/flaky.png"))
            spans = tracer.popFinishedSpans()
            let fetch = try span("trove.fetch", in: spans)
            #expect(fetch.status == nil)
            #expect(fetch.events.map(\.name) == ["trove.retry"])
            #expect(fetch.events.first?.attributes.get("error.type") == .string("http_5xx"))
            #expect(fetch.events.first?.attributes.get("trove.attempt") == .int64(0))
        }
    }

    @Test func twoCallersOfOneKeyMakeOneWorkTreeAndTheJoinerLinksToIt() async throws {
        let gate = FixtureGate()
        try await withServerAndCache([
            "/gated.png": .gated(try pngData("tiles.png"), contentType: "image/png", gate: gate)
        ]) { server, directory in
            let tracer = InMemoryTracer()
            let metrics = TestMetrics()
            let pipeline = try makePipeline(directory, metrics: metrics) { $0.tracer = tracer }
            let request = ImageRequest(url: server.url("/gated.png"), transforms: [shrink])
            try await tracer.withSpan("test") { _ in
                let first = pipeline.task(for: request)
                #expect(await eventually { gate.arrivals == 1 })
                let second = pipeline.task(for: request)
                #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 1 })
                gate.open()
                _ = try await first.response
                _ = try await second.response
            }
            let spans = tracer.finishedSpans
            #expect(
                tree(spans) == [
                    "test",
                    "  trove.image",
                    "    trove.memory",
                    "    trove.processed_disk",
                    "    trove.original_disk",
                    "    trove.fetch",
                    "    trove.decode",
                    "    trove.transform",
                    "    trove.store",
                    "  trove.image",
                    "    trove.memory"
                ])
            let roots = spans.filter { $0.operationName == "trove.image" }
            let fetch = try span("trove.fetch", in: spans)
            let starter = try #require(roots.first { $0.spanID == fetch.parentSpanID })
            let joiner = try #require(roots.first { $0.spanID != starter.spanID })
            #expect(starter.links.isEmpty)
            #expect(joiner.links.map(\.context.inMemorySpanContext) == [starter.spanContext])
            #expect(joiner.attributes.get("trove.coalesced") == .bool(true))
            #expect(joiner.attributes.get("trove.source") == .string("network"))
            #expect(server.requestCount(for: "/gated.png") == 1)
        }
    }

    @Test func aDataRequestHasADataRootOverTheOriginalsSpans() async throws {
        try await withServerAndCache { server, directory in
            let tracer = InMemoryTracer()
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.tracer = tracer
            let pipeline = try DataPipeline(configuration: configuration)
            let url = server.url("/images/tiles.png")
            let response = try await tracer.withSpan("test") { _ in try await pipeline.data(for: url) }
            let spans = tracer.popFinishedSpans()
            #expect(
                tree(spans) == [
                    "test", "  trove.data", "    trove.memory", "    trove.original_disk", "    trove.fetch"
                ])
            let root = try span("trove.data", in: spans)
            #expect(root.attributes.get("trove.source") == .string("network"))
            #expect(root.attributes.get("trove.bytes") == .int64(Int64(response.data.count)))
            #expect(root.attributes.get("http.request.method") == .string("GET"))
            await pipeline.flush()
        }
    }

    @Test func spansShowSourceURLsWithoutTheirSecrets() throws {
        let cases = [
            ("https://user:pass@cdn.example.com:8443/a/b.png?sig=x&t=1#frag", "https://cdn.example.com:8443/a/b.png"),
            ("http://example.com/plain.jpg", "http://example.com/plain.jpg"),
            ("file:///srv/images/a.png", "file:///srv/images/a.png"),
            ("data:image/png;base64,iVBORw0KGgo=", "data:")
        ]
        for (url, shown) in cases {
            #expect(try #require(URL(string: url)).redactedForSpans == shown)
        }
    }
}

/// The spans as indented names, each under its parent, siblings in the order they started.
private func tree(_ spans: [FinishedInMemorySpan], under parent: String? = nil, depth: Int = 0) -> [String] {
    let ids = Set(spans.map(\.spanID))
    return
        spans
        .filter { parent == nil ? !ids.contains($0.parentSpanID ?? "") : $0.parentSpanID == parent }
        .sorted { order($0) < order($1) }
        .flatMap {
            [String(repeating: "  ", count: depth) + $0.operationName] + tree(spans, under: $0.spanID, depth: depth + 1)
        }
}

/// When a span started, then its number (`span-N`), for spans that started in the same nanosecond.
private func order(_ span: FinishedInMemorySpan) -> (UInt64, Int) {
    (span.startInstant.nanosecondsSinceEpoch, Int(span.spanID.dropFirst("span-".count)) ?? 0)
}

private func span(_ name: String, in spans: [FinishedInMemorySpan]) throws -> FinishedInMemorySpan {
    let found = spans.filter { $0.operationName == name }
    try #require(found.count == 1, "\(found.count) spans named \(name)")
    return found[0]
}

/// Whether any attribute of the span, or of its events, holds `text`.
private func mentions(_ span: FinishedInMemorySpan, _ text: String) -> Bool {
    var found = false
    let look: (String, SpanAttribute) -> Void = { _, value in if "\(value)".contains(text) { found = true } }
    span.attributes.forEach(look)
    for event in span.events { event.attributes.forEach(look) }
    return found
}
