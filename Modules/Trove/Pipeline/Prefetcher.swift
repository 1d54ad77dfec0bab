import Foundation
import Synchronization
import TroveCore

/// Where a prefetch stands: URLs done out of the total, and bytes: fetched bodies, and the stored size of
/// entries that were already cached.
public struct PrefetchProgress: Sendable, Equatable {
    /// URLs finished, succeeded or failed.
    public var done: Int
    /// URLs in the batch.
    public var total: Int
    /// Bytes so far: fetched bodies plus the stored sizes of entries already cached.
    public var bytes: Int
    /// The URL whose finishing this report is for.
    public var finished: PrefetchedURL
}

/// One URL of a prefetch, finished: where its bytes came from, or why it failed, and how long it took.
public struct PrefetchedURL: Sendable, Equatable {
    /// The URL as given.
    public var url: URL
    /// Where the bytes were found and how many; nil when it failed.
    public var item: PrefetchedItem?
    /// The error's description when it failed (a `TroveError`'s message when it is one); nil otherwise.
    public var error: String?
    /// From the URL's start to its end, waiting for a fetch slot included.
    public var duration: Duration
}

/// What a prefetch did: each URL counts once, as fetched (from the network), cached (already in memory or
/// on disk) or failed.
public struct PrefetchSummary: Sendable, Equatable, Codable {
    /// URLs given.
    public var total = 0
    /// URLs fetched from the network.
    public var fetched = 0
    /// URLs already cached: in memory, on disk, or in the shared tier.
    public var cached = 0
    /// Of `cached`, the URLs found in the fleet's shared tier (and now on this process's disk).
    public var shared = 0
    /// URLs that failed (see `failures`).
    public var failed = 0
    /// Fetched body bytes plus the stored sizes of entries already cached.
    public var bytes = 0
    /// The failed URLs with their error messages, in input order.
    public var failures: [Failure] = []

    /// One failed URL and why.
    public struct Failure: Sendable, Equatable, Codable {
        /// The URL as given (its absolute string).
        public var url: String
        /// The error's description (a `TroveError`'s message when it is one).
        public var error: String
    }
}

/// Warms a pipeline's caches for a list of URLs at low priority: the "offline download" of a batch.
/// By default it only fetches and stores bytes (no decoding); `.memory` decodes into the memory cache too.
/// Works on an `ImagePipeline` (bytes that are no image are refused) or a `DataPipeline` (any bytes).
/// Cancelling the task that runs `prefetch` cancels everything it queued.
public struct Prefetcher: Sendable {
    /// The pipeline whose caches are warmed.
    package let pipeline: any PrefetchTarget
    /// Requests in flight at once (the pipeline's scheduler still bounds the fetches).
    public var concurrency: Int
    /// The scheduling priority of the fetches (low, so a user's own requests go first).
    public var priority: RequestPriority
    /// Disk only (the default), or memory too.
    public var destination: PrefetchDestination
    /// Fetch URLs remembered as failing for a lasting reason (404, not an image) again, instead of counting
    /// them failed at once (`previouslyFailed`).
    public var retryFailed: Bool

    /// A prefetcher for images. Defaults: 6 URLs at once (values below 1 become 1), `.low` priority, disk
    /// only, remembered failures not retried.
    public init(
        pipeline: ImagePipeline, concurrency: Int = 6, priority: RequestPriority = .low,
        destination: PrefetchDestination = .disk, retryFailed: Bool = false
    ) {
        self.init(
            target: pipeline, concurrency: concurrency, priority: priority, destination: destination,
            retryFailed: retryFailed)
    }

    /// A prefetcher for plain data, with the same defaults.
    public init(
        pipeline: DataPipeline, concurrency: Int = 6, priority: RequestPriority = .low,
        destination: PrefetchDestination = .disk, retryFailed: Bool = false
    ) {
        self.init(
            target: pipeline, concurrency: concurrency, priority: priority, destination: destination,
            retryFailed: retryFailed)
    }

