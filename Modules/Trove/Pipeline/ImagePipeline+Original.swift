import Foundation
import Tracing
import TroveCore
import TroveDiskCache

// The original's bytes, read top to bottom: the original on disk, else the failure memory and one fetch per
// key (`fetches`) from the shared tier, else the origin. A stale entry is revalidated, and delivered marked
// stale when the origin fails transiently (stale-if-error), or at once while its revalidation runs behind it
// (stale-while-revalidate). `DataPipeline` loads its bytes here too, through an image pipeline that stops at
// them (`ImagePipeline.Loading.bytes`).
extension ImagePipeline {
    /// The bytes as the request's policy allows: from disk (revalidated when stale), else fetched.
    /// `cacheOnly` never fetches.
    func original(_ request: RawRequest) async throws -> RawResult {
        let found = try await parts.tracing.span("trove.original_disk") { span in
            let found = try await originalDisk.run(request)
            span?.record(found)
            return found
        }
        switch found {
        case let .answer(result): return result
        case let .stale(entry) where parts.freshness.mayServeWhileRevalidating(entry, for: request):
            revalidateBehind(entry, for: request)
            return RawResult(entry, isStale: true)
        case let .stale(entry): return try await revalidating(entry, for: request)
        case .nothing: return try await fetch(request)
        }
    }

    /// Revalidates an entry delivered stale, after its caller has it: at low priority, as a waiter of its
    /// own, tracked so `flush()` waits for it. Its 304 or 200 updates the tiers as any revalidation does;
    /// a failure leaves the entry as it was.
    private func revalidateBehind(_ entry: DiskEntry, for request: RawRequest) {
        var behind = request
        behind.waiter = JobWaiter(priority: .low, url: request.url)
        parts.cacheWriter.background.run { [self, behind] in
            // Its spans are roots of their own: the caller's span has ended by the time they start.
            await ServiceContext.withValue(ServiceContext.topLevel) {
                do {
                    if try await revalidate(behind, entry: entry) == nil { _ = try await fetch(behind) }
                } catch {
                    parts.logger.info(
                        "revalidation behind a stale answer failed; the entry stays as it was",
                        metadata: ["url": .redacted(behind.url), "error": .redacted(error)])
                }
            }
        }
    }

    /// The failure memory (a URL that failed for a lasting reason fails fast), then one fetch per key however
    /// many ask: from the shared tier when it has the key (unless reloading or refreshing), else the origin.
    func fetch(_ request: RawRequest) async throws -> RawResult {
        if request.usesCaches { try await checkRememberedFailure(request) }
        let result: RawResult
        do {
            result = try await sharedFetch(request)
        } catch let error as TroveError where !request.streamsToDisk && error.isDiskFailure {
            // Joined a prefetch whose body was streaming to a failing disk: the bytes went nowhere, but this
            // caller needs no disk, and a failing disk must not fail a request (see `OriginStage.accepted`).
            return try await fromOrigin(request, job: JobHandle(request.waiter))
        }
        guard result.streamedLength != nil, !request.streamsToDisk else { return result }
        // This caller joined a prefetch that sent the body straight to disk: its bytes are read back there.
        if result.storable, let entry = await parts.disk.cached(request.key, for: parts.headers(request.headers)) {
            return RawResult(entry, source: .network)
        }
        // Not kept (no-store), or gone already: fetched again for this caller.
        return try await fromOrigin(request, job: JobHandle(request.waiter))
    }

    /// The job concurrent callers of one key share: the shared tier (its value, else its lease held while the
    /// origin answers), else the origin, into the disk entry for a streaming prefetch.
    private func sharedFetch(_ request: RawRequest) async throws -> RawResult {
        try await fetches.value(forKey: request.fetchKey, as: request.waiter, onJoin: parts.recordJoin) { [self] job in
            if let sharedTier = sharedTierStage, request.usesCaches, !request.asked.noStore,
                request.policy != .reloadIgnoringCache,
                request.policy != .refresh
            {
                let answer = try await parts.tracing.span("trove.shared_tier") { span in
                    let answer = try await sharedTier.run(request)
                    span?.record(answer)
                    return answer
                }
                switch answer {
                case let .hit(result):
                    return result
                case let .miss(lease):
                    do {
                        let result = try await fromOrigin(request, job: job)
                        await sharedTier.release(lease)
                        return result
                    } catch {
                        await sharedTier.release(lease)
                        throw error
                    }
                }
            }
            if request.streamsToDisk, let diskCache = parts.diskCache {
                return try await fromOrigin(request, job: job, .intoDisk(diskCache))
            }
            return try await fromOrigin(request, job: job)
        }
    }

