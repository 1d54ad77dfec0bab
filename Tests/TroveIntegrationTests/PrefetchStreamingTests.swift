import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove
import TroveTestSupport

/// A prefetch to disk sends each body straight to its entry's temp file as it arrives (issue 14), so
/// memory stays flat however large the batch; a body that fails part-way leaves nothing behind.
@Suite struct PrefetchStreamingTests {
    /// Distinct bytes, so a misplaced piece would show.
    static func body(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 9) }) }

    static func dataPipeline(_ directory: URL, _ adjust: (inout PipelineConfiguration) -> Void = { _ in }) throws
        -> DataPipeline
    {
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configuration.retryPolicy = .none
        adjust(&configuration)
        return try DataPipeline(configuration: configuration)
    }

    static func files(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.map { folder.appendingPathComponent($0) }
    }

    static func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
    }

    /// The server sends 3 MiB of a 4 MiB body and waits: those bytes are already in the entry's temp file
    /// (and no entry is readable yet); once the rest arrives the entry holds the whole body.
    @Test func aLargeBodyIsOnDiskWhileItIsStillArriving() async throws {
        let gate = FixtureGate()
        let body = Self.body(4 << 20)
        try await withServerAndCache(["/big.bin": .pausedBody(body, pauseAfter: 3 << 20, gate: gate)]) {
            server, dir in
            let pipeline = try Self.dataPipeline(dir)
            let url = server.url("/big.bin")
            let key = DataRequest(url: url).cacheKey
            let prefetch = Task { await Prefetcher(pipeline: pipeline).prefetch([url]) }
            let temporary = dir.appendingPathComponent("tmp")
            let arrived = await eventually {
                Self.files(in: temporary).contains { Self.size($0) >= 3 << 20 }
            }
            #expect(arrived, "the first 3 MiB never showed in \(temporary.path)")
            #expect(try await pipeline.diskCache?.entry(forKey: key) == nil)
            gate.open()
            let summary = await prefetch.value
            #expect(summary.fetched == 1 && summary.failed == 0 && summary.bytes == body.count)
            #expect(try await pipeline.diskCache?.data(forKey: key) == body)
            #expect(Self.files(in: temporary).isEmpty)
        }
    }

    @Test func aBodyCutOffPartWayLeavesNoEntryAndNoTempFile() async throws {
        let body = Self.body(600_000)
        try await withServerAndCache(["/cut.bin": .cutMidBody(body, after: 400_000)]) { server, dir in
            let pipeline = try Self.dataPipeline(dir)
            let url = server.url("/cut.bin")
            let summary = await Prefetcher(pipeline: pipeline).prefetch([url])
            #expect(summary.failed == 1)
            #expect(summary.failures.first?.error.contains("the connection was lost after 400000 bytes") == true)
            #expect(try await pipeline.diskCache?.entry(forKey: DataRequest(url: url).cacheKey) == nil)
            #expect(Self.files(in: dir.appendingPathComponent("tmp")).isEmpty)
        }
    }

    /// Over the byte limit, announced (Content-Length) or found while streaming (chunked): the message names
    /// the limit, and nothing is stored.
    @Test func aBodyOverTheByteLimitLeavesNoEntryAndNamesTheLimit() async throws {
        let body = Self.body(300_000)
        try await withServerAndCache([
            "/announced.bin": .file(body, contentType: "application/octet-stream"),
            "/chunked.bin": .cutMidBody(body, after: body.count)
        ]) { server, dir in
            let pipeline = try Self.dataPipeline(dir) { $0.maxBytes = 100_000 }
            let urls = [server.url("/announced.bin"), server.url("/chunked.bin")]
            let summary = await Prefetcher(pipeline: pipeline).prefetch(urls)
            #expect(summary.failed == 2)
            for (url, failure) in zip(urls, summary.failures) {
                #expect(failure.error == TroveError.tooLarge(url: url.absoluteString, limit: 100_000).description)
                #expect(try await pipeline.diskCache?.entry(forKey: DataRequest(url: url).cacheKey) == nil)
            }
            #expect(Self.files(in: dir.appendingPathComponent("tmp")).isEmpty)
        }
    }

    /// The stored entry keeps what the response said: validators, content type, freshness; a no-store
    /// answer is not kept.
    @Test func aStreamedEntryKeepsTheResponsesCachingHeaders() async throws {
        let body = Self.body(50_000)
        let kept = Data(body.prefix(20_000))
        try await withServerAndCache([
            "/kept.bin": .withHeaders(["Cache-Control": "max-age=600"], .file(kept, contentType: "application/x-kept")),
            "/secret.bin": .withHeaders(["Cache-Control": "no-store"], .file(body, contentType: "text/plain"))
        ]) { server, dir in
            let pipeline = try Self.dataPipeline(dir)
            let summary = await Prefetcher(pipeline: pipeline).prefetch([
                server.url("/kept.bin"), server.url("/secret.bin")
            ])
            #expect(summary.fetched == 2 && summary.failed == 0)
            let entry = try #require(
                try await pipeline.diskCache?.entry(forKey: DataRequest(url: server.url("/kept.bin")).cacheKey))
            #expect(entry.data == kept)
            #expect(entry.metadata.contentType == "application/x-kept")
            #expect(entry.metadata.validators.etag == FixtureServer.etag(for: kept))
            let expires = try #require(entry.metadata.expires)
            #expect(expires.timeIntervalSince(entry.metadata.created) > 590)
            #expect(
                try await pipeline.diskCache?.entry(forKey: DataRequest(url: server.url("/secret.bin")).cacheKey) == nil
            )
        }
    }

    /// A prefetch of chelsea.png, held at the origin until an image load has joined it; `beforeRelease` runs
    /// then, before the origin answers. Returns the prefetch's summary, the load's response and the number of
    /// requests the origin saw.
    func prefetchJoinedByALoad(beforeRelease: (URL) throws -> Void = { _ in }) async throws
        -> (summary: PrefetchSummary, response: ImageResponse, png: Data, originRequests: Int)
    {
        let gate = FixtureGate()
        let png = try pngData("chelsea.png")
        var outcome: (PrefetchSummary, ImageResponse, Data, Int)?
        try await withServerAndCache(["/held.png": .gated(png, contentType: "image/png", gate: gate)]) { server, dir in
            let metrics = TestMetrics()
            let pipeline = try makePipeline(dir, metrics: metrics)
            let url = server.url("/held.png")
            let prefetch = Task { await Prefetcher(pipeline: pipeline).prefetch([url]) }
            #expect(await eventually { server.requests.count == 1 })
            let load = Task { try await pipeline.image(for: ImageRequest(url: url)) }
            #expect(await eventually { metrics.total("trove_coalesced_joins_total") >= 1 })
            try beforeRelease(dir)
            gate.open()
            let summary = await prefetch.value
            outcome = (summary, try await load.value, png, server.requests.count)
        }
        let (summary, response, sent, requests) = try #require(outcome)
        return (summary, response, sent, requests)
    }

    /// An image request that joins a prefetch already streaming the same URL gets the bytes (read back from
    /// the entry the prefetch wrote): the origin still sees one request.
    @Test func aLoadThatJoinsAStreamingPrefetchGetsTheBytesFromOneRequest() async throws {
        let run = try await prefetchJoinedByALoad()
        #expect(run.summary.fetched == 1)
        #expect(run.response.data == run.png && run.response.image.width == 451)
        #expect(run.originRequests == 1)
    }

    /// A load that joins a streaming prefetch whose disk fails still gets its image, from a fetch of its
    /// own: a failing disk must not fail a request. The prefetch reports the disk's error.
    @Test func aLoadThatJoinsAPrefetchWhoseDiskFailsStillGetsTheImage() async throws {
        let run = try await prefetchJoinedByALoad { cacheDirectory in
            // The disk fails under the prefetch: the cache's temp folder is a folder no more.
            let temporary = cacheDirectory.appendingPathComponent("tmp")
            try FileManager.default.removeItem(at: temporary)
            try Data().write(to: temporary)
        }
        #expect(run.summary.failed == 1 && run.summary.fetched == 0)
        #expect(run.response.data == run.png && run.response.image.width == 451)
        #expect(run.originRequests == 2)
    }
}
