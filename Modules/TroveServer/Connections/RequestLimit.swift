import Synchronization

/// At most `limit` image requests in progress at once, counting those that only wait for another's
/// identical transform: the admission gate bounds distinct work, this bounds the requests themselves, so a
/// flood on one hot URL gets 429 instead of holding ever more connections and continuations.
final class RequestLimit: Sendable {
    let limit: Int
    private let inProgress = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Requests in progress now, for tests.
    var count: Int { inProgress.load(ordering: .relaxed) }

    /// Runs `body` as one request in progress; throws `AdmissionGate.Full` at once when `limit` are.
    func withRequest<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard inProgress.wrappingAdd(1, ordering: .relaxed).newValue <= limit else {
            inProgress.wrappingSubtract(1, ordering: .relaxed)
            throw AdmissionGate.Full()
        }
        defer { inProgress.wrappingSubtract(1, ordering: .relaxed) }
        return try await body()
    }
}
