import FixtureServer
import Foundation
import MetricsTestKit
import Synchronization
import Testing
import Trove
import TroveTestSupport

/// Who shares coalesced work, and for how long: a caller joins a key's work once and stays joined until its
/// request ends, and only callers with the same cache policy share work the policy decides (issue 38).
@Suite struct CoalescingKeyTests {
    /// An image load joins a prefetch streaming a no-store body, so it must fetch again for itself. It joined
    /// the raw key's work twice on the way (once for the request, once for the fetch); the second join's end
    /// must not end the first, or the load's own fetch reports its progress to nobody.
    @Test func aLoadKeepsItsProgressForTheFetchAfterTheOneItJoined() async throws {
        let gate = FixtureGate()
        let joined = try pngData("chelsea.png")
        let own = try pngData("coffee.png")
        let noStore = ["Cache-Control": "no-store"]
        try await withServerAndCache([
            "/twice.png": .sequence([
                .withHeaders(noStore, .gated(joined, contentType: "image/png", gate: gate)),
                .withHeaders(noStore, .file(own, contentType: "image/png"))
            ])
        ]) { server, dir in
            let metrics = TestMetrics()
            let pipeline = try makePipeline(dir, metrics: metrics)
            let url = server.url("/twice.png")
            let prefetch = Task { await Prefetcher(pipeline: pipeline).prefetch([url]) }
            #expect(await eventually { gate.arrivals == 1 })
            let load = pipeline.task(for: ImageRequest(url: url))
            #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 1 })
            gate.open()
            var progress: [FetchProgress] = []
            for try await event in load.events {
                if case let .progress(report) = event { progress.append(report) }
            }
            let response = try await load.response
            _ = await prefetch.value

            #expect(server.requestCount(for: "/twice.png") == 2)
            #expect(response.data == own && response.source == .network)
            // Progress for the joined fetch, then for its own: the last report is of the bytes it was given.
            #expect(progress.contains { $0.received == Int64(joined.count) })
            #expect(progress.last == FetchProgress(received: Int64(own.count), expected: Int64(own.count)))
        }
    }

    /// As above, for priority: the load raises its priority while it waits on the prefetch's fetch; the
    /// fetch it then makes for itself must wait at that priority, ahead of a request queued before it.
    @Test func aLoadKeepsItsPriorityForTheFetchAfterTheOneItJoined() async throws {
        let gate = FixtureGate()
        let other = FixtureGate()
        let image = try pngData("chelsea.png")
        let noStore = ["Cache-Control": "no-store"]
        try await withServerAndCache([
            "/twice.png": .sequence([
                .withHeaders(noStore, .gated(image, contentType: "image/png", gate: gate)),
                .withHeaders(noStore, .file(image, contentType: "image/png"))
            ]),
            "/x.png": .gated(image, contentType: "image/png", gate: other),
            "/z.png": .file(image, contentType: "image/png")
        ]) { server, dir in
            let metrics = TestMetrics()
            let pipeline = try makePipeline(dir, metrics: metrics) {
                $0.scheduler = FetchSchedulerConfiguration(maxConcurrent: 1, order: .fifo)
            }
            let url = server.url("/twice.png")
            let prefetch = Task { await Prefetcher(pipeline: pipeline).prefetch([url]) }
            #expect(await eventually { gate.arrivals == 1 })
            let load = pipeline.task(for: ImageRequest(url: url))
            #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 1 })
            // Queued one at a time, so `/x` is first in line.
            var queued: [ImageTask] = []
            for (index, path) in ["/x.png", "/z.png"].enumerated() {
                queued.append(pipeline.task(for: ImageRequest(url: server.url(path))))
                #expect(await eventually { pipeline.fetchScheduler.queuedCount == index + 1 })
            }
            load.setPriority(.veryHigh)
            gate.open()
            // The prefetch ends; `/x` takes the slot and holds it; the load's own fetch queues beside `/z`.
            #expect(await eventually { other.arrivals == 1 && pipeline.fetchScheduler.queuedCount == 2 })
            other.open()
            _ = try await load.response
            for task in queued { _ = try await task.response }
            _ = await prefetch.value

            #expect(server.requests == ["/twice.png", "/x.png", "/twice.png", "/z.png"])
        }
    }

