import Foundation
import Logging
import Synchronization
import TroveCore
import TroveDiskCache

/// What a pipeline's shared tier has done: the tier's own counts and what the pipeline saw around it.
public struct SharedTierStatus: Sendable, Equatable, Codable {
    /// The tier's counts (hits, misses, stores, errors, oversized values skipped).
    public var tier: SharedTierStatistics
    /// The circuit breaker's state now.
    public var breaker: SharedTierBreakerState
    /// Calls that found the tier unavailable; each went on without it.
    public var unavailable: Int
    /// Calls skipped while the breaker was open.
    public var bypassed: Int
    /// Values that failed to decode (damaged, foreign, another key's): deleted and never served.
    public var rejected: Int
    /// Misses that waited for another process holding the key's lease.
    public var leaseWaits: Int
    /// Each tier of `PipelineConfiguration.sharedCaches`, top first: one for a single tier, whose counts
    /// are `tier`'s.
    public var tiers: [SharedTierLayerStatus]
}

/// One tier of a pipeline's shared cache, in `SharedTierStatus.tiers`.
public struct SharedTierLayerStatus: Sendable, Equatable, Codable {
    /// Its name in metrics and `trove cache stats`: its URL's scheme (`redis`, `s3`), numbered from the
    /// second of a scheme on (`redis-2`).
    public var name: String
    /// The tier's own counts (hits, misses, stores, errors, oversized values skipped).
    public var statistics: SharedTierStatistics
    /// Its circuit breaker's state now (in a stack each tier has its own).
    public var breaker: SharedTierBreakerState
    /// Values found in a tier below it and copied into it.
    public var copiedUp: Int
}

/// The shared tier as the stages use it: entries in Trove's entry format, every call through the circuit
/// breaker, an unavailable tier turned into "go on without it" (logged at a bounded rate, counted), and a
/// configuration error (a wrong password) passed on to fail the request.
final class SharedTierAccess: Sendable {
    /// The outcome of asking for a lease.
    enum LeaseAttempt {
        case acquired(SharedTierLease)
        case heldElsewhere
        /// The tier could not answer (or the breaker is open): fetch without a lease.
        case unavailable
    }

    let tier: any SharedCacheTier
    /// The tiers' names, top first (one for a single tier).
    let tierNames: [String]
    let options: SharedTierOptions
    let policy: SharedTierPolicy
    let leaseTTL: Duration
    private let breaker: CircuitBreaker
    private let metrics: PipelineMetrics
    private let logger: Logger
    /// Told of every value stored; nil tells no one.
    private let activity: ActivityHub?
    private let warnings = Mutex<(last: ContinuousClock.Instant?, suppressed: Int)>((nil, 0))
    private let unavailable = Atomic<Int>(0)
    private let bypassed = Atomic<Int>(0)
    private let rejected = Atomic<Int>(0)
    private let leaseWaits = Atomic<Int>(0)

    init(
        tier: any SharedCacheTier, tierNames: [String] = ["shared"], options: SharedTierOptions,
        policy: SharedTierPolicy, fetchTimeout: Duration, metrics: PipelineMetrics, logger: Logger,
        activity: ActivityHub? = nil
    ) {
        self.activity = activity
        self.tier = tier
        self.tierNames = tierNames
        self.options = options
        self.policy = policy
        leaseTTL = policy.leaseTTL ?? fetchTimeout + .seconds(5)
        breaker = CircuitBreaker(failureThreshold: policy.failureThreshold, cooldown: policy.cooldown)
        self.metrics = metrics
        self.logger = logger
    }

    var status: SharedTierStatus {
        let tiers: [SharedTierLayerStatus]
        if let stack = tier as? StackedSharedTier {
            tiers = stack.layers.indices.map { index in
                SharedTierLayerStatus(
                    name: stack.layers[index].name, statistics: stack.layers[index].tier.statistics(),
                    breaker: stack.breakerState(of: index), copiedUp: stack.copiedUp(into: index))
            }
        } else {
            tiers = [
                SharedTierLayerStatus(
                    name: tierNames.first ?? "shared", statistics: tier.statistics(), breaker: breaker.current,
                    copiedUp: 0)
            ]
        }
        return SharedTierStatus(
            tier: tier.statistics(), breaker: breaker.current,
            unavailable: unavailable.load(ordering: .relaxed), bypassed: bypassed.load(ordering: .relaxed),
            rejected: rejected.load(ordering: .relaxed), leaseWaits: leaseWaits.load(ordering: .relaxed),
            tiers: tiers)
    }

