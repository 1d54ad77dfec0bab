import CoreMetrics
import Foundation
import Logging
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// Gets the raw bytes behind a request: the disk cache, else the fleet's shared tier (when configured), else
/// the network. Network work is scheduled (bounded concurrency, priorities), retried on transient failures,
/// coalesced per raw key (and across the fleet by a lease in the shared tier), and stored on disk and in
/// the shared tier when it is accepted. Shared by `ImagePipeline` and `DataPipeline`.
final class RawDataLoader: Sendable {
    let configuration: PipelineConfiguration
    let registry: PluginRegistry
    let diskCache: DiskCache?
    /// Nil when the configuration names no shared tier.
    let shared: SharedTierAccess?
    let scheduler: FetchScheduler
    let failures: FailureMemory
    let metrics: PipelineMetrics
    let logger: Logger
    /// The HTTP caching rules every tier is judged by.
    let freshness: FreshnessPolicy
    /// The only code that stores or removes an entry, in any tier.
    let cacheWriter: CacheWriter
    private let delegate: (any PipelineDelegate)?
    /// Decides whether fetched bytes may be cached (an image pipeline refuses bytes no decoder claims);
    /// nil accepts any bytes, and then failures about content (not an image) remembered by an image
    /// pipeline on the same directory do not apply.
    private let accept: (@Sendable (Data, URL) throws -> Void)?
    // Both start on the caller's thread: a fetch does a few microseconds of bookkeeping, then waits on the network.
    private let fetches = TaskCoalescer<WorkKey, RawResult>(startsImmediately: true)
    private let revalidations = TaskCoalescer<WorkKey, Revalidation>(startsImmediately: true)
    let jobs = FetchJobs()

    init(
        configuration: PipelineConfiguration, registry: PluginRegistry, diskCache: DiskCache?,
        sharedTier: (any SharedCacheTier)? = nil, accept: (@Sendable (Data, URL) throws -> Void)?
    ) {
        for host in configuration.tls.insecureHosts.sorted() {
            configuration.logger.warning(
                "TLS certificates of this host are not verified (tls.insecureHosts)", metadata: ["host": "\(host)"])
        }
        self.configuration = configuration
        self.registry = registry
        self.diskCache = diskCache
        let metrics = PipelineMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
        self.metrics = metrics
        logger = configuration.logger
        freshness = FreshnessPolicy(configuration)
        shared = sharedTier.map {
            SharedTierAccess(
                tier: $0, options: configuration.sharedTierOptions, policy: configuration.sharedTierPolicy,
                fetchTimeout: configuration.fetchTimeout, metrics: metrics, logger: configuration.logger)
        }
        cacheWriter = CacheWriter(
            diskCache: diskCache, shared: shared, freshness: freshness, logger: configuration.logger)
        self.delegate = configuration.delegate
        self.accept = accept
        scheduler = FetchScheduler(configuration: configuration.scheduler)
        failures = FailureMemory(ttl: configuration.failedURLTTL, cacheDirectory: diskCache?.directory)
    }

    /// A memory hit for a policy that may read the cache, marked as coming from memory, with the tier's
    /// hit or miss counted. `reload` and `refresh` never answer from memory here.
    func memoryHit<Response: CachedResponse>(
        _ cache: MemoryCache<String, Response>, key: String,
        policy: CachePolicy, maxAge: Duration? = nil
    ) -> Response? {
        // A request's own max age is judged against the disk entry's date, which memory does not keep.
        guard policy != .reloadIgnoringCache, policy != .refresh, maxAge == nil else { return nil }
        guard var hit = cache.value(forKey: key) else {
            metrics.record(.miss(.memory))
            return nil
        }
        metrics.record(.hit(.memory))
        hit.source = .memory
        return hit
    }

