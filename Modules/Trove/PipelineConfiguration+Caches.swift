import TroveCore
import TroveDiskCache
import TroveMemoryCache

extension PipelineConfiguration {
    var memoryCacheConfiguration: MemoryCacheConfiguration {
        // A result with an expiry is stored with a TTL of its own; memoryMaxAge covers the rest.
        MemoryCacheConfiguration(
            costLimit: memoryCostLimit, countLimit: memoryCountLimit, maxEntryCostFraction: memoryMaxEntryCostFraction,
            defaultTTL: memoryMaxAge)
    }

    var diskCacheConfiguration: DiskCacheConfiguration {
        var disk = DiskCacheConfiguration()
        disk.byteLimit = diskByteLimit
        disk.countLimit = diskCountLimit
        disk.maxAge = diskMaxAge
        disk.compressionLevel = compressionLevel
        disk.staleRetention = staleIfErrorBound
        disk.lowWaterFraction = diskLowWaterFraction
        disk.fsync = diskFsync
        disk.writeQueueByteLimit = diskWriteQueueByteLimit
        disk.payloadVerification = payloadVerification
        return disk
    }

    /// The disk cache this configuration names, built from the registry's plugins; nil without a directory.
    /// Resolves every plugin name even then, so a typo fails at build time either way.
    public func makeDiskCache(registry: PluginRegistry) throws -> DiskCache? {
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
    public func makeSharedTier(registry: PluginRegistry) throws -> (any SharedCacheTier)? {
        guard let sharedCache else { return nil }
        return try registry.sharedTier(for: sharedCache).makeTier(url: sharedCache, options: sharedTierOptions)
    }
}
