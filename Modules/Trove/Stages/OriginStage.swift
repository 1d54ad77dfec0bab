import Foundation
import Logging
import Synchronization
import Tracing
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// The origin: one network fetch per call for a job's waiters, asked of the delegate, prepared (headers,
/// validators, timeouts, the deadline, cookies, TLS), retried on transient failures, each attempt in a
/// scheduler slot at the job's priority. What comes back is accepted (an image pipeline refuses bytes no
/// decoder claims) and handed to the cache writer; a prefetch's body streams into its disk entry instead.
/// When tracing, the caller's `trove.fetch` span is sent to the origin (`traceparent`) and told each retry.
struct OriginStage: PipelineStage {
    /// Which fetch.
    enum Fetch: Sendable {
        /// The whole response, held in memory.
        case whole
        /// The whole response, its body written into its disk entry as it arrives (a prefetch).
        case intoDisk(DiskCache)
        /// A conditional fetch of a cached entry, with its validators.
        case revalidating(DiskEntry, Validators)
    }

    /// The pipeline's settings (timeouts, limits, retries, cookies, TLS, the delegate).
    let configuration: PipelineConfiguration
    let registry: PluginRegistry
    let headers: SentHeaders
    let scheduler: FetchScheduler
    let freshness: FreshnessPolicy
    let cacheWriter: CacheWriter
    let failures: FailureMemory
    /// An image pipeline's check that bytes decode; nil accepts any.
    let accept: AcceptCheck?
    let metrics: PipelineMetrics
    let activity: ActivityHub
    let logger: Logger
    let tracing: PipelineTracing

    /// One fetch; `span` is the caller's span for it (nil when not tracing).
    func run(_ input: (request: RawRequest, job: JobHandle, fetch: Fetch, span: (any Span)?)) async throws
        -> OriginAnswer
    {
        let (request, job, span) = (input.request, input.job, input.span)
        switch input.fetch {
        case .whole: return .fetched(try await fetch(request, job: job, span: span))
        case let .intoDisk(diskCache):
            return .fetched(try await fetchIntoDisk(request, diskCache, job: job, span: span))
        case let .revalidating(entry, validators):
            return try await revalidate(request, entry: entry, validators: validators, job: job, span: span)
        }
    }

    /// One unconditional origin fetch for `job`'s waiters, accepted and stored.
    private func fetch(_ request: RawRequest, job: JobHandle, span: (any Span)?) async throws -> RawResult {
        let outcome = try await performFetch(request, validators: nil, job: job, span: span)
        if case let .notModified(metadata) = outcome, request.asksConditionally, accept == nil {
            // A data request's own condition, forwarded on a miss, held at the origin: its 304 is the answer,
            // kept nowhere. (An image pipeline has no use for a 304: it fails as before, remembering nothing.)
            var result = RawResult(fetched: Data(), metadata, expires: nil, storable: false)
            result.status = 304
            return result
        }
        guard case let .data(data, metadata) = outcome else {
            throw TroveError.connectionFailed(
                url: request.url.absoluteString,
                reason: "the server answered 304 Not Modified to a request without validators")
        }
        return try await accepted(data, metadata: metadata, for: request)
    }

