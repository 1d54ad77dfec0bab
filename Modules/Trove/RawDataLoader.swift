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
    /// Where `events` come from.
    let activity: ActivityHub
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
        let activity = ActivityHub()
        self.activity = activity
        self.configuration = configuration.seedingCookies()
        self.registry = registry
        self.diskCache = diskCache
        let metrics = PipelineMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
        self.metrics = metrics
        logger = configuration.logger
        shared = sharedTier.map {
            SharedTierAccess(
                tier: $0, options: configuration.sharedTierOptions, policy: configuration.sharedTierPolicy,
                fetchTimeout: configuration.fetchTimeout, metrics: metrics, logger: configuration.logger,
                activity: activity)
        }
        diskCache?.observeStores { [activity] key, bytes in
            activity.send { .stored(cacheKey: key, tier: .disk, bytes: bytes) }
        }
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
        let fresh = isFresh(entry, maxAge: request.maxAge)
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

    /// Whether a cached entry may be used without asking the origin: younger than the request's own max
    /// age when it has one, else not past the expiry its response set.
    func isFresh(_ entry: DiskEntry, maxAge: Duration?, now: Date = Date()) -> Bool {
        if let maxAge { return now.timeIntervalSince(entry.metadata.created) < maxAge.timeInterval }
        return entry.metadata.expires.map { $0 > now } ?? true
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
        } catch  where Self.isOriginFailure(error) && isWithinStaleBound(entry) {
            guard mayDeliverUnrevalidated(entry) else {
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

    /// A failure of the origin that a stale copy may stand in for: what a retry could fix, a request that
    /// ran out of time, or a certificate that stopped passing its check (an expired one, say). A refused
    /// handshake carries no bytes, so the copy served is one fetched earlier, under the TLS options of the
    /// process that fetched it (entries do not record them). Never a lasting answer such as 404, nor a
    /// cancellation.
    static func isOriginFailure(_ error: any Error) -> Bool {
        switch error as? TroveError {
        case .deadlineExceeded?, .untrustedCertificate?: return true
        default: return RetryPolicy.isTransient(error)
        }
    }

    private func isWithinStaleBound(_ entry: DiskEntry, now: Date = Date()) -> Bool {
        now.timeIntervalSince(staleSince(entry)) < configuration.staleIfErrorBound.timeInterval
    }

    /// When the entry's response stops being fresh: its expiry, else the disk's max age.
    private func staleSince(_ entry: DiskEntry) -> Date {
        entry.metadata.expires ?? entry.metadata.created.addingTimeInterval(configuration.disk.maxAge.timeInterval)
    }

    /// Whether the entry may be delivered without a successful revalidation: always while its response is
    /// fresh, and once stale only when the response did not say must-revalidate (RFC 9111 §4.2.4).
    func mayDeliverUnrevalidated(_ entry: DiskEntry, now: Date = Date()) -> Bool {
        !entry.metadata.mustRevalidate || staleSince(entry) > now
    }

    /// Whether a response received now must be revalidated once stale, by its headers unless the
    /// configuration ignores them.
    func mustRevalidate(_ metadata: ResponseMetadata) -> Bool {
        directives(of: metadata).mustRevalidate
    }

    /// The response's caching directives as this pipeline hears them: none when it ignores cache headers.
    private func directives(of metadata: ResponseMetadata) -> CacheDirectives {
        configuration.ignoresCacheHeaders ? .none : metadata.directives
    }

    /// When a response received now stops being fresh (nil: never, within the disk's max age), and whether
    /// it may be stored at all, by its headers unless the configuration ignores them.
    func freshness(of metadata: ResponseMetadata, now: Date = Date()) -> (expires: Date?, storable: Bool) {
        let directives = directives(of: metadata)
        let lifetime = directives.freshness ?? configuration.defaultFreshness
        return (lifetime.map { now.addingTimeInterval($0.timeInterval) }, !directives.noStore)
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
            let writer = diskCache.entryWriter(forKey: request.key)
            do {
                let outcome = try await fetcher.fetch(fetchRequest, into: writer, progress: progress)
                if case let .streamed(_, length) = outcome {
                    self.metrics.record(.bytesFetched(length))
                    self.activity.downloaded(request.url, key: request.key, bytes: length)
                }
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
        let (expires, storable) = freshness(of: metadata)
        let result = RawResult(
            data: Data(), source: .network, contentType: metadata.contentType, expires: expires, storable: storable,
            streamedLength: length)
        guard storable else {
            // no-store now: an older copy (a revalidated entry) must not outlive this answer.
            writer.discard()
            _ = try? await diskCache.removeEntry(forKey: request.key)
            return result
        }
        // Write-behind, as a store of fetched bytes is: reads of the key wait for it, flush() too.
        await writer.commit(
            metadata: DiskEntryMetadata(
                validators: metadata.validators, contentType: metadata.contentType,
                expires: expires, mustRevalidate: mustRevalidate(metadata)))
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
        guard let entry = try await shared.entry(forKey: request.key), isFresh(entry, maxAge: request.maxAge) else {
            return nil
        }
        // Another pipeline stored it: bytes this one refuses (no decoder for them) are not served from here.
        if let accept, (try? accept(entry.data, request.url)) == nil { return nil }
        if request.policy != .memoryOnly, let diskCache {
            do {
                try await diskCache.store(entry.data, forKey: request.key, metadata: entry.metadata)
            } catch {
                logger.warning("disk cache write failed", metadata: ["key": "\(request.key)", "error": "\(error)"])
            }
        }
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
                var refreshed = entry.metadata
                refreshed.created = Date()
                refreshed.expires = self.freshness(of: response, now: refreshed.created).expires
                if !response.validators.isEmpty { refreshed.validators = response.validators }
                // A 304's Cache-Control replaces the stored one; without one the stored directive stands.
                if response.cacheControl != nil { refreshed.mustRevalidate = self.mustRevalidate(response) }
                _ = try? await self.diskCache?.updateMetadata(forKey: request.key, refreshed)
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
            self.activity.finished(request.url, key: request.key, outcome)
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
            activity.failed(url, key: request.key, error)
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
        var (expires, storable) = freshness(of: metadata)
        if !request.usesCaches { storable = false }
        let entryMetadata = DiskEntryMetadata(
            validators: metadata.validators, contentType: metadata.contentType,
            expires: expires, mustRevalidate: mustRevalidate(metadata))
        if !storable {
            // no-store now: an older copy (a revalidated entry) must not outlive this answer.
            if request.usesCaches { _ = try? await diskCache?.removeEntry(forKey: request.key) }
        } else if request.policy != .memoryOnly, let diskCache {
            do {
                try await diskCache.store(data, forKey: request.key, metadata: entryMetadata)
            } catch {
                // The bytes are good; a full or failing disk must not fail the request.
                logger.warning("disk cache write failed", metadata: ["key": "\(request.key)", "error": "\(error)"])
            }
        }
        if storable, request.policy != .memoryOnly, let shared {
            // Shared for as long as the copy is fresh (no expiry: the disk's max age).
            let ttl =
                expires.map { Duration.milliseconds(Int64($0.timeIntervalSinceNow * 1000)) }
                ?? configuration.disk.maxAge
            try await shared.store(data, forKey: request.key, metadata: entryMetadata, ttl: ttl)
        }
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
