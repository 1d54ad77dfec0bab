import Foundation

/// A cache a fleet of processes shares below their own disks (Redis, ...), chosen by URL scheme
/// (`redis://`). Values are opaque bytes: the pipeline stores Trove's entry format in them (full key,
/// validators, CRC-32), so a damaged or foreign value is caught by the reader, not by the tier.
///
/// A tier throws `TroveError.sharedTierUnavailable` when it cannot answer (down, slow, refusing writes);
/// the pipeline then goes on without it. A configuration mistake (a wrong password) throws
/// `invalidConfiguration` instead, so it is reported rather than treated as an outage.
public protocol SharedCacheTier: Sendable {
    /// The value stored under `key`, or nil on a miss.
    func get(_ key: String) async throws -> Data?
    /// Stores `value` under `key` for `ttl`.
    func set(_ key: String, value: Data, ttl: Duration) async throws
    /// Removes `key`; removing a missing key is not an error.
    func delete(_ key: String) async throws
    /// Takes the fleet-wide lease on `key` for `ttl`: the holder fetches, the others wait for the value.
    /// Returns nil when another process holds it. A holder that dies loses it when `ttl` runs out.
    func acquireLease(on key: String, ttl: Duration) async throws -> SharedTierLease?
    /// Gives a lease back early; does nothing if it already expired or passed to another holder.
    func releaseLease(_ lease: SharedTierLease) async throws
    /// Counts since the tier was made.
    func statistics() -> SharedTierStatistics
    /// Counts every process using this tier has published (each adds its own as it shuts down), for
    /// `trove cache stats`. Throws `sharedTierUnavailable` when the tier cannot answer. A tier that keeps no
    /// such counts returns its own `statistics()`.
    func fleetStatistics() async throws -> SharedTierStatistics
    /// Closes connections; the tier answers `sharedTierUnavailable` afterwards.
    func shutdown() async
    /// The largest value `set` stores (a larger one is skipped and counted); nil when the tier does not say.
    /// A stack of tiers skips a tier a value does not fit in and keeps it in the others.
    var maxValueBytes: Int? { get }
}

extension SharedCacheTier {
    /// This process's counts: for tiers that keep no fleet-wide ones.
    public func fleetStatistics() async throws -> SharedTierStatistics { statistics() }

    /// Not said: every value is offered to the tier.
    public var maxValueBytes: Int? { nil }
}

/// A lease held on a shared-tier key: the key and the token that proves who holds it.
public struct SharedTierLease: Sendable, Hashable {
    /// The key the lease is on, as passed to `acquireLease(on:ttl:)`.
    public let key: String
    /// A random value only this holder knows; `releaseLease(_:)` frees the lease only while it still holds it.
    public let token: String

    /// A lease on `key` proven by `token`.
    public init(key: String, token: String) {
        self.key = key
        self.token = token
    }
}

/// What a shared tier has seen.
public struct SharedTierStatistics: Sendable, Equatable, Codable {
    /// `get` calls that found a value.
    public var hits: Int
    /// `get` calls that found nothing.
    public var misses: Int
    /// Values stored by `set`.
    public var stores: Int
    /// Calls that threw (the tier was down, slow or refused).
    public var errors: Int
    /// Values not stored because they were over `SharedTierOptions.maxValueBytes`.
    public var skipped: Int

    /// Counts as given; each defaults to 0.
    public init(hits: Int = 0, misses: Int = 0, stores: Int = 0, errors: Int = 0, skipped: Int = 0) {
        self.hits = hits
        self.misses = misses
        self.stores = stores
        self.errors = errors
        self.skipped = skipped
    }
}

/// Settings every shared tier understands; a tier's URL carries the rest (host, port, credentials, db).
public struct SharedTierOptions: Sendable, Equatable, Codable {
    /// Values larger than this are not stored (default 8 MiB).
    public var maxValueBytes: Int
    /// How long to wait for a connection (default 1 s).
    public var connectTimeout: Duration
    /// How long to wait for one command's reply (default 500 ms).
    public var commandTimeout: Duration
    /// Connections kept open to the server (default 4).
    public var connections: Int
    /// Prepended to every key, so several applications can share one server (default "trove:").
    public var keyPrefix: String

    /// Options with the given settings; each property says its default.
    public init(
        maxValueBytes: Int = 8 << 20, connectTimeout: Duration = .seconds(1),
        commandTimeout: Duration = .milliseconds(500), connections: Int = 4, keyPrefix: String = "trove:"
    ) {
        self.maxValueBytes = maxValueBytes
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.connections = connections
        self.keyPrefix = keyPrefix
    }
}

/// Makes a shared tier for a URL whose scheme it declares; registered in a `PluginRegistry`.
public protocol SharedCacheTierFactory: Sendable {
    /// The registry name, e.g. "redis".
    var name: String { get }
    /// Lowercase URL schemes this factory serves, e.g. ["redis"].
    var schemes: Set<String> { get }
    /// A tier for `url`. Throws `invalidConfiguration` for a URL it cannot use.
    func makeTier(url: URL, options: SharedTierOptions) throws -> any SharedCacheTier
}
