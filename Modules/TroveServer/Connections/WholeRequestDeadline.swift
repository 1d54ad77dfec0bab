import Trove

/// Bounds a request's whole wait, whatever it waits on: the admission queue, a DNS lookup, the shared
/// tier's lease, the fetch, the transform. The pipeline's own deadline covers the fetch and its retries;
/// this one answers the client in time even where that one does not reach. It is a deadline on the
/// request's wait for its production (`Jobs.value(forKey:deadline:)`): the wait ends with `exceeded`, and
/// the production is cancelled if no other request waits for it.
enum WholeRequestDeadline {
    /// The client's answer when the deadline passes first.
    static let exceeded = ProxyFailure(status: 504, "the image was not ready within the request deadline")

    /// The deadline of a request that starts now and may take `limit`.
    static func starting(
        within limit: Duration, from start: ContinuousClock.Instant = .now
    ) -> JobDeadline {
        JobDeadline(at: start + limit, error: exceeded)
    }

    /// When a wait for decode memory gives up (503) for a request that starts now: a tenth of the
    /// deadline (at most a second) before the whole request's 504, so the budget's answer comes first.
    static func decodeMemoryWaitEnd(
        within limit: Duration, from start: ContinuousClock.Instant = .now
    ) -> ContinuousClock.Instant {
        start + limit - min(.seconds(1), limit / 10)
    }
}