    /// The cached bytes for a key, or nil. A disk that cannot be read counts as a miss, not a failure:
    /// the network can still serve the request.
    func cached(_ key: String, includingStale: Bool = false) async -> DiskEntry? {
        guard let diskCache else { return nil }
        do {
            let entry = try await diskCache.entry(forKey: key, includingStale: includingStale)
            metrics.record(entry == nil ? .miss(.disk) : .hit(.disk))
            return entry
        } catch {
            logger.warning("disk cache read failed", metadata: ["key": "\(key)", "error": "\(error)"])
            metrics.record(.miss(.disk))
            return nil
        }
    }

    /// Disk first (unless reloading), then the network (unless cache-only). A fresh entry is used as is; a
    /// stale one is revalidated (or fetched again when it has no validators), and delivered marked stale if
    /// the origin fails for a transient reason. Offline (`cacheOnly`), whatever is cached is delivered.
    func load(_ request: RawRequest) async throws -> RawResult {
        guard request.policy != .reloadIgnoringCache,
            let entry = await cached(request.key, includingStale: true)
        else {
            if request.policy == .cacheOnly { throw TroveError.notCached(key: request.key) }
            return try await fetch(request)
        }
        let fresh = freshness.isFresh(entry, maxAge: request.maxAge)
        if fresh || request.policy == .cacheOnly { return RawResult(entry, isStale: !fresh) }
        return try await deliveringStaleOnFailure(entry, for: request) {
            switch try await self.revalidate(request, entry: entry) {
            case let .notModified(expires)?:
                var result = RawResult(entry)
                result.expires = expires
                return result
            case let .modified(result)?: return result
            case nil: return try await self.fetch(request)
            }
        }
    }

    /// Runs `work` (a revalidation or fetch of a cached entry); if it fails for a transient reason while the
    /// entry is within the staleness bound, delivers the entry marked stale instead of the error. A stale
    /// must-revalidate entry is never delivered so: the origin's error is thrown.
    func deliveringStaleOnFailure(
        _ entry: DiskEntry, for request: RawRequest,
        _ work: () async throws -> RawResult
    ) async throws -> RawResult {
        do {
            return try await work()
        } catch  where FreshnessPolicy.isOriginFailure(error) && freshness.isWithinStaleBound(entry) {
            guard freshness.mayDeliverUnrevalidated(entry) else {
                logger.info(
                    "origin failed; the cached copy is stale and must-revalidate, so it is not delivered",
                    metadata: ["url": "\(request.url)", "error": "\(error)"])
                throw error
            }
            logger.warning(
                "origin failed; delivering the stale cached copy",
                metadata: ["url": "\(request.url)", "error": "\(error)"])
            metrics.record(.staleDelivered)
            return RawResult(entry, isStale: true)
        }
    }

    /// Fetches (from the shared tier when it has the key, unless reloading or refreshing, else from the
    /// origin); concurrent callers for the same key share one fetch.
    func fetch(_ request: RawRequest) async throws -> RawResult {
        if request.usesCaches { try await checkRememberedFailure(request) }
        let result: RawResult
        do {
            result = try await sharedFetch(request)
        } catch let error as TroveError where !request.streamsToDisk && error.isDiskFailure {
            // Joined a prefetch whose body was streaming to a failing disk: the bytes went nowhere, but this
            // caller needs no disk, and a failing disk must not fail a request (see `accepted`).
            return try await fetchFromOrigin(request)
        }
        guard result.streamedLength != nil, !request.streamsToDisk else { return result }
        // This caller joined a prefetch that sent the body straight to disk: its bytes are read back there.
        if result.storable, let entry = try? await diskCache?.entry(forKey: request.key) {
            return RawResult(
                data: entry.data, source: .network, contentType: entry.metadata.contentType,
                expires: entry.metadata.expires)
        }
        // Not kept (no-store), or gone already: fetched again for this caller.
        return try await fetchFromOrigin(request)
    }

