import Foundation
import Logging
import Synchronization
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// Stage 6, the origin: one network fetch per call, asked of the delegate, prepared (headers, validators,
/// timeouts, the deadline, cookies, TLS), retried on transient failures, each attempt in a scheduler slot.
/// What comes back is accepted (an image pipeline refuses bytes no decoder claims) and handed to the cache
/// writer; a prefetch's body streams into its disk entry instead.
package struct OriginStage: Sendable {
    let parts: PipelineParts

    /// One unconditional origin fetch for `job`'s waiters, accepted and stored.
    func fetch(_ request: RawRequest, job: JobHandle) async throws -> RawResult {
        let outcome = try await performFetch(request, validators: nil, job: job)
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
    func fetchIntoDisk(_ request: RawRequest, _ diskCache: DiskCache, job: JobHandle) async throws -> RawResult {
        let (writer, outcome) = try await performFetch(request, validators: nil, job: job) {
            fetcher, fetchRequest, progress in
            let writer = self.parts.cacheWriter.streamingEntry(forKey: request.key, in: diskCache)
            do {
                let outcome = try await fetcher.fetch(fetchRequest, into: writer, progress: progress)
                if case let .streamed(_, length) = outcome {
                    self.parts.metrics.record(.bytesFetched(length))
                    self.parts.activity.downloaded(request.url, key: request.key, bytes: length)
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
            try parts.accept?(writer.leadingBytes, request.url)
        } catch {
            writer.discard()
            parts.metrics.record(.failure(FailureKind(error)))
            await parts.failures.record(error, forKey: request.key, persists: request.policy != .memoryOnly)
            throw error
        }
        let (expires, storable) = parts.freshness.freshness(of: metadata)
        var result = RawResult(fetched: Data(), metadata, expires: expires, storable: storable)
        result.streamedLength = length
        // The body is in the request's own entry already: a response that varies stays there, answering
        // only requests that match it.
        var stored = parts.freshness.entryMetadata(for: metadata, expires: expires)
        if case let .fields(names) = Vary.names(in: metadata.headerFields) {
            stored.selecting = Vary.selecting(names, in: parts.sentHeaders(request.headers))
            result.selecting = stored.selecting
        }
        await parts.cacheWriter.commitStreamed(writer, metadata: storable ? stored : nil, key: request.key)
        return result
    }

    /// A conditional fetch with the entry's validators: a 304 updates the stored response's header fields
    /// from its own and its freshness from the fields so updated (RFC 9111 §4.3.4); a 200 is accepted and
    /// stored as any fetch.
    func revalidate(
        _ request: RawRequest, entry: DiskEntry, validators: Validators, job: JobHandle
    ) async throws -> Revalidation {
        switch try await performFetch(request, validators: validators, job: job) {
        case let .notModified(response):
            let (refreshed, storable) = parts.freshness.revalidated(entry.metadata, by: response)
            // The entry's own key: a variant's, when the response varies.
            await parts.cacheWriter.storeRevalidated(refreshed, storable: storable, forKey: entry.key)
            parts.logger.debug("revalidated: not modified", metadata: ["url": "\(request.url)"])
            return .notModified(refreshed)
        case let .data(data, metadata):
            return .modified(try await accepted(data, metadata: metadata, for: request))
        }
    }

    /// One network fetch: asks the delegate, then retries transient failures, each attempt in a scheduler slot
    /// at the job's priority, reporting to its waiters.
    private func performFetch(_ request: RawRequest, validators: Validators?, job: JobHandle) async throws
        -> FetchOutcome
    {
        try await performFetch(request, validators: validators, job: job) { fetcher, fetchRequest, progress in
            let outcome = try await fetcher.fetch(fetchRequest, progress: progress)
            if case let .data(data, _) = outcome { self.parts.metrics.record(.bytesFetched(data.count)) }
            self.parts.activity.finished(request.url, key: request.key, outcome)
            return outcome
        }
    }

    /// `performFetch` with each attempt made by `attempt` (given the fetcher, the prepared request and
    /// the progress reporter), e.g. a fetch into a disk entry.
    private func performFetch<Outcome: Sendable>(
        _ request: RawRequest, validators: Validators?, job: JobHandle,
        attempt:
            @escaping @Sendable (any Fetcher, FetchRequest, @escaping @Sendable (FetchProgress) -> Void)
            async throws -> Outcome
    ) async throws -> Outcome {
        let url = request.url
        // What came with a failed answer (a 404's headers), for how long the failure is remembered.
        let failedResponse = Mutex<ResponseMetadata?>(nil)
        do {
            if let delegate = parts.delegate, !(await delegate.shouldFetch(url)) {
                throw TroveError.fetchDeclined(url: url.absoluteString)
            }
            let fetcher = try parts.registry.fetcher(for: url)
            let deadline = RequestDeadline(budget: parts.configuration.requestDeadline)
            var fetchRequest = FetchRequest(
                url: url, headers: parts.sentHeaders(request.headers),
                validators: validators, timeout: parts.configuration.fetchTimeout,
                maxBytes: parts.configuration.maxBytes,
                deadline: deadline)
            fetchRequest.failedResponseObserver = { response in failedResponse.withLock { $0 = response } }
            fetchRequest.method = request.method
            fetchRequest.body = request.body
            fetchRequest.cookieStore = parts.configuration.cookieStore
            fetchRequest.tls = parts.configuration.tls
            if let delegate = parts.delegate { fetchRequest = try await delegate.prepare(fetchRequest) }
            let host = FetchScheduler.hostKey(for: url)
            let finalRequest = fetchRequest
            // A POST (or PATCH) is not repeated on its own: the origin may have acted on the first one.
            let retries = request.isIdempotent ? parts.configuration.retryPolicy : .none
            return try await withRetries(retries, deadline: deadline) { attemptNumber in
                if attemptNumber > 0 {
                    self.parts.logger.debug("retrying", metadata: ["url": "\(url)", "attempt": "\(attemptNumber)"])
                }
                // The wait before a retry may have used up the request's time.
                guard deadline.remaining > .zero else {
                    throw TroveError.deadlineExceeded(url: url.absoluteString, after: deadline.budget)
                }
                self.parts.metrics.record(.fetch)
                return try await self.parts.scheduler.run(host: host, ticket: job.ticket) {
                    try await job.observingPreviews(finalRequest) { prepared in
                        try await attempt(fetcher, prepared) { progress in job.report(progress) }
                    }
                }
            }
        } catch {
            parts.metrics.record(.failure(FailureKind(error)))
            parts.activity.failed(url, key: request.key, error)
            let remembered = parts.freshness.failureLifetime(
                of: failedResponse.withLock { $0 }, standard: parts.configuration.failedURLTTL)
            if request.usesCaches,
                await parts.failures.record(
                    error, forKey: request.key, persists: request.policy != .memoryOnly, lifetime: remembered)
            {
                parts.logger.info("remembering lasting failure", metadata: ["url": "\(url)", "error": "\(error)"])
            }
            throw error
        }
    }

    /// Checks fetched bytes and stores them on disk (unless the policy is memory-only).
    private func accepted(_ data: Data, metadata: ResponseMetadata, for request: RawRequest) async throws -> RawResult {
        do {
            try parts.accept?(data, request.url)
        } catch {
            parts.metrics.record(.failure(FailureKind(error)))
            await parts.failures.record(error, forKey: request.key, persists: request.policy != .memoryOnly)
            throw error
        }
        var (expires, storable) = parts.freshness.freshness(of: metadata)
        if !request.usesCaches { storable = false }
        // A part is kept nowhere and takes nothing with it: a stored whole response stays whole.
        let stored =
            metadata.statusCode == 206
            ? nil
            : try await parts.cacheWriter.storeFetched(
                data, metadata: parts.freshness.entryMetadata(for: metadata, expires: expires), storable: storable,
                for: request, headers: parts.sentHeaders(request.headers))
        var result = RawResult(fetched: data, metadata, expires: expires, storable: storable)
        result.selecting = stored?.selecting ?? []
        return result
    }
}
