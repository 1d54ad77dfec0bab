/// Bounds a request's whole wait, whatever it waits on: the admission queue, a DNS lookup, the shared
/// tier's lease, the fetch, the transform. The pipeline's own deadline covers the fetch and its retries;
/// this one answers the client in time even where that one does not reach.
enum WholeRequestDeadline {
    /// The client's answer when the deadline passes first.
    static let exceeded = ProxyFailure(status: 504, "the image was not ready within the request deadline")

    /// When a wait for decode memory gives up (503) for a request that starts now: a tenth of the
    /// deadline (at most a second) before the whole request's 504, so the budget's answer comes first.
    static func decodeMemoryWaitEnd(
        within limit: Duration, from start: ContinuousClock.Instant = .now
    ) -> ContinuousClock.Instant {
        start + limit - min(.seconds(1), limit / 10)
    }

    /// The result of `body`, or `exceeded` thrown once `limit` has passed; `body` is then cancelled.
    static func run<T: Sendable>(
        within limit: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw exceeded
            }
            defer { group.cancelAll() }
            // Both children either return or throw, so the first to finish always gives an answer.
            guard let first = try await group.next() else { throw exceeded }
            return first
        }
    }
}
