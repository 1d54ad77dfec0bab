import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// Data requests with a method and a body: what reaches the origin, what the caches keep, and how a
/// redirect treats a POST.
@Suite struct DataRequestMethodTests {
    func post(_ url: URL, _ body: String, caching: Bool = false) -> DataRequest {
        var request = DataRequest(url: url)
        request.method = "POST"
        request.body = Data(body.utf8)
        request.cachesOtherMethods = caching
        return request
    }

    @Test func thePostAndItsBodyReachTheOriginAndNothingIsCached() async throws {
        try await withServerAndCache(["/api": .echo]) { server, directory in
            let pipeline = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let first = try await pipeline.data(for: post(server.url("/api"), "q=1"))
            #expect(String(decoding: first.data, as: UTF8.self) == "POST q=1")
            #expect(server.requests.count == 1)
            let sent = try #require(server.requestLog.last)
            #expect(sent.method == "POST" && sent.body == Data("q=1".utf8))
            // Not opted in: the same POST goes to the origin again, and no tier keeps it.
            let second = try await pipeline.data(for: post(server.url("/api"), "q=1"))
            #expect(second.source == .network)
            #expect(server.requests.count == 2)
            #expect(await pipeline.diskCache?.stats().entries == 0)
            #expect(pipeline.memoryCache.stats.count == 0)
        }
    }

    @Test func anOptedInPostIsCachedByItsBodyApartFromTheGet() async throws {
        try await withServerAndCache(["/api": .echo]) { server, directory in
            let pipeline = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let url = server.url("/api")
            _ = try await pipeline.data(for: post(url, "q=1", caching: true))
            let again = try await pipeline.data(for: post(url, "q=1", caching: true))
            #expect(again.source == .memory && String(decoding: again.data, as: UTF8.self) == "POST q=1")
            let other = try await pipeline.data(for: post(url, "q=2", caching: true))
            #expect(String(decoding: other.data, as: UTF8.self) == "POST q=2")
            let get = try await pipeline.data(for: url)
            #expect(String(decoding: get.data, as: UTF8.self) == "GET ")
            #expect(server.requests.count == 3)
            await pipeline.flush()
            #expect(await pipeline.diskCache?.stats().entries == 3)
            #expect(Set([again.cacheKey, other.cacheKey, get.cacheKey]).count == 3)
        }
    }

    @Test func aPostThatFailsTransientlyIsNotRetriedButAGetIs() async throws {
        try await withServerAndCache(["/busy": .status(503)]) { server, directory in
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.retryPolicy = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(1), jitter: 0)
            let pipeline = try DataPipeline(configuration: configuration)
            await #expect(throws: TroveError.self) {
                _ = try await pipeline.data(for: post(server.url("/busy"), "q=1"))
            }
            #expect(server.requestCount(for: "/busy") == 1)
            await #expect(throws: TroveError.self) { _ = try await pipeline.data(for: server.url("/busy")) }
            #expect(server.requestCount(for: "/busy") == 4)
        }
    }

    @Test func twoIdenticalPostsInFlightAreTwoOriginRequests() async throws {
        let gate = FixtureGate()
        try await withServerAndCache([
            "/order": .gated(Data("ok".utf8), contentType: "text/plain", gate: gate)
        ]) { server, directory in
            let pipeline = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let request = post(server.url("/order"), "item=1")
            async let first = pipeline.data(for: request)
            async let second = pipeline.data(for: request)
            // Both must reach the origin while the other is still held there; shared, only one would.
            #expect(await eventually { gate.arrivals == 2 })
            gate.open()
            #expect(try await [first.data, second.data] == [Data("ok".utf8), Data("ok".utf8)])
            #expect(server.requestCount(for: "/order") == 2)
        }
    }

    @Test func anOfflinePostFailsWithoutReachingTheOrigin() async throws {
        try await withServerAndCache(["/api": .echo]) { server, directory in
            let pipeline = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            var request = post(server.url("/api"), "q=1")
            request.cachePolicy = .cacheOnly
            await #expect(throws: TroveError.notCached(key: request.cacheKey)) {
                _ = try await pipeline.data(for: request)
            }
            #expect(server.requests.isEmpty)
        }
    }

    @Test func aHeadRequestGetsAnEmptyBodyDespiteTheAnnouncedLength() async throws {
        try await withServerAndCache { server, directory in
            let pipeline = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            var request = DataRequest(url: server.url("/images/chelsea.png"))
            request.method = "HEAD"
            let response = try await pipeline.data(for: request)
            #expect(response.data.isEmpty)
            #expect(response.contentType == "image/png")
            #expect(server.requestLog.map(\.method) == ["HEAD"])
            // Kept apart from the GET, whose bytes are whole.
            let get = try await pipeline.data(for: server.url("/images/chelsea.png"))
            #expect(try get.data == Data(contentsOf: Fixtures.image("chelsea.png")) && get.source == .network)
        }
    }

    @Test func aLowercaseMethodIsTheSameMethod() async throws {
        try await withServerAndCache(["/api": .echo]) { server, directory in
            let pipeline = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            var request = DataRequest(url: server.url("/api"))
            request.method = "get"
            #expect(request.method == "GET" && request.usesCaches)
            _ = try await pipeline.data(for: request)
            let again = try await pipeline.data(for: request)
            #expect(again.source == .memory)
            #expect(server.requestLog.map(\.method) == ["GET"])
        }
    }

    @Test func aCustomKeyStartingWithNULCannotSpellAPostsKey() {
        let url = URL(string: "https://example.com/api")!
        var post = DataRequest(url: url)
        post.method = "POST"
        post.body = Data("q=1".utf8)
        var get = DataRequest(url: url, customCacheKey: post.cacheKey)
        #expect(get.cacheKey != post.cacheKey)
        get.customCacheKey = "plain"
        #expect(get.cacheKey == "plain")
    }

    @Test func a303TurnsThePostIntoAGetAndA307KeepsIt() async throws {
        try await withServerAndCache([
            "/api": .echo, "/see-other": .redirect(to: "/api", status: 303),
            "/temporary": .redirect(to: "/api", status: 307)
        ]) { server, directory in
            let pipeline = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let seeOther = try await pipeline.data(for: post(server.url("/see-other"), "q=1"))
            #expect(String(decoding: seeOther.data, as: UTF8.self) == "GET ")
            let temporary = try await pipeline.data(for: post(server.url("/temporary"), "q=1"))
            #expect(String(decoding: temporary.data, as: UTF8.self) == "POST q=1")
            let methods = server.requestLog.map { "\($0.method) \($0.path)" }
            #expect(methods == ["POST /see-other", "GET /api", "POST /temporary", "POST /api"])
        }
    }
}