    /// An unconditional fetch from the origin.
    private func fromOrigin(_ request: RawRequest, job: JobHandle, _ fetch: OriginStage.Fetch = .whole)
        async throws -> RawResult
    {
        guard case let .fetched(result) = try await askOrigin(request, job: job, fetch) else {
            throw TroveError.connectionFailed(
                url: request.url.absoluteString,
                reason: "the server answered 304 Not Modified to a fetch without validators")
        }
        return result
    }

    /// Asks the origin whether the cached entry is still current, using its stored validators; one
    /// revalidation per entry however many ask. Nil when the entry has no validators to ask with.
    func revalidate(_ request: RawRequest, entry: DiskEntry) async throws -> OriginAnswer? {
        let validators = entry.metadata.validators
        guard !validators.isEmpty else { return nil }
        return try await revalidations.value(
            forKey: request.revalidationKey, as: request.waiter, onJoin: parts.recordJoin
        ) { [self] job in
            try await askOrigin(request, job: job, .revalidating(entry, validators))
        }
    }

    /// The origin stage in a `trove.fetch` span: the URL (redacted), the status and bytes of the answer, each
    /// retry as an event, and the span's context sent to the origin (`traceparent`).
    private func askOrigin(_ request: RawRequest, job: JobHandle, _ fetch: OriginStage.Fetch)
        async throws -> OriginAnswer
    {
        try await parts.tracing.span("trove.fetch") { span in
            span?.updateAttributes { attributes in
                attributes["url.full"] = request.url.redactedForSpans
                attributes["http.request.method"] = request.method
                if case .revalidating = fetch { attributes["trove.revalidation"] = true }
            }
            let answer = try await origin.run((request, job, fetch, span))
            span?.record(answer)
            return answer
        }
    }

    /// A cached entry brought up to date: revalidated with its validators (a 304 keeps its bytes, fresh
    /// again), fetched whole when it has none, and delivered marked stale when the origin fails transiently
    /// within the staleness bound (never a must-revalidate entry).
    func revalidating(_ entry: DiskEntry, for request: RawRequest) async throws -> RawResult {
        do {
            switch try await revalidate(request, entry: entry) {
            case let .notModified(metadata)?:
                var updated = entry
                updated.metadata = metadata
                return RawResult(updated)
            case let .fetched(result)?: return result
            case nil: return try await fetch(request)
            }
        } catch
            where FreshnessPolicy.isOriginFailure(error) && parts.freshness.isWithinStaleBound(entry)
            && !request.asked.judgesStoredCopies
        {
            guard parts.freshness.mayDeliverUnrevalidated(entry) else {
                parts.logger.info(
                    "origin failed; the cached copy is stale and must-revalidate, so it is not delivered",
                    metadata: ["url": .redacted(request.url), "error": .redacted(error)])
                throw error
            }
            parts.logger.warning(
                "origin failed; delivering the stale cached copy",
                metadata: ["url": .redacted(request.url), "error": .redacted(error)])
            parts.metrics.record(.staleDelivered)
            return RawResult(entry, isStale: true)
        }
    }

    private func checkRememberedFailure(_ request: RawRequest) async throws {
        if request.retryFailed {
            await parts.failures.forget(request.key)
        } else if let failure = await parts.failures.failure(of: request.key),
            parts.accept != nil || !failure.isAboutContent
        {
            parts.metrics.record(.failure(.previouslyFailed))
            throw TroveError.previouslyFailed(url: request.url.absoluteString, cause: failure.cause, ago: failure.ago)
        }
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
