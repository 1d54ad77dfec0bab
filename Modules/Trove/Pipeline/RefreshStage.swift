import Foundation
import TroveCore

// `refresh`, for both pipelines: the cached copy at once (unless it is stale and must-revalidate), then a
// conditional fetch; a 304 confirms the copy, a 200 delivers the new result as well, and an origin that
// fails transiently leaves the copy standing, marked stale. The revalidation itself is
// `ImagePipeline.revalidate` (one job per entry) and `OriginStage.run` (the 304's dates stored).

extension ImagePipeline {
    /// refresh: the cached result at once, then a conditional fetch; a 200 delivers the new result too.
    func refresh(
        _ request: ImageRequest, key: CacheKey, raw: RawRequest,
        emit: @escaping @Sendable (ImageEvent) -> Void
    ) async throws -> ImageResponse {
        let entry = await parts.disk.cached(key.raw, includingStale: true, for: parts.headers(request.headers))
        let sent = parts.headers(request.headers)
        var cached = memoryCache.value(forKey: key.processed).flatMap { hit -> ImageResponse? in
            guard hit.selecting.isEmpty || Vary.matches(hit.selecting, sent) else { return nil }
            var hit = hit
            hit.source = .memory
            return hit
        }
        if cached == nil, let entry {
            cached = try? await process(request, key: key, RawResult(entry))
        }
        guard let cached else {
            let response = try await process(request, key: key, try await self.fetch(raw))
            emit(.final(response))
            return response
        }
        // A stale must-revalidate copy is not shown before the origin has confirmed it.
        let mayDeliverCached = entry.map { parts.freshness.mayDeliverUnrevalidated($0) } ?? true
        if mayDeliverCached { emit(.cached(cached)) }

        let fresh: ImageResponse
        do {
            switch try await entry.asyncFlatMap({ try await self.revalidate(raw, entry: $0) }) {
            case .notModified?:
                emit(.final(cached))
                return cached
            case let .fetched(result)?:
                fresh = try await process(request, key: key, result)
            case nil:  // nothing to revalidate with: fetch it whole
                fresh = try await process(request, key: key, try await self.fetch(raw))
            }
        } catch  where FreshnessPolicy.isOriginFailure(error) && mayDeliverCached {
            // The origin is down: what the cache had stands, marked stale.
            parts.logger.warning(
                "refresh failed; delivering the cached copy",
                metadata: ["url": .redacted(request.url), "error": .redacted(error)])
            var stale = cached
            stale.isStale = true
            emit(.final(stale))
            return stale
        }
        emit(.final(fresh))
        return fresh
    }
}

extension DataPipeline {
    /// refresh: the cached copy at once, then its revalidation (`OriginalDiskStage.revalidating`, which
    /// keeps the copy, marked stale, when the origin fails transiently); nil when nothing is cached, so the
    /// caller fetches.
    func refresh(
        _ raw: RawRequest, emit: @escaping @Sendable (PipelineEvent<DataResponse>) -> Void
    ) async throws -> DataResponse? {
        guard let entry = await parts.disk.cached(raw.key, includingStale: true, for: parts.headers(raw.headers))
        else { return nil }
        // A stale must-revalidate copy is not shown before the origin has confirmed it.
        if parts.freshness.mayDeliverUnrevalidated(entry) { emit(.cached(remember(RawResult(entry), key: raw.key))) }
        return remember(try await originals.revalidating(entry, for: raw), key: raw.key)
    }
}

extension Optional {
    /// `map` for an async transform.
    func asyncFlatMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