    /// The verified entry stored under `key`; nil on a miss, when the tier is unavailable, or when the value
    /// is not a valid entry for `key` (then it is counted and deleted, so the next reader refetches).
    func entry(forKey key: String) async throws -> DiskEntry? {
        guard let value = try await call("GET", key: key, { try await self.tier.get(key) }) else { return nil }
        guard let value else {
            metrics.record(.miss(.shared))
            return nil
        }
        do {
            let entry = try EntryCodec.decode(value, expectedKey: key)
            metrics.record(.hit(.shared))
            return entry
        } catch {
            rejected.add(1, ordering: .relaxed)
            metrics.record(.sharedRejected)
            metrics.record(.miss(.shared))
            logger.warning(
                "shared tier value rejected; deleting it and fetching again",
                metadata: ["key": .redacted("\(key)"), "reason": "\(error.reason)"])
            // Best effort: a server whose ACL refuses DEL must not turn a rejected value into a failed request.
            _ = try? await call("DEL", key: key, { try await self.tier.delete(key) })
            return nil
        }
    }

    /// Stores an entry for `ttl`. An entry that cannot be encoded is skipped; an unavailable tier is logged.
    /// Each tier keeps to its own size limit (`SharedCacheTier.maxValueBytes`) and counts what it skips.
    func store(_ data: Data, forKey key: String, metadata: DiskEntryMetadata, ttl: Duration) async throws {
        guard ttl > .zero else { return }
        // A tier that states no limit of its own keeps to the options' (8 MiB by default).
        let limit = tier.maxValueBytes ?? options.maxValueBytes
        if data.count > limit {
            // Not worth encoding a copy only to have the tier refuse it: the tier counts it as skipped.
            _ = try await call("SET", key: key, { try await self.tier.set(key, value: data, ttl: ttl) })
            return
        }
        let value: Data
        do {
            value = try EntryCodec.encode(data, forKey: key, metadata: metadata)
        } catch {
            logger.debug(
                "not storing in the shared tier", metadata: ["key": .redacted("\(key)"), "error": .redacted(error)])
            return
        }
        if try await call("SET", key: key, { try await self.tier.set(key, value: value, ttl: ttl) }) != nil {
            activity?.send { .stored(cacheKey: key, tier: .shared, bytes: value.count) }
        }
    }

    /// Deletes the value stored under `key`; returns whether there was one. An unavailable tier removes nothing.
    func remove(forKey key: String) async -> Bool {
        guard let value = try? await call("GET", key: key, { try await self.tier.get(key) }), value != nil else {
            return false
        }
        return (try? await call("DEL", key: key, { try await self.tier.delete(key) })) != nil
    }

    /// Takes the fleet-wide lease on `key` for `ttl` (the fetch lease's `leaseTTL` unless given).
    func acquireLease(on key: String, ttl: Duration? = nil) async throws -> LeaseAttempt {
        let ttl = ttl ?? leaseTTL
        guard
            let lease = try await call(
                "SET NX", key: key, { try await self.tier.acquireLease(on: key, ttl: ttl) })
        else { return .unavailable }
        guard let lease else { return .heldElsewhere }
        return .acquired(lease)
    }

    /// Gives a lease back; failing to is harmless (it expires on its own).
    func release(_ lease: SharedTierLease) async {
        _ = try? await call("EVAL", key: lease.key, { try await self.tier.releaseLease(lease) })
    }

    /// Counts a miss that waits for another process's lease.
    func recordLeaseWait() {
        leaseWaits.add(1, ordering: .relaxed)
        metrics.record(.sharedLeaseWait)
    }

    // MARK: - Breaker and degradation

    /// Runs one tier call through the breaker: its value, or nil when the tier could not answer or the
    /// breaker is open. A configuration error (`invalidConfiguration`) and cancellation are thrown.
    private func call<T: Sendable>(
        _ command: String, key: String,
        _ body: @Sendable () async throws -> T
    ) async throws -> T? {
        guard breaker.allowsCall() else {
            bypassed.add(1, ordering: .relaxed)
            metrics.record(.sharedBypassed)
            return nil
        }
        do {
            let value = try await body()
            if breaker.recordSuccess() { logger.info("shared tier answers again; circuit closed") }
            return value
        } catch let error as TroveError {
            guard case .sharedTierUnavailable = error else {
                // The server answered: it is up, the configuration is wrong. Fail the request so it is seen.
                breaker.recordSuccess()
                throw error
            }
            degrade(error, command: command, key: key)
            return nil
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            degrade(error, command: command, key: key)
            return nil
        }
    }

    private func degrade(_ error: any Error, command: String, key: String) {
        unavailable.add(1, ordering: .relaxed)
        metrics.record(.sharedUnavailable)
        if breaker.recordFailure() {
            logger.warning(
                "shared tier failing; circuit open, skipping it for \(policy.cooldown)",
                metadata: ["error": .redacted(error)])
        }
        let now = ContinuousClock.now
        let suppressed: Int? = warnings.withLock { state in
            if let last = state.last, now - last < policy.warningInterval {
                state.suppressed += 1
                return nil
            }
            defer { state = (now, 0) }
            return state.suppressed
        }
        if let suppressed {
            logger.warning(
                "shared tier unavailable; going on with the local caches and the origin",
                metadata: [
                    "command": "\(command)", "key": .redacted("\(key)"), "error": .redacted(error),
                    "suppressed": "\(suppressed)"
                ])
        }
    }
}
