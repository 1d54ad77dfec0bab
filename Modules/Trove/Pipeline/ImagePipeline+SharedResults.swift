import TroveCore

extension ImagePipeline {
    /// Whether a request's result goes through a shared tier, when the pipeline has one: when it shares
    /// results (`SharedTierPolicy.sharesResults`) and the result would be kept on disk for a request that
    /// reads the caches (`useCache`, `cacheOnly`).
    private func sharesResult(_ request: ImageRequest, key: CacheKey) -> Bool {
        configuration.sharedTierPolicy.sharesResults
            && request.keepsProcessedResult(under: key)
            && (request.cachePolicy == .useCache || request.cachePolicy == .cacheOnly)
    }

    /// The result from the shared tier (copied to the local disk on the way), else made from the original
    /// under the fleet's lease on its key, so one process in the fleet makes it while the others wait for its
    /// value; it is stored there behind the answer and the lease given back after (`StoreStage.Sharing`).
    func sharedOrMade(
        _ request: ImageRequest, key: CacheKey, raw: RawRequest, streamed: StreamedPlanarDecode? = nil
    ) async throws -> ImageResponse {
        guard let sharedTier = self.sharedTierStage, sharesResult(request, key: key) else {
            return try await process(request, key: key, try await self.original(raw), streamed: streamed)
        }
        // The result's own key: the signature of a proxy URL is never part of it, the pipeline's settings are.
        var lookup = RawRequest(
            url: request.url, key: key.processed, policy: request.cachePolicy, retryFailed: false,
            headers: request.headers, waiter: raw.waiter, maxAge: request.maxAge)
        lookup.isResult = true
        let found = try await parts.tracing.span("trove.shared_result") { span in
            let found = try await sharedTier.run(lookup)
            span?.record(found)
            return found
        }
        switch found {
        case let .hit(stored):
            return try await answer(stored, for: request, key: key)
        case let .miss(lease):
            do {
                return try await process(
                    request, key: key, try await self.original(raw), sharing: StoreStage.Sharing(lease: lease),
                    streamed: streamed)
            } catch {
                await sharedTier.release(lease)
                throw error
            }
        }
    }
}