    /// One unconditional origin fetch whose body goes into the disk entry as it arrives (a prefetch), never
    /// held whole in memory; each attempt writes its own temp file, and one that fails leaves nothing. The
    /// bytes are checked (their first bytes: an image pipeline refuses what no decoder claims) and the
    /// entry is committed with the response's validators and freshness, or dropped for `no-store`. A disk
    /// that fails while the body streams fails the fetch (the bytes are nowhere else); the commit after it
    /// is write-behind, its failure logged and counted as a store's is.
    private func fetchIntoDisk(_ request: RawRequest, _ diskCache: DiskCache, job: JobHandle, span: (any Span)?)
        async throws -> RawResult
    {
        let (writer, outcome) = try await performFetch(request, validators: nil, job: job, span: span) {
            fetcher, fetchRequest, progress in
            let writer = cacheWriter.streamingEntry(forKey: request.key, in: diskCache)
            do {
                let outcome = try await fetcher.fetch(fetchRequest, into: writer, progress: progress)
                if case let .streamed(_, length) = outcome {
                    metrics.record(.bytesFetched(length))
                    activity.downloaded(request.url, key: request.key, bytes: length)
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
            _ = try accept?(writer.leadingBytes, request.url)
        } catch {
            writer.discard()
            metrics.record(.failure(FailureKind(error)))
            await failures.record(error, forKey: request.key, persists: request.policy != .memoryOnly)
            throw error
        }
        let (expires, storable) = freshness.freshness(of: metadata)
        var result = RawResult(fetched: Data(), metadata, expires: expires, storable: storable)
        result.streamedLength = length
        // The body is in the request's own entry already: a response that varies stays there, answering
        // only requests that match it.
        var stored = freshness.entryMetadata(for: metadata, expires: expires)
        if case let .fields(names) = Vary.names(in: metadata.headerFields) {
            stored.selecting = Vary.selecting(names, in: headers(request.headers))
            result.selecting = stored.selecting
        }
        await cacheWriter.commitStreamed(writer, metadata: storable ? stored : nil, key: request.key)
        return result
    }

    /// A conditional fetch with the entry's validators: a 304 updates the stored response's header fields
    /// from its own and its freshness from the fields so updated (RFC 9111 §4.3.4); a 200 is accepted and
    /// stored as any fetch.
    private func revalidate(
        _ request: RawRequest, entry: DiskEntry, validators: Validators, job: JobHandle, span: (any Span)?
    ) async throws -> OriginAnswer {
        switch try await performFetch(request, validators: validators, job: job, span: span) {
        case let .notModified(response):
            let (refreshed, storable) = freshness.revalidated(entry.metadata, by: response)
            // The entry's own key: a variant's, when the response varies.
            await cacheWriter.storeRevalidated(refreshed, storable: storable, forKey: entry.key)
            logger.debug("revalidated: not modified", metadata: ["url": .redacted(request.url)])
            return .notModified(refreshed)
        case let .data(data, metadata):
            return .fetched(try await accepted(data, metadata: metadata, for: request))
        }
    }

    /// One network fetch: asks the delegate, then retries transient failures, each attempt in a scheduler slot
    /// at the job's priority, reporting to its waiters.
    private func performFetch(_ request: RawRequest, validators: Validators?, job: JobHandle, span: (any Span)?)
        async throws -> FetchOutcome
    {
        try await performFetch(request, validators: validators, job: job, span: span) {
            fetcher, fetchRequest, progress in
            let outcome = try await fetcher.fetch(fetchRequest, progress: progress)
            if case let .data(data, _) = outcome { metrics.record(.bytesFetched(data.count)) }
            activity.finished(request.url, key: request.key, outcome)
            return outcome
        }
    }

    /// `performFetch` with each attempt made by `attempt` (given the fetcher, the prepared request and
    /// the progress reporter), e.g. a fetch into a disk entry.
    private func performFetch<Outcome: Sendable>(
        _ request: RawRequest, validators: Validators?, job: JobHandle, span: (any Span)?,
        attempt:
            @escaping @Sendable (any Fetcher, FetchRequest, @escaping @Sendable (FetchProgress) -> Void)
            async throws -> Outcome
    ) async throws -> Outcome {
        let url = request.url
        // What came with a failed answer (a 404's headers), for how long the failure is remembered.
        let failedResponse = Mutex<ResponseMetadata?>(nil)
        do {
            if let delegate = configuration.delegate, !(await delegate.shouldFetch(url)) {
                throw TroveError.fetchDeclined(url: url.absoluteString)
            }
            let fetcher = try registry.fetcher(for: url)
            let deadline = RequestDeadline(budget: configuration.requestDeadline)
            var sent = headers(request.headers)
            // A revalidation asks with the stored validators alone: the client's own conditions are judged
            // against the answer afterwards (`DataResponse.notModified(answering:)`).
            if validators != nil { sent = sent.filter { !HTTPConditions.isConditionField($0.key) } }
            var fetchRequest = FetchRequest(
                url: url, headers: sent,
                validators: validators, timeout: configuration.fetchTimeout,
                maxBytes: configuration.maxBytes,
                deadline: deadline)
            fetchRequest.failedResponseObserver = { response in failedResponse.withLock { $0 = response } }
            fetchRequest.method = request.method
            fetchRequest.body = request.body
            fetchRequest.cookieStore = configuration.cookieStore
            fetchRequest.tls = configuration.tls
            // Before the delegate's `prepare`, which sees the request as it will be sent.
            tracing.inject(span, into: &fetchRequest.headers)
            if let delegate = configuration.delegate { fetchRequest = try await delegate.prepare(fetchRequest) }
            let host = FetchScheduler.hostKey(for: url)
            let finalRequest = fetchRequest
            // A POST (or PATCH) is not repeated on its own: the origin may have acted on the first one.
            let retries = request.isIdempotent ? configuration.retryPolicy : .none
            // Each retry is an event of the fetch's span.
            let onRetry: @Sendable (Int, any Error, Duration) -> Void = { attempt, error, delay in
                span?.recordRetry(after: attempt, error, delay: delay)
            }
            return try await withRetries(retries, deadline: deadline, onRetry: onRetry) { attemptNumber in
                if attemptNumber > 0 {
                    logger.debug("retrying", metadata: ["url": .redacted(url), "attempt": "\(attemptNumber)"])
                }
                // The wait before a retry may have used up the request's time.
                guard deadline.remaining > .zero else {
                    throw TroveError.deadlineExceeded(url: url.absoluteString, after: deadline.budget)
                }
                metrics.record(.fetch)
                return try await scheduler.run(host: host, ticket: job.ticket) {
                    try await job.observingBody(finalRequest) { prepared in
                        try await attempt(fetcher, prepared) { progress in job.report(progress) }
                    }
                }
            }
        } catch {
            metrics.record(.failure(FailureKind(error)))
            activity.failed(url, key: request.key, error)
            let response = failedResponse.withLock { $0 }
            let remembered = freshness.failureLifetime(of: response, standard: configuration.failedURLTTL)
            if request.usesCaches,
                await failures.record(
                    error, forKey: request.key, persists: request.policy != .memoryOnly, lifetime: remembered,
                    lasting: freshness.remembers(error, response: response))
            {
                logger.info("remembering lasting failure", metadata: ["url": .redacted(url), "error": .redacted(error)])
            }
            throw error
        }
    }

    /// Checks fetched bytes and stores them on disk (unless the policy is memory-only); the decoder the check
    /// found rides on with them.
    private func accepted(_ data: Data, metadata: ResponseMetadata, for request: RawRequest) async throws -> RawResult {
        let decoder: (any ImageDecoder)?
        do {
            decoder = try accept?(data, request.url)
        } catch {
            metrics.record(.failure(FailureKind(error)))
            await failures.record(error, forKey: request.key, persists: request.policy != .memoryOnly)
            throw error
        }
        var (expires, storable) = freshness.freshness(of: metadata)
        if !request.usesCaches || request.asked.noStore { storable = false }
        // A part is kept nowhere and takes nothing with it: a stored whole response stays whole.
        let stored =
            metadata.statusCode == 206
            ? nil
            : try await cacheWriter.storeFetched(
                data, metadata: freshness.entryMetadata(for: metadata, expires: expires), storable: storable,
                for: request, headers: headers(request.headers))
        var result = RawResult(fetched: data, metadata, expires: expires, storable: storable)
        result.selecting = stored?.selecting ?? []
        result.decoder = decoder
        return result
    }
}
