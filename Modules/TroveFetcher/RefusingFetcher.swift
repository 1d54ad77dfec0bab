import Foundation
import TroveCore

/// Refuses every URL of its schemes: stands in for the `file`, `data` and `s3` fetchers when a proxy's
/// `SourcePolicy` has them off, so the refusal holds however the URL reaches the pipeline.
package struct RefusingFetcher: Fetcher {
    /// The name it stands in for ("file", "data" or "s3").
    package let name: String
    /// The schemes it refuses.
    package let schemes: Set<String>
    private let policy: SourcePolicy

    /// Registered as `name` for `schemes`; `policy.check` gives the refusal.
    package init(name: String, schemes: Set<String>, policy: SourcePolicy) {
        self.name = name
        self.schemes = schemes
        self.policy = policy
    }

    /// Always throws `sourceNotAllowed`, naming the switch that would allow the scheme.
    package func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        try policy.check(request.url)
        // The policy allowed it after all: nothing here fetches.
        throw TroveError.sourceNotAllowed(url: request.url.absoluteString, reason: "\(name) sources are off")
    }
}
