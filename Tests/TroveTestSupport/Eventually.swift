/// Polls `condition` every 5 ms until it holds or `bound` passes; returns whether it held. For states a test
/// can observe but not await (a count on another server, a gate's arrivals), never in place of a wait on
/// something that signals.
public func eventually(within bound: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows
    -> Bool
{
    let deadline = ContinuousClock.now + bound
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
