import Foundation
import Synchronization
import Testing
import Trove
import TroveDiskCache
import TroveRedis
import TroveTestSupport

/// Processed results in the fleet's shared tier, against a real redis-server: pipelines on separate disks
/// (a fleet's processes) make each result once between them, read it back from the tier without the origin,
/// and keep to the switch that turns result sharing off.
@Suite(.serialized) struct SharedResultsTests {
    /// A resize that counts the images it is run on (so the test sees every result made) and is part of the
    /// key as a resize of its size would be.
    struct CountingResize: ImageTransformer {
        let width: Int
        let counter: Counter

        var identifier: String { "counting-resize(w=\(width))" }

        func transform(_ image: Image) throws -> Image {
            counter.runs.withLock { $0 += 1 }
            return try ResizeTransformer(width: width, height: nil).transform(image)
        }
    }

    /// A transform that always fails, as a transform refusing its input does.
    struct Refusing: ImageTransformer {
        var identifier: String { "refusing" }

        func transform(_ image: Image) throws -> Image {
            throw TroveError.invalidTransformParameter(transform: "refusing", parameter: "image", reason: "always")
        }
    }

    /// Holds the first image it is run on until `open()` (at most 10 s), as a process that dies mid-transform
    /// holds its lease; every later image passes at once.
    final class Hold: Sendable {
        let state = Mutex((arrivals: 0, open: false))
        var arrivals: Int { state.withLock { $0.arrivals } }
        func open() { state.withLock { $0.open = true } }

        func pass() {
            let first = state.withLock { state in
                state.arrivals += 1
                return state.arrivals == 1
            }
            guard first else { return }
            let end = ContinuousClock.now + .seconds(10)
            while !state.withLock({ $0.open }), ContinuousClock.now < end { Thread.sleep(forTimeInterval: 0.01) }
        }
    }

    struct Holding: ImageTransformer {
        let hold: Hold
        var identifier: String { "holding" }

        func transform(_ image: Image) throws -> Image {
            hold.pass()
            return image
        }
    }

    final class Counter: Sendable {
        let runs = Mutex(0)
        var count: Int { runs.withLock { $0 } }
    }

    /// `count` pipelines on disks of their own (a fleet's processes) sharing one real redis-server and one
    /// counting file fetcher; each tier connection is shut down after `body`, however it ends.
    static func withFleet(
        _ count: Int = 2, policy: SharedTierPolicy = SharedTierPolicy(),
        _ body: ([ImagePipeline], PlaceholderPipelineTests.CountingFileFetcher) async throws -> Void
    ) async throws {
        try await withRedisServer { redis in
            try await withTemporaryDirectory { directory in
                let fetcher = PlaceholderPipelineTests.CountingFileFetcher()
                var registry = PluginRegistry.standard
                try registry.install(TroveRedisPlugin())
                try registry.register(fetcher: fetcher)
                let pipelines = try (0..<count).map { index in
                    var configuration = PipelineConfiguration(
                        cacheDirectory: directory.appendingPathComponent("process-\(index)"))
                    configuration.sharedCache = redis.url()
                    configuration.sharedTierPolicy = policy
                    configuration.retryPolicy = RetryPolicy(maxRetries: 0)
                    return try ImagePipeline(registry: registry, configuration: configuration)
                }
                try await withCleanup {
                    try await body(pipelines, fetcher)
                } finally: {
                    for pipeline in pipelines { await pipeline.sharedTier?.shutdown() }
                }
            }
        }
    }

    static func request(width: Int, counting counter: Counter) -> ImageRequest {
        var request = ImageRequest(url: Fixtures.image("coffee.png"))
        request.transforms = [CountingResize(width: width, counter: counter)]
        request.outputFormat = .png
        return request
    }

    @Test func aResultMadeByOneProcessIsReadByAnotherWithoutTheOriginOrATransform() async throws {
        try await Self.withFleet { fleet, fetcher in
            let (first, second) = (fleet[0], fleet[1])
            let counter = Counter()

            let made = try await first.image(for: Self.request(width: 40, counting: counter))
            #expect(made.source == .network && made.image.width == 40)
            await first.flush()  // the shared write goes behind the answer
            #expect(counter.count == 1 && fetcher.count.withLock { $0 } == 1)

            let shared = try await second.image(for: Self.request(width: 40, counting: counter))
            #expect(shared.source == .shared)
            #expect(shared.data == made.data)
            #expect(shared.image.width == 40 && shared.image.pixels == made.image.pixels)
            #expect(counter.count == 1, "the second process transformed again")
            #expect(fetcher.count.withLock { $0 } == 1, "the second process fetched the source")
            // Copied to the second process's disk on the way: its next read stays local.
            await second.flush()
            let key = second.cacheKey(for: Self.request(width: 40, counting: counter)).processed
            #expect(try await second.diskCache?.entry(forKey: key)?.data == made.data)
            // Another size is another result: made there, from the source the tier also holds.
            let other = try await second.image(for: Self.request(width: 30, counting: counter))
            #expect(other.image.width == 30 && counter.count == 2 && fetcher.count.withLock { $0 } == 1)
        }
    }

