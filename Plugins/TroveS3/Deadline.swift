/// Runs `body` and gives up when `deadline` passes: the body is cancelled (AsyncHTTPClient then drops its
/// connection) and `S3Error.deadlineExceeded` thrown. AsyncHTTPClient's own deadline stops at the response
/// head, so a slow body needs this one.
func withDeadline<T: Sendable>(
    _ deadline: ContinuousClock.Instant, operation: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let budget = deadline - .now
    guard budget > .zero else { throw S3Error.deadlineExceeded(operation: operation, after: .zero) }
    return try await withThrowingTaskGroup(of: DeadlineRace<T>.self) { group in
        group.addTask { .finished(try await body()) }
        group.addTask {
            try await Task.sleep(until: deadline, clock: .continuous)
            return .expired
        }
        defer { group.cancelAll() }
        switch try await group.next() {
        case let .finished(value)?:
            return value
        case .expired?, nil:
            throw S3Error.deadlineExceeded(operation: operation, after: budget)
        }
    }
}

/// Which side of the race in `withDeadline` ended first.
private enum DeadlineRace<T: Sendable>: Sendable {
    case finished(T)
    case expired
}
