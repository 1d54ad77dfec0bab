import Foundation
import Logging
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// Stage 4, the fetch's front door: the failure memory (a URL that failed for a lasting reason fails fast),
/// then coalescing: concurrent callers of one raw key share one fetch, and of one entry one revalidation,
/// each a job (`Jobs`) that carries its waiters' progress, previews and priority. The shared work goes to the shared
/// tier (`SharedTierStage`) when there is one, else to the origin (`OriginStage`).
package final class FetchCoalescingStage: Sendable {
    let parts: PipelineParts
    /// Nil when the configuration names no shared tier.
    let sharedTier: SharedTierStage?
    let origin: OriginStage
    // Both start on the caller's thread: a fetch does a few microseconds of bookkeeping, then waits on the network.
    private let fetches = Jobs<WorkKey, RawResult>(startsImmediately: true)
    private let revalidations = Jobs<WorkKey, Revalidation>(startsImmediately: true)

    init(parts: PipelineParts, sharedTier: SharedTierStage?, origin: OriginStage) {
        self.parts = parts
        self.sharedTier = sharedTier
        self.origin = origin
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
            return try await origin.fetch(request, job: JobHandle(request.waiter))
        }
        guard result.streamedLength != nil, !request.streamsToDisk else { return result }
        // This caller joined a prefetch that sent the body straight to disk: its bytes are read back there.
        if result.storable, let entry = await parts.cached(request.key, for: parts.sentHeaders(request.headers)) {
            return RawResult(entry, source: .network)
        }
        // Not kept (no-store), or gone already: fetched again for this caller.
        return try await origin.fetch(request, job: JobHandle(request.waiter))
    }

    /// The fetch concurrent callers of one key share: from the shared tier when it has the key (unless
    /// reloading or refreshing), into the disk entry for a streaming prefetch, else from the origin.
    private func sharedFetch(_ request: RawRequest) async throws -> RawResult {
        try await fetches.value(forKey: request.fetchKey, as: request.waiter, onJoin: parts.recordJoin) { job in
            if let sharedTier = self.sharedTier, request.usesCaches, request.policy != .reloadIgnoringCache,
                request.policy != .refresh
            {
                return try await sharedTier.fetch(request, job: job)
            }
            if request.streamsToDisk, let diskCache = self.parts.diskCache {
                return try await self.origin.fetchIntoDisk(request, diskCache, job: job)
            }
            return try await self.origin.fetch(request, job: job)
        }
    }

    /// Asks the origin whether the cached entry is still current, using its stored validators.
    /// Nil when the entry has no validators to ask with.
    func revalidate(_ request: RawRequest, entry: DiskEntry) async throws -> Revalidation? {
        let validators = entry.metadata.validators
        guard !validators.isEmpty else { return nil }
        return try await revalidations.value(
            forKey: request.revalidationKey, as: request.waiter, onJoin: parts.recordJoin
        ) { job in
            try await self.origin.revalidate(request, entry: entry, validators: validators, job: job)
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
