import TroveCore

/// A fetcher behind the source policy's prefixes (file: and s3: sources under the allowed prefixes only).
struct GuardedLocalFetcher<Inner: Fetcher>: Fetcher {
    let inner: Inner
    let policy: SourcePolicy
    var name: String { inner.name }
    var schemes: Set<String> { inner.schemes }

    init(_ inner: Inner, policy: SourcePolicy) {
        self.inner = inner
        self.policy = policy
    }

    func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        try policy.check(request.url)
        return try await inner.fetch(request, progress: progress)
    }
}