    /// The fetch concurrent callers of one key share: from the shared tier when it has the key (unless
    /// reloading or refreshing), into the disk entry for a streaming prefetch, else from the origin.
    private func sharedFetch(_ request: RawRequest) async throws -> RawResult {
        try await joined(request, coalescer: fetches, coalescingKey: WorkKey(request.key, request.fetchKind)) {
            if let shared = self.shared, request.usesCaches, request.policy != .reloadIgnoringCache,
                request.policy != .refresh
            {
                return try await self.fetchThroughSharedTier(request, shared)
            }
            if request.streamsToDisk, let diskCache = self.diskCache {
                return try await self.fetchIntoDisk(request, diskCache)
            }
            return try await self.fetchFromOrigin(request)
        }
    }

    /// One unconditional origin fetch whose body goes into the disk entry as it arrives (a prefetch), never
    /// held whole in memory; each attempt writes its own temp file, and one that fails leaves nothing. The
    /// bytes are checked (their first bytes: an image pipeline refuses what no decoder claims) and the
    /// entry is committed with the response's validators and freshness, or dropped for `no-store`. A disk
    /// that fails while the body streams fails the fetch (the bytes are nowhere else); the commit after it
    /// is write-behind, its failure logged and counted as a store's is.
    private func fetchIntoDisk(_ request: RawRequest, _ diskCache: DiskCache) async throws -> RawResult {
        let (writer, outcome) = try await performFetch(request, validators: nil) { fetcher, fetchRequest, progress in
            let writer = self.cacheWriter.streamingEntry(forKey: request.key, in: diskCache)
            do {
                let outcome = try await fetcher.fetch(fetchRequest, into: writer, progress: progress)
                if case let .streamed(_, length) = outcome { self.metrics.record(.bytesFetched(length)) }
                return (writer, outcome)
            } catch {
                writer.discard()
                throw error
            }
        }
        guard case let .streamed(metadata, length) = outcome else {
            writer.discard()
            throw TroveError.connectionFailed(
                url: request.url.absoluteString,
                reason: "the server answered 304 Not Modified to a request without validators")
        }
        do {
            try accept?(writer.leadingBytes, request.url)
        } catch {
            writer.discard()
            metrics.record(.failure(FailureKind(error)))
            await failures.record(error, forKey: request.key, persists: request.policy != .memoryOnly)
            throw error
        }
        let (expires, storable) = freshness.freshness(of: metadata)
        let result = RawResult(
            data: Data(), source: .network, contentType: metadata.contentType, expires: expires, storable: storable,
            streamedLength: length)
        await cacheWriter.commitStreamed(
            writer, metadata: storable ? freshness.entryMetadata(for: metadata, expires: expires) : nil,
            key: request.key)
        return result
    }

    /// One unconditional origin fetch, accepted and stored.
    private func fetchFromOrigin(_ request: RawRequest) async throws -> RawResult {
        let outcome = try await performFetch(request, validators: nil)
        guard case let .data(data, metadata) = outcome else {
            throw TroveError.connectionFailed(
                url: request.url.absoluteString,
                reason: "the server answered 304 Not Modified to a request without validators")
        }
        return try await accepted(data, metadata: metadata, for: request)
    }