    /// A prefetcher for any target, for the CLI (which picks the pipeline at run time) and tests.
    package init(
        target pipeline: any PrefetchTarget, concurrency: Int = 6, priority: RequestPriority = .low,
        destination: PrefetchDestination = .disk, retryFailed: Bool = false
    ) {
        self.pipeline = pipeline
        self.concurrency = max(1, concurrency)
        self.priority = priority
        self.destination = destination
        self.retryFailed = retryFailed
    }

    /// Warms every URL, `concurrency` at a time, calling `progress` after each one finishes (one call at a
    /// time, `done` counting up, naming the URL that finished, all before it returns), and returns once what it stored is on disk (it
    /// flushes the pipeline). Never throws: failures are in the summary. Once cancelled, it starts no more URLs.
    public func prefetch(_ urls: [URL], progress: @escaping @Sendable (PrefetchProgress) -> Void = { _ in })
        async -> PrefetchSummary
    {
        // Reports go through a stream to one task that calls `progress`, in order: a slow handler (a
        // paused terminal) holds up only that task, never the workers or the threads they run on.
        let (reports, reporter) = AsyncStream.makeStream(of: PrefetchProgress.self)
        let tally = PrefetchTally(total: urls.count, reporter: reporter)
        let (pipeline, priority, destination, retryFailed) = (pipeline, priority, destination, retryFailed)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await report in reports { progress(report) }
            }
            // `concurrency` workers, each taking the next URL until none is left: a batch of hundreds costs
            // no task, and no wake of a collecting task, per URL.
            await withTaskGroup(of: Void.self) { workers in
                for _ in 0..<min(concurrency, urls.count) {
                    workers.addTask {
                        while !Task.isCancelled, let index = tally.takeNext() {
                            let start = ContinuousClock.now
                            let result: Result<PrefetchedItem, any Error>
                            do {
                                result = .success(
                                    try await pipeline.prefetch(
                                        urls[index], priority: priority, destination: destination,
                                        retryFailed: retryFailed))
                            } catch {
                                result = .failure(error)
                            }
                            tally.record(result, of: urls[index], at: index, took: ContinuousClock.now - start)
                        }
                    }
                }
            }
            reporter.finish()
        }
        // An offline download is done when it is on disk, not when its writes are queued.
        await pipeline.flush()
        return tally.summary
    }
}

/// What a running prefetch has handed out and counted, shared by its workers.
private final class PrefetchTally: Sendable {
    private struct State {
        var summary: PrefetchSummary
        var failures: [(index: Int, failure: PrefetchSummary.Failure)] = []
        var next = 0
        var done = 0
    }

    private let state: Mutex<State>
    private let reporter: AsyncStream<PrefetchProgress>.Continuation

    init(total: Int, reporter: AsyncStream<PrefetchProgress>.Continuation) {
        state = Mutex(State(summary: PrefetchSummary(total: total)))
        self.reporter = reporter
    }

    /// The index of the next URL to warm, or nil when every one has been handed out.
    func takeNext() -> Int? {
        state.withLock { state in
            guard state.next < state.summary.total else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }

    /// Counts one finished URL and sends its progress report; under the lock, so reports queue in order.
    func record(_ result: Result<PrefetchedItem, any Error>, of url: URL, at index: Int, took duration: Duration) {
        state.withLock { state in
            state.done += 1
            var finished = PrefetchedURL(url: url, duration: duration)
            switch result {
            case let .success(item):
                if item.source == .network { state.summary.fetched += 1 } else { state.summary.cached += 1 }
                if item.source == .shared { state.summary.shared += 1 }
                state.summary.bytes += item.bytes
                finished.item = item
            case let .failure(error):
                state.summary.failed += 1
                let message = (error as? TroveError)?.description ?? String(describing: error)
                state.failures.append((index, .init(url: url.absoluteString, error: message)))
                finished.error = message
            }
            reporter.yield(
                PrefetchProgress(
                    done: state.done, total: state.summary.total, bytes: state.summary.bytes, finished: finished))
        }
    }

    /// The counts, with the failures in input order.
    var summary: PrefetchSummary {
        state.withLock { state in
            var summary = state.summary
            summary.failures = state.failures.sorted { $0.index < $1.index }.map(\.failure)
            return summary
        }
    }
}
