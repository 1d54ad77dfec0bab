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

    /// The shared tier `sharedCache` names, made by the registry's factory for its scheme; nil without one.
    /// Throws `invalidConfiguration` listing the known schemes for a scheme no factory serves.
    package func makeSharedTier(registry: PluginRegistry) throws -> (any SharedCacheTier)? {
        guard let sharedCache else { return nil }
        return try registry.sharedTier(for: sharedCache).makeTier(url: sharedCache, options: sharedTierOptions)
    }

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