    /// The shared tier, then the origin under the fleet-wide lease: the holder fetches and stores, the others
    /// poll for its value, taking the lease themselves once it is given back or expires (its holder died).
    /// A waiter goes to the origin on its own only after two lease times (a dead holder's lease, then its
    /// successor's fetch). An unavailable tier means straight to the origin.
    private func fetchThroughSharedTier(_ request: RawRequest, _ shared: SharedTierAccess) async throws -> RawResult {
        if let hit = try await sharedHit(request, shared) { return hit }
        let waitEnds = ContinuousClock.now + shared.leaseTTL * 2 + shared.policy.maxPollInterval * 2
        var delay = shared.policy.firstPollInterval
        var waited = false
        while true {
            switch try await shared.acquireLease(on: request.key) {
            case .unavailable:
                return try await fetchFromOrigin(request)
            case let .acquired(lease):
                do {
                    // The previous holder may have stored the value between the miss above and this lease.
                    let result: RawResult
                    if let hit = try await sharedHit(request, shared) {
                        result = hit
                    } else {
                        result = try await fetchFromOrigin(request)
                    }
                    await shared.release(lease)
                    return result
                } catch {
                    await shared.release(lease)
                    throw error
                }
            case .heldElsewhere:
                if !waited {
                    waited = true
                    shared.recordLeaseWait()
                }
                guard ContinuousClock.now < waitEnds else {
                    logger.info(
                        "shared tier lease outlived its time; fetching without it",
                        metadata: ["url": "\(request.url)"])
                    return try await fetchFromOrigin(request)
                }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, shared.policy.maxPollInterval)
                if let hit = try await sharedHit(request, shared) { return hit }
            }
        }
    }

    /// A fresh, verified entry from the shared tier, stored on disk (unless memory-only) on the way.
    private func sharedHit(_ request: RawRequest, _ shared: SharedTierAccess) async throws -> RawResult? {
        guard let entry = try await shared.entry(forKey: request.key), freshness.isFresh(entry, maxAge: request.maxAge)
        else {
            return nil
        }
        // Another pipeline stored it: bytes this one refuses (no decoder for them) are not served from here.
        if let accept, (try? accept(entry.data, request.url)) == nil { return nil }
        await cacheWriter.storeFromShared(entry, for: request)
        return RawResult(
            data: entry.data, source: .shared, contentType: entry.metadata.contentType,
            expires: entry.metadata.expires)
    }

    /// Asks the origin whether the cached entry is still current, using its stored validators.
    /// Nil when the entry has no validators to ask with.
    func revalidate(_ request: RawRequest, entry: DiskEntry) async throws -> Revalidation? {
        let validators = entry.metadata.validators
        guard !validators.isEmpty else { return nil }
        return try await joined(
            request, coalescer: revalidations,
            coalescingKey: WorkKey(request.key, .revalidate)
        ) {
            switch try await self.performFetch(request, validators: validators) {
            case let .notModified(response):
                let refreshed = self.freshness.revalidated(entry.metadata, by: response)
                await self.cacheWriter.storeRevalidated(refreshed, forKey: request.key)
                self.logger.debug("revalidated: not modified", metadata: ["url": "\(request.url)"])
                return .notModified(expires: refreshed.expires)
            case let .data(data, metadata):
                return .modified(try await self.accepted(data, metadata: metadata, for: request))
            }
        }
    }

    func setPriority(_ priority: RequestPriority, forKey key: String, waiter: UInt64) {
        jobs.setPriority(priority, forKey: WorkKey(key), waiter: waiter)
        jobs.setPriority(priority, forKey: WorkKey(key, .alone(waiter: waiter)), waiter: waiter)
    }

    // MARK: - Steps

    private func checkRememberedFailure(_ request: RawRequest) async throws {
        if request.retryFailed {
            await failures.forget(request.key)
        } else if let failure = await failures.failure(of: request.key), accept != nil || !failure.isAboutContent {
            metrics.record(.failure(.previouslyFailed))
            throw TroveError.previouslyFailed(url: request.url.absoluteString, cause: failure.cause, ago: failure.ago)
        }
    }

    /// Registers the caller's progress handler and priority with the job for the key, then joins the work.
    private func joined<Value: Sendable>(
        _ request: RawRequest, coalescer: TaskCoalescer<WorkKey, Value>, coalescingKey: WorkKey,
        work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        jobs.join(
            coalescingKey, waiter: request.waiter, priority: request.priority, progress: request.progress,
            previews: request.previews)
        defer { jobs.leave(coalescingKey, waiter: request.waiter) }
        return try await coalescer.value(forKey: coalescingKey, onJoin: recordJoin, work: work)
    }

    /// Counts a caller that joined work already in flight (raw or processed).
    @Sendable func recordJoin() {
        metrics.record(.coalescedJoin)
    }

    /// One network fetch: asks the delegate, then retries transient failures, each attempt in a scheduler slot.
    private func performFetch(_ request: RawRequest, validators: Validators?) async throws -> FetchOutcome {
        try await performFetch(request, validators: validators) { fetcher, fetchRequest, progress in
            let outcome = try await fetcher.fetch(fetchRequest, progress: progress)
            if case let .data(data, _) = outcome { self.metrics.record(.bytesFetched(data.count)) }
            return outcome
        }
    }

    /// `performFetch` with each attempt made by `attempt` (given the fetcher, the prepared request and
    /// the progress reporter), e.g. a fetch into a disk entry.
    private func performFetch<Outcome: Sendable>(
        _ request: RawRequest, validators: Validators?,
        attempt:
            @escaping @Sendable (any Fetcher, FetchRequest, @escaping @Sendable (FetchProgress) -> Void)
            async throws -> Outcome
    ) async throws -> Outcome {
        let url = request.url
        // A conditional fetch is separate work from a plain fetch of the same key: its outcome differs.
        let jobKey = WorkKey(request.key, validators == nil ? request.fetchKind : .revalidate)
        do {
            if let delegate, !(await delegate.shouldFetch(url)) {
                throw TroveError.fetchDeclined(url: url.absoluteString)
            }
            let fetcher = try registry.fetcher(for: url)
            let deadline = RequestDeadline(budget: configuration.requestDeadline)
            var fetchRequest = FetchRequest(
                url: url, headers: configuration.headers.merging(request.headers) { _, own in own },
                validators: validators, timeout: configuration.fetchTimeout, maxBytes: configuration.maxBytes,
                deadline: deadline)
            fetchRequest.method = request.method
            fetchRequest.body = request.body
            fetchRequest.cookieStore = configuration.cookieStore
            fetchRequest.tls = configuration.tls
            if let delegate { fetchRequest = try await delegate.prepare(fetchRequest) }
            let ticket = jobs.ticket(for: jobKey) ?? SchedulerTicket(priority: request.priority)
            let host = FetchScheduler.hostKey(for: url)
            let finalRequest = fetchRequest
            // A POST (or PATCH) is not repeated on its own: the origin may have acted on the first one.
            let retries = request.isIdempotent ? configuration.retryPolicy : .none
            return try await withRetries(retries, deadline: deadline) { attemptNumber in
                if attemptNumber > 0 {
                    self.logger.debug("retrying", metadata: ["url": "\(url)", "attempt": "\(attemptNumber)"])
                }
                // The wait before a retry may have used up the request's time.
                guard deadline.remaining > .zero else {
                    throw TroveError.deadlineExceeded(url: url.absoluteString, after: deadline.budget)
                }
                self.metrics.record(.fetch)
                return try await self.scheduler.run(host: host, ticket: ticket) {
                    try await self.jobs.observingPreviews(forKey: jobKey, finalRequest) { prepared in
                        try await attempt(fetcher, prepared) { progress in self.jobs.report(progress, forKey: jobKey) }
                    }
                }
            }
        } catch {
            metrics.record(.failure(FailureKind(error)))
            if request.usesCaches,
                await failures.record(error, forKey: request.key, persists: request.policy != .memoryOnly)
            {
                logger.info("remembering lasting failure", metadata: ["url": "\(url)", "error": "\(error)"])
            }
            throw error
        }
    }

    /// Checks fetched bytes and stores them on disk (unless the policy is memory-only).
    private func accepted(_ data: Data, metadata: ResponseMetadata, for request: RawRequest) async throws -> RawResult {
        do {
            try accept?(data, request.url)
        } catch {
            metrics.record(.failure(FailureKind(error)))
            await failures.record(error, forKey: request.key, persists: request.policy != .memoryOnly)
            throw error
        }
        var (expires, storable) = freshness.freshness(of: metadata)
        if !request.usesCaches { storable = false }
        try await cacheWriter.storeFetched(
            data, metadata: freshness.entryMetadata(for: metadata, expires: expires), storable: storable,
            for: request)
        return RawResult(
            data: data, source: .network, contentType: metadata.contentType, expires: expires,
            storable: storable)
    }
}

extension TroveError {
    /// A failure of the local disk (full, or an I/O error), as opposed to the origin's or the bytes'.
    var isDiskFailure: Bool {
        switch self {
        case .diskFull, .ioFailed: true
        default: false
        }
    }
}
