import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove

@Suite struct FailureTests {
    @Test func eachFailureHasItsOwnErrorAndLeavesNoEntry() async throws {
        let badge = try pngData("badge.png")
        let never = FixtureGate()
        try await withServerAndCache([
            "/cut.png": .cutMidBody(badge, after: 1000),
            "/short.png": .wrongLength(badge, announced: badge.count + 500),
            "/404.png": .status(404),
            "/500.png": .status(500),
            "/slow.png": .gated(badge, contentType: "image/png", gate: never)
        ]) { server, directory in
            // Only /slow.png goes through the short timeout: under a loaded test run the other answers can
            // take longer than 300 ms and would time out instead of failing their own way.
            let pipeline = try makePipeline(directory)
            let impatient = try makePipeline(directory) { $0.fetchTimeout = .milliseconds(300) }
            func failure(_ path: String) async -> TroveError? {
                do {
                    _ = try await (path == "/slow.png" ? impatient : pipeline).image(for: server.url(path))
                    return nil
                } catch {
                    return error as? TroveError
                }
            }
            let url = { (path: String) in server.url(path).absoluteString }
            let cut = await failure("/cut.png")
            guard case .connectionFailed(url("/cut.png"), _)? = cut else {
                Issue.record("a body cut short must be a connection failure, got \(String(describing: cut))"); return
            }
            #expect(
                await failure("/short.png")
                    == .lengthMismatch(
                        url: url("/short.png"), expected: Int64(badge.count + 500), received: Int64(badge.count)))
            #expect(await failure("/404.png") == .httpStatus(404, url: url("/404.png")))
            #expect(await failure("/500.png") == .httpStatus(500, url: url("/500.png")))
            #expect(await failure("/slow.png") == .timedOut(url: url("/slow.png"), after: .milliseconds(300)))
            never.open()
            #expect(try await pipeline.diskCache?.keys() == [])
            #expect(try await impatient.diskCache?.keys() == [])
            #expect(pipeline.memoryCache.stats.count == 0)
            #expect(impatient.memoryCache.stats.count == 0)
        }
    }

    @Test func a404IsRememberedAndATimeoutIsNot() async throws {
        let gate = FixtureGate()
        try await withServerAndCache([
            "/404.png": .status(404),
            "/slow.png": .sequence([
                .gated(try pngData("badge.png"), contentType: "image/png", gate: gate),
                .file(try pngData("badge.png"), contentType: "image/png")
            ])
        ]) { server, directory in
            let metrics = TestMetrics()
            // The short timeout is only for the slow resource (see eachFailureHasItsOwnErrorAndLeavesNoEntry).
            let pipeline = try makePipeline(directory, metrics: metrics)
            let impatient = try makePipeline(directory, metrics: metrics) { $0.fetchTimeout = .milliseconds(300) }
            let missing = server.url("/404.png")
            await #expect(throws: TroveError.httpStatus(404, url: missing.absoluteString)) {
                _ = try await pipeline.image(for: missing)
            }
            let remembered = await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: missing) }
            guard case let .previouslyFailed(url, cause, ago)? = remembered else {
                Issue.record("expected previouslyFailed, got \(String(describing: remembered))"); return
            }
            #expect(url == missing.absoluteString && cause == "HTTP 404" && ago < .seconds(60))
            #expect(remembered?.description.contains(" s ago with HTTP 404; pass retryFailed") == true)
            #expect(server.requestCount(for: "/404.png") == 1)
            // Remembered across processes too: a fresh pipeline on the directory fails fast.
            let other = try makePipeline(directory)
            let fromDisk = await #expect(throws: TroveError.self) { _ = try await other.image(for: missing) }
            guard case .previouslyFailed(missing.absoluteString, "HTTP 404", _)? = fromDisk else {
                Issue.record("expected previouslyFailed with HTTP 404 from disk, got \(String(describing: fromDisk))");
                return
            }
            #expect(server.requestCount(for: "/404.png") == 1)
            // retryFailed goes back to the origin.
            await #expect(throws: TroveError.httpStatus(404, url: missing.absoluteString)) {
                _ = try await pipeline.image(for: ImageRequest(url: missing, options: [.retryFailed]))
            }
            #expect(server.requestCount(for: "/404.png") == 2)
            #expect(metrics.total("trove_failures_total", [("kind", "not_found")]) == 2)
            #expect(metrics.total("trove_failures_total", [("kind", "previously_failed")]) == 1)

            let slow = server.url("/slow.png")
            await #expect(throws: TroveError.timedOut(url: slow.absoluteString, after: .milliseconds(300))) {
                _ = try await impatient.image(for: slow)
            }
            gate.open()
            #expect(try await impatient.image(for: slow).image.width == 256)
            #expect(server.requestCount(for: "/slow.png") == 2)
        }
    }

    @Test func transientFailuresAreRetriedLastingOnesAreNot() async throws {
        let badge = try pngData("badge.png")
        try await withServerAndCache([
            "/flaky.png": .sequence([.status(503), .status(500), .file(badge, contentType: "image/png")]),
            "/gone.png": .status(410)
        ]) { server, directory in
            let pipeline = try makePipeline(directory) {
                $0.retryPolicy = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))
            }
            #expect(try await pipeline.image(for: server.url("/flaky.png")).data == badge)
            #expect(server.requestCount(for: "/flaky.png") == 3)
            await #expect(throws: TroveError.httpStatus(410, url: server.url("/gone.png").absoluteString)) {
                _ = try await pipeline.image(for: server.url("/gone.png"))
            }
            #expect(server.requestCount(for: "/gone.png") == 1)
        }
    }

    @Test func bytesThatAreNotAnImageCacheNothing() async throws {
        try await withServerAndCache([
            "/fake.png": .response(
                status: 200, headers: ["Content-Type": "image/png"],
                body: Data("<html>not an image</html>".utf8))
        ]) {
            server, directory in
            let pipeline = try makePipeline(directory)
            let url = server.url("/fake.png")
            await #expect(
                throws: TroveError.unsupportedFormat(url: url.absoluteString, firstBytes: Array("<html>no".utf8))
            ) {
                _ = try await pipeline.image(for: url)
            }
            #expect(try await pipeline.diskCache?.keys() == [])
        }
    }
}