    @Test func processesAskingAtOnceMakeTheResultOnceBetweenThem() async throws {
        try await Self.withFleet(4) { pipelines, fetcher in
            let counter = Counter()
            let widths = try await withThrowingTaskGroup(of: (ResultSource, Int).self) { group in
                for pipeline in pipelines {
                    group.addTask {
                        let response = try await pipeline.image(for: Self.request(width: 24, counting: counter))
                        return (response.source, response.image.width)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(widths.allSatisfy { $0.1 == 24 })
            #expect(counter.count == 1, "made \(counter.count) times across 4 processes")
            #expect(fetcher.count.withLock { $0 } == 1)
            #expect(widths.filter { $0.0 == .shared }.count == 3, "\(widths.map(\.0))")
            let waits = pipelines.map { $0.sharedTierStatus?.leaseWaits ?? 0 }.reduce(0, +)
            #expect(waits >= 1, "no process waited for the lease")
        }
    }

    @Test func withResultsNotSharedOnlyTheSourceIsAndEachProcessMakesItsOwn() async throws {
        try await Self.withFleet(policy: SharedTierPolicy(sharesResults: false)) { fleet, fetcher in
            let (first, second) = (fleet[0], fleet[1])
            let counter = Counter()
            _ = try await first.image(for: Self.request(width: 40, counting: counter))
            await first.flush()
            let again = try await second.image(for: Self.request(width: 40, counting: counter))
            #expect(again.source == .shared)  // the source, from the tier
            #expect(counter.count == 2 && fetcher.count.withLock { $0 } == 1)
            #expect(first.sharedTierStatus?.tier.stores == 1, "only the source is stored")
        }
    }

    @Test func aResultThatFailsToMakeGivesTheLeaseBackAndIsNotStored() async throws {
        try await Self.withFleet { fleet, _ in
            let (first, second) = (fleet[0], fleet[1])
            var request = ImageRequest(url: Fixtures.image("coffee.png"))
            request.transforms = [Refusing()]
            await #expect(throws: TroveError.self) { try await first.image(for: request) }
            await first.flush()
            // The lease was given back: the next process does not wait out its time before failing too.
            let start = ContinuousClock.now
            await #expect(throws: TroveError.self) { try await second.image(for: request) }
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(second.sharedTierStatus?.leaseWaits == 0)
        }
    }

    @Test func forgettingASourceRemovesItsResultsFromTheSharedTierToo() async throws {
        try await Self.withFleet { fleet, fetcher in
            let (first, second) = (fleet[0], fleet[1])
            let counter = Counter()
            _ = try await first.image(for: Self.request(width: 40, counting: counter))
            _ = try await first.image(for: Self.request(width: 30, counting: counter))
            let report = await first.forget(url: Fixtures.image("coffee.png"))
            #expect(report.shared == 3, "the source and both results: \(report)")
            // Nothing left to find: another process fetches and makes the result again.
            let again = try await second.image(for: Self.request(width: 40, counting: counter))
            #expect(again.source == .network)
            #expect(counter.count == 3 && fetcher.count.withLock { $0 } == 2)
        }
    }

    @Test func aHolderThatStopsMidTransformHoldsTheFleetUpForTheResultLeaseOnly() async throws {
        // A fetch lease long enough to fail the test if it were the one taken on the result.
        let policy = SharedTierPolicy(leaseTTL: .seconds(60), resultLeaseTTL: .seconds(1))
        try await Self.withFleet(policy: policy) { fleet, _ in
            let (first, second) = (fleet[0], fleet[1])
            let hold = Hold()
            var request = ImageRequest(url: Fixtures.image("coffee.png"), transforms: [Holding(hold: hold)])
            request.outputFormat = .png
            let stuck = Task { try await first.image(for: request) }
            #expect(await eventually { hold.arrivals == 1 })

            // The first holds the result's lease and does not finish: the second waits out the lease's
            // second, then makes the result itself.
            let start = ContinuousClock.now
            let made = try await second.image(for: request)
            #expect(ContinuousClock.now - start < .seconds(8), "waited \(ContinuousClock.now - start)")
            #expect(hold.arrivals == 2 && made.image.width == 600, "the second did not make it itself")
            #expect(second.sharedTierStatus?.leaseWaits == 1)
            hold.open()
            _ = try await stuck.value
        }
    }
}
