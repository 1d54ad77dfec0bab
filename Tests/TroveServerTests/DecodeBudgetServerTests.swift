import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trove
import TroveServer

/// `--memory-budget` end to end: a decode that cannot have memory waits, then 429 past the queue or 503
/// past the deadline, each with `Retry-After`; a source over the whole budget gets a 422 naming it; the
/// budget's numbers are in `/metrics`.
@Suite struct DecodeBudgetServerTests {
    static let signer = URLSigner.test
    static let png = try! Data(contentsOf: TestImages.folder.appendingPathComponent("chelsea.png"))
    static let animatedGIF = try! Data(
        contentsOf: TestImages.folder.deletingLastPathComponent().appendingPathComponent("gif/animated.gif"))
    static let later = ContinuousClock.now + .seconds(3600)

    static func start(
        _ routes: [String: FixtureServer.Route], _ configure: (inout ServerConfiguration) -> Void
    ) async throws -> ServerHarness {
        try await ServerHarness.start(origin: FixtureServer(routes: routes)) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
            configure(&configuration)
        }
    }

    static func thumbnail(_ harness: ServerHarness, _ path: String) -> String {
        signer.signed("/rs:fit:20:20/plain/\(harness.origin.url(path))@png")
    }

    @Test func aFullBudgetAnswers429PastTheQueueAndCountsIt() async throws {
        let harness = try await Self.start(["/a.png": .file(Self.png, contentType: "image/png")]) {
            $0.pipeline.decodeMemoryBudget = 1 << 20
            $0.maxQueue = 0
        }
        defer { Task { await harness.stop() } }
        let budget = try #require(harness.server.pipeline.decodeBudget)
        #expect(budget.queueLimit == 0)
        // Every byte taken, as by a large decode in progress.
        let held = try await budget.reserve(1 << 20, for: "held", until: Self.later)
        let refused = try await harness.request(Self.thumbnail(harness, "/a.png"))
        #expect(refused.status == .tooManyRequests)
        #expect(refused.header(.retryAfter) == "1")
        #expect(refused.header(.cacheControl) == "no-store")
        #expect(try await harness.metric("trove_decode_memory_budget_bytes") == Double(1 << 20))
        #expect(try await harness.metric("trove_decode_memory_reserved_bytes") == Double(1 << 20))
        #expect(try await harness.metric("trove_decode_memory_waiting") == 0)
        #expect(try await harness.metric("trove_decode_memory_refusals_total", labels: "cause=\"queue_full\"") == 1)
        #expect(try await harness.metric("trove_decode_memory_refusals_total", labels: "cause=\"deadline\"") == 0)
        held.release()
        // With the memory back, the same URL is served.
        #expect(try await harness.request(Self.thumbnail(harness, "/a.png")).status == .ok)
        #expect(try await harness.metric("trove_decode_memory_reserved_bytes") == 0)
    }

    @Test func aWaitPastTheDeadlineAnswers503WithRetryAfter() async throws {
        let harness = try await Self.start(["/a.png": .file(Self.png, contentType: "image/png")]) {
            $0.pipeline.decodeMemoryBudget = 1 << 20
            $0.pipeline.requestDeadline = .seconds(2)
        }
        defer { Task { await harness.stop() } }
        let budget = try #require(harness.server.pipeline.decodeBudget)
        let held = try await budget.reserve(1 << 20, for: "held", until: Self.later)
        defer { held.release() }
        let answer = try await harness.request(Self.thumbnail(harness, "/a.png"))
        // The budget gives up before the whole request's deadline (504) would.
        #expect(answer.status == .serviceUnavailable)
        #expect(answer.header(.retryAfter) == "5")
        #expect(answer.text.contains("no memory to decode the source came free"))
        #expect(try await harness.metric("trove_decode_memory_refusals_total", labels: "cause=\"deadline\"") == 1)
        #expect(try await harness.metric("trove_decode_memory_waiting") == 0)
    }

    @Test func aSourceOverTheWholeBudgetGets422NamingIt() async throws {
        let harness = try await Self.start(["/a.png": .file(Self.png, contentType: "image/png")]) {
            $0.pipeline.decodeMemoryBudget = 16 << 10
        }
        defer { Task { await harness.stop() } }
        let answer = try await harness.request(Self.thumbnail(harness, "/a.png"))
        #expect(answer.status == .unprocessableContent)
        #expect(answer.text == "the source is too large to decode within 16 KiB\n")
        #expect(answer.header(.retryAfter) == nil)
        #expect(try await harness.metric("trove_decode_memory_refusals_total", labels: "cause=\"too_large\"") == 1)
    }

    @Test func anAnimationOverTheDecodedBytesLimitIsTooLargeNotDamaged() async throws {
        // animated.gif: 5 frames of 24x20; room for 4 of them.
        let limit = 24 * 20 * 4 * 4
        let harness = try await Self.start(["/a.gif": .file(Self.animatedGIF, contentType: "image/gif")]) {
            $0.pipeline.decodeMemoryBudget = nil
            $0.pipeline.decodingLimits.maxDecodedBytes = limit
        }
        defer { Task { await harness.stop() } }
        let answer = try await harness.request(Self.thumbnail(harness, "/a.gif"))
        #expect(answer.status == .unprocessableContent)
        #expect(answer.text == "the source is too large to decode within 7.5 KiB\n")
    }
}
