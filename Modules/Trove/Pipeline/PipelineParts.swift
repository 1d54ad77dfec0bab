import CoreMetrics
import Foundation
import Logging
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// What every stage of a pipeline shares: the tiers (disk, shared), the scheduler, the failure memory, the
/// metrics, the freshness rules and the one cache
/// writer. Built once per pipeline; the stages hold it and add only their own state.
package final class PipelineParts: Sendable {
    let configuration: PipelineConfiguration
    let registry: PluginRegistry
    let diskCache: DiskCache?
    /// Nil when the configuration names no shared tier.
    let shared: SharedTierAccess?
    let scheduler: FetchScheduler
    let failures: FailureMemory
    let metrics: PipelineMetrics
    let logger: Logger
    /// The HTTP caching rules every tier is judged by.
    let freshness: FreshnessPolicy
    /// The only code that stores or removes an entry, in any tier.
    let cacheWriter: CacheWriter
    let delegate: (any PipelineDelegate)?
    /// Decides whether fetched bytes may be cached (an image pipeline refuses bytes no decoder claims);
    /// nil accepts any bytes, and then failures about content (not an image) remembered by an image
    /// pipeline on the same directory do not apply.
    let accept: (@Sendable (Data, URL) throws -> Void)?
    /// Where `events` come from.
    let activity: ActivityHub
    /// The crash journal and the sources it refuses; nil unless `configuration.crashGuard` is set and there
    /// is a cache directory.
    let crashGuard: CrashGuard?
    /// Sent with every fetch under a request's own headers: the pipeline's defaults (an image pipeline's
    /// `Accept`) with the configuration's headers over them.
    let baseHeaders: [String: String]

    init(
        configuration: PipelineConfiguration, registry: PluginRegistry, diskCache: DiskCache?,
        sharedTier: (any SharedCacheTier)? = nil, accept: (@Sendable (Data, URL) throws -> Void)?,
        defaultHeaders: [String: String] = [:]
    ) {
        baseHeaders = Self.merging(configuration.headers, over: defaultHeaders)
        for host in configuration.tls.insecureHosts.sorted() {
            configuration.logger.warning(
                "TLS certificates of this host are not verified (tls.insecureHosts)", metadata: ["host": "\(host)"])
        }
        self.configuration = configuration.seedingCookies()
        self.registry = registry
        self.diskCache = diskCache
        let metrics = PipelineMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
        self.metrics = metrics
        logger = configuration.logger
        freshness = FreshnessPolicy(configuration)
        let activity = ActivityHub()
        self.activity = activity
        shared = sharedTier.map {
            SharedTierAccess(
                tier: $0, options: configuration.sharedTierOptions, policy: configuration.sharedTierPolicy,
                fetchTimeout: configuration.fetchTimeout, metrics: metrics, logger: configuration.logger,
                activity: activity)
        }
        diskCache?.observeStores { [activity] key, bytes in
            activity.send { .stored(cacheKey: key, tier: .disk, bytes: bytes) }
        }
        cacheWriter = CacheWriter(
            diskCache: diskCache, shared: shared, freshness: freshness, logger: configuration.logger)
        self.delegate = configuration.delegate
        self.accept = accept
        scheduler = FetchScheduler(configuration: configuration.scheduler)
        failures = FailureMemory(ttl: configuration.failedURLTTL, cacheDirectory: diskCache?.directory)
        if let ttl = configuration.crashGuard {
            crashGuard = CrashGuard(
                ttl: ttl, cacheDirectory: diskCache?.directory, shared: shared, metrics: metrics,
                logger: configuration.logger)
        } else {
            crashGuard = nil
        }
    }

    /// The headers a request with these of its own sends: `own` over `baseHeaders`, names compared
    /// without regard to case. What `Vary` is matched against.
    func sentHeaders(_ own: [String: String]) -> [String: String] {
        own.isEmpty ? baseHeaders : Self.merging(own, over: baseHeaders)
    }

    /// `top` over `base`: a name in both (in any case) keeps `top`'s spelling and value.
    static func merging(_ top: [String: String], over base: [String: String]) -> [String: String] {
        var merged = base
        for (name, value) in top {
            for existing in merged.keys where existing.caseInsensitiveEquals(name) { merged[existing] = nil }
            merged[name] = value
        }
        return merged
    }

    /// The cached response for a key that suits a request sending `headers`, or nil. A variant index
    /// (the response varies) leads to the variant these headers select; a response stored with selecting
    /// fields answers only a request that matches them (RFC 9111 §4.1). A disk that cannot be read counts
    /// as a miss, not a failure: the network can still serve the request.
    func cached(_ key: String, includingStale: Bool = false, for headers: [String: String]) async -> DiskEntry? {
        guard diskCache != nil else { return nil }
        var entry = await read(key, includingStale: includingStale)
        if let names = entry?.metadata.variantNames {
            let variantKey = CacheKey.variant(of: key, selecting: Vary.selecting(names, in: headers))
            entry = await read(variantKey, includingStale: includingStale)
        }
        if let selecting = entry?.metadata.selecting, !selecting.isEmpty, !Vary.matches(selecting, headers) {
            entry = nil
        }
        metrics.record(entry == nil ? .miss(.disk) : .hit(.disk))
        return entry
    }

    private func read(_ key: String, includingStale: Bool) async -> DiskEntry? {
        guard let diskCache else { return nil }
        do {
            return try await diskCache.entry(forKey: key, includingStale: includingStale)
        } catch {
            logger.warning("disk cache read failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
    }

    /// Counts a caller that joined work already in flight (raw or processed).
    @Sendable func recordJoin() {
        metrics.record(.coalescedJoin)
    }
}
