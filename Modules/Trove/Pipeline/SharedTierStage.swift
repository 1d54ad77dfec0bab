import Foundation
import Logging
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// Stage 5, the fleet's shared tier: a fresh, verified value answers (and is copied to the local disk);
/// on a miss one process in the fleet takes the key's lease and fetches from the origin while the others
/// poll for its value. Leases live here and nowhere else. An unavailable tier passes straight to the origin.
package struct SharedTierStage: Sendable {
    let parts: PipelineParts
    let shared: SharedTierAccess
    let origin: OriginStage

    /// The shared tier, then the origin under the fleet-wide lease: the holder fetches and stores, the others
    /// poll for its value, taking the lease themselves once it is given back or expires (its holder died).
    /// A waiter goes to the origin on its own only after two lease times (a dead holder's lease, then its
    /// successor's fetch). An unavailable tier means straight to the origin.
    func fetch(_ request: RawRequest, job: JobHandle) async throws -> RawResult {
        if let hit = try await hit(request) { return hit }
        let waitEnds = ContinuousClock.now + shared.leaseTTL * 2 + shared.policy.maxPollInterval * 2
        var delay = shared.policy.firstPollInterval
        var waited = false
        while true {
            switch try await shared.acquireLease(on: request.key) {
            case .unavailable:
                return try await origin.fetch(request, job: job)
            case let .acquired(lease):
                do {
                    // The previous holder may have stored the value between the miss above and this lease.
                    let result: RawResult
                    if let hit = try await hit(request) {
                        result = hit
                    } else {
                        result = try await origin.fetch(request, job: job)
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
                    parts.logger.info(
                        "shared tier lease outlived its time; fetching without it",
                        metadata: ["url": "\(request.url)"])
                    return try await origin.fetch(request, job: job)
                }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, shared.policy.maxPollInterval)
                if let hit = try await hit(request) { return hit }
            }
        }
    }

    /// A fresh, verified entry from the shared tier that suits the request (through a variant index to
    /// the variant its headers select), stored on disk (unless memory-only) on the way.
    private func hit(_ request: RawRequest) async throws -> RawResult? {
        guard var entry = try await shared.entry(forKey: request.key) else { return nil }
        let headers = parts.sentHeaders(request.headers)
        var index: DiskEntry?
        if let names = entry.metadata.variantNames {
            index = entry
            let key = CacheKey.variant(of: request.key, selecting: Vary.selecting(names, in: headers))
            guard let variant = try await shared.entry(forKey: key) else { return nil }
            entry = variant
        }
        guard entry.metadata.selecting.isEmpty || Vary.matches(entry.metadata.selecting, headers),
            parts.freshness.isFresh(entry, maxAge: request.maxAge)
        else {
            return nil
        }
        // Another pipeline stored it: bytes this one refuses (no decoder for them) are not served from here.
        if let accept = parts.accept, (try? accept(entry.data, request.url)) == nil { return nil }
        await parts.cacheWriter.storeFromShared(entry, index: index, for: request)
        return RawResult(entry, source: .shared)
    }
}
