import Foundation
import Logging
import TroveCore
import TroveDiskCache

/// The fleet's shared tier: a fresh, verified value answers (and is copied to the local disk); on a miss one
/// process in the fleet takes the key's lease and goes to the origin while the others poll for its value.
/// Leases live here and nowhere else. An unavailable tier passes straight on.
struct SharedTierStage: PipelineStage {
    /// What the tier had for a request.
    enum Found: Sendable {
        case hit(RawResult)
        /// Go to the origin: holding the lease when one was taken, to be given back with `release` after.
        case miss(SharedTierLease?)
    }

    let shared: SharedTierAccess
    let freshness: FreshnessPolicy
    let headers: SentHeaders
    let cacheWriter: CacheWriter
    /// An image pipeline's check that bytes decode; nil accepts any.
    let accept: AcceptCheck?
    let logger: Logger

    /// The value, else the lease: the holder goes to the origin, the others poll for its value, taking the
    /// lease themselves once it is given back or expires (its holder died). A waiter goes on without the
    /// lease only after two lease times (a dead holder's lease, then its successor's fetch).
    func run(_ request: RawRequest) async throws -> Found {
        if let hit = try await hit(request) { return .hit(hit) }
        // A result's lease is short: its holder may die in the decode, and the fleet waits out its time.
        let ttl = request.isResult ? shared.policy.resultLeaseTTL : shared.leaseTTL
        let waitEnds = ContinuousClock.now + ttl * 2 + shared.policy.maxPollInterval * 2
        var delay = shared.policy.firstPollInterval
        var waited = false
        while true {
            switch try await shared.acquireLease(on: request.key, ttl: ttl) {
            case .unavailable:
                return .miss(nil)
            case let .acquired(lease):
                // The previous holder may have stored the value between the miss above and this lease.
                do {
                    if let hit = try await hit(request) {
                        await shared.release(lease)
                        return .hit(hit)
                    }
                } catch {
                    await shared.release(lease)
                    throw error
                }
                return .miss(lease)
            case .heldElsewhere:
                if !waited {
                    waited = true
                    shared.recordLeaseWait()
                }
                guard ContinuousClock.now < waitEnds else {
                    logger.info(
                        "shared tier lease outlived its time; fetching without it",
                        metadata: ["url": .redacted(request.url)])
                    return .miss(nil)
                }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, shared.policy.maxPollInterval)
                if let hit = try await hit(request) { return .hit(hit) }
            }
        }
    }

    /// Gives back a lease `run` took, once the origin has answered (or failed).
    func release(_ lease: SharedTierLease?) async {
        if let lease { await shared.release(lease) }
    }

    /// A fresh, verified entry from the shared tier that suits the request (through a variant index to
    /// the variant its headers select), stored on disk (unless memory-only) on the way.
    private func hit(_ request: RawRequest) async throws -> RawResult? {
        guard var entry = try await shared.entry(forKey: request.key) else { return nil }
        let headers = headers(request.headers)
        var index: DiskEntry?
        if let names = entry.metadata.variantNames {
            index = entry
            let key = CacheKey.variant(of: request.key, selecting: Vary.selecting(names, in: headers))
            guard let variant = try await shared.entry(forKey: key) else { return nil }
            entry = variant
        }
        guard entry.metadata.selecting.isEmpty || Vary.matches(entry.metadata.selecting, headers),
            freshness.mayAnswer(entry, maxAge: request.maxAge, asked: request.asked)
        else {
            return nil
        }
        // Another pipeline stored it: bytes this one refuses (no decoder for them) are not served from here.
        var result = RawResult(entry, isStale: !freshness.isFresh(entry, maxAge: request.maxAge), source: .shared)
        if let accept {
            guard let decoder = try? accept(entry.data, request.url) else { return nil }
            result.decoder = decoder
        }
        await cacheWriter.storeFromShared(entry, index: index, for: request)
        return result
    }
}
