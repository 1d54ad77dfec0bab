import Foundation
import TroveCore

/// Something a pipeline did that an observer may want to know of, from `events`: an origin fetch finished,
/// bytes were written to a cache tier, the memory cache was trimmed under pressure. Unlike `PipelineEvent`,
/// which belongs to one request, these are every request's, for logging, metrics and tests.
public enum PipelineActivity: Sendable, Equatable {
    /// A fetch from the origin finished (after any retries): the URL fetched, the cache key its bytes go
    /// under, and what came of it. Answers from a cache tier are not fetches and send nothing.
    case finished(url: URL, cacheKey: String, result: FetchResult)
    /// An entry was written to a tier: `bytes` is the whole disk file (header included) or the shared tier's
    /// value. A disk write is reported when the file is in place, after the write-behind queue wrote it.
    case stored(cacheKey: String, tier: StoreTier, bytes: Int)
    /// The memory cache was trimmed to its low-water mark under memory pressure (`MemoryPressureOptions`).
    case trimmedMemory(reason: String, removed: Int)

    /// How an origin fetch ended.
    public enum FetchResult: Sendable, Equatable {
        /// A body of this many bytes arrived.
        case downloaded(bytes: Int)
        /// The origin said the cached copy is still current (HTTP 304).
        case notModified
        /// The fetch failed; the error's description.
        case failed(reason: String)
    }

    /// The tier an entry was written to.
    public enum StoreTier: String, Sendable {
        /// This machine's disk cache.
        case disk
        /// The fleet's shared tier.
        case shared
    }
}

extension ImagePipeline {
    /// A new stream of what this pipeline does from now on (`PipelineActivity`), for one observer: each
    /// call gives its own stream, and every stream gets every event. A stream holds at most 256 events its
    /// observer has not read yet; past that the oldest are dropped, so a slow observer never slows the
    /// pipeline. Cancel the task reading it (or drop it) to stop observing.
    public var events: AsyncStream<PipelineActivity> { parts.activity.stream() }
}

extension DataPipeline {
    /// A new stream of what this pipeline does from now on, as `ImagePipeline.events`: one per observer, each
    /// getting every event, at most 256 unread with the oldest dropped past that.
    public var events: AsyncStream<PipelineActivity> { parts.activity.stream() }
}