    /// A reload arrives while a `useCache` load of the same URL is reading the shared tier (the read is held).
    /// The reload must not share that read: it goes to the origin and gets the origin's bytes now, not the
    /// shared tier's older copy.
    @Test func aReloadDoesNotJoinAUseCacheLoadReadingTheSharedTier() async throws {
        let old = try pngData("chelsea.png")
        let new = try pngData("coffee.png")
        try await withServerAndCache([
            "/changed.png": .sequence([.file(old, contentType: "image/png"), .file(new, contentType: "image/png")])
        ]) { server, dir in
            let tier = HoldableSharedTier()
            let metrics = TestMetrics()
            func pipeline(_ name: String) throws -> ImagePipeline {
                var registry = PluginRegistry.standard
                try registry.register(sharedTier: tier)
                var configuration = PipelineConfiguration(cacheDirectory: dir.appendingPathComponent(name))
                configuration.sharedCache = URL(string: "holdable://tier")
                configuration.metricsFactory = metrics
                configuration.retryPolicy = .none
                return try ImagePipeline(registry: registry, configuration: configuration)
            }
            let url = server.url("/changed.png")
            // Another process fetched the old bytes and shared them.
            #expect(try await pipeline("first").image(for: url).data == old)
            #expect(await eventually { tier.storedCount >= 1 })

            let second = try pipeline("second")
            tier.holdReads()
            let load = Task { try await second.image(for: ImageRequest(url: url)) }
            #expect(await eventually { tier.heldReads == 1 })
            let reload = Task { try await second.image(for: ImageRequest(url: url, cachePolicy: .reloadIgnoringCache)) }
            // Either the reload reached the origin, or (wrongly) it joined the held read.
            #expect(
                await eventually {
                    server.requestCount(for: "/changed.png") == 2 || metrics.total("trove_coalesced_joins_total") >= 1
                })
            tier.releaseReads()
            let reloaded = try await reload.value
            let loaded = try await load.value

            #expect(reloaded.source == .network && reloaded.data == new)
            #expect(server.requestCount(for: "/changed.png") == 2)
            #expect(loaded.source == .shared && loaded.data == old)
        }
    }
}

/// A shared tier in this process's memory whose reads can be held, so a test can keep a shared-tier read in
/// flight for as long as it needs. It is its own factory, for its scheme (`holdable` unless named).
final class HoldableSharedTier: SharedCacheTier, SharedCacheTierFactory {
    let name: String
    let schemes: Set<String>

    init(scheme: String = "holdable") {
        name = scheme
        schemes = [scheme]
    }

    private struct State {
        var values: [String: Data] = [:]
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
        var holdingDeletes = false
        var holdingResultSets = false
        var heldWrites: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func makeTier(url: URL, options: SharedTierOptions) throws -> any SharedCacheTier { self }

    /// Values stored so far.
    var storedCount: Int { state.withLock { $0.values.count } }
    /// The value under `key` now, without holding.
    func stored(_ key: String) -> Data? { state.withLock { $0.values[key] } }
    /// Reads waiting now.
    var heldReads: Int { state.withLock { $0.held.count } }

    /// Holds every read from now until `releaseReads()`.
    func holdReads() { state.withLock { $0.holding = true } }

    func releaseReads() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// A held read answers what was stored when it began, as a read already in flight does: a value stored
    /// meanwhile (the reload's own bytes, written behind it) is not what it fetched.
    func get(_ key: String) async throws -> Data? {
        let value = state.withLock { $0.values[key] }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let holds = state.withLock { state in
                if state.holding { state.held.append(continuation) }
                return state.holding
            }
            if !holds { continuation.resume() }
        }
        return value
    }

    func set(_ key: String, value: Data, ttl: Duration) async throws {
        // Processed results' keys begin with a NUL byte (`CacheKey`); a held one lands when let go.
        if key.utf8.first == 0 { await waitIfHolding(\.holdingResultSets) }
        state.withLock { $0.values[key] = value }
    }
    func delete(_ key: String) async throws {
        // A held delete lands when let go, as one still on its way to a slow server does.
        await waitIfHolding(\.holdingDeletes)
        _ = state.withLock { $0.values.removeValue(forKey: key) }
    }

    /// Holds every delete from now until `releaseWrites()`.
    func holdDeletes() { state.withLock { $0.holdingDeletes = true } }
    /// Holds every store of a processed result from now until `releaseWrites()`.
    func holdResultSets() { state.withLock { $0.holdingResultSets = true } }
    /// Deletes and stores waiting now.
    var heldWriteCount: Int { state.withLock { $0.heldWrites.count } }

    func releaseWrites() {
        let held = state.withLock { state in
            state.holdingDeletes = false
            state.holdingResultSets = false
            defer { state.heldWrites = [] }
            return state.heldWrites
        }
        for continuation in held { continuation.resume() }
    }

    private func waitIfHolding(_ flag: KeyPath<State, Bool> & Sendable) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let holds = state.withLock { state in
                if state[keyPath: flag] { state.heldWrites.append(continuation) }
                return state[keyPath: flag]
            }
            if !holds { continuation.resume() }
        }
    }
    func acquireLease(on key: String, ttl: Duration) async throws -> SharedTierLease? {
        SharedTierLease(key: key, token: "only")
    }
    func releaseLease(_ lease: SharedTierLease) async throws {}
    func statistics() -> SharedTierStatistics { SharedTierStatistics() }
    func shutdown() async {}
}
