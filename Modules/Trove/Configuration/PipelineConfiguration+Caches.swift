import Foundation
import TroveCore
import TroveDiskCache
import TroveMemoryCache

extension PipelineConfiguration {
    /// `disk`, keeping stale entries at least as long as the pipeline may still deliver them.
    var diskCacheConfiguration: DiskCacheConfiguration {
        var configuration = disk
        configuration.staleRetention = max(disk.staleRetention, staleIfErrorBound)
        return configuration
    }

    /// The disk cache this configuration names, built from the registry's plugins; nil without a directory.
    /// Resolves every plugin name even then, so a typo fails at build time either way.
    package func makeDiskCache(registry: PluginRegistry) throws -> DiskCache? {
        let hasher = try registry.hasher(named: hasher.rawValue)
        let eviction = try registry.evictionPolicy(named: diskEviction.rawValue)
        let compressor = try registry.compressor(named: compressor.rawValue)
        guard let cacheDirectory else { return nil }
        return try DiskCache(
            directory: cacheDirectory, configuration: diskCacheConfiguration, hasher: hasher, compressor: compressor,
            knownCompressors: registry.names(of: .compressor).compactMap { try? registry.compressor(named: $0) },
            evictionPolicy: eviction, logger: logger)
    }

    /// The shared tier `sharedCaches` names, each made by the registry's factory for its scheme: nil without
    /// one, the tier itself for one, a `StackedSharedTier` over them for several. Throws
    /// `invalidConfiguration` listing the known schemes for a scheme no factory serves.
    package func makeSharedTier(registry: PluginRegistry) throws -> (any SharedCacheTier)? {
        let tiers = try sharedCaches.map {
            try registry.sharedTier(for: $0).makeTier(url: $0, options: sharedTierOptions)
        }
        guard tiers.count > 1 else { return tiers.first }
        let freshness = FreshnessPolicy(self)
        return StackedSharedTier(
            tiers: zip(sharedTierNames, tiers).map { (name: $0, tier: $1) }, policy: sharedTierPolicy,
            copyTTL: { key, value in
                // Only a valid entry for this key goes up, for as long as it is fresh.
                (try? EntryCodec.decode(value, expectedKey: key)).map {
                    freshness.sharedTTL(expires: $0.metadata.expires)
                }
            })
    }

    /// The names the shared tiers go by in statistics and metrics: each URL's scheme, numbered when repeated.
    package var sharedTierNames: [String] { StackedSharedTier.names(for: sharedCaches) }

    /// Forgets the lasting failures (404, 410, not an image) remembered in `cacheDirectory`, all of them or
    /// those recorded before `date`, so those URLs are fetched again; returns how many. `trove cache clear`
    /// does this along with the entries. Pipelines open on the directory keep their own copy until restarted
    /// (`forget(url:)` removes one URL's from a running pipeline).
    package static func removeRememberedFailures(in cacheDirectory: URL, recordedBefore date: Date? = nil)
        async throws -> Int
    {
        try await FailureMemory.removeAll(in: cacheDirectory, recordedBefore: date)
    }
}
