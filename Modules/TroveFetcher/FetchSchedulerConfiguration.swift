import TroveCore

/// Which queued request of equal priority goes first.
public enum QueueOrder: String, Sendable, CaseIterable, Codable {
    /// Oldest first: fair, the default.
    case fifo
    /// Newest first: what a scrolling list wants, since the latest requests are the ones on screen.
    case lifo
}

/// Limits and ordering of a `FetchScheduler`.
public struct FetchSchedulerConfiguration: Sendable, Equatable {
    /// Most fetches running at once, over all hosts (at least 1).
    public var maxConcurrent: Int
    /// Most fetches running at once against one host (at least 1).
    public var maxPerHost: Int
    /// Which waiting fetch of equal priority goes first: `.fifo` (default) or `.lifo` (newest first, as a scrolling list wants).
    public var order: QueueOrder

    /// Values below 1 are raised to 1: a limit of 0 would make every request wait forever.
    public init(maxConcurrent: Int = 6, maxPerHost: Int = 6, order: QueueOrder = .fifo) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.maxPerHost = max(1, maxPerHost)
        self.order = order
    }
}
