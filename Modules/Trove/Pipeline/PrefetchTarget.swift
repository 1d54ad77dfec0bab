import Foundation
import TroveCore

/// Where a prefetch puts what it fetches.
public enum PrefetchDestination: Sendable, Equatable {
    /// The bytes on disk only: nothing is decoded, memory stays flat however large the batch. The default.
    case disk
    /// Also decoded into the memory cache, as an app about to show the images wants (Nuke's memory destination).
    case memory
}

/// What warming one URL did: where its bytes were found, and how many.
public struct PrefetchedItem: Sendable, Equatable {
    /// Where the bytes were found: memory, disk, the shared tier, or the network (a fetch).
    public var source: ResultSource
    /// The body size, or for an entry the disk index answered, its stored size.
    public var bytes: Int
    /// The image's placeholder, when the prefetch computed one (`trove prefetch --placeholder`).
    package var placeholder: String?

    /// One URL's outcome.
    package init(source: ResultSource, bytes: Int) {
        self.source = source
        self.bytes = bytes
    }
}

/// A pipeline a `Prefetcher` can warm: `ImagePipeline` and `DataPipeline`.
package protocol PrefetchTarget: Sendable {
    /// Makes sure the URL's bytes are cached (on disk, or in memory too for `.memory`), fetching them at
    /// `priority` when they are not. A URL already fresh on disk is answered from the disk's index. With
    /// `retryFailed`, a URL remembered as failing for a lasting reason is fetched again.
    func prefetch(_ url: URL, priority: RequestPriority, destination: PrefetchDestination, retryFailed: Bool)
        async throws -> PrefetchedItem

    /// Waits until the stores queued for the disk have been written (disk writes are write-behind).
    func flush() async
}

extension ImagePipeline {
    /// Warms the raw entry for `url` without decoding: the disk's index answers when it is there and fresh,
    /// else the bytes are loaded (revalidated or fetched) and stored, a fetched body straight into its disk
    /// entry as it arrives.
    func prefetchOriginal(_ url: URL, key: String, priority: RequestPriority, retryFailed: Bool) async throws
        -> PrefetchedItem
    {
        if let size = await parts.diskCache?.freshEntrySize(forKey: key) {
            parts.metrics.record(.hit(.disk))
            return PrefetchedItem(source: .disk, bytes: size)
        }
        var request = RawRequest(
            url: url, key: key, policy: .useCache, retryFailed: retryFailed, headers: [:],
            waiter: JobWaiter(priority: priority, url: url))
        // Memory stays flat however large the batch: each body goes to its disk entry as it arrives. The
        // shared tier stores whole values, so with one the bytes are collected as any load collects them.
        request.streamsToDisk = parts.diskCache != nil && parts.shared == nil
        let result: RawResult
        if let diskCache = parts.diskCache, !(await diskCache.knowsEntry(forKey: key)) {
            // Nothing on disk to deliver or revalidate: straight to the network, without reading for a miss.
            parts.metrics.record(.miss(.disk))
            result = try await fetch(request)
        } else {
            result = try await original(request)
        }
        return PrefetchedItem(source: result.source, bytes: result.streamedLength ?? result.data.count)
    }
}

extension ImagePipeline: PrefetchTarget {
    /// Warms `url`: `.disk` answers from the disk index or loads the bytes undecoded (refusing bytes no decoder
    /// claims); `.memory` loads the image as `image(for:)` does. Throws what that load throws.
    package func prefetch(
        _ url: URL, priority: RequestPriority, destination: PrefetchDestination, retryFailed: Bool
    ) async throws -> PrefetchedItem {
        let request = ImageRequest(url: url, priority: priority, options: retryFailed ? [.retryFailed] : [])
        if destination == .memory {
            let response = try await image(for: request)
            return PrefetchedItem(source: response.source, bytes: response.data.count)
        }
        return try await prefetchOriginal(
            url, key: cacheKey(for: request).raw, priority: priority, retryFailed: retryFailed)
    }
}

extension DataPipeline: PrefetchTarget {
    /// Warms `url`: `.disk` answers from the disk index or loads the bytes; `.memory` loads them as `data(for:)`
    /// does. Throws what that load throws.
    package func prefetch(
        _ url: URL, priority: RequestPriority, destination: PrefetchDestination, retryFailed: Bool
    ) async throws -> PrefetchedItem {
        let request = DataRequest(url: url, retryFailed: retryFailed, priority: priority)
            .keyed(by: configuration.cacheKeyRule)
        if destination == .memory {
            let response = try await data(for: request)
            return PrefetchedItem(source: response.source, bytes: response.data.count)
        }
        return try await originals.prefetchOriginal(
            url, key: request.cacheKey, priority: priority, retryFailed: retryFailed)
    }
}
