import Foundation
import Synchronization
import TroveCore

/// Hands every `PipelineActivity` to every observer's stream. Sending never waits: each stream buffers at
/// most `capacity` unread events and drops the oldest past that. With no observer, sending costs one lock.
package final class ActivityHub: Sendable {
    /// Unread events a stream keeps before dropping the oldest.
    package static let defaultCapacity = 256

    private let observers = Mutex<[UInt64: AsyncStream<PipelineActivity>.Continuation]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let capacity: Int

    /// A hub whose streams each buffer `capacity` unread events.
    package init(capacity: Int = ActivityHub.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// A new stream that gets every event sent from now on, until it is dropped or its reader cancelled.
    package func stream() -> AsyncStream<PipelineActivity> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: PipelineActivity.self, bufferingPolicy: .bufferingNewest(capacity))
        continuation.onTermination = { [weak self] _ in
            _ = self?.observers.withLock { $0.removeValue(forKey: id) }
        }
        observers.withLock { $0[id] = continuation }
        return stream
    }

    /// How many streams are listening now.
    package var observerCount: Int { observers.withLock { $0.count } }

    /// Sends the event `make` builds to every stream; `make` runs only when someone listens.
    package func send(_ make: () -> PipelineActivity) {
        let continuations = observers.withLock { Array($0.values) }
        guard !continuations.isEmpty else { return }
        let event = make()
        for continuation in continuations { continuation.yield(event) }
    }

    /// The `finished` event of an origin fetch of `url` under `key` that gave `outcome`.
    func finished(_ url: URL, key: String, _ outcome: FetchOutcome) {
        send {
            switch outcome {
            case let .data(data, _): .finished(url: url, cacheKey: key, result: .downloaded(bytes: data.count))
            case .notModified: .finished(url: url, cacheKey: key, result: .notModified)
            }
        }
    }

    /// The `finished` event of a fetch of `url` whose body of `bytes` went straight into its disk entry.
    func downloaded(_ url: URL, key: String, bytes: Int) {
        send { .finished(url: url, cacheKey: key, result: .downloaded(bytes: bytes)) }
    }

    /// The `finished` event of an origin fetch of `url` under `key` that failed with `error`.
    func failed(_ url: URL, key: String, _ error: any Error) {
        send { .finished(url: url, cacheKey: key, result: .failed(reason: "\(error)")) }
    }

    deinit {
        for continuation in observers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
