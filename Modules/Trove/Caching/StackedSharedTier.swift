import Foundation
import Synchronization
import TroveCore
import TroveDiskCache

/// Several shared tiers used as one, in order (`redis://…` then `s3://…`: hot values and leases on top, the
/// bytes below), built by `PipelineConfiguration.makeSharedTier` when `sharedCaches` names more than one.
///
/// - Reads try each tier in turn; a hit in a lower tier is copied up into the tiers above it in the
///   background, for as long as the entry inside is fresh (a tier over whose size limit it is skips it).
/// - Writes and deletes go to every tier, at once; a value too large for one tier is kept by the others.
/// - Leases come from the first tier that answers (Redis in a stack); its release goes back to that tier.
/// - Each tier has its own circuit breaker: a tier that fails is skipped for `cooldown` while the others
///   answer. A call throws only when no tier answered it (every one failed or was skipped), so the pipeline's
///   own breaker around the stack opens only when all of them are down.
package final class StackedSharedTier: SharedCacheTier {
    /// One tier of the stack.
    package final class Layer: Sendable {
        /// Its name in statistics and metrics: the URL's scheme, numbered when two tiers share one.
        package let name: String
        package let tier: any SharedCacheTier
        let breaker: CircuitBreaker
        /// Values copied into it from a tier below.
        let copiedUp = Atomic<Int>(0)

        init(name: String, tier: any SharedCacheTier, breaker: CircuitBreaker) {
            self.name = name
            self.tier = tier
            self.breaker = breaker
        }
    }

    package let layers: [Layer]
    /// How long a value copied up is kept: the entry's freshness (nil or not positive: not copied).
    private let copyTTL: @Sendable (String, Data) -> Duration?
    private let state = Mutex(State())
    /// The most copy-ups in flight; a hit past it is not copied (the next one will be).
    private let maxCopyUps = 32

    private struct State {
        var hits = 0, misses = 0, errors = 0
        var copyUps: [String: Task<Void, Never>] = [:]
        /// Counts every set and delete, so a read can tell whether one overtook it.
        var writes: UInt64 = 0
        /// Keys being read now: how many reads, and the count of the last write to the key meanwhile. Only
        /// keys with a read in flight are here, so it holds no more than the reads do.
        var reads: [String: (count: Int, lastWrite: UInt64)] = [:]
        /// Keys with a set or delete in flight, and how many: no copy-up of such a key starts, and a read that
        /// began during one is marked when it ends (it may have seen a lower tier before the write reached it).
        var writing: [String: Int] = [:]
    }

    /// A stack of `tiers` (name, tier), top first, each behind a breaker of `policy`'s threshold and cooldown.
    /// `copyTTL` says how long a value found below may be kept above.
    init(
        tiers: [(name: String, tier: any SharedCacheTier)], policy: SharedTierPolicy,
        copyTTL: @escaping @Sendable (String, Data) -> Duration?
    ) {
        layers = tiers.map {
            Layer(
                name: $0.name, tier: $0.tier,
                breaker: CircuitBreaker(failureThreshold: policy.failureThreshold, cooldown: policy.cooldown))
        }
        self.copyTTL = copyTTL
    }

    /// Names for tiers on `urls`: each one's scheme, with `-2`, `-3`... after the first when a scheme repeats.
    static func names(for urls: [URL]) -> [String] {
        var seen: [String: Int] = [:]
        return urls.map { url in
            let scheme = url.scheme?.lowercased() ?? "shared"
            let count = seen[scheme, default: 0] + 1
            seen[scheme] = count
            return count == 1 ? scheme : "\(scheme)-\(count)"
        }
    }

    /// Copies into the tier above, for `SharedTierStatus.tiers`.
    package func copiedUp(into layer: Int) -> Int { layers[layer].copiedUp.load(ordering: .relaxed) }

    /// The breaker of each tier now.
    func breakerState(of layer: Int) -> SharedTierBreakerState { layers[layer].breaker.current }

    // MARK: - SharedCacheTier

    /// The first tier's value that has one; a value found below the top is copied up in the background,
    /// unless a set or delete of the key overtook the read (the value read may be the one it replaced).
    package func get(_ key: String) async throws -> Data? {
        let started = state.withLock { state in
            state.reads[key, default: (0, 0)].count += 1
            return state.writes
        }
        defer {
            state.withLock { state in
                guard let read = state.reads[key] else { return }
                if read.count <= 1 { state.reads[key] = nil } else { state.reads[key]?.count -= 1 }
            }
        }
        var failures: [any Error] = []
        var answered = false
        for index in layers.indices {
            let value: Data??
            do {
                value = try await attempt(index) { try await $0.get(key) }
            } catch {
                failures.append(error)
                continue
            }
            guard let value else { continue }  // skipped: its breaker is open
            answered = true
            guard let value else { continue }  // a miss in this tier
            count { $0.hits += 1 }
            if index > 0 { copyUp(value, forKey: key, into: 0..<index, readSince: started) }
            return value
        }
        try conclude(answered: answered, failures: failures)
        count { $0.misses += 1 }
        return nil
    }

    /// Stores `value` in every tier at once, after any copy-up of the key still in flight (so an older value
    /// cannot land over it); throws only when no tier took the call.
    package func set(_ key: String, value: Data, ttl: Duration) async throws {
        if let copyUp = beginWrite(key) { await copyUp.value }
        defer { endWrite(key) }
        try await everyLayer { try await $0.set(key, value: value, ttl: ttl) }
    }

    /// Removes `key` from every tier, after any copy-up of it still in flight (so it cannot come back).
    package func delete(_ key: String) async throws {
        if let copyUp = beginWrite(key) { await copyUp.value }
        defer { endWrite(key) }
        try await everyLayer { try await $0.delete(key) }
    }

    /// Marks a write of `key` for the reads of it in flight (their values must not be copied up after it),
    /// and returns the key's copy-up in flight, which the write waits for.
    private func beginWrite(_ key: String) -> Task<Void, Never>? {
        state.withLock { state in
            state.writing[key, default: 0] += 1
            Self.markReads(of: key, in: &state)
            return state.copyUps[key]
        }
    }

    /// Ends a write: the reads of `key` that began while it ran are marked too.
    private func endWrite(_ key: String) {
        state.withLock { state in
            if let count = state.writing[key], count > 1 {
                state.writing[key] = count - 1
            } else {
                state.writing[key] = nil
            }
            Self.markReads(of: key, in: &state)
        }
    }

    private static func markReads(of key: String, in state: inout State) {
        state.writes += 1
        if state.reads[key] != nil { state.reads[key]?.lastWrite = state.writes }
    }

    /// The lease from the first tier that answers, its token marked with that tier so it is given back there.
    package func acquireLease(on key: String, ttl: Duration) async throws -> SharedTierLease? {
        var failures: [any Error] = []
        for index in layers.indices {
            do {
                guard let answer = try await attempt(index, { try await $0.acquireLease(on: key, ttl: ttl) })
                else { continue }
                return answer.map { SharedTierLease(key: key, token: "\(index)/\($0.token)") }
            } catch {
                failures.append(error)
            }
        }
        try conclude(answered: false, failures: failures)
        return nil
    }

    /// Gives the lease back to the tier it came from.
    package func releaseLease(_ lease: SharedTierLease) async throws {
        guard let slash = lease.token.firstIndex(of: "/"), let index = Int(lease.token[..<slash]),
            layers.indices.contains(index)
        else { return }
        let inner = SharedTierLease(key: lease.key, token: String(lease.token[lease.token.index(after: slash)...]))
        _ = try await attempt(index) { try await $0.releaseLease(inner) }
    }

    /// The largest of the tiers' limits (nil if one has none): a value larger than one tier's is kept by
    /// the others.
    package var maxValueBytes: Int? {
        let limits = layers.map(\.tier.maxValueBytes)
        return limits.contains { $0 == nil } ? nil : limits.compactMap(\.self).max()
    }

    /// Hits and misses as the stack answered them, calls no tier answered as errors; stores and skipped
    /// values are the bottom tier's (the durable one every value goes to). Each tier's own counts are in
    /// `SharedTierStatus.tiers`.
    package func statistics() -> SharedTierStatistics {
        let bottom = layers.last?.tier.statistics() ?? SharedTierStatistics()
        return state.withLock {
            SharedTierStatistics(
                hits: $0.hits, misses: $0.misses, stores: bottom.stores, errors: $0.errors, skipped: bottom.skipped)
        }
    }

    /// The tiers' fleet-wide counts summed over those that answered; throws when none did.
    package func fleetStatistics() async throws -> SharedTierStatistics {
        var total = SharedTierStatistics()
        var failures: [any Error] = []
        for layer in layers {
            do {
                let counts = try await layer.tier.fleetStatistics()
                total.hits += counts.hits
                total.misses += counts.misses
                total.stores += counts.stores
                total.errors += counts.errors
                total.skipped += counts.skipped
            } catch {
                failures.append(error)
            }
        }
        if failures.count == layers.count, let first = failures.first { throw first }
        return total
    }

    /// Waits for the copy-ups in flight, then shuts every tier down.
    package func shutdown() async {
        let pending = state.withLock { Array($0.copyUps.values) }
        for task in pending { await task.value }
        for layer in layers { await layer.tier.shutdown() }
    }

    // MARK: - Tiers and their breakers

    /// `body` on tier `index` through its breaker: its answer, nil when the breaker is open. Throws what the
    /// tier threw (counting an outage against the breaker; a configuration error means the tier answered).
    private func attempt<T: Sendable>(
        _ index: Int, _ body: (any SharedCacheTier) async throws -> T
    ) async throws -> T? {
        let layer = layers[index]
        guard layer.breaker.allowsCall() else { return nil }
        do {
            let value = try await body(layer.tier)
            layer.breaker.recordSuccess()
            return value
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as TroveError {
            if case .sharedTierUnavailable = error {
                layer.breaker.recordFailure()
            } else {
                layer.breaker.recordSuccess()
            }
            throw error
        } catch {
            layer.breaker.recordFailure()
            throw error
        }
    }

    /// Runs `body` on every tier at once; throws when none answered.
    private func everyLayer(_ body: @escaping @Sendable (any SharedCacheTier) async throws -> Void) async throws {
        let outcomes = await withTaskGroup(of: Result<Bool, any Error>.self) { group in
            for index in layers.indices {
                group.addTask {
                    do {
                        return .success(try await self.attempt(index, body) != nil)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let failures = outcomes.compactMap { outcome -> (any Error)? in
            if case let .failure(error) = outcome { return error }
            return nil
        }
        try conclude(answered: outcomes.contains { (try? $0.get()) == true }, failures: failures)
    }

    /// Returns when some tier answered the call. Otherwise throws: a configuration error if a tier gave one
    /// (it must be seen), else the first outage, else `sharedTierUnavailable` (every breaker was open).
    private func conclude(answered: Bool, failures: [any Error]) throws {
        if failures.contains(where: { $0 is CancellationError }) { throw CancellationError() }
        guard !answered else { return }
        count { $0.errors += 1 }
        for failure in failures {
            if case .invalidConfiguration = failure as? TroveError { throw failure }
        }
        throw failures.first
            ?? TroveError.sharedTierUnavailable(reason: "every shared tier is skipped while its breaker is open")
    }

    private func count(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }

    // MARK: - Copy-up

    /// Puts `value`, found in a lower tier by a read that began when `readSince` writes had been counted, into
    /// the tiers `above` in the background, once per key at a time; not when a write of the key came since.
    private func copyUp(_ value: Data, forKey key: String, into above: Range<Int>, readSince: UInt64) {
        // A tier the value does not fit in is simply not offered it.
        let above = above.filter { value.count <= layers[$0].tier.maxValueBytes ?? .max }
        guard !above.isEmpty, let ttl = copyTTL(key, value), ttl > .zero else { return }
        state.withLock { state in
            guard state.copyUps[key] == nil, state.copyUps.count < maxCopyUps, state.writing[key] == nil,
                (state.reads[key]?.lastWrite ?? 0) <= readSince
            else { return }
            state.copyUps[key] = Task.detached(priority: .background) { [self] in
                for index in above {
                    if (try? await attempt(index, { try await $0.set(key, value: value, ttl: ttl) })) != nil {
                        layers[index].copiedUp.add(1, ordering: .relaxed)
                    }
                }
                _ = self.state.withLock { $0.copyUps.removeValue(forKey: key) }
            }
        }
    }
}
