import CoreMetrics
import Foundation
import Logging
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// A pipeline's parts, built once: the tiers (disk, shared), the scheduler, the failure memory, the metrics,
/// the freshness rules and the one cache writer. The pipelines hold it and `ImagePipeline` hands each
/// stage only the parts it uses; no stage holds it.
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
    /// Decides whether fetched bytes may be cached (an image pipeline refuses bytes no decoder claims);
    /// nil accepts any bytes, and then failures about content (not an image) remembered by an image
    /// pipeline on the same directory do not apply.
    let accept: AcceptCheck?
    /// Where `events` come from.
    let activity: ActivityHub
    /// The crash journal and the sources it refuses; nil unless `configuration.crashGuard` is set and there
    /// is a cache directory.
    let crashGuard: CrashGuard?
    /// The crash guard by URL, as the stages use it.
    let sourceGuard: SourceGuard
    /// What a request sends: its own headers over the pipeline's defaults.
    let headers: SentHeaders
    /// The local disk as the stages read it.
    let disk: DiskReader
    /// The spans the orchestrator starts around the stages; off without a tracer.
    let tracing: PipelineTracing

    init(
        configuration: PipelineConfiguration, registry: PluginRegistry, diskCache: DiskCache?,
        sharedTier: (any SharedCacheTier)? = nil, accept: AcceptCheck?,
        defaultHeaders: [String: String] = [:]
    ) {
        headers = SentHeaders(configured: configuration.headers, defaults: defaultHeaders)
        for host in configuration.tls.insecureHosts.sorted() {
            configuration.logger.warning(
                "TLS certificates of this host are not verified (tls.insecureHosts)", metadata: ["host": "\(host)"])
        }
        self.configuration = configuration.seedingCookies()
        self.registry = registry
        self.diskCache = diskCache
        let metrics = PipelineMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
        self.metrics = metrics
        disk = DiskReader(diskCache: diskCache, metrics: metrics, logger: configuration.logger)
        logger = configuration.logger
        tracing = PipelineTracing(configuration.tracer)
        freshness = FreshnessPolicy(configuration)
        let activity = ActivityHub()
        self.activity = activity
        shared = sharedTier.map {
            SharedTierAccess(
                tier: $0, tierNames: configuration.sharedTierNames, options: configuration.sharedTierOptions,
                policy: configuration.sharedTierPolicy,
                fetchTimeout: configuration.fetchTimeout, metrics: metrics, logger: configuration.logger,
                activity: activity)
        }
        diskCache?.observeStores { [activity] key, bytes in
            activity.send { .stored(cacheKey: key, tier: .disk, bytes: bytes) }
        }
        cacheWriter = CacheWriter(
            diskCache: diskCache, shared: shared, freshness: freshness, logger: configuration.logger,
            keepsOriginalsOnDisk: configuration.keepsOriginalsOnDisk)
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
        sourceGuard = SourceGuard(crashGuard: crashGuard, keyRule: configuration.cacheKeyRule)
    }

    /// Counts a caller that joined work already in flight (raw or processed).
    @Sendable func recordJoin() {
        metrics.record(.coalescedJoin)
    }
}

/// An image pipeline's check of bytes before they are cached: the decoder that claims them, or the error that
/// says why none does (`DecodeStage.decoder(in:for:url:)`). The decoder rides on with the bytes
/// (`RawResult.decoder`), so the decode does not look for it again.
typealias AcceptCheck = @Sendable (Data, URL) throws -> any ImageDecoder
