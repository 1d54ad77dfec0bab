import Foundation
import TroveCore
import TroveDiskCache
import TroveMemoryCache

/// What forgetting a URL removed, per tier: the URL's original bytes and every result made from them.
public struct ForgetReport: Sendable, Equatable, Codable {
    /// The URL as given.
    public var url: String
    /// Entries removed from the memory cache (processed results, or data responses).
    public var memory = 0
    /// Entries removed from the disk cache: the original and every processed variant (and, for data, every
    /// answer to another method or body).
    public var disk = 0
    /// Copies removed from the fleet's shared tier: its original, and the results this process had on disk
    /// (a result only another process made stays there until it expires).
    public var shared = 0
    /// Remembered lasting failures removed (0 or 1).
    public var failures = 0
    /// Marks removed that refused the URL as a source that crashed a server (0 or 1;
    /// `PipelineConfiguration.crashGuard`).
    public var poisoned = 0

    /// Nothing removed yet for `url`.
    package init(url: String) {
        self.url = url
    }
}

extension PipelineParts {
    /// Removes from disk, the shared tier and the failure memory everything keyed by `url`'s source (the
    /// normalised URL under the configuration's `cacheKeyRule`): the raw entry, processed variants and
    /// request-keyed answers. A request that used a custom cache key is not found by its URL.
    func forget(_ url: URL) async -> ForgetReport {
        let source = configuration.cacheKeyRule.source(for: url)
        var report = ForgetReport(url: url.absoluteString)
        (report.disk, report.shared) = await cacheWriter.forget(source: source)
        if await failures.forget(CacheKey(source: source).raw) { report.failures = 1 }
        let poisonName = CrashJournal.name(of: source)
        let unmarked =
            if let crashGuard { await crashGuard.forget(source) } else {
                await PoisonedSources.forget(poisonName, in: diskCache?.directory, shared: shared)
            }
        if unmarked { report.poisoned = 1 }
        logger.info(
            "forgot a URL", metadata: ["url": .redacted(url), "disk": "\(report.disk)", "shared": "\(report.shared)"])
        return report
    }
}

extension ImagePipeline {
    /// Forgets `url` everywhere this pipeline keeps it: the original bytes and every processed result on disk
    /// and in memory, the shared tier's copy and a remembered failure, so the next request goes to the
    /// origin. Requests in flight are not cancelled (`cancel(url:)` does that). Returns what was removed.
    public func forget(url: URL) async -> ForgetReport {
        await flush()
        var report = await parts.forget(url)
        report.memory = parts.cacheWriter.forget(
            source: configuration.cacheKeyRule.source(for: url), in: memoryCache)
        return report
    }
}

extension DataPipeline {
    /// Forgets `url` everywhere this pipeline keeps it: the cached answers on disk and in memory (every
    /// method and body), the shared tier's copy and a remembered failure. Returns what was removed.
    public func forget(url: URL) async -> ForgetReport {
        await flush()
        var report = await parts.forget(url)
        report.memory = parts.cacheWriter.forget(
            source: configuration.cacheKeyRule.source(for: url), in: memoryCache)
        return report
    }
}
